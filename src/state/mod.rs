//! Files oath owns on disk: locked read-modify-write with atomic replace, and append-only logs.
//!
//! Every read-modify-write holds an exclusive lock on a sidecar `<file>.lock` (or, for a
//! folder of files updated together, the folder's `.lock`: [`lock_dir`]), writes a temp file
//! in the same directory (the locked folder), fsyncs it and renames it over the target, so a
//! reader sees the old or the new file, never a torn one, and a writer killed mid-write
//! leaves the old file. The trust folder is such a folder of small files ([`trust`]).
//! A file that cannot be read as its type (empty, truncated, garbage, a directory, a symlink)
//! is moved aside as `<file>.corrupt-<stamp>` with a warning, and work goes on from defaults.
//! Every record written here is redacted first ([`crate::redact`]): JSON files and log lines
//! alike, or, for files whose values are redacted as they are made
//! ([`update_json_redacted_at_entry`]: the 3-strike log and index), as each value enters;
//! only [`write_raw_atomic`], for a file of the user's that oath edits, writes bytes as they
//! are.

mod store;
pub mod tainted;
pub mod trust;

pub use store::{
    DirLock, Durability, FileLock, ReadOutcome, StateError, append_json_line, ensure_dir,
    from_slice_seed, lock_dir, lock_file_of, lock_path, move_aside, quarantine_warning, read_json,
    read_json_with, read_text_file, update_json, update_json_redacted_at_entry, write_json_atomic,
    write_raw_atomic,
};
