//! `oath export otlp`: the audit trail shipped to an OpenTelemetry collector as log
//! records, at least once.
//!
//! Each audit file is read from its cursor ([`cursor`]) under the cursor's lock, in batches
//! of whole lines (a last line without its `\n` may still be being written: it waits for the
//! next run); a batch's cursor moves only once the collector accepted it, so a run that fails
//! or is killed loses nothing and the next one sends again what was not acknowledged, with
//! the same record ids ([`otlp::record_id`]). Lines that are not JSON objects (the head of a
//! record whose writer was killed) are skipped and counted. There are no retries inside a run:
//! the first refusal ends it.
//!
//! Never loaded by the hook: only `oath export` (and the configuration's section) reach it.

pub mod cursor;
pub mod http;
pub mod kpt;
pub mod otlp;
pub mod settings;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::audit::read::{Lines, Record, is_blank};
use crate::clock::Timestamp;
use crate::state::{self, StateError};
use cursor::{Cursor, FileId};
use settings::{Protocol, Settings};

/// Most records in one request.
pub const MAX_RECORDS: usize = 1000;
/// Most bytes of audit lines in one request (the body is about as large).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;

/// Where batches go.
pub trait Transport {
    /// Sends one request body; an error is the collector's refusal (or no answer).
    fn send(&mut self, body: Vec<u8>) -> Result<(), SendError>;
}

/// Why a request was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// No answer (refused connection, timeout): the collector is unreachable, so the run
    /// stops; the next one sends again.
    Unreachable(String),
    /// An answer other than success that may pass later (a 5xx, 429, 413, ...): this file
    /// waits for the next run, the other files are still tried.
    Refused(String),
    /// `400 Bad Request`, which OTLP says not to send again: the batch is dropped, counted
    /// and reported, and the cursor moves past it (else it would block the file for good).
    Rejected(String),
}

impl SendError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Self::Unreachable(m) | Self::Refused(m) | Self::Rejected(m) => m,
        }
    }
}

/// An audit file to export.
#[derive(Debug, Clone)]
pub struct Source {
    /// The project's folder name under the state root.
    pub project: String,
    /// The file.
    pub path: PathBuf,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records the collector accepted (or printed, with `--dry-run`).
    pub records: u64,
    /// Requests sent.
    pub requests: u64,
    /// Files that had something new.
    pub files: u64,
    /// Lines skipped as unreadable.
    pub skipped: u64,
    /// Files read again from their start (replaced or truncated since the last run).
    pub restarted: u64,
    /// Files another run was exporting (their lock was held): left to it.
    pub busy: u64,
    /// Files left for the next run (their batch was refused).
    pub left: u64,
    /// Records in batches the collector rejected as malformed (400): dropped.
    pub rejected: u64,
    /// The collector's answers to them.
    pub rejections: Vec<String>,
}

/// A run's failure, after what it did.
#[derive(Debug)]
pub struct Failed {
    /// What was done before it.
    pub summary: Summary,
    /// Why.
    pub message: String,
}

/// Lists the audit files under the state root: every project's, or only `project`'s (its
/// folder name). Sorted by project and name.
pub fn sources(state_root: &Path, project: Option<&str>) -> std::io::Result<Vec<Source>> {
    let projects_dir = state_root.join("projects");
    let mut projects: Vec<String> = match project {
        Some(p) => vec![p.to_owned()],
        None => match std::fs::read_dir(&projects_dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        },
    };
    projects.sort();
    let mut out = Vec::new();
    for p in projects {
        let dir = projects_dir.join(&p).join("audit");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|path| Source {
            project: p.clone(),
            path,
        }));
    }
    Ok(out)
}

/// Returns the cursor file of an audit file.
pub fn cursor_path(state_root: &Path, source: &Source) -> PathBuf {
    let name = source
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    state_root
        .join("export/otlp")
        .join(&source.project)
        .join(format!("{name}.json"))
}

/// Removes the cursors of audit files that are gone (deleted, or a project's state removed),
/// with their lock files: of `project`'s folder, or of every project's. Each is removed under
/// its lock, and only if its audit file is still missing then. Returns how many went.
pub fn sweep(state_root: &Path, project: Option<&str>) -> usize {
    let root = state_root.join("export/otlp");
    let projects: Vec<String> = match project {
        Some(p) => vec![p.to_owned()],
        None => std::fs::read_dir(&root)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    };
    let mut removed = 0;
    for p in projects {
        let Ok(entries) = std::fs::read_dir(root.join(&p)) else {
            continue;
        };
        let audit_dir = state_root.join("projects").join(&p).join("audit");
        for cursor_file in entries.filter_map(Result::ok).map(|e| e.path()) {
            let Some(audit_name) = cursor_file
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
                .filter(|n| n.ends_with(".jsonl"))
            else {
                continue;
            };
            let audit_file = audit_dir.join(audit_name);
            // Only a file known to be gone: an error reading the folder keeps the cursor.
            let gone = || matches!(audit_file.try_exists(), Ok(false));
            if !gone() {
                continue;
            }
            let mut warnings = Vec::new();
            let Ok(lock) = state::lock_file_of(&cursor_file, Timestamp::now(), &mut warnings)
            else {
                continue;
            };
            if gone() && std::fs::remove_file(&cursor_file).is_ok() {
                removed += 1;
                let _ = std::fs::remove_file(state::lock_path(&cursor_file));
            }
            drop(lock);
        }
    }
    removed
}

/// Exports every source in turn. A collector that does not answer stops the run; one that
/// refuses a file's batch leaves that file for the next run and the others are tried; the
/// run fails if any file was left. With `move_cursors` false
/// (`--dry-run`) nothing is written and no lock is taken.
pub fn run(
    state_root: &Path,
    sources: &[Source],
    settings: &Settings,
    transport: &mut dyn Transport,
    move_cursors: bool,
) -> Result<Summary, Failed> {
    let mut summary = Summary::default();
    let mut first: Option<String> = None;
    for source in sources {
        match export_file(
            state_root,
            source,
            settings,
            transport,
            move_cursors,
            &mut summary,
        ) {
            Ok(()) => {}
            Err(Stop::Unreachable(message)) => {
                return Err(Failed {
                    summary,
                    message: first.unwrap_or(message),
                });
            }
            Err(Stop::File(message)) => {
                summary.left += 1;
                first.get_or_insert(message);
            }
        }
    }
    match first {
        Some(message) => Err(Failed { summary, message }),
        None => Ok(summary),
    }
}

/// Why a file's export stopped.
enum Stop {
    /// The collector did not answer: stop the run.
    Unreachable(String),
    /// This file only (refused, or an error reading it or writing its cursor).
    File(String),
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Self::File(message)
    }
}

/// A request's body in the settings' protocol.
pub fn encode(settings: &Settings, batch: &[otlp::LogRecord]) -> Vec<u8> {
    match settings.protocol {
        Protocol::Json => otlp::to_json(&settings.resource, batch)
            .to_string()
            .into_bytes(),
        Protocol::Protobuf => otlp::to_protobuf(&settings.resource, batch),
    }
}

/// Exports one file from its cursor.
fn export_file(
    state_root: &Path,
    source: &Source,
    settings: &Settings,
    transport: &mut dyn Transport,
    move_cursors: bool,
    summary: &mut Summary,
) -> Result<(), Stop> {
    let path = &source.path;
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let cursor_file = cursor_path(state_root, source);
    let now = Timestamp::now();
    let mut warnings = Vec::new();
    let stat = || std::fs::metadata(path).map(|m| FileId::of(&m)).map_err(io);
    // A quick look without the lock: nothing new, nothing to do.
    let read_cursor = || match state::read_json::<Cursor>(&cursor_file) {
        state::ReadOutcome::Ok(c) => c,
        _ => Cursor::default(),
    };
    let id = stat()?;
    if read_cursor().start(path, id).map_err(io)? == id.len && id.len > 0 {
        return Ok(());
    }
    let _lock = match take_turn(&cursor_file, move_cursors, now, &mut warnings)? {
        Turn::Mine(lock) => lock,
        Turn::Busy => {
            summary.busy += 1;
            return Ok(());
        }
    };
    // Under the lock: the cursor as the last run left it.
    let id = stat()?;
    let cursor = read_cursor();
    let mut from = cursor.start(path, id).map_err(io)?;
    if from == 0 && cursor.offset > 0 {
        summary.restarted += 1;
    }
    if from >= id.len {
        return Ok(());
    }
    summary.files += 1;
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ends_in_newline = last_byte(path, id.len).map_err(io)? == Some(b'\n');
    let mut lines = Lines::new(path, from, id.len).map_err(io)?;
    loop {
        let mut batch = Vec::new();
        let mut bytes = 0usize;
        let mut end = from;
        while batch.len() < MAX_RECORDS && bytes < MAX_BYTES {
            let Some((start, line)) = lines.next_line().map_err(io)? else {
                break;
            };
            let line_end = start + line.len() as u64;
            // A last line without its line end may be half written: left for the next run.
            if line_end == id.len && !ends_in_newline {
                break;
            }
            end = line_end + 1;
            if is_blank(line) {
                continue;
            }
            let Some(record) = Record::parse(line) else {
                summary.skipped += 1;
                continue;
            };
            let Value::Object(map) = record.value() else {
                summary.skipped += 1;
                continue;
            };
            let origin = otlp::Origin {
                project: &source.project,
                file: &file,
                offset: start,
            };
            bytes += line.len();
            batch.push(otlp::map_record(
                &map,
                record.time.map(Timestamp::unix_millis),
                otlp::record_id(origin, line),
                origin,
                settings.tool_details,
            ));
        }
        if end == from {
            return Ok(());
        }
        if !batch.is_empty() {
            match transport.send(encode(settings, &batch)) {
                Ok(()) => {
                    summary.requests += 1;
                    summary.records += batch.len() as u64;
                }
                Err(SendError::Rejected(m)) => {
                    summary.requests += 1;
                    summary.rejected += batch.len() as u64;
                    summary.rejections.push(m);
                }
                Err(SendError::Refused(m)) => return Err(Stop::File(m)),
                Err(SendError::Unreachable(m)) => return Err(Stop::Unreachable(m)),
            }
        }
        if move_cursors {
            let c = Cursor::at(path, id, end).map_err(io)?;
            // Written as it is (the head's hash is no secret to mask).
            let mut text = serde_json::to_vec(&c).map_err(|e| e.to_string())?;
            text.push(b'\n');
            state::write_raw_atomic(&cursor_file, &text).map_err(|e| e.to_string())?;
        }
        from = end;
    }
}

/// Whether a run may read and move a cursor.
enum Turn {
    /// Yes, holding its lock while it does (none when cursors do not move: a dry run).
    Mine(Option<state::FileLock>),
    /// Another run has held it past the lock's wait: that run sends this file.
    Busy,
}

/// Takes the lock of a cursor file (creating its folder) when cursors move.
fn take_turn(
    cursor_file: &Path,
    move_cursors: bool,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<Turn, String> {
    if !move_cursors {
        return Ok(Turn::Mine(None));
    }
    if let Some(dir) = cursor_file.parent() {
        state::ensure_dir(dir, now, warnings).map_err(|e| e.to_string())?;
    }
    match state::lock_file_of(cursor_file, now, warnings) {
        Ok(l) => Ok(Turn::Mine(Some(l))),
        Err(StateError::Io {
            action: "lock",
            source,
            ..
        }) if source.kind() == std::io::ErrorKind::TimedOut => Ok(Turn::Busy),
        Err(e) => Err(e.to_string()),
    }
}

/// The byte before `len` in a file.
fn last_byte(path: &Path, len: u64) -> std::io::Result<Option<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    if len == 0 {
        return Ok(None);
    }
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(len - 1))?;
    let mut b = [0u8; 1];
    Ok((f.read(&mut b)? == 1).then_some(b[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_removes_only_the_cursors_of_audit_files_that_are_gone() {
        let root = tempfile::tempdir().unwrap();
        let state_root = root.path();
        let touch = |rel: &str| {
            let path = state_root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}\n").unwrap();
        };
        touch("projects/p-1/audit/kept.jsonl");
        touch("export/otlp/p-1/kept.jsonl.json");
        touch("export/otlp/p-1/kept.jsonl.json.lock");
        touch("export/otlp/p-1/gone.jsonl.json");
        touch("export/otlp/p-1/gone.jsonl.json.lock");
        touch("export/otlp/p-1/notes.txt");
        touch("export/otlp/p-2/gone.jsonl.json");
        // Only the named project's folder.
        assert_eq!(sweep(state_root, Some("p-1")), 1);
        let exists = |rel: &str| state_root.join(rel).exists();
        assert!(exists("export/otlp/p-1/kept.jsonl.json"));
        assert!(exists("export/otlp/p-1/kept.jsonl.json.lock"));
        assert!(!exists("export/otlp/p-1/gone.jsonl.json"));
        assert!(!exists("export/otlp/p-1/gone.jsonl.json.lock"));
        assert!(exists("export/otlp/p-1/notes.txt"));
        assert!(exists("export/otlp/p-2/gone.jsonl.json"));
        // Every project's: p-2 has no audit folder at all.
        assert_eq!(sweep(state_root, None), 1);
        assert!(!exists("export/otlp/p-2/gone.jsonl.json"));
        assert!(exists("export/otlp/p-1/kept.jsonl.json"));
    }
}
