//! The incremental line parser: a [`Tally`] fed one JSONL line at a time, keeping the counts,
//! the evidence facts and what later lines need (pending calls, failure streaks, changed
//! files). Human prompts are read in `prompts.rs`, tool results in `results.rs`.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::calls::call_subject;
use super::counts::{earliest, latest};
use super::usage::UsageBook;
use super::{CODE_CHANGE_TOOLS, Counts, Fact, MAX_FACTS, hash64};
use crate::classify::intent::intent;
use crate::clock::Timestamp;

/// A tool call waiting for its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Pending {
    pub(super) name: String,
    /// The call's intent (`classify::intent`): same tool and target, or same program and
    /// subcommand.
    #[serde(default)]
    pub(super) intent: String,
    pub(super) subject: String,
    pub(super) line: u64,
    pub(super) timestamp: Option<String>,
    pub(super) sidechain: bool,
    pub(super) file: Option<String>,
    pub(super) old_hash: Option<u64>,
    pub(super) new_hash: Option<u64>,
    pub(super) content_lines: Option<u64>,
    /// A PreToolUse hook ran for this call.
    #[serde(default)]
    pub(super) pre_hook_ran: bool,
    /// A PreToolUse hook blocked this call.
    #[serde(default)]
    pub(super) hook_blocked: bool,
}

/// Consecutive failures of one intent with the same normalized error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct Streak {
    /// Failures in the streak.
    pub(super) count: u32,
    /// Line of its first failure.
    pub(super) first_line: u64,
    /// Hash of the normalized error text.
    pub(super) error: u64,
    /// Whether its last failure was in a subagent.
    pub(super) sidechain: bool,
}

/// Why a file's next change would be a redo: the trouble since its last change, and how
/// closely it concerns the file (3: the file itself, 2: a failed check, 1: anything).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct Cause {
    pub(super) line: u64,
    pub(super) rank: u8,
    pub(super) what: String,
}

/// What is remembered of a changed file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct FileHistory {
    pub(super) changes: u32,
    /// The trouble since the last change that concerns this file most.
    pub(super) cause: Option<Cause>,
    /// `(old_hash, new_hash, line)` of its edits, most recent last (capped).
    pub(super) edit_log: Vec<(u64, u64, u64)>,
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
    /// Failure streaks per intent (removed when a call of the intent succeeds).
    pub(super) streaks: BTreeMap<String, Streak>,
    /// The last real failure, for backtracks that undo work in git.
    pub(super) last_failure: Option<Cause>,
    #[serde(with = "hex_set")]
    seen_uuids: HashSet<u64>,
    #[serde(with = "hex_set")]
    main_messages: HashSet<u64>,
    #[serde(with = "hex_set")]
    side_messages: HashSet<u64>,
    usage: UsageBook,
    pub(super) pending: BTreeMap<String, Pending>,
    pub(super) files: BTreeMap<String, FileHistory>,
    /// Files changed since the last check command (build, test, …) that passed.
    pub(super) unchecked: BTreeSet<String>,
    pub(super) assistant_since_prompt: bool,
    pub(super) last_was_refusal: bool,
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

    /// Intents (hash of their text, see [`Fact::call`]) whose last failure, in the main
    /// chain, was never followed by a successful call of the same intent, with the failures
    /// of their streak.
    pub fn still_failing(&self) -> Vec<(u64, u32)> {
        self.streaks
            .iter()
            .filter(|(_, s)| s.count > 0 && !s.sidechain)
            .map(|(k, s)| (hash64(k), s.count))
            .collect()
    }

    pub(super) fn push_fact(&mut self, fact: Fact) {
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
        // Lines are not always in time order (T09: a compaction writes older times after
        // newer ones): the duration runs from the earliest to the latest.
        if let Some(t) = &ts
            && Timestamp::parse(t).is_some()
        {
            self.counts.first_timestamp =
                earliest(self.counts.first_timestamp.take(), Some(t.clone()));
            self.counts.last_timestamp = latest(self.counts.last_timestamp.take(), Some(t.clone()));
        }
        let sidechain =
            self.sidechain_file || v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") => self.assistant_line(&v, n, ts, sidechain),
            Some("user") => self.user_line(&v, n, ts, sidechain),
            Some("attachment") => self.attachment_line(&v, n, ts, sidechain),
            Some("progress") => self.progress_line(&v),
            _ => {}
        }
    }

    /// A `hook_progress` of PreToolUse: a hook ran for that call.
    fn progress_line(&mut self, v: &serde_json::Map<String, Value>) {
        let data = v.get("data");
        let field = |k: &str| data.and_then(|d| d.get(k)).and_then(Value::as_str);
        if field("type") != Some("hook_progress") || field("hookEvent") != Some("PreToolUse") {
            return;
        }
        let id = v
            .get("toolUseID")
            .or_else(|| v.get("parentToolUseID"))
            .and_then(Value::as_str);
        if let Some(p) = id.and_then(|id| self.pending.get_mut(id)) {
            p.pre_hook_ran = true;
        }
    }

    /// Attachments: a queued prompt (`queued_command`) is a human prompt; a PreToolUse
    /// hook's `hook_blocking_error` marks its call as blocked by the hook.
    fn attachment_line(
        &mut self,
        v: &serde_json::Map<String, Value>,
        n: u64,
        ts: Option<String>,
        sidechain: bool,
    ) {
        let Some(a) = v.get("attachment") else {
            return;
        };
        match a.get("type").and_then(Value::as_str) {
            Some("queued_command") => self.queued_command(v, a, n, ts, sidechain),
            Some("hook_blocking_error") => {
                let event = a.get("hookEvent").and_then(Value::as_str);
                if event.is_some_and(|e| e != "PreToolUse") {
                    return;
                }
                if let Some(p) = a
                    .get("toolUseID")
                    .and_then(Value::as_str)
                    .and_then(|id| self.pending.get_mut(id))
                {
                    p.hook_blocked = true;
                }
            }
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
        self.usage.record(v, &mut self.counts.tokens);
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
            if !CODE_CHANGE_TOOLS.contains(&name.as_str())
                && self.last_change_line.is_some()
                && matches!(name.as_str(), "Bash" | "PowerShell")
            {
                // Any command or check after the last change counts as running something.
                self.ran_after_last_change = true;
            }
            let Some(id) = b.get("id").and_then(Value::as_str) else {
                continue;
            };
            let file = ["file_path", "notebook_path"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_str))
                .map(str::to_owned);
            let str_hash = |k: &str| input.get(k).and_then(Value::as_str).map(hash64);
            self.pending.insert(
                id.to_owned(),
                Pending {
                    intent: intent(&name, &input),
                    subject: call_subject(&name, &input),
                    name,
                    line: n,
                    timestamp: ts.clone(),
                    sidechain,
                    file,
                    old_hash: str_hash("old_string"),
                    new_hash: str_hash("new_string"),
                    content_lines: input
                        .get("content")
                        .and_then(Value::as_str)
                        .map(|c| c.lines().count() as u64),
                    pre_hook_ran: false,
                    hook_blocked: false,
                },
            );
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
