//! A user's own packs: `packs/*.yaml` beside the user's configuration file, read at run time
//! into the types of the built-in packs and looked up before them.
//!
//! A pack that does not parse or fails the check is skipped with a warning naming it: a
//! broken file never changes a decision; the built-in knowledge holds.

use std::path::Path;

use super::check::check;
use super::schema::Pack;

/// Largest pack file read (256 KiB).
const MAX_PACK_BYTES: u64 = 256 * 1024;

/// Packs read from a directory, and what was wrong with the others.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The packs that parsed and passed the check, in file-name order.
    pub packs: &'static [Pack],
    /// One line per file skipped.
    pub warnings: Vec<String>,
}

/// Parses and checks one pack; the errors name the line where the parser knows it.
pub fn parse(text: &str) -> Result<Pack, Vec<String>> {
    let pack: Pack = serde_saphyr::from_str(text).map_err(|e| vec![e.to_string()])?;
    let problems: Vec<String> = check(&pack).iter().map(ToString::to_string).collect();
    if problems.is_empty() {
        Ok(pack)
    } else {
        Err(problems)
    }
}

/// Reads every `*.yaml` pack of `dir` (none when it does not exist).
pub fn load_dir(dir: &Path) -> Loaded {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Loaded::default();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".yaml") && !n.ends_with(".golden.yaml"))
        })
        .collect();
    files.sort();
    let mut packs = Vec::new();
    let mut warnings = Vec::new();
    for f in files {
        let text = match crate::state::read_text_file(&f, MAX_PACK_BYTES) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(e) => {
                warnings.push(format!("pack {} skipped: {e}", f.display()));
                continue;
            }
        };
        match parse(&text) {
            Ok(p) => packs.push(p),
            Err(errors) => warnings.push(format!(
                "pack {} skipped (`oath rules check` shows why): {}",
                f.display(),
                errors.join("; ")
            )),
        }
    }
    Loaded {
        // A hook lives for one call; the packs live as long as it (the static built-in
        // packs and a user's are looked up the same way).
        packs: Box::leak(packs.into_boxed_slice()),
        warnings,
    }
}
