//! Real sessions replayed through the gate: every tool call of the published transcripts in
//! `tests/fixtures/real-transcripts/` (other projects' sessions, with their attribution), in
//! order, decided from a fresh state, then the outcome the transcript records applied to
//! trust. Paths are mapped onto a test project (a git repository whose ignore file lists the
//! usual build outputs) and a test home; a successful Write or Edit creates its file there, so a
//! later deletion meets what the session left. Figures printed with `--nocapture`.
use crate::support::git;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use oath::classify::{self, Context};
use oath::clock::Timestamp;
use oath::decide::Decision;
use oath::trust::{Level, Outcome, TrustFile, TrustParams, apply_outcome};
use oath::worktree::GitWorktree;
use serde_json::Value;

use super::safety::decision;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-transcripts")
}

/// One tool call: its name, input, working directory and recorded outcome.
struct Call {
    tool: String,
    input: Value,
    cwd: Option<String>,
    outcome: Option<Outcome>,
}

/// Reads the calls of one transcript file, each joined to its result.
fn calls(file: &Path) -> Vec<Call> {
    let text = std::fs::read_to_string(file).expect("read a transcript");
    let mut out: Vec<(String, Call)> = Vec::new();
    let mut results: BTreeMap<String, Option<Outcome>> = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let cwd = v["cwd"].as_str().map(str::to_owned);
        let Some(content) = v["message"]["content"].as_array() else {
            continue;
        };
        for c in content {
            match c["type"].as_str() {
                Some("tool_use") => {
                    let id = c["id"].as_str().unwrap_or_default().to_owned();
                    out.push((
                        id,
                        Call {
                            tool: c["name"].as_str().unwrap_or_default().to_owned(),
                            input: c["input"].clone(),
                            cwd: cwd.clone(),
                            outcome: None,
                        },
                    ));
                }
                Some("tool_result") => {
                    let id = c["tool_use_id"].as_str().unwrap_or_default().to_owned();
                    let text = c["content"].to_string();
                    // A refusal is not the tool's outcome: trust is not moved by it.
                    let refused = text.contains("doesn't want to proceed")
                        || text.contains("haven't granted")
                        || text.contains("was rejected")
                        || text.contains("Sibling tool call errored");
                    let outcome = if refused {
                        None
                    } else if c["is_error"].as_bool() == Some(true) {
                        Some(Outcome::Failure)
                    } else {
                        Some(Outcome::Success)
                    };
                    results.insert(id, outcome);
                }
                _ => {}
            }
        }
    }
    out.into_iter()
        .map(|(id, mut call)| {
            call.outcome = results.get(&id).copied().flatten();
            call
        })
        .collect()
}

/// Replaces the session's project root and home in every string of a value.
fn remap(v: &Value, from: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => {
            let mut s = s.clone();
            for (a, b) in from {
                s = s.replace(a.as_str(), b);
            }
            Value::String(s)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| remap(x, from)).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), remap(x, from))).collect())
        }
        other => other.clone(),
    }
}

#[derive(Default)]
struct Tally {
    calls: usize,
    by: BTreeMap<&'static str, usize>,
    held: Vec<String>,
    /// Calls not allowed, by tool, kind, risk and rule.
    waiting: BTreeMap<String, usize>,
}

#[test]
fn real_sessions_flow_and_hold_little() {
    let mut total = Tally::default();
    let mut per_session = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("the real transcripts are copied into tests/fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = walk(&dir);
        files.sort();
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("project");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(
            root.join(".gitignore"),
            "node_modules/\ntarget/\ndist/\nbuild/\n_build/\ndeps/\n.venv/\n__pycache__/\n.next/\ncoverage/\n",
        )
        .unwrap();
        git(&root, &["init", "-q"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "start"]);
        let params = TrustParams::default();
        let now = Timestamp::parse("2026-11-01T00:00:00Z").expect("a timestamp");
        let mut trust = TrustFile::new(now);
        let mut tally = Tally::default();
        for file in files {
            let calls = calls(&file);
            // The session's project: the shortest working directory it names.
            let original = calls
                .iter()
                .filter_map(|c| c.cwd.clone())
                .min_by_key(String::len)
                .unwrap_or_else(|| "/nonexistent".into());
            let original_home = ["/home/USER", "/Users/philipp", "/path/to"]
                .into_iter()
                .find(|h| original.starts_with(h))
                .unwrap_or("/home/nobody");
            let map = vec![
                (original.clone(), root.display().to_string()),
                (original_home.to_owned(), home.display().to_string()),
            ];
            for call in calls {
                let input = remap(&call.input, &map);
                let cwd = call
                    .cwd
                    .as_deref()
                    .map(|c| PathBuf::from(c.replace(&original, &root.display().to_string())))
                    .filter(|c| c.starts_with(&root))
                    .unwrap_or_else(|| root.clone());
                let ctx = Context::new(
                    &root,
                    &cwd,
                    Some(&home),
                    [
                        home.join(".local/state/oath"),
                        home.join(".config/oath"),
                        home.join(".claude/settings.json"),
                        root.join(".claude/settings.json"),
                        root.join(".claude/settings.local.json"),
                    ],
                )
                .with_worktree(Arc::new(GitWorktree::new(&root)));
                let c = classify::classify(&call.tool, &input, &ctx);
                let d = decision(&c, Some(&trust));
                tally.calls += 1;
                *tally.by.entry(d.as_str()).or_default() += 1;
                if d != Decision::Allow {
                    *tally
                        .waiting
                        .entry(format!(
                            "{} {} {} {} {}",
                            d.as_str(),
                            call.tool,
                            c.kind,
                            c.risk,
                            c.rule
                        ))
                        .or_default() += 1;
                }
                if matches!(d, Decision::Ask | Decision::Deny) {
                    let shown = input
                        .get("command")
                        .or_else(|| input.get("file_path"))
                        .map_or_else(|| input.to_string(), Value::to_string);
                    tally.held.push(format!(
                        "{} {} {}: {} ({} {} {})",
                        dir.file_name().unwrap_or_default().to_string_lossy(),
                        d.as_str(),
                        call.tool,
                        shown.chars().take(140).collect::<String>(),
                        c.kind,
                        c.risk,
                        c.rule
                    ));
                }
                if let Some(o) = call.outcome {
                    // As PostToolUse does: at the call's own level, and only for work oath
                    // understands (a success of anything else earns nothing, its failure
                    // costs nothing).
                    if c.earns_trust() {
                        let level = Level::of(c.risk);
                        apply_outcome(&mut trust, c.domain.as_str(), level, o, None, now, &params);
                    }
                    if o == Outcome::Success {
                        create_written_file(&call.tool, &input, &root);
                    }
                }
            }
        }
        per_session.push(format!(
            "{}: {} calls, {}",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            tally.calls,
            fmt(&tally.by, tally.calls)
        ));
        total.calls += tally.calls;
        for (k, v) in tally.by {
            *total.by.entry(k).or_default() += v;
        }
        total.held.extend(tally.held);
        for (k, v) in tally.waiting {
            *total.waiting.entry(k).or_default() += v;
        }
    }
    let n = total.calls;
    let share = |k: &str| *total.by.get(k).unwrap_or(&0) as f64 / n as f64;
    let held = share("ask") + share("deny");
    let mut waiting: Vec<(&String, &usize)> = total.waiting.iter().collect();
    waiting.sort_by(|a, b| b.1.cmp(a.1));
    let waiting: Vec<String> = waiting
        .iter()
        .take(15)
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    eprintln!(
        "real sessions: {n} calls, {}\n{}\nnot allowed, by decision, tool, kind, risk and rule:\n  {}\nheld:\n  {}",
        fmt(&total.by, n),
        per_session.join("\n"),
        waiting.join("\n  "),
        total.held.join("\n  ")
    );
    assert!(n > 800, "the transcripts hold their calls ({n})");
    // Their calls are ordinary work (plans, memory, edits of the project): none is denied.
    assert_eq!(
        total.by.get("deny"),
        None,
        "ordinary calls denied:\n  {}",
        total.held.join("\n  ")
    );
    assert!(
        share("allow") >= 0.85,
        "{:.1}% allowed (target 85%)",
        100.0 * share("allow")
    );
    assert!(
        held <= 0.02,
        "{:.1}% asked or denied (target at most 2%)",
        100.0 * held
    );
}

fn fmt(by: &BTreeMap<&str, usize>, n: usize) -> String {
    by.iter()
        .map(|(k, v)| format!("{k} {v} ({:.1}%)", 100.0 * *v as f64 / n.max(1) as f64))
        .collect::<Vec<_>>()
        .join(", ")
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out
}

/// A successful Write, Edit or MultiEdit inside the test project leaves a file there.
fn create_written_file(tool: &str, input: &Value, root: &Path) {
    if !matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit") {
        return;
    }
    let Some(p) = input["file_path"].as_str().map(PathBuf::from) else {
        return;
    };
    if !p.starts_with(root) || p.components().any(|c| c.as_os_str() == "..") {
        return;
    }
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if !p.exists() {
        let _ = std::fs::write(&p, input["content"].as_str().unwrap_or("x"));
    }
}
