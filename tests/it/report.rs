//! `oath report` through the built binary: a session run through real hooks (allowed, denied,
//! failing three times, a secret in a command), the default session and file, windows and
//! prefixes, and a 10,000-call session whose page stays small.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::support::TestEnv;

const SESSION: &str = "5e55a0e1-report-it";
const TOKEN: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

fn payload(event: &str, n: usize, command: &str) -> Value {
    json!({
        "hook_event_name": event,
        "session_id": SESSION,
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": ".",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": format!("toolu_{n:03}"),
        "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
        "error": "Exit code 3\nboom",
    })
}

/// Runs a call through PreToolUse and, when it is not denied, its outcome hook.
fn call(env: &TestEnv, n: usize, command: &str, ok: bool) {
    let run = env.hook(&payload("PreToolUse", n, command));
    if run.decision().as_deref() == Some("deny") {
        return;
    }
    let event = if ok {
        "PostToolUse"
    } else {
        "PostToolUseFailure"
    };
    env.hook(&payload(event, n, command));
}

/// A session through real hooks: a prompt, reads, a denied command, the same failure three
/// times, a command holding a token.
fn session(env: &TestEnv) {
    env.hook(
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": SESSION,
                     "cwd": ".", "prompt": "build it"}),
    );
    call(env, 1, "ls -la", true);
    call(env, 2, "git status", true);
    call(env, 3, "rm -rf ~", true);
    for n in 4..7 {
        call(env, n, "cargo test --lib", false);
    }
    call(
        env,
        7,
        &format!("export GITHUB_TOKEN={TOKEN} && echo ok"),
        true,
    );
    call(env, 8, "cat README.md", true);
}

/// The audit's calls: distinct tool_use_ids of pre and outcome records, and the applied
/// trust changes per domain and level (`domain/level`).
fn audit_calls(path: &Path) -> (usize, std::collections::BTreeMap<String, usize>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ids = BTreeSet::new();
    let mut applied = std::collections::BTreeMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if matches!(v["kind"].as_str(), Some("pre" | "outcome")) {
            ids.insert(v["tool_use_id"].as_str().unwrap().to_owned());
        }
        if v["kind"] == "outcome" && v["trust_applied"] == true {
            let key = format!(
                "{}/{}",
                v["domain"].as_str().unwrap(),
                // Records written before trust was kept per level (the synthetic trail's)
                // have none: one line per domain.
                v["trust_level"].as_str().unwrap_or("")
            );
            *applied.entry(key).or_insert(0) += 1;
        }
    }
    (ids.len(), applied)
}

/// Returns the `d` of call-mark paths and the polylines' `data-domain/data-level` and
/// `points` of a page.
fn shapes(page: &str) -> (usize, Vec<(String, usize)>) {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let key = format!(" {name}=\"");
        let from = tag.find(&key)? + key.len();
        Some(tag[from..from + tag[from..].find('"')?].to_owned())
    };
    let tags = |open: &str| -> Vec<String> {
        page.match_indices(open)
            .map(|(i, _)| page[i..i + page[i..].find('>').unwrap()].to_owned())
            .collect()
    };
    let marks = tags("<path ")
        .iter()
        .filter(|t| t.contains("data-kind=\"call\""))
        .map(|t| attr(t, "d").unwrap().matches('M').count())
        .sum();
    let lines = tags("<polyline ")
        .iter()
        .map(|t| {
            (
                format!(
                    "{}/{}",
                    attr(t, "data-domain").unwrap(),
                    attr(t, "data-level").unwrap()
                ),
                attr(t, "points").unwrap().split(' ').count(),
            )
        })
        .collect();
    (marks, lines)
}

/// Elements of the page outside the calls' JSON data.
fn elements(page: &str) -> usize {
    let start = page.find("id=\"calls\">").unwrap();
    let end = start + page[start..].find("</script>").unwrap();
    let outside = format!("{}{}", &page[..start], &page[end..]);
    outside
        .match_indices('<')
        .filter(|(i, _)| {
            outside[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
        })
        .count()
}

#[test]
fn a_session_through_real_hooks_becomes_one_page() {
    let env = TestEnv::new();
    session(&env);
    let audit = env.audit_file(SESSION);
    let (calls, applied) = audit_calls(&audit);
    assert_eq!(calls, 8);

    // Default: the latest session, written to the state folder, its path printed.
    let out = env.oath().arg("report").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let path = Path::new(printed.trim());
    assert!(
        path.starts_with(env.state_dir().join("reports")),
        "{printed}"
    );
    let page = std::fs::read_to_string(path).unwrap();

    let (marks, lines) = shapes(&page);
    assert_eq!(marks, calls, "one mark per call");
    let want: Vec<(String, usize)> = applied.iter().map(|(d, n)| (d.clone(), n + 1)).collect();
    let mut got = lines.clone();
    got.sort();
    assert_eq!(got, want, "a point before and one per applied outcome");
    assert!(!page.contains(TOKEN), "the token is in the report");
    assert!(
        !page.contains("ghp_0123"),
        "part of the token is in the report"
    );
    let total = |key: &str| -> usize {
        let at = page.find(&format!("data-total=\"{key}\"")).unwrap();
        let b = at + page[at..].find("<b>").unwrap() + 3;
        page[b..b + page[b..].find('<').unwrap()].parse().unwrap()
    };
    assert_eq!(total("calls"), 8);
    assert_eq!(total("denials"), 1, "rm -rf ~");
    assert_eq!(total("failures"), 3);
    assert_eq!(total("strikes"), 2, "the second and third failure");
    assert_eq!(total("escalations"), 1, "the third failure");
    assert_eq!(total("prompts"), 1);
    assert!(!page.contains("id=\"kpt\""), "no retrospective was written");
    for external in ["http://", "https://", "src=\"", "href=\""] {
        assert!(
            !page.contains(external),
            "{external} in a self-contained page"
        );
    }

    // The same page on stdout, and by session prefix.
    let stdout = env
        .oath()
        .args(["report", "--session", &SESSION[..8], "-o", "-"])
        .output()
        .unwrap();
    assert!(stdout.status.success());
    let again = String::from_utf8(stdout.stdout).unwrap();
    assert_eq!(shapes(&again), (marks, lines));
}

#[test]
fn windows_files_and_errors() {
    let env = TestEnv::new();
    session(&env);
    let file = env.project().join("r.html");
    env.oath()
        .args(["report", "--since", "1h", "-o"])
        .arg(&file)
        .assert()
        .success();
    let page = std::fs::read_to_string(&file).unwrap();
    assert_eq!(shapes(&page).0, 8);
    assert!(page.contains("since 1h"));
    // A window in the future: an empty page, said on stderr.
    let out = env
        .oath()
        .args(["report", "--since", "2999-01-01", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(shapes(&String::from_utf8(out.stdout).unwrap()).0, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tool call"));
    let bad = env
        .oath()
        .args(["report", "--since", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let fresh = TestEnv::new();
    let none = fresh.oath().arg("report").output().unwrap();
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no audit trail"));
}

#[test]
fn ten_thousand_calls_make_a_small_page() {
    const CALLS: usize = 10_000;
    let env = TestEnv::new();
    let audit = env.audit_file(SESSION);
    crate::synthetic_session::write(&audit, SESSION, CALLS);
    let file = env.dir.path().join("big.html");
    let started = Instant::now();
    env.oath()
        .args(["report", "-o"])
        .arg(&file)
        .assert()
        .success();
    let took = started.elapsed();
    let page = std::fs::read_to_string(&file).unwrap();
    let (marks, lines) = shapes(&page);
    let (_, applied) = audit_calls(&audit);
    eprintln!(
        "oath report of {CALLS} calls: {took:?} (this build), {} bytes, {} elements, audit {} bytes",
        page.len(),
        elements(&page),
        std::fs::metadata(&audit).unwrap().len()
    );
    assert_eq!(marks, CALLS);
    let want: Vec<(String, usize)> = applied.iter().map(|(d, n)| (d.clone(), n + 1)).collect();
    let mut got = lines;
    got.sort();
    assert_eq!(got, want);
    // Bounds, not timings: the DOM does not grow with the calls, the bytes only a little.
    assert!(elements(&page) < 300, "{} elements", elements(&page));
    assert!(page.len() < 3_000_000, "{} bytes", page.len());
}

#[test]
fn the_default_session_is_the_one_with_the_latest_record() {
    let env = TestEnv::new();
    // `early` starts first but ends last; `middle` lies inside it.
    let record = |session: &str, n: usize, secs: i64| {
        json!({"v": 1, "kind": "pre", "session_id": session, "tool_use_id": format!("t{n}"),
               "timestamp": oath::clock::Timestamp::from_unix(1_772_355_600 + secs).iso_millis(),
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "domain": "file_read",
               "decision": "allow"})
    };
    for (session, times) in [("early-session", [0, 900]), ("middle-session", [100, 200])] {
        let path = env.audit_file(session);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = times
            .iter()
            .enumerate()
            .map(|(n, t)| format!("{}\n", record(session, n, *t)))
            .collect();
        std::fs::write(path, text).unwrap();
    }
    let out = env.oath().args(["report", "-o", "-"]).output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains("title=\"early-session\""));
    assert!(!page.contains("middle-session"));
}
