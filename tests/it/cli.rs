//! The everyday commands: help texts, status, audit, demo, phase, config, completions.

use serde_json::{Value, json};

use oath::classify::Risk;
use oath::clock::Timestamp;
use oath::trust::{Level, Outcome, RiskWeights, TrustFile, TrustParams, apply_outcome, autonomy};

use crate::support::TestEnv;

/// Recorded payloads (Claude Code 2.1.197), shared with `oath doctor`.
const RECORDED: &[&str] = &[
    include_str!("../../assets/doctor/session-start.json"),
    include_str!("../../assets/doctor/pre-tool-use-read.json"),
    include_str!("../../assets/doctor/post-tool-use-read.json"),
    include_str!("../../assets/doctor/pre-tool-use-bash.json"),
    include_str!("../../assets/doctor/post-tool-use-failure-bash.json"),
];

const T0: &str = "2026-03-01T10:00:00Z";

/// Sends one payload through `oath hook` at a pinned time.
fn hook(env: &TestEnv, payload: &Value, now: &str) {
    let out = env
        .oath()
        .arg("hook")
        .env("OATH_NOW", now)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "{}",
        env.render(&out)
    );
}

/// Replays the recorded session into the test project, then a few more calls.
fn replay(env: &TestEnv) {
    let project = env.project().display().to_string();
    for text in RECORDED {
        let v: Value =
            serde_json::from_str(&text.replace("/home/dev/projects/demo", &project)).unwrap();
        hook(env, &v, T0);
    }
    let call = |id: &str, tool: &str, input: Value| {
        json!({"session_id": "second-session", "cwd": env.project(), "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": input, "tool_use_id": id})
    };
    let edit = json!({"file_path": env.project().join("src/lib.rs"), "old_string": "a", "new_string": "b"});
    for (i, t) in ["10:30:00", "10:31:00", "10:32:00"].iter().enumerate() {
        let now = format!("2026-03-01T{t}Z");
        let mut p = call(&format!("toolu_e{i}"), "Edit", edit.clone());
        hook(env, &p, &now);
        p["hook_event_name"] = json!("PostToolUse");
        p["tool_response"] = json!({"success": true});
        hook(env, &p, &now);
    }
    // A call still pending (no outcome yet).
    hook(
        env,
        &call("toolu_p", "Bash", json!({"command": "rm -rf build"})),
        "2026-03-01T10:40:00Z",
    );
}

#[test]
fn help_texts() {
    let env = TestEnv::new();
    let mut all = String::new();
    for args in [
        &["install", "--help"][..],
        &["uninstall", "--help"],
        &["status", "--help"],
        &["demo", "--help"],
        &["audit", "--help"],
        &["phase", "--help"],
        &["phase", "set", "--help"],
        &["doctor", "--help"],
        &["config", "--help"],
        &["config", "validate", "--help"],
        &["completions", "--help"],
    ] {
        let out = env
            .oath()
            .args(args)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        all.push_str(&format!(
            "## oath {}\n\n```\n{}```\n\n",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    insta::assert_snapshot!("help", all);
}

#[test]
fn status_without_state_is_friendly() {
    let env = TestEnv::new();
    let out = env.oath_with_bin().arg("status").output().unwrap();
    insta::assert_snapshot!("status_empty", env.render(&out));
    let out = env.oath().args(["status", "--oneline"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Trust: uninitialized\n"
    );
}

#[test]
fn status_shows_the_hooks_state() {
    let env = TestEnv::new();
    replay(&env);
    let out = env
        .oath()
        .arg("status")
        .env("OATH_NOW", "2026-03-01T12:00:00Z")
        .output()
        .unwrap();
    insta::assert_snapshot!("status", env.render(&out));
    let out = env
        .oath()
        .args(["status", "--oneline"])
        .env("OATH_NOW", "2026-03-01T12:00:00Z")
        .output()
        .unwrap();
    insta::assert_snapshot!("status_oneline", env.render(&out));
    let out = env
        .oath()
        .args(["status", "shell_exec"])
        .env("OATH_NOW", "2026-03-01T12:00:00Z")
        .output()
        .unwrap();
    insta::assert_snapshot!("status_domain", env.render(&out));
    let out = env.oath().args(["status", "nonsense"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown domain \"nonsense\""));
}

#[test]
fn status_applies_idle_decay_on_read_and_writes_nothing() {
    let env = TestEnv::new();
    replay(&env);
    let before = env.written_files();
    let file: TrustFile = env.trust_store().load(&mut Vec::new()).unwrap().unwrap();
    let later = "2026-04-30T12:00:00Z";
    let out = env
        .oath()
        .args(["status", "--json"])
        .env("OATH_NOW", later)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], 2);
    let params = TrustParams::default();
    let now = Timestamp::parse(later).unwrap();
    let mut checked = 0;
    for (name, d) in v["domains"].as_object().unwrap() {
        for level in Level::ALL {
            let l = &d["levels"][level.as_str()];
            let want = file.score(name, level, now, &params);
            assert_eq!(l["score"].as_f64().unwrap(), want, "{name} {level}");
            if l["operated"] == false {
                assert_eq!(want, params.initial_score, "{name} {level}");
                continue;
            }
            assert!(
                want < l["stored_score"].as_f64().unwrap(),
                "{name} {level} decayed"
            );
            assert_eq!(l["is_warming_up"], true);
            checked += 1;
        }
    }
    assert!(checked >= 3);
    assert!(env.written_files() == before, "status wrote state");
}

#[test]
fn audit_joins_decisions_and_outcomes() {
    let env = TestEnv::new();
    replay(&env);
    let out = env
        .oath()
        .args(["audit", "--events"])
        .env("OATH_NOW", "2026-03-01T12:00:00Z")
        .output()
        .unwrap();
    insta::assert_snapshot!("audit", env.render(&out));

    // JSON Lines: one object per entry.
    let json_of = |args: &[&str]| -> Vec<Value> {
        let out = env
            .oath()
            .arg("audit")
            .args(args)
            .arg("--json")
            .env("OATH_NOW", "2026-03-01T12:00:00Z")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", env.render(&out));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .inspect(|v| assert_eq!(v["version"], 2, "{v}"))
            .collect()
    };
    let entries = json_of(&[]);
    assert_eq!(entries.len(), 6, "{entries:?}");
    let bash = entries
        .iter()
        .find(|e| e["tool_use_id"] == "toolu_25")
        .unwrap();
    assert_eq!(bash["pre"]["kind"], "pre");
    assert_eq!(bash["outcomes"][0]["outcome"], "failure");
    assert_eq!(json_of(&["--session", "second"]).len(), 4);
    assert_eq!(json_of(&["--domain", "file_read"]).len(), 1);
    assert_eq!(json_of(&["--since", "85m"]).len(), 1);
    assert_eq!(json_of(&["--until", "2026-03-01T10:31:00Z"]).len(), 3);
    let last2 = json_of(&["--limit", "2"]);
    assert_eq!(last2.len(), 2);
    assert_eq!(last2[1]["tool_use_id"], "toolu_p");
    for e in json_of(&["--decision", "allow"]) {
        assert_eq!(e["pre"]["decision"], "allow");
    }
    let out = env
        .oath()
        .args(["audit", "--since", "later"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("relative time such as 30m"));
}

#[test]
fn audit_without_a_trail_says_so() {
    let env = TestEnv::new();
    let out = env.oath().arg("audit").output().unwrap();
    insta::assert_snapshot!("audit_empty", env.render(&out));
}

#[test]
fn demo_prints_the_four_scenarios() {
    let env = TestEnv::new();
    let out = env.oath().arg("demo").output().unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    insta::assert_snapshot!("demo", env.render(&out));
    // The demo touches nothing outside its temp dir.
    assert!(!env.oath_home().exists());
}

/// Recomputes scenario 2 (failure and recovery) with `oath::trust` and compares every number
/// the demo printed, in JSON and in the table.
#[test]
fn demo_numbers_match_the_trust_model() {
    let env = TestEnv::new();
    let out = env
        .oath()
        .args(["demo", "--scenario", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = v["scenarios"][0]["steps"].as_array().unwrap();
    let table = env
        .oath()
        .args(["demo", "--scenario", "2"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout).into_owned();

    let params = TrustParams::default();
    let weights = RiskWeights::default();
    let mut file = TrustFile::new(Timestamp::parse("2026-03-01T09:00:00Z").unwrap());
    let outcomes = [true, true, true, true, true, false, false]
        .into_iter()
        .chain(std::iter::repeat_n(true, 8));
    let mut n = 0;
    for (i, ok) in outcomes.enumerate() {
        let step = &steps[i];
        let domain = step["pre"]["domain"].as_str().unwrap();
        let risk: Risk = serde_json::from_value(step["pre"]["risk"].clone()).unwrap();
        let now = Timestamp::parse("2026-03-01T09:00:00Z")
            .unwrap()
            .plus_seconds(60 * (i as i64 + 1));
        let level = Level::of(risk);
        assert_eq!(step["pre"]["level"], level.as_str());
        let before = file.score(domain, level, now, &params);
        assert_eq!(
            step["pre"]["trust"].as_f64().unwrap(),
            before,
            "step {}",
            i + 1
        );
        let auto = autonomy(before, risk, &weights);
        assert!((step["pre"]["autonomy"].as_f64().unwrap() - auto).abs() < 1e-12);
        let outcome = if ok {
            Outcome::Success
        } else {
            Outcome::Failure
        };
        let u = apply_outcome(&mut file, domain, level, outcome, None, now, &params);
        assert_eq!(
            step["after"]["trust"].as_f64().unwrap(),
            u.after,
            "step {}",
            i + 1
        );
        let d = file.domains[domain].get(level).unwrap();
        assert_eq!(
            step["after"]["consecutive_failures"].as_u64().unwrap(),
            u64::from(d.consecutive_failures)
        );
        let row = format!(
            "{:>4}  Bash cargo test   {domain:<14} {:<6} {:<6} {before:>7.4} {auto:>8.4}",
            i + 1,
            risk.as_str(),
            level.as_str()
        );
        assert!(table.contains(&row), "missing row {row:?} in\n{table}");
        assert!(table.contains(&format!("{:.4}", u.after)));
        n += 1;
    }
    assert_eq!(n, steps.len());
}

#[test]
fn phase_set_get_and_clear() {
    let env = TestEnv::new();
    let file = env.project().join(".claude/current-phase.md");
    let out = env.oath().arg("phase").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Phase: none"));
    env.oath()
        .args(["phase", "set", "building"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "building\n");
    let out = env.oath().args(["phase", "get"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Phase: building\n");
    env.oath().args(["phase", "set", "none"]).assert().success();
    assert!(!file.exists());
    env.oath()
        .args(["phase", "set", "auditing"])
        .assert()
        .success();
    env.oath().args(["phase", "clear"]).assert().success();
    assert!(!file.exists());
    let out = env
        .oath()
        .args(["phase", "set", "coding"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "vacation\n").unwrap();
    let out = env.oath().arg("phase").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn config_show_validate_and_schema() {
    let env = TestEnv::new();
    let project_cfg = env.project().join(".oath.yaml");
    std::fs::write(&project_cfg, "trust:\n  initial_score: 0.2\n").unwrap();
    // Not approved yet: shown as such, and its parameters do not apply.
    let out = env.oath().args(["config", "show"]).output().unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let text = env.render(&out);
    assert!(
        text.contains("is not approved") && text.contains("trust ignored"),
        "{text}"
    );
    assert!(text.contains("initial_score: 0.3"), "{text}");
    // Approved by the user, the same content applies whole; a change needs approval again.
    env.trusted_project_config("trust:\n  initial_score: 0.2\n");
    let out = env.oath().args(["config", "show"]).output().unwrap();
    let text = env.render(&out);
    assert!(
        text.contains("#   project: [TMP]/project/.oath.yaml"),
        "{text}"
    );
    assert!(text.contains("initial_score: 0.2"), "{text}");
    std::fs::write(&project_cfg, "trust:\n  initial_score: 0.1\n").unwrap();
    let text = env.render(&env.oath().args(["config", "show"]).output().unwrap());
    assert!(
        text.contains("initial_score: 0.3") && text.contains("is not approved"),
        "{text}"
    );
    std::fs::write(&project_cfg, "trust:\n  initial_score: 0.2\n").unwrap();
    env.oath().args(["config", "validate"]).assert().success();

    std::fs::write(&project_cfg, "trust:\n  initial_scor: 0.2\n").unwrap();
    let out = env.oath().args(["config", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("did you mean `initial_score`?"), "{stderr}");

    let other = env.dir.path().join("other.yaml");
    std::fs::write(&other, "autonomy:\n  auto_approve_threshold: 0.2\n").unwrap();
    let out = env
        .oath()
        .args(["config", "validate"])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be below"));

    let out = env.oath().args(["config", "schema"]).output().unwrap();
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["properties"]["trust"].is_object(), "{schema}");
}

#[test]
fn completions_are_generated() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = env.oath().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("install") && text.contains("uninstall"),
            "{shell}"
        );
    }
}
