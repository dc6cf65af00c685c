//! The files observer commands leave behind: the whole tool output of a call, the logs of
//! async commands, and the sweep that deletes old ones.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::clock::Timestamp;
use crate::project::file_safe;
use crate::protocol::HookInput;
use crate::redact::RedactingWriter;

/// Output files older than this are deleted by a later run.
const OUTPUT_FILE_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// Async logs older than this are deleted by a later run.
const LOG_FILE_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// Minimum time between two sweeps of old files.
const SWEEP_INTERVAL: Duration = Duration::from_secs(3600);

/// Most directory entries looked at by one sweep (keeps a sweep's cost bounded).
const SWEEP_MAX_ENTRIES: usize = 5000;

/// Returns a file-name stem unique enough to find a call's files: time and tool use id.
fn stem(now: Timestamp, input: &HookInput) -> String {
    let time: String = now
        .iso_millis()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let id = file_safe(input.tool_use_id.as_deref().unwrap_or("call"));
    let id: String = id.chars().take(64).collect();
    format!("{time}-{id}")
}

/// Writes the whole output, redacted as it is written (in bounded chunks, [`RedactingWriter`]),
/// to a new private file (mode 0600) that outlives the hook (24 h): like every file oath
/// writes, it holds no secret in clear.
pub(super) fn write_output_file(
    dir: &Path,
    now: Timestamp,
    input: &HookInput,
    output: &str,
) -> io::Result<PathBuf> {
    let dir = dir.join("outputs");
    fs::create_dir_all(&dir)?;
    let file = tempfile::Builder::new()
        .prefix(&format!("{}-", stem(now, input)))
        .suffix(".out")
        .tempfile_in(&dir)?;
    let mut w = RedactingWriter::new(io::BufWriter::new(file));
    // In pieces: the writer holds back a bounded part, never a copy of the whole output.
    for piece in output.as_bytes().chunks(64 * 1024) {
        w.write_all(piece)?;
    }
    let file = w
        .finish()?
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

/// Returns the log file of one async command.
pub(super) fn log_path(dir: &Path, now: Timestamp, index: usize, input: &HookInput) -> PathBuf {
    dir.join("logs")
        .join(format!("{}-{index}.log", stem(now, input)))
}

/// Deletes old output files and logs, at most once per [`SWEEP_INTERVAL`] (a marker file's
/// age says when the last sweep ran) and looking at a bounded number of entries. File ages
/// are compared with the system clock, not `OATH_NOW`, because the kernel stamps them.
pub(super) fn sweep_old_files(dir: &Path) {
    let marker = dir.join(".last-sweep");
    let now = SystemTime::now();
    let recent = fs::metadata(&marker)
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < SWEEP_INTERVAL));
    if recent || fs::write(&marker, b"").is_err() {
        return;
    }
    for (sub, max_age) in [("outputs", OUTPUT_FILE_MAX_AGE), ("logs", LOG_FILE_MAX_AGE)] {
        let Ok(entries) = fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten().take(SWEEP_MAX_ENTRIES) {
            let old = entry
                .metadata()
                .ok()
                .filter(fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .is_some_and(|t| now.duration_since(t).is_ok_and(|age| age > max_age));
            if old {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    #[test]
    fn old_files_are_swept_at_most_once_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let outputs = dir.path().join("outputs");
        let logs = dir.path().join("logs");
        fs::create_dir_all(&outputs).unwrap();
        fs::create_dir_all(&logs).unwrap();
        let aged = |path: &Path, hours: u64| {
            let f = File::create(path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(hours * 3600))
                .unwrap();
        };
        aged(&outputs.join("old.out"), 25);
        aged(&outputs.join("fresh.out"), 1);
        aged(&logs.join("day-old.log"), 25);
        aged(&logs.join("old.log"), 8 * 24);
        sweep_old_files(dir.path());
        assert!(!outputs.join("old.out").exists());
        assert!(outputs.join("fresh.out").exists());
        assert!(logs.join("day-old.log").exists());
        assert!(!logs.join("old.log").exists());
        // A second run within the hour does not scan again.
        aged(&outputs.join("old2.out"), 25);
        sweep_old_files(dir.path());
        assert!(outputs.join("old2.out").exists());
    }
}
