//! The audit trail: one JSONL file per project per session, one record per event that
//! matters, each record a single `write()`.
//!
//! Records carry a schema version `v`, a `kind`, the session and (for tool events) the
//! `tool_use_id`, so a pre record joins its outcome. Tool inputs are redacted
//! ([`crate::redact`]) and long strings truncated with their size and BLAKE3 digest.

pub mod read;
pub mod record;
pub mod trail;

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::clock::Timestamp;
use crate::redact;
use crate::state::{self, StateError};

/// Version of the record schema.
pub const RECORD_VERSION: u32 = 1;

/// Keys of a `tool_input` naming what a call acts on, first found wins (the target `oath
/// audit` and `oath report` show).
pub const TARGET_KEYS: [&str; 8] = [
    "command",
    "file_path",
    "notebook_path",
    "pattern",
    "url",
    "query",
    "path",
    "description",
];

/// The key that joins the pre record of a call the client gave no id (Gemini CLI sends none)
/// to its outcome: BLAKE3 of the tool and its input as the client sent them, 16 hex digits.
/// Identical calls share it; the reader joins them in order ([`trail`]). `None` for a call
/// with an id.
pub fn call_key(tool_use_id: Option<&str>, tool_name: &str, tool_input: &Value) -> Option<String> {
    if tool_use_id.is_some() {
        return None;
    }
    let mut h = blake3::Hasher::new();
    h.update(tool_name.as_bytes());
    h.update(&[0]);
    // Streamed into the hash: a large input is not copied.
    serde_json::to_writer(&mut h, tool_input).ok()?;
    Some(h.finalize().to_hex()[..16].to_owned())
}

/// Whether a call was refused by oath's own answer, as its pre record shows: a deny, or an
/// ask the client received as a deny (`answered`, written when a client cannot ask: Codex
/// CLI, Gemini CLI). Such a call never runs: Codex CLI and Gemini CLI send nothing after it,
/// and Claude Code says so later, if at all.
pub fn refused_by_answer(pre: &Value) -> bool {
    pre["decision"] == "deny" || pre["answered"] == "deny"
}

/// Longest string kept whole in a record; longer ones are cut with size and hash.
pub const MAX_STRING_BYTES: usize = 2048;

/// Appends one record (a JSON object) to an audit file, adding `v`, `kind` and `timestamp`
/// first (oath's own: a version, a name from the code, a time; a field of the same name does
/// not replace them). The record is redacted and its strings capped as it is written
/// ([`state::append_json_line`]).
fn append(
    path: &Path,
    kind: &str,
    now: Timestamp,
    fields: Map<String, Value>,
) -> Result<(), StateError> {
    let mut record = Map::with_capacity(fields.len() + 3);
    record.insert("v".into(), json!(RECORD_VERSION));
    record.insert("kind".into(), json!(kind));
    record.insert("timestamp".into(), json!(now.iso_millis()));
    for (k, v) in fields {
        record.entry(k).or_insert(v);
    }
    state::append_json_line(path, record, MAX_FIELD_BYTES)
}

/// Appends a typed record ([`record::Record`]), as [`append`] does.
pub fn write(path: &Path, now: Timestamp, record: &record::Record) -> Result<(), StateError> {
    let fields = match serde_json::to_value(record) {
        Ok(Value::Object(fields)) => fields,
        // A record is a struct of plain fields: it always serializes to an object.
        Ok(_) => Map::new(),
        Err(source) => {
            return Err(StateError::Serialize {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    append(path, record.kind(), now, fields)
}

/// Longest string any record field may hold (a backstop for fields not passed through
/// [`loggable`], such as a 10 MB `session_id` or event name).
const MAX_FIELD_BYTES: usize = 64 * 1024;

/// Returns a value cut for a record: each long string keeps a redacted head, its size and
/// its BLAKE3 digest. The rest is redacted by [`append`], which redacts every record it writes
/// (once: redacting here too would scan every logged text twice on the hook's hot path).
pub fn loggable(v: &Value) -> Value {
    shrink(v, 0)
}

fn shrink(v: &Value, depth: usize) -> Value {
    if depth > 32 {
        return json!("[... nested too deep]");
    }
    match v {
        Value::String(s) if s.len() > MAX_STRING_BYTES => Value::String(truncate_with_digest(s)),
        Value::Array(items) => Value::Array(items.iter().map(|i| shrink(i, depth + 1)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), shrink(v, depth + 1)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Bytes past the cut redacted with the head, so a secret the cut goes through is still
/// recognised: half a token no longer looks like one.
pub const REDACT_LOOKAHEAD_BYTES: usize = 1024;

/// Cuts a long string to its (redacted) head, followed by a marker naming its size and the
/// BLAKE3 digest of the whole (`b3sum` prints the same for a file holding the text), in at
/// most [`MAX_STRING_BYTES`] bytes (so that cutting it again changes nothing). BLAKE3, not
/// SHA-256: a 1 MB Write is hashed on the PreToolUse path, and SHA-256 (1 ms per MB here,
/// with the CPU's SHA instructions) costs as much as starting the process.
pub fn truncate_with_digest(s: &str) -> String {
    let (window, len, digest) = (head_window(s), s.len(), blake3::hash(s.as_bytes()));
    let marker = format!(
        "[... truncated by oath: {len} bytes, blake3 {}]",
        digest.to_hex()
    );
    let head = redact::redact_str(window);
    let mut cut = MAX_STRING_BYTES
        .saturating_sub(marker.len())
        .min(head.len());
    while !head.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{marker}", &head[..cut])
}

/// The text a long string's head is cut from: the bytes past the cut are redacted with the
/// head, so that a secret the cut goes through is still recognised.
fn head_window(s: &str) -> &str {
    let mut window = (MAX_STRING_BYTES + REDACT_LOOKAHEAD_BYTES).min(s.len());
    while !s.is_char_boundary(window) {
        window -= 1;
    }
    &s[..window]
}

/// Serializes any value into a record field map (helper for typed records).
pub fn fields<T: Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut f = Map::new();
        f.insert("session_id".into(), json!("é".repeat(100_000)));
        append(&path, "event", Timestamp::from_unix(0), f).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() < MAX_FIELD_BYTES + 200, "{}", text.len());
        assert!(text.contains("truncated by oath: 200000 bytes"));
    }

    #[test]
    fn a_secret_across_the_cut_is_not_logged_in_part() {
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        let text = format!("{}{token}{}", "x ".repeat(1015), " y".repeat(2000));
        let out = loggable(&json!(text));
        let s = out.as_str().unwrap();
        assert!(!s.contains("ghp_0123"), "{}", &s[2000..]);
    }

    #[test]
    fn records_are_single_lines_with_version_and_redaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/s.jsonl");
        let mut f = Map::new();
        f.insert("tool_input".into(), loggable(&json!({"command": "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 && x"})));
        append(&path, "pre", Timestamp::from_unix(0), f).unwrap();
        append(&path, "outcome", Timestamp::from_unix(1), Map::new()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let first: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(first["v"], 1);
        assert_eq!(first["kind"], "pre");
        assert!(!text.contains("ghp_0123"), "{text}");
    }

    #[test]
    fn a_secret_the_cut_goes_through_is_masked() {
        let text = format!(
            "{}ghp_0123456789abcdefghijABCDEFGHIJ012345 {}",
            " ".repeat(MAX_STRING_BYTES - 128),
            "z".repeat(5000)
        );
        let out = loggable(&json!(text));
        let s = out.as_str().unwrap();
        assert!(s.contains("truncated by oath"), "{s}");
        assert!(!s.contains("ghp_0123"), "part of a token kept");
    }

    #[test]
    fn long_strings_keep_size_and_hash() {
        let big = "é".repeat(5000);
        let out = loggable(&json!({"content": big}));
        let s = out["content"].as_str().unwrap();
        assert!(s.len() <= MAX_STRING_BYTES);
        assert!(s.contains("10000 bytes, blake3 "));
        assert_eq!(
            loggable(&json!(s)),
            json!(s),
            "cutting again changes nothing"
        );
        let digest = s.rsplit("blake3 ").next().unwrap().trim_end_matches(']');
        assert_eq!(digest, blake3::hash(big.as_bytes()).to_hex().as_str());
    }
}
