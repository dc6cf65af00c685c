//! The public test corpora of two peer guards (`tests/corpora/`, with their attribution):
//! every command classified as `oath explain` would, in the fixed context of the case tables,
//! and oath's agreement with each label printed (`cargo test --test it corpora --
//! --nocapture`). The floors below only hold agreement where it is: they rise as the packs
//! learn more programs, never fall silently.
//!
//! Agreement, by label:
//! - dcg `block` (its tests deny it): oath rates it high or critical (never approved by trust
//!   alone at the default thresholds until the safety-policy issue; denied when critical);
//! - dcg `notblock` (not destructive): oath rates it below high;
//! - Dippy `safe` (approved without asking): oath rates it low (allowed at the initial trust);
//! - Dippy `ask` (a person confirms): oath rates it medium or above.

use std::collections::BTreeMap;
use std::path::Path;

use oath::classify::{self, Risk};
use serde_json::json;

use super::classify_cases::context;

/// One labelled command.
struct Case {
    peer: String,
    label: String,
    command: String,
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Every labelled command: (peer, label, command).
pub fn labelled() -> Vec<(String, String, String)> {
    cases()
        .into_iter()
        .map(|c| (c.peer, c.label, c.command))
        .collect()
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora/peer-public.tsv");
    let text = std::fs::read_to_string(path).expect("read the corpora");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.splitn(4, '\t');
            let (peer, _src, label, command) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some(Case {
                peer: peer.to_owned(),
                label: label.to_owned(),
                command: unescape(command),
            })
        })
        .collect()
}

fn agrees(peer: &str, label: &str, risk: Risk) -> bool {
    match (peer, label) {
        ("dcg", "block") => risk >= Risk::High,
        ("dcg", "notblock") => risk < Risk::High,
        ("dippy", "safe") => risk == Risk::Low,
        ("dippy", "ask") => risk >= Risk::Medium,
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    n: usize,
    agree: usize,
    by_risk: BTreeMap<&'static str, usize>,
    initial: BTreeMap<&'static str, usize>,
    full: BTreeMap<&'static str, usize>,
    misses: Vec<String>,
}

/// Agreement with each label, printed; floors per label.
#[test]
fn agreement_with_the_peer_corpora() {
    let ctx = context();
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for case in cases() {
        let c = classify::classify("Bash", &json!({ "command": case.command }), &ctx);
        let t = tallies
            .entry((case.peer.clone(), case.label.clone()))
            .or_default();
        t.n += 1;
        *t.by_risk.entry(c.risk.as_str()).or_default() += 1;
        *t.initial
            .entry(super::classify_cases::decision(&c, 0.3))
            .or_default() += 1;
        *t.full
            .entry(super::classify_cases::decision(&c, 1.0))
            .or_default() += 1;
        if agrees(&case.peer, &case.label, c.risk) {
            t.agree += 1;
        } else {
            t.misses.push(format!(
                "{} {} ({})",
                c.risk,
                case.command.replace('\n', "\\n"),
                c.rule
            ));
        }
    }
    let mut report = String::from(
        "| peer | label | cases | agreement | risks | at initial trust | at full trust |\n|---|---|---|---|---|---|---|\n",
    );
    let fmt = |m: &BTreeMap<&str, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for ((peer, label), t) in &tallies {
        report.push_str(&format!(
            "| {peer} | {label} | {} | {:.1}% | {} | {} | {} |\n",
            t.n,
            100.0 * t.agree as f64 / t.n as f64,
            fmt(&t.by_risk),
            fmt(&t.initial),
            fmt(&t.full),
        ));
    }
    eprintln!("{report}");
    if let Ok(dir) = std::env::var("OATH_CORPORA_MISSES") {
        for ((peer, label), t) in &tallies {
            let _ = std::fs::write(
                Path::new(&dir).join(format!("{peer}-{label}.txt")),
                t.misses.join("\n"),
            );
        }
    }
    // Floors: the agreement measured when they were last raised, rounded down.
    let floors = [
        ("dcg", "block", 0.97),
        ("dcg", "notblock", 0.90),
        ("dippy", "safe", 0.86),
        ("dippy", "ask", 0.95),
    ];
    for (peer, label, floor) in floors {
        let t = &tallies[&(peer.to_owned(), label.to_owned())];
        let got = t.agree as f64 / t.n as f64;
        assert!(
            got >= floor,
            "{peer} {label}: agreement {:.1}% fell below its floor {:.1}%\n{report}",
            100.0 * got,
            100.0 * floor
        );
    }
}
