//! Calls that never ran (issue 30): real 2.1.332 sessions replayed through the binary. An
//! ask the client refused in `-p` mode (it sends PostToolBatch, no PermissionDenied) and a
//! call its auto-mode classifier refused (PermissionDenied) each get an outcome record that
//! `oath audit` shows, and neither moves trust.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{TestEnv, assert_valid_answer, fixtures_dir};

fn session(name: &str) -> PathBuf {
    fixtures_dir().join("claude-code-2.1.332").join(name)
}

/// Replays every payload of a captured session, in order, through `oath hook`.
fn replay(env: &TestEnv, dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "result.json"))
        .collect();
    files.sort();
    let mut payloads = Vec::new();
    for file in files {
        let payload: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let event = payload["hook_event_name"].as_str().unwrap().to_owned();
        let run = env.hook(&payload);
        assert_valid_answer(&run, Some(&event), &file.display().to_string());
        payloads.push(payload);
    }
    payloads
}

/// Returns the `oath audit --json` entry of a call.
fn audit_entry(env: &TestEnv, tool_use_id: &str) -> Value {
    let out = env.oath().args(["audit", "--json"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["tool_use_id"] == tool_use_id)
        .unwrap_or_else(|| panic!("no audit entry for {tool_use_id}"))
}

/// Returns every file under the project's trust folder with its bytes.
fn trust_files(env: &TestEnv) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = env.state_dir().join("trust");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| (e.path(), std::fs::read(e.path()).unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn call_id(payloads: &[Value], event: &str) -> String {
    payloads
        .iter()
        .find(|p| p["hook_event_name"] == event)
        .and_then(|p| p["tool_use_id"].as_str())
        .unwrap_or_else(|| panic!("no {event} with a tool_use_id"))
        .to_owned()
}

#[test]
fn an_ask_the_client_refused_in_print_mode_is_recorded_and_shown() {
    let env = TestEnv::new();
    let payloads = replay(&env, &session("session-g-oath-ask-refused"));
    let id = call_id(&payloads, "PreToolUse");
    let entry = audit_entry(&env, &id);
    assert_eq!(entry["pre"]["decision"], "ask", "{entry}");
    let outcomes = entry["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 1, "{entry}");
    let o = &outcomes[0];
    assert_eq!(o["outcome"], "refused", "{o}");
    assert_eq!(o["refused_by"], "client", "{o}");
    assert_eq!(o["hook"], "PostToolBatch", "{o}");
    assert_eq!(o["trust_applied"], false, "{o}");
    assert!(
        o["reason"].as_str().unwrap_or("").starts_with("oath ask: "),
        "the client's text is kept: {o}"
    );

    // The table says so instead of `pending`.
    let out = env.oath().args(["audit"]).output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    let row = table
        .lines()
        .find(|l| l.contains("git reset --hard"))
        .unwrap_or_else(|| panic!("no row for the call:\n{table}"));
    assert!(row.contains("refused by the client"), "{row}");
    assert!(!row.contains("pending"), "{row}");
}

#[test]
fn a_call_the_auto_mode_classifier_refused_is_recorded_once_with_its_reason() {
    let env = TestEnv::new();
    let payloads = replay(&env, &session("session-f-auto-mode-denied"));
    let id = call_id(&payloads, "PermissionDenied");
    let entry = audit_entry(&env, &id);
    let outcomes = entry["outcomes"].as_array().unwrap();
    // PermissionDenied wrote it; the PostToolBatch after it did not write a second one.
    assert_eq!(outcomes.len(), 1, "{entry}");
    let o = &outcomes[0];
    assert_eq!(o["outcome"], "refused", "{o}");
    assert_eq!(o["refused_by"], "client", "{o}");
    assert_eq!(o["hook"], "PermissionDenied", "{o}");
    assert_eq!(o["reason"], "Classifier unavailable", "{o}");
    assert_eq!(o["trust_applied"], false, "{o}");
    assert_eq!(o["tool_name"], "Bash", "{o}");
}

/// The batch rule: a call that ran (its PostToolUse came) gets no refusal; a call oath
/// denied is `denied by oath`; and no refusal moves trust.
#[test]
fn refusals_leave_trust_alone_and_calls_that_ran_alone() {
    let env = TestEnv::new();
    let pre = |id: &str, command: &str| {
        json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
               "tool_use_id": id, "tool_input": {"command": command}})
    };
    // Trust first moves by a success, so that there is a trust file to compare.
    assert!(env.hook(&pre("ran", "ls")).code == Some(0));
    env.hook(&json!({"hook_event_name": "PostToolUse", "session_id": "s",
        "tool_name": "Bash", "tool_use_id": "ran", "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": false}}));
    assert_eq!(
        env.hook(&pre("asked", "git push --force origin main"))
            .decision()
            .as_deref(),
        Some("ask")
    );
    assert_eq!(
        env.hook(&pre("denied", "rm -rf ~")).decision().as_deref(),
        Some("deny")
    );
    let before = trust_files(&env);
    assert!(!before.is_empty(), "no trust file after a success");
    let batch = json!({"hook_event_name": "PostToolBatch", "session_id": "s", "tool_calls": [
        {"tool_name": "Bash", "tool_use_id": "ran", "tool_input": {"command": "ls"},
         "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": false}},
        {"tool_name": "Bash", "tool_use_id": "asked", "tool_input": {"command": "git push --force origin main"},
         "tool_response": "Claude requested permissions to use Bash, but you haven't granted it yet."},
        {"tool_name": "Bash", "tool_use_id": "denied", "tool_input": {"command": "rm -rf ~"},
         "tool_response": "oath deny: …"},
        {"tool_name": "Bash", "tool_use_id": "unseen", "tool_input": {"command": "ls"},
         "tool_response": "never seen by oath"}
    ]});
    let run = env.hook(&batch);
    assert_valid_answer(&run, Some("PostToolBatch"), "batch");
    // A second batch event for the same calls (a double fire) adds nothing.
    env.hook(&batch);
    assert_eq!(trust_files(&env), before, "a refusal moved trust");

    let ran = audit_entry(&env, "ran");
    assert_eq!(ran["outcomes"].as_array().unwrap().len(), 1, "{ran}");
    assert_eq!(ran["outcomes"][0]["outcome"], "success", "{ran}");
    let asked = audit_entry(&env, "asked");
    assert_eq!(asked["outcomes"].as_array().unwrap().len(), 1, "{asked}");
    assert_eq!(asked["outcomes"][0]["outcome"], "refused", "{asked}");
    let denied = audit_entry(&env, "denied");
    assert_eq!(denied["outcomes"].as_array().unwrap().len(), 1, "{denied}");
    assert_eq!(denied["outcomes"][0]["outcome"], "denied", "{denied}");
    assert_eq!(denied["outcomes"][0]["refused_by"], "oath", "{denied}");
    let audit = std::fs::read_to_string(env.audit_file("s")).unwrap();
    assert!(
        !audit.contains("\"unseen\""),
        "a call oath never saw got a record"
    );
}
