//! Files oath owns on disk: locked read-modify-write with atomic replace, and append-only logs.
//!
//! Every read-modify-write holds an exclusive lock on a sidecar `<file>.lock`, writes a temp
//! file in the same directory, fsyncs it and renames it over the target, so a reader sees the
//! old or the new file, never a torn one, and a writer killed mid-write leaves the old file.
//! A file that cannot be read as its type (empty, truncated, garbage, a directory, a symlink)
//! is moved aside as `<file>.corrupt-<stamp>` with a warning, and work goes on from defaults.

mod store;

pub use store::{
    ReadOutcome, StateError, append_line, from_slice_seed, read_json, read_json_with,
    read_text_file, update_json, write_atomic, write_json_atomic,
};
