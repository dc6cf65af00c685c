//! The counts of a transcript: turns, tool uses, code changes, failures and their kinds,
//! corrections, backtracks and time, and how two transcripts' counts merge.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::usage::Tokens;
use crate::clock::Timestamp;

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
    /// Lines too long to keep (over 16 MiB, a large image result), skipped.
    pub skipped_lines: u64,
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
    /// Calls cancelled because another call of their batch failed (not errors).
    pub cascade_count: u32,
    /// Token usage, once per API message (main chain and subagents).
    pub tokens: Tokens,
    /// Human prompts that correct the agent.
    pub correction_count: u32,
    /// Work undone or redone.
    pub backtrack_count: u32,
    /// Earliest top-level timestamp.
    pub first_timestamp: Option<String>,
    /// Latest top-level timestamp.
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

    /// Returns milliseconds from the earliest to the latest timestamp.
    pub fn duration_ms(&self) -> Option<u64> {
        let a = Timestamp::parse(self.first_timestamp.as_deref()?)?;
        let b = Timestamp::parse(self.last_timestamp.as_deref()?)?;
        u64::try_from(b.unix_millis() - a.unix_millis()).ok()
    }

    /// Adds another transcript's counts (a subagent's) to these.
    pub fn absorb(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.invalid_lines += other.invalid_lines;
        self.skipped_lines += other.skipped_lines;
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
        self.cascade_count += other.cascade_count;
        self.tokens.add(&other.tokens);
        self.correction_count += other.correction_count;
        self.backtrack_count += other.backtrack_count;
        self.tool_time_ms += other.tool_time_ms;
        self.first_timestamp = earliest(self.first_timestamp.take(), other.first_timestamp.clone());
        self.last_timestamp = latest(self.last_timestamp.take(), other.last_timestamp.clone());
    }
}

/// Returns the earlier of two timestamps (the first when either does not parse).
pub(super) fn earliest(a: Option<String>, b: Option<String>) -> Option<String> {
    pick(a, b, |x, y| x <= y)
}

/// Returns the later of two timestamps (the first when either does not parse).
pub(super) fn latest(a: Option<String>, b: Option<String>) -> Option<String> {
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
