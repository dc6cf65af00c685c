//! Hook answers: strict out, one writer of stdout.
//!
//! An [`Answer`] is built only through its constructors, so `hookSpecificOutput.hookEventName`
//! always echoes the firing event and stdout holds exactly one JSON object or nothing.
//! "No opinion" is [`Answer::silent`]: exit 0 with empty stdout. Every answer exits 0, a
//! PreToolUse deny included: the JSON `permissionDecision: "deny"` with its reason is the
//! policy decision. Exit 2 (with the reason on stderr) also blocks, but Claude Code takes it
//! for a failing hook: its stream reports the hook's outcome as `error`, 2.1.197 shows the
//! model `PreToolUse:<Tool> hook error: [<hook command>]: <stderr>` when stdout has no JSON,
//! and 2.1.332 logs `[ERROR] … status code 2` for every such deny (issue 30; the findings
//! are in docs/adr/0002-hook-protocol.md). Exit 1 is never produced.

use std::io::Write;

use serde_json::{Map, Value, json};

use super::EventName;
use crate::agent::Agent;

/// Longest text Claude Code accepts in `additionalContext` / `systemMessage` before it
/// replaces it with a preview.
pub const MAX_CONTEXT_CHARS: usize = 10_000;

/// A PreToolUse permission decision, ordered from least to most restrictive.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// Approve without a prompt.
    Allow,
    /// Ask the user.
    Ask,
    /// Block the call; the reason goes to the model.
    Deny,
}

impl PermissionDecision {
    /// Returns the protocol spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// What oath answers to one hook event.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    event: EventName,
    decision: Option<(PermissionDecision, String)>,
    updated_input: Option<Value>,
    context: Vec<String>,
    system_message: Vec<String>,
    stderr: Vec<String>,
    agent: Agent,
}

impl Answer {
    /// Returns "no opinion": exit 0, nothing on stdout.
    pub fn silent(event: &EventName) -> Self {
        Self {
            event: event.clone(),
            decision: None,
            updated_input: None,
            context: Vec::new(),
            system_message: Vec::new(),
            stderr: Vec::new(),
            agent: Agent::Claude,
        }
    }

    /// Returns a PreToolUse permission decision with its reason.
    pub fn decision(decision: PermissionDecision, reason: impl Into<String>) -> Self {
        let mut a = Self::silent(&EventName::PreToolUse);
        a.decision = Some((decision, reason.into()));
        a
    }

    /// Adds `additionalContext` for the model.
    pub fn with_context(mut self, text: impl Into<String>) -> Self {
        self.context.push(text.into());
        self
    }

    /// Adds a `systemMessage` for the user.
    pub fn with_system_message(mut self, text: impl Into<String>) -> Self {
        self.system_message.push(text.into());
        self
    }

    /// Replaces the tool input (PreToolUse); the whole input object must be given.
    pub fn with_updated_input(mut self, input: Value) -> Self {
        self.updated_input = Some(input);
        self
    }

    /// Adds a diagnostic line for stderr (never shown to the model on exit 0).
    pub fn with_stderr(mut self, line: impl Into<String>) -> Self {
        self.stderr.push(line.into());
        self
    }

    /// Merges another answer for the same event: the most restrictive decision wins, texts
    /// are concatenated.
    pub fn merge(mut self, other: Answer) -> Self {
        self.decision = match (self.decision.take(), other.decision) {
            (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        if other.updated_input.is_some() {
            self.updated_input = other.updated_input;
        }
        self.context.extend(other.context);
        self.system_message.extend(other.system_message);
        self.stderr.extend(other.stderr);
        self
    }

    /// Returns the answer as `agent` is to receive it: written in its protocol, and, where the
    /// client cannot ask its user ([`Agent::can_ask`]), an ask turned into a deny whose reason
    /// says what needs a person's confirmation and how a person grants it.
    pub fn for_agent(mut self, agent: Agent) -> Self {
        self.agent = agent;
        if !agent.can_ask()
            && let Some((decision, reason)) = &mut self.decision
            && *decision == PermissionDecision::Ask
        {
            *decision = PermissionDecision::Deny;
            *reason = cannot_ask_reason(agent, reason);
        }
        self
    }

    /// Returns the client the answer is written for.
    pub fn agent(&self) -> Agent {
        self.agent
    }

    /// Returns the event this answer is for.
    pub fn event(&self) -> &EventName {
        &self.event
    }

    /// Returns the permission decision, if any.
    pub fn permission(&self) -> Option<PermissionDecision> {
        self.decision.as_ref().map(|d| d.0)
    }

    /// Returns the reason of the permission decision, if any.
    pub fn reason(&self) -> Option<&str> {
        self.decision.as_ref().map(|d| d.1.as_str())
    }

    /// Returns the additional context lines.
    pub fn contexts(&self) -> &[String] {
        &self.context
    }

    /// Returns the messages for the user.
    pub fn system_messages(&self) -> &[String] {
        &self.system_message
    }

    /// Returns the diagnostic lines.
    pub fn stderr_lines(&self) -> &[String] {
        &self.stderr
    }

    /// Returns the exit code: always 0, a deny included (its JSON is the decision; see the
    /// module's documentation for why not exit 2).
    pub fn exit_code(&self) -> u8 {
        0
    }

    /// Returns the JSON object to print in the protocol of the answer's client
    /// ([`Answer::for_agent`]; Claude Code's by default), or `None` for silence.
    pub fn to_json(&self) -> Option<Value> {
        match self.agent {
            Agent::Claude => self.claude_json(),
            Agent::Codex => super::codex::render(self),
            Agent::Gemini => super::gemini::render(self),
        }
    }

    /// Returns the JSON object Claude Code is to receive, or `None` for silence.
    ///
    /// Decisions are emitted only for PreToolUse; context only for events whose
    /// `hookSpecificOutput` carries `additionalContext`.
    fn claude_json(&self) -> Option<Value> {
        let mut specific = Map::new();
        let event = self.event.as_str();
        if matches!(self.event, EventName::PreToolUse) {
            if let Some((decision, reason)) = &self.decision {
                specific.insert("permissionDecision".into(), json!(decision.as_str()));
                specific.insert("permissionDecisionReason".into(), json!(cap(reason)));
            }
            if let Some(input) = &self.updated_input {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        if !self.context.is_empty() && supports_context(&self.event) {
            specific.insert(
                "additionalContext".into(),
                json!(cap(&self.context.join("\n\n"))),
            );
        }
        let mut top = Map::new();
        if !specific.is_empty() {
            specific.insert("hookEventName".into(), json!(event));
            top.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        with_system_message(top, &self.system_message)
    }

    /// Writes the answer: one JSON object (or nothing) on stdout, diagnostics on stderr.
    /// Returns the exit code.
    pub fn emit(&self, stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
        for line in &self.stderr {
            let _ = writeln!(stderr, "oath: {}", cap_line(line));
        }
        if let Some(json) = self.to_json() {
            let mut line = json.to_string();
            line.push('\n');
            let _ = stdout.write_all(line.as_bytes());
            let _ = stdout.flush();
        }
        self.exit_code()
    }
}

/// The reason of an ask turned into a deny for a client that cannot ask.
fn cannot_ask_reason(agent: Agent, reason: &str) -> String {
    format!(
        "oath: this call needs a person's confirmation ({}), and {} cannot ask one, so it is \
         denied. To let it run, a person can add an allow rule for it to oath's user \
         configuration (`rules.allow` in ~/.config/oath/config.yaml; `oath explain` shows what \
         it matches), or run it themselves.",
        reason.trim_end_matches('.'),
        agent.display_name()
    )
}

/// Returns whether the event's `hookSpecificOutput` accepts `additionalContext`.
fn supports_context(event: &EventName) -> bool {
    matches!(
        event,
        EventName::PreToolUse
            | EventName::PostToolUse
            | EventName::PostToolUseFailure
            | EventName::PostToolBatch
            | EventName::SessionStart
            | EventName::Setup
            | EventName::SubagentStart
            | EventName::UserPromptSubmit
            | EventName::UserPromptExpansion
            | EventName::Stop
            | EventName::SubagentStop
    )
}

/// Longest diagnostic line written to stderr, in bytes (a message may quote a payload value).
const MAX_STDERR_LINE: usize = 4096;

/// Cuts a diagnostic line at [`MAX_STDERR_LINE`] bytes, marking the cut.
fn cap_line(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= MAX_STDERR_LINE {
        return line.into();
    }
    let mut cut = MAX_STDERR_LINE;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} [... {} bytes]", &line[..cut], line.len()).into()
}

/// Finishes an answer object of any client: `systemMessage` (the user's lines, joined) when
/// there are any, and `None` (nothing on stdout) when the object stays empty.
pub(crate) fn with_system_message(mut top: Map<String, Value>, lines: &[String]) -> Option<Value> {
    if !lines.is_empty() {
        top.insert("systemMessage".into(), json!(cap(&lines.join("\n"))));
    }
    (!top.is_empty()).then_some(Value::Object(top))
}

/// Caps a text at [`MAX_CONTEXT_CHARS`] characters, marking the cut.
pub(crate) fn cap(text: &str) -> String {
    if text.chars().count() <= MAX_CONTEXT_CHARS {
        return text.to_owned();
    }
    let keep: String = text.chars().take(MAX_CONTEXT_CHARS - 40).collect();
    format!("{keep}\n[... truncated by oath]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_prints_nothing_and_exits_zero() {
        let a = Answer::silent(&EventName::PostToolUse);
        assert_eq!(a.to_json(), None);
        assert_eq!(a.exit_code(), 0);
    }

    /// A deny is the JSON decision with exit 0 and nothing on stderr: what Claude Code
    /// takes for a policy decision, not for a failing hook.
    #[test]
    fn deny_is_json_with_exit_zero() {
        let a = Answer::decision(PermissionDecision::Deny, "no");
        assert_eq!(
            a.to_json().unwrap(),
            json!({"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no","hookEventName":"PreToolUse"}})
        );
        assert_eq!(a.exit_code(), 0);
        let mut out = Vec::new();
        let mut err = Vec::new();
        assert_eq!(a.emit(&mut out, &mut err), 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\",\"hookEventName\":\"PreToolUse\"}}\n"
        );
        assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    }

    /// Only a client that cannot ask has its ask turned into a deny; other decisions stay.
    #[test]
    fn an_ask_stays_an_ask_only_where_the_client_can_ask() {
        let ask = || Answer::decision(PermissionDecision::Ask, "why");
        let claude = ask().for_agent(Agent::Claude);
        assert_eq!(claude.permission(), Some(PermissionDecision::Ask));
        assert_eq!(claude.reason(), Some("why"));
        assert_eq!(claude.to_json(), ask().to_json());
        for agent in [Agent::Codex, Agent::Gemini] {
            let a = ask().for_agent(agent);
            assert_eq!(a.permission(), Some(PermissionDecision::Deny));
            assert!(
                a.reason()
                    .unwrap()
                    .contains("needs a person's confirmation (why)")
            );
            let allow = Answer::decision(PermissionDecision::Allow, "ok").for_agent(agent);
            assert_eq!(allow.permission(), Some(PermissionDecision::Allow));
        }
    }

    #[test]
    fn merge_keeps_the_most_restrictive_decision() {
        let a = Answer::decision(PermissionDecision::Allow, "a")
            .merge(Answer::decision(PermissionDecision::Ask, "b"))
            .merge(Answer::decision(PermissionDecision::Allow, "c"));
        assert_eq!(a.permission(), Some(PermissionDecision::Ask));
        assert_eq!(a.reason(), Some("b"));
    }

    #[test]
    fn context_echoes_the_event() {
        let a = Answer::silent(&EventName::PostToolUseFailure)
            .with_context("x")
            .with_system_message("u");
        assert_eq!(
            a.to_json().unwrap(),
            json!({"hookSpecificOutput":{"additionalContext":"x","hookEventName":"PostToolUseFailure"},"systemMessage":"u"})
        );
    }

    #[test]
    fn long_context_is_capped() {
        let a = Answer::silent(&EventName::SessionStart).with_context("x".repeat(20_000));
        let text = a.to_json().unwrap()["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(text.chars().count() <= MAX_CONTEXT_CHARS);
    }
}
