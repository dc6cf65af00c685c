//! `oath audit` over a trail of several sessions: time windows and their edges, joins across
//! them, `--limit`, JSON Lines, and reading only the part of the trail a window needs. The
//! expected entries come from a plain reading of every file (the way `oath audit` read them
//! before it streamed), so each case checks the streaming reader against it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use oath::audit::trail::{self, Filter};
use oath::clock::Timestamp;
use serde_json::{Value, json};

use crate::support::{TestEnv, write_synthetic_audit};

const NOW: &str = "2026-03-01T12:00:00Z";

/// `HH:MM:SS.mmm` on the test's day.
fn at(hms: &str) -> String {
    format!("2026-03-01T{hms}Z")
}

fn pre(session: &str, id: &str, time: &str, domain: &str, decision: &str) -> Value {
    json!({"v": 1, "kind": "pre", "timestamp": at(time), "session_id": session, "tool_use_id": id,
           "tool_name": "Bash", "tool_input": {"command": format!("echo {id}")}, "domain": domain,
           "risk_category": "low", "decision": decision, "outcome": "pending"})
}

fn outcome(session: &str, id: &str, time: &str, duration_ms: u64) -> Value {
    json!({"v": 1, "kind": "outcome", "timestamp": at(time), "session_id": session, "tool_use_id": id,
           "tool_name": "Bash", "domain": "shell_exec", "outcome": "success", "duration_ms": duration_ms})
}

fn event(session: &str, time: &str) -> Value {
    json!({"v": 1, "kind": "event", "timestamp": at(time), "session_id": session, "hook_event_name": "Stop"})
}

fn write(env: &TestEnv, session: &str, records: &[Value]) {
    let path = env.audit_file(session);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// `HH:MM:SS.mmm` of `secs` seconds after 09:00.
fn clock(secs: u64, ms: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}.{ms:03}",
        9 + secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Four sessions between 09:00 and 11:30, the first large enough (over 64 KiB before the
/// windows) that reading a window starts past its beginning.
fn trail() -> TestEnv {
    let env = TestEnv::new();
    // aaa: filler calls every 4 s from 09:00 to 10:20, and a call that runs from 09:05 to
    // 10:35 (its pre more than an hour before a window starting at 10:30).
    let mut a = vec![
        json!({"v": 1, "kind": "session_start", "timestamp": at("09:00:00.000"),
                            "session_id": "aaa-first", "source": "startup"}),
    ];
    for i in 0..1200u64 {
        let id = format!("fill{i}");
        a.push(pre(
            "aaa-first",
            &id,
            &clock(i * 4 + 1, 0),
            "file_read",
            "allow",
        ));
        a.push(outcome("aaa-first", &id, &clock(i * 4 + 2, 0), 900));
        if i == 74 {
            a.push(pre(
                "aaa-first",
                "marathon",
                "09:05:00.000",
                "build",
                "allow",
            ));
        }
    }
    a.push(outcome(
        "aaa-first",
        "marathon",
        "10:35:00.000",
        90 * 60 * 1000,
    ));
    a.push(event("aaa-first", "10:35:00.500"));
    write(&env, "aaa-first", &a);
    // bbb: calls on both sides of 10:30 and of 11:00.
    write(
        &env,
        "bbb-second",
        &[
            pre(
                "bbb-second",
                "b_before",
                "10:29:59.999",
                "shell_exec",
                "allow",
            ),
            pre("bbb-second", "b_since", "10:30:00.000", "shell_exec", "ask"),
            outcome("bbb-second", "b_before", "10:30:00.100", 101),
            outcome("bbb-second", "b_since", "10:30:01.000", 1000),
            pre(
                "bbb-second",
                "b_mid",
                "10:45:00.000",
                "file_write_src",
                "deny",
            ),
            pre(
                "bbb-second",
                "b_until",
                "10:59:59.999",
                "shell_exec",
                "allow",
            ),
            pre(
                "bbb-second",
                "b_at_until",
                "11:00:00.000",
                "shell_exec",
                "allow",
            ),
            outcome("bbb-second", "b_until", "11:00:03.000", 3001),
            outcome("bbb-second", "b_at_until", "11:00:04.000", 4000),
            event("bbb-second", "11:00:05.000"),
        ],
    );
    // ccc: side by side with bbb, and an outcome whose pre record is missing.
    write(
        &env,
        "ccc-third",
        &[
            pre("ccc-third", "c1", "10:40:00.001", "shell_exec", "allow"),
            outcome("ccc-third", "c1", "10:40:02.001", 2000),
            outcome("ccc-third", "c_orphan", "10:50:00.001", 5),
            pre("ccc-third", "c2", "11:10:00.001", "shell_exec", "ask"),
            outcome("ccc-third", "c2", "11:10:00.501", 500),
            outcome("ccc-third", "c2", "11:10:00.502", 500),
        ],
    );
    // ddd: a pending call and lines that are not records.
    let mut d: Vec<Value> = vec![pre(
        "ddd-fourth",
        "d1",
        "11:29:00.000",
        "shell_exec",
        "allow",
    )];
    d.push(event("ddd-fourth", "11:29:30.000"));
    write(&env, "ddd-fourth", &d);
    let path = env.audit_file("ddd-fourth");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("not json\n[1, 2]\n\n{text}")).unwrap();
    env
}

/// An entry as the expectations name it: the call id (or `event`) and its outcome count.
type Named = (String, usize);

/// The entries of every audit file read whole, joined and sorted the way `oath audit` did
/// before it streamed, then filtered.
fn expected(env: &TestEnv, filter: &Filter) -> Vec<Named> {
    let dir = env.state_dir().join("audit");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // (time, session, id, pre, outcomes, event)
    type Row = (
        Option<Timestamp>,
        String,
        Option<String>,
        Option<Value>,
        Vec<Value>,
        bool,
    );
    let mut rows: Vec<Row> = Vec::new();
    let mut by_id: HashMap<(String, String), usize> = HashMap::new();
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let Ok(r @ Value::Object(_)) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let session = r["session_id"].as_str().unwrap_or("unknown").to_owned();
            let time = r["timestamp"].as_str().and_then(Timestamp::parse);
            let kind = r["kind"].as_str().unwrap_or("").to_owned();
            match (kind.as_str(), r["tool_use_id"].as_str()) {
                ("pre" | "outcome", Some(id)) => {
                    let key = (session.clone(), id.to_owned());
                    let i = *by_id.entry(key).or_insert_with(|| {
                        rows.push((time, session, Some(id.to_owned()), None, vec![], false));
                        rows.len() - 1
                    });
                    if kind == "pre" {
                        if rows[i].3.is_none() {
                            rows[i].0 = time.or(rows[i].0);
                        }
                        rows[i].3 = Some(r);
                    } else {
                        rows[i].4.push(r);
                    }
                }
                ("pre", None) => rows.push((time, session, None, Some(r), vec![], false)),
                ("outcome", None) => rows.push((time, session, None, None, vec![r], false)),
                _ => rows.push((time, session, None, None, vec![], true)),
            }
        }
    }
    rows.sort_by_key(|r| r.0);
    rows.into_iter()
        .filter(|(time, session, _, pre, outcomes, is_event)| {
            let first = pre.as_ref().or(outcomes.first());
            (filter.events || !is_event)
                && filter
                    .session
                    .as_deref()
                    .is_none_or(|s| session.starts_with(s))
                && filter.since.is_none_or(|s| time.is_some_and(|t| t >= s))
                && filter.until.is_none_or(|u| time.is_some_and(|t| t < u))
                && (filter.decisions.is_empty()
                    || pre.as_ref().is_some_and(|p| {
                        filter.decisions.iter().any(|d| p["decision"] == d.as_str())
                    }))
                && (filter.domains.is_empty()
                    || first
                        .is_some_and(|r| filter.domains.iter().any(|d| r["domain"] == d.as_str())))
        })
        .map(|(_, _, id, _, outcomes, _)| (id.unwrap_or_else(|| "event".into()), outcomes.len()))
        .collect()
}

/// Runs `oath audit ARGS --json` and returns its lines, each checked to be one JSON object of
/// output version 2.
fn json_lines(env: &TestEnv, args: &[&str]) -> Vec<Value> {
    let out = env
        .oath()
        .arg("audit")
        .args(args)
        .arg("--json")
        .env("OATH_NOW", NOW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert!(v.is_object(), "{l}");
            assert_eq!(v["version"], 2, "{l}");
            v
        })
        .collect()
}

fn named(lines: &[Value]) -> Vec<Named> {
    lines
        .iter()
        .map(|v| match v.get("event") {
            Some(_) => ("event".to_owned(), 0),
            None => (
                v["tool_use_id"].as_str().unwrap_or("?").to_owned(),
                v["outcomes"].as_array().unwrap().len(),
            ),
        })
        .collect()
}

/// Asserts two entry lists are equal, naming the first difference (not both whole lists).
fn assert_same(got: &[Named], want: &[Named], what: &str) {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        panic!(
            "{what}: {} entries, expected {}; first difference at {i}: {:?} instead of {:?}",
            got.len(),
            want.len(),
            &got[i.min(got.len())..(i + 3).min(got.len())],
            &want[i.min(want.len())..(i + 3).min(want.len())],
        );
    }
}

fn ts(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

#[test]
fn windows_filters_and_limits_match_a_whole_reading() {
    let env = trail();
    let t1030 = ts(&at("10:30:00.000"));
    let t1100 = ts(&at("11:00:00.000"));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // (arguments, the filter they mean, calls that must be there, calls that must not)
    type Case<'a> = (Vec<&'a str>, Filter, Vec<&'a str>, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            vec![],
            Filter::default(),
            vec!["marathon", "c_orphan", "d1"],
            vec![],
        ),
        (
            vec!["--since", "2026-03-01T10:30:00Z"],
            Filter {
                since: Some(t1030),
                ..Filter::default()
            },
            // At the edge: in; a millisecond before: out, though its outcome is inside; a
            // call that began more than an hour before: out, though it ended inside.
            vec!["b_since", "c_orphan", "c1"],
            vec!["b_before", "marathon", "fill1199"],
        ),
        (
            vec!["--since", "90m"],
            Filter {
                since: Some(t1030),
                ..Filter::default()
            },
            vec!["b_since"],
            vec!["b_before"],
        ),
        (
            vec!["--until", "2026-03-01T11:00:00Z"],
            Filter {
                until: Some(t1100),
                ..Filter::default()
            },
            // Joined to its outcome after the edge; at the edge: out.
            vec!["b_until", "marathon", "fill0"],
            vec!["b_at_until", "c2", "d1"],
        ),
        (
            vec![
                "--since",
                "2026-03-01T10:30:00Z",
                "--until",
                "2026-03-01T11:00:00Z",
            ],
            Filter {
                since: Some(t1030),
                until: Some(t1100),
                ..Filter::default()
            },
            vec!["b_since", "b_until", "b_mid"],
            vec!["b_at_until", "b_before"],
        ),
        (
            vec!["--since", "2026-03-01T10:30:00Z", "--events"],
            Filter {
                since: Some(t1030),
                events: true,
                ..Filter::default()
            },
            vec!["event"],
            vec![],
        ),
        (
            vec!["--since", "2026-03-01T10:00:00Z", "--session", "bbb"],
            Filter {
                since: Some(ts(&at("10:00:00.000"))),
                session: Some("bbb".into()),
                ..Filter::default()
            },
            vec!["b_before"],
            vec!["c1", "fill1199"],
        ),
        (
            vec![
                "--since",
                "2026-03-01T09:30:00Z",
                "--decision",
                "ask",
                "--decision",
                "deny",
            ],
            Filter {
                since: Some(ts(&at("09:30:00.000"))),
                decisions: s(&["ask", "deny"]),
                ..Filter::default()
            },
            vec!["b_since", "b_mid", "c2"],
            vec!["b_before"],
        ),
        (
            vec!["--domain", "file_write_src", "--domain", "build"],
            Filter {
                domains: s(&["file_write_src", "build"]),
                ..Filter::default()
            },
            vec!["b_mid", "marathon"],
            vec!["b_since"],
        ),
    ];
    for (args, filter, present, absent) in cases {
        let got = named(&json_lines(&env, &args));
        let want = expected(&env, &filter);
        assert_same(&got, &want, &format!("{args:?}"));
        for id in present {
            assert!(got.iter().any(|(g, _)| g == id), "{args:?}: {id} missing");
        }
        for id in absent {
            assert!(!got.iter().any(|(g, _)| g == id), "{args:?}: {id} shown");
        }
        // --limit: the latest entries of the same.
        let last2 = named(&json_lines(&env, &[&args[..], &["--limit", "2"]].concat()));
        assert_same(
            &last2,
            &want[want.len().saturating_sub(2)..],
            &format!("{args:?} --limit 2"),
        );
        // The table counts the same entries and shows the latest.
        let out = env
            .oath()
            .arg("audit")
            .args(&args)
            .args(["--limit", "3"])
            .env("OATH_NOW", NOW)
            .output()
            .unwrap();
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(
            table.contains(&format!(": {} entr", want.len())),
            "{args:?}: {table}"
        );
        let rows = table
            .lines()
            .skip_while(|l| !l.starts_with("time"))
            .skip(1)
            .count();
        assert_eq!(rows, want.len().min(3), "{args:?}: {table}");
    }
    // A call with two outcome records is one entry.
    let all = json_lines(&env, &[]);
    let c2 = all.iter().find(|v| v["tool_use_id"] == "c2").unwrap();
    assert_eq!(c2["outcomes"].as_array().unwrap().len(), 2);
    assert_eq!(c2["pre"]["decision"], "ask");
}

#[test]
fn json_lines_stream_the_whole_trail_oldest_first() {
    let env = trail();
    let lines = json_lines(&env, &["--events"]);
    let want = expected(
        &env,
        &Filter {
            events: true,
            ..Filter::default()
        },
    );
    assert_same(&named(&lines), &want, "--events");
    let times: Vec<Timestamp> = lines
        .iter()
        .map(|v| {
            let r = if v["pre"].is_object() {
                &v["pre"]
            } else if v["event"].is_object() {
                &v["event"]
            } else {
                &v["outcomes"][0]
            };
            ts(r["timestamp"].as_str().unwrap())
        })
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "not oldest first");
    // The records are the lines as written.
    let d1 = lines.iter().find(|v| v["tool_use_id"] == "d1").unwrap();
    assert_eq!(
        d1["pre"],
        pre("ddd-fourth", "d1", "11:29:00.000", "shell_exec", "allow")
    );
    assert_eq!(d1["outcomes"], json!([]));
    // Unreadable lines are counted on stderr, never mixed into the output.
    let out = env.oath().args(["audit", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 lines in the audit trail could not be read"),
        "{stderr}"
    );
}

/// The measuring trail, smaller: 30,000 records in 6 session files over 30 days, ending at
/// `NOW`.
fn synthetic(env: &TestEnv) -> std::path::PathBuf {
    let dir = env.state_dir().join("audit");
    write_synthetic_audit(&dir, 30_000, ts(NOW));
    dir
}

/// An entry as read: its time and call id.
type Seen = (Option<Timestamp>, Option<String>);

fn collect(dir: &Path, filter: &Filter) -> (Vec<Seen>, trail::Stats) {
    let mut got = Vec::new();
    let stats = trail::read(dir, filter, |e| {
        got.push((e.time, e.tool_use_id.clone()));
        ControlFlow::Continue(())
    })
    .unwrap();
    (got, stats)
}

#[test]
fn since_reads_the_window_not_the_trail() {
    let env = TestEnv::new();
    let dir = synthetic(&env);
    let since = ts(NOW).plus_seconds(-4 * 3600);
    let window = Filter {
        since: Some(since),
        ..Filter::default()
    };
    let (got, stats) = collect(&dir, &window);
    let (all, full) = collect(&dir, &Filter::default());
    assert_eq!(full.lines_read, 30_000);
    let want: Vec<_> = all
        .into_iter()
        .filter(|(t, _)| t.is_some_and(|t| t >= since))
        .collect();
    assert!(want.len() > 50, "{}", want.len());
    assert_eq!(got, want);
    // Four hours of the last session, the hour before them and a block: not the trail, nor
    // the last session's 5,000 lines.
    assert!(stats.lines_read < 1_500, "{stats:?}");
    assert!(stats.probe_lines < 200, "{stats:?}");
    assert_eq!(stats.files_skipped, 5, "{stats:?}");

    // Garbage in the part before the window is never read, so never reported; a whole
    // reading reports it.
    let last = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .unwrap();
    let text = std::fs::read_to_string(&last).unwrap();
    let (head, tail) = text.split_at(text.len() / 3);
    let cut = head.rfind('\n').unwrap() + 1;
    let garbage = "{\"kind\": torn\n".repeat(1000);
    std::fs::write(
        &last,
        format!("{}{garbage}{}{tail}", &head[..cut], &head[cut..]),
    )
    .unwrap();
    let audit = |args: &[&str]| {
        let out = env
            .oath()
            .arg("audit")
            .args(args)
            .env("OATH_NOW", NOW)
            .output()
            .unwrap();
        assert!(out.status.success());
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (stdout, stderr) = audit(&["--since", "4h"]);
    assert!(!stderr.contains("could not be read"), "{stderr}");
    assert!(
        stdout.contains(&format!(": {} entries, the last 50 shown", want.len())),
        "{stdout}"
    );
    let (_, stderr) = audit(&[]);
    assert!(
        stderr.contains("1000 lines in the audit trail could not be read"),
        "{stderr}"
    );
    let (_, stats) = collect(&dir, &window);
    assert_eq!(stats.unreadable, 0);
    assert!(stats.lines_read < 1_500, "{stats:?}");
}

#[test]
fn a_session_filter_skips_other_sessions_files() {
    let env = trail();
    let dir = env.state_dir().join("audit");
    let filter = Filter {
        session: Some("ccc".into()),
        ..Filter::default()
    };
    let (got, stats) = collect(&dir, &filter);
    assert_eq!(stats.files_skipped, 3);
    let ids: Vec<_> = got.iter().filter_map(|(_, id)| id.as_deref()).collect();
    assert_eq!(ids, ["c1", "c_orphan", "c2"]);
}

/// Writes a synthetic trail for measuring `oath audit` by hand:
///
/// ```text
/// OATH_AUDIT_SYNTH_DIR=/tmp/synth OATH_AUDIT_SYNTH_RECORDS=1000000 \
///   cargo test --test it synthetic_trail_for_measuring -- --ignored --nocapture
/// ```
///
/// then runs, from `$OATH_AUDIT_SYNTH_DIR/project` with `OATH_HOME=$OATH_AUDIT_SYNTH_DIR/home`
/// and `OATH_NOW=2026-03-01T12:00:00Z`, e.g. `/usr/bin/time -v oath audit --since 2h`.
#[test]
#[ignore = "writes a large trail for measuring; run by hand"]
fn synthetic_trail_for_measuring() {
    let root = std::path::PathBuf::from(
        std::env::var("OATH_AUDIT_SYNTH_DIR").expect("set OATH_AUDIT_SYNTH_DIR"),
    );
    let records: usize = std::env::var("OATH_AUDIT_SYNTH_RECORDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let env = oath::project::Env {
        oath_home: Some(root.join("home")),
        ..Default::default()
    };
    let state = oath::project::Project::at(&env, project.clone()).state_dir;
    let files = write_synthetic_audit(&state.join("audit"), records, ts(NOW));
    println!(
        "{records} records in {files} files under {}\nrun: cd {} && OATH_HOME={} OATH_NOW={NOW} oath audit --since 2h",
        state.display(),
        project.display(),
        root.join("home").display()
    );
}
