//! `oath audit`: the project's audit trail, with each call's decision joined to its outcome.
//!
//! Reads every `audit/*.jsonl` file of the project (this is the CLI, not the hook), skips lines
//! that are not JSON objects (counted and reported), joins `pre` and `outcome` records by
//! `tool_use_id`, filters, and prints a table or JSON.

use std::collections::HashMap;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::clock::Timestamp;
use crate::error::{CliError, EXIT_USAGE, Result};
use crate::project::{Env, Project};
use crate::ui;

/// Version of the `--json` output.
pub const JSON_VERSION: u32 = 1;

/// Show the audit trail.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
One row per tool call: when, which tool and what, its domain and risk, oath's decision, and
the outcome with the trust change. Times are UTC.

Examples:
  oath audit                          the last 50 calls of this project
  oath audit --since 2h               calls of the last two hours
  oath audit --decision deny --decision ask
  oath audit --domain shell_exec --since 2026-03-01 --until 2026-03-02
  oath audit --session 2a8a8413 --events --limit 0
  oath audit --json                   for scripts")]
pub struct AuditArgs {
    /// Only this session (a prefix of the id is enough)
    #[arg(long)]
    pub session: Option<String>,
    /// Only calls with this decision (repeatable)
    #[arg(long, value_parser = ["allow", "no_opinion", "ask", "deny"])]
    pub decision: Vec<String>,
    /// Only calls in this domain (repeatable)
    #[arg(long)]
    pub domain: Vec<String>,
    /// Only records at or after this time: ISO 8601 (2026-03-01, 2026-03-01T09:00:00Z) or
    /// relative (30m, 2h, 7d)
    #[arg(long)]
    pub since: Option<String>,
    /// Only records before this time (same forms as --since)
    #[arg(long)]
    pub until: Option<String>,
    /// Also show session events (SessionStart, Stop, ...)
    #[arg(long)]
    pub events: bool,
    /// Show at most this many rows, the latest (0 = all; default 50, all with --json)
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print JSON for scripts
    #[arg(long)]
    pub json: bool,
}

/// Parses `--since`/`--until`: ISO 8601 instant or date, or `<n>s|m|h|d|w` ago.
pub fn parse_time(s: &str, now: Timestamp) -> Option<Timestamp> {
    let s = s.trim();
    if let Some(t) = Timestamp::parse(s) {
        return Some(t);
    }
    if s.len() == 10
        && let Some(t) = Timestamp::parse(&format!("{s}T00:00:00Z"))
    {
        return Some(t);
    }
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
    let n: i64 = num.parse().ok()?;
    let secs = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return None,
    };
    Some(now.plus_seconds(-n.checked_mul(secs)?))
}

/// One row: a tool call (pre and outcomes joined) or a session event.
#[derive(Debug, Clone)]
pub struct Entry {
    /// When (the pre record's time, or the first record's).
    pub time: Option<Timestamp>,
    /// The session.
    pub session: String,
    /// The call id.
    pub tool_use_id: Option<String>,
    /// The pre record.
    pub pre: Option<Value>,
    /// Outcome records (more than one when a hook fired twice).
    pub outcomes: Vec<Value>,
    /// A non-tool record.
    pub event: Option<Value>,
}

impl Entry {
    fn first(&self) -> Option<&Value> {
        self.pre
            .as_ref()
            .or(self.outcomes.first())
            .or(self.event.as_ref())
    }

    fn field(&self, key: &str) -> Option<&str> {
        self.first().and_then(|r| r[key].as_str())
    }

    fn to_json(&self) -> Value {
        match &self.event {
            Some(e) => json!({"session_id": self.session, "event": e}),
            None => json!({
                "session_id": self.session,
                "tool_use_id": self.tool_use_id,
                "pre": self.pre,
                "outcomes": self.outcomes,
            }),
        }
    }
}

/// Reads the records of every audit file of a project; returns them and the number of lines
/// skipped as unreadable.
pub fn read_records(project: &Project) -> Result<(Vec<Value>, usize)> {
    let dir = project.audit_dir();
    let mut records = Vec::new();
    let mut skipped = 0;
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((records, 0)),
        Err(e) => return Err(CliError::new(format!("cannot read {}: {e}", dir.display()))),
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read(&f)
            .map_err(|e| CliError::new(format!("cannot read {}: {e}", f.display())))?;
        for line in String::from_utf8_lossy(&text).lines() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(v) if v.is_object() => records.push(v),
                _ => skipped += 1,
            }
        }
    }
    Ok((records, skipped))
}

/// Joins records into entries, oldest first.
pub fn join(records: Vec<Value>) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_id: HashMap<(String, String), usize> = HashMap::new();
    for r in records {
        let session = r["session_id"].as_str().unwrap_or("unknown").to_owned();
        let time = r["timestamp"].as_str().and_then(Timestamp::parse);
        let kind = r["kind"].as_str().unwrap_or("");
        let id = r["tool_use_id"].as_str().map(str::to_owned);
        match (kind, id) {
            ("pre" | "outcome", Some(id)) => {
                let key = (session.clone(), id.clone());
                let idx = *by_id.entry(key).or_insert_with(|| {
                    entries.push(Entry {
                        time,
                        session: session.clone(),
                        tool_use_id: Some(id),
                        pre: None,
                        outcomes: Vec::new(),
                        event: None,
                    });
                    entries.len() - 1
                });
                let e = &mut entries[idx];
                if kind == "pre" {
                    if e.pre.is_none() {
                        e.time = time.or(e.time);
                    }
                    e.pre = Some(r);
                } else {
                    e.outcomes.push(r);
                }
            }
            ("pre" | "outcome", None) => entries.push(Entry {
                time,
                session,
                tool_use_id: None,
                pre: (kind == "pre").then(|| r.clone()),
                outcomes: if kind == "outcome" {
                    vec![r]
                } else {
                    Vec::new()
                },
                event: None,
            }),
            _ => entries.push(Entry {
                time,
                session,
                tool_use_id: None,
                pre: None,
                outcomes: Vec::new(),
                event: Some(r),
            }),
        }
    }
    entries.sort_by_key(|e| e.time);
    entries
}

/// Returns a short description of a call's target.
fn target(pre: &Value, root: &str) -> String {
    let input = &pre["tool_input"];
    let raw = [
        "command",
        "file_path",
        "notebook_path",
        "pattern",
        "url",
        "query",
        "path",
        "description",
    ]
    .iter()
    .find_map(|k| input[*k].as_str())
    .unwrap_or("");
    let rel = raw
        .strip_prefix(root)
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(raw);
    let rel = if rel.is_empty() && !raw.is_empty() {
        "."
    } else {
        rel
    };
    let one_line: String = rel.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 38 {
        format!("{}…", one_line.chars().take(37).collect::<String>())
    } else {
        one_line
    }
}

/// Runs `oath audit`.
pub fn run(args: &AuditArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let now = Timestamp::now();
    let bound = |s: &Option<String>, flag: &str| -> Result<Option<Timestamp>> {
        match s {
            None => Ok(None),
            Some(s) => parse_time(s, now).map(Some).ok_or_else(|| {
                let mut e = CliError::new(format!("{flag} {s:?} is not a time"))
                    .hint("use ISO 8601 (2026-03-01 or 2026-03-01T09:00:00Z) or a relative time such as 30m, 2h, 7d");
                e.code = EXIT_USAGE;
                e
            }),
        }
    };
    let since = bound(&args.since, "--since")?;
    let until = bound(&args.until, "--until")?;
    let (records, skipped) = read_records(&project)?;
    let total_records = records.len();
    let filtered: Vec<Entry> = join(records)
        .into_iter()
        .filter(|e| args.events || e.event.is_none())
        .filter(|e| {
            args.session
                .as_deref()
                .is_none_or(|s| e.session.starts_with(s))
        })
        .filter(|e| since.is_none_or(|s| e.time.is_some_and(|t| t >= s)))
        .filter(|e| until.is_none_or(|u| e.time.is_some_and(|t| t < u)))
        .filter(|e| {
            args.decision.is_empty()
                || e.pre.as_ref().is_some_and(|p| {
                    args.decision
                        .iter()
                        .any(|d| p["decision"].as_str() == Some(d))
                })
        })
        .filter(|e| {
            args.domain.is_empty()
                || e.field("domain")
                    .is_some_and(|d| args.domain.iter().any(|x| x == d))
        })
        .collect();
    let limit = args.limit.unwrap_or(if args.json { 0 } else { 50 });
    let shown_from = if limit == 0 {
        0
    } else {
        filtered.len().saturating_sub(limit)
    };
    let shown = &filtered[shown_from..];
    if args.json {
        let v = json!({
            "version": JSON_VERSION,
            "project": project.root,
            "entries": shown.iter().map(Entry::to_json).collect::<Vec<_>>(),
            "skipped_lines": skipped,
        });
        ui::out(&v.to_string());
        return Ok(ExitCode::SUCCESS);
    }
    if skipped > 0 {
        ui::warn(&format!(
            "{} in the audit trail could not be read and {} skipped",
            ui::plural(skipped, "line", "lines"),
            if skipped == 1 { "was" } else { "were" }
        ));
    }
    if total_records == 0 {
        ui::out(&format!(
            "No audit trail yet for {}.",
            project.root.display()
        ));
        ui::out("oath records every tool call once it is installed (`oath install`).");
        return Ok(ExitCode::SUCCESS);
    }
    ui::out(&format!(
        "Audit trail of {}: {}{}",
        project.root.display(),
        ui::plural(filtered.len(), "entry", "entries"),
        if shown_from > 0 {
            format!(", the last {} shown (--limit 0 shows all)", shown.len())
        } else {
            String::new()
        }
    ));
    if shown.is_empty() {
        ui::out("Nothing matches these filters.");
        return Ok(ExitCode::SUCCESS);
    }
    ui::out("");
    ui::out(&format!(
        "{:<19}  {:<8}  {:<12} {:<38}  {:<12} {:<8} {:<10}  {}",
        "time (UTC)", "session", "tool", "target", "domain", "risk", "decision", "outcome"
    ));
    let root = project.root.display().to_string();
    for e in shown {
        let time = e
            .time
            .map(|t| {
                t.iso_seconds()
                    .replace('T', " ")
                    .trim_end_matches('Z')
                    .to_owned()
            })
            .unwrap_or_else(|| "?".into());
        let session: String = e.session.chars().take(8).collect();
        if let Some(ev) = &e.event {
            let name = ev["hook_event_name"]
                .as_str()
                .or(ev["kind"].as_str())
                .unwrap_or("event");
            let detail = ["source", "reason", "trigger"]
                .iter()
                .find_map(|k| ev[*k].as_str())
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            ui::out(&format!("{time:<19}  {session:<8}  · {name}{detail}"));
            continue;
        }
        let pre = e.pre.as_ref();
        let tool = e.field("tool_name").unwrap_or("?");
        let what = pre.map(|p| target(p, &root)).unwrap_or_default();
        let domain = e.field("domain").unwrap_or("-");
        let risk = pre.and_then(|p| p["risk_category"].as_str()).unwrap_or("-");
        let decision = pre
            .and_then(|p| p["decision"].as_str())
            .unwrap_or("(no pre record)");
        let outcome = outcome_text(e);
        ui::out(&format!(
            "{time:<19}  {session:<8}  {tool:<12} {what:<38}  {domain:<12} {risk:<8} {decision:<10}  {outcome}"
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn outcome_text(e: &Entry) -> String {
    let Some(last) = e.outcomes.last() else {
        return "pending".into();
    };
    let outcome = last["outcome"].as_str().unwrap_or("?");
    let mut s = outcome.to_owned();
    let applied = e
        .outcomes
        .iter()
        .find(|o| o["trust_applied"] == json!(true));
    if let Some(o) = applied
        && let (Some(b), Some(a)) = (
            o["trust_score_before"].as_f64(),
            o["trust_score_after"].as_f64(),
        )
    {
        s.push_str(&format!(" (trust {b:.2} → {a:.2})"));
    }
    if last["interrupted"] == json!(true) {
        s.push_str(" (interrupted)");
    }
    if e.outcomes.len() > 1 {
        s.push_str(&format!(" [{} outcome records]", e.outcomes.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_absolute_and_relative() {
        let now = Timestamp::parse("2026-03-01T12:00:00Z").unwrap();
        assert_eq!(
            parse_time("2h", now).unwrap().iso_seconds(),
            "2026-03-01T10:00:00Z"
        );
        assert_eq!(
            parse_time("7d", now).unwrap().iso_seconds(),
            "2026-02-22T12:00:00Z"
        );
        assert_eq!(
            parse_time("2026-02-01", now).unwrap().iso_seconds(),
            "2026-02-01T00:00:00Z"
        );
        assert!(parse_time("yesterday", now).is_none());
        assert!(parse_time("5y", now).is_none());
    }

    #[test]
    fn pre_and_outcome_join_by_tool_use_id() {
        let recs = vec![
            json!({"kind": "pre", "session_id": "s", "tool_use_id": "a", "timestamp": "2026-03-01T10:00:00.000Z", "decision": "ask"}),
            json!({"kind": "pre", "session_id": "s", "tool_use_id": "b", "timestamp": "2026-03-01T10:00:01.000Z", "decision": "allow"}),
            json!({"kind": "outcome", "session_id": "s", "tool_use_id": "a", "timestamp": "2026-03-01T10:00:02.000Z", "outcome": "failure"}),
            json!({"kind": "session_start", "session_id": "s", "timestamp": "2026-03-01T09:59:00.000Z"}),
        ];
        let e = join(recs);
        assert_eq!(e.len(), 3);
        assert!(e[0].event.is_some());
        assert_eq!(e[1].tool_use_id.as_deref(), Some("a"));
        assert_eq!(e[1].outcomes.len(), 1);
        assert!(e[2].outcomes.is_empty());
        assert_eq!(outcome_text(&e[2]), "pending");
    }
}
