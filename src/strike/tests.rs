//! Tests of the hook-facing 3-strike functions on a temp project.

use serde_json::{Value, json};

use super::*;
use crate::project::Env;

struct Fixture {
    _dir: tempfile::TempDir,
    project: Project,
    cfg: StrikeConfig,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/feat/x\n").unwrap();
    let env = Env {
        oath_home: Some(dir.path().join("state")),
        ..Env::default()
    };
    Fixture {
        project: Project::at(&env, root),
        _dir: dir,
        cfg: StrikeConfig::default(),
    }
}

fn payload(event: &str, command: &str, error: Option<&str>, t: i64) -> HookInput {
    let mut v = json!({
        "hook_event_name": event,
        "session_id": "s1",
        "tool_name": "Bash",
        "tool_use_id": format!("toolu_{}_{t}", command.split_whitespace().next().unwrap_or("")),
        "tool_input": {"command": command, "description": "d"},
    });
    if let Some(e) = error {
        v["error"] = json!(e);
    }
    let Value::Object(m) = v else { unreachable!() };
    HookInput::from_map(m, None)
}

fn fail(f: &Fixture, command: &str, error: &str, t: i64) -> Option<StrikeNotice> {
    let mut w = Vec::new();
    let n = on_failure(
        &f.project,
        &payload("PostToolUseFailure", command, Some(error), t),
        Timestamp::from_unix(t),
        &f.cfg,
        &mut w,
    );
    assert!(w.is_empty(), "{w:?}");
    n.filter(|n| n.strike >= store::WARN_AT)
}

fn succeed(f: &Fixture, command: &str) {
    let mut w = Vec::new();
    on_success(
        &f.project,
        &payload("PostToolUse", command, None, 1000),
        Timestamp::from_unix(1000),
        &f.cfg,
        &mut w,
    );
    assert!(w.is_empty(), "{w:?}");
}

fn ask(f: &Fixture, command: &str) -> Option<String> {
    escalation_for(
        &f.project,
        "Bash",
        &json!({"command": command}),
        Some("s1"),
        Timestamp::from_unix(1000),
        &f.cfg,
    )
}

#[test]
fn three_strikes_warn_then_escalate_then_reset_on_success() {
    let f = fixture();
    assert_eq!(
        fail(&f, "npm test", "Exit code 1\nFAIL src/a.test.js (12 ms)", 1),
        None
    );
    let n2 = fail(&f, "npm test", "Exit code 1\nFAIL src/a.test.js (40 ms)", 2).unwrap();
    assert_eq!(n2.strike, 2);
    let c2 = n2.context.unwrap();
    assert!(
        c2.contains("has now occurred 2 times in a row: Exit code 1: FAIL src/a.test.js"),
        "{c2}"
    );
    assert!(c2.contains("different approach"), "{c2}");
    assert_eq!(n2.system_message, None);
    assert_eq!(ask(&f, "npm test"), None, "strike 2 does not ask");

    let n3 = fail(&f, "npm test", "Exit code 1\nFAIL src/a.test.js (7 ms)", 3).unwrap();
    assert_eq!((n3.strike, n3.hash.as_str()), (3, n2.hash.as_str()));
    assert!(
        n3.context
            .unwrap()
            .contains("Stop and ask the user how to proceed")
    );
    assert!(n3.system_message.unwrap().contains(&n3.hash));
    let reason = ask(&f, "npm   test").expect("same action (whitespace aside) is asked");
    assert!(
        reason.contains(&n3.hash) && reason.contains("3 times"),
        "{reason}"
    );
    assert_eq!(ask(&f, "npm run build"), None, "another action is not");

    succeed(&f, "npm run build");
    assert!(
        ask(&f, "npm test").is_some(),
        "success of another action resets nothing"
    );
    succeed(&f, "npm test");
    assert_eq!(ask(&f, "npm test"), None);
    assert_eq!(
        fail(&f, "npm test", "Exit code 1\nFAIL src/a.test.js (1 ms)", 4),
        None,
        "back to strike 1"
    );

    let log: Value =
        serde_json::from_slice(&std::fs::read(errors_path(&f.project)).unwrap()).unwrap();
    assert_eq!(log["attempts"].as_array().unwrap().len(), 4);
    assert_eq!(log["strikeCount"], 1);
    assert_eq!(log["lastErrorHash"], json!(n3.hash));
    let statuses: Vec<&str> = log["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["resolved", "resolved", "resolved", "unresolved"]);
    let first = &log["attempts"][0];
    assert_eq!(first["tool"], "Bash");
    assert_eq!(first["timestamp"], "1970-01-01T00:00:01Z");
    assert_eq!(first["session_id"], "s1");
    assert_eq!(first["tool_use_id"], "toolu_npm_1");
    assert_eq!(first["input"], "npm test");
    assert!(
        first["error"]
            .as_str()
            .unwrap()
            .contains("FAIL src/a.test.js (12 ms)")
    );
    assert!(errors_path(&f.project).ends_with(".plan/feat%2Fx/errors.json"));
}

#[test]
fn per_call_paths_never_read_the_log() {
    let f = fixture();
    for t in 0..3 {
        fail(&f, "make", "Exit code 2\nmake: *** [all] Error 2", t);
    }
    // A log the per-call paths would choke on if they read it.
    std::fs::write(errors_path(&f.project), "not json").unwrap();
    assert!(ask(&f, "make").is_some());
    assert!(session_start_summary(&f.project, &f.cfg).is_some());
    succeed(&f, "make clean");
    assert_eq!(
        std::fs::read_to_string(errors_path(&f.project)).unwrap(),
        "not json",
        "a success that resets nothing does not touch the log"
    );
    // A success that resets a count carries the reset to the log; a broken log is moved
    // aside then, and the counts the index holds are kept.
    let mut w = Vec::new();
    on_success(
        &f.project,
        &payload("PostToolUse", "make", None, 1000),
        Timestamp::from_unix(1000),
        &f.cfg,
        &mut w,
    );
    assert!(w.iter().any(|w| w.contains("moved it to")), "{w:?}");
    assert_eq!(ask(&f, "make"), None);
    let mut w = Vec::new();
    let n = on_failure(
        &f.project,
        &payload(
            "PostToolUseFailure",
            "make",
            Some("Exit code 2\nmake: *** [all] Error 2"),
            9,
        ),
        Timestamp::from_unix(9),
        &f.cfg,
        &mut w,
    );
    assert_eq!(n.map(|n| n.strike), Some(1), "the success reset the count");
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn a_lost_index_is_rebuilt_from_the_log() {
    let f = fixture();
    fail(&f, "cargo build", "error[E0308]: mismatched types", 1);
    fail(&f, "cargo build", "error[E0308]: mismatched types", 2);
    std::fs::remove_file(index_path(&f.project)).unwrap();
    let n = fail(&f, "cargo build", "error[E0308]: mismatched types", 3).unwrap();
    assert_eq!(n.strike, 3);
    assert!(ask(&f, "cargo build").is_some());
}

#[test]
fn session_start_summary_is_short_and_most_struck_first() {
    let f = fixture();
    assert_eq!(session_start_summary(&f.project, &f.cfg), None);
    fail(&f, "a", "Exit code 1\nerror one", 1);
    for t in 2..5 {
        fail(&f, "b", "Exit code 1\nerror two", t);
    }
    for n in 0..8 {
        let word = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"][n];
        fail(
            &f,
            &format!("c{n}"),
            &format!("Exit code 1\nother problem {word}"),
            10,
        );
    }
    let s = session_start_summary(&f.project, &f.cfg).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines[0].contains("10 unresolved tool errors"), "{s}");
    assert!(lines[0].contains(".plan/feat%2Fx/errors.json"), "{s}");
    assert!(
        lines[1].contains("3 times")
            && lines[1].contains("error two")
            && lines[1].contains("escalated"),
        "{s}"
    );
    assert!(lines.len() <= 8, "{s}");
    assert!(s.chars().count() < 2000);
}

#[test]
fn resolve_and_reset_clear_counts_in_both_files() {
    let f = fixture();
    for t in 0..3 {
        fail(&f, "x", "Exit code 1\nboom", t);
        fail(&f, "y", "Exit code 1\nbang", t);
    }
    let v = view(&f.project);
    let hx = v.errors.attempts[0].hash.clone();
    assert_eq!(find_hash(&v, &hx[..4]), Ok(hx.clone()));
    assert!(find_hash(&v, "zzzz").is_err());
    let mut w = Vec::new();
    assert_eq!(
        resolve(&f.project, Some(&hx), Timestamp::from_unix(50), &mut w).unwrap(),
        vec![hx.clone()]
    );
    assert_eq!(ask(&f, "x"), None);
    assert!(ask(&f, "y").is_some());
    let v = view(&f.project);
    assert!(
        v.errors
            .attempts
            .iter()
            .filter(|a| a.hash == hx)
            .all(|a| a.status == "resolved")
    );
    assert_eq!(
        resolve(&f.project, None, Timestamp::from_unix(60), &mut w)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(ask(&f, "y"), None);
    let v = view(&f.project);
    assert!(v.index.hashes.is_empty());
    assert_eq!(v.errors.strike_count, 0);
    assert_eq!(v.errors.last_error_hash, "");
    assert_eq!(v.errors.attempts.len(), 6, "history is kept");
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn attempts_are_bounded() {
    let mut f = fixture();
    f.cfg.max_attempts = 10;
    for t in 0..25 {
        fail(
            &f,
            &format!("cmd{t}"),
            &format!("Exit code 1\nproblem {t}"),
            t,
        );
    }
    assert_eq!(view(&f.project).errors.attempts.len(), 10);
}

#[test]
fn secrets_are_redacted_in_the_log() {
    let f = fixture();
    fail(
        &f,
        "curl -H 'Authorization: Bearer abcdef0123456789xyz' https://x",
        "Exit code 22\nexport API_KEY=sk-live-0123456789abcdefXYZ rejected\n\u{1b}[1mghp_0123456789abcdefghijABCDEFGHIJ012345\u{1b}[0m",
        1,
    );
    let text = std::fs::read_to_string(errors_path(&f.project)).unwrap();
    assert!(
        !text.contains("abcdef0123456789xyz")
            && !text.contains("0123456789abcdefXYZ")
            && !text.contains("ghp_0123"),
        "{text}"
    );
}

#[test]
fn a_second_fire_of_the_same_failed_call_counts_once() {
    // A plugin's copy of the hook and the settings' copy both run: one failure, two payloads.
    let f = fixture();
    let fire = |t: i64, id: &str| {
        let mut p = payload(
            "PostToolUseFailure",
            "npm test",
            Some("Exit code 1\nFAIL"),
            t,
        );
        p.tool_use_id = Some(id.into());
        let mut w = Vec::new();
        let n = on_failure(&f.project, &p, Timestamp::from_unix(t), &f.cfg, &mut w);
        assert!(w.is_empty(), "{w:?}");
        n.filter(|n| n.strike >= store::WARN_AT)
    };
    assert_eq!(fire(1, "toolu_a"), None);
    assert_eq!(
        fire(1, "toolu_a"),
        None,
        "the same call again is not strike 2"
    );
    let n = fire(2, "toolu_b").expect("a second real failure is strike 2");
    assert_eq!(n.strike, 2);
    assert_eq!(
        fire(2, "toolu_b"),
        None,
        "and its second fire says nothing more"
    );
    assert_eq!(ask(&f, "npm test"), None, "two failures do not escalate");
    let v = view(&f.project);
    assert_eq!(v.errors.attempts.len(), 2);
    assert_eq!(v.errors.strike_count, 2);
}

#[test]
fn a_reset_by_success_reaches_errors_json_at_once() {
    let f = fixture();
    for t in 0..3 {
        fail(&f, "npm test", "Exit code 1\nFAIL x", t);
    }
    succeed(&f, "npm test");
    let log: Value =
        serde_json::from_slice(&std::fs::read(errors_path(&f.project)).unwrap()).unwrap();
    assert_eq!(log["strikeCount"], 0);
    assert_eq!(log["lastErrorHash"], "");
    assert!(
        log["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["status"] == "resolved"),
        "{log}"
    );
}

#[test]
fn the_agent_is_never_told_how_to_clear_its_own_strikes() {
    for count in [2, 3, 4] {
        let n = notice(
            "Bash",
            "bash cargo test",
            "abcd1234",
            count,
            "cargo test failed",
        );
        let context = n.context.unwrap_or_default();
        assert!(!context.contains("oath errors"), "{context}");
        if count >= 3 {
            assert!(
                n.system_message
                    .is_some_and(|m| m.contains("oath errors resolve")),
                "the user is told"
            );
        }
    }
}

#[test]
fn the_plan_folder_oath_creates_is_ignored_by_git() {
    let f = fixture();
    fail(&f, "cargo test", "error[E0425]: cannot find value", 0);
    let ignore = std::fs::read_to_string(f.project.root.join(".plan/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    assert!(f.project.plan_dir().join(".gitignore").exists());
}

#[test]
fn folders_are_placed_whole_and_stale_stages_swept() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(format!("{STAGE_PREFIX}1"));
    std::fs::create_dir_all(&stale).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    std::fs::File::open(&stale)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let target = dir.path().join(".plan");
    place_ignored_folder(&target, dir.path()).unwrap();
    assert!(target.join(".gitignore").exists());
    assert!(!stale.exists(), "a killed hook's stage is swept");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [".plan"], "no stage is left");
    // A folder another hook placed first is kept as it is.
    std::fs::write(target.join("mine"), "x").unwrap();
    place_ignored_folder(&target, dir.path()).unwrap();
    assert!(target.join("mine").exists());
}

#[test]
fn an_attempt_is_bounded_whatever_the_payload_holds() {
    // Identifiers from the payload are cut, so a log of `max_attempts` attempts is bounded;
    // a second fire of a call with a huge id still counts once.
    let f = fixture();
    let huge = "x".repeat(1 << 20);
    let fire = |t: i64| {
        let mut p = payload("PostToolUseFailure", "npm test", Some("Exit code 1"), t);
        p.tool_use_id = Some(format!("toolu_{huge}"));
        p.session_id = Some(huge.clone());
        p.agent_id = Some(huge.clone());
        p.tool_name = Some(format!("Bash{huge}"));
        let mut w = Vec::new();
        on_failure(&f.project, &p, Timestamp::from_unix(t), &f.cfg, &mut w);
        assert!(w.is_empty(), "{w:?}");
    };
    fire(1);
    fire(2);
    let bytes = std::fs::read(errors_path(&f.project)).unwrap();
    assert!(bytes.len() < 8 * 1024, "{} bytes", bytes.len());
    let v = view(&f.project);
    assert_eq!(v.errors.attempts.len(), 1, "the second fire counted once");
    let a = &v.errors.attempts[0];
    for id in [&a.tool_use_id, &a.session_id, &a.agent_id] {
        assert_eq!(id.as_ref().map(String::len), Some(MAX_ID_BYTES));
    }
    assert_eq!(a.tool.len(), MAX_ID_BYTES);
}
