//! Issue 41, item 3 ("trust is earned where it is spent"), through the binary: only work oath
//! understands earns trust.

use std::fs;

use serde_json::{Value, json};

use crate::support::{TestEnv, assert_valid_answer};

const SESSION: &str = "levels";

/// Sends PreToolUse for a Bash command and returns its `pre` audit record.
fn pre(env: &TestEnv, id: &str, command: &str) -> Value {
    let run = env.hook(&json!({
        "hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": env.project(),
        "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command},
    }));
    assert_valid_answer(&run, Some("PreToolUse"), command);
    let rec = last_record(env);
    assert_eq!(
        (rec["kind"].as_str(), rec["tool_use_id"].as_str()),
        (Some("pre"), Some(id))
    );
    rec
}

/// Sends the outcome of a Bash command (PostToolUse, or PostToolUseFailure) and returns its
/// `outcome` audit record.
fn outcome(env: &TestEnv, id: &str, command: &str, success: bool) -> Value {
    let mut p = json!({
        "session_id": SESSION, "cwd": env.project(), "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command},
    });
    if success {
        p["hook_event_name"] = json!("PostToolUse");
        p["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    } else {
        p["hook_event_name"] = json!("PostToolUseFailure");
        p["error"] = json!("Exit code 1");
        p["is_interrupt"] = json!(false);
    }
    let event = p["hook_event_name"].as_str().map(str::to_owned);
    let run = env.hook(&p);
    assert_valid_answer(&run, event.as_deref(), command);
    assert!(run.stderr.is_empty(), "{command}: {}", run.stderr);
    let rec = last_record(env);
    assert_eq!(
        (rec["kind"].as_str(), rec["tool_use_id"].as_str()),
        (Some("outcome"), Some(id))
    );
    rec
}

/// Runs a call through PreToolUse and a successful PostToolUse, as a client that ran it.
fn succeed(env: &TestEnv, id: &str, command: &str) -> (Value, Value) {
    (pre(env, id, command), outcome(env, id, command, true))
}

fn last_record(env: &TestEnv) -> Value {
    let text = fs::read_to_string(env.audit_file(SESSION)).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn programs_no_pack_describes_earn_nothing_and_lose_nothing() {
    let env = TestEnv::new();
    for i in 0..20 {
        let (p, o) = succeed(&env, &format!("toolu_f{i}"), "frobnicate --all");
        assert_eq!(p["domain"], "unknown", "{p}");
        assert_ne!(p["decision"], "allow", "{p}");
        assert_eq!(o["trust_applied"], false, "{o}");
        assert_eq!(o["trust_skipped"], "no pack describes the program", "{o}");
        assert!(
            o["trust_score_before"].is_null() && o.get("trust_level").is_none(),
            "{o}"
        );
    }
    // Twenty successes later another program no pack describes is still not allowed.
    let p = pre(&env, "toolu_other", "quuxify --now");
    assert_eq!(
        (p["domain"].as_str(), p["trust_score_before"].as_f64()),
        (Some("unknown"), Some(0.3))
    );
    assert_ne!(p["decision"], "allow", "{p}");
    // Nor does a failure of one count.
    pre(&env, "toolu_ff", "frobnicate --all");
    let o = outcome(&env, "toolu_ff", "frobnicate --all", false);
    assert_eq!(
        (o["trust_applied"].as_bool(), o["trust_skipped"].as_str()),
        (Some(false), Some("no pack describes the program"))
    );
    assert!(!env.domain_file("unknown").exists());
    // What oath does not understand earns nothing either.
    let (p, o) = succeed(&env, "toolu_computed", "$TOOL build");
    assert_eq!(p["risk_kind"], "not_understood", "{p}");
    assert_eq!(
        (o["trust_applied"].as_bool(), o["trust_skipped"].as_str()),
        (Some(false), Some("not understood")),
        "{o}"
    );
    assert!(
        !env.domain_file(p["domain"].as_str().unwrap()).exists(),
        "{p}"
    );
}
