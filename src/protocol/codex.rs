//! Codex CLI (0.169.0): its hook payloads mapped to Claude Code's, oath's answers mapped to
//! what Codex honours. Facts from the real client are in
//! `tests/fixtures/codex-0.169.0/README.md`.
//!
//! In:
//! - Events keep Claude Code's names (SessionStart, UserPromptSubmit, PreToolUse,
//!   PostToolUse, Stop, SessionEnd); there is no PostToolUseFailure.
//! - `Bash` carries `tool_input.command` as Claude Code's does.
//! - `apply_patch` carries the patch text in `tool_input.command`: it is read into one
//!   Write / Edit / `rm` / `mv` per file ([`super::patch`]), each judged; a patch oath
//!   cannot read is judged as not understood (never allowed).
//! - PostToolUse's `tool_response` is the combined output as a string, with no exit code,
//!   also after a failing command, and no failure event exists: the outcome is **unknown**
//!   ([`HookInput::outcome_known`] false). Trust is not changed and no strike is counted
//!   (telling an error from output text is not reliable); the audit records `unknown`.
//!
//! Out:
//! - Allow and no opinion: exit 0 and nothing on stdout (Codex rejects `"allow"` without
//!   `updatedInput`).
//! - Deny: exit 0 with `hookSpecificOutput.permissionDecision: "deny"` and the reason: the
//!   model is told `Command blocked by PreToolUse hook: <reason>` (the same text as exit 2).
//! - Ask: Codex has none (it counts the hook as failed and runs the tool), so an ask reaches
//!   it as a deny ([`super::Answer::for_agent`]).
//! - Context for the model: `hookSpecificOutput.additionalContext` on PostToolUse,
//!   SessionStart and UserPromptSubmit; `systemMessage` for the user. Codex's output schema
//!   admits no other field.
//! - Every failure of a hook (exit 1, text that is not JSON, a timeout) fails open in Codex:
//!   oath's own errors therefore answer a deny in the form above (hook.rs, watchdog.rs).

use serde_json::{Map, Value, json};

use super::input::{Effects, EventName, HookInput};
use super::output::{Answer, PermissionDecision, cap, with_system_message};
use super::patch;
use crate::agent::Agent;

/// Maps a Codex payload to oath's input.
pub fn adapt(raw: Map<String, Value>, event_hint: Option<&str>) -> HookInput {
    let mut input = HookInput::from_map(raw, event_hint);
    input.agent = Agent::Codex;
    if input.tool_name.as_deref() == Some("apply_patch") {
        input.effects = match input.tool_input().get("command").and_then(Value::as_str) {
            Some(text) => match patch::parse(text) {
                Ok(ops) => Effects::Several(patch::effects(&ops)),
                Err(why) => Effects::Unreadable(format!("oath cannot read this patch: {why}")),
            },
            None => Effects::Unreadable("apply_patch without its patch text".into()),
        };
    }
    if input.event == EventName::PostToolUse {
        input.outcome_known = false;
    }
    input
}

/// Returns what Codex is to read on stdout, or `None` for silence.
pub fn render(answer: &Answer) -> Option<Value> {
    let event = answer.event();
    let mut specific = Map::new();
    match event {
        EventName::PreToolUse => {
            if answer.permission() != Some(PermissionDecision::Deny) {
                // Allow and no opinion are silence: anything else on stdout is refused.
                return None;
            }
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert(
                "permissionDecisionReason".into(),
                json!(cap(answer.reason().unwrap_or("denied by oath"))),
            );
        }
        EventName::PostToolUse | EventName::SessionStart | EventName::UserPromptSubmit
            if !answer.contexts().is_empty() =>
        {
            specific.insert(
                "additionalContext".into(),
                json!(cap(&answer.contexts().join("\n\n"))),
            );
        }
        _ => {}
    }
    let mut top = Map::new();
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event.as_str()));
        top.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    with_system_message(top, answer.system_messages())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(v: Value) -> HookInput {
        let Value::Object(m) = v else { unreachable!() };
        adapt(m, None)
    }

    #[test]
    fn allow_and_no_opinion_are_silence_and_ask_is_a_deny() {
        let allow = Answer::decision(PermissionDecision::Allow, "fine").for_agent(Agent::Codex);
        assert_eq!(allow.to_json(), None);
        assert_eq!(allow.exit_code(), 0);
        let none = Answer::silent(&EventName::PreToolUse)
            .with_context("x")
            .for_agent(Agent::Codex);
        assert_eq!(none.to_json(), None);
        let ask = Answer::decision(PermissionDecision::Ask, "it deletes uncommitted work")
            .for_agent(Agent::Codex);
        assert_eq!(ask.permission(), Some(PermissionDecision::Deny));
        let json = ask.to_json().unwrap();
        let reason = json["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains("it deletes uncommitted work"), "{reason}");
        assert!(reason.contains("Codex CLI cannot ask"), "{reason}");
        assert!(reason.contains("rules.allow"), "{reason}");
        assert!(reason.contains("run it themselves"), "{reason}");
        assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(json["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(json.as_object().unwrap().len(), 1);
    }

    #[test]
    fn context_goes_where_codex_reads_it() {
        let a = Answer::silent(&EventName::PostToolUse)
            .with_context("c")
            .for_agent(Agent::Codex);
        assert_eq!(
            a.to_json().unwrap(),
            json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}})
        );
        let stop = Answer::silent(&EventName::Stop)
            .with_context("c")
            .for_agent(Agent::Codex);
        assert_eq!(stop.to_json(), None);
    }

    #[test]
    fn patches_become_effects_and_post_tool_use_is_unknown() {
        let p = payload(json!({
            "hook_event_name": "PreToolUse", "turn_id": "t", "tool_name": "apply_patch",
            "tool_input": {"command": "*** Begin Patch\n*** Delete File: a\n*** End Patch"}
        }));
        assert_eq!(p.agent, Agent::Codex);
        let Effects::Several(e) = &p.effects else {
            panic!("{:?}", p.effects)
        };
        assert_eq!(e[0].tool_input["command"], "rm -- 'a'");
        assert!(p.outcome_known);
        let bad = payload(json!({
            "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
            "tool_input": {"command": "rm -rf /"}
        }));
        assert!(matches!(bad.effects, Effects::Unreadable(_)));
        let post = payload(
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_response": "x"}),
        );
        assert!(!post.outcome_known);
        assert_eq!(post.effects, Effects::Itself);
    }
}
