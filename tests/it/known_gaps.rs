//! Known gaps of the classification (`tests/cases/classify-known-gaps.yaml`): adversarial
//! cases oath answers unsafely today (allowed at some trust, or no opinion, where a careful
//! person holds them), kept with the right expectation instead of oath's answer.
//!
//! This test does NOT fail on the cases oath still gets wrong: it prints each one with oath's
//! answer beside the expectation (`cargo test --test it known_gaps -- --nocapture`). It fails
//! when the file cannot be read, has no case, repeats an id or an id of
//! `tests/cases/classify/adversarial-closed-world.yaml`, or when a case is answered right at
//! both trusts: a fixed gap moves to that case file, with oath's answer recorded, so the list
//! only holds what is still wrong.

use std::collections::HashSet;
use std::path::Path;

use oath::classify;
use serde::Deserialize;
use serde_json::{Value, json};

use super::classify_cases::{context, decision};

/// What a careful person wants of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Expect {
    /// Asked or denied, at the initial trust and at full trust.
    Held,
    /// Allowed or left to the client (no opinion), at both trusts.
    Flows,
}

/// One known gap.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Gap {
    id: String,
    family: String,
    #[serde(default = "bash")]
    tool: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    expect: Expect,
    why: String,
}

fn bash() -> String {
    "Bash".into()
}

fn read_ids(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).expect("read the case file");
    text.lines()
        .filter_map(|l| l.strip_prefix("- id: "))
        .map(|id| id.trim().to_owned())
        .collect()
}

#[test]
fn known_gaps_are_printed_and_a_fixed_one_moves_to_the_case_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let text =
        std::fs::read_to_string(root.join("classify-known-gaps.yaml")).expect("read the gaps");
    let gaps: Vec<Gap> = serde_saphyr::from_str(&text).expect("parse the gaps");
    assert!(!gaps.is_empty(), "the file lists no gap");
    let recorded = read_ids(&root.join("classify/adversarial-closed-world.yaml"));
    let ctx = context();
    let mut ids = HashSet::new();
    let mut problems = Vec::new();
    let mut report = String::new();
    let mut open = 0;
    for g in &gaps {
        if !ids.insert(g.id.as_str()) {
            problems.push(format!("{}: duplicate id", g.id));
        }
        if recorded.contains(&g.id) {
            problems.push(format!("{}: also in adversarial-closed-world.yaml", g.id));
        }
        if g.why.split_whitespace().count() < 5 {
            problems.push(format!("{}: say why in five words or more", g.id));
        }
        let input = match (&g.command, &g.input) {
            (Some(c), None) => json!({ "command": c }),
            (None, Some(i)) => i.clone(),
            _ => {
                problems.push(format!("{}: needs one of `command` and `input`", g.id));
                continue;
            }
        };
        let c = classify::classify(&g.tool, &input, &ctx);
        let (initial, full) = (decision(&c, 0.3), decision(&c, 1.0));
        let held = |d: &str| matches!(d, "ask" | "deny");
        let right = match g.expect {
            Expect::Held => held(initial) && held(full),
            Expect::Flows => !held(initial) && !held(full),
        };
        let shown = g.command.clone().unwrap_or_else(|| input.to_string());
        if right {
            problems.push(format!(
                "{}: answered right now ({initial}/{full}): move it to adversarial-closed-world.yaml with oath's answer",
                g.id
            ));
            continue;
        }
        open += 1;
        report.push_str(&format!(
            "{} [{}] {} {shown:?}\n    want {:?}: {}\n    got  {initial}/{full}: {} {} {} (rule {}: {})\n",
            g.id, g.family, g.tool, g.expect, g.why, c.domain, c.kind, c.risk, c.rule, c.reason
        ));
    }
    eprintln!("{open} known gaps still open (printed, not failures):\n{report}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
