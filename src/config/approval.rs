//! Which projects' `.oath.yaml` the user approved, file by file and content by content (like
//! direnv's `allow`). Until then a project's file can only tighten: the agent can write into
//! the project, so what it says is not the user's word. Approvals live in oath's state
//! (`approved-configs.json`), which the agent cannot write; `oath config trust` records one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::state::{self, ReadOutcome, StateError};

/// The approvals file in oath's state root.
pub fn approvals_path(state_root: &Path) -> PathBuf {
    state_root.join("approved-configs.json")
}

/// Approved project configuration files: path → BLAKE3 of the approved content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    /// The files, by absolute path.
    pub files: BTreeMap<String, String>,
}

impl Approvals {
    /// Reads the approvals (none when the file is missing or corrupt).
    pub fn load(state_root: &Path) -> Self {
        match state::read_json(&approvals_path(state_root)) {
            ReadOutcome::Ok(a) => a,
            ReadOutcome::Missing | ReadOutcome::Corrupt(_) => Self::default(),
        }
    }

    /// Returns whether `path` with exactly `content` is approved.
    pub fn approves(&self, path: &Path, content: &[u8]) -> bool {
        !self.files.is_empty()
            && self
                .files
                .get(&key(path))
                .is_some_and(|h| *h == digest(content))
    }
}

/// The key of a file: its real path (links followed), as text.
fn key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Records `content` of `path` as approved (locked read-modify-write).
pub fn approve(
    state_root: &Path,
    path: &Path,
    content: &[u8],
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    let key = key(path);
    let hash = digest(content);
    state::update_json(
        &approvals_path(state_root),
        now,
        warnings,
        Approvals::default,
        |a: &mut Approvals| {
            (
                a.files.insert(key, hash.clone()).as_ref() != Some(&hash),
                (),
            )
        },
    )
}

/// The digest approvals compare (BLAKE3, hex).
pub fn digest(content: &[u8]) -> String {
    blake3::hash(content).to_hex().to_string()
}

/// What an unapproved project file keeps: its `deny` and `ask` rules, added to the user's,
/// and an `on_error` that is not `allow`. Returns the kept layer and the keys dropped.
pub fn tighten_only(project: Value) -> (Value, Vec<String>) {
    let Value::Object(map) = project else {
        return (Value::Object(serde_json::Map::new()), Vec::new());
    };
    let mut kept = serde_json::Map::new();
    let mut dropped = Vec::new();
    for (k, v) in map {
        match (k.as_str(), v) {
            ("rules", Value::Object(rules)) => {
                let mut r = serde_json::Map::new();
                for (kind, list) in rules {
                    if kind == "deny" || kind == "ask" {
                        r.insert(kind, list);
                    } else {
                        dropped.push(format!("rules.{kind}"));
                    }
                }
                kept.insert(k, Value::Object(r));
            }
            ("on_error", Value::String(s)) if s != "allow" => {
                kept.insert(k, Value::String(s));
            }
            (_, _) => dropped.push(k),
        }
    }
    (Value::Object(kept), dropped)
}

/// Merges a tightening layer: its rule lists are added to the base's, never replacing them.
pub fn merge_tightening(base: &mut Value, layer: Value) {
    let Value::Object(layer) = layer else { return };
    let Value::Object(b) = base else { return };
    for (k, v) in layer {
        if let (Some(Value::Object(br)), Value::Object(lr)) = (b.get_mut("rules"), &v)
            && k == "rules"
        {
            for (kind, list) in lr {
                let entry = br
                    .entry(kind.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let (Value::Array(to), Value::Array(from)) = (entry, list) {
                    to.extend(from.iter().cloned());
                }
            }
            continue;
        }
        b.insert(k, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unapproved_file_keeps_only_what_tightens() {
        let project = json!({
            "on_error": "allow",
            "autonomy": {"auto_approve_threshold": 0.1},
            "rules": {"allow": [{"tool": "Bash"}], "deny": [{"tool": "WebFetch"}], "ask": [{"tool": "Write"}]},
            "postToolUse": {"commands": []},
        });
        let (kept, mut dropped) = tighten_only(project);
        dropped.sort();
        assert_eq!(
            kept,
            json!({"rules": {"deny": [{"tool": "WebFetch"}], "ask": [{"tool": "Write"}]}})
        );
        assert_eq!(
            dropped,
            ["autonomy", "on_error", "postToolUse", "rules.allow"]
        );
        let (kept, _) = tighten_only(json!({"on_error": "deny"}));
        assert_eq!(kept, json!({"on_error": "deny"}));
    }

    #[test]
    fn tightening_rules_are_added_to_the_users() {
        let mut base = json!({"rules": {"deny": [{"tool": "A"}], "allow": [{"tool": "B"}]}});
        merge_tightening(&mut base, json!({"rules": {"deny": [{"tool": "C"}]}}));
        assert_eq!(
            base,
            json!({"rules": {"deny": [{"tool": "A"}, {"tool": "C"}], "allow": [{"tool": "B"}]}})
        );
        let mut empty = json!({});
        merge_tightening(&mut empty, json!({"rules": {"ask": [{"tool": "C"}]}}));
        assert_eq!(empty, json!({"rules": {"ask": [{"tool": "C"}]}}));
    }

    #[test]
    fn approval_is_for_the_exact_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p/.oath.yaml");
        let now = Timestamp::parse("2026-11-01T00:00:00Z").unwrap();
        assert!(!Approvals::load(dir.path()).approves(&path, b"a: 1\n"));
        approve(dir.path(), &path, b"a: 1\n", now, &mut Vec::new()).unwrap();
        let a = Approvals::load(dir.path());
        assert!(a.approves(&path, b"a: 1\n"));
        assert!(!a.approves(&path, b"a: 2\n"));
    }
}
