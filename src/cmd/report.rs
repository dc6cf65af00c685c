//! `oath report`: one self-contained HTML page of a session (or a time window): the timeline
//! of its tool calls by decision, trust per domain with the thresholds, strikes and
//! escalations, totals and the session's KPT retrospective.
//!
//! The edge: it picks the session, streams the trail through [`crate::audit::trail`] into
//! [`crate::report::model::Builder`], reads the 3-strike log and the KPT reports, and writes
//! what [`crate::report::html::render`] returns.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::audit::read::{self, ReadError};
use crate::audit::trail::{self, Filter};
use crate::clock::Timestamp;
use crate::cmd::audit::time_bound;
use crate::config::Config;
use crate::error::{CliError, Result};
use crate::kpt;
use crate::project::{Env, Project};
use crate::report::{self, html, model};
use crate::strike;
use crate::ui;

/// Write an HTML report of a session.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The report is one HTML file that needs nothing else (no network, no external files): a
timeline of the tool calls, one column per call coloured by oath's decision (allow, no
opinion, ask, deny), with failures, 3-strike strikes (2 and more) and escalations marked;
hovering or clicking a call shows its tool, input, domain, risk, rule, reason, outcome and
trust change. Below it, trust per domain after each outcome, with the trust levels at which
oath allows (green) and asks (amber) reversible calls of low, medium and high risk under the
configuration in force. Totals: calls, prompts avoided (calls oath allowed, which ran without
a permission prompt), no opinion, asks, denials, failures, strikes, escalations and user
prompts. The session's KPT retrospective is shown when `oath kpt new` wrote a valid one.

Without --session or --since, the project's most recent session (the audit file with the
latest record). With --since (and --until) alone, every session of the window. Inputs are
shown as the audit trail holds them: redacted, long strings cut. Strikes come from the
current branch's 3-strike log.

The file goes to the project's state folder (reports/<session>.html) unless -o names one;
its path is printed. `-o -` writes the page to stdout.

Examples:
  oath report                         the latest session
  oath report --session 2a8a8413      one session (a prefix of the id is enough)
  oath report --since 2h -o today.html
  xdg-open \"$(oath report)\"")]
pub struct ReportArgs {
    /// The session (a prefix of the id is enough); default: the most recent one
    #[arg(long)]
    pub session: Option<String>,
    /// Only records at or after this time: ISO 8601 (2026-03-01, 2026-03-01T09:00:00Z) or
    /// relative (30m, 2h, 7d)
    #[arg(long)]
    pub since: Option<String>,
    /// Only records before this time (same forms as --since)
    #[arg(long)]
    pub until: Option<String>,
    /// Where to write the page (`-` for stdout); default: reports/<session>.html in the
    /// project's state folder
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Returns the session of the audit file whose last record is the latest.
fn latest_session(dir: &Path) -> Result<Option<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CliError::new(ReadError::at(dir)(e).to_string())),
    };
    let mut best: Option<(Timestamp, String)> = None;
    for e in entries.filter_map(std::result::Result::ok) {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut parsed = 0;
        let last = read::last_record(&path, len, &mut parsed, |r| {
            r.time.is_some() && r.session.is_some()
        })
        .map_err(|e| CliError::new(ReadError::at(&path)(e).to_string()))?;
        if let Some(r) = last
            && let (Some(t), Some(s)) = (r.time, r.session)
            && best.as_ref().is_none_or(|(bt, _)| t > *bt)
        {
            best = Some((t, s.into()));
        }
    }
    Ok(best.map(|(_, s)| s))
}

/// Returns the KPT report of a session, when a valid one is in the report folder.
fn kpt_report(env: &Env, config: &Config, session: &str) -> Option<kpt::report::Report> {
    let dir = kpt::reports_dir(env, &config.kpt)?;
    let files = std::fs::read_dir(&dir).ok()?.filter_map(|e| {
        let path = e.ok()?.path();
        let stem = kpt::file_stem(&path)?;
        if !stem.starts_with("kpt-") || path.extension().is_none_or(|x| x != "yaml") {
            return None;
        }
        // Only reports that name the session are parsed.
        let text = std::fs::read_to_string(&path).ok()?;
        text.contains(session).then_some((stem, text))
    });
    report::kpt_for(files, session)
}

/// Runs `oath report`.
pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let loaded = Config::in_force(&env, &project);
    for w in &loaded.warnings {
        ui::warn(&format!("configuration: {w}"));
    }
    let config = loaded.config;
    let now = Timestamp::now();
    let bound = |s: &Option<String>, flag: &str| time_bound(s.as_deref(), flag, now);
    let since = bound(&args.since, "--since")?;
    let until = bound(&args.until, "--until")?;
    let dir = project.audit_dir();
    let session = match (&args.session, since) {
        (Some(s), _) => Some(s.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(latest_session(&dir)?.ok_or_else(|| {
            CliError::new(format!("no audit trail yet for {}", project.root.display()))
                .hint("oath records every tool call once it is installed (`oath install`)")
        })?),
    };
    let filter = Filter {
        session: session.clone(),
        since,
        until,
        events: true,
        ..Filter::default()
    };
    let view = strike::view(&project);
    for w in &view.warnings {
        ui::warn(w);
    }
    let root = project.root.display().to_string();
    let mut builder = model::Builder::new(&root, report::strikes_by_call(&view.errors));
    let stats = trail::read(&dir, &filter, |e| {
        builder.push(&e);
        ControlFlow::Continue(())
    })
    .map_err(|e| CliError::new(e.to_string()))?;
    if stats.unreadable > 0 {
        ui::warn(&format!(
            "{} in the audit trail could not be read and {} skipped",
            ui::plural(stats.unreadable, "line", "lines"),
            if stats.unreadable == 1 { "was" } else { "were" }
        ));
    }
    let thresholds = model::thresholds(&config.risk, &config.autonomy);
    // The whole session id, as the records name it (the argument may be a prefix).
    let mut model = builder.finish(thresholds, None);
    if let [only] = model.sessions.as_slice()
        && since.is_none()
        && until.is_none()
    {
        model.kpt = kpt_report(&env, &config, only);
    }
    let who = match &session {
        Some(_) if model.sessions.len() <= 1 => String::new(),
        Some(s) => format!("sessions starting {s}"),
        None => "all sessions".to_owned(),
    };
    let window = match (&args.since, &args.until) {
        (Some(s), Some(u)) => format!("from {s} to {u}"),
        (Some(s), None) => format!("since {s}"),
        (None, Some(u)) => format!("until {u}"),
        (None, None) => String::new(),
    };
    let scope = [who, window]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    if model.calls.is_empty() && model.sessions.is_empty() {
        ui::warn("no tool call matches: the report is empty");
    }
    let meta = html::Meta {
        project: project
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| root.clone()),
        scope,
        generated: now,
    };
    let page = html::render(&model, &meta);
    let out = match &args.output {
        Some(p) if p.as_os_str() == "-" => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(page.as_bytes());
            let _ = stdout.flush();
            return Ok(ExitCode::SUCCESS);
        }
        Some(p) => p.clone(),
        None => {
            let name = match model.sessions.as_slice() {
                [one] if since.is_none() && until.is_none() => {
                    crate::project::file_safe(one).to_string()
                }
                _ => format!("window-{}", now.file_stamp()),
            };
            project
                .state_dir
                .join("reports")
                .join(format!("{name}.html"))
        }
    };
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| CliError::new(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(&out, page.as_bytes())
        .map_err(|e| CliError::new(format!("cannot write {}: {e}", out.display())))?;
    ui::out(&out.display().to_string());
    Ok(ExitCode::SUCCESS)
}
