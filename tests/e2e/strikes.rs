//! Issue 6: the 3-strike loop breaker in a real client. The same failing Bash three times:
//! the model is told after the second and the third failure (hook `additionalContext`, seen
//! in the requests it receives), and a fourth identical call does not run.

use crate::harness::{Opts, Project};
use crate::server::{Script, bash};

#[test]
fn third_identical_failure_escalates_and_a_fourth_call_does_not_run() {
    let Some(p) = Project::new() else { return };
    // Each run leaves a line, so the file counts the attempts that really ran.
    let command = "echo attempt >> attempts.log; exit 3";
    let mut script = Script::new();
    for _ in 0..4 {
        script = script.call(bash(command));
    }
    // Bash is allowed by Claude Code's own rules: only oath can stop the fourth call.
    let run = p.run("Build it", script.say("Giving up."), &Opts::allow("Bash"));
    let ids: Vec<&str> = (0..4).map(|n| run.id(n)).collect();

    let attempts = p.read("attempts.log").unwrap_or_default();
    assert_eq!(
        attempts.lines().count(),
        3,
        "attempts that ran: {attempts:?}; audit:\n{}",
        run.audit_text()
    );
    for id in &ids[..3] {
        let o = run.records_for("outcome", id);
        assert_eq!(o.len(), 1, "{}", run.audit_text());
        assert_eq!(o[0]["outcome"], "failure", "{}", o[0]);
        assert_eq!(o[0]["hook"], "PostToolUseFailure", "{}", o[0]);
    }

    // What the model received right after each failure.
    let told = |n: usize| run.context_after(ids[n]).join("\n");
    assert!(
        !told(0).contains("3-strike"),
        "strike text after the first failure: {}",
        told(0)
    );
    let second = told(1);
    let third = told(2);
    assert!(
        second.contains("3-strike") && second.contains("2 times"),
        "no strike-2 text after the second failure: {second:?}"
    );
    assert!(
        third.contains("3-strike") && third.contains("3 times"),
        "no strike-3 text after the third failure: {third:?}"
    );
    assert!(
        third.to_lowercase().contains("ask the user"),
        "strike 3 does not hand over to the user: {third:?}"
    );
    assert_ne!(second, third);

    // The fourth identical call: oath does not let it run (ask, which -p mode refuses).
    let fourth = ids[3];
    let pre = run.pre(fourth);
    assert!(
        pre["decision"] == "ask" || pre["decision"] == "deny",
        "fourth call: {pre}"
    );
    assert!(
        pre["reason"].as_str().unwrap_or("").contains("3-strike"),
        "{pre}"
    );
    assert!(run.denied(fourth), "{}", run.result);
    assert!(run.tool_outcomes(fourth).is_empty(), "{}", run.audit_text());
    let refusal = run.refusal(fourth);
    let by = if pre["decision"] == "deny" {
        "oath"
    } else {
        "client"
    };
    assert_eq!(refusal["refused_by"], by, "{refusal}");
}
