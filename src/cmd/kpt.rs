//! `oath kpt`: write, validate, list, convert and apply KPT session retrospectives.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use crate::clock::Timestamp;
use crate::config::Config;
use crate::error::{CliError, Result};
use crate::kpt::{
    self, KptConfig, apply, check::Issue, draft, feedback, feedback::Feedback, report,
    report::Report, session, template,
};
use crate::project::{Env, Project};
use crate::ui;

/// Arguments of `oath kpt`.
#[derive(Debug, clap::Args)]
pub struct KptArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: KptCommand,
}

/// Every `oath kpt` subcommand.
#[derive(Debug, Subcommand)]
pub enum KptCommand {
    /// Write a draft report for a session, metrics and evidence filled in
    New {
        /// Session id (default: the project's most recently recorded session)
        #[arg(long)]
        session: Option<String>,
    },
    /// Check reports (or `fb-*.yaml` feedback) against the schema and the rules
    Validate {
        /// Files to check
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also refuse TODO(judgement) placeholders left in a report
        #[arg(long)]
        complete: bool,
    },
    /// Print the JSON Schema of reports (or of feedback)
    Schema {
        /// Print the feedback schema instead
        #[arg(long)]
        feedback: bool,
    },
    /// List the reports
    List,
    /// Print one report (id or path)
    Show {
        /// Report id such as kpt-20260208-001, or a path
        id: String,
    },
    /// Print the metrics of a session or transcript
    Metrics {
        /// Session id (default: the most recent one)
        #[arg(long, conflicts_with = "transcript")]
        session: Option<String>,
        /// A transcript file
        #[arg(long)]
        transcript: Option<PathBuf>,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Write prompt-improver feedback from a report and record its id in the report
    Feedback {
        /// The report
        file: PathBuf,
    },
    /// Persist the report's claude_md tries into CLAUDE.md managed blocks
    Apply {
        /// The report
        file: PathBuf,
        /// Show the diff without writing
        #[arg(long)]
        dry_run: bool,
    },
}

struct Ctx {
    env: Env,
    project: Project,
    cfg: KptConfig,
    now: Timestamp,
}

impl Ctx {
    fn load() -> Self {
        let env = Env::from_process();
        let project = Project::resolve(&env, None);
        let loaded = Config::in_force(&env, &project);
        for w in &loaded.warnings {
            ui::warn(&format!("configuration: {w}"));
        }
        let cfg = loaded.config.kpt;
        Self {
            env,
            project,
            cfg,
            now: Timestamp::now(),
        }
    }

    fn reports_dir(&self) -> Result<PathBuf> {
        kpt::reports_dir(&self.env, &self.cfg)
            .ok_or_else(|| CliError::new("no report directory: set HOME, OATH_KPT_DIR or kpt.dir"))
    }
}

/// Runs `oath kpt`.
pub fn run(args: &KptArgs) -> Result<ExitCode> {
    let ctx = Ctx::load();
    match &args.command {
        KptCommand::New { session } => new(&ctx, session.as_deref()),
        KptCommand::Validate { files, complete } => validate(files, *complete),
        KptCommand::Schema { feedback } => {
            let s = if *feedback {
                Feedback::schema()
            } else {
                Report::schema()
            };
            ui::out(&serde_json::to_string_pretty(&s).unwrap_or_default());
            Ok(ExitCode::SUCCESS)
        }
        KptCommand::List => list(&ctx),
        KptCommand::Show { id } => show(&ctx, id),
        KptCommand::Metrics {
            session,
            transcript,
            json,
        } => metrics(&ctx, session.as_deref(), transcript.as_deref(), *json),
        KptCommand::Feedback { file } => to_feedback(&ctx, file),
        KptCommand::Apply { file, dry_run } => apply_cmd(&ctx, file, *dry_run),
    }
}

fn print_issues(file: &Path, issues: &[Issue]) {
    for i in issues {
        let path = if i.path.is_empty() {
            "(document)"
        } else {
            &i.path
        };
        ui::error(&format!(
            "{}:{}: {path}: {}",
            file.display(),
            i.line,
            i.message
        ));
    }
}

fn read(file: &Path) -> Result<String> {
    std::fs::read_to_string(file)
        .map_err(|e| CliError::new(format!("cannot read {}: {e}", file.display())))
}

fn validate(files: &[PathBuf], complete: bool) -> Result<ExitCode> {
    let mut failed = 0;
    for f in files {
        let text = read(f)?;
        let stem = kpt::file_stem(f);
        let is_feedback = stem.as_deref().is_some_and(|s| s.starts_with("fb-"));
        let mut issues = if is_feedback {
            feedback::validate(&text, stem.as_deref())
                .err()
                .unwrap_or_default()
        } else {
            report::validate(&text, stem.as_deref())
                .err()
                .unwrap_or_default()
        };
        // Placeholders not already named by an issue of their field.
        let mut todo = match (is_feedback, kpt::check::parse(&text)) {
            (false, Ok(tree)) => report::unfinished(&tree),
            _ => Vec::new(),
        };
        todo.retain(|t| !issues.iter().any(|i| i.path == t.path));
        let left = if complete {
            issues.append(&mut todo);
            issues.sort();
            String::new()
        } else if todo.is_empty() {
            String::new()
        } else {
            format!(
                " ({} left to write: --complete names them)",
                ui::plural(
                    todo.len(),
                    "TODO(judgement) placeholder",
                    "TODO(judgement) placeholders"
                )
            )
        };
        if issues.is_empty() {
            ui::out(&format!("{}: ok{left}", f.display()));
        } else {
            failed += 1;
            print_issues(f, &issues);
            ui::error(&format!(
                "{}: {}{left}",
                f.display(),
                ui::plural(issues.len(), "problem", "problems")
            ));
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Loads (and brings up to date) the record of a session, with the project it was recorded
/// for; a session oath never saw is created from Claude Code's transcript folder.
fn load_session(ctx: &Ctx, session: Option<&str>) -> Result<(Project, session::SessionRecord)> {
    let here = match session {
        Some(id) => session::read(&ctx.project, id).map(|_| id.to_owned()),
        None => session::latest(&ctx.project),
    };
    // Elsewhere in oath's state: the hooks may have resolved the project differently.
    let (project, id) = match here {
        Some(id) => (ctx.project.clone(), id),
        None => match session::find_anywhere(&ctx.env.state_root(), session, &ctx.project.root) {
            Some(r) => {
                let root = r
                    .project_root
                    .clone()
                    .unwrap_or_else(|| ctx.project.root.clone());
                (Project::at(&ctx.env, root), r.session_id)
            }
            None => match session {
                Some(id) => (ctx.project.clone(), id.to_owned()),
                None => {
                    return Err(CliError::new(format!(
                        "no session recorded for {} yet",
                        ctx.project.root.display()
                    ))
                    .hint("oath records sessions at Stop and SessionEnd once `oath install` registered its hooks; or pass --session ID"));
                }
            },
        },
    };
    let known = session::read(&project, &id);
    let transcript = known
        .as_ref()
        .and_then(|r| r.transcript_path.clone())
        .or_else(|| {
            ctx.env
                .claude_dir()
                .and_then(|c| session::find_transcript(&c, &id))
        });
    if known.is_none() && transcript.is_none() {
        return Err(CliError::new(format!(
            "unknown session {id}: nothing recorded for this project and no transcript found"
        )));
    }
    let mut warnings = Vec::new();
    let record = session::update(
        &project,
        &id,
        transcript.as_deref(),
        None,
        "kpt",
        ctx.now,
        &mut warnings,
    )
    .map_err(|e| CliError::new(e.to_string()))?;
    for w in warnings {
        ui::warn(&w);
    }
    Ok((project, record))
}

/// Warns about transcript lines that could not be counted (they are in the metrics too).
fn warn_unread(record: &session::SessionRecord) {
    let c = record.counts();
    let mut parts = Vec::new();
    if c.invalid_lines > 0 {
        parts.push(format!(
            "{} not valid JSON",
            ui::plural(c.invalid_lines as usize, "line", "lines")
        ));
    }
    if c.skipped_lines > 0 {
        parts.push(format!(
            "{} over {} MiB skipped unread",
            ui::plural(c.skipped_lines as usize, "line", "lines"),
            session::MAX_LINE_BYTES / (1024 * 1024)
        ));
    }
    if !parts.is_empty() {
        let path = record
            .transcript_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        ui::warn(&format!(
            "transcript {path}: {} (the metrics count the rest)",
            parts.join(", ")
        ));
    }
}

fn new(ctx: &Ctx, session: Option<&str>) -> Result<ExitCode> {
    let (project, record) = load_session(ctx, session)?;
    warn_unread(&record);
    let audit = draft::facts(
        &project.audit_file(&record.session_id),
        Some(&crate::strike::errors_path(&project)),
        &record.session_id,
    );
    let base = draft::draft(&record, &audit, ctx.now);
    let dir = ctx.reports_dir()?;
    let (id, path) = draft::allocate_and_write(&dir, "kpt", ctx.now, |id| {
        let mut r = base.clone();
        r.id = id.to_owned();
        let text = template::render(&r)?;
        // Only its placeholders may keep the draft from validating: anything else is a bug,
        // reported rather than written.
        let issues = report::issues_beyond_placeholders(&text, Some(id));
        if !issues.is_empty() {
            let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
            return Err(format!(
                "internal: the draft does not validate: {}",
                list.join("; ")
            ));
        }
        Ok(text)
    })
    .map_err(CliError::new)?;
    ui::out(&path.display().to_string());
    ui::error(&format!(
        "next: replace the TODO(judgement) placeholders of {id} (its comments give each field's allowed values), then run `oath kpt validate --complete {}`",
        path.display()
    ));
    Ok(ExitCode::SUCCESS)
}

fn report_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(std::result::Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "yaml")
                        && kpt::file_stem(p).is_some_and(|s| s.starts_with("kpt-"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn list(ctx: &Ctx) -> Result<ExitCode> {
    let dir = ctx.reports_dir()?;
    let files = report_files(&dir);
    if files.is_empty() {
        ui::out(&format!("no reports in {}", dir.display()));
        return Ok(ExitCode::SUCCESS);
    }
    for f in files {
        let stem = kpt::file_stem(&f).unwrap_or_default();
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        match report::validate(&text, Some(&stem)) {
            Ok(r) => ui::out(&format!(
                "{stem}  {}  {}  keep {} problem {} try {} omission {}  session {}",
                r.created_at,
                serde_json::to_value(r.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                r.keep.len(),
                r.problem.len(),
                r.tries.len(),
                r.omission.len(),
                r.session_id.as_deref().unwrap_or("-")
            )),
            Err(issues) => match placeholders_only(&text, Some(&stem)) {
                Some(n) => ui::out(&format!(
                    "{stem}  draft ({} to fill)",
                    ui::plural(n, "placeholder", "placeholders")
                )),
                None => ui::out(&format!(
                    "{stem}  invalid ({})",
                    ui::plural(issues.len(), "problem", "problems")
                )),
            },
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn locate(ctx: &Ctx, id: &str) -> Result<PathBuf> {
    let p = PathBuf::from(id);
    if p.is_file() {
        return Ok(p);
    }
    let candidate = ctx.reports_dir()?.join(format!("{id}.yaml"));
    if candidate.is_file() {
        Ok(candidate)
    } else {
        Err(CliError::new(format!(
            "no report {id} in {}",
            ctx.reports_dir()?.display()
        ))
        .hint("`oath kpt list` shows the reports"))
    }
}

fn show(ctx: &Ctx, id: &str) -> Result<ExitCode> {
    let path = locate(ctx, id)?;
    let text = read(&path)?;
    ui::out(&format!("# {}", path.display()));
    ui::out_raw(&text);
    let stem = kpt::file_stem(&path);
    if let Err(issues) = report::validate(&text, stem.as_deref()) {
        if let Some(n) = placeholders_only(&text, stem.as_deref()) {
            ui::error(&format!(
                "{}: draft: {} to fill (`oath kpt validate --complete` names them)",
                path.display(),
                ui::plural(n, "placeholder", "placeholders")
            ));
            return Ok(ExitCode::SUCCESS);
        }
        print_issues(&path, &issues);
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Returns the number of `TODO(judgement)` placeholders of a report that is wrong only at its
/// placeholders (a draft), else nothing.
fn placeholders_only(text: &str, stem: Option<&str>) -> Option<usize> {
    if !report::issues_beyond_placeholders(text, stem).is_empty() {
        return None;
    }
    kpt::check::parse(text)
        .ok()
        .map(|t| report::unfinished(&t).len())
}

fn metrics(
    ctx: &Ctx,
    session: Option<&str>,
    transcript: Option<&Path>,
    json: bool,
) -> Result<ExitCode> {
    let m = match transcript {
        Some(t) => {
            let mut r = session::SessionRecord {
                transcript_path: Some(t.to_path_buf()),
                ..Default::default()
            };
            if !t.is_file() {
                return Err(CliError::new(format!("no transcript at {}", t.display())));
            }
            let mut warnings = Vec::new();
            session::refresh(&mut r, &mut warnings, None);
            for w in warnings {
                ui::warn(&w);
            }
            warn_unread(&r);
            r.metrics()
        }
        None => {
            let r = load_session(ctx, session)?.1;
            warn_unread(&r);
            r.metrics()
        }
    };
    if json {
        ui::out(&serde_json::to_string_pretty(&m).unwrap_or_default());
    } else {
        ui::out_raw(&kpt::to_yaml(&m).map_err(CliError::new)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a report that is valid and complete (no `TODO(judgement)` left): only finished
/// judgement is converted or persisted.
fn valid_report(path: &Path) -> Result<(String, Report)> {
    let text = read(path)?;
    let stem = kpt::file_stem(path);
    let todo = kpt::check::parse(&text)
        .map(|t| report::unfinished(&t))
        .unwrap_or_default();
    match report::validate(&text, stem.as_deref()) {
        Ok(r) if todo.is_empty() => Ok((text, r)),
        Err(issues) if placeholders_only(&text, stem.as_deref()).is_none() => {
            print_issues(path, &issues);
            Err(CliError::new(format!(
                "{} is not a valid report; fix it first",
                path.display()
            )))
        }
        // Valid but for its placeholders (a draft not yet written).
        _ => {
            print_issues(path, &todo);
            Err(CliError::new(format!(
                "{} still has TODO(judgement) placeholders",
                path.display()
            ))
            .hint("write them (the /hurikaeri command does), then `oath kpt validate --complete`"))
        }
    }
}

/// Replaces (or appends) the top-level `feedback_integration:` block of a report's text.
pub fn set_feedback_integration(text: &str, block: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("feedback_integration:"));
    let mut out: Vec<String> = Vec::new();
    match start {
        Some(s) => {
            let end = (s + 1..lines.len())
                .find(|i| {
                    let l = lines[*i];
                    !l.is_empty() && !l.starts_with([' ', '\t', '#', '-'])
                })
                .unwrap_or(lines.len());
            out.extend(lines[..s].iter().map(|l| l.to_string()));
            out.extend(block.lines().map(str::to_owned));
            out.extend(lines[end..].iter().map(|l| l.to_string()));
        }
        None => {
            out.extend(lines.iter().map(|l| l.to_string()));
            out.extend(block.lines().map(str::to_owned));
        }
    }
    out.join("\n") + "\n"
}

fn to_feedback(ctx: &Ctx, file: &Path) -> Result<ExitCode> {
    let (text, r) = valid_report(file)?;
    let dir = kpt::feedback_dir(&ctx.env, &ctx.cfg)
        .ok_or_else(|| CliError::new("no feedback directory: set HOME or kpt.feedback_dir"))?;
    let record = r.session_id.as_deref().and_then(|s| {
        session::read(&ctx.project, s)
            .or_else(|| session::find_anywhere(&ctx.env.state_root(), Some(s), &ctx.project.root))
    });
    let cctx = feedback::ConvertContext {
        transcript_path: record
            .as_ref()
            .and_then(|x| x.transcript_path.as_ref())
            .map(|p| p.display().to_string()),
        message_count: record.as_ref().map(|x| x.main.tally.counts.lines),
    };
    // Converted already: the feedback it names is kept, not written twice.
    let recorded = r
        .feedback_integration
        .as_ref()
        .and_then(|f| f.generated_feedback_id.clone());
    if let Some(id) = &recorded {
        let path = dir.join(format!("{id}.yaml"));
        if path.exists() {
            ui::error(&format!(
                "{} was converted already: {} (delete it to convert again)",
                file.display(),
                path.display()
            ));
            ui::out(&path.display().to_string());
            return Ok(ExitCode::SUCCESS);
        }
    }
    let created = ctx.now.iso_seconds();
    let convert = |id: &str| -> std::result::Result<String, String> {
        let fb = feedback::from_report(&r, id, &created, &cctx);
        let text = kpt::to_yaml(&fb)?;
        feedback::validate(&text, Some(id)).map_err(|issues| {
            let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
            format!(
                "internal: the feedback does not validate: {}",
                list.join("; ")
            )
        })?;
        Ok(text)
    };
    let (fb_id, fb_path) = match recorded {
        // The report names a feedback file that is gone: it is written again under its id.
        Some(id) => {
            let path = dir.join(format!("{id}.yaml"));
            let text = convert(&id).map_err(CliError::new)?;
            apply::write_file(&path, &text)
                .map_err(|e| CliError::new(format!("cannot write {}: {e}", path.display())))?;
            (id, path)
        }
        None => draft::allocate_and_write(&dir, "fb", ctx.now, convert).map_err(CliError::new)?,
    };
    let block = kpt::to_yaml(&serde_json::json!({
        "feedback_integration": {"enabled": true, "generated_feedback_id": fb_id}
    }))
    .map_err(CliError::new)?;
    let updated = set_feedback_integration(&text, &block);
    report::validate(&updated, kpt::file_stem(file).as_deref()).map_err(|issues| {
        print_issues(file, &issues);
        CliError::new("internal: the report would not validate after recording the feedback id")
    })?;
    apply::write_file(file, &updated)
        .map_err(|e| CliError::new(format!("cannot write {}: {e}", file.display())))?;
    ui::out(&fb_path.display().to_string());
    Ok(ExitCode::SUCCESS)
}

fn apply_cmd(ctx: &Ctx, file: &Path, dry_run: bool) -> Result<ExitCode> {
    let (_, r) = valid_report(file)?;
    let home = ctx.env.home.clone();
    let root = ctx.project.root.clone();
    let target = |p: &str| {
        let path = apply::resolve_path(p, home.as_deref(), &root);
        apply::claude_md_target(&path, &root, home.as_deref())
    };
    let plan = apply::plan(
        &r,
        |p| target(p).map(|path| apply::write_destination(&path)),
        |p| std::fs::read_to_string(p).ok(),
    );
    for t in r.tries.iter().filter_map(|t| t.persistence_target.as_ref()) {
        if let Ok(path) = target(&t.path) {
            let dest = apply::write_destination(&path);
            if dest != path {
                ui::out(&format!(
                    "{} is a symlink: writing its target {}",
                    path.display(),
                    dest.display()
                ));
            }
        }
    }
    if plan.files.is_empty() && plan.manual.is_empty() {
        ui::out(&format!("{}: no try has a persistence_target", r.id));
        return Ok(ExitCode::SUCCESS);
    }
    let mut errors = 0;
    for f in &plan.files {
        if f.before == f.after {
            ui::out(&format!(
                "{}: already up to date ({})",
                f.path.display(),
                f.present.join(", ")
            ));
            continue;
        }
        ui::out_raw(&apply::diff(&f.path, &f.before, &f.after));
        if dry_run {
            ui::out(&format!("dry run: {} not written", f.path.display()));
        } else if let Err(e) = apply::write_file(&f.path, &f.after) {
            ui::error(&format!("error: cannot write {}: {e}", f.path.display()));
            errors += 1;
        } else {
            ui::out(&format!(
                "{}: added {}",
                f.path.display(),
                f.added.join(", ")
            ));
        }
    }
    for m in &plan.manual {
        ui::out(&format!("would do: {m}"));
    }
    if errors > 0 {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
