//! Issue 31: the Codex CLI and Gemini CLI harness proved with a stub hook (a shell script that
//! logs every payload and denies one marker command), before oath takes its place: an
//! ordinary command runs and both tool events reach the hook, a denied command never runs and
//! the model is told the reason, an edit reaches the hook with its file path.

use crate::agent_script::{Script, shell, write_file};
use crate::agents::{Agent, AgentProject, Run};

/// The text that makes the stub deny a pre-tool call.
const MARKER: &str = "oath-e2e-deny-marker";

/// The reason the stub gives.
const REASON: &str = "oath-e2e stub: this command is refused";

fn project(agent: Agent) -> Option<AgentProject> {
    AgentProject::with_stub_hook(agent, MARKER, REASON)
}

/// Returns the single hook call of `event` whose tool input holds `needle`.
fn tool_call<'a>(run: &'a Run, event: &str, needle: &str) -> &'a serde_json::Value {
    let found: Vec<_> = run
        .hook_calls_of(event)
        .into_iter()
        .filter(|c| c["tool_input"].to_string().contains(needle))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one {event} call with {needle:?}; {}",
        run.describe()
    );
    found[0]
}

fn ordinary_command_reaches_both_tool_events(agent: Agent) {
    let Some(p) = project(agent) else { return };
    let command = "echo hello > proof.txt";
    let run = p.run(
        "Please run the command.",
        Script::new().call(shell(command)).say("Ran it."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read("proof.txt").as_deref(),
        Some("hello\n"),
        "{}",
        run.describe()
    );

    let pre = tool_call(&run, agent.pre_event(), command);
    let post = tool_call(&run, agent.post_event(), command);
    for call in [pre, post] {
        assert_eq!(call["tool_name"], agent.shell_tool(), "{call}");
        assert_eq!(call["tool_input"]["command"], command, "{call}");
    }
    let events = run.hook_events();
    let at = |e: &str| events.iter().position(|x| *x == e);
    assert!(at(agent.pre_event()) < at(agent.post_event()), "{events:?}");
    assert!(
        post.get("tool_response").is_some(),
        "the post-tool payload has no tool_response: {post}"
    );
    // Every payload names the session; Codex prints the same id as its thread.
    let session = pre["session_id"].as_str().expect("a session id");
    assert!(
        run.hook_calls.iter().all(|c| c["session_id"] == session),
        "{}",
        run.describe()
    );
    if agent == Agent::Codex {
        assert_eq!(run.codex_thread_id().as_deref(), Some(session));
    }
    // The model got the command's result, not a refusal.
    let told = run.tool_output(0);
    assert!(!told.contains(REASON), "{told}");
}

fn denied_command_never_runs_and_the_model_gets_the_reason(agent: Agent) {
    let Some(p) = project(agent) else { return };
    p.write("precious.txt", "keep me\n");
    let command = format!("rm precious.txt # {MARKER}");
    let run = p.run(
        "Please run the command.",
        Script::new().call(shell(&command)).say("Stopped."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read("precious.txt").as_deref(),
        Some("keep me\n"),
        "the denied command ran; {}",
        run.describe()
    );
    tool_call(&run, agent.pre_event(), MARKER);
    assert!(
        run.hook_calls_of(agent.post_event()).is_empty(),
        "a post-tool event fired for a denied call; {}",
        run.describe()
    );
    let told = run.tool_output(0);
    assert!(
        told.contains(REASON),
        "the model was not told the hook's reason: {told:?}"
    );
}

fn edit_reaches_the_hook_with_its_path(agent: Agent) {
    let Some(p) = project(agent) else { return };
    let run = p.run(
        "Please write the file.",
        Script::new()
            .call(write_file("notes/patched.txt", "hello from the model"))
            .say("Wrote it."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read("notes/patched.txt").as_deref().map(str::trim_end),
        Some("hello from the model"),
        "{}",
        run.describe()
    );
    for event in [agent.pre_event(), agent.post_event()] {
        let call = tool_call(&run, event, "notes/patched.txt");
        match agent {
            Agent::Codex => {
                assert_eq!(call["tool_name"], "apply_patch", "{call}");
                let patch = call["tool_input"]["command"].as_str().unwrap_or_default();
                assert!(patch.contains("*** Add File: notes/patched.txt"), "{call}");
            }
            Agent::Gemini => {
                assert_eq!(call["tool_name"], "write_file", "{call}");
                assert_eq!(
                    call["tool_input"]["file_path"], "notes/patched.txt",
                    "{call}"
                );
            }
        }
    }
}

#[test]
fn codex_ordinary_command_reaches_both_tool_events() {
    ordinary_command_reaches_both_tool_events(Agent::Codex);
}

#[test]
fn gemini_ordinary_command_reaches_both_tool_events() {
    ordinary_command_reaches_both_tool_events(Agent::Gemini);
}

#[test]
fn codex_denied_command_never_runs_and_the_model_gets_the_reason() {
    denied_command_never_runs_and_the_model_gets_the_reason(Agent::Codex);
}

#[test]
fn gemini_denied_command_never_runs_and_the_model_gets_the_reason() {
    denied_command_never_runs_and_the_model_gets_the_reason(Agent::Gemini);
}

#[test]
fn codex_apply_patch_reaches_the_hook_with_its_path() {
    edit_reaches_the_hook_with_its_path(Agent::Codex);
}

#[test]
fn gemini_write_file_reaches_the_hook_with_its_path() {
    edit_reaches_the_hook_with_its_path(Agent::Gemini);
}

/// Codex skips a hook the user added until it is trusted: without the per-run bypass the
/// stub never runs and the marker command does. (`oath install --agent codex` has to leave
/// its hook trusted; this is the control run for that.)
#[test]
fn codex_untrusted_hook_is_skipped_without_the_bypass_flag() {
    let Some(mut p) = project(Agent::Codex) else {
        return;
    };
    p.set_bypass_hook_trust(false);
    p.write("precious.txt", "keep me\n");
    let run = p.run(
        "Please run the command.",
        Script::new()
            .call(shell(&format!("rm precious.txt # {MARKER}")))
            .say("Done."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert!(
        run.hook_calls.is_empty(),
        "an untrusted hook ran; {}",
        run.describe()
    );
    assert_eq!(p.read("precious.txt"), None, "{}", run.describe());
}
