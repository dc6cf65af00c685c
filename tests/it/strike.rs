//! The 3-strike protocol through the built binary: parallel failures, strike texts, the
//! PreToolUse `ask`, the SessionStart summary and `oath errors`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::TestEnv;

fn failure(command: &str, error: &str, id: &str) -> Value {
    json!({
        "hook_event_name": "PostToolUseFailure",
        "session_id": "sess-1",
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": ".",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the tests"},
        "tool_use_id": id,
        "error": error,
    })
}

fn pre(command: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "sess-1",
        "cwd": ".",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_pre",
    })
}

/// Runs `oath hook` on a payload; returns the parsed stdout (Null when silent).
fn hook(env: &TestEnv, payload: &Value) -> Value {
    let out = env
        .oath()
        .arg("hook")
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(2)),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    if stdout.trim().is_empty() {
        Value::Null
    } else {
        assert_eq!(
            stdout.trim().lines().count(),
            1,
            "one JSON object: {stdout}"
        );
        serde_json::from_str(&stdout).unwrap()
    }
}

fn errors_json(env: &TestEnv) -> Value {
    let path = env.project().join(".plan/@no-git/errors.json");
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn context(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn twenty_parallel_failures_keep_twenty_attempts() {
    let env = TestEnv::new();
    let bin = assert_cmd::cargo::cargo_bin("oath");
    let children: Vec<_> = (0..20)
        .map(|n| {
            let mut child = Command::new(&bin)
                .arg("hook")
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", env.home())
                .env("OATH_HOME", env.oath_home())
                .env("CLAUDE_PROJECT_DIR", env.project())
                .current_dir(env.project())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let payload = failure(
                "./step.sh",
                &format!("Exit code 1\nstep broke after {n}ms (pid {})", 4000 + n),
                &format!("toolu_{n:02}"),
            );
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let log = errors_json(&env);
    let attempts = log["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 20);
    let mut ids: Vec<&str> = attempts
        .iter()
        .map(|a| a["tool_use_id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20, "every attempt once");
    // Twenty failures of one error hash (times and pids are normalised away).
    assert!(attempts.iter().all(|a| a["hash"] == attempts[0]["hash"]));
    let strikes: std::collections::BTreeSet<u64> = attempts
        .iter()
        .map(|a| a["strike"].as_u64().unwrap())
        .collect();
    assert_eq!(strikes, (1..=20).collect(), "no count was lost or repeated");
    assert_eq!(log["strikeCount"], 20);
    assert_eq!(log["lastErrorHash"], attempts[0]["hash"]);
    let index: Value = serde_json::from_slice(
        &std::fs::read(env.project().join(".plan/@no-git/strikes.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["seq"], log["seq"]);
}

#[test]
fn three_strikes_then_ask_then_reset_after_approval() {
    let env = TestEnv::new();
    let cmd = "npm test";
    let err = |ms: u32| {
        format!(
            "Exit code 1\n\u{1b}[31mFAIL\u{1b}[0m src/app.test.js ({ms} ms)\n  expected 3 to be 4 at src/app.test.js:{ms}:7"
        )
    };

    assert_eq!(hook(&env, &failure(cmd, &err(12), "toolu_1")), Value::Null);
    assert!(!hook(&env, &pre(cmd)).to_string().contains("3-strike"));

    let second = hook(&env, &failure(cmd, &err(31), "toolu_2"));
    assert_eq!(
        second["hookSpecificOutput"]["hookEventName"],
        "PostToolUseFailure"
    );
    let c2 = context(&second);
    assert!(
        c2.starts_with("oath 3-strike: this Bash error (hash ")
            && c2.contains("has now occurred 2 times in a row: Exit code 1: FAIL src/app.test.js"),
        "{c2}"
    );
    assert!(c2.contains("different approach"), "{c2}");
    assert!(second.get("systemMessage").is_none());
    assert!(!hook(&env, &pre(cmd)).to_string().contains("3-strike"));

    let third = hook(&env, &failure(cmd, &err(7), "toolu_3"));
    let c3 = context(&third);
    assert!(c3.contains("has now occurred 3 times"), "{c3}");
    assert!(c3.contains("Stop and ask the user how to proceed"), "{c3}");
    let hash = errors_json(&env)["lastErrorHash"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(c3.contains(&hash));
    let msg = third["systemMessage"].as_str().unwrap();
    assert!(msg.contains(&hash) && msg.contains("3 times"), "{msg}");

    let asked = hook(&env, &pre(cmd));
    let out = &asked["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    assert_eq!(out["permissionDecision"], "ask", "{asked}");
    let reason = out["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("3-strike") && reason.contains(&hash),
        "{reason}"
    );
    // Variants of the same intent are asked too: the loop stops, not only the exact call.
    for variant in [
        "npm test -- --silent",
        "cd . && npm test",
        "npm test 2>&1 | tail -5",
    ] {
        let asked = hook(&env, &pre(variant));
        assert_eq!(
            asked["hookSpecificOutput"]["permissionDecision"], "ask",
            "{variant}: {asked}"
        );
    }
    // Another intent is not held up by this error.
    assert!(
        !hook(&env, &pre("npm run lint"))
            .to_string()
            .contains("3-strike")
    );
    // Nor is another session.
    let mut other = pre(cmd);
    other["session_id"] = json!("sess-2");
    assert!(!hook(&env, &other).to_string().contains("3-strike"));

    // The user approved; a variant of it now succeeds.
    let success = json!({
        "hook_event_name": "PostToolUse",
        "session_id": "sess-1",
        "cwd": ".",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test -- --runInBand", "description": "Run the tests again"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": false},
        "tool_use_id": "toolu_4",
    });
    hook(&env, &success);
    assert!(!hook(&env, &pre(cmd)).to_string().contains("3-strike"));
    assert_eq!(
        hook(&env, &failure(cmd, &err(5), "toolu_5")),
        Value::Null,
        "strike 1 again"
    );
}

/// A Write's long content is known by its head, size and digest: the intent it escalates is
/// the file's, whatever the content and the tool.
#[test]
fn a_long_write_that_failed_three_times_is_asked_about() {
    let env = TestEnv::new();
    let content = |tag: &str| {
        format!(
            "{tag}\n{}",
            "fn main() {\n\tprintln!(\"x\");\n}\n".repeat(40_000)
        )
    };
    let input = |tag: &str| json!({"file_path": "src/big.rs", "content": content(tag)});
    let failure = |id: &str| {
        json!({
            "hook_event_name": "PostToolUseFailure",
            "session_id": "sess-1",
            "cwd": ".",
            "tool_name": "Write",
            "tool_input": input("a"),
            "tool_use_id": id,
            "error": "EACCES: permission denied, open 'src/big.rs'",
        })
    };
    let pre = |tag: &str| {
        json!({
            "session_id": "sess-1",
            "cwd": ".",
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": input(tag),
            "tool_use_id": "toolu_pre",
        })
    };
    for id in ["toolu_1", "toolu_2", "toolu_3"] {
        hook(&env, &failure(id));
    }
    let asked = hook(&env, &pre("a"));
    let out = &asked["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "ask", "{asked}");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("3-strike"),
        "{asked}"
    );
    assert!(
        hook(&env, &pre("b")).to_string().contains("3-strike"),
        "another content of the same file is the same intent"
    );
    let edit = json!({"session_id": "sess-1", "cwd": ".", "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_use_id": "toolu_e",
        "tool_input": {"file_path": "src/big.rs", "old_string": "x", "new_string": "y"}});
    assert!(hook(&env, &edit).to_string().contains("3-strike"), "{edit}");
    let mut other = edit.clone();
    other["tool_input"]["file_path"] = json!("src/other.rs");
    assert!(!hook(&env, &other).to_string().contains("3-strike"));
}

/// One failure in a parallel batch cancels its siblings; the cancelled calls are not errors.
#[test]
fn sibling_cascades_are_not_strikes() {
    let env = TestEnv::new();
    for (n, text) in [
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        "Sibling tool call errored",
        "<tool_use_error>Cancelled: parallel tool call Bash(npm test) errored</tool_use_error>",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(
            hook(&env, &failure("ls src", text, &format!("toolu_{n}"))),
            Value::Null
        );
    }
    assert!(!env.project().join(".plan/@no-git/errors.json").exists());
}

#[test]
fn interrupts_are_not_strikes() {
    let env = TestEnv::new();
    for n in 0..3 {
        let mut p = failure("sleep 100", "Interrupted by user", &format!("toolu_{n}"));
        p["is_interrupt"] = json!(true);
        assert_eq!(hook(&env, &p), Value::Null);
    }
    assert!(!env.project().join(".plan/@no-git/errors.json").exists());
}

#[test]
fn session_start_reminds_of_unresolved_errors() {
    let env = TestEnv::new();
    let start = |source: &str| json!({"hook_event_name": "SessionStart", "session_id": "sess-2", "cwd": ".", "source": source});
    assert_eq!(hook(&env, &start("startup")), Value::Null);
    for n in 0..3 {
        hook(
            &env,
            &failure(
                "cargo build",
                "error[E0308]: mismatched types",
                &format!("toolu_{n}"),
            ),
        );
    }
    hook(
        &env,
        &failure(
            "ls nope",
            "Exit code 2\nls: cannot access 'nope': No such file or directory",
            "toolu_9",
        ),
    );
    for source in ["startup", "resume", "compact"] {
        let answer = hook(&env, &start(source));
        assert_eq!(
            answer["hookSpecificOutput"]["hookEventName"],
            "SessionStart"
        );
        let text = context(&answer);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("2 unresolved tool errors"), "{text}");
        assert!(
            lines[1].contains("3 times") && lines[1].contains("error[E0308]"),
            "{text}"
        );
        assert!(
            lines[2].contains("1 time") && lines[2].contains("No such file"),
            "{text}"
        );
        assert!(lines.len() <= 8, "{text}");
    }
    env.oath().args(["errors", "reset"]).assert().success();
    assert_eq!(hook(&env, &start("resume")), Value::Null);
}

#[test]
fn errors_cli_lists_shows_resolves_and_resets() {
    let env = TestEnv::new();
    let empty = env.oath().args(["errors", "list"]).output().unwrap();
    assert!(empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stdout).contains("no errors recorded"));
    for n in 0..3 {
        hook(
            &env,
            &failure("make", "make: *** [all] Error 2", &format!("toolu_m{n}")),
        );
    }
    hook(
        &env,
        &failure("true x", "Exit code 1\nweird failure", "toolu_t"),
    );
    let out = env
        .oath()
        .args(["errors", "list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = list["errors"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["count"], 3);
    assert_eq!(items[0]["escalated"], true);
    assert_eq!(items[0]["status"], "unresolved");
    assert_eq!(items[0]["tool"], "Bash");
    assert_eq!(items[0]["error"], "make: *** [all] Error 2");
    assert!(items[0]["last_seen"].as_str().unwrap().ends_with('Z'));
    let hash = items[0]["hash"].as_str().unwrap().to_owned();

    let text = env.oath().args(["errors", "list"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&hash) && text.contains("escalated"), "{text}");

    let shown = env
        .oath()
        .args(["errors", "show", &hash[..5]])
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(
        shown.contains("strike count 3") && shown.contains("input: make"),
        "{shown}"
    );

    env.oath()
        .args(["errors", "show", "ffffffff"])
        .assert()
        .code(1);

    env.oath()
        .args(["errors", "resolve", &hash])
        .assert()
        .success();
    assert!(!hook(&env, &pre("make")).to_string().contains("3-strike"));
    let log = errors_json(&env);
    assert!(
        log["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["hash"] == json!(hash))
            .all(|a| a["status"] == "resolved" && a["resolution"] == "user")
    );

    env.oath().args(["errors", "reset"]).assert().success();
    let log = errors_json(&env);
    assert_eq!(log["strikeCount"], 0);
    assert_eq!(log["lastErrorHash"], "");
    assert_eq!(
        log["attempts"].as_array().unwrap().len(),
        4,
        "history is kept"
    );
    let index: Value = serde_json::from_slice(
        &std::fs::read(env.project().join(".plan/@no-git/strikes.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["hashes"], json!({}));
}
