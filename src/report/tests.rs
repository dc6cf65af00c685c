//! The report's model and page, built from audit records read back by the trail reader.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::{Value, json};

use super::html::{self, Meta};
use super::model::{Builder, Mark, Model, thresholds};
use super::{kpt_for, strikes_by_call};
use crate::audit::{MAX_STRING_BYTES, trail};
use crate::classify::Risk;
use crate::clock::Timestamp;
use crate::strike::store::{Attempt, ErrorsFile};
use crate::trust::{AutonomyParams, RiskWeights, autonomy};

const SESSION: &str = "2a8a8413-report-test";

fn at(n: usize) -> String {
    Timestamp::from_unix_millis(1_772_355_600_000 + n as i128 * 1000).iso_millis()
}

fn pre(n: usize, decision: &str, domain: &str, input: Value, reason: &str) -> Value {
    json!({"v": 1, "kind": "pre", "timestamp": at(n), "session_id": SESSION,
           "tool_use_id": format!("toolu_{n}"), "tool_name": "Bash", "tool_input": input,
           "domain": domain, "risk_category": "low", "rule": "shell.test", "decision": decision,
           "reason": reason, "trust_score_before": 0.5, "outcome": "pending"})
}

fn outcome(n: usize, domain: &str, ok: bool, trust: Option<(f64, f64)>) -> Value {
    json!({"v": 1, "kind": "outcome", "timestamp": at(n), "session_id": SESSION,
           "tool_use_id": format!("toolu_{n}"), "tool_name": "Bash", "domain": domain,
           "outcome": if ok { "success" } else { "failure" },
           "trust_score_before": trust.map(|t| t.0), "trust_score_after": trust.map(|t| t.1),
           "trust_applied": trust.is_some(), "duration_ms": 10})
}

/// Reads records back as `oath report` does (one audit file, the trail reader) into a model.
fn model_of(records: &[Value], strikes: HashMap<String, u32>) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(dir.path().join(format!("{SESSION}.jsonl")), text).unwrap();
    let filter = trail::Filter {
        events: true,
        ..trail::Filter::default()
    };
    let mut b = Builder::new("/p", strikes);
    trail::read(dir.path(), &filter, |e| {
        b.push(&e);
        ControlFlow::Continue(())
    })
    .unwrap();
    b.finish(
        thresholds(&RiskWeights::default(), &AutonomyParams::default()),
        None,
    )
}

fn page(model: &Model) -> String {
    html::render(
        model,
        &Meta {
            project: "p".into(),
            scope: String::new(),
            generated: Timestamp::from_unix(0),
        },
    )
}

/// Returns the value of an attribute of every element that has `marker` in its start tag.
fn attrs(page: &str, marker: &str, attr: &str) -> Vec<String> {
    page.match_indices(marker)
        .filter_map(|(i, _)| {
            let start = page[..=i].rfind('<')?;
            let end = i + page[i..].find('>')?;
            let tag = &page[start..end];
            let key = format!(" {attr}=\"");
            let from = tag.find(&key)? + key.len();
            Some(tag[from..from + tag[from..].find('"')?].to_owned())
        })
        .collect()
}

/// Subpaths of the call-mark paths, by class.
fn marks(page: &str) -> HashMap<String, usize> {
    let classes = attrs(page, "data-kind=\"call\"", "class");
    let ds = attrs(page, "data-kind=\"call\"", "d");
    classes
        .into_iter()
        .zip(ds)
        .map(|(c, d)| (c, d.matches('M').count()))
        .collect()
}

fn mixed() -> Vec<Value> {
    let cmd = |s: &str| json!({"command": s});
    vec![
        json!({"v": 1, "kind": "session_start", "timestamp": at(0), "session_id": SESSION}),
        json!({"v": 1, "kind": "event", "timestamp": at(0), "session_id": SESSION,
               "hook_event_name": "UserPromptSubmit"}),
        pre(
            1,
            "allow",
            "file_read",
            cmd("ls"),
            "oath allow: trust allows this",
        ),
        outcome(1, "file_read", true, Some((0.5, 0.525))),
        pre(
            2,
            "allow",
            "file_read",
            cmd("cat a"),
            "oath allow: trust allows this",
        ),
        outcome(2, "file_read", false, Some((0.525, 0.42))),
        pre(3, "no_opinion", "build", cmd("make"), "no opinion"),
        outcome(3, "build", true, Some((0.3, 0.33))),
        pre(
            4,
            "ask",
            "git_remote",
            cmd("git push"),
            "oath ask: irreversible",
        ),
        pre(
            5,
            "deny",
            "file_delete",
            cmd("rm -rf ~"),
            "oath deny: catastrophic",
        ),
        json!({"v": 1, "kind": "outcome", "timestamp": at(5), "session_id": SESSION,
               "tool_use_id": "toolu_5", "outcome": "denied", "refused_by": "oath",
               "trust_applied": false}),
        outcome(6, "build", true, None),
    ]
}

#[test]
fn one_mark_per_call_in_the_lane_of_its_decision() {
    let m = model_of(&mixed(), HashMap::new());
    assert_eq!(m.calls.len(), 6);
    let got = marks(&page(&m));
    let want: HashMap<String, usize> = [
        ("allow", 2),
        ("no_opinion", 1),
        ("ask", 1),
        ("deny", 1),
        ("none", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(got, want);
    let t = &m.totals;
    assert_eq!(
        (
            t.calls,
            t.allowed,
            t.no_opinion,
            t.asked,
            t.denied,
            t.failures,
            t.prompts
        ),
        (6, 2, 1, 1, 1, 1, 1)
    );
    assert_eq!(m.calls[4].outcome, "denied");
    assert_eq!(m.calls[4].refused_by, "oath");
    assert_eq!(m.calls[0].risk, "low");
    assert_eq!(m.prompts, vec![0]);
}

#[test]
fn the_ungated_lane_shows_only_when_a_call_has_no_pre_record() {
    let records: Vec<Value> = mixed().into_iter().take(6).collect();
    let p = page(&model_of(&records, HashMap::new()));
    assert!(!marks(&p).contains_key("none"), "{:?}", marks(&p));
    assert!(!p.contains("no pre record</div>"));
}

#[test]
fn each_trust_line_has_a_point_before_and_one_per_applied_outcome() {
    let m = model_of(&mixed(), HashMap::new());
    let lines: Vec<(&str, Vec<(f64, f64)>)> = m
        .trust
        .iter()
        .map(|l| (l.domain.as_str(), l.points.clone()))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("file_read", vec![(0.0, 0.5), (1.0, 0.525), (2.0, 0.42)]),
            ("build", vec![(2.0, 0.3), (3.0, 0.33)]),
        ]
    );
    let p = page(&m);
    assert_eq!(
        attrs(&p, "<polyline", "data-domain"),
        ["file_read", "build"]
    );
    let points = attrs(&p, "<polyline", "points");
    let counts: Vec<usize> = points.iter().map(|s| s.split(' ').count()).collect();
    assert_eq!(counts, [3, 2]);
    assert_eq!(attrs(&p, "<polyline", "data-points"), ["3", "2"]);
}

#[test]
fn each_level_of_a_domain_has_a_line_of_its_own() {
    let cmd = |s: &str| json!({"command": s});
    let leveled = |n: usize, level: &str, trust: (f64, f64)| {
        let mut o = outcome(n, "container", true, Some(trust));
        o["trust_level"] = json!(level);
        o
    };
    let records = vec![
        pre(1, "allow", "container", cmd("docker ps"), "ok"),
        leveled(1, "low", (0.3, 0.335)),
        pre(
            2,
            "no_opinion",
            "container",
            cmd("docker build ."),
            "no opinion",
        ),
        leveled(2, "medium", (0.3, 0.36)),
        pre(3, "allow", "container", cmd("docker ps"), "ok"),
        leveled(3, "low", (0.36825, 0.39984)),
    ];
    let m = model_of(&records, HashMap::new());
    type Line<'a> = (String, &'a str, Vec<(f64, f64)>);
    let lines: Vec<Line> = m
        .trust
        .iter()
        .map(|l| (l.label(), l.domain.as_str(), l.points.clone()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                "container (low)".to_owned(),
                "container",
                vec![(0.0, 0.3), (1.0, 0.335), (3.0, 0.39984)]
            ),
            (
                "container (medium)".to_owned(),
                "container",
                vec![(1.0, 0.3), (2.0, 0.36)]
            ),
        ]
    );
    let p = page(&m);
    assert_eq!(
        attrs(&p, "<polyline", "data-domain"),
        ["container", "container"]
    );
    assert_eq!(attrs(&p, "<polyline", "data-level"), ["low", "medium"]);
    assert!(
        p.contains("container (medium) 0.36"),
        "the legend names the level"
    );
}

#[test]
fn thresholds_are_where_the_formula_changes_its_answer() {
    let (w, a) = (RiskWeights::default(), AutonomyParams::default());
    let ts = thresholds(&w, &a);
    assert!(!ts.is_empty());
    for t in &ts {
        let level = if t.kind == "allow" {
            a.auto_approve_threshold
        } else {
            a.human_required_threshold
        };
        assert!(
            (autonomy(t.trust, t.risk, &w) - level).abs() < 1e-6,
            "{t:?}"
        );
        assert!((0.0..=1.0).contains(&t.trust), "{t:?}");
    }
    // Medium risk is allowed from a trust the README states (0.6).
    let medium = ts
        .iter()
        .find(|t| t.risk == Risk::Medium && t.kind == "allow")
        .unwrap();
    assert!((medium.trust - 0.6).abs() < 0.01, "{medium:?}");
    let p = page(&model_of(&mixed(), HashMap::new()));
    let drawn = attrs(&p, "<line class=\"allow\"", "data-risk").len()
        + attrs(&p, "<line class=\"ask\"", "data-risk").len();
    assert_eq!(drawn, ts.len());
}

#[test]
fn text_is_escaped_and_cannot_leave_its_element() {
    let nasty = "echo \"</script><img src=x onerror=alert(1)>\" && x='<b>&amp;'";
    let records = vec![
        pre(1, "allow", "shell_exec", json!({"command": nasty}), nasty),
        outcome(1, "shell_exec", true, Some((0.5, 0.52))),
    ];
    let mut m = model_of(&records, HashMap::new());
    m.trust[0].domain = "<svg onload=x>".into();
    let p = page(&m);
    assert!(!p.contains("<img"), "raw markup from a record");
    assert!(!p.contains("<svg onload"), "raw markup from a domain");
    assert_eq!(p.matches("</script>").count(), 2, "scripts: data and code");
    // The data round-trips whole through the JSON the script reads.
    let start = p.find("id=\"calls\">").unwrap() + "id=\"calls\">".len();
    let end = start + p[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&p[start..end]).unwrap();
    let texts: Vec<&str> = data["s"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(texts.contains(&nasty), "{texts:?}");
    let cases = [
        ("a<b", "a&lt;b"),
        ("\"q\" & 'r'", "&quot;q&quot; &amp; &#39;r&#39;"),
        ("plain", "plain"),
    ];
    for (raw, want) in cases {
        assert_eq!(html::esc(raw), want);
    }
}

#[test]
fn inputs_are_shown_as_the_audit_cut_them_and_nothing_else_of_them() {
    let long = format!("echo {}", "x".repeat(10_000));
    let records = vec![
        pre(1, "allow", "shell_exec", json!({"command": long}), "r"),
        pre(
            2,
            "allow",
            "file_write",
            json!({"file_path": "/p/src/a.rs", "content": "NOT-SHOWN-CONTENT"}),
            "r",
        ),
        pre(
            3,
            "allow",
            "shell_exec",
            json!({"command": "curl -H 'Authorization: Bearer [REDACTED]' x"}),
            "r",
        ),
    ];
    let m = model_of(&records, HashMap::new());
    assert!(m.calls[0].target.len() <= MAX_STRING_BYTES);
    assert!(m.calls[0].target.contains("truncated by oath: 10005 bytes"));
    assert_eq!(
        m.calls[1].target, "src/a.rs",
        "the project root is taken off"
    );
    let p = page(&m);
    assert!(!p.contains("NOT-SHOWN-CONTENT"));
    assert!(!p.contains(&"x".repeat(MAX_STRING_BYTES)));
    assert!(p.contains("curl -H"), "{p}");
    assert!(p.contains("[REDACTED]"), "{p}");
}

#[test]
fn strikes_and_escalations_are_marked() {
    let cmd = json!({"command": "cargo test"});
    let mut records = Vec::new();
    for n in 1..=3 {
        records.push(pre(n, "allow", "test_run", cmd.clone(), "ok"));
        records.push(outcome(n, "test_run", false, Some((0.5, 0.45))));
    }
    records.push(pre(
        4,
        "ask",
        "test_run",
        cmd,
        "oath ask: 3-strike: `cargo test` already failed",
    ));
    let errors = ErrorsFile {
        attempts: (1..=3)
            .map(|n| Attempt {
                tool_use_id: Some(format!("toolu_{n}")),
                strike: Some(n as u32),
                ..serde_json::from_value(json!({})).unwrap()
            })
            .collect(),
        ..ErrorsFile::default()
    };
    let m = model_of(&records, strikes_by_call(&errors));
    let s: Vec<Option<u32>> = m.calls.iter().map(|c| c.strike).collect();
    assert_eq!(s, [Some(1), Some(2), Some(3), None]);
    assert!(m.calls[3].escalation);
    assert_eq!((m.totals.strikes, m.totals.escalations), (2, 2));
    let p = page(&m);
    let count = |cls: &str| {
        let d = attrs(&p, &format!("<path class=\"{cls}\""), "d");
        d.first().map_or(0, |d| d.matches('M').count())
    };
    assert_eq!((count("fail"), count("strike"), count("esc")), (3, 2, 2));
    assert_eq!(
        marks(&p).values().sum::<usize>(),
        4,
        "annotations are not calls"
    );
}

const KPT: &str = "id: kpt-20260301-002
created_at: 2026-03-01T15:00:00Z
session_id: 2a8a8413-report-test
session_summary: \"Made the report <fast>\"
task_goals:
  - \"Write the report\"
outcome: partial
keep:
  - id: keep-001
    description: \"Tests first\"
    evidence: \"turns 3-10\"
    category: approach
problem:
  - id: prob-001
    description: \"A dependency added unchecked\"
    impact: medium
    evidence: \"turn 12\"
    category: oversight
try:
  - id: try-001
    description: \"Check Cargo.toml first\"
    addresses: [\"prob-001\"]
    scope: global
omission: []
";

#[test]
fn the_outcome_record_s_own_strike_count_wins_over_the_3_strike_log() {
    let cmd = json!({"command": "cargo test"});
    let mut records = Vec::new();
    for n in 1..=3 {
        records.push(pre(n, "allow", "test_run", cmd.clone(), "ok"));
        let mut o = outcome(n, "test_run", false, Some((0.5, 0.45)));
        o["strike"] = json!(n);
        records.push(o);
    }
    // The log is another branch's (or was reset): it does not know these calls.
    let m = model_of(&records, HashMap::new());
    let s: Vec<Option<u32>> = m.calls.iter().map(|c| c.strike).collect();
    assert_eq!(s, [Some(1), Some(2), Some(3)]);
    assert_eq!((m.totals.strikes, m.totals.escalations), (2, 1));
}

#[test]
fn the_retrospective_shows_only_when_the_session_has_one() {
    let mut m = model_of(&mixed(), HashMap::new());
    assert!(!page(&m).contains("id=\"kpt\""));
    let older = KPT
        .replace("kpt-20260301-002", "kpt-20260301-001")
        .replace("Write the report", "older");
    let other = KPT
        .replace("kpt-20260301-002", "kpt-20260301-003")
        .replace(SESSION, "someone-else");
    let files = [
        ("kpt-20260301-001", older),
        ("kpt-20260301-002", KPT.to_owned()),
        ("kpt-20260301-003", other),
        ("kpt-20260301-004", "id: kpt-20260301-004\n".to_owned()),
    ]
    .map(|(s, t)| (s.to_owned(), t));
    m.kpt = kpt_for(files, SESSION);
    let leaked = KPT.replace(
        "turns 3-10",
        "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
    );
    let redacted = kpt_for([("kpt-20260301-002".to_owned(), leaked)], SESSION).unwrap();
    assert!(
        !redacted.keep[0].evidence.contains("ghp_0123"),
        "{redacted:?}"
    );
    assert_eq!(
        m.kpt.as_ref().map(|r| r.id.as_str()),
        Some("kpt-20260301-002")
    );
    let p = page(&m);
    let section = &p[p.find("id=\"kpt\"").unwrap()..];
    for want in [
        "Write the report",
        "Tests first",
        "A dependency added unchecked",
        "Check Cargo.toml first",
        "Made the report &lt;fast&gt;",
    ] {
        assert!(section.contains(want), "{want}");
    }
}

#[test]
fn marks_parse_every_decision() {
    for m in Mark::ALL {
        let back = Mark::parse(Some(m.as_str()));
        assert_eq!(back, m);
    }
    assert_eq!(Mark::parse(None), Mark::Ungated);
}

#[test]
fn the_policy_lets_run_the_page_s_own_script_and_no_other() {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let p = page(&model_of(&mixed(), HashMap::new()));
    let policy = attrs(&p, "http-equiv=\"Content-Security-Policy\"", "content");
    let [policy] = policy.as_slice() else {
        panic!("one policy: {policy:?}")
    };
    let script_src = policy
        .split(';')
        .map(str::trim)
        .find_map(|d| d.strip_prefix("script-src "))
        .expect("script-src");
    assert!(!script_src.contains("unsafe"), "{script_src}");
    // The scripts that run: every `<script>` but the JSON data block.
    let runnable: Vec<&str> = p
        .split("<script")
        .skip(1)
        .filter(|s| !s.starts_with(" type=\"application/json\""))
        .map(|s| &s[s.find('>').unwrap() + 1..s.find("</script>").unwrap()])
        .collect();
    assert_eq!(runnable.len(), 1);
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(runnable[0]));
    assert_eq!(script_src, format!("'sha256-{hash}'"));
}

#[test]
fn a_call_its_own_answer_refused_is_denied_by_oath_not_pending() {
    // As the gate writes them: Codex's ask with the deny it was answered.
    let codex = |n: usize, decision: &str| {
        let mut p = pre(n, decision, "shell_exec", json!({"command": "x"}), "r");
        p["agent"] = json!("codex");
        if decision == "ask" {
            p["answered"] = json!("deny");
        }
        p
    };
    let records = [
        codex(1, "ask"),
        codex(2, "deny"),
        pre(3, "ask", "shell_exec", json!({"command": "y"}), "r"),
        codex(4, "allow"),
    ];
    let m = model_of(&records, HashMap::new());
    let got: Vec<(&str, &str)> = m
        .calls
        .iter()
        .map(|c| (c.outcome.as_str(), c.refused_by.as_str()))
        .collect();
    // Codex cannot ask: its ask was a deny. Claude Code's ask waits for its answer.
    assert_eq!(
        got,
        [
            ("denied", "oath"),
            ("denied", "oath"),
            ("pending", ""),
            ("pending", "")
        ]
    );
    // The cards count what the clients were answered: one ask, two denials.
    assert_eq!((m.totals.asked, m.totals.denied), (1, 2));
}

#[test]
fn an_empty_trail_makes_a_page_that_says_so() {
    let m = model_of(&[], HashMap::new());
    let p = page(&m);
    assert!(p.contains("No tool calls"));
    assert!(p.contains("id=\"calls\""));
}

#[test]
fn the_risk_kind_and_a_refusal_text_are_shown_when_the_records_hold_them() {
    let mut p = pre(
        1,
        "ask",
        "git_remote",
        json!({"command": "git push -f"}),
        "r",
    );
    p["risk_kind"] = json!("irreversible");
    let refused = json!({"v": 1, "kind": "outcome", "timestamp": at(1), "session_id": SESSION,
        "tool_use_id": "toolu_1", "outcome": "refused", "refused_by": "client",
        "reason": "The user doesn't want to proceed", "trust_applied": false});
    let m = model_of(&[p, refused], HashMap::new());
    assert_eq!(m.calls[0].risk, "low, irreversible");
    assert_eq!(m.calls[0].outcome, "refused");
    assert_eq!(m.calls[0].error, "The user doesn't want to proceed");
}

#[test]
fn a_secret_an_earlier_oath_left_in_clear_is_masked_on_the_page() {
    let token = "ghp_R8q2mX7vLp4sT9wZk3nB6cY1dF5gH0jQ2aE4";
    let mut o = outcome(1, "shell_exec", false, None);
    o["error"] = json!(format!("remote: bad credentials {token}"));
    let records = [
        pre(
            1,
            "allow",
            "shell_exec",
            json!({"command": format!("git push https://x:{token}@github.com/o/r")}),
            &format!("token {token}"),
        ),
        o,
    ];
    let p = page(&model_of(&records, HashMap::new()));
    assert!(p.contains("github.com/o/r"), "the call is shown");
    assert!(!p.contains(&token[4..]), "{p}");
}
