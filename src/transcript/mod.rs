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
//! - **user turn**: a person's prompt: a main-chain `user` line of text (not a `tool_result`),
//!   not `isMeta`, not `isCompactSummary`, whose `origin` (newer clients) is a person, whose
//!   text is not an injected envelope (`<local-command-…>`, `<system-reminder>`,
//!   `<bash-input>`/`-stdout>`/`-stderr>`, `<task-notification>`,
//!   `<user-prompt-submit-hook>`, `Caveat:`) or an interrupt marker; a slash command given
//!   arguments (`<command-name>/x</command-name>…<command-args>y</command-args>`: the prompt
//!   is `/x y`; without arguments it is not a turn); a prompt typed while the agent worked
//!   and handed to it mid-turn (`attachment` `queued_command`, `commandMode: prompt`). See
//!   `prompts.rs`. The first is the session's goal.
//! - **assistant turn**: a distinct `message.id` among main-chain `assistant` lines (one API
//!   response is split into one line per content block).
//! - **session_duration_turns** = user turns + assistant turns.
//! - **tool use**: a `tool_use` block, main chain and subagents alike.
//! - **tokens**: `usage` once per API message (`message.id` and `requestId`), from its line
//!   with the largest total, as ccusage counts and the API bills (see `usage.rs`).
//! - **error**, **cascade**, **rejection**, **permission denial**, **interrupt**: what a tool
//!   result was, by structure (`toolDenialKind`, `permissionDecision`, a hook's
//!   `hook_blocking_error` or `hook_progress`, `interrupted`) and by each client version's
//!   wording (see `verdict.rs`); only errors count in `error_count`. An interrupt marker line
//!   `[Request interrupted by user…]` counts as an interrupt unless it directly follows a
//!   rejection, denial or interrupt (it is then part of it).
//! - **code change**: an `Edit`, `Write`, `MultiEdit` or `NotebookEdit` call whose result is
//!   not a failure; files from `file_path`/`notebook_path`; lines from the `structuredPatch`
//!   of `toolUseResult` (`+`/`-` lines), or the content's lines for a created file.
//! - **correction**: a human prompt, never the first, after the assistant produced output
//!   since the previous prompt, scoring at least 3: a leading negation or an instruction
//!   reminder / revert request / "why did you" (3 each), a contrast or prohibition such as
//!   "instead", "don't", "ではなく", "しないで" (2), following a rejection or interrupt (2).
//!   Polite request forms ("please", "してください") score nothing.
//! - **repeated failure**: consecutive failures of one intent (`classify::intent`) with the
//!   same normalized error (`strike::normalize`); **still failing**: an intent whose last
//!   main-chain failure no later successful call of that intent resolved (see `results.rs`).
//! - **backtrack**: work undone or redone, naming its cause: a code change to a file already
//!   changed in this session after trouble that concerns it since its previous change (a
//!   failed call on the file, a failed check — build, test, lint, a commit hook's deny —
//!   after it changed, a rejection, interrupt or correction); an edit that exactly reverts an
//!   earlier edit (its `old_string`/`new_string` swap those of an earlier edit of the same
//!   file); or a successful `git checkout|restore|reset|revert|stash` command.
//! - **durations**: `duration_ms` from the earliest to the latest top-level `timestamp`
//!   (lines are not always in time order); `tool_time_ms` sums, per tool use, result time
//!   minus call time.

mod calls;
mod correction;
mod counts;
mod prompts;
mod results;
mod tally;
mod usage;
pub mod verdict;

use serde::{Deserialize, Serialize};

pub use correction::correction_score;
pub use counts::Counts;
pub use tally::Tally;
pub use usage::Tokens;

/// Most evidence facts kept per transcript (the counts stay exact beyond it).
pub const MAX_FACTS: usize = 200;

/// Tools whose successful calls are code changes.
pub const CODE_CHANGE_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

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
    /// A call cancelled because another call of its batch failed.
    Cascade,
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
    /// The line of what caused it (a backtrack's failure, rejection or correction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause_line: Option<u64>,
}

impl Fact {
    /// Returns a fact of `kind` at `line` with nothing else known yet.
    pub fn new(kind: FactKind, line: u64, timestamp: Option<String>) -> Self {
        Self {
            kind,
            line,
            source: String::new(),
            tool: None,
            subject: String::new(),
            detail: String::new(),
            count: None,
            timestamp,
            call: None,
            first_line: None,
            cause_line: None,
        }
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
