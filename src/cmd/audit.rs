//! `oath audit`: the project's audit trail, with each call's decision joined to its outcome.
//!
//! Streams the project's `audit/*.jsonl` files through [`crate::audit::trail`] (which joins
//! `pre` and `outcome` records by `tool_use_id`, filters while reading and reads only what a
//! `--since`/`--until` window needs), counts lines that are not JSON objects (reported on
//! stderr), and prints the latest entries as a table, or every entry as JSON Lines.

use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::audit::trail::{self, Entry, Filter, Stats};
use crate::audit::{
    self,
    read::{ReadError, Record},
};
use crate::clock::Timestamp;
use crate::error::{CliError, EXIT_USAGE, Result};
use crate::project::{Env, Project};
use crate::ui;

/// Version of the `--json` output: 2 is JSON Lines, one object per entry (1 was one document
/// with an `entries` array).
pub const JSON_VERSION: u32 = 2;

/// Show the audit trail.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
One row per tool call: when, which tool and what, its domain and risk, oath's decision, and
the outcome with the trust change (`refused by the client` or `denied by oath` for a call
that never ran). Times are UTC. With --since, only the part of the trail the window needs
is read.

--json prints JSON Lines (output version 2), oldest first, as the trail is read: one object
per line, with the keys version (2), session_id, tool_use_id, pre and outcomes for a call,
and version, session_id and event for a session event; the records are oath's as written.
Version 1 printed a single document with an `entries` array. Lines of the trail that cannot
be read are counted on stderr.

--schema prints the JSON Schema of the trail's records (JSON Lines files under oath's state
folder, `oath doctor` names it), for log shippers and scripts that read the files directly.

Examples:
  oath audit                          the last 50 calls of this project
  oath audit --since 2h               calls of the last two hours
  oath audit --decision deny --decision ask
  oath audit --domain shell_exec --since 2026-03-01 --until 2026-03-02
  oath audit --session 2a8a8413 --events --limit 0
  oath audit --json | tail -1         the latest entry, for scripts
  oath audit --schema > oath-audit.schema.json")]
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
    /// Print JSON Lines for scripts: one object per entry
    #[arg(long)]
    pub json: bool,
    /// Print the JSON Schema of the audit files' records (one per line of
    /// `<state>/projects/<project>/audit/<session>.jsonl`) and exit
    #[arg(long, conflicts_with_all = ["session", "decision", "domain", "since", "until", "events", "limit", "json"])]
    pub schema: bool,
}

/// Parses `--since`/`--until`: an RFC 3339 instant (`2026-03-01T09:00:00Z`, any offset), a
/// date or a date and time without an offset (UTC), or a span ago read by humantime (`30m`,
/// `2h`, `1d`, `2w`, `1h30m`, `1h 30m`; days and weeks of 24 hours, no months or years).
///
/// Not jiff, which parses all of these (and ISO 8601 durations): any of its parsers links its
/// time zone names into the binary, ~1,700 pointers the loader relocates at every hook's
/// start, for a flag no hook reads.
pub fn parse_time(s: &str, now: Timestamp) -> Option<Timestamp> {
    let s = s.trim();
    if let Some(t) = Timestamp::parse(s).or_else(|| utc_date_time(s)) {
        return Some(t);
    }
    // humantime also reads months and years (of 30.44 and 365.25 days): not a span here.
    let unit_ok = |u: &str| {
        matches!(
            u,
            "" | "s"
                | "sec"
                | "secs"
                | "second"
                | "seconds"
                | "m"
                | "min"
                | "mins"
                | "minute"
                | "minutes"
                | "h"
                | "hr"
                | "hrs"
                | "hour"
                | "hours"
                | "d"
                | "day"
                | "days"
                | "w"
                | "week"
                | "weeks"
        )
    };
    if !s.starts_with(|c: char| c.is_ascii_digit())
        || !s
            .split(|c: char| c.is_ascii_digit() || c.is_whitespace())
            .all(unit_ok)
    {
        return None;
    }
    let ago = humantime::parse_duration(s).ok()?;
    Some(Timestamp::from_unix_millis(
        now.unix_millis()
            .checked_sub(i128::try_from(ago.as_millis()).ok()?)?,
    ))
}

/// Reads a date (`2026-03-01`, midnight) or a date and time without an offset
/// (`2026-03-01T09:00:00`, `2026-03-01 09:00`), in UTC.
fn utc_date_time(s: &str) -> Option<Timestamp> {
    use time::macros::format_description;
    let forms = [
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond]"),
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]"),
        format_description!("[year]-[month]-[day]T[hour]:[minute]"),
        format_description!("[year]-[month]-[day] [hour]:[minute]:[second].[subsecond]"),
        format_description!("[year]-[month]-[day] [hour]:[minute]:[second]"),
        format_description!("[year]-[month]-[day] [hour]:[minute]"),
    ];
    let at = forms
        .iter()
        .find_map(|f| time::PrimitiveDateTime::parse(s, f).ok())
        .or_else(|| {
            time::Date::parse(s, format_description!("[year]-[month]-[day]"))
                .ok()
                .map(|d| d.midnight())
        })?
        .assume_utc();
    Some(Timestamp::from_unix_millis(
        at.unix_timestamp_nanos() / 1_000_000,
    ))
}

/// Parses the value of a `--since`/`--until` option (`flag`), a usage error when it is not
/// a time.
pub fn time_bound(s: Option<&str>, flag: &str, now: Timestamp) -> Result<Option<Timestamp>> {
    match s {
        None => Ok(None),
        Some(s) => parse_time(s, now).map(Some).ok_or_else(|| {
            let mut e = CliError::new(format!("{flag} {s:?} is not a time")).hint(
                "use ISO 8601 (2026-03-01 or 2026-03-01T09:00:00Z) or a relative time such as 30m, 2h, 7d",
            );
            e.code = EXIT_USAGE;
            e
        }),
    }
}

/// Returns a short description of a call's target.
fn target(pre: &Value, root: &str) -> String {
    let input = &pre["tool_input"];
    let raw = crate::audit::TARGET_KEYS
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
    if args.schema {
        let text = serde_json::to_string_pretty(&crate::audit::record::schema())
            .map_err(|e| CliError::new(format!("cannot print the schema: {e}")))?;
        ui::out(&text);
        return Ok(ExitCode::SUCCESS);
    }
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let now = Timestamp::now();
    let bound = |s: &Option<String>, flag: &str| time_bound(s.as_deref(), flag, now);
    let filter = Filter {
        session: args.session.clone(),
        since: bound(&args.since, "--since")?,
        until: bound(&args.until, "--until")?,
        events: args.events,
        decisions: args.decision.clone(),
        domains: args.domain.clone(),
    };
    let limit = args.limit.unwrap_or(if args.json { 0 } else { 50 });
    let dir = project.audit_dir();
    let read_err = |e: ReadError| CliError::new(e.to_string());
    if args.json && limit == 0 {
        let mut out = BufWriter::new(std::io::stdout().lock());
        let stats = trail::read(&dir, &filter, |e| {
            // A closed pipe (`| head`) ends the reading.
            match writeln!(out, "{}", e.json_line(JSON_VERSION)) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            }
        })
        .map_err(read_err)?;
        let _ = out.flush();
        warn_unreadable(&stats);
        return Ok(ExitCode::SUCCESS);
    }
    // The latest `limit` entries (all with 0) and how many matched.
    let mut shown: VecDeque<Entry> = VecDeque::new();
    let mut matched = 0usize;
    let stats = trail::read(&dir, &filter, |e| {
        matched += 1;
        if limit > 0 && shown.len() == limit {
            shown.pop_front();
        }
        shown.push_back(e);
        ControlFlow::Continue(())
    })
    .map_err(read_err)?;
    if args.json {
        let mut out = BufWriter::new(std::io::stdout().lock());
        for e in &shown {
            if writeln!(out, "{}", e.json_line(JSON_VERSION)).is_err() {
                break;
            }
        }
        let _ = out.flush();
        warn_unreadable(&stats);
        return Ok(ExitCode::SUCCESS);
    }
    warn_unreadable(&stats);
    if stats.records == 0 && stats.files_skipped == 0 {
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
        ui::plural(matched, "entry", "entries"),
        if shown.len() < matched {
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
    // Columns as wide as their widest cell, two spaces apart, no borders.
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING).set_header([
        "time (UTC)",
        "session",
        "tool",
        "target",
        "domain",
        "risk",
        "decision",
        "outcome",
    ]);
    let root = project.root.display().to_string();
    for e in &shown {
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
            let ev = ev.value();
            let name = ev["hook_event_name"]
                .as_str()
                .or(ev["kind"].as_str())
                .unwrap_or("event");
            let detail = ["source", "reason", "trigger"]
                .iter()
                .find_map(|k| ev[*k].as_str())
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            table.add_row([time, session, "·".into(), format!("{name}{detail}")]);
            continue;
        }
        let pre = e.pre.as_ref().map(Record::value);
        let first = e.first().map(Record::value).unwrap_or_default();
        let tool = first["tool_name"].as_str().unwrap_or("?").to_owned();
        let what = pre.as_ref().map(|p| target(p, &root)).unwrap_or_default();
        let domain = e.domain().unwrap_or("-").to_owned();
        let risk = pre
            .as_ref()
            .and_then(|p| p["risk_category"].as_str())
            .unwrap_or("-")
            .to_owned();
        let decision = pre
            .as_ref()
            .and_then(|p| p["decision"].as_str())
            .unwrap_or("(no pre record)")
            .to_owned();
        let outcome = outcome_text(pre.as_ref(), &e.outcomes);
        table.add_row([time, session, tool, what, domain, risk, decision, outcome]);
    }
    for c in table.column_iter_mut() {
        c.set_padding((0, 2));
    }
    ui::out(&table.trim_fmt());
    Ok(ExitCode::SUCCESS)
}

/// Warns about lines of the trail that could not be read.
fn warn_unreadable(stats: &Stats) {
    let n = stats.unreadable;
    if n > 0 {
        ui::warn(&format!(
            "{} in the audit trail could not be read and {} skipped",
            ui::plural(n, "line", "lines"),
            if n == 1 { "was" } else { "were" }
        ));
    }
}

/// Returns the outcome column: the last outcome, the trust change applied, and notes. A call
/// without an outcome record is denied by oath when its own answer refused it
/// ([`audit::refused_by_answer`]), else pending.
fn outcome_text(pre: Option<&Value>, outcomes: &[Record]) -> String {
    let outcomes: Vec<Value> = outcomes.iter().map(Record::value).collect();
    let Some(last) = outcomes.last() else {
        return if pre.is_some_and(audit::refused_by_answer) {
            "denied by oath".into()
        } else {
            "pending".into()
        };
    };
    let outcome = last["outcome"].as_str().unwrap_or("?");
    // A call that never ran: who refused it (`refused_by`, written with the refusal).
    let mut s = match last["refused_by"].as_str() {
        Some("client") => format!("{outcome} by the client"),
        Some(by) => format!("{outcome} by {by}"),
        None => outcome.to_owned(),
    };
    let applied = outcomes.iter().find(|o| o["trust_applied"] == json!(true));
    if let Some(o) = applied
        && let (Some(b), Some(a)) = (
            o["trust_score_before"].as_f64(),
            o["trust_score_after"].as_f64(),
        )
    {
        match o["trust_level"].as_str() {
            Some(level) => s.push_str(&format!(" (trust {b:.2} → {a:.2}, {level})")),
            None => s.push_str(&format!(" (trust {b:.2} → {a:.2})")),
        }
    }
    if last["interrupted"] == json!(true) {
        s.push_str(" (interrupted)");
    }
    if outcomes.len() > 1 {
        s.push_str(&format!(" [{} outcome records]", outcomes.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_absolute_and_relative() {
        let now = Timestamp::parse("2026-03-01T12:00:00Z").unwrap();
        let cases = [
            ("2h", Some("2026-03-01T10:00:00Z")),
            ("30m", Some("2026-03-01T11:30:00Z")),
            ("10min", Some("2026-03-01T11:50:00Z")),
            ("90s", Some("2026-03-01T11:58:30Z")),
            ("1h30m", Some("2026-03-01T10:30:00Z")),
            (" 2h ", Some("2026-03-01T10:00:00Z")),
            ("1h 30m", Some("2026-03-01T10:30:00Z")),
            ("2 hours", Some("2026-03-01T10:00:00Z")),
            ("PT2H", None),
            ("1d", Some("2026-02-28T12:00:00Z")),
            ("7d", Some("2026-02-22T12:00:00Z")),
            ("2w", Some("2026-02-15T12:00:00Z")),
            ("0s", Some("2026-03-01T12:00:00Z")),
            ("2026-02-01", Some("2026-02-01T00:00:00Z")),
            ("2026-03-01T09:00:00Z", Some("2026-03-01T09:00:00Z")),
            ("2026-03-01T11:00:00+02:00", Some("2026-03-01T09:00:00Z")),
            ("2026-03-01T09:00:00", Some("2026-03-01T09:00:00Z")),
            ("2026-03-01 09:30", Some("2026-03-01T09:30:00Z")),
            ("2026-03-01T09:00:00.5", Some("2026-03-01T09:00:00Z")),
            ("1y", None),
            ("2M", None),
            ("yesterday", None),
            ("5y", None),
            ("3mo", None),
            ("-2h", None),
            ("2", None),
            ("", None),
            ("2026-13-01", None),
            ("2h garbage", None),
        ];
        for (text, want) in cases {
            let got = parse_time(text, now).map(|t| t.iso_seconds());
            assert_eq!(got.as_deref(), want, "{text:?}");
        }
        // Milliseconds are kept.
        let t = parse_time("2026-03-01T09:00:00.250Z", now).unwrap();
        assert_eq!(t.iso_millis(), "2026-03-01T09:00:00.250Z");
    }

    #[test]
    fn outcome_text_names_the_last_outcome_and_the_trust_change() {
        let rec = |v: Value| Record::parse(v.to_string().as_bytes()).unwrap();
        assert_eq!(outcome_text(None, &[]), "pending");
        let applied = rec(
            json!({"kind": "outcome", "outcome": "failure", "trust_applied": true,
                                 "trust_score_before": 0.3, "trust_score_after": 0.26}),
        );
        assert_eq!(
            outcome_text(None, std::slice::from_ref(&applied)),
            "failure (trust 0.30 → 0.26)"
        );
        let leveled = rec(
            json!({"kind": "outcome", "outcome": "success", "trust_applied": true,
                   "trust_level": "medium", "trust_score_before": 0.3, "trust_score_after": 0.36825}),
        );
        assert_eq!(
            outcome_text(None, std::slice::from_ref(&leveled)),
            "success (trust 0.30 → 0.37, medium)"
        );
        let again = rec(json!({"kind": "outcome", "outcome": "success", "interrupted": true}));
        assert_eq!(
            outcome_text(None, &[applied, again]),
            "success (trust 0.30 → 0.26) (interrupted) [2 outcome records]"
        );
        let refused = rec(
            json!({"kind": "outcome", "outcome": "refused", "refused_by": "client",
                                 "trust_applied": false}),
        );
        assert_eq!(
            outcome_text(None, std::slice::from_ref(&refused)),
            "refused by the client"
        );
        let denied = rec(json!({"kind": "outcome", "outcome": "denied", "refused_by": "oath"}));
        assert_eq!(outcome_text(None, &[denied]), "denied by oath");
    }

    #[test]
    fn a_call_its_own_answer_refused_is_denied_not_pending() {
        // (decision, what the client was answered when it differs, shown without an outcome)
        let cases = [
            ("deny", None, "denied by oath"),
            ("ask", Some("deny"), "denied by oath"),
            ("ask", None, "pending"),
            ("allow", None, "pending"),
            ("no_opinion", None, "pending"),
        ];
        for (decision, answered, want) in cases {
            let mut pre = json!({"kind": "pre", "decision": decision});
            if let Some(a) = answered {
                pre["answered"] = json!(a);
            }
            assert_eq!(outcome_text(Some(&pre), &[]), want, "{pre}");
        }
        // An outcome record, when there is one, says what happened.
        let pre = json!({"kind": "pre", "decision": "ask", "answered": "deny", "agent": "codex"});
        let ran = Record::parse(br#"{"kind": "outcome", "outcome": "unknown"}"#).unwrap();
        assert_eq!(outcome_text(Some(&pre), &[ran]), "unknown");
    }
}
