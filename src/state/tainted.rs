//! Copies of credentials a session made (`tainted/<session>.json` in the project's state
//! folder): a file the agent copied, linked, archived or wrote from credentials holds them
//! too, so later calls of the same session read, send or copy it as credentials.
//!
//! Written only when a PreToolUse call makes such a copy (whatever the decision: a person
//! may approve it), through [`super::update_json`] (locked, atomic, redacted); read by every
//! PreToolUse of the session, which costs one `stat` when the session made none. At most
//! [`MAX_TAINTED`] paths are kept, the latest.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ReadOutcome, StateError};
use crate::classify::Taint;
use crate::clock::Timestamp;

/// Most copies a session's file keeps (the oldest go first).
pub const MAX_TAINTED: usize = 256;

/// The file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TaintedFile {
    #[serde(default)]
    tainted: Vec<Taint>,
}

/// Returns the copies a session made (none when its file is missing or unreadable).
pub fn read(path: &Path) -> Vec<Taint> {
    match super::read_json::<TaintedFile>(path) {
        ReadOutcome::Ok(f) => f.tainted,
        ReadOutcome::Missing | ReadOutcome::Corrupt(_) => Vec::new(),
    }
}

/// Adds copies to a session's file (a path already there keeps its first record).
pub fn record(
    path: &Path,
    new: &[Taint],
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    super::update_json(
        path,
        now,
        warnings,
        TaintedFile::default,
        |f: &mut TaintedFile| {
            let before = f.tainted.len();
            for t in new {
                if !f.tainted.iter().any(|x| x.path == t.path) {
                    f.tainted.push(t.clone());
                }
            }
            if f.tainted.len() > MAX_TAINTED {
                let extra = f.tainted.len() - MAX_TAINTED;
                f.tainted.drain(..extra);
            }
            (f.tainted.len() != before, ())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn taint(p: &str) -> Taint {
        Taint {
            path: PathBuf::from(p),
            from: "~/.ssh/id_rsa".into(),
            by: "`cp`".into(),
        }
    }

    #[test]
    fn copies_are_kept_once_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tainted/s.json");
        assert!(read(&file).is_empty());
        let now = Timestamp::now();
        let mut w = Vec::new();
        record(&file, &[taint("/p/a"), taint("/p/a")], now, &mut w).unwrap();
        record(&file, &[taint("/p/a"), taint("/p/b")], now, &mut w).unwrap();
        let got: Vec<PathBuf> = read(&file).into_iter().map(|t| t.path).collect();
        assert_eq!(got, vec![PathBuf::from("/p/a"), PathBuf::from("/p/b")]);
        let many: Vec<Taint> = (0..300).map(|i| taint(&format!("/p/{i}"))).collect();
        record(&file, &many, now, &mut w).unwrap();
        let got = read(&file);
        assert_eq!(got.len(), MAX_TAINTED);
        assert_eq!(got.last().unwrap().path, PathBuf::from("/p/299"));
        assert!(w.is_empty(), "{w:?}");
    }
}
