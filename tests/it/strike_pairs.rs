//! The 3-strike protocol's notion of "the same error", checked on real outputs: pairs of
//! failures that are the same error (another temp dir, time, pid, line, order, a warning
//! that comes and goes) and pairs that are not (another file, status, exit code, test,
//! arity). The pairs come from real Claude Code sessions of other projects
//! (`tests/fixtures/real-transcripts/`, see its SOURCES.md) and from real programs run by
//! `tests/fixtures/strikes/capture.py` (`local.json`); same or not was decided by hand for
//! each pair, and the reason is written beside it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A failed call: tool, input and error text.
#[derive(Debug, Clone)]
struct Failure {
    tool: String,
    input: Value,
    error: String,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Returns the failed calls of a transcript by the line of their result.
fn failures_in(file: &Path) -> BTreeMap<usize, Failure> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut uses: BTreeMap<String, (String, Value)> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(blocks) = v["message"]["content"].as_array() else {
            continue;
        };
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => {
                    uses.insert(
                        b["id"].as_str().unwrap_or("").to_owned(),
                        (
                            b["name"].as_str().unwrap_or("").to_owned(),
                            b["input"].clone(),
                        ),
                    );
                }
                Some("tool_result") if b["is_error"] == Value::Bool(true) => {
                    let error = match &b["content"] {
                        Value::String(s) => s.clone(),
                        Value::Array(parts) => parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    let (tool, input) = uses
                        .get(b["tool_use_id"].as_str().unwrap_or(""))
                        .cloned()
                        .expect("the call of a result");
                    out.insert(n + 1, Failure { tool, input, error });
                }
                _ => {}
            }
        }
    }
    out
}

fn hash(f: &Failure) -> String {
    oath::strike::failure_hash(&f.tool, &f.input, &f.error).0
}

/// Pairs from real sessions: (transcript, line of a, line of b, same, why).
const SESSION_PAIRS: &[(&str, usize, usize, bool, &str)] = &[
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        1419,
        1447,
        true,
        "dialyzer fails the commit hook the same way; only `done in 0m12.12s` differs",
    ),
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        1343,
        1366,
        true,
        "the same dialyzer failure, another run time",
    ),
    (
        "T02-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
        401,
        494,
        true,
        "credo reports the same issue; `Analysis took 0.08 seconds` vs 0.07",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        403,
        406,
        true,
        "`npm run build` fails with the same TypeError under npm's warnings",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        158,
        210,
        true,
        "`ls -la types/`: the same missing directory",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        147,
        151,
        true,
        "Edit of types/index.ts before reading it, twice",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        153,
        155,
        true,
        "the same mistake on types/index.ts through MultiEdit, then Write",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        151,
        153,
        true,
        "the same mistake on types/index.ts through Edit, then MultiEdit",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        172,
        174,
        true,
        "Write of types/state.ts before reading it, twice",
    ),
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        1389,
        1419,
        false,
        "credo's issue was fixed: dialyzer alone fails now, at another line",
    ),
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        661,
        1209,
        false,
        "the commit hook fails on formatting, then on credo",
    ),
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        1209,
        1343,
        false,
        "credo, then dialyzer",
    ),
    (
        "T01-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        259,
        1300,
        false,
        "String to replace not found, in two different files",
    ),
    (
        "T02-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
        494,
        519,
        false,
        "credo on three files (exit 2) and on one (exit 6)",
    ),
    (
        "T04-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        1180,
        1243,
        false,
        "the test suite fails for a missing secret_key_base, then for a missing lazy_html",
    ),
    (
        "T04-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        1243,
        1327,
        false,
        "12 tests fail for lazy_html, then 11 different assertions",
    ),
    (
        "T04-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        1357,
        1392,
        false,
        "another test fails: `is-subagent` vs `>agent</span>`",
    ),
    (
        "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        147,
        172,
        false,
        "the same message, about two different files",
    ),
];

/// Two failures from two transcripts: (file a, line a, file b, line b, why).
const CROSS_PAIRS: &[(&str, usize, &str, usize, &str)] = &[(
    "T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    311,
    "T04-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    23,
    "EISDIR on src/components and on test/support: the same words, two targets",
)];

#[test]
fn same_and_different_errors_from_real_outputs() {
    let dir = fixtures().join("real-transcripts");
    let mut files: BTreeMap<&str, BTreeMap<usize, Failure>> = BTreeMap::new();
    let mut get = |file: &'static str, line: usize| -> Failure {
        files
            .entry(file)
            .or_insert_with(|| failures_in(&dir.join(file)))
            .get(&line)
            .unwrap_or_else(|| panic!("no failed call at {file}:{line}"))
            .clone()
    };
    let mut cases: Vec<(String, Failure, Failure, bool)> = Vec::new();
    for (file, a, b, same, why) in SESSION_PAIRS {
        cases.push((
            format!("{file}:{a}/{b}: {why}"),
            get(file, *a),
            get(file, *b),
            *same,
        ));
    }
    for (fa, a, fb, b, why) in CROSS_PAIRS {
        cases.push((
            format!("{fa}:{a} / {fb}:{b}: {why}"),
            get(fa, *a),
            get(fb, *b),
            false,
        ));
    }
    let local: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("strikes/local.json")).unwrap())
            .unwrap();
    let failure = |v: &Value| Failure {
        tool: v["tool"].as_str().unwrap().to_owned(),
        input: v["input"].clone(),
        error: v["error"].as_str().unwrap().to_owned(),
    };
    for p in local["pairs"].as_array().unwrap() {
        cases.push((
            format!(
                "{}: {}",
                p["name"].as_str().unwrap(),
                p["why"].as_str().unwrap()
            ),
            failure(&p["a"]),
            failure(&p["b"]),
            p["same"].as_bool().unwrap(),
        ));
    }

    let same = cases.iter().filter(|c| c.3).count();
    let different = cases.len() - same;
    assert!(
        same >= 20 && different >= 20,
        "{same} same, {different} different"
    );
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(_, a, b, want)| (hash(a) == hash(b)) != *want)
        .map(|(name, a, b, want)| {
            format!(
                "{} ({}):\n  a: {:?}\n  b: {:?}",
                name,
                if *want { "should merge" } else { "should not" },
                oath::strike::normalize::normalize_error(&a.error),
                oath::strike::normalize::normalize_error(&b.error)
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} pairs wrong ({same} same, {different} different):\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The headline the agent and the user read is the first real error line, not a warning
/// printed above it.
#[test]
fn headlines_of_real_outputs_name_the_error() {
    let dir = fixtures().join("real-transcripts");
    let t06 = failures_in(&dir.join("T06-ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"));
    let build = oath::strike::normalize::headline(&t06[&403].error);
    assert!(!build.contains("npm warn"), "{build}");
    assert!(build.contains("error"), "{build}");
    let local: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("strikes/local.json")).unwrap())
            .unwrap();
    for p in local["pairs"].as_array().unwrap() {
        for side in ["a", "b"] {
            let h = oath::strike::normalize::headline(p[side]["error"].as_str().unwrap());
            let lower = h.to_ascii_lowercase();
            assert!(
                !lower.contains("warn") || lower.contains("error"),
                "{}: {h}",
                p["name"]
            );
        }
    }
}
