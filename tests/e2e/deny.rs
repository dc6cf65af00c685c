//! Issue 30: how a deny reaches the model. oath denies with the JSON decision and exit 0,
//! which the client takes for a hook that worked and decided (exit 2 is a failing hook to it:
//! an `error` outcome, 2.1.332 logs `[ERROR] … status code 2`, and without JSON the model is
//! handed the hook's command line). The findings behind this are in ADR 0002.

use oath::classify::Risk;

use crate::engine::Engine;
use crate::harness::{Opts, Project};
use crate::server::{Script, bash};

/// The label 2.1.332 puts before the reason of every hook deny, whatever the hook's answer
/// form (ADR 0002); 2.1.197 shows a JSON deny's reason bare.
const CLIENT_DENY_LABEL: &str = "PreToolUse:Bash hook error: ";

/// The last client version known to show a JSON deny's reason bare.
const LAST_BARE_DENY_CLIENT: (u32, u32, u32) = (2, 1, 197);

#[test]
fn a_deny_reaches_the_model_as_a_policy_decision() {
    let Some(p) = Project::new() else { return };
    let victim = p.home().join("important");
    std::fs::create_dir_all(&victim).expect("create victim dir");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("write victim");
    let command = format!("rm -rf {}", victim.display());
    let class = Engine::new(&p).classify_bash(&command);
    assert_eq!(class.risk, Risk::Critical, "{command}: {class:?}");

    // Bash allowed by Claude Code's own rules: only oath stops the call.
    let run = p.run(
        "Clean up",
        Script::new().call(bash(&command)).say("Stopped."),
        &Opts::allow("Bash").with_debug_log(),
    );
    let id = run.id(0);

    // The tool did not run.
    assert!(
        victim.join("keep.txt").is_file(),
        "the denied command ran; audit:\n{}",
        run.audit_text()
    );
    assert!(run.denied(id), "not in permission_denials: {}", run.result);
    assert!(run.tool_outcomes(id).is_empty(), "{}", run.audit_text());
    let refusal = run.refusal(id);
    assert_eq!(refusal["outcome"], "denied", "{refusal}");
    assert_eq!(refusal["refused_by"], "oath", "{refusal}");
    let pre = run.pre(id);
    assert_eq!(pre["decision"], "deny", "{pre}");
    let reason = pre["reason"].as_str().expect("a deny has a reason");
    assert!(reason.starts_with("oath deny: "), "{reason}");

    // What the model is told: oath's reason, whole, and nothing of a failing hook (no
    // command line, no stderr copy). A client that labels every hook deny may put its label
    // first; one that does not, as the last pin did, shows the reason alone.
    let result = run.tool_result(id);
    assert_eq!(result["is_error"], true, "{result}");
    let text = run.tool_result_text(id);
    let version = p.client_version();
    let bare = text.strip_prefix(CLIENT_DENY_LABEL).unwrap_or(&text);
    assert_eq!(
        bare.trim_end(),
        reason,
        "the model was told something else than oath's reason (client {version:?})"
    );
    if version <= LAST_BARE_DENY_CLIENT {
        assert!(
            !text.contains("hook error"),
            "client {version:?} labels oath's deny a hook error: {text:?}"
        );
    }

    // What the client makes of the hook: a success that decided, not an error.
    let log = &run.debug_log;
    let pre_lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("Hook PreToolUse:Bash (PreToolUse)"))
        .collect();
    assert!(
        pre_lines.iter().any(|l| l.contains("(PreToolUse) success")),
        "no successful PreToolUse hook in the client's debug log: {pre_lines:#?}"
    );
    for l in &pre_lines {
        assert!(
            !l.contains("(PreToolUse) error") && !l.contains("status code"),
            "the client took oath's deny for a failing hook: {l}"
        );
    }
    assert!(
        log.lines()
            .any(|l| l.contains("returned permissionDecision: deny")),
        "the client did not read oath's decision; PreToolUse lines: {pre_lines:#?}"
    );
}

/// Issue 42: the model writes a script with the Write tool, then runs it. oath reads the
/// script when the run is decided, so the folder it would wipe survives and the model is
/// told which line of which file is refused.
#[test]
fn a_script_the_model_wrote_is_read_before_it_runs() {
    let Some(p) = Project::new() else { return };
    let victim = p.home().join("precious");
    std::fs::create_dir_all(&victim).expect("create victim dir");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("write victim");
    let script = p.root().join("scripts/clean.sh");
    let body = format!("#!/bin/sh\nrm -rf {}\n", victim.display());
    let run = p.run(
        "Clean up",
        Script::new()
            .call(crate::server::tool(
                "Write",
                serde_json::json!({"file_path": script, "content": body}),
            ))
            .call(bash("bash scripts/clean.sh"))
            .say("Stopped."),
        &Opts::allow("Bash,Write"),
    );
    assert!(
        script.is_file(),
        "the Write ran; audit:\n{}",
        run.audit_text()
    );
    assert!(
        victim.join("keep.txt").is_file(),
        "the script ran; audit:\n{}",
        run.audit_text()
    );
    let id = run.id(1);
    assert!(run.denied(id), "not in permission_denials: {}", run.result);
    let text = run.tool_result_text(id);
    assert!(
        text.contains("scripts/clean.sh runs `rm -rf"),
        "the model is not told which script line is refused: {text}"
    );
}
