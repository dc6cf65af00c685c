//! `oath status`: trust per domain and risk level as it is now (idle decay applied on read,
//! nothing written).

use std::process::ExitCode;

use serde_json::{Map, Value, json};

use crate::classify::{Classification, Domain, Risk};
use crate::clock::Timestamp;
use crate::config::Config;
use crate::decide::{self, Inputs};
use crate::error::{CliError, Result};
use crate::phase::Phase;
use crate::project::{Env, Project};
use crate::state::trust::TrustStore;
use crate::trust::{DomainLevels, DomainTrust, Level, TrustFile, TrustParams, effective};
use crate::ui;

/// Version of the `--json` output (2: each domain's scores by level).
pub const JSON_VERSION: u32 = 2;

/// Show trust per domain and risk level.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each domain keeps a score per risk level (low, medium, high): a call is decided by its own
level's score, a success raises its level and the ones below, a failure lowers them all.
Scores are the effective scores now: a level idle longer than the hibernation period shows
its decayed score. Reading never changes oath's state.

Examples:
  oath status                  every domain of this project
  oath status shell_exec       one domain
  oath status --oneline        one line, as /quick-load shows it (low/medium/high, [R] = recovering)
  oath status --json           for scripts")]
pub struct StatusArgs {
    /// Show only this domain (file_read, shell_exec, git_local, ...)
    pub domain: Option<String>,
    /// Print one line: `Trust: file_read=0.72/0.30/0.30 build=0.45[R]/0.40[R]/0.26[R] ...`
    #[arg(long, conflicts_with = "json")]
    pub oneline: bool,
    /// Print JSON for scripts
    #[arg(long)]
    pub json: bool,
}

/// Runs `oath status`.
pub fn run(args: &StatusArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let loaded = Config::in_force(&env, &project);
    for w in loaded.warnings.iter().chain(&loaded.unapproved_notice()) {
        ui::warn(&format!("configuration: {w}"));
    }
    let config = loaded.config;
    let params = &config.trust;
    let now = Timestamp::now();
    let mut warnings = Vec::new();
    let loaded = TrustStore::of(&project).load(&mut warnings);
    for w in &warnings {
        ui::warn(w);
    }
    let file = loaded.map_err(|why| {
        CliError::new(why)
            .hint("the next hook update moves it aside and starts from the initial scores")
    })?;
    if let Some(d) = &args.domain
        && Domain::parse(d).is_none()
        && !file.as_ref().is_some_and(|f| f.domains.contains_key(d))
    {
        let names: Vec<&str> = Domain::ALL.iter().map(|d| d.as_str()).collect();
        return Err(CliError::new(format!("unknown domain {d:?}"))
            .hint(format!("domains are: {}", names.join(", "))));
    }
    let phase = Phase::read(&project.phase_file());
    let rows = rows(file.as_ref(), args.domain.as_deref(), now, params);
    if args.json {
        ui::out(&to_json(&project, phase, file.as_ref(), &rows).to_string());
    } else if args.oneline {
        ui::out(&oneline(file.is_some(), &rows));
    } else {
        human(
            &project,
            phase,
            file.as_ref(),
            args.domain.as_deref(),
            &rows,
        );
        if let (Some(name), Some(row), Some(_)) = (args.domain.as_deref(), rows.first(), &file)
            && let Some(domain) = Domain::parse(name)
        {
            estimates(domain, row, phase, &config);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One level of a domain as shown: its effective state now.
#[derive(Debug, Clone)]
pub struct LevelRow {
    /// The level.
    pub level: Level,
    /// Effective state now.
    pub now: DomainTrust,
    /// Score as stored (before idle decay).
    pub stored: f64,
    /// Whether the level was never operated (shown at the initial score).
    pub fresh: bool,
}

/// One domain as shown: each level's effective state now.
#[derive(Debug, Clone)]
pub struct Row {
    /// Domain name.
    pub name: String,
    /// Low, medium and high.
    pub levels: [LevelRow; 3],
    /// Outcomes applied to the domain.
    pub operations: u64,
    /// Its last operation, at any level.
    pub last_operated_at: Option<String>,
}

impl Row {
    /// Returns a domain's row (`None`: never operated at any level).
    fn new(
        name: &str,
        levels: Option<&DomainLevels>,
        now: Timestamp,
        params: &TrustParams,
    ) -> Self {
        let fresh = DomainLevels::default();
        let levels = levels.unwrap_or(&fresh);
        Self {
            name: name.to_owned(),
            levels: Level::ALL.map(|level| match levels.get(level) {
                Some(d) => LevelRow {
                    level,
                    now: effective(d, now, params),
                    stored: d.score,
                    fresh: false,
                },
                None => LevelRow {
                    level,
                    now: DomainTrust::new(params),
                    stored: params.initial_score,
                    fresh: true,
                },
            }),
            operations: levels.operations(),
            last_operated_at: levels.last_operated_at().map(str::to_owned),
        }
    }

    /// Returns a level's row.
    pub fn level(&self, level: Level) -> &LevelRow {
        &self.levels[level as usize]
    }
}

/// Returns the rows to show, highest low-level score first (`_global` left out when it
/// never operated).
pub fn rows(
    file: Option<&TrustFile>,
    only: Option<&str>,
    now: Timestamp,
    params: &TrustParams,
) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    if let Some(f) = file {
        for (name, d) in &f.domains {
            if only.is_some_and(|o| o != name) {
                continue;
            }
            if only.is_none() && name == "_global" && d.operations() == 0 {
                continue;
            }
            out.push(Row::new(name, Some(d), now, params));
        }
    }
    if let Some(o) = only
        && out.is_empty()
    {
        out.push(Row::new(o, None, now, params));
    }
    let low = |r: &Row| r.level(Level::Low).now.score;
    out.sort_by(|a, b| low(b).total_cmp(&low(a)).then_with(|| a.name.cmp(&b.name)));
    out
}

/// Returns the `--oneline` text: each domain's low, medium and high scores.
pub fn oneline(initialized: bool, rows: &[Row]) -> String {
    if !initialized || rows.is_empty() {
        return "Trust: uninitialized".into();
    }
    let parts: Vec<String> = rows
        .iter()
        .map(|r| {
            let levels: Vec<String> = r
                .levels
                .iter()
                .map(|l| {
                    format!(
                        "{:.2}{}",
                        l.now.score,
                        if l.now.is_recovering { "[R]" } else { "" }
                    )
                })
                .collect();
            format!("{}={}", r.name, levels.join("/"))
        })
        .collect();
    format!("Trust: {}", parts.join(" "))
}

/// Returns a ten-cell bar for a score in [0, 1].
pub fn bar(score: f64) -> String {
    // Rounded as printed first, so 0.3997 (shown 0.40) gets four cells.
    let shown = (score.clamp(0.0, 1.0) * 100.0).round();
    let filled = ((shown / 10.0).floor() as usize).min(10);
    format!("{}{}", "█".repeat(filled), "░".repeat(10 - filled))
}

fn human(
    project: &Project,
    phase: Option<Phase>,
    file: Option<&TrustFile>,
    only: Option<&str>,
    rows: &[Row],
) {
    let phase = phase.map_or("none".to_owned(), |p| p.as_str().to_owned());
    let Some(file) = file else {
        ui::out(&format!("Project: {}", project.root.display()));
        ui::out(&format!("Phase:   {phase}"));
        ui::out("");
        ui::out(
            "No trust data yet: oath starts every domain at the initial score and learns from each tool call.",
        );
        ui::out(
            "Run a Claude Code session with oath installed (`oath install`), or try `oath demo`.",
        );
        return;
    };
    ui::out(&format!("Project: {}", project.root.display()));
    ui::out(&format!(
        "Phase:   {phase}  |  {}",
        ui::plural(
            usize::try_from(file.global_operation_count).unwrap_or(usize::MAX),
            "operation",
            "operations"
        )
    ));
    if rows.is_empty() && only.is_none() {
        ui::out("");
        ui::out("No domain has been operated yet.");
    }
    for r in rows {
        ui::out("");
        ui::out(&format!("Domain: {}", r.name));
        ui::out(&format!(
            "  {:<7} {:<16}  {:>9}  {:>8}  {:>11}  {:<11} {}",
            "level", "score", "successes", "failures", "consecutive", "recovering", "warm-up"
        ));
        for l in &r.levels {
            let d = &l.now;
            let score = format!("{:.2}  {}", d.score, bar(d.score));
            if l.fresh {
                ui::out(&format!(
                    "  {:<7} {score}  (no operations yet: the initial score)",
                    l.level.as_str()
                ));
                continue;
            }
            let recovering = match (d.is_recovering, d.pre_failure_score) {
                (true, Some(target)) => format!("yes → {target:.2}"),
                _ => "no".to_owned(),
            };
            let warmup = if d.is_warming_up {
                format!("yes ({} left)", d.warmup_remaining)
            } else {
                "no".to_owned()
            };
            let decayed = if (l.stored - d.score).abs() > 1e-12 {
                format!("  (idle decay from {:.2})", l.stored)
            } else {
                String::new()
            };
            ui::out(&format!(
                "  {:<7} {score}  {:>9}  {:>8}  {:>11}  {recovering:<11} {warmup}{decayed}",
                l.level.as_str(),
                d.successes,
                d.failures,
                d.consecutive_failures,
            ));
        }
        if let Some(last) = &r.last_operated_at {
            ui::out(&format!("  Last used: {last}"));
        }
    }
}

/// Prints what oath would decide in this domain at its trust now, per risk level, each at
/// its own level's trust (critical at high's; no rules, no 3-strike escalation), computed by
/// the gate's own [`decide::decide`].
fn estimates(domain: Domain, row: &Row, phase: Option<Phase>, config: &Config) {
    ui::out("");
    ui::out(&format!(
        "  Decisions at this trust{} (before rules and 3-strike):",
        phase.map_or(String::new(), |p| format!(" in the {p} phase"))
    ));
    for risk in [Risk::Low, Risk::Medium, Risk::High, Risk::Critical] {
        let trust = row.level(Level::of(risk)).now.score;
        let class = Classification::single("", domain, risk, "status", "estimate");
        let v = decide::decide(&Inputs {
            class: &class,
            trust,
            phase,
            rule: None,
            strike: None,
            weights: &config.risk,
            thresholds: &config.autonomy,
        });
        ui::out(&format!(
            "    {:<9} trust {:.2}  autonomy {:.2}  {}",
            risk.as_str(),
            trust,
            v.autonomy,
            v.decision.as_str()
        ));
    }
}

fn to_json(
    project: &Project,
    phase: Option<Phase>,
    file: Option<&TrustFile>,
    rows: &[Row],
) -> Value {
    let mut domains = Map::new();
    for r in rows {
        let mut levels = Map::new();
        for l in &r.levels {
            let d = &l.now;
            levels.insert(
                l.level.as_str().to_owned(),
                json!({
                    "score": d.score,
                    "stored_score": l.stored,
                    "operated": !l.fresh,
                    "successes": d.successes,
                    "failures": d.failures,
                    "total_operations": d.total_operations,
                    "consecutive_failures": d.consecutive_failures,
                    "is_recovering": d.is_recovering,
                    "pre_failure_score": d.pre_failure_score,
                    "is_warming_up": d.is_warming_up,
                    "warmup_remaining": d.warmup_remaining,
                    "last_operated_at": d.last_operated_at,
                }),
            );
        }
        domains.insert(
            r.name.clone(),
            json!({
                "total_operations": r.operations,
                "last_operated_at": r.last_operated_at,
                "levels": levels,
            }),
        );
    }
    json!({
        "version": JSON_VERSION,
        "project": project.root,
        "phase": phase,
        "initialized": file.is_some(),
        "global_operation_count": file.map_or(0, |f| f.global_operation_count),
        "domains": domains,
    })
}
