//! `oath errors`: the 3-strike log of the current branch for people.

use std::process::ExitCode;

use serde_json::json;

use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::project::{Env, Project};
use crate::strike::{self, store};
use crate::ui;

/// Arguments of `oath errors`.
#[derive(Debug, clap::Args)]
pub struct ErrorsArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub command: Option<ErrorsCommand>,
}

/// Subcommands of `oath errors`.
#[derive(Debug, clap::Subcommand)]
pub enum ErrorsCommand {
    /// List the branch's errors: hash, strike count, tool, status, last seen, first line
    List {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Show one error and its attempts
    Show {
        /// The error hash (or a unique prefix of at least 4 characters)
        hash: String,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// Mark an error resolved: its strike count returns to 0 and its action runs unasked
    Resolve {
        /// The error hash (or a unique prefix of at least 4 characters)
        hash: String,
    },
    /// Resolve every error of the branch and clear the strike index (history is kept)
    Reset,
}

/// Runs `oath errors`.
pub fn run(args: &ErrorsArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    match &args.command {
        None => list(&project, false),
        Some(ErrorsCommand::List { json }) => list(&project, *json),
        Some(ErrorsCommand::Show { hash, json }) => show(&project, hash, *json),
        Some(ErrorsCommand::Resolve { hash }) => resolve(&project, Some(hash)),
        Some(ErrorsCommand::Reset) => resolve(&project, None),
    }
}

fn status_of(e: &store::HashState) -> &'static str {
    if e.is_escalated() {
        "escalated"
    } else if e.is_unresolved() {
        "unresolved"
    } else {
        "resolved"
    }
}

fn list(project: &Project, as_json: bool) -> Result<ExitCode> {
    let view = strike::view(project);
    for w in &view.warnings {
        ui::warn(w);
    }
    let mut rows: Vec<_> = view.index.hashes.iter().collect();
    rows.sort_by(|a, b| {
        b.1.is_unresolved()
            .cmp(&a.1.is_unresolved())
            .then_with(|| b.1.count.cmp(&a.1.count))
            .then_with(|| b.1.last_seen.cmp(&a.1.last_seen))
    });
    if as_json {
        let items: Vec<_> = rows
            .iter()
            .map(|(h, e)| {
                json!({
                    "hash": h,
                    "count": e.count,
                    "total": e.total,
                    "tool": e.tool,
                    "status": if e.is_unresolved() { store::UNRESOLVED } else { store::RESOLVED },
                    "escalated": e.is_escalated(),
                    "first_seen": e.first_seen,
                    "last_seen": e.last_seen,
                    "error": e.headline,
                    "resolved_at": e.resolved_at,
                    "resolved_by": e.resolved_by,
                })
            })
            .collect();
        let out = json!({
            "file": strike::errors_path(project),
            "strikeCount": view.errors.strike_count,
            "lastErrorHash": view.errors.last_error_hash,
            "errors": items,
        });
        ui::out(&serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    let path = strike::errors_path(project);
    if rows.is_empty() {
        ui::out(&format!(
            "no errors recorded in this branch ({})",
            path.display()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    ui::out(&format!(
        "{:<8}  {:>5}  {:<12}  {:<10}  {:<20}  ERROR",
        "HASH", "COUNT", "TOOL", "STATUS", "LAST SEEN"
    ));
    for (h, e) in &rows {
        ui::out(&format!(
            "{:<8}  {:>5}  {:<12}  {:<10}  {:<20}  {}",
            h,
            e.count,
            strike::normalize::cut(&e.tool, 12),
            status_of(e),
            e.last_seen,
            e.headline
        ));
    }
    let open = rows.iter().filter(|(_, e)| e.is_unresolved()).count();
    ui::out(&format!(
        "\n{} in {} (`oath errors show HASH`, `oath errors resolve HASH`)",
        ui::plural(open, "unresolved error", "unresolved errors"),
        path.display()
    ));
    Ok(ExitCode::SUCCESS)
}

fn show(project: &Project, wanted: &str, as_json: bool) -> Result<ExitCode> {
    let view = strike::view(project);
    for w in &view.warnings {
        ui::warn(w);
    }
    let hash = strike::find_hash(&view, wanted)
        .map_err(|e| CliError::new(e).hint("`oath errors list` shows the hashes"))?;
    let attempts: Vec<_> = view
        .errors
        .attempts
        .iter()
        .filter(|a| a.hash == hash)
        .collect();
    let entry = view.index.hashes.get(&hash);
    if as_json {
        let out = json!({
            "hash": hash,
            "summary": entry,
            "attempts": attempts,
        });
        ui::out(&serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    match entry {
        Some(e) => {
            ui::out(&format!(
                "{hash}  {} error, strike count {} ({}), {} recorded",
                e.tool,
                e.count,
                status_of(e),
                ui::plural(e.total as usize, "failure", "failures")
            ));
            ui::out(&format!(
                "first seen {}, last seen {}",
                e.first_seen, e.last_seen
            ));
            if let (Some(at), Some(by)) = (&e.resolved_at, &e.resolved_by) {
                ui::out(&format!("resolved {at} by {by}"));
            }
            ui::out(&format!("error: {}", e.headline));
        }
        None => ui::out(&format!("{hash}  (no longer in the strike index)")),
    }
    for a in &attempts {
        ui::out("");
        ui::out(&format!(
            "- {}  {}  strike {}  {}{}",
            a.timestamp,
            a.status,
            a.strike
                .map(|s| s.to_string())
                .unwrap_or_else(|| "?".into()),
            a.session_id
                .as_deref()
                .map(|s| format!("session {s}"))
                .unwrap_or_default(),
            a.agent_id
                .as_deref()
                .map(|s| format!(" agent {s}"))
                .unwrap_or_default(),
        ));
        if let Some(input) = &a.input {
            ui::out(&format!("  input: {input}"));
        }
        for line in a.error.lines().take(20) {
            ui::out(&format!("  | {line}"));
        }
        if a.error.lines().count() > 20 {
            ui::out("  | ... (`--json` has the whole stored text)");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn resolve(project: &Project, wanted: Option<&String>) -> Result<ExitCode> {
    let hash = match wanted {
        Some(w) => {
            let view = strike::view(project);
            Some(
                strike::find_hash(&view, w)
                    .map_err(|e| CliError::new(e).hint("`oath errors list` shows the hashes"))?,
            )
        }
        None => None,
    };
    let mut warnings = Vec::new();
    let changed = strike::resolve(project, hash.as_deref(), Timestamp::now(), &mut warnings)?;
    for w in &warnings {
        ui::warn(w);
    }
    match (&hash, changed.len()) {
        (Some(h), 0) => ui::out(&format!("{h} was already resolved")),
        (Some(h), _) => ui::out(&format!(
            "resolved {h}: its strike count is 0 and its action runs without the 3-strike question"
        )),
        (None, n) => ui::out(&format!(
            "reset: {} resolved, strike index cleared ({})",
            ui::plural(n, "error", "errors"),
            strike::errors_path(project).display()
        )),
    }
    Ok(ExitCode::SUCCESS)
}
