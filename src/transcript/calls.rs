//! What a tool call and its result say: the call's identity and description, the result's
//! text, lines a code change added and removed, and git commands that undo work.

use serde_json::Value;

use super::excerpt;

/// Returns the text of a tool result's content (string, or its text blocks joined).
pub(super) fn result_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Returns a short human description of a call.
pub(super) fn call_subject(name: &str, input: &Value) -> String {
    for k in [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "pattern",
        "query",
        "description",
    ] {
        if let Some(s) = input.get(k).and_then(Value::as_str) {
            return excerpt(s, 120);
        }
    }
    excerpt(&format!("{name} {input}"), 120)
}

/// Returns whether a shell command undoes work in git.
pub(super) fn is_revert_command(command: &str) -> bool {
    command
        .split(['&', ';', '|', '\n'])
        .map(str::trim)
        .any(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            words.first() == Some(&"git")
                && words
                    .iter()
                    .skip(1)
                    .find(|w| !w.starts_with('-'))
                    .is_some_and(|sub| {
                        matches!(*sub, "checkout" | "restore" | "reset" | "revert" | "stash")
                    })
                && !(words.contains(&"checkout") && words.contains(&"-b"))
        })
}

/// Returns `(added, removed)` lines of a code change from its `toolUseResult`.
pub(super) fn patch_counts(tur: Option<&Value>, content_lines: Option<u64>) -> (u64, u64) {
    let Some(t) = tur else {
        return (content_lines.unwrap_or(0), 0);
    };
    let mut added = 0;
    let mut removed = 0;
    let mut any_hunk = false;
    if let Some(hunks) = t.get("structuredPatch").and_then(Value::as_array) {
        for h in hunks {
            any_hunk = true;
            for l in h
                .get("lines")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match l.as_str().and_then(|s| s.chars().next()) {
                    Some('+') => added += 1,
                    Some('-') => removed += 1,
                    _ => {}
                }
            }
        }
    }
    if !any_hunk && t.get("type").and_then(Value::as_str) == Some("create") {
        added = t
            .get("content")
            .and_then(Value::as_str)
            .map(|c| c.lines().count() as u64)
            .or(content_lines)
            .unwrap_or(0);
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_commands() {
        assert!(is_revert_command("git checkout -- src/a.rs"));
        assert!(is_revert_command("cd x && git reset --hard HEAD"));
        assert!(!is_revert_command("git checkout -b feature"));
        assert!(!is_revert_command("git status"));
    }
}
