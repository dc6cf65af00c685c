//! Which client sent a payload, when `oath hook` is not told (`--agent`, which `oath install`
//! writes), and the adapter that maps it to oath's input.
//!
//! The rule, from the captured payloads of each client:
//! 1. Gemini CLI: an event name only Gemini uses (`BeforeTool`, `AfterTool`, `BeforeAgent`,
//!    `AfterAgent`, …), or a top-level string `timestamp` (every Gemini payload has one; no
//!    Claude Code payload of 2.1.197 or 2.1.332 has).
//! 2. Codex CLI: `tool_name: "apply_patch"`, or a `turn_id` on a tool, prompt or stop event
//!    (Codex sends `turn_id` with each; Claude Code sends it only with MessageDisplay).
//! 3. Anything else, ambiguous included, is Claude Code. Codex's SessionStart and SessionEnd
//!    carry no `turn_id` and are read as Claude Code's: the two are answered alike there,
//!    only their audit records name `claude`.

use serde_json::{Map, Value};

use super::input::HookInput;
use super::{codex, gemini};
use crate::agent::Agent;

/// Events on which Codex sends `turn_id`.
const CODEX_TURN_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "PermissionRequest",
];

/// Returns the client a parsed payload comes from.
pub fn recognize(raw: &Map<String, Value>) -> Agent {
    let event = raw
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if gemini::OWN_EVENTS.iter().any(|(g, _)| *g == event)
        || raw.get("timestamp").is_some_and(Value::is_string)
    {
        return Agent::Gemini;
    }
    let turn = raw.get("turn_id").is_some_and(Value::is_string);
    if raw.get("tool_name").and_then(Value::as_str) == Some("apply_patch")
        || (turn && CODEX_TURN_EVENTS.contains(&event))
    {
        return Agent::Codex;
    }
    Agent::Claude
}

/// Maps a payload of `agent` to oath's input (Claude Code's shape, the client noted).
pub fn adapt(agent: Agent, raw: Map<String, Value>, event_hint: Option<&str>) -> HookInput {
    match agent {
        Agent::Claude => HookInput::from_map(raw, event_hint),
        Agent::Codex => codex::adapt(raw, event_hint),
        Agent::Gemini => gemini::adapt(raw, event_hint),
    }
}

/// Returns the client of a payload that may not parse: recognised when it does, else from
/// the text (a Gemini-only event name, or a `"turn_id"` key for Codex), else Claude Code.
pub fn recognize_bytes(bytes: &[u8], event_name: Option<&str>) -> Agent {
    if let Ok(raw) = HookInput::parse_object(bytes) {
        return recognize(&raw);
    }
    if let Some(e) = event_name
        && gemini::OWN_EVENTS.iter().any(|(g, _)| *g == e)
    {
        return Agent::Gemini;
    }
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if head.windows(9).any(|w| w == b"\"turn_id\"") {
        return Agent::Codex;
    }
    Agent::Claude
}

/// Returns Claude Code's name of a client's event name.
pub fn claude_event(agent: Agent, name: &str) -> &str {
    match agent {
        Agent::Gemini => gemini::claude_event(name),
        Agent::Claude | Agent::Codex => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value) -> Agent {
        let Value::Object(m) = v else { unreachable!() };
        recognize(&m)
    }

    #[test]
    fn each_client_is_told_apart() {
        assert_eq!(of(json!({"hook_event_name": "BeforeTool"})), Agent::Gemini);
        assert_eq!(
            of(json!({"hook_event_name": "SessionStart", "timestamp": "2026-11-25T20:11:06Z"})),
            Agent::Gemini
        );
        assert_eq!(
            of(json!({"hook_event_name": "PreToolUse", "turn_id": "t", "tool_name": "Bash"})),
            Agent::Codex
        );
        assert_eq!(
            of(json!({"hook_event_name": "PostToolUse", "tool_name": "apply_patch"})),
            Agent::Codex
        );
        for claude in [
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}),
            json!({"hook_event_name": "MessageDisplay", "turn_id": "t"}),
            json!({"hook_event_name": "SessionStart", "model": "m", "source": "startup"}),
            json!({}),
        ] {
            assert_eq!(of(claude.clone()), Agent::Claude, "{claude}");
        }
    }

    #[test]
    fn broken_payloads_are_recognised_from_their_text() {
        assert_eq!(
            recognize_bytes(b"{\"hook_event_name\":\"BeforeTool\",", Some("BeforeTool")),
            Agent::Gemini
        );
        assert_eq!(
            recognize_bytes(
                b"{\"turn_id\":\"t\",\"hook_event_name\":\"PreToolUse\"",
                None
            ),
            Agent::Codex
        );
        assert_eq!(recognize_bytes(b"{", None), Agent::Claude);
    }
}
