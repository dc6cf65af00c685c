//! `oath demo`: the seed's four trust scenarios (seed 001 §3.9) run on the real engine.
//!
//! Each scenario gets a fresh temporary project and state dir. Every step is a real hook
//! payload (PreToolUse, then PostToolUse or PostToolUseFailure) answered by
//! [`hook::run_guarded`] with a pinned clock, so classification, decision, trust updates, the
//! state files and the audit trail are exactly what the hook does; the numbers printed are
//! read back from the audit trail and the trust file the hook wrote.

use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use serde_json::{Value, json};

use crate::audit::read;
use crate::classify::Risk;
use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::hook::{self, Ctx};
use crate::project::{Env, Project};
use crate::state::trust::TrustStore;
use crate::trust::{Level, RiskWeights};
use crate::ui;

/// Instant the demo's clock starts at (one minute passes per step).
pub const DEMO_START: &str = "2026-03-01T09:00:00Z";

/// Run the seed's four trust scenarios on the real engine and print each step.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Scenarios: normal growth, failure and recovery boost, complexity compared (risk levels at
rising trust), consecutive failures. Each runs real hook payloads through oath in a
temporary project with the default parameters; nothing outside the temporary dir is touched.

Examples:
  oath demo                    all four scenarios as tables
  oath demo --scenario 2       only the failure and recovery scenario
  oath demo --json             every step as JSON")]
pub struct DemoArgs {
    /// Run only this scenario (1-4)
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub scenario: Option<u8>,
    /// Print every step as JSON
    #[arg(long)]
    pub json: bool,
}

/// What the gate said about one call (read from its audit record).
#[derive(Debug, Clone, Serialize)]
pub struct Pre {
    /// Domain.
    pub domain: String,
    /// Risk category.
    pub risk: String,
    /// The level of the domain's trust the decision used (the risk; high for critical).
    pub level: Level,
    /// Complexity used.
    pub complexity: f64,
    /// Effective trust before the call, of the domain at `level`.
    pub trust: f64,
    /// Autonomy computed.
    pub autonomy: f64,
    /// Decision.
    pub decision: String,
    /// The reason Claude Code shows.
    pub reason: String,
}

/// What the trust folder says about the call's domain and level after an outcome.
#[derive(Debug, Clone, Serialize)]
pub struct After {
    /// `success` or `failure`.
    pub outcome: String,
    /// Score after, at the call's level.
    pub trust: f64,
    /// Consecutive failures.
    pub consecutive_failures: u32,
    /// Whether the domain is recovering, and to which score.
    pub recovering_to: Option<f64>,
}

/// One step of a scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// 1-based step number.
    pub step: usize,
    /// The call, as shown.
    pub call: String,
    /// The gate's view.
    pub pre: Pre,
    /// Autonomy had complexity been fixed at 0.5 (Phase 1), for comparison.
    pub autonomy_fixed_complexity: f64,
    /// The outcome, when the call ran.
    pub after: Option<After>,
}

/// A scenario and its steps.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    /// 1-4.
    pub number: u8,
    /// Title.
    pub title: String,
    /// What it shows.
    pub about: String,
    /// Steps.
    pub steps: Vec<Step>,
}

/// A temporary project and state dir with a pinned clock, driven through the hook.
struct Runner {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    project: Project,
    root: PathBuf,
    session: String,
    seq: usize,
}

impl Runner {
    fn new(n: u8) -> Result<Self> {
        let dir = tempfile::tempdir()
            .map_err(|e| CliError::new(format!("cannot create a temporary dir: {e}")))?;
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("src"))
            .map_err(|e| CliError::new(format!("cannot create the demo project: {e}")))?;
        let env = Env {
            oath_home: Some(dir.path().join("state")),
            home: Some(dir.path().join("home")),
            claude_project_dir: Some(root.clone()),
            ..Env::default()
        };
        let project = Project::at(&env, root.clone());
        let now = Timestamp::parse(DEMO_START).unwrap_or_else(|| Timestamp::from_unix(0));
        Ok(Self {
            _dir: dir,
            ctx: Ctx {
                env,
                now,
                event_hint: None,
                agent: None,
                last_word: false,
            },
            project,
            root,
            session: format!("demo-scenario-{n}"),
            seq: 0,
        })
    }

    fn payload(&self, event: &str, tool: &str, input: &Value, extra: Value) -> Vec<u8> {
        let mut p = json!({
            "session_id": self.session,
            "transcript_path": self.root.join("transcript.jsonl"),
            "cwd": self.root,
            "permission_mode": "default",
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": format!("toolu_demo_{:03}", self.seq),
        });
        if let (Some(m), Value::Object(x)) = (p.as_object_mut(), extra) {
            m.extend(x);
        }
        p.to_string().into_bytes()
    }

    fn last_audit(&self) -> Result<Value> {
        let path = self.project.audit_file(&self.session);
        let no_record = |e: &dyn std::fmt::Display| {
            CliError::new(format!(
                "the hook wrote no audit record ({}): {e}",
                path.display()
            ))
        };
        let len = std::fs::metadata(&path).map_err(|e| no_record(&e))?.len();
        read::last_record(&path, len, &mut 0, |_| true)
            .map_err(|e| no_record(&e))?
            .map(|r| r.value())
            .ok_or_else(|| CliError::new("unreadable audit record: no JSON object"))
    }

    /// Sends PreToolUse for a call.
    fn pre(&mut self, tool: &str, input: &Value) -> Result<Pre> {
        self.seq += 1;
        self.ctx.now = self.ctx.now.plus_seconds(60);
        let bytes = self.payload("PreToolUse", tool, input, json!({}));
        let answer = hook::run_guarded(&bytes, &self.ctx);
        let rec = self.last_audit()?;
        if rec["kind"] != "pre" {
            let why = answer.stderr_lines().join("; ");
            return Err(CliError::new(format!(
                "the hook did not record the call: {why}"
            )));
        }
        let f = |k: &str| rec[k].as_f64().unwrap_or(f64::NAN);
        let risk: Risk =
            serde_json::from_value(rec["risk_category"].clone()).unwrap_or(Risk::Critical);
        Ok(Pre {
            domain: rec["domain"].as_str().unwrap_or("?").to_owned(),
            risk: risk.as_str().to_owned(),
            level: Level::of(risk),
            complexity: f("complexity"),
            trust: f("trust_score_before"),
            autonomy: f("autonomy_score"),
            decision: rec["decision"].as_str().unwrap_or("?").to_owned(),
            reason: rec["reason"].as_str().unwrap_or("").to_owned(),
        })
    }

    /// Sends the outcome of the last call, a call at `level` in `domain`.
    fn post(
        &mut self,
        tool: &str,
        input: &Value,
        success: bool,
        domain: &str,
        level: Level,
    ) -> Result<After> {
        let bytes = if success {
            self.payload(
                "PostToolUse",
                tool,
                input,
                json!({"tool_response": {"success": true}, "duration_ms": 120}),
            )
        } else {
            self.payload(
                "PostToolUseFailure",
                tool,
                input,
                json!({"error": "Exit code 1", "is_interrupt": false, "duration_ms": 120}),
            )
        };
        hook::run_guarded(&bytes, &self.ctx);
        let file = match TrustStore::of(&self.project).load(&mut Vec::new()) {
            Ok(Some(f)) => f,
            _ => return Err(CliError::new("the hook wrote no trust file")),
        };
        let d = file
            .domains
            .get(domain)
            .and_then(|d| d.get(level))
            .ok_or_else(|| {
                CliError::new(format!(
                    "the hook did not update domain {domain} at level {level}"
                ))
            })?;
        Ok(After {
            outcome: if success { "success" } else { "failure" }.into(),
            trust: d.score,
            consecutive_failures: d.consecutive_failures,
            recovering_to: d.pre_failure_score.filter(|_| d.is_recovering),
        })
    }

    /// Runs a call and its outcome (`None`: the call is not run, as after a deny).
    fn step(
        &mut self,
        steps: &mut Vec<Step>,
        call: &str,
        tool: &str,
        input: &Value,
        outcome: Option<bool>,
    ) -> Result<()> {
        let pre = self.pre(tool, input)?;
        let after = match outcome {
            Some(ok) => Some(self.post(tool, input, ok, &pre.domain.clone(), pre.level)?),
            None => None,
        };
        steps.push(Step {
            step: steps.len() + 1,
            call: call.to_owned(),
            autonomy_fixed_complexity: fixed_autonomy(&pre),
            pre,
            after,
        });
        Ok(())
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }
}

/// Autonomy with complexity fixed at 0.5 (oath-harness Phase 1), for the comparison column.
fn fixed_autonomy(pre: &Pre) -> f64 {
    let w = RiskWeights::default();
    let r = match pre.risk.as_str() {
        "low" => 1.0,
        "medium" => 2.0,
        "high" => 3.0,
        _ => 4.0,
    };
    (1.0 - (w.lambda1 * r / 4.0 + w.lambda2 * 0.5) * (1.0 - pre.trust)).clamp(0.0, 1.0)
}

fn bash(cmd: &str) -> Value {
    json!({"command": cmd, "description": "demo"})
}

/// Scenario 1: fourteen successful builds.
fn normal_growth() -> Result<Scenario> {
    let mut r = Runner::new(1)?;
    let mut steps = Vec::new();
    let input = bash("cargo build");
    for _ in 0..14 {
        r.step(&mut steps, "Bash cargo build", "Bash", &input, Some(true))?;
    }
    Ok(Scenario {
        number: 1,
        title: "Normal growth".into(),
        about: "Fourteen successful builds (medium risk): trust earns the boosted rate (5% of what is left) during the first 20 operations of a domain, and once it passes 0.6 oath allows builds without asking Claude Code's own rules.".into(),
        steps,
    })
}

/// Scenario 2: five successes, two failures, then successes at the recovery-boosted rate.
fn failure_recovery() -> Result<Scenario> {
    let mut r = Runner::new(2)?;
    let mut steps = Vec::new();
    let input = bash("cargo test");
    let plan = [true, true, true, true, true, false, false]
        .into_iter()
        .chain(std::iter::repeat_n(true, 8));
    for ok in plan {
        r.step(&mut steps, "Bash cargo test", "Bash", &input, Some(ok))?;
    }
    Ok(Scenario {
        number: 2,
        title: "Failure and recovery boost".into(),
        about: "Each failure multiplies trust by 0.85; the first one records the score to recover to, and successes earn 1.5 times the rate until trust is back there.".into(),
        steps,
    })
}

/// Scenario 3: one call per risk level, at the initial trust and after 10 and 25 successes.
fn complexity_compared() -> Result<Scenario> {
    let mut r = Runner::new(3)?;
    let mut steps = Vec::new();
    let calls: Vec<(&str, &str, Value)> = vec![
        (
            "Read src/lib.rs",
            "Read",
            json!({"file_path": r.path("src/lib.rs")}),
        ),
        ("Bash cargo build", "Bash", bash("cargo build")),
        (
            "Bash git reset --hard",
            "Bash",
            bash("git reset --hard HEAD~1"),
        ),
        ("Bash rm -rf ~", "Bash", bash("rm -rf ~")),
    ];
    let mut done = 0;
    for stage in [0usize, 10, 25] {
        // Earn trust with successful calls of the first three (the critical one never runs).
        while done < stage {
            for (_, tool, input) in &calls[..3] {
                let pre = r.pre(tool, input)?;
                r.post(tool, input, true, &pre.domain, pre.level)?;
            }
            done += 1;
        }
        for (name, tool, input) in &calls {
            r.step(&mut steps, name, tool, input, None)?;
        }
    }
    Ok(Scenario {
        number: 3,
        title: "Complexity compared".into(),
        about: "The same four calls at the initial trust, then after 10 and 25 successes of each: autonomy with the complexity derived from the risk (0.2 / 0.5 / 0.7 / 1.0) against a fixed 0.5. Reversible work is decided by trust; even when the git domain's trust is high, `git reset --hard` over uncommitted work is still asked (irreversible: trust never lifts it), and `rm -rf ~` is denied (catastrophic).".into(),
        steps,
    })
}

/// Scenario 4: trust built to about 0.5, then five failures in a row.
fn consecutive_failures() -> Result<Scenario> {
    let mut r = Runner::new(4)?;
    let mut steps = Vec::new();
    let input = bash("cargo build");
    let plan = std::iter::repeat_n(true, 7).chain(std::iter::repeat_n(false, 5));
    for ok in plan {
        r.step(&mut steps, "Bash cargo build", "Bash", &input, Some(ok))?;
    }
    Ok(Scenario {
        number: 4,
        title: "Consecutive failures".into(),
        about: "Seven successes bring trust to about 0.5, then five failures in a row: each one costs 15%, the count of consecutive failures grows, and the score to recover to stays the one before the first failure.".into(),
        steps,
    })
}

/// A scenario's runner.
type ScenarioFn = fn() -> Result<Scenario>;

/// Runs the scenarios (all, or one).
pub fn scenarios(only: Option<u8>) -> Result<Vec<Scenario>> {
    let mut out = Vec::new();
    let all: [(u8, ScenarioFn); 4] = [
        (1, normal_growth),
        (2, failure_recovery),
        (3, complexity_compared),
        (4, consecutive_failures),
    ];
    for (n, f) in all {
        if only.is_none_or(|o| o == n) {
            out.push(f()?);
        }
    }
    Ok(out)
}

/// Runs `oath demo`.
pub fn run(args: &DemoArgs) -> Result<ExitCode> {
    let scenarios = scenarios(args.scenario)?;
    if args.json {
        let v = json!({"version": 1, "start": DEMO_START, "scenarios": scenarios});
        ui::out(&serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    ui::out("oath demo: the seed's trust scenarios, run on the real engine.");
    ui::out("Every step is a hook payload answered by oath in a temporary project (default");
    ui::out("parameters, no phase); the numbers are read back from the audit trail and the");
    ui::out("trust files the hook wrote. Trust is kept per domain and risk level: the trust");
    ui::out("column is the domain's at the call's level, which its success raises with the");
    ui::out("levels below it (a failure lowers every level). When oath asks, the demo goes on");
    ui::out("as if the user approved.");
    for s in &scenarios {
        ui::out("");
        ui::out(&format!("Scenario {}: {}", s.number, s.title));
        for line in wrap(&s.about, 86) {
            ui::out(&format!("  {line}"));
        }
        ui::out("");
        if s.number == 3 {
            print_risk_table(s);
        } else {
            print_step_table(s);
        }
        print_notes(s);
    }
    ui::out("");
    ui::out("Decisions: allow = approved without a prompt; no_opinion = Claude Code's own");
    ui::out("permission rules decide; ask = the user is asked; deny = blocked.");
    Ok(ExitCode::SUCCESS)
}

fn print_step_table(s: &Scenario) {
    ui::out(&format!(
        "  {:>4}  {:<17} {:<14} {:<6} {:<6} {:>7} {:>8}  {:<10}  {:<7} {:>7} {:>5}  {}",
        "step",
        "call",
        "domain",
        "risk",
        "level",
        "trust",
        "autonomy",
        "decision",
        "outcome",
        "after",
        "fails",
        "recovering"
    ));
    for st in &s.steps {
        let (outcome, after, fails, rec) = match &st.after {
            Some(a) => (
                a.outcome.as_str(),
                format!("{:.4}", a.trust),
                a.consecutive_failures.to_string(),
                a.recovering_to
                    .map_or("no".to_owned(), |t| format!("yes → {t:.4}")),
            ),
            None => ("-", "-".into(), "-".into(), "-".into()),
        };
        ui::out(&format!(
            "  {:>4}  {:<17} {:<14} {:<6} {:<6} {:>7.4} {:>8.4}  {:<10}  {:<7} {:>7} {:>5}  {}",
            st.step,
            st.call,
            st.pre.domain,
            st.pre.risk,
            st.pre.level.as_str(),
            st.pre.trust,
            st.pre.autonomy,
            st.pre.decision,
            outcome,
            after,
            fails,
            rec
        ));
    }
}

fn print_risk_table(s: &Scenario) {
    ui::out(&format!(
        "  {:<22} {:<14} {:<8} {:<6} {:>10} {:>7} {:>12} {:>12}  {}",
        "call",
        "domain",
        "risk",
        "level",
        "complexity",
        "trust",
        "autonomy",
        "(c fixed .5)",
        "decision"
    ));
    for (i, st) in s.steps.iter().enumerate() {
        if i > 0 && i % 4 == 0 {
            ui::out("");
        }
        ui::out(&format!(
            "  {:<22} {:<14} {:<8} {:<6} {:>10.1} {:>7.4} {:>12.4} {:>12.4}  {}",
            st.call,
            st.pre.domain,
            st.pre.risk,
            st.pre.level.as_str(),
            st.pre.complexity,
            st.pre.trust,
            st.pre.autonomy,
            st.autonomy_fixed_complexity,
            st.pre.decision
        ));
    }
}

/// Returns the core of a decision reason: `oath ask: <why> (<facts>). ...` → `<why>`.
fn why(reason: &str) -> &str {
    let rest = reason.split_once(": ").map_or(reason, |(_, r)| r);
    rest.rfind(" (").map_or(rest, |i| &rest[..i])
}

/// Explains the steps where oath asks or denies, one line per run of equal reasons.
fn print_notes(s: &Scenario) {
    let mut runs: Vec<(usize, usize, &str, &str)> = Vec::new();
    for st in &s.steps {
        if !matches!(st.pre.decision.as_str(), "ask" | "deny") {
            continue;
        }
        let w = why(&st.pre.reason);
        match runs.last_mut() {
            Some((_, last, d, prev))
                if *last + 1 == st.step && *prev == w && *d == st.pre.decision =>
            {
                *last = st.step;
            }
            _ => runs.push((st.step, st.step, st.pre.decision.as_str(), w)),
        }
    }
    if runs.is_empty() {
        return;
    }
    ui::out("");
    for (first, last, decision, w) in runs {
        let steps = if first == last {
            format!("step {first}")
        } else {
            format!("steps {first}-{last}")
        };
        let lines = wrap(&format!("{steps}: {decision} because {w}"), 84);
        for (i, line) in lines.iter().enumerate() {
            ui::out(&format!("  {}{line}", if i == 0 { "" } else { "  " }));
        }
    }
}

/// Wraps text at `width` columns on spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}
