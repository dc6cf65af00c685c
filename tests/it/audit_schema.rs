//! `oath audit --schema` (issue 32): the JSON Schema of the audit trail's records, checked
//! against every record real payloads make the hook write (the captured Claude Code 2.1.332
//! sessions, Codex CLI's and Gemini CLI's, observers that run, start in the background and
//! are skipped, an unknown event), so the schema teams ship the trail with cannot drift from
//! what the hook writes.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{TestEnv, fixtures_dir};

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The JSON payloads of a fixture folder, in file-name order.
fn payloads(dir: &Path) -> Vec<Value> {
    files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| serde_json::from_slice::<Value>(&fs::read(&p).unwrap()).ok())
        .filter(|v| v["hook_event_name"].is_string())
        .collect()
}

/// Runs `oath hook` (as `agent`'s hook) with a payload whose `cwd` is the test's project.
fn hook(env: &TestEnv, agent: &str, mut payload: Value) {
    payload["cwd"] = json!(env.project());
    let mut cmd = env.oath();
    cmd.arg("hook");
    if agent != "claude" {
        cmd.args(["--agent", agent]);
    }
    let out = cmd.write_stdin(payload.to_string()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Every property name a schema declares, anywhere in it.
fn declared(schema: &Value, names: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                names.extend(props.keys().cloned());
            }
            map.values().for_each(|v| declared(v, names));
        }
        Value::Array(items) => items.iter().for_each(|v| declared(v, names)),
        _ => {}
    }
}

#[test]
fn every_record_the_hook_writes_matches_the_published_schema() {
    let env = TestEnv::new();
    env.trusted_project_config(
        "postToolUse:\n  commands:\n    - run: echo ran\n      tool: '*'\n    - run: sleep 0\n      tool: '*'\n      async: true\n    - run: exit 3\n      tool: Bash\n      on: failure\n",
    );
    let fixtures = fixtures_dir();
    let mut sessions: Vec<PathBuf> = fs::read_dir(fixtures.join("claude-code-2.1.332"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    sessions.sort();
    for dir in sessions {
        for p in payloads(&dir) {
            hook(&env, "claude", p);
        }
    }
    for (agent, dir) in [("codex", "codex-0.169.0"), ("gemini", "gemini-0.61.0")] {
        for p in payloads(&fixtures.join(dir)) {
            hook(&env, agent, p);
        }
    }
    hook(
        &env,
        "claude",
        json!({"hook_event_name": "SomethingNew", "session_id": "s-new", "extra": {"a": 1}}),
    );
    // The outcome of a program no pack describes: trust skipped, and why.
    for event in ["PreToolUse", "PostToolUse"] {
        hook(
            &env,
            "claude",
            json!({"hook_event_name": event, "session_id": "s-skip", "tool_name": "Bash",
                "tool_use_id": "toolu_skip", "tool_input": {"command": "frobnicate --all"},
                "tool_response": {"stdout": "", "stderr": "", "interrupted": false}}),
        );
    }

    let out = env.oath().args(["audit", "--schema"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let mut names = BTreeSet::new();
    declared(&schema, &mut names);

    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut outcomes = BTreeSet::new();
    let mut outcome_fields = BTreeSet::new();
    let files: Vec<PathBuf> = files_under(&env.oath_home())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("audit")))
        .collect();
    assert!(!files.is_empty(), "no audit file");
    for file in &files {
        for line in fs::read_to_string(file).unwrap().lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&record)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{line}\n{}", errors.join("\n"));
            for key in record.as_object().unwrap().keys() {
                assert!(
                    names.contains(key),
                    "`{key}` is written but not in the schema: {line}"
                );
            }
            let kind = record["kind"].as_str().unwrap().to_owned();
            if kind == "outcome" {
                outcomes.insert(record["outcome"].as_str().unwrap().to_owned());
                outcome_fields.extend(record.as_object().unwrap().keys().cloned());
            }
            *kinds.entry(kind).or_default() += 1;
        }
    }
    let expected = [
        "event",
        "observer",
        "outcome",
        "pre",
        "session_start",
        "unknown_event",
    ];
    assert_eq!(
        kinds.keys().map(String::as_str).collect::<Vec<_>>(),
        expected,
        "{kinds:?}"
    );
    for o in ["success", "failure", "unknown", "refused"] {
        assert!(outcomes.contains(o), "no `{o}` outcome: {outcomes:?}");
    }
    // The level trust was applied at, and why it was not, are written and checked too.
    for field in ["trust_level", "trust_skipped"] {
        assert!(
            outcome_fields.contains(field),
            "no outcome with `{field}`: {outcome_fields:?}"
        );
    }
    eprintln!("audit schema: {kinds:?} (outcomes {outcomes:?}) all valid");

    // Records of the same version written by earlier oath releases (no `risk_kind`, no
    // `agent`) are valid too: readers of a long trail meet them.
    let older = fixtures.join("claude-code-2.1.332-otel/oath-audit-with-prompt-id.jsonl");
    let mut old_records = 0;
    for line in fs::read_to_string(older).unwrap().lines() {
        let mut record: Value = serde_json::from_str(line).unwrap();
        for r in [record.clone(), {
            record.as_object_mut().unwrap().remove("agent");
            record
        }] {
            assert!(validator.is_valid(&r), "an earlier release's record: {r}");
            old_records += 1;
        }
    }
    assert!(old_records >= 4, "{old_records}");

    // A record that breaks the schema is caught: the check is not vacuous.
    let bad = json!({"v": 1, "kind": "pre", "timestamp": "2026-03-01T00:00:00.000Z",
        "decision": "maybe"});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn pre_and_outcome_records_carry_the_prompt_id() {
    let env = TestEnv::new();
    let base = json!({"session_id": "s-p", "prompt_id": "dbbec1ea-7d0d-498d-9d1b-c712ce0445dc",
        "tool_name": "Bash", "tool_use_id": "toolu_p1", "tool_input": {"command": "ls"}});
    let mut pre = base.clone();
    pre["hook_event_name"] = json!("PreToolUse");
    hook(&env, "claude", pre);
    let mut post = base.clone();
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!({"stdout": "a", "stderr": "", "interrupted": false});
    hook(&env, "claude", post);
    let text = fs::read_to_string(env.audit_file("s-p")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let with_id: Vec<&str> = records
        .iter()
        .filter(|r| r["prompt_id"] == base["prompt_id"])
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(with_id, ["pre", "outcome"], "{text}");
}

#[test]
fn a_failure_s_outcome_record_carries_its_3_strike_count() {
    let env = TestEnv::new();
    let mut strikes = Vec::new();
    for n in 1..=3 {
        let id = format!("toolu_s{n}");
        hook(
            &env,
            "claude",
            json!({"hook_event_name": "PostToolUseFailure", "session_id": "s-k",
                "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": "cargo build"},
                "error": "Exit code 101\nerror[E0425]: cannot find value `x` in this scope"}),
        );
        let text = fs::read_to_string(env.audit_file("s-k")).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["tool_use_id"], id.as_str());
        strikes.push((
            last["strike"].as_u64(),
            last["error_hash"].as_str().map(str::len),
        ));
    }
    assert_eq!(
        strikes,
        [(Some(1), Some(8)), (Some(2), Some(8)), (Some(3), Some(8))]
    );
}
