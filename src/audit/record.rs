//! The audit trail's records, typed: what each kind holds, written by [`super::write`] and
//! described by [`schema`] (`oath audit --schema`), so that the JSON Schema teams ship the
//! trail with is the one the hook writes by.
//!
//! Every line of an audit file is one JSON object: `v` (the schema version), `kind`, the
//! `timestamp` (UTC, milliseconds) and the fields of its kind, in this order. Readers skip
//! lines that are not JSON objects (a writer killed in the middle of its `write()` can leave
//! the head of one) and fields they do not know.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::agent::Agent;
use crate::classify::{Domain, Kind, Risk};
use crate::decide::{Decision, Model};
use crate::phase::Phase;
use crate::trust::{Level, Outcome as TrustOutcome};

/// One record, tagged by its `kind`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// A tool call as PreToolUse saw it: its classification and oath's decision.
    Pre(Pre),
    /// What became of a tool call: it ran (success or failure), its result is unknown, or it
    /// never ran (denied by oath, refused by the client).
    Outcome(Outcome),
    /// A session started (or resumed, cleared, compacted).
    SessionStart(SessionStart),
    /// Another event of the client reached oath (Stop, SessionEnd, UserPromptSubmit, ...).
    Event(Event),
    /// An event oath does not know reached it; it was answered with no opinion.
    UnknownEvent(UnknownEvent),
    /// A user observer command ran (or was started, or skipped) after a tool call.
    Observer(Observer),
}

impl Record {
    /// Returns the record's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Pre(_) => "pre",
            Self::Outcome(_) => "outcome",
            Self::SessionStart(_) => "session_start",
            Self::Event(_) => "event",
            Self::UnknownEvent(_) => "unknown_event",
            Self::Observer(_) => "observer",
        }
    }
}

/// The fields every record starts with (oath's own: a field of a kind of the same name does
/// not replace them).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(
    title = "oath audit record",
    description = "One line of an oath audit file (JSON Lines, one file per project per session): \
    `v`, `kind`, `timestamp`, then the fields of its kind. Strings longer than 2048 bytes in tool inputs, errors and outputs \
    are cut to a redacted head followed by `[... truncated by oath: N bytes, blake3 HEX]`; secrets are replaced by [REDACTED]."
)]
pub struct Line {
    /// The record schema's version.
    pub v: u32,
    /// When oath wrote the record: UTC, RFC 3339 with milliseconds (`2026-11-26T12:00:00.000Z`).
    pub timestamp: String,
    /// The kind and its fields.
    #[serde(flatten)]
    pub record: Record,
}

/// `kind: "pre"`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Pre {
    /// The client's session id.
    pub session_id: Option<String>,
    /// The client's id of the tool call: joins the call's `outcome` records.
    pub tool_use_id: Option<String>,
    /// For a call the client gave no id (Gemini CLI): its tool and input hashed
    /// ([`crate::audit::call_key`]), which its outcome record carries too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_key: Option<String>,
    /// The id of the user prompt the call belongs to (Claude Code's `prompt_id`, its
    /// telemetry's `prompt.id`), when the client sent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The tool (`Bash`, `Write`, `mcp__server__tool`, ...).
    pub tool_name: String,
    /// The tool's input, redacted, long strings cut.
    pub tool_input: Value,
    /// The trust domain of the call's riskiest part.
    pub domain: Domain,
    /// The worst risk of its parts.
    pub risk_category: Risk,
    /// The kind of risk of the deciding part: reversible work is trust-gated, irreversible
    /// and not understood are asked, catastrophic denied (records written before 2026-11-26
    /// lack it).
    #[serde(default)]
    pub risk_kind: Kind,
    /// The risk as a number (1 low to 4 critical).
    pub risk_value: u8,
    /// The complexity derived from the risk.
    pub complexity: f64,
    /// The id of the rule that classified the riskiest part.
    pub rule: String,
    /// The trust score (0 to 1) the decision used: the domain's at the call's risk level
    /// (high's for a critical call).
    pub trust_score_before: f64,
    /// The autonomy score computed from trust and risk.
    pub autonomy_score: f64,
    /// oath's decision.
    pub decision: Decision,
    /// Why.
    pub reason: String,
    /// Always `pending`: the outcome is a record of its own.
    pub outcome: Pending,
    /// Always null (the outcome record carries the score after).
    pub trust_score_after: (),
    /// The model recommended for the call.
    pub recommended_model: Model,
    /// The project's phase, when one is set.
    pub phase: Option<Phase>,
    /// The client that asked (records written before oath served Codex CLI and Gemini CLI
    /// lack it: Claude Code).
    #[serde(default)]
    pub agent: Agent,
    /// What the client was answered when it differs from `decision`: an ask becomes a deny
    /// for a client that cannot ask.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered: Option<Decision>,
    /// Each file of a multi-file edit (Codex's `apply_patch`), as a tool call of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effects: Option<Vec<Effect>>,
    /// True when the call's model was set to the recommended one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_routed: Option<bool>,
    /// The subagent that made the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// The outcome a `pre` record is written with.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pending {
    /// Not known yet.
    Pending,
}

/// One file of a multi-file edit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Effect {
    /// The tool it is decided as (`Write`, `Edit`, ...).
    pub tool_name: String,
    /// Its input, redacted, long strings cut.
    pub tool_input: Value,
}

/// What became of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The tool ran and succeeded.
    #[default]
    Success,
    /// The tool ran and failed.
    Failure,
    /// The client does not say (Codex CLI): trust is not changed.
    Unknown,
    /// oath denied it: it never ran.
    Denied,
    /// The client refused it (the user said no, or its own rules): it never ran.
    Refused,
}

impl From<TrustOutcome> for Ending {
    fn from(o: TrustOutcome) -> Self {
        match o {
            TrustOutcome::Success => Self::Success,
            TrustOutcome::Failure => Self::Failure,
        }
    }
}

/// Who refused a call that never ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefusedBy {
    /// oath's deny.
    Oath,
    /// The client (the user, or its permission rules or classifier).
    Client,
}

/// `kind: "outcome"`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Outcome {
    /// The client's session id.
    pub session_id: Option<String>,
    /// The call's id: joins its `pre` record.
    pub tool_use_id: Option<String>,
    /// For a call the client gave no id: the key its `pre` record carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_key: Option<String>,
    /// The id of the user prompt the call belongs to, when the client sent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The tool (null for a refused call the client did not name and whose `pre` record was
    /// not found).
    pub tool_name: Option<String>,
    /// The trust domain the outcome counts for (null when a refused call's `pre` record was
    /// not found).
    pub domain: Option<String>,
    /// What became of the call.
    pub outcome: Ending,
    /// Who refused a call that never ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_by: Option<RefusedBy>,
    /// The trust of the domain at the call's risk level (`trust_level`) before the outcome
    /// was applied (null when trust was not touched).
    pub trust_score_before: Option<f64>,
    /// After.
    pub trust_score_after: Option<f64>,
    /// Whether the outcome changed trust.
    pub trust_applied: bool,
    /// The level of the domain's trust the scores are of: the call's risk (high for a
    /// critical call). A success raises it and the levels below, a failure every level
    /// (records written before trust was kept per level lack it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust_level: Option<Level>,
    /// Why the outcome changed no trust, when the call does not earn any: `not understood`
    /// (a part oath understands only partly or not at all) or `no pack describes the
    /// program`. Such a call's failure lowers no trust either.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust_skipped: Option<String>,
    /// True when this call's outcome had been applied already (a repeated hook).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
    /// How long the tool ran, when the client said.
    pub duration_ms: Option<u64>,
    /// The hook event that reported it.
    pub hook: String,
    /// The client (records written before oath served Codex CLI and Gemini CLI lack it:
    /// Claude Code).
    #[serde(default)]
    pub agent: Agent,
    /// True for a failure caused by a sibling call's failure (not a strike).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cascade: Option<bool>,
    /// True for a call the user interrupted (not a strike).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
    /// The failure's error text, redacted, cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The 3-strike count of this failure's error after it (2 warns the model, 3 and more
    /// stop the loop: the next call of the same intent is asked), when it was counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strike: Option<u32>,
    /// The error's 3-strike hash (`oath errors show HASH`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_hash: Option<String>,
    /// Why the call was refused, when the client said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Value>,
    /// The subagent that made the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// `kind: "session_start"`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionStart {
    /// The client's session id.
    pub session_id: Option<String>,
    /// `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// The client (records written before oath served Codex CLI and Gemini CLI lack it:
    /// Claude Code).
    #[serde(default)]
    pub agent: Agent,
}

/// `kind: "event"`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Event {
    /// The client's session id.
    pub session_id: Option<String>,
    /// The event (`Stop`, `SessionEnd`, `UserPromptSubmit`, ...).
    pub hook_event_name: String,
    /// The client (records written before oath served Codex CLI and Gemini CLI lack it:
    /// Claude Code).
    #[serde(default)]
    pub agent: Agent,
    /// The event's `source`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its `trigger`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Its `agent_type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The subagent it concerns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// `kind: "unknown_event"`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnknownEvent {
    /// The client's session id.
    pub session_id: Option<String>,
    /// The event's name as the client sent it.
    pub hook_event_name: String,
    /// The client (records written before oath served Codex CLI and Gemini CLI lack it:
    /// Claude Code).
    #[serde(default)]
    pub agent: Agent,
}

/// `kind: "observer"`: one user command after a tool call.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Observer {
    /// The client's session id.
    pub session_id: Option<String>,
    /// The call's id.
    pub tool_use_id: Option<String>,
    /// The tool.
    pub tool_name: String,
    /// The hook event.
    pub hook: String,
    /// The call's outcome (`success` or `failure`).
    pub outcome: Ending,
    /// The command's index in `postToolUse.commands`.
    pub index: usize,
    /// The command, redacted, cut.
    pub run: Value,
    /// Whether it was started in the background.
    #[serde(rename = "async")]
    pub is_async: bool,
    /// Why it did not run (`budget`: the synchronous commands used the whole budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// A background command's process id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// A background command's log file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// How a command that ran ended.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub ran: Option<Ran>,
    /// Why it could not start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the call's environment variables were cut to fit the kernel's limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env_reduced: Option<bool>,
}

/// How a synchronous observer command ended.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Ran {
    /// Its exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// Whether it was killed at its timeout.
    pub timed_out: bool,
    /// How long it ran.
    pub duration_ms: u64,
    /// Its standard output, redacted, cut.
    pub stdout: Value,
    /// The output's size.
    pub stdout_bytes: u64,
    /// Its standard error, redacted, cut.
    pub stderr: Value,
    /// The error output's size.
    pub stderr_bytes: u64,
}

/// Returns the JSON Schema of an audit line.
pub fn schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Line)).unwrap_or(Value::Null)
}
