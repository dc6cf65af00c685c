//! Draft reports: oath's own facts from the audit trail, evidence-backed problem and omission
//! candidates, judgement fields marked `TODO(judgement)`, and atomic `kpt-YYYYMMDD-NNN`
//! allocation.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::audit;
use crate::clock::Timestamp;
use crate::state::{self, ReadOutcome};
use crate::strike::store::{ESCALATE_AT, ErrorsFile};
use crate::transcript::{Fact, FactKind, excerpt};

use super::report::{
    JUDGEMENT, Level, OathFacts, Omission, Outcome, Problem, ProblemCategory, Report, TrustChange,
};
use super::session::SessionRecord;

/// One gate decision worth citing.
#[derive(Debug, Clone, PartialEq)]
pub struct GateEvent {
    /// Record time.
    pub timestamp: String,
    /// `deny`, `ask` or `strike`.
    pub kind: String,
    /// Tool.
    pub tool: String,
    /// Command or file.
    pub subject: String,
    /// The gate's reason.
    pub reason: String,
}

/// Facts of oath's audit trail for one session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditFacts {
    /// Counts and trust changes.
    pub facts: OathFacts,
    /// Denials, asks and escalations to cite.
    pub events: Vec<GateEvent>,
}

fn subject_of(rec: &Value) -> String {
    let input = rec.get("tool_input");
    for k in ["command", "file_path", "notebook_path", "url", "pattern"] {
        if let Some(s) = input.and_then(|i| i.get(k)).and_then(Value::as_str) {
            return excerpt(s, 120);
        }
    }
    String::new()
}

/// Returns the session's 3-strike escalations from the branch's `errors.json`: one event per
/// error hash whose attempts in this session reached strike 3, at the attempt that reached it,
/// and the number of such attempts (strike 3 and above).
pub fn strike_events(errors_json: &Path, session_id: &str) -> (Vec<GateEvent>, u64) {
    let ReadOutcome::Ok(file) = state::read_json::<ErrorsFile>(errors_json) else {
        return (Vec::new(), 0);
    };
    let mut events: Vec<GateEvent> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut count = 0;
    for a in &file.attempts {
        if a.session_id.as_deref() != Some(session_id) || a.strike.unwrap_or(0) < ESCALATE_AT {
            continue;
        }
        count += 1;
        if seen.contains(&a.hash) {
            continue;
        }
        seen.push(a.hash.clone());
        events.push(GateEvent {
            timestamp: a.timestamp.clone(),
            kind: "strike".into(),
            tool: a.tool.clone(),
            subject: excerpt(a.input.as_deref().unwrap_or(""), 120),
            reason: format!(
                "strike {} of error {} in {}: {}",
                a.strike.unwrap_or(0),
                a.hash,
                errors_json.display(),
                excerpt(&a.error, 120)
            ),
        });
    }
    (events, count)
}

/// Reads the audit trail of a session (missing file: no facts) and, when given, the branch's
/// 3-strike log. Invalid lines are skipped.
///
/// Strike escalations are the attempts of this session at strike 3 or more in `errors.json`;
/// without any, the pre records the gate asked or denied because of a standing escalation.
pub fn facts(audit: &Path, errors_json: Option<&Path>, session_id: &str) -> AuditFacts {
    let mut f = audit_facts(audit);
    if let Some(p) = errors_json {
        let (events, count) = strike_events(p, session_id);
        if count > 0 {
            f.events.retain(|e| e.kind != "strike");
            f.events.extend(events);
            f.facts.strike_escalations = count;
        }
    }
    f
}

/// Reads the audit trail of a session (missing file: no facts). Invalid lines are skipped.
///
/// Strike escalations are `strike` records with `strike >= 3` when the trail has any; else
/// pre records whose reason names a strike and that asked or denied.
pub fn audit_facts(path: &Path) -> AuditFacts {
    let Ok(records) = audit::read::values(path) else {
        return AuditFacts::default();
    };
    let mut out = AuditFacts::default();
    let mut trust: BTreeMap<(String, Option<String>), TrustChange> = BTreeMap::new();
    let mut strike_records = 0u64;
    let mut strike_reasons = Vec::new();
    for rec in records {
        let kind = rec.get("kind").and_then(Value::as_str).unwrap_or("");
        let ts = rec
            .get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let tool = rec
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match kind {
            "pre" => {
                let decision = rec.get("decision").and_then(Value::as_str).unwrap_or("");
                let reason = rec
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                match decision {
                    "allow" => out.facts.allowed += 1,
                    "no_opinion" => out.facts.no_opinion += 1,
                    "ask" => out.facts.asked += 1,
                    "deny" => out.facts.denied += 1,
                    _ => {}
                }
                if matches!(decision, "ask" | "deny") {
                    let ev = GateEvent {
                        timestamp: ts,
                        kind: decision.to_owned(),
                        tool,
                        subject: subject_of(&rec),
                        reason: excerpt(&reason, 160),
                    };
                    if reason.to_lowercase().contains("strike") {
                        strike_reasons.push(GateEvent {
                            kind: "strike".into(),
                            ..ev.clone()
                        });
                    }
                    if decision == "deny" {
                        out.events.push(ev);
                    }
                }
            }
            "strike" => {
                let n = rec.get("strike").and_then(Value::as_u64).unwrap_or(0);
                if n >= 3 {
                    strike_records += 1;
                    out.events.push(GateEvent {
                        timestamp: ts,
                        kind: "strike".into(),
                        tool,
                        subject: subject_of(&rec),
                        reason: format!("strike {n}"),
                    });
                }
            }
            "outcome" => {
                let applied = rec.get("trust_applied").and_then(Value::as_bool) == Some(true);
                let before = rec.get("trust_score_before").and_then(Value::as_f64);
                let after = rec.get("trust_score_after").and_then(Value::as_f64);
                let domain = rec.get("domain").and_then(Value::as_str).unwrap_or("");
                let level = rec
                    .get("trust_level")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let (true, Some(b), Some(a)) = (applied, before, after) {
                    let key = (domain.to_owned(), level.clone());
                    let e = trust.entry(key).or_insert(TrustChange {
                        domain: domain.to_owned(),
                        level,
                        before: b,
                        after: a,
                        successes: 0,
                        failures: 0,
                    });
                    e.after = a;
                    if rec.get("outcome").and_then(Value::as_str) == Some("failure") {
                        e.failures += 1;
                    } else {
                        e.successes += 1;
                    }
                }
            }
            _ => {}
        }
    }
    if strike_records == 0 {
        out.facts.strike_escalations = strike_reasons.len() as u64;
        out.events.extend(strike_reasons);
    } else {
        out.facts.strike_escalations = strike_records;
    }
    out.facts.trust_changes = trust.into_values().collect();
    out
}

fn todo(what: &str) -> String {
    format!("{JUDGEMENT}: {what}")
}

fn cite(f: &Fact) -> String {
    let lines = match f.first_line {
        Some(first) if first != f.line => format!("lines {first}-{}", f.line),
        _ => format!("line {}", f.line),
    };
    let place = if f.source == "main" || f.source.is_empty() {
        format!("transcript {lines}")
    } else {
        format!("subagent {} {lines}", f.source)
    };
    let mut s = place;
    if let Some(t) = &f.tool {
        s.push_str(&format!(" ({t} `{}`)", f.subject));
    }
    if !f.detail.is_empty() {
        s.push_str(&format!(": {}", f.detail));
    }
    s
}

/// Most problem candidates put in a draft (the most severe are kept).
pub const MAX_CANDIDATES: usize = 20;

/// Builds the draft's problem and omission candidates from the facts, each citing evidence.
pub fn candidates(record: &SessionRecord, audit: &AuditFacts) -> (Vec<Problem>, Vec<Omission>) {
    let mut problems: Vec<Problem> = Vec::new();
    let root = || Some(todo("why did this happen?"));
    let mut push = |p: Problem| problems.push(p);
    for ev in &audit.events {
        let (description, category, impact) = match ev.kind.as_str() {
            "strike" => (
                format!(
                    "the same failure was repeated until oath's 3-strike protocol escalated it ({} `{}`)",
                    ev.tool, ev.subject
                ),
                ProblemCategory::Error,
                Level::High,
            ),
            _ => (
                format!("oath's gate denied {} `{}`", ev.tool, ev.subject),
                ProblemCategory::WrongApproach,
                Level::High,
            ),
        };
        push(Problem {
            id: String::new(),
            description,
            impact,
            evidence: format!(
                "audit trail {}: {} {}: {}",
                ev.timestamp, ev.kind, ev.tool, ev.reason
            ),
            category,
            root_cause: root(),
            turn_range: None,
        });
    }
    let facts = record.facts();
    let still = record.main.tally.still_failing();
    for f in &facts {
        let p = match f.kind {
            // A streak still failing at the end is cited once, below, as a failure.
            FactKind::RepeatedFailure if still.iter().any(|(k, _)| Some(*k) == f.call) => None,
            FactKind::RepeatedFailure => Some(Problem {
                id: String::new(),
                description: format!(
                    "{} `{}` failed {} times in a row with the same error",
                    f.tool.as_deref().unwrap_or("a tool"),
                    f.subject,
                    f.count.unwrap_or(2)
                ),
                impact: if f.count.unwrap_or(2) >= 3 {
                    Level::High
                } else {
                    Level::Medium
                },
                evidence: cite(f),
                category: ProblemCategory::Inefficiency,
                root_cause: root(),
                turn_range: None,
            }),
            FactKind::Rejection => Some(Problem {
                id: String::new(),
                description: format!(
                    "the user rejected {} `{}`",
                    f.tool.as_deref().unwrap_or("a tool call"),
                    f.subject
                ),
                impact: Level::Medium,
                evidence: cite(f),
                category: ProblemCategory::WrongApproach,
                root_cause: root(),
                turn_range: None,
            }),
            FactKind::PermissionDenial => Some(Problem {
                id: String::new(),
                description: format!(
                    "a permission rule or hook denied {} `{}`",
                    f.tool.as_deref().unwrap_or("a tool call"),
                    f.subject
                ),
                impact: Level::Medium,
                evidence: cite(f),
                category: ProblemCategory::WrongApproach,
                root_cause: root(),
                turn_range: None,
            }),
            FactKind::Correction => Some(Problem {
                id: String::new(),
                description: format!("the user corrected the agent: \"{}\"", f.detail),
                impact: Level::Medium,
                evidence: cite(f),
                category: ProblemCategory::Misunderstanding,
                root_cause: root(),
                turn_range: None,
            }),
            FactKind::Backtrack => Some(Problem {
                id: String::new(),
                description: format!("work was redone or undone on `{}`", f.subject),
                impact: Level::Low,
                evidence: cite(f),
                category: ProblemCategory::Inefficiency,
                root_cause: root(),
                turn_range: None,
            }),
            FactKind::ToolError => {
                // Cite the last failure of each call that never succeeded afterwards.
                let is_last = !facts.iter().any(|g| {
                    g.kind == FactKind::ToolError
                        && g.line > f.line
                        && g.source == f.source
                        && g.call == f.call
                });
                match still.iter().find(|(k, _)| Some(*k) == f.call) {
                    Some((_, n)) if is_last && f.source == "main" => Some(Problem {
                        id: String::new(),
                        description: format!(
                            "{} `{}` still failed when the session ended{}",
                            f.tool.as_deref().unwrap_or("a tool"),
                            f.subject,
                            if *n > 1 {
                                format!(" (it failed {n} times in a row)")
                            } else {
                                String::new()
                            }
                        ),
                        impact: if *n >= 2 { Level::High } else { Level::Medium },
                        evidence: cite(f),
                        category: ProblemCategory::Error,
                        root_cause: root(),
                        turn_range: None,
                    }),
                    _ => None,
                }
            }
            FactKind::Interrupt | FactKind::Cascade => None,
        };
        if let Some(p) = p {
            push(p);
        }
    }
    // Over the cap, the most severe candidates are kept (a call still failing at the end
    // before rework), in the order they happened.
    if problems.len() > MAX_CANDIDATES {
        let mut ranked: Vec<(usize, Problem)> = problems.into_iter().enumerate().collect();
        ranked.sort_by_key(|(i, p)| (std::cmp::Reverse(p.impact), *i));
        ranked.truncate(MAX_CANDIDATES);
        ranked.sort_by_key(|(i, _)| *i);
        problems = ranked.into_iter().map(|(_, p)| p).collect();
    }
    for (i, p) in problems.iter_mut().enumerate() {
        p.id = format!("prob-{:03}", i + 1);
    }
    let mut omissions = Vec::new();
    let t = &record.main.tally;
    if let Some(line) = t.last_change_line
        && !t.ran_after_last_change
    {
        omissions.push(Omission {
            id: "omit-001".into(),
            description: "no test, build or other command ran after the last code change".into(),
            reasoning: todo("why was the change not verified?"),
            risk_level: Level::Medium,
            counterfactual_prompt: "テスト観点 (testing view): did the existing tests still pass after the last change?".into(),
            recommended_action: Some(format!(
                "{JUDGEMENT}: e.g. run the project's tests after the last change (transcript line {line})"
            )),
        });
    }
    (problems, omissions)
}

/// Builds a draft report for a session; the caller sets `id`.
pub fn draft(record: &SessionRecord, audit: &AuditFacts, now: Timestamp) -> Report {
    let (problem, omission) = candidates(record, audit);
    let still_failing = !record.main.tally.still_failing().is_empty();
    let outcome = if still_failing || audit.facts.strike_escalations > 0 {
        Outcome::Partial
    } else {
        Outcome::Success
    };
    let goal = match &record.main.tally.first_prompt {
        Some(p) => todo(&format!("state the goals; the first prompt was: {p}")),
        None => todo("state the session's goals"),
    };
    Report {
        id: String::new(),
        created_at: now.iso_seconds(),
        session_id: Some(record.session_id.clone()).filter(|s| !s.is_empty()),
        session_summary: todo("summarize the session in 2-3 sentences"),
        task_goals: vec![goal],
        outcome,
        keep: Vec::new(),
        problem,
        tries: Vec::new(),
        omission,
        metrics: Some(record.metrics()),
        oath: Some(audit.facts.clone()),
        feedback_integration: Some(super::report::FeedbackIntegration {
            enabled: false,
            generated_feedback_id: None,
        }),
    }
}

/// Creates `<prefix>-YYYYMMDD-NNN.yaml` exclusively (UTC date, NNN from 001 to 999) and writes
/// the text `render(id)` into it. Returns the id and path.
pub fn allocate_and_write(
    dir: &Path,
    prefix: &str,
    now: Timestamp,
    render: impl Fn(&str) -> Result<String, String>,
) -> Result<(String, PathBuf), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let date = now.date_compact();
    for n in 1..=999 {
        let id = format!("{prefix}-{date}-{n:03}");
        let path = dir.join(format!("{id}.yaml"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                let text = match render(&id) {
                    Ok(t) => t,
                    Err(e) => {
                        drop(f);
                        let _ = std::fs::remove_file(&path);
                        return Err(e);
                    }
                };
                f.write_all(text.as_bytes())
                    .and_then(|()| f.sync_all())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                return Ok((id, path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        }
    }
    Err(format!(
        "{prefix}-{date}-001 to -999 all exist in {}",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_is_exclusive_and_sequential() {
        let dir = tempfile::tempdir().unwrap();
        let now = Timestamp::parse("2026-02-08T23:59:59Z").unwrap();
        let (a, _) =
            allocate_and_write(dir.path(), "kpt", now, |id| Ok(format!("id: {id}\n"))).unwrap();
        let (b, pb) =
            allocate_and_write(dir.path(), "kpt", now, |id| Ok(format!("id: {id}\n"))).unwrap();
        assert_eq!(a, "kpt-20260208-001");
        assert_eq!(b, "kpt-20260208-002");
        assert_eq!(
            std::fs::read_to_string(pb).unwrap(),
            "id: kpt-20260208-002\n"
        );
    }

    #[test]
    fn audit_facts_count_gate_decisions_strikes_and_trust() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let lines = [
            r#"{"v":1,"kind":"pre","timestamp":"t1","tool_name":"Bash","tool_input":{"command":"ls"},"decision":"allow","reason":"ok"}"#,
            r#"{"v":1,"kind":"pre","timestamp":"t2","tool_name":"Bash","tool_input":{"command":"git push --force"},"decision":"deny","reason":"force push is destructive"}"#,
            r#"{"v":1,"kind":"pre","timestamp":"t3","tool_name":"Bash","tool_input":{"command":"cargo test"},"decision":"ask","reason":"3-strike escalation: this failed 3 times"}"#,
            r#"{"v":1,"kind":"outcome","domain":"shell","outcome":"success","trust_applied":true,"trust_score_before":0.3,"trust_score_after":0.32}"#,
            r#"{"v":1,"kind":"outcome","domain":"shell","outcome":"failure","trust_applied":true,"trust_score_before":0.32,"trust_score_after":0.27}"#,
            r#"{"v":1,"kind":"outcome","domain":"shell","outcome":"failure","trust_applied":false,"trust_score_before":null,"trust_score_after":null}"#,
            r#"{"v":1,"kind":"outcome","domain":"build","trust_level":"medium","outcome":"success","trust_applied":true,"trust_score_before":0.3,"trust_score_after":0.335}"#,
            r#"{"v":1,"kind":"outcome","domain":"build","trust_level":"low","outcome":"success","trust_applied":true,"trust_score_before":0.335,"trust_score_after":0.36825}"#,
            "not json",
        ];
        std::fs::write(&p, lines.join("\n")).unwrap();
        let f = audit_facts(&p);
        assert_eq!((f.facts.allowed, f.facts.asked, f.facts.denied), (1, 1, 1));
        assert_eq!(f.facts.strike_escalations, 1);
        // One change per domain and level: the levels of one domain are apart.
        type Row<'a> = (&'a str, Option<&'a str>, f64, f64, u64, u64);
        let changes: Vec<Row> = f
            .facts
            .trust_changes
            .iter()
            .map(|t| {
                let level = t.level.as_deref();
                (
                    t.domain.as_str(),
                    level,
                    t.before,
                    t.after,
                    t.successes,
                    t.failures,
                )
            })
            .collect();
        assert_eq!(
            changes,
            [
                ("build", Some("low"), 0.335, 0.36825, 1, 0),
                ("build", Some("medium"), 0.3, 0.335, 1, 0),
                ("shell", None, 0.3, 0.27, 1, 1),
            ]
        );
        assert_eq!(f.events.len(), 2);
        assert!(
            f.events
                .iter()
                .any(|e| e.kind == "deny" && e.subject == "git push --force")
        );
    }
}
