//! The incremental line parser: a [`Tally`] fed one JSONL line at a time, keeping the counts,
//! the evidence facts and what later lines need (pending calls, changed files).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::calls::{call_key, call_subject, is_revert_command, patch_counts, result_text};
use super::counts::latest;
use super::{
    CODE_CHANGE_TOOLS, Counts, Fact, FactKind, MAX_FACTS, correction_score, excerpt, hash64,
};
use crate::clock::Timestamp;

/// A tool call waiting for its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Pending {
    name: String,
    key: String,
    subject: String,
    line: u64,
    timestamp: Option<String>,
    sidechain: bool,
    file: Option<String>,
    old_hash: Option<u64>,
    new_hash: Option<u64>,
    content_lines: Option<u64>,
}

/// What is remembered of a changed file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct FileHistory {
    changes: u32,
    trouble_since_change: bool,
    /// `(old_hash, new_hash)` of its edits, most recent last (capped).
    edits: Vec<(u64, u64)>,
}

/// The running state of one transcript: counts, evidence and what later lines need.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tally {
    /// Whether every line belongs to a subagent (a `subagents/*.jsonl` file).
    pub sidechain_file: bool,
    /// The counts so far.
    pub counts: Counts,
    /// Evidence, at most [`MAX_FACTS`].
    pub facts: Vec<Fact>,
    /// The first human prompt, shortened.
    pub first_prompt: Option<String>,
    /// Line of the last code change.
    pub last_change_line: Option<u64>,
    /// Whether a command ran (Bash or similar) after the last code change.
    pub ran_after_last_change: bool,
    /// Consecutive failures per call and the line of the first (removed on success).
    failing: BTreeMap<String, (u32, u64)>,
    #[serde(with = "hex_set")]
    seen_uuids: HashSet<u64>,
    #[serde(with = "hex_set")]
    main_messages: HashSet<u64>,
    #[serde(with = "hex_set")]
    side_messages: HashSet<u64>,
    pending: BTreeMap<String, Pending>,
    files: BTreeMap<String, FileHistory>,
    assistant_since_prompt: bool,
    last_was_refusal: bool,
}

/// Saves a set of hashes compactly: one string of 16 hex digits per hash, sorted.
mod hex_set {
    use std::collections::HashSet;
    use std::fmt::Write;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(set: &HashSet<u64>, s: S) -> Result<S::Ok, S::Error> {
        let mut v: Vec<u64> = set.iter().copied().collect();
        v.sort_unstable();
        let mut out = String::with_capacity(v.len() * 16);
        for h in v {
            let _ = write!(out, "{h:016x}");
        }
        s.serialize_str(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<HashSet<u64>, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = text.as_bytes();
        if bytes.len() % 16 != 0 {
            return Err(serde::de::Error::custom(
                "hash set length is not a multiple of 16",
            ));
        }
        bytes
            .chunks(16)
            .map(|c| {
                std::str::from_utf8(c)
                    .ok()
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom("invalid hash in set"))
            })
            .collect()
    }
}

impl Tally {
    /// Returns an empty tally; `sidechain_file` for a subagent transcript.
    pub fn new(sidechain_file: bool) -> Self {
        Self {
            sidechain_file,
            ..Self::default()
        }
    }

    /// Parses a whole transcript text (complete lines only; a trailing partial line is
    /// skipped like an invalid one).
    pub fn from_text(text: &str, sidechain_file: bool) -> Self {
        let mut t = Self::new(sidechain_file);
        for line in text.lines() {
            t.feed(line);
        }
        t
    }

    /// Calls (hash of their identity, see [`Fact::call`]) whose last attempt failed and that
    /// never succeeded later, with their consecutive failures.
    pub fn still_failing(&self) -> Vec<(u64, u32)> {
        self.failing
            .iter()
            .filter(|(_, (n, _))| *n > 0)
            .map(|(k, (n, _))| (hash64(k), *n))
            .collect()
    }

    fn push_fact(&mut self, fact: Fact) {
        if self.facts.len() < MAX_FACTS {
            self.facts.push(fact);
        }
    }

    /// Feeds one line (without its newline).
    pub fn feed(&mut self, line: &str) {
        self.counts.lines += 1;
        let n = self.counts.lines;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(trimmed) else {
            self.counts.invalid_lines += 1;
            return;
        };
        if let Some(uuid) = v.get("uuid").and_then(Value::as_str)
            && !self.seen_uuids.insert(hash64(uuid))
        {
            self.counts.duplicate_lines += 1;
            return;
        }
        let ts = v
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(t) = &ts
            && Timestamp::parse(t).is_some()
        {
            if self.counts.first_timestamp.is_none() {
                self.counts.first_timestamp = Some(t.clone());
            }
            self.counts.last_timestamp = latest(self.counts.last_timestamp.take(), Some(t.clone()));
        }
        let sidechain =
            self.sidechain_file || v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") => self.assistant_line(&v, n, ts, sidechain),
            Some("user") => self.user_line(&v, n, ts, sidechain),
            _ => {}
        }
    }

    fn assistant_line(
        &mut self,
        v: &serde_json::Map<String, Value>,
        n: u64,
        ts: Option<String>,
        sidechain: bool,
    ) {
        let Some(message) = v.get("message") else {
            return;
        };
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| v.get("uuid").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| format!("line-{n}"));
        let new_message = if sidechain {
            self.side_messages.insert(hash64(&id))
        } else {
            self.main_messages.insert(hash64(&id))
        };
        if new_message {
            if sidechain {
                self.counts.subagent_assistant_turns += 1;
            } else {
                self.counts.assistant_turns += 1;
            }
        }
        if !sidechain {
            self.assistant_since_prompt = true;
        }
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            return;
        };
        for b in blocks {
            if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let name = b
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned();
            let input = b.get("input").cloned().unwrap_or(Value::Null);
            self.counts.tool_use_count += 1;
            if sidechain {
                self.counts.subagent_tool_use_count += 1;
            }
            *self.counts.tools.entry(name.clone()).or_default() += 1;
            if !CODE_CHANGE_TOOLS.contains(&name.as_str()) && self.last_change_line.is_some() {
                // Any command or check after the last change counts as running something.
                if matches!(name.as_str(), "Bash" | "PowerShell") {
                    self.ran_after_last_change = true;
                }
            }
            let Some(id) = b.get("id").and_then(Value::as_str) else {
                continue;
            };
            let file = ["file_path", "notebook_path"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_str))
                .map(str::to_owned);
            let str_hash = |k: &str| input.get(k).and_then(Value::as_str).map(hash64);
            let content_lines = input
                .get("content")
                .and_then(Value::as_str)
                .map(|c| c.lines().count() as u64);
            self.pending.insert(
                id.to_owned(),
                Pending {
                    key: call_key(&name, &input),
                    subject: call_subject(&name, &input),
                    name,
                    line: n,
                    timestamp: ts.clone(),
                    sidechain,
                    file,
                    old_hash: str_hash("old_string"),
                    new_hash: str_hash("new_string"),
                    content_lines,
                },
            );
        }
    }

    fn user_line(
        &mut self,
        v: &serde_json::Map<String, Value>,
        n: u64,
        ts: Option<String>,
        sidechain: bool,
    ) {
        let content = v.get("message").and_then(|m| m.get("content"));
        let results: Vec<&Value> = match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .collect(),
            _ => Vec::new(),
        };
        if !results.is_empty() {
            for r in results {
                self.tool_result(v, r, n, ts.clone());
            }
            return;
        }
        let text = match content {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return,
        };
        let t = text.trim_start();
        if t.starts_with("[Request interrupted") {
            if !sidechain {
                if !self.last_was_refusal {
                    self.counts.interrupt_count += 1;
                    self.push_fact(Fact {
                        kind: FactKind::Interrupt,
                        line: n,
                        source: String::new(),
                        tool: None,
                        subject: String::new(),
                        detail: excerpt(t, 120),
                        count: None,
                        timestamp: ts,
                        call: None,
                        first_line: None,
                    });
                }
                self.last_was_refusal = true;
            }
            return;
        }
        let is_meta = v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
        let envelope = [
            "<command-name>",
            "<local-command-",
            "<system-reminder>",
            "Caveat:",
            "<command-message>",
            "<bash-input>",
            "<bash-stdout>",
            "<bash-stderr>",
            "<task-notification>",
            "<user-prompt-submit-hook>",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if sidechain || is_meta || envelope || t.is_empty() {
            return;
        }
        // A real human prompt.
        self.counts.user_turns += 1;
        let first = self.first_prompt.is_none();
        if first {
            self.first_prompt = Some(excerpt(t, 200));
        } else if self.assistant_since_prompt {
            let score = correction_score(t, self.last_was_refusal);
            if score >= 3 {
                self.counts.correction_count += 1;
                self.push_fact(Fact {
                    kind: FactKind::Correction,
                    line: n,
                    source: String::new(),
                    tool: None,
                    subject: String::new(),
                    detail: excerpt(t, 160),
                    count: None,
                    timestamp: ts,
                    call: None,
                    first_line: None,
                });
                for f in self.files.values_mut() {
                    f.trouble_since_change = true;
                }
            }
        }
        self.assistant_since_prompt = false;
        self.last_was_refusal = false;
    }

    fn tool_result(
        &mut self,
        v: &serde_json::Map<String, Value>,
        block: &Value,
        n: u64,
        ts: Option<String>,
    ) {
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let pending = self.pending.remove(id);
        let tur = v.get("toolUseResult");
        let text = result_text(block);
        let tur_str = tur.and_then(Value::as_str).unwrap_or("");
        let denial_kind = v.get("toolDenialKind").and_then(Value::as_str);
        let flagged = block.get("is_error").and_then(Value::as_bool) == Some(true)
            || tur_str.starts_with("Error:")
            || text.trim_start().starts_with("Exit code ")
            || text.trim_start().starts_with("<tool_use_error>");
        let rejected = denial_kind == Some("user-rejected")
            || tur_str == "User rejected tool use"
            || text.starts_with("The user doesn't want to proceed with this tool use");
        let denied = !rejected
            && (denial_kind.is_some()
                || (text.contains("Permission to use") && text.contains("denied"))
                || text.contains("auto-denied")
                || tur_str.contains("denied this tool")
                || text.contains("denied this tool"));
        let interrupted = tur
            .and_then(|t| t.get("interrupted"))
            .and_then(Value::as_bool)
            == Some(true)
            || block.get("interrupted").and_then(Value::as_bool) == Some(true);
        let (name, subject, key) = match &pending {
            Some(p) => (Some(p.name.clone()), p.subject.clone(), p.key.clone()),
            None => (None, String::new(), format!("unknown:{id}")),
        };
        if let (Some(p), Some(t_res)) = (&pending, ts.as_deref())
            && let (Some(a), Some(b)) = (
                p.timestamp.as_deref().and_then(Timestamp::parse),
                Timestamp::parse(t_res),
            )
            && let Ok(ms) = u64::try_from(b.unix_millis() - a.unix_millis())
        {
            self.counts.tool_time_ms += ms;
        }
        let sidechain = pending.as_ref().is_some_and(|p| p.sidechain) || self.sidechain_file;
        let call = Some(hash64(&key));
        let fact = |kind, detail: &str| Fact {
            kind,
            line: n,
            source: String::new(),
            tool: name.clone(),
            subject: subject.clone(),
            detail: excerpt(detail, 160),
            count: None,
            timestamp: ts.clone(),
            call,
            first_line: None,
        };
        if rejected {
            self.counts.rejection_count += 1;
            let f = fact(
                FactKind::Rejection,
                if tur_str.is_empty() { &text } else { tur_str },
            );
            self.push_fact(f);
            self.mark_trouble(sidechain, true);
            return;
        }
        if denied {
            self.counts.permission_denial_count += 1;
            let f = fact(
                FactKind::PermissionDenial,
                if text.is_empty() { tur_str } else { &text },
            );
            self.push_fact(f);
            self.mark_trouble(sidechain, true);
            return;
        }
        if interrupted {
            self.counts.interrupt_count += 1;
            let f = fact(FactKind::Interrupt, "interrupted");
            self.push_fact(f);
            self.mark_trouble(sidechain, true);
            return;
        }
        if flagged {
            self.counts.error_count += 1;
            let f = fact(FactKind::ToolError, &text);
            self.push_fact(f);
            let streak = self.failing.entry(key.clone()).or_insert((0, n));
            streak.0 += 1;
            let (count, first) = *streak;
            if count >= 2 {
                let mut f = fact(FactKind::RepeatedFailure, &text);
                f.count = Some(count);
                f.first_line = Some(first);
                // Keep one fact per streak, updated as it grows.
                if let Some(existing) = self
                    .facts
                    .iter_mut()
                    .rev()
                    .find(|x| x.kind == FactKind::RepeatedFailure && x.call == call)
                    && existing.count == Some(count - 1)
                {
                    existing.count = Some(count);
                    existing.line = n;
                } else {
                    self.push_fact(f);
                }
            }
            self.mark_trouble(sidechain, false);
            return;
        }
        // Success.
        self.failing.remove(&key);
        let Some(p) = pending else {
            return;
        };
        if p.name == "Bash" && is_revert_command(&p.subject) {
            self.counts.backtrack_count += 1;
            self.push_fact(Fact {
                kind: FactKind::Backtrack,
                line: n,
                source: String::new(),
                tool: Some(p.name.clone()),
                subject: p.subject.clone(),
                detail: "a git command that undoes work succeeded".into(),
                count: None,
                timestamp: ts.clone(),
                call: None,
                first_line: None,
            });
        }
        if !CODE_CHANGE_TOOLS.contains(&p.name.as_str()) {
            return;
        }
        self.counts.code_changes_count += 1;
        let (added, removed) = patch_counts(tur, p.content_lines);
        self.counts.lines_added += added;
        self.counts.lines_removed += removed;
        self.last_change_line = Some(n);
        self.ran_after_last_change = false;
        let Some(file) = p.file.clone() else {
            return;
        };
        self.counts.files_changed.insert(file.clone());
        let history = self.files.entry(file.clone()).or_default();
        let redo = history.changes > 0 && history.trouble_since_change;
        let revert = match (p.old_hash, p.new_hash) {
            (Some(o), Some(nw)) => history.edits.iter().any(|(po, pn)| *po == nw && *pn == o),
            _ => false,
        };
        history.changes += 1;
        history.trouble_since_change = false;
        if let (Some(o), Some(nw)) = (p.old_hash, p.new_hash) {
            history.edits.push((o, nw));
            if history.edits.len() > 32 {
                history.edits.remove(0);
            }
        }
        if redo || revert {
            self.counts.backtrack_count += 1;
            let why = if revert {
                "this edit reverts an earlier edit of the same file"
            } else {
                "the file was changed again after a failure, rejection or correction"
            };
            self.push_fact(Fact {
                kind: FactKind::Backtrack,
                line: n,
                source: String::new(),
                tool: Some(p.name.clone()),
                subject: file,
                detail: why.into(),
                count: None,
                timestamp: ts,
                call: None,
                first_line: None,
            });
        }
    }

    fn mark_trouble(&mut self, sidechain: bool, refusal: bool) {
        for f in self.files.values_mut() {
            f.trouble_since_change = true;
        }
        if !sidechain && refusal {
            self.last_was_refusal = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_prompt_is_never_a_correction_and_partial_lines_are_skipped() {
        let text = concat!(
            r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"No, this is wrong, fix it"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"ok"}]}}"#,
            "\n",
            r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"No, revert it"}}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","message":{"role":"user","content":"No, revert it"}}"#,
            "\n",
            r#"{"type":"user","uuid":"u3","message":{"role":"user","content":"still"#,
        );
        let t = Tally::from_text(text, false);
        assert_eq!(t.counts.user_turns, 2);
        assert_eq!(t.counts.correction_count, 1);
        assert_eq!(t.counts.duplicate_lines, 1);
        assert_eq!(t.counts.invalid_lines, 1);
        assert_eq!(t.counts.assistant_turns, 1);
    }

    #[test]
    fn meta_envelopes_and_markers_are_not_prompts() {
        let lines = [
            r#"{"type":"user","uuid":"1","message":{"role":"user","content":"Fix the build"}}"#,
            r#"{"type":"user","uuid":"2","isMeta":true,"message":{"role":"user","content":"Caveat: the messages below"}}"#,
            r#"{"type":"user","uuid":"3","message":{"role":"user","content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"user","uuid":"4","message":{"role":"user","content":[{"type":"text","text":"<bash-input>ls</bash-input>"}]}}"#,
            r#"{"type":"user","uuid":"5","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"user","uuid":"6","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#,
            r#"{"type":"user","uuid":"7","isSidechain":true,"message":{"role":"user","content":"subagent task"}}"#,
            r#"{"type":"user","uuid":"8","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}}"#,
            r#"{"type":"mystery","uuid":"9"}"#,
            r#"{"type":"user","uuid":"10","message":{"role":"user","content":[{"type":"text","text":"And add a test"},{"type":"image","source":{}}]}}"#,
        ];
        let t = Tally::from_text(&lines.join("\n"), false);
        assert_eq!(t.counts.user_turns, 2);
        assert_eq!(t.counts.interrupt_count, 1);
        assert_eq!(t.counts.invalid_lines, 0);
    }
}
