//! Reading Claude Code session transcripts (JSONL): the facts a retrospective counts.
//!
//! The parser is pure over lines and incremental: a [`Tally`] is fed one complete line at a
//! time and can be saved (serde) between hook runs, so Stop only parses the lines appended
//! since the last turn. It is tolerant: invalid or partial lines and unknown line types are
//! skipped, missing fields are absent, and a line whose `uuid` was already seen is ignored
//! (resumes can copy history).
//!
//! Definitions (see `transcript-format.md` §5–§6):
//!
//! - **user turn**: a real human prompt: a `user` line that is not `isMeta`, not
//!   `isCompactSummary`, not a sidechain, whose content is a string or text blocks without any
//!   `tool_result`, and whose text does not start with a command envelope
//!   (`<command-name>`, `<command-message>`, `<local-command-`, `<bash-input>`,
//!   `<bash-stdout>`, `<bash-stderr>`), an injected `<system-reminder>`,
//!   `<task-notification>`, `<user-prompt-submit-hook>`, `Caveat:` or an interrupt marker
//!   `[Request interrupted`.
//! - **assistant turn**: a distinct `message.id` among main-chain `assistant` lines (one API
//!   response is split into one line per content block).
//! - **session_duration_turns** = user turns + assistant turns.
//! - **tool use**: a `tool_use` block, main chain and subagents alike.
//! - **error**: a tool result flagged `is_error`, or whose `toolUseResult` is a string starting
//!   `Error:`, or whose content starts `Exit code N` or `<tool_use_error>`, unless it is a user
//!   rejection (`toolDenialKind: user-rejected`, "User rejected tool use"), a permission denial
//!   (any other `toolDenialKind`, "Permission to use … has been denied", "… denied this tool")
//!   or an interrupt (`interrupted: true`); those three are counted separately. An interrupt
//!   marker line `[Request interrupted by user…]` counts as an interrupt unless it directly
//!   follows a rejection or denial (it is then part of that rejection).
//! - **code change**: an `Edit`, `Write`, `MultiEdit` or `NotebookEdit` call whose result is
//!   not a failure; files from `file_path`/`notebook_path`; lines from the `structuredPatch`
//!   of `toolUseResult` (`+`/`-` lines), or the content's lines for a created file.
//! - **correction**: a human prompt, never the first, after the assistant produced output
//!   since the previous prompt, scoring at least 3: a leading negation or an instruction
//!   reminder / revert request / "why did you" (3 each), a contrast or prohibition such as
//!   "instead", "don't", "ではなく", "しないで" (2), following a rejection or interrupt (2).
//!   Polite request forms ("please", "してください") score nothing.
//! - **backtrack**: work undone or redone: a code change to a file already changed in this
//!   session after a failure, rejection, denial or correction happened since that file's
//!   previous change (redo after a failed check); an edit that exactly reverts an earlier edit
//!   (its `old_string`/`new_string` swap those of an earlier edit of the same file); or a
//!   successful `git checkout|restore|reset|revert|stash` command.
//! - **durations**: `duration_ms` from the first to the last top-level `timestamp`;
//!   `tool_time_ms` sums, per tool use, result time minus call time.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;

/// Most evidence facts kept per transcript (the counts stay exact beyond it).
pub const MAX_FACTS: usize = 200;

/// Tools whose successful calls are code changes.
pub const CODE_CHANGE_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// Counts of one transcript (or several merged), all computed from the lines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Complete lines read.
    pub lines: u64,
    /// Lines that were not valid JSON objects (skipped).
    pub invalid_lines: u64,
    /// Lines skipped because their `uuid` was already seen.
    pub duplicate_lines: u64,
    /// Real human prompts.
    pub user_turns: u32,
    /// Distinct assistant API messages of the main chain.
    pub assistant_turns: u32,
    /// Distinct assistant API messages inside subagents / sidechains.
    pub subagent_assistant_turns: u32,
    /// `tool_use` blocks (main chain and subagents).
    pub tool_use_count: u32,
    /// `tool_use` blocks inside subagents / sidechains (included in `tool_use_count`).
    pub subagent_tool_use_count: u32,
    /// Calls per tool name.
    pub tools: BTreeMap<String, u32>,
    /// Successful Edit/Write/MultiEdit/NotebookEdit calls.
    pub code_changes_count: u32,
    /// Files changed by those calls.
    pub files_changed: BTreeSet<String>,
    /// Lines added by those calls.
    pub lines_added: u64,
    /// Lines removed by those calls.
    pub lines_removed: u64,
    /// Real tool failures.
    pub error_count: u32,
    /// Tool calls the user rejected.
    pub rejection_count: u32,
    /// Tool calls denied by a permission rule, mode or hook.
    pub permission_denial_count: u32,
    /// Interrupts (not part of a rejection).
    pub interrupt_count: u32,
    /// Human prompts that correct the agent.
    pub correction_count: u32,
    /// Work undone or redone.
    pub backtrack_count: u32,
    /// First top-level timestamp.
    pub first_timestamp: Option<String>,
    /// Last top-level timestamp.
    pub last_timestamp: Option<String>,
    /// Sum of tool durations (result time minus call time), in milliseconds.
    pub tool_time_ms: u64,
}

impl Counts {
    /// Returns `user_turns + assistant_turns`.
    pub fn session_duration_turns(&self) -> u32 {
        self.user_turns + self.assistant_turns
    }

    /// Returns the sorted names of the tools used.
    pub fn unique_tools(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Returns milliseconds from the first to the last timestamp.
    pub fn duration_ms(&self) -> Option<u64> {
        let a = Timestamp::parse(self.first_timestamp.as_deref()?)?;
        let b = Timestamp::parse(self.last_timestamp.as_deref()?)?;
        u64::try_from(b.unix_millis() - a.unix_millis()).ok()
    }

    /// Adds another transcript's counts (a subagent's) to these.
    pub fn absorb(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.invalid_lines += other.invalid_lines;
        self.duplicate_lines += other.duplicate_lines;
        self.user_turns += other.user_turns;
        self.assistant_turns += other.assistant_turns;
        self.subagent_assistant_turns += other.subagent_assistant_turns;
        self.tool_use_count += other.tool_use_count;
        self.subagent_tool_use_count += other.subagent_tool_use_count;
        for (k, v) in &other.tools {
            *self.tools.entry(k.clone()).or_default() += v;
        }
        self.code_changes_count += other.code_changes_count;
        self.files_changed
            .extend(other.files_changed.iter().cloned());
        self.lines_added += other.lines_added;
        self.lines_removed += other.lines_removed;
        self.error_count += other.error_count;
        self.rejection_count += other.rejection_count;
        self.permission_denial_count += other.permission_denial_count;
        self.interrupt_count += other.interrupt_count;
        self.correction_count += other.correction_count;
        self.backtrack_count += other.backtrack_count;
        self.tool_time_ms += other.tool_time_ms;
        self.first_timestamp = earliest(self.first_timestamp.take(), other.first_timestamp.clone());
        self.last_timestamp = latest(self.last_timestamp.take(), other.last_timestamp.clone());
    }
}

fn earliest(a: Option<String>, b: Option<String>) -> Option<String> {
    pick(a, b, |x, y| x <= y)
}

fn latest(a: Option<String>, b: Option<String>) -> Option<String> {
    pick(a, b, |x, y| x >= y)
}

fn pick(
    a: Option<String>,
    b: Option<String>,
    keep_a: impl Fn(i128, i128) -> bool,
) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let ta = Timestamp::parse(&a).map(|t| t.unix_millis());
            let tb = Timestamp::parse(&b).map(|t| t.unix_millis());
            match (ta, tb) {
                (Some(x), Some(y)) if !keep_a(x, y) => Some(b),
                _ => Some(a),
            }
        }
        (a, b) => a.or(b),
    }
}

/// What kind of fact a piece of evidence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// A real tool failure.
    ToolError,
    /// The same call failed again (`count` in the fact).
    RepeatedFailure,
    /// The user rejected a tool call.
    Rejection,
    /// A permission rule, mode or hook denied a call.
    PermissionDenial,
    /// The user interrupted.
    Interrupt,
    /// A human prompt corrected the agent.
    Correction,
    /// Work undone or redone.
    Backtrack,
}

/// One piece of evidence: where in which transcript, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    /// What happened.
    pub kind: FactKind,
    /// 1-based line in the transcript file.
    pub line: u64,
    /// The transcript: `main` or the subagent file name.
    #[serde(default)]
    pub source: String,
    /// Tool name, when a tool was involved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The call (command, file or input), shortened.
    #[serde(default)]
    pub subject: String,
    /// Error text or prompt excerpt, shortened.
    #[serde(default)]
    pub detail: String,
    /// How many times (repeated failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Line timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Hash of the call's identity (tool and command or input), for tool facts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<u64>,
    /// First line of a streak (repeated failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
}

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

/// Returns a 64-bit FNV-1a hash (stable across runs, for saved state).
pub fn hash64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Shortens text to `max` characters on one line.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
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

/// Returns the text of a tool result's content (string, or its text blocks joined).
fn result_text(block: &Value) -> String {
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

/// Returns the identity of a call: the tool and its command, or its whole input.
fn call_key(name: &str, input: &Value) -> String {
    match input.get("command").and_then(Value::as_str) {
        Some(c) => format!("{name}:{c}"),
        None => format!("{name}:{input}"),
    }
}

/// Returns a short human description of a call.
fn call_subject(name: &str, input: &Value) -> String {
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
fn is_revert_command(command: &str) -> bool {
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
fn patch_counts(tur: Option<&Value>, content_lines: Option<u64>) -> (u64, u64) {
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

/// Scores a human prompt as a correction of the agent's last action (3 or more is one).
///
/// `after_refusal`: the prompt follows a rejection, denial or interrupt.
pub fn correction_score(text: &str, after_refusal: bool) -> u32 {
    let lower = text.trim().to_lowercase();
    let head: String = lower.chars().take(40).collect();
    let mut score = 0;
    const LEADING_EN: &[&str] = &[
        "no,",
        "no.",
        "no!",
        "no ",
        "nope",
        "nah",
        "wrong",
        "stop",
        "don't",
        "do not",
        "not that",
        "that's not",
        "that is not",
        "this is not",
        "this isn't",
        "that isn't",
        "undo",
        "revert",
        "wait,",
        "hold on",
    ];
    const LEADING_JA: &[&str] = &[
        "いや",
        "いいえ",
        "違う",
        "違い",
        "ちがう",
        "そうじゃな",
        "そうではな",
        "ダメ",
        "だめ",
        "やめて",
        "待って",
        "まって",
        "ストップ",
        "ではなく",
        "じゃなくて",
    ];
    let leading = LEADING_EN.iter().any(|p| {
        lower.starts_with(p)
            && (p.ends_with([' ', ',', '.', '!']) || {
                let rest = &lower[p.len()..];
                rest.is_empty() || !rest.starts_with(|c: char| c.is_alphanumeric())
            })
    }) || LEADING_JA.iter().any(|p| head.starts_with(p));
    // Friendly openers that start with a negation but correct nothing.
    const NOT_NEGATIONS: &[&str] = &[
        "no problem",
        "no worries",
        "no need",
        "no rush",
        "no thanks",
        "no, thanks",
        "no, that's fine",
        "no, that's great",
        "no, looks good",
        "いやー",
        "いやいや、完璧",
    ];
    if leading && !NOT_NEGATIONS.iter().any(|p| lower.starts_with(p)) {
        score += 3;
    }
    const STRONG: &[&str] = &[
        "i said",
        "i told you",
        "i asked you",
        "as i said",
        "i meant",
        "you were supposed to",
        "you should have",
        "why did you",
        "why are you",
        "why would you",
        "undo ",
        "revert ",
        "roll back",
        "rollback",
        "put it back",
        "change it back",
        "not what i",
        "って言った",
        "と言った",
        "と言いました",
        "って言いました",
        "言ったよね",
        "指示した",
        "元に戻",
        "戻して",
        "取り消して",
        "なんで",
        "なぜそう",
        "頼んでない",
        "頼んでいない",
    ];
    if STRONG.iter().any(|p| lower.contains(p)) {
        score += 3;
    }
    const CONTRAST: &[&str] = &[
        "instead",
        "rather than",
        "don't",
        "do not",
        "shouldn't",
        "should not",
        "stop ",
        "ではなく",
        "じゃなくて",
        "じゃなく",
        "でなく",
        "しないで",
        "ないでください",
        "不要です",
        "いらない",
    ];
    if CONTRAST.iter().any(|p| lower.contains(p)) {
        score += 2;
    }
    if after_refusal {
        score += 2;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_correction(text: &str) -> bool {
        correction_score(text, false) >= 3
    }

    #[test]
    fn corrections_in_english_and_japanese() {
        for t in [
            "No, don't add a dependency.",
            "No. Use to_lowercase instead.",
            "Why did you delete the README?",
            "I said not to touch main.rs",
            "Please revert that change and keep the old parser",
            "That's not what I asked for",
            "いや、そうじゃなくて小文字にしてください",
            "違います。依存関係は追加しないでください",
            "元に戻してください",
            "さっき言ったよね、テストは消さないで",
            "ではなく、to_lowercase を使ってください。新しい依存は不要です",
        ] {
            assert!(is_correction(t), "{t}");
        }
    }

    #[test]
    fn requests_are_not_corrections() {
        for t in [
            "Please also add a README.",
            "Great, now add tests for the parser.",
            "テストが失敗しています。修正してください。",
            "ありがとう。次はREADMEを書いてください",
            "Can you fix the build?",
            "Nothing else, thanks",
            "Notes: the API lives in src/api.rs",
            "Stopwatch feature next",
            "No problem, now add the README",
            "No worries. Next, the CLI flags please",
        ] {
            assert!(!is_correction(t), "{t}");
        }
        // A prompt after a rejection needs some redirecting words too.
        assert!(correction_score("Use the existing crate instead", true) >= 3);
        assert!(correction_score("ok", true) < 3);
    }

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

    #[test]
    fn revert_commands() {
        assert!(is_revert_command("git checkout -- src/a.rs"));
        assert!(is_revert_command("cd x && git reset --hard HEAD"));
        assert!(!is_revert_command("git checkout -b feature"));
        assert!(!is_revert_command("git status"));
    }
}
