//! Parsed configuration files kept between hooks.
//!
//! Every hook reads the user's and the project's configuration; parsing a YAML file of
//! the README's example size costs about as much as the rest of a PreToolUse. So the value a
//! file parses to is kept in oath's state (`cache/config/`, one file per configuration
//! path), with the BLAKE3 digest of the text it came from and oath's version, and used while
//! both still match. The text is read and hashed at every hook, so an edit takes effect at
//! once; anything unreadable or stale is parsed again, as without the cache.
//!
//! The cache holds the configuration as it is. oath redacts every byte it writes, so a
//! configuration that holds something redaction would change (a token in an observer's
//! command, say) is not cached: it is parsed at every hook instead.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Largest cache file read (the configuration itself is at most 1 MiB of YAML).
const MAX_CACHE_BYTES: u64 = 4 * 1024 * 1024;

/// The cache file of the configuration file `path`.
fn entry(dir: &Path, path: &Path) -> PathBuf {
    let name = blake3::hash(path.as_os_str().as_encoded_bytes()).to_hex();
    dir.join(format!("{}.json", &name[..32]))
}

/// The record kept for a file's text.
fn record(text: &str, value: &Value) -> Value {
    json!({
        "oath": env!("CARGO_PKG_VERSION"),
        "blake3": blake3::hash(text.as_bytes()).to_hex().as_str(),
        "value": value,
    })
}

/// Returns the value `text` (the content of the configuration file `path`) parsed to, when
/// the cache in `dir` holds it for this text and this version of oath.
pub fn get(dir: &Path, path: &Path, text: &str) -> Option<Value> {
    let bytes = crate::state::read_text_file(&entry(dir, path), MAX_CACHE_BYTES).ok()??;
    let Value::Object(mut kept) = serde_json::from_str::<Value>(&bytes).ok()? else {
        return None;
    };
    let digest = blake3::hash(text.as_bytes());
    let fresh = kept.get("oath").and_then(Value::as_str) == Some(env!("CARGO_PKG_VERSION"))
        && kept.get("blake3").and_then(Value::as_str) == Some(digest.to_hex().as_str());
    fresh.then(|| kept.remove("value")).flatten()
}

/// Keeps the value `text` parsed to, unless redaction would change the record (then the
/// file is parsed at every hook). Failing to write is not an error: the next hook parses.
pub fn put(dir: &Path, path: &Path, text: &str, value: &Value) {
    let record = record(text, value);
    let mut redacted = record.clone();
    crate::redact::redact_value(&mut redacted);
    if redacted != record {
        return;
    }
    let Ok(mut bytes) = serde_json::to_vec(&record) else {
        return;
    };
    bytes.push(b'\n');
    let _ = crate::state::write_raw_atomic(&entry(dir, path), &bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_kept_for_its_text_only() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (Path::new("/p/a.yaml"), Path::new("/p/b.yaml"));
        let value = json!({"on_error": "deny", "trust": {"initial_score": 0.5}});
        assert_eq!(get(dir.path(), a, "on_error: deny"), None);
        put(dir.path(), a, "on_error: deny", &value);
        assert_eq!(get(dir.path(), a, "on_error: deny"), Some(value.clone()));
        // Another text (an edit) or another file misses.
        assert_eq!(get(dir.path(), a, "on_error: ask"), None);
        assert_eq!(get(dir.path(), b, "on_error: deny"), None);
        // A rewrite for the new text replaces the entry: one file per configuration path.
        put(dir.path(), a, "on_error: ask", &json!({"on_error": "ask"}));
        assert_eq!(
            get(dir.path(), a, "on_error: ask"),
            Some(json!({"on_error": "ask"}))
        );
        assert_eq!(get(dir.path(), a, "on_error: deny"), None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_damaged_or_foreign_entry_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let a = Path::new("/p/a.yaml");
        let file = entry(dir.path(), a);
        std::fs::write(&file, "{\"oath\": \"0.0.0\", ").unwrap();
        assert_eq!(get(dir.path(), a, "x: 1"), None);
        let mut other = record("x: 1", &json!({"x": 1}));
        other["oath"] = json!("0.0.0-other");
        std::fs::write(&file, other.to_string()).unwrap();
        assert_eq!(get(dir.path(), a, "x: 1"), None);
        std::fs::write(&file, record("x: 1", &json!({"x": 1})).to_string()).unwrap();
        assert_eq!(get(dir.path(), a, "x: 1"), Some(json!({"x": 1})));
    }

    #[test]
    fn a_configuration_holding_a_secret_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let a = Path::new("/p/a.yaml");
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        let text = format!("postToolUse: {{commands: [{{tool: Bash, run: 'notify {token}'}}]}}");
        let value = json!({"postToolUse": {"commands": [{"tool": "Bash", "run": format!("notify {token}")}]}});
        put(dir.path(), a, &text, &value);
        assert_eq!(get(dir.path(), a, &text), None);
        assert_eq!(std::fs::read_dir(dir.path()).map_or(0, |d| d.count()), 0);
    }
}
