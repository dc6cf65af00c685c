//! Tests of the strike files' pure rules.

use super::*;

const DAY: Expiry = Expiry { seconds: 86_400 };

fn failure(hash: &str, intent: &str) -> NewFailure {
    NewFailure {
        hash: hash.into(),
        intent: intent.into(),
        attempt: Attempt {
            timestamp: "2026-01-01T00:00:00Z".into(),
            tool: "Bash".into(),
            error: format!("Exit code 1\nerror {hash}"),
            status: UNRESOLVED.into(),
            hash: hash.into(),
            strike: None,
            input: None,
            action: None,
            intent: Some(intent.into()),
            session_id: Some("s1".into()),
            tool_use_id: None,
            agent_id: None,
            resolved_at: None,
            resolution: None,
            extra: Map::new(),
        },
    }
}

enum Step {
    Fail(&'static str, &'static str),
    /// A failure in another session.
    FailIn(&'static str, &'static str, &'static str),
    /// A failure at another time.
    FailAt(&'static str, &'static str, &'static str),
    Succeed(&'static str),
    Resolve(&'static str),
    Reset,
}
use Step::*;

/// Runs steps and returns the strike count after each failure (0 for other steps).
fn run(steps: &[Step]) -> (Vec<u32>, Index, ErrorsFile) {
    let mut index = Index::default();
    let mut errors = ErrorsFile::default();
    let counts = steps
        .iter()
        .map(|s| match s {
            Fail(h, a) => record_failure(&mut index, &mut errors, failure(h, a), 1000, DAY),
            FailIn(h, a, session) => {
                let mut f = failure(h, a);
                f.attempt.session_id = Some((*session).into());
                record_failure(&mut index, &mut errors, f, 1000, DAY)
            }
            FailAt(h, a, t) => {
                let mut f = failure(h, a);
                f.attempt.timestamp = (*t).into();
                record_failure(&mut index, &mut errors, f, 1000, DAY)
            }
            Succeed(a) => {
                index.record_success(a, "t");
                0
            }
            Resolve(h) => {
                resolve(&mut index, &mut errors, Some(h), "t", "user");
                0
            }
            Reset => {
                resolve(&mut index, &mut errors, None, "t", "reset");
                0
            }
        })
        .collect();
    (counts, index, errors)
}

#[test]
fn strike_counting() {
    let cases: &[(&str, &[Step], &[u32])] = &[
        (
            "same error repeats",
            &[
                Fail("A", "a"),
                Fail("A", "a"),
                Fail("A", "a"),
                Fail("A", "a"),
            ],
            &[1, 2, 3, 4],
        ),
        (
            "A-B-A-B still escalates",
            &[
                Fail("A", "a"),
                Fail("B", "b"),
                Fail("A", "a"),
                Fail("B", "b"),
                Fail("A", "a"),
                Fail("B", "b"),
            ],
            &[1, 1, 2, 2, 3, 3],
        ),
        (
            "success of the same action resets",
            &[Fail("A", "a"), Fail("A", "a"), Succeed("a"), Fail("A", "a")],
            &[1, 2, 0, 1],
        ),
        (
            "success of another intent does not",
            &[Fail("A", "a"), Fail("A", "a"), Succeed("z"), Fail("A", "a")],
            &[1, 2, 0, 3],
        ),
        (
            "another error of the same intent ends the run",
            &[
                Fail("A", "a"),
                Fail("A", "a"),
                Fail("B", "a"),
                Fail("A", "a"),
            ],
            &[1, 2, 1, 1],
        ),
        (
            "errors of other intents in between do not",
            &[
                Fail("A", "a"),
                Fail("B", "b"),
                Fail("C", "c"),
                Fail("A", "a"),
            ],
            &[1, 1, 1, 2],
        ),
        (
            "a new session counts from 1",
            &[
                Fail("A", "a"),
                Fail("A", "a"),
                FailIn("A", "a", "s2"),
                FailIn("A", "a", "s2"),
                FailIn("A", "a", "s2"),
            ],
            &[1, 2, 1, 2, 3],
        ),
        (
            "a count expires",
            &[
                FailAt("A", "a", "2026-01-01T00:00:00Z"),
                FailAt("A", "a", "2026-01-01T10:00:00Z"),
                FailAt("A", "a", "2026-01-02T11:00:00Z"),
                FailAt("A", "a", "2026-01-02T12:00:00Z"),
            ],
            &[1, 2, 1, 2],
        ),
        (
            "resolve resets one hash",
            &[
                Fail("A", "a"),
                Fail("B", "b"),
                Fail("A", "a"),
                Fail("B", "b"),
                Resolve("A"),
                Fail("A", "a"),
                Fail("B", "b"),
            ],
            &[1, 1, 2, 2, 0, 1, 3],
        ),
        (
            "reset resets all",
            &[
                Fail("A", "a"),
                Fail("A", "a"),
                Fail("B", "b"),
                Reset,
                Fail("A", "a"),
                Fail("B", "b"),
            ],
            &[1, 2, 1, 0, 1, 1],
        ),
    ];
    for (name, steps, want) in cases {
        let (got, _, _) = run(steps);
        assert_eq!(&got, want, "{name}");
    }
}

#[test]
fn escalation_is_per_intent_and_session_and_cleared_by_success() {
    let t = "2026-01-01T01:00:00Z";
    let esc = |index: &Index, intent: &str, session: Option<&str>, now: &str| {
        index
            .escalation(intent, session, now, DAY)
            .map(|(h, e)| (h.clone(), e.count))
    };
    let (_, mut index, _) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("A", "a")]);
    assert_eq!(esc(&index, "a", Some("s1"), t), Some(("A".into(), 3)));
    assert_eq!(esc(&index, "a", None, t), Some(("A".into(), 3)));
    assert_eq!(esc(&index, "b", Some("s1"), t), None);
    assert_eq!(esc(&index, "a", Some("s2"), t), None, "another session");
    assert_eq!(
        esc(&index, "a", Some("s1"), "2026-01-03T00:00:00Z"),
        None,
        "expired"
    );
    assert!(index.record_success("a", "t"));
    assert_eq!(esc(&index, "a", Some("s1"), t), None);
    assert!(!index.record_success("a", "t"), "nothing left to reset");
    let (_, index, _) = run(&[Fail("A", "a"), Fail("A", "a")]);
    assert_eq!(
        esc(&index, "a", Some("s1"), t),
        None,
        "strike 2 does not ask"
    );
}

#[test]
fn only_tools_that_failed_need_an_action_key() {
    let (_, mut index, _) = run(&[Fail("A", "a"), Fail("A", "a")]);
    assert!(index.may_count_tool("Bash", false));
    assert!(
        !index.may_count_tool("Bash", true),
        "strike 2 is not escalated"
    );
    assert!(!index.may_count_tool("Write", false));
    let (_, escalated, _) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("A", "a")]);
    assert!(escalated.may_count_tool("Bash", true));
    assert!(!escalated.may_count_tool("Write", true));
    // An index written before tools were recorded cannot rule any tool out.
    for e in index.hashes.values_mut() {
        e.tools.clear();
    }
    assert!(index.may_count_tool("Write", false));
    // A rebuild from the log records them again.
    let (_, _, errors) = run(&[Fail("A", "a")]);
    assert_eq!(Index::rebuild(&errors).hashes["A"].tools, vec!["Bash"]);
    // The file-editing tools are one family: an escalated Edit also matches a Write.
    let mut f = failure("E", "edit a");
    f.attempt.tool = "Edit".into();
    let (mut index, mut errors) = (Index::default(), ErrorsFile::default());
    for _ in 0..3 {
        record_failure(&mut index, &mut errors, f.clone(), 100, DAY);
    }
    assert!(index.may_count_tool("Write", true));
    assert!(!index.may_count_tool("Bash", true));
}

#[test]
fn seed_fields_follow_the_last_error() {
    let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("B", "b")]);
    assert_eq!(
        (errors.strike_count, errors.last_error_hash.as_str()),
        (1, "B")
    );
    let (_, _, errors) = run(&[Fail("A", "a"), Fail("B", "b"), Fail("A", "a")]);
    assert_eq!(
        (errors.strike_count, errors.last_error_hash.as_str()),
        (2, "A")
    );
    let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Resolve("A")]);
    assert_eq!(
        (errors.strike_count, errors.last_error_hash.as_str()),
        (0, "")
    );
    assert!(errors.attempts.iter().all(|a| a.status == RESOLVED));
}

#[test]
fn successes_reach_the_log_on_its_next_write() {
    let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Succeed("a"), Fail("B", "b")]);
    let statuses: Vec<_> = errors.attempts.iter().map(|a| a.status.as_str()).collect();
    assert_eq!(statuses, [RESOLVED, RESOLVED, UNRESOLVED]);
    assert_eq!(errors.attempts[0].resolution.as_deref(), Some("success"));
}

#[test]
fn a_stale_index_is_rebuilt_from_the_log() {
    let (_, index, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("B", "b")]);
    let rebuilt = Index::rebuild(&errors);
    assert_eq!(rebuilt.hashes, index.hashes);
    // A lost index (seq 0) is rebuilt before the next failure counts.
    let mut fresh = Index::default();
    let mut errors = errors;
    assert_eq!(
        record_failure(&mut fresh, &mut errors, failure("A", "a"), 1000, DAY),
        3
    );
}

#[test]
fn trimming_drops_resolved_attempts_first() {
    let mut errors = ErrorsFile::default();
    for (n, status) in [UNRESOLVED, RESOLVED, UNRESOLVED, RESOLVED, UNRESOLVED]
        .iter()
        .enumerate()
    {
        let mut a = failure("A", "a").attempt;
        a.status = (*status).into();
        a.timestamp = n.to_string();
        errors.attempts.push(a);
    }
    trim(&mut errors, 3);
    let kept: Vec<_> = errors
        .attempts
        .iter()
        .map(|a| a.timestamp.as_str())
        .collect();
    assert_eq!(kept, ["0", "2", "4"]);
    trim(&mut errors, 2);
    let kept: Vec<_> = errors
        .attempts
        .iter()
        .map(|a| a.timestamp.as_str())
        .collect();
    assert_eq!(kept, ["2", "4"]);
}

#[test]
fn the_index_stays_bounded() {
    let mut index = Index::default();
    let mut errors = ErrorsFile::default();
    for _ in 0..2 {
        record_failure(
            &mut index,
            &mut errors,
            failure("ffffffff", "a"),
            10_000,
            DAY,
        );
    }
    for n in 0..(MAX_HASHES + 50) {
        let h = format!("{n:08x}");
        let mut f = failure(&h, &h);
        f.attempt.timestamp = format!("t{n:05}");
        let count = record_failure(&mut index, &mut errors, f, 10_000, DAY);
        assert_eq!(index.hashes[&h].count, count, "the new hash is kept");
    }
    assert_eq!(index.hashes.len(), MAX_HASHES);
    assert_eq!(index.hashes["ffffffff"].count, 2, "struck hashes are kept");
    assert!(
        !index.hashes.contains_key("00000000"),
        "the oldest single strike goes"
    );
}

#[test]
fn few_resolved_hashes_stay_in_the_index() {
    let mut index = Index::default();
    let mut errors = ErrorsFile::default();
    for n in 0..(MAX_RESOLVED_HASHES + 10) {
        let h = format!("{n:08x}");
        let mut f = failure(&h, &h);
        f.attempt.timestamp = format!("t{n:05}");
        record_failure(&mut index, &mut errors, f, 10_000, DAY);
        assert!(index.record_success(&h, &format!("t{n:05}")));
    }
    record_failure(
        &mut index,
        &mut errors,
        failure("ffffffff", "z"),
        10_000,
        DAY,
    );
    let resolved = index.hashes.values().filter(|e| !e.is_unresolved()).count();
    assert_eq!(resolved, MAX_RESOLVED_HASHES);
    assert!(index.hashes["ffffffff"].is_unresolved());
    assert!(
        !index.hashes.contains_key("00000000"),
        "the least recently seen resolved hash goes"
    );
    assert!(
        index
            .hashes
            .contains_key(&format!("{:08x}", MAX_RESOLVED_HASHES + 9))
    );
}

#[test]
fn seed_files_are_read() {
    let seed = r#"{"attempts":[{"timestamp":"2026-01-25T10:00:00Z","tool":"Bash","error":"npm test","status":"unresolved"}],"strikeCount":1,"lastErrorHash":"3b7610a8"}"#;
    let errors: ErrorsFile = serde_json::from_str(seed).unwrap();
    assert_eq!(errors.attempts.len(), 1);
    assert_eq!(errors.strike_count, 1);
    let index = Index::rebuild(&errors);
    assert!(
        index.hashes.is_empty(),
        "attempts without a hash do not count"
    );
}
