//! The safety policy measured against work nobody here wrote: after 500 ordinary successes
//! across every domain, destruction is still held (ask or deny) and never allowed; ordinary
//! commands (the public Dippy corpus' "safe") flow; figures printed with `--nocapture`.
//!
//! Destructive cases: every case of `tests/cases/classify/adversarial.yaml` and
//! `trust_gate.yaml` recorded at high or critical risk, and every dcg `block` command of the
//! public corpora. A label judged wrong is listed in `tests/cases/safety-exceptions.yaml` with
//! its reason (reviewed like code), never skipped silently.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use oath::classify::{self, Classification, Domain};
use oath::clock::Timestamp;
use oath::decide::Decision;
use oath::trust::{Level, Outcome, TrustFile, TrustParams, apply_outcome};
use serde::Deserialize;
use serde_json::{Value, json};

use super::classify_cases::context;

/// A destructive-case label judged wrong, with the reason.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Exception {
    command: String,
    reason: String,
}

/// Returns the commands `tests/cases/safety-exceptions.yaml` lists as wrong labels (each with
/// a reason of five words or more).
pub fn exceptions() -> HashSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/safety-exceptions.yaml");
    let text = std::fs::read_to_string(path).expect("read the exceptions");
    let list: Vec<Exception> = serde_saphyr::from_str(&text).expect("parse the exceptions");
    for e in &list {
        assert!(
            e.reason.split_whitespace().count() >= 5,
            "an exception says why: {}",
            e.command
        );
    }
    list.into_iter().map(|e| e.command).collect()
}

/// Returns a trust file after `n` ordinary successes spread over every domain, earned at
/// every level: each success is of high-risk work, which raises the high level and every
/// level below it. That is the generous case (the trust one shared score per domain gave):
/// real work earns medium and high only with successes at those levels, so a destructive
/// call held here is held with any trust ordinary work can earn.
pub fn trusted(n: usize) -> TrustFile {
    let params = TrustParams::default();
    let now = Timestamp::parse("2026-11-01T00:00:00Z").expect("a timestamp");
    let mut file = TrustFile::new(now);
    for i in 0..n {
        let d = Domain::ALL[i % Domain::ALL.len()];
        apply_outcome(
            &mut file,
            d.as_str(),
            Level::High,
            Outcome::Success,
            None,
            now,
            &params,
        );
    }
    file
}

/// Decides a classification with the trust a file holds for its domain at its risk level,
/// as the gate does.
pub fn decision(c: &Classification, trust: Option<&TrustFile>) -> Decision {
    let params = TrustParams::default();
    let now = Timestamp::parse("2026-11-01T00:00:00Z").expect("a timestamp");
    let score = trust.map_or(params.initial_score, |t| {
        t.score(c.domain.as_str(), Level::of(c.risk), now, &params)
    });
    match super::classify_cases::decision(c, score) {
        "allow" => Decision::Allow,
        "ask" => Decision::Ask,
        "deny" => Decision::Deny,
        _ => Decision::NoOpinion,
    }
}

/// One case of the classification tables, as far as this test reads it.
#[derive(Debug, Deserialize)]
struct TableCase {
    id: String,
    #[serde(default = "bash")]
    tool: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    risk: String,
}

fn bash() -> String {
    "Bash".into()
}

/// Returns every destructive case: (where it comes from, tool, input, shown).
pub fn destructive_cases() -> Vec<(String, String, Value, String)> {
    let mut out = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/classify");
    for file in ["adversarial.yaml", "trust_gate.yaml"] {
        let text = std::fs::read_to_string(dir.join(file)).expect("read a case table");
        let cases: Vec<TableCase> =
            serde_saphyr::from_str(&text).expect("parse a case table (any extra field is fine)");
        for c in cases {
            if c.risk != "high" && c.risk != "critical" {
                continue;
            }
            let (input, shown) = match (c.command, c.input) {
                (Some(cmd), _) => (json!({ "command": cmd }), cmd),
                (None, Some(i)) => {
                    let shown = i.to_string();
                    (i, shown)
                }
                (None, None) => continue,
            };
            out.push((format!("{file} {}", c.id), c.tool, input, shown));
        }
    }
    for (peer, label, cmd) in super::corpora::labelled() {
        if peer == "dcg" && label == "block" {
            out.push((
                "dcg block".into(),
                "Bash".into(),
                json!({ "command": cmd }),
                cmd,
            ));
        }
    }
    out
}

#[derive(Default)]
struct Held {
    n: usize,
    held: usize,
    allowed: Vec<String>,
    excepted: usize,
}

#[test]
fn destruction_is_held_before_and_after_ordinary_work() {
    let ctx = context();
    let trust = trusted(500);
    let except = exceptions();
    let mut by_state: BTreeMap<&str, Held> = BTreeMap::new();
    let mut used = HashSet::new();
    for (origin, tool, input, shown) in destructive_cases() {
        let c = classify::classify(&tool, &input, &ctx);
        for (state, t) in [("fresh", None), ("trusted", Some(&trust))] {
            let h = by_state.entry(state).or_default();
            let d = decision(&c, t);
            if except.contains(&shown) {
                used.insert(shown.clone());
                h.excepted += 1;
                continue;
            }
            h.n += 1;
            if matches!(d, Decision::Ask | Decision::Deny) {
                h.held += 1;
            }
            if d == Decision::Allow {
                h.allowed.push(format!(
                    "{origin}: {} ({} {} {}, {})",
                    shown.replace('\n', "\\n"),
                    c.domain,
                    c.kind,
                    c.risk,
                    c.rule
                ));
            }
        }
    }
    let unused: Vec<&String> = except.iter().filter(|e| !used.contains(*e)).collect();
    assert!(
        unused.is_empty(),
        "exceptions that name no destructive case: {unused:?}"
    );
    let mut report = String::new();
    for (state, h) in &by_state {
        report.push_str(&format!(
            "{state}: {} destructive cases, {:.1}% held, {} allowed, {} listed as wrong labels\n",
            h.n,
            100.0 * h.held as f64 / h.n as f64,
            h.allowed.len(),
            h.excepted
        ));
    }
    eprintln!("{report}");
    if let Ok(f) = std::env::var("OATH_SAFETY_ALLOWED") {
        let all: Vec<String> = by_state
            .iter()
            .flat_map(|(s, h)| h.allowed.iter().map(move |a| format!("{s} {a}")))
            .collect();
        let _ = std::fs::write(f, all.join("\n"));
    }
    for (state, h) in &by_state {
        assert!(
            h.allowed.is_empty(),
            "{state}: destructive cases allowed:\n{}\n{report}",
            h.allowed.join("\n")
        );
        assert!(
            h.held as f64 >= 0.95 * h.n as f64,
            "{state}: fewer than 95% held\n{report}"
        );
    }
}

#[test]
fn ordinary_commands_flow_after_ordinary_work() {
    let ctx = context();
    let trust = trusted(500);
    let (mut n, mut allowed, mut denied_reads) = (0, 0, Vec::new());
    let mut not_allowed: BTreeMap<String, usize> = BTreeMap::new();
    // `OATH_SAFETY_MISSES=FILE` writes the safe commands not allowed, with kind and rule.
    let mut misses = Vec::new();
    for (peer, label, cmd) in super::corpora::labelled() {
        if peer != "dippy" || label != "safe" {
            continue;
        }
        n += 1;
        let c = classify::classify("Bash", &json!({ "command": cmd }), &ctx);
        let d = decision(&c, Some(&trust));
        if d == Decision::Allow {
            allowed += 1;
        } else {
            *not_allowed
                .entry(format!("{} {}", c.kind, c.rule))
                .or_default() += 1;
            misses.push(format!("{}\t{}\t{}\t{}", c.kind, c.rule, cmd, c.reason));
        }
        if d == Decision::Deny && c.risk == classify::Risk::Low {
            denied_reads.push(cmd);
        }
    }
    if let Ok(f) = std::env::var("OATH_SAFETY_MISSES") {
        std::fs::write(f, misses.join("\n")).expect("write the misses");
    }
    let share = allowed as f64 / n as f64;
    let mut top: Vec<(&String, &usize)> = not_allowed.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    let top: Vec<String> = top
        .iter()
        .take(12)
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    eprintln!(
        "Dippy safe after 500 ordinary successes: {allowed} of {n} allowed ({:.1}%); not allowed, by kind and rule: {}",
        100.0 * share,
        top.join(", ")
    );
    assert!(
        denied_reads.is_empty(),
        "safe reads denied: {denied_reads:?}"
    );
    assert!(share >= 0.95, "{:.1}% allowed", 100.0 * share);
}
