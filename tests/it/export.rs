//! `oath export otlp` against an OTLP/HTTP receiver on loopback ([`otlp_receiver`]): the
//! records decode strictly with the official definitions and follow Claude Code's own
//! conventions (captured from Claude Code 2.1.332: `tests/fixtures/claude-code-2.1.332-otel/`),
//! and the cursors make the export at-least-once across refusals, 500s, kills and
//! concurrent runs.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::otlp_receiver::{Flat, Mode, Receiver, flatten, refused_base};
use crate::support::{TestEnv, fixtures_dir, oath_bin};

fn otel_dir() -> PathBuf {
    fixtures_dir().join("claude-code-2.1.332-otel")
}

/// `oath export otlp ARGS` in the test's environment, sending to `base` with `protocol`.
fn export_cmd(env: &TestEnv, base: &str, protocol: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(oath_bin());
    env.apply_env(&mut cmd);
    cmd.args(["export", "otlp"])
        .args(args)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", base)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "3000")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn export(env: &TestEnv, base: &str, protocol: &str) -> Output {
    export_cmd(env, base, protocol, &[]).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Claude Code's captured `tool_decision`/`tool_result` records, each with the PreToolUse
/// hook input of the same call.
fn captured() -> Vec<Value> {
    std::fs::read_to_string(otel_dir().join("cc-tool-events-flat.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Claude Code's own log records, from its captured requests (decoded with the definitions,
/// leniently: it writes 64-bit integers as JSON numbers).
fn claude_code_records() -> Vec<Flat> {
    let text = std::fs::read_to_string(otel_dir().join("cc-2.1.332-otlp-http-json-requests.jsonl"))
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["path"] == "/v1/logs")
        .flat_map(|r| flatten(&serde_json::from_value(r["body"].clone()).unwrap()))
        .collect()
}

/// Runs a session's hooks: SessionStart, Claude Code's captured PreToolUse inputs (with this
/// project as `cwd`), PostToolUse for the calls oath did not deny, and Stop.
fn seed(env: &TestEnv) {
    let cwd = env.project().display().to_string();
    let mut session = String::new();
    let mut seen = BTreeSet::new();
    for c in captured() {
        let mut input = c["hook_stdin_same_tool_use_id"].clone();
        input["cwd"] = json!(cwd);
        session = input["session_id"].as_str().unwrap().to_owned();
        if !seen.insert(input["tool_use_id"].to_string()) {
            continue;
        }
        if seen.len() == 1 {
            env.hook(
                &json!({"session_id": session, "hook_event_name": "SessionStart",
                             "cwd": cwd, "source": "startup"}),
            );
        }
        let run = env.hook(&input);
        if run.decision().as_deref() != Some("deny") {
            let mut post = input.clone();
            post["hook_event_name"] = json!("PostToolUse");
            post["tool_response"] = json!({"stdout": "ok"});
            post["duration_ms"] = json!(21);
            env.hook(&post);
        }
    }
    env.hook(&json!({"session_id": session, "hook_event_name": "Stop", "cwd": cwd}));
}

/// Every audit line of the project's trail (non-blank), oldest file first, as sent.
fn audit_lines(env: &TestEnv) -> Vec<Value> {
    let dir = env.state_dir().join("audit");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// Puts the captured calls' oath records with `prompt_id` (a fixture) in the trail.
fn add_prompt_id_fixture(env: &TestEnv) {
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        otel_dir().join("oath-audit-with-prompt-id.jsonl"),
        dir.join("zz-fixture-with-prompt-id.jsonl"),
    )
    .unwrap();
}

fn ids(records: &[Flat]) -> Vec<String> {
    records
        .iter()
        .map(|r| r.str("oath.record_id").expect("a record id").to_owned())
        .collect()
}

/// The OTLP/JSON type an audit field's value is sent as.
fn json_type(v: &Value) -> Option<&'static str> {
    match v {
        Value::String(_) | Value::Object(_) | Value::Array(_) => Some("stringValue"),
        Value::Bool(_) => Some("boolValue"),
        Value::Number(n) if n.is_f64() => Some("doubleValue"),
        Value::Number(_) => None, // whole numbers: int, or double for fraction fields
        Value::Null => None,
    }
}

#[test]
fn records_decode_strictly_and_follow_claude_codes_conventions_in_json_and_protobuf() {
    // The types Claude Code gives the keys both sides share.
    let cc = claude_code_records();
    let mut cc_types: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in cc
        .iter()
        .filter(|r| r.str("event.name") == Some("tool_decision"))
    {
        for key in [
            "session.id",
            "prompt.id",
            "tool_use_id",
            "tool_name",
            "event.name",
        ] {
            let (t, _) = r
                .attr(key)
                .unwrap_or_else(|| panic!("Claude Code has {key}"));
            cc_types.entry(key).or_default().insert(t);
        }
    }
    assert!(
        cc_types
            .values()
            .all(|t| t.len() == 1 && t.contains("stringValue"))
    );

    for (protocol, content_type) in [
        ("http/json", "application/json"),
        ("http/protobuf", "application/x-protobuf"),
    ] {
        let env = TestEnv::new();
        seed(&env);
        add_prompt_id_fixture(&env);
        let receiver = Receiver::start(Mode::Ok);
        let mut cmd = export_cmd(&env, &receiver.base, protocol, &[]);
        cmd.env(
            "OTEL_RESOURCE_ATTRIBUTES",
            "team=core,deployment.environment=test%20run",
        );
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{protocol}: {}", stderr(&out));
        let logs = receiver.logs();
        assert!(!logs.is_empty());
        for r in &logs {
            assert_eq!(r.header("content-type"), Some(content_type));
        }
        let records = receiver.accepted();
        let audit = audit_lines(&env);
        assert_eq!(
            records.len(),
            audit.len(),
            "{protocol}: one record per audit line"
        );
        assert!(stderr(&out).contains(&format!("{} records sent", audit.len())));
        let unique: BTreeSet<String> = ids(&records).into_iter().collect();
        assert_eq!(unique.len(), records.len(), "{protocol}: ids are unique");

        for (r, a) in records.iter().zip(&audit) {
            let kind = a["kind"].as_str().unwrap();
            let name = format!("oath.{kind}");
            assert_eq!(r.resource("service.name"), Some("oath"));
            assert_eq!(
                r.resource("service.version"),
                Some(env!("CARGO_PKG_VERSION"))
            );
            assert_eq!(r.resource("team"), Some("core"));
            assert_eq!(r.resource("deployment.environment"), Some("test run"));
            assert_eq!(r.scope, "oath");
            assert_eq!(r.event_name, name);
            assert_eq!(r.body.as_deref(), Some(name.as_str()));
            assert_eq!(r.str("event.name"), Some(name.as_str()));
            let at = oath::clock::Timestamp::parse(a["timestamp"].as_str().unwrap()).unwrap();
            assert_eq!(
                i128::from(r.time_unix_nano),
                at.unix_millis() * 1_000_000,
                "the record's time is the audit timestamp"
            );
            // The join keys: Claude Code's names and types, the audit's values.
            for (field, key) in [
                ("session_id", "session.id"),
                ("prompt_id", "prompt.id"),
                ("tool_use_id", "tool_use_id"),
                ("tool_name", "tool_name"),
            ] {
                match a.get(field).and_then(Value::as_str) {
                    Some(v) => {
                        let (t, got) = r.attr(key).unwrap_or_else(|| panic!("{name} {key}"));
                        assert!(cc_types[key].contains(t), "{name} {key}: {t}");
                        assert_eq!(got, v);
                    }
                    None => assert_eq!(r.attr(key), None, "{name} {key}"),
                }
                assert_eq!(r.attr(&format!("oath.{field}")), None);
            }
            // oath's own fields under oath.*, typed as the audit holds them; the tool input
            // only with tool details on.
            let object = a.as_object().unwrap();
            for (field, value) in object {
                if [
                    "v",
                    "kind",
                    "timestamp",
                    "session_id",
                    "prompt_id",
                    "tool_use_id",
                    "tool_name",
                ]
                .contains(&field.as_str())
                {
                    continue;
                }
                let got = r.attr(&format!("oath.{field}"));
                if field == "tool_input" || value.is_null() {
                    assert_eq!(got, None, "{name} {field}");
                    continue;
                }
                let (t, _) = got.unwrap_or_else(|| panic!("{name} oath.{field}"));
                if let Some(expected) = json_type(value) {
                    assert_eq!(t, expected, "{name} oath.{field}");
                } else {
                    assert!(t == "intValue" || t == "doubleValue", "{name} {field}");
                }
            }
            for key in [
                "oath.trust_score_before",
                "oath.trust_score_after",
                "oath.autonomy_score",
            ] {
                if let Some((t, _)) = r.attr(key) {
                    assert_eq!(t, "doubleValue", "{name} {key}: always a double");
                }
            }
            if kind == "pre" {
                for key in [
                    "oath.decision",
                    "oath.domain",
                    "oath.rule",
                    "oath.risk_category",
                ] {
                    assert!(r.str(key).is_some(), "{name} {key}");
                }
            }
        }
        let kinds: BTreeSet<&str> = records.iter().map(|r| r.event_name.as_str()).collect();
        for k in [
            "oath.session_start",
            "oath.pre",
            "oath.outcome",
            "oath.event",
        ] {
            assert!(kinds.contains(k), "{protocol}: {k} in {kinds:?}");
        }
        assert!(
            records.iter().any(|r| r.str("prompt.id").is_some()),
            "{protocol}: a record with prompt_id has prompt.id"
        );
    }
}

#[test]
fn every_oath_decision_joins_a_claude_code_tool_decision() {
    let env = TestEnv::new();
    seed(&env);
    add_prompt_id_fixture(&env);
    let receiver = Receiver::start(Mode::Ok);
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let cc: BTreeMap<String, Value> = captured()
        .into_iter()
        .filter(|c| c["attributes"]["event.name"] == "tool_decision")
        .map(|c| {
            (
                c["attributes"]["tool_use_id"].as_str().unwrap().to_owned(),
                c["attributes"].clone(),
            )
        })
        .collect();
    let decisions: Vec<Flat> = receiver
        .accepted()
        .into_iter()
        .filter(|r| r.event_name == "oath.pre")
        .collect();
    assert_eq!(
        decisions.len(),
        2 * cc.len(),
        "the hooks' and the fixture's"
    );
    let mut with_prompt = 0;
    for d in &decisions {
        let id = d.str("tool_use_id").unwrap();
        let c = cc
            .get(id)
            .unwrap_or_else(|| panic!("{id} joins no tool_decision"));
        assert_eq!(d.str("session.id"), c["session.id"].as_str());
        if let Some(p) = d.str("prompt.id") {
            assert_eq!(Some(p), c["prompt.id"].as_str());
            with_prompt += 1;
        }
        assert_eq!(d.str("tool_name"), c["tool_name"].as_str());
        let decision = d.str("oath.decision").unwrap();
        assert!(
            ["allow", "no_opinion", "ask", "deny"].contains(&decision),
            "{decision}"
        );
    }
    assert!(with_prompt >= cc.len());
}

#[test]
fn a_refused_connection_and_a_500_lose_nothing_and_the_next_run_sends_the_rest() {
    let env = TestEnv::new();
    seed(&env);
    let total = audit_lines(&env).len();

    let refused = export(&env, &refused_base(), "http/json");
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("nothing was lost"));

    let receiver = Receiver::start(Mode::Fail);
    let failed = export(&env, &receiver.base, "http/protobuf");
    assert_eq!(failed.status.code(), Some(1));
    assert!(stderr(&failed).contains("500"), "{}", stderr(&failed));
    let tried: Vec<Flat> = receiver
        .logs()
        .iter()
        .flat_map(|r| flatten(&r.logs()))
        .collect();
    assert_eq!(tried.len(), total);

    receiver.set(Mode::Close);
    assert_eq!(
        export(&env, &receiver.base, "http/json").status.code(),
        Some(1)
    );

    receiver.set(Mode::Ok);
    let ok = export(&env, &receiver.base, "http/json");
    assert!(ok.status.success(), "{}", stderr(&ok));
    let sent = receiver.accepted();
    assert_eq!(sent.len(), total);
    assert_eq!(ids(&sent), ids(&tried), "the same ids on the re-send");

    // Nothing new: nothing sent.
    let before = receiver.requests().len();
    let again = export(&env, &receiver.base, "http/json");
    assert!(again.status.success());
    assert_eq!(receiver.requests().len(), before);
    assert!(stderr(&again).contains("0 records sent"));

    // New records: only those.
    env.hook(
        &json!({"session_id": "second", "hook_event_name": "SessionStart",
                     "cwd": env.project(), "source": "startup"}),
    );
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let sent = receiver.accepted();
    assert_eq!(sent.len(), total + 1);
    assert_eq!(sent.last().unwrap().str("session.id"), Some("second"));
}

#[test]
fn a_killed_run_and_a_hung_collector_lose_nothing() {
    let env = TestEnv::new();
    seed(&env);
    let total = audit_lines(&env).len();
    let receiver = Receiver::start(Mode::Hang);

    // Killed while the collector holds the request.
    let mut child = export_cmd(&env, &receiver.base, "http/json", &[])
        .spawn()
        .unwrap();
    assert!(receiver.wait_for(1, Duration::from_secs(20)));
    child.kill().unwrap();
    child.wait().unwrap();

    // A collector that never answers: the run ends at the timeout, non-zero.
    let start = Instant::now();
    let mut cmd = export_cmd(&env, &receiver.base, "http/json", &[]);
    cmd.env("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "300");
    let hung = cmd.output().unwrap();
    assert_eq!(hung.status.code(), Some(1), "{}", stderr(&hung));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );

    receiver.set(Mode::Ok);
    assert!(export(&env, &receiver.base, "http/json").status.success());
    assert_eq!(receiver.accepted().len(), total);
}

#[test]
fn a_half_written_last_line_waits_and_a_torn_record_is_skipped_and_counted() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let rec = |id: &str| {
        json!({"v": 1, "kind": "pre", "timestamp": "2026-11-25T20:08:11.665Z", "session_id": "s",
               "tool_use_id": id, "tool_name": "Bash", "decision": "allow"})
        .to_string()
    };
    let head = rec("half");
    let cut = &head[..head.len() / 2];
    std::fs::write(&file, format!("{}\n{cut}", rec("a"))).unwrap();
    let receiver = Receiver::start(Mode::Ok);
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let sent = receiver.accepted();
    assert_eq!(sent.len(), 1, "the line without its end waits");

    // Its writer was killed: the next record starts on a line of its own.
    std::fs::write(&file, format!("{}\n{cut}\n{}\n", rec("a"), rec("b"))).unwrap();
    let out = export(&env, &receiver.base, "http/json");
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("1 unreadable line(s) skipped"),
        "{}",
        stderr(&out)
    );
    let got: Vec<String> = receiver
        .accepted()
        .iter()
        .map(|r| r.str("tool_use_id").unwrap().to_owned())
        .collect();
    assert_eq!(got, ["a", "b"]);
}

#[test]
fn a_replaced_or_truncated_file_is_sent_from_its_start() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let rec = |id: &str| {
        format!(
            "{}\n",
            json!({"v": 1, "kind": "event", "timestamp": "2026-11-25T20:08:11.665Z",
                   "session_id": id, "hook_event_name": "Stop"})
        )
    };
    std::fs::write(&file, rec("one") + &rec("two")).unwrap();
    let receiver = Receiver::start(Mode::Ok);
    assert!(export(&env, &receiver.base, "http/json").status.success());
    // Replaced by a shorter file.
    std::fs::write(&file, rec("three")).unwrap();
    let out = export(&env, &receiver.base, "http/json");
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("read from the start"),
        "{}",
        stderr(&out)
    );
    // Replaced by a file as long, with another head.
    std::fs::write(&file, rec("fou") + &rec("fiv")).unwrap();
    std::fs::write(&file, rec("fou") + &rec("fiv") + &rec("six")).unwrap();
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let sessions: Vec<String> = receiver
        .accepted()
        .iter()
        .map(|r| r.str("session.id").unwrap().to_owned())
        .collect();
    assert_eq!(sessions, ["one", "two", "three", "fou", "fiv", "six"]);
}

#[test]
fn concurrent_runs_send_every_record_once() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    let files = crate::support::write_synthetic_audit(&dir, 2500, oath::clock::Timestamp::now());
    assert_eq!(files, 1);
    let total = audit_lines(&env).len();
    let receiver = Receiver::start(Mode::Ok);
    let children: Vec<_> = (0..4)
        .map(|_| {
            export_cmd(&env, &receiver.base, "http/protobuf", &[])
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let sent = ids(&receiver.accepted());
    let unique: BTreeSet<&String> = sent.iter().collect();
    assert_eq!(unique.len(), total, "no record skipped");
    assert_eq!(sent.len(), total, "no batch sent twice");
    assert!(
        receiver.logs().len() >= 3,
        "batches of at most 1,000 records"
    );
}

#[test]
fn an_unapproved_project_file_cannot_choose_where_the_trail_goes() {
    let planted = Receiver::start(Mode::Ok);
    let user = Receiver::start(Mode::Ok);
    let env = TestEnv::new();
    seed(&env);
    let config = env.home().join("oath.yaml");
    std::fs::write(
        &config,
        format!(
            "export:\n  otlp:\n    endpoint: {}\n    protocol: http/json\n    headers:\n      x-team-key: user-secret\n",
            user.base
        ),
    )
    .unwrap();
    std::fs::write(
        env.project().join(".oath.yaml"),
        format!("export:\n  otlp:\n    endpoint: {}\n", planted.base),
    )
    .unwrap();
    // No OTEL_* variables: what a Stop hook gets.
    let run = |env: &TestEnv| {
        let mut cmd = Command::new(oath_bin());
        env.apply_env(&mut cmd);
        cmd.env("OATH_CONFIG", &config)
            .args(["export", "otlp", "--project"])
            .output()
            .unwrap()
    };
    let out = run(&env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        planted.requests().is_empty(),
        "nothing to the planted endpoint"
    );
    assert_eq!(user.accepted().len(), audit_lines(&env).len());
    assert!(
        user.logs()
            .iter()
            .all(|r| r.header("x-team-key") == Some("user-secret"))
    );

    // Approved by the user, the project's file applies.
    let approved = TestEnv::new();
    seed(&approved);
    let yaml = format!("export:\n  otlp:\n    endpoint: {}\n", planted.base);
    std::fs::write(approved.project().join(".oath.yaml"), &yaml).unwrap();
    let mut trust = Command::new(oath_bin());
    approved.apply_env(&mut trust);
    let ok = trust
        .env("OATH_CONFIG", &config)
        .args(["config", "trust"])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(run(&approved).status.success());
    assert_eq!(planted.logs().len(), 1);

    // Even approved, it chooses only where its own trail goes: a run over every project
    // (another project's trail among them) follows the user's settings.
    let other = approved.oath_home().join("projects/other-0000/audit");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("x.jsonl"),
        "{\"v\":1,\"kind\":\"event\",\"timestamp\":\"2026-11-25T20:08:11.665Z\",\"session_id\":\"x\"}\n",
    )
    .unwrap();
    let before = user.accepted().len();
    let mut all = Command::new(oath_bin());
    approved.apply_env(&mut all);
    let out = all
        .env("OATH_CONFIG", &config)
        .args(["export", "otlp"])
        .current_dir(approved.project())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        planted.logs().len(),
        1,
        "nothing more to the project's endpoint"
    );
    assert!(
        user.accepted()[before..]
            .iter()
            .any(|r| r.str("oath.project") == Some("other-0000")),
        "the other project's trail went to the user's collector"
    );
}

#[test]
fn dry_run_prints_the_requests_and_moves_nothing_and_project_limits_the_files() {
    let env = TestEnv::new();
    seed(&env);
    // Another project's trail in the same state root.
    let other = env.oath_home().join("projects/other-0000/audit");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("x.jsonl"),
        "{\"v\":1,\"kind\":\"event\",\"timestamp\":\"2026-11-25T20:08:11.665Z\",\"session_id\":\"x\"}\n",
    )
    .unwrap();
    let total = audit_lines(&env).len();
    let out = export_cmd(
        &env,
        &refused_base(),
        "http/protobuf",
        &["--dry-run", "--project"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: Vec<Flat> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .flat_map(|l| flatten(&crate::otlp_receiver::decode_json(l.as_bytes())))
        .collect();
    assert_eq!(printed.len(), total);
    assert!(
        !env.oath_home().join("export").exists(),
        "no cursor written"
    );

    let receiver = Receiver::start(Mode::Ok);
    assert!(
        export_cmd(&env, &receiver.base, "http/json", &["--project"])
            .output()
            .unwrap()
            .status
            .success()
    );
    assert_eq!(receiver.accepted().len(), total);
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let all = receiver.accepted();
    assert_eq!(all.len(), total + 1, "without --project, every project's");
    assert_eq!(all.last().unwrap().str("oath.project"), Some("other-0000"));
}

#[test]
fn install_export_registers_async_export_handlers_once_and_uninstall_removes_them() {
    let env = TestEnv::new();
    let settings = env.home().join(".claude/settings.json");
    let read =
        || -> Value { serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap() };
    let export_handlers = |v: &Value| -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for (event, groups) in v["hooks"].as_object().unwrap() {
            for g in groups.as_array().unwrap() {
                for h in g["hooks"].as_array().unwrap() {
                    if h["args"] == json!(["export", "otlp", "--project", "--hook"]) {
                        out.push((event.clone(), h.clone()));
                    }
                }
            }
        }
        out
    };
    for _ in 0..2 {
        let out = env.oath().args(["install", "--export"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v = read();
        let handlers = export_handlers(&v);
        let events: Vec<&str> = handlers.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(events, ["Stop", "SessionEnd"], "once each, run after run");
        for (_, h) in &handlers {
            assert_eq!(h["async"], true);
            assert!(h["timeout"].as_u64().unwrap() >= 10);
            let bin = Path::new(h["command"].as_str().unwrap());
            assert!(bin.is_absolute());
        }
        // oath's own hook handler is there too.
        assert!(v["hooks"]["PreToolUse"].to_string().contains("\"hook\""));
    }
    // The handler as registered, with the collector down: the run fails and says so, and
    // exits 0 as a hook must; the same run from a shell exits 1.
    seed(&env);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let (_, handler) = &export_handlers(&read())[0];
    let args: Vec<&str> = handler["args"].as_array().unwrap()[2..]
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let as_hook = export_cmd(&env, &closed, "http/json", &args)
        .current_dir(env.project())
        .output()
        .unwrap();
    assert_eq!(as_hook.status.code(), Some(0), "{}", stderr(&as_hook));
    assert!(
        stderr(&as_hook).contains("0 records sent"),
        "{}",
        stderr(&as_hook)
    );
    let from_shell = export_cmd(&env, &closed, "http/json", &["--project"])
        .current_dir(env.project())
        .output()
        .unwrap();
    assert_eq!(from_shell.status.code(), Some(1), "{}", stderr(&from_shell));

    let out = env.oath().arg("uninstall").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let left = std::fs::read_to_string(&settings).unwrap_or_default();
    assert!(!left.contains("export"), "{left}");
    let codex = env
        .oath()
        .args(["install", "--export", "--agent", "codex"])
        .output()
        .unwrap();
    assert!(!codex.status.success());
}

#[test]
fn a_valid_kpt_report_is_sent_once_and_again_when_it_changes() {
    let env = TestEnv::new();
    seed(&env);
    let session = captured()[0]["hook_stdin_same_tool_use_id"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = env.home().join(".claude/hurikaeri");
    std::fs::create_dir_all(&dir).unwrap();
    let case = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/kpt/kpt-20260208-001.yaml"),
    )
    .unwrap();
    let report = case.replacen(
        "created_at: 2026-02-08T15:00:00Z\n",
        &format!("created_at: 2026-02-08T15:00:00Z\nsession_id: {session}\n"),
        1,
    );
    assert_ne!(report, case);
    std::fs::write(dir.join("kpt-20260208-001.yaml"), &report).unwrap();
    // A draft with placeholders waits.
    std::fs::write(
        dir.join("kpt-20260208-002.yaml"),
        "id: kpt-20260208-002\nsession_summary: TODO(judgement)\n",
    )
    .unwrap();
    let receiver = Receiver::start(Mode::Ok);
    let kpt = |r: &Receiver| -> Vec<Flat> {
        r.accepted()
            .into_iter()
            .filter(|x| x.event_name == "oath.kpt")
            .collect()
    };
    assert!(
        export_cmd(&env, &receiver.base, "http/protobuf", &["--project"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let sent = kpt(&receiver);
    assert_eq!(sent.len(), 1);
    let k = &sent[0];
    assert_eq!(k.str("session.id"), Some(session.as_str()));
    assert_eq!(k.str("oath.kpt.id"), Some("kpt-20260208-001"));
    assert_eq!(k.str("oath.outcome"), Some("partial"));
    assert_eq!(k.attr("oath.kpt.keep").map(|(t, _)| t), Some("intValue"));
    let at = oath::clock::Timestamp::parse("2026-02-08T15:00:00Z").unwrap();
    assert_eq!(i128::from(k.time_unix_nano), at.unix_millis() * 1_000_000);

    assert!(export(&env, &receiver.base, "http/json").status.success());
    assert_eq!(kpt(&receiver).len(), 1, "sent once");
    std::fs::write(
        dir.join("kpt-20260208-001.yaml"),
        report.replace(
            "認証ミドルウェアを実装した",
            "認証ミドルウェアを実装し、テストした",
        ),
    )
    .unwrap();
    assert!(export(&env, &receiver.base, "http/json").status.success());
    let sent = kpt(&receiver);
    assert_eq!(sent.len(), 2, "sent again once changed");
    assert_ne!(sent[0].str("oath.record_id"), sent[1].str("oath.record_id"));
}

#[test]
fn the_receiver_refuses_unknown_fields_and_mistyped_values() {
    use crate::otlp_receiver::{decode_json, decode_protobuf};
    let good = json!({"resourceLogs": [{"resource": {"attributes": []}, "scopeLogs": [{
        "scope": {"name": "oath"}, "logRecords": [{"timeUnixNano": "1", "eventName": "oath.pre",
        "attributes": [{"key": "n", "value": {"intValue": "3"}}]}]}]}]});
    decode_json(good.to_string().as_bytes());
    let mut unknown = good.clone();
    unknown["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["eventname"] = json!("x");
    let mut mistyped = good.clone();
    mistyped["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["attributes"][0]["value"] =
        json!({"intValue": 3});
    let mut time_number = good.clone();
    time_number["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["timeUnixNano"] = json!(1);
    for bad in [unknown, mistyped, time_number] {
        let body = bad.to_string();
        assert!(
            std::panic::catch_unwind(|| decode_json(body.as_bytes())).is_err(),
            "accepted {body}"
        );
    }
    // Protobuf: a field the definitions do not have (99, a varint) after a valid message.
    let valid = vec![0x0a, 0x00];
    decode_protobuf(&valid);
    let mut extra = valid.clone();
    extra.extend_from_slice(&[0x98, 0x06, 0x01]);
    assert!(std::panic::catch_unwind(|| decode_protobuf(&extra)).is_err());
}

#[test]
fn a_secret_an_earlier_oath_left_in_clear_leaves_the_machine_masked() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    // What a trail from before the redaction table knew a format holds (written directly).
    let token = "ghp_R8q2mX7vLp4sT9wZk3nB6cY1dF5gH0jQ2aE4";
    let pre = json!({"v": 1, "kind": "pre", "timestamp": "2026-11-25T20:08:11.665Z",
        "session_id": "old", "tool_use_id": "toolu_old", "tool_name": "Bash",
        "tool_input": {"command": format!("git push https://x:{token}@github.com/o/r")},
        "decision": "allow", "reason": format!("token {token}")});
    let failure = json!({"v": 1, "kind": "outcome", "timestamp": "2026-11-25T20:08:12.665Z",
        "session_id": "old", "tool_use_id": "toolu_old", "tool_name": "Bash",
        "outcome": "failure", "error": format!("remote: bad credentials {token}")});
    std::fs::write(dir.join("old.jsonl"), format!("{pre}\n{failure}\n")).unwrap();
    let out = export_cmd(
        &env,
        &refused_base(),
        "http/json",
        &["--dry-run", "--project"],
    )
    .env("OTEL_LOG_TOOL_DETAILS", "1")
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("toolu_old"), "{printed}");
    assert!(
        printed.contains("oath.tool_input"),
        "details asked: {printed}"
    );
    assert!(!printed.contains(&token[4..]), "{printed}");
    assert!(printed.contains("[REDACTED]"), "{printed}");
}

#[test]
fn what_the_agent_wrote_or_a_command_printed_leaves_only_with_tool_details() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    let pre = json!({"v": 1, "kind": "pre", "timestamp": "2026-11-25T20:08:11.665Z",
        "session_id": "d", "tool_use_id": "toolu_d", "tool_name": "apply_patch",
        "tool_input": {"patch": "PATCH-BODY"}, "decision": "allow", "reason": "ok",
        "effects": [{"tool_name": "Write", "tool_input": {"file_path": "a.rs", "content": "FILE-BODY"}}]});
    let observer = json!({"v": 1, "kind": "observer", "timestamp": "2026-11-25T20:08:12.665Z",
        "session_id": "d", "tool_use_id": "toolu_d", "tool_name": "apply_patch", "hook": "PostToolUse",
        "outcome": "success", "index": 0, "run": "cat a.rs", "async": false,
        "stdout": "PRINTED-BODY", "stderr": "WARNED-BODY"});
    std::fs::write(dir.join("d.jsonl"), format!("{pre}\n{observer}\n")).unwrap();
    let dry = |details: &str| {
        let out = export_cmd(
            &env,
            &refused_base(),
            "http/json",
            &["--dry-run", "--project"],
        )
        .env("OTEL_LOG_TOOL_DETAILS", details)
        .output()
        .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let bodies = ["PATCH-BODY", "FILE-BODY", "PRINTED-BODY", "WARNED-BODY"];
    let without = dry("0");
    assert!(without.contains("toolu_d"), "{without}");
    for b in bodies {
        assert!(
            !without.contains(b),
            "{b} sent without tool details: {without}"
        );
    }
    let with = dry("1");
    for b in bodies {
        assert!(with.contains(b), "{b} missing with tool details: {with}");
    }
}

#[test]
fn a_refused_file_waits_while_the_others_go_and_a_400_is_dropped_not_resent() {
    let env = TestEnv::new();
    let dir = env.state_dir().join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    let event = |s: &str| {
        format!(
            "{{\"v\":1,\"kind\":\"event\",\"timestamp\":\"2026-11-25T20:08:11.665Z\",\"session_id\":\"{s}\",\"hook_event_name\":\"Stop\"}}\n"
        )
    };
    for s in ["a", "b", "c"] {
        std::fs::write(dir.join(format!("{s}.jsonl")), event(s)).unwrap();
    }
    // A 500: every file is tried (a refusal is not an unreachable collector), none is lost.
    let receiver = Receiver::start(Mode::Fail);
    let failed = export(&env, &receiver.base, "http/json");
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert_eq!(receiver.logs().len(), 3, "each file tried once");
    assert!(
        stderr(&failed).contains("3 file(s) left for the next run"),
        "{}",
        stderr(&failed)
    );

    // A 400: dropped and reported, exit 1; the next run does not send it again.
    receiver.set(Mode::BadRequest);
    let rejected = export(&env, &receiver.base, "http/json");
    assert_eq!(rejected.status.code(), Some(1), "{}", stderr(&rejected));
    assert!(
        stderr(&rejected).contains("record too old"),
        "{}",
        stderr(&rejected)
    );
    assert!(
        stderr(&rejected).contains("3 record(s) rejected"),
        "{}",
        stderr(&rejected)
    );
    receiver.set(Mode::Ok);
    let before = receiver.logs().len();
    let next = export(&env, &receiver.base, "http/json");
    assert!(next.status.success(), "{}", stderr(&next));
    assert_eq!(receiver.logs().len(), before, "nothing sent again");

    // New records after it go as usual.
    std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("b.jsonl"))
        .unwrap()
        .write_all(event("b").as_bytes())
        .unwrap();
    assert!(export(&env, &receiver.base, "http/json").status.success());
    assert_eq!(receiver.accepted().len(), 1);
}
