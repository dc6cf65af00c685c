//! Gemini CLI (0.61.0): its hook payloads mapped to Claude Code's, oath's answers mapped to
//! what Gemini honours. Facts from the real client are in
//! `tests/fixtures/gemini-0.61.0/README.md`.
//!
//! In:
//! - Events: BeforeTool → PreToolUse, AfterTool → PostToolUse (or PostToolUseFailure, see
//!   below), BeforeAgent → UserPromptSubmit, AfterAgent → Stop, PreCompress → PreCompact;
//!   SessionStart, SessionEnd and Notification keep their names. BeforeModel, AfterModel and
//!   BeforeToolSelection have no counterpart (recorded as unknown events, answered silently).
//! - Tools: `run_shell_command` {command, dir_path?} → Bash (a `dir_path` becomes a leading
//!   `cd '<dir>' &&`, so paths resolve where the command runs), `write_file` → Write,
//!   `replace` → Edit, `read_file` → Read, `list_directory` → LS, `glob` → Glob,
//!   `search_file_content` / `grep_search` → Grep, `web_fetch` → WebFetch (its prompt's first
//!   URL), `google_web_search` → WebSearch. Other tools keep their names (judged as tools
//!   oath does not know).
//! - Outcomes: `tool_response.error` present → failure (PostToolUseFailure with that text);
//!   for `run_shell_command` a non-zero exit appears only as an `Exit Code: N` line after the
//!   output in `tool_response.llmContent` → failure when N ≠ 0; otherwise success. Output
//!   that itself ends with such a line could be misread; nothing better is reported.
//!
//! Out:
//! - Deny: exit 0 with `{"decision":"deny","reason":R}`; the model is told
//!   `Tool execution blocked: R`.
//! - Allow: `{"decision":"allow"}`; no opinion: exit 0 and nothing on stdout.
//! - Ask: Gemini's ask in headless mode silently ends the session, so an ask reaches it as a
//!   deny ([`super::Answer::for_agent`]).
//! - Context: `hookSpecificOutput.additionalContext` (AfterTool, BeforeAgent, SessionStart);
//!   `systemMessage` for the user.
//! - A timeout or exit 2 without text fails open in Gemini: oath's own errors answer a deny
//!   in the form above (hook.rs, watchdog.rs).

use serde_json::{Map, Value, json};

use super::input::{EventName, HookInput};
use super::output::{Answer, PermissionDecision, cap, with_system_message};
use crate::agent::Agent;

/// Gemini's events that Claude Code does not name, with their Claude Code counterparts
/// (`None`: no counterpart).
pub const OWN_EVENTS: &[(&str, Option<&str>)] = &[
    ("BeforeTool", Some("PreToolUse")),
    ("AfterTool", Some("PostToolUse")),
    ("BeforeAgent", Some("UserPromptSubmit")),
    ("AfterAgent", Some("Stop")),
    ("PreCompress", Some("PreCompact")),
    ("BeforeModel", None),
    ("AfterModel", None),
    ("BeforeToolSelection", None),
];

/// Returns the Claude Code event a Gemini event name stands for (the name itself when it is
/// shared or has no counterpart).
pub fn claude_event(name: &str) -> &str {
    OWN_EVENTS
        .iter()
        .find(|(g, _)| *g == name)
        .and_then(|(_, c)| *c)
        .unwrap_or(name)
}

/// Returns Gemini's name of the event an answer is for.
pub fn client_event(event: &EventName) -> &str {
    match event {
        EventName::PreToolUse => "BeforeTool",
        EventName::PostToolUse | EventName::PostToolUseFailure => "AfterTool",
        EventName::UserPromptSubmit => "BeforeAgent",
        EventName::Stop => "AfterAgent",
        EventName::PreCompact => "PreCompress",
        other => other.as_str(),
    }
}

/// Maps a Gemini payload to oath's input.
pub fn adapt(mut raw: Map<String, Value>, event_hint: Option<&str>) -> HookInput {
    let name = raw
        .get("hook_event_name")
        .and_then(Value::as_str)
        .or(event_hint)
        .map(str::to_owned);
    let mut event = name.as_deref().map(claude_event).map(str::to_owned);
    if let Some(Value::String(tool)) = raw.get("tool_name").cloned() {
        let input = raw.get("tool_input").cloned().unwrap_or(Value::Null);
        let (claude_tool, claude_input) = tool_call(&tool, &input);
        raw.insert("tool_name".into(), json!(claude_tool));
        if let Some(i) = claude_input {
            raw.insert("tool_input".into(), i);
        }
        if event.as_deref() == Some("PostToolUse")
            && let Some(error) = failure(&tool, raw.get("tool_response"))
        {
            event = Some("PostToolUseFailure".into());
            raw.insert("error".into(), json!(error));
        }
    }
    if let Some(e) = &event {
        raw.insert("hook_event_name".into(), json!(e));
    }
    let mut input = HookInput::from_map(raw, None);
    input.agent = Agent::Gemini;
    input
}

/// Returns the first string among `keys`.
fn field<'v>(input: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// Quotes a word for a POSIX shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Maps a Gemini tool call to Claude Code's tool name and input (`None`: input unchanged).
fn tool_call(tool: &str, input: &Value) -> (String, Option<Value>) {
    let mapped = match tool {
        "run_shell_command" => {
            let command = field(input, &["command"]).map(|c| match field(input, &["dir_path"]) {
                Some(dir) if !dir.is_empty() => format!("cd {} && {c}", quote(dir)),
                _ => c.to_owned(),
            });
            Some(("Bash", json!({ "command": command })))
        }
        "write_file" => Some((
            "Write",
            json!({"file_path": field(input, &["file_path"]), "content": field(input, &["content"])}),
        )),
        "replace" => Some((
            "Edit",
            json!({
                "file_path": field(input, &["file_path"]),
                "old_string": field(input, &["old_string"]),
                "new_string": field(input, &["new_string"]),
                "replace_all": input.get("allow_multiple").and_then(Value::as_bool).unwrap_or(false),
            }),
        )),
        "read_file" => Some((
            "Read",
            json!({"file_path": field(input, &["file_path", "absolute_path", "path"])}),
        )),
        "list_directory" => Some(("LS", json!({"path": field(input, &["dir_path", "path"])}))),
        "glob" => Some((
            "Glob",
            json!({"pattern": field(input, &["pattern"]), "path": field(input, &["dir_path", "path"])}),
        )),
        "search_file_content" | "grep_search" => Some((
            "Grep",
            json!({
                "pattern": field(input, &["pattern"]),
                "path": field(input, &["dir_path", "path"]),
                "glob": field(input, &["include"]),
            }),
        )),
        "web_fetch" => {
            let prompt = field(input, &["prompt"]).unwrap_or("");
            let url = prompt
                .split_whitespace()
                .find(|w| w.starts_with("http://") || w.starts_with("https://"))
                .unwrap_or("");
            Some(("WebFetch", json!({"url": url, "prompt": prompt})))
        }
        "google_web_search" => Some(("WebSearch", json!({"query": field(input, &["query"])}))),
        _ => None,
    };
    match mapped {
        Some((name, mut value)) => {
            // A field the client did not give stays absent, never `null` or empty.
            if let Value::Object(m) = &mut value {
                m.retain(|_, v| !v.is_null());
            }
            (name.to_owned(), Some(value))
        }
        None => (tool.to_owned(), None),
    }
}

/// Returns the failure an AfterTool payload reports, as error text, or `None` for success.
fn failure(tool: &str, response: Option<&Value>) -> Option<String> {
    let response = response?;
    match response.get("error") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => return Some(s.clone()),
        Some(Value::Object(m)) => {
            return Some(
                m.get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| Value::Object(m.clone()).to_string(), str::to_owned),
            );
        }
        Some(other) => return Some(other.to_string()),
    }
    if tool != "run_shell_command" {
        return None;
    }
    let text = response.get("llmContent").and_then(Value::as_str)?;
    let (code, output) = shell_exit(text)?;
    (code != 0).then(|| format!("Exit code {code}\n{output}"))
}

/// Reads a shell result's `llmContent`: the exit code from the trailing lines the client
/// writes after the output (`Exit Code: N`, `Signal: …`, `Background PIDs: …`, `Process
/// Group PGID: N`), and the output. `None` when no exit code is written (a success).
pub fn shell_exit(text: &str) -> Option<(i64, String)> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !matches!(l.trim(), "<untrusted_context>" | "</untrusted_context>"))
        .collect();
    let mut code = None;
    let mut end = lines.len();
    while end > 0 {
        let line = lines[end - 1].trim();
        if let Some(n) = line.strip_prefix("Exit Code:") {
            code = n.trim().parse::<i64>().ok();
            end -= 1;
            break;
        }
        if [
            "Process Group PGID:",
            "Background PIDs:",
            "Signal:",
            "Error:",
        ]
        .iter()
        .any(|p| line.starts_with(p))
            || line.is_empty()
        {
            end -= 1;
            continue;
        }
        break;
    }
    let output = lines[..end].join("\n");
    let output = output
        .strip_prefix("Output: ")
        .unwrap_or(&output)
        .to_owned();
    code.map(|c| (c, output))
}

/// Returns what Gemini is to read on stdout, or `None` for silence.
pub fn render(answer: &Answer) -> Option<Value> {
    let event = answer.event();
    let mut top = Map::new();
    if *event == EventName::PreToolUse {
        match answer.permission() {
            Some(PermissionDecision::Deny) => {
                top.insert("decision".into(), json!("deny"));
                top.insert(
                    "reason".into(),
                    json!(cap(answer.reason().unwrap_or("denied by oath"))),
                );
            }
            Some(PermissionDecision::Allow) => {
                top.insert("decision".into(), json!("allow"));
            }
            // An ask never reaches Gemini (`for_agent`); no opinion is silence.
            Some(PermissionDecision::Ask) | None => {}
        }
    }
    let context_here = matches!(
        event,
        EventName::PostToolUse
            | EventName::PostToolUseFailure
            | EventName::UserPromptSubmit
            | EventName::SessionStart
    );
    if context_here && !answer.contexts().is_empty() {
        top.insert(
            "hookSpecificOutput".into(),
            json!({
                "hookEventName": client_event(event),
                "additionalContext": cap(&answer.contexts().join("\n\n")),
            }),
        );
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
    fn tools_and_events_map_to_claude_codes() {
        let p = payload(json!({
            "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
            "tool_input": {"command": "ls", "dir_path": "sub dir", "description": "d"}
        }));
        assert_eq!(p.event, EventName::PreToolUse);
        assert_eq!(p.agent, Agent::Gemini);
        assert_eq!(p.tool_name.as_deref(), Some("Bash"));
        assert_eq!(p.tool_input(), &json!({"command": "cd 'sub dir' && ls"}));
        let p = payload(json!({
            "hook_event_name": "BeforeTool", "tool_name": "replace",
            "tool_input": {"file_path": "a.rs", "old_string": "x", "new_string": "y",
                           "instruction": "i"}
        }));
        assert_eq!(p.tool_name.as_deref(), Some("Edit"));
        assert_eq!(
            p.tool_input(),
            &json!({"file_path": "a.rs", "old_string": "x", "new_string": "y", "replace_all": false})
        );
        let p = payload(
            json!({"hook_event_name": "BeforeTool", "tool_name": "write_file",
            "tool_input": {"file_path": "a", "content": "c"}}),
        );
        assert_eq!(p.tool_name.as_deref(), Some("Write"));
        for (g, c) in [
            ("BeforeAgent", EventName::UserPromptSubmit),
            ("AfterAgent", EventName::Stop),
            ("SessionStart", EventName::SessionStart),
            ("BeforeModel", EventName::Other("BeforeModel".into())),
        ] {
            assert_eq!(payload(json!({ "hook_event_name": g })).event, c);
        }
        assert_eq!(
            adapt(Map::new(), Some("BeforeTool")).event,
            EventName::PreToolUse
        );
    }

    #[test]
    fn failures_are_the_error_field_or_a_non_zero_exit_code() {
        let after = |tool: &str, response: Value| {
            payload(json!({"hook_event_name": "AfterTool", "tool_name": tool,
                "tool_input": {"command": "x"}, "tool_response": response}))
        };
        let ok = after(
            "run_shell_command",
            json!({"llmContent": "<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 5206\n</untrusted_context>"}),
        );
        assert_eq!(ok.event, EventName::PostToolUse);
        let exit3 = after(
            "run_shell_command",
            json!({"llmContent": "<untrusted_context>\nOutput: out-text\nls: nope\nExit Code: 3\nProcess Group PGID: 12748\n</untrusted_context>"}),
        );
        assert_eq!(exit3.event, EventName::PostToolUseFailure);
        assert_eq!(exit3.error_text(), Some("Exit code 3\nout-text\nls: nope"));
        let zero = after(
            "run_shell_command",
            json!({"llmContent": "Output: a\nExit Code: 0\nProcess Group PGID: 1"}),
        );
        assert_eq!(zero.event, EventName::PostToolUse);
        let err = after(
            "write_file",
            json!({"llmContent": "x", "error": {"message": "denied", "type": "t"}}),
        );
        assert_eq!(err.event, EventName::PostToolUseFailure);
        assert_eq!(err.error_text(), Some("denied"));
        let err = after("replace", json!({"error": "no match"}));
        assert_eq!(err.error_text(), Some("no match"));
    }

    #[test]
    fn answers_take_geminis_form() {
        let deny = Answer::decision(PermissionDecision::Deny, "no").for_agent(Agent::Gemini);
        assert_eq!(
            deny.to_json().unwrap(),
            json!({"decision": "deny", "reason": "no"})
        );
        let ask = Answer::decision(PermissionDecision::Ask, "why").for_agent(Agent::Gemini);
        let json = ask.to_json().unwrap();
        assert_eq!(json["decision"], "deny");
        assert!(
            json["reason"]
                .as_str()
                .unwrap()
                .contains("Gemini CLI cannot ask"),
            "{json}"
        );
        let allow = Answer::decision(PermissionDecision::Allow, "ok").for_agent(Agent::Gemini);
        assert_eq!(allow.to_json().unwrap(), json!({"decision": "allow"}));
        assert_eq!(
            Answer::silent(&EventName::PreToolUse)
                .for_agent(Agent::Gemini)
                .to_json(),
            None
        );
        let ctx = Answer::silent(&EventName::PostToolUseFailure)
            .with_context("c")
            .for_agent(Agent::Gemini);
        assert_eq!(
            ctx.to_json().unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "c"}})
        );
    }
}
