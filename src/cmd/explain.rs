//! `oath explain`: how oath parses, classifies and decides one command or hook payload, with
//! the real project, configuration, trust and phase (nothing is written).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::clock::Timestamp;
use crate::config::Config;
use crate::error::{CliError, EXIT_USAGE, Result};
use crate::gate::{self, Call};
use crate::project::{Env, Project};
use crate::shell;
use crate::ui;

/// Arguments of `oath explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The Bash command to explain; without it, a hook payload (or `{"tool_name", "tool_input"}`)
    /// is read from stdin
    pub command: Option<String>,
    /// Print one JSON object for scripts
    #[arg(long)]
    pub json: bool,
}

/// Runs `oath explain`.
pub fn run(args: &ExplainArgs) -> Result<ExitCode> {
    let (tool_name, tool_input, cwd) = match &args.command {
        Some(c) => ("Bash".to_owned(), json!({ "command": c }), None),
        None => read_payload()?,
    };
    let env = Env::from_process();
    let project = Project::resolve(&env, cwd.as_deref());
    let loaded = Config::in_force(&env, &project);
    let mut warnings = loaded.warnings.clone();
    warnings.extend(loaded.unapproved_notice());
    let eval = gate::evaluate(
        &env,
        &project,
        &loaded.config,
        Call {
            tool_name: &tool_name,
            tool_input: &tool_input,
            cwd: cwd.as_deref(),
            details: true,
            session: None,
            effects: &crate::protocol::Effects::Itself,
        },
        Timestamp::now(),
        &mut warnings,
    );
    let parsed = tool_input
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| matches!(tool_name.as_str(), "Bash" | "Monitor"))
        .map(parsed_commands)
        .unwrap_or_default();
    for w in &warnings {
        ui::warn(w);
    }
    let c = &eval.class;
    let v = &eval.verdict;
    if args.json {
        let out = json!({
            "tool_name": tool_name,
            "tool_input": tool_input,
            "project": project.root,
            "parsed": parsed,
            "classification": c,
            "trust": v.trust,
            "trust_domain": c.domain,
            "trust_level": eval.level,
            "autonomy": v.autonomy,
            "trust_decision": v.trust_decision,
            "decision": v.decision,
            "reason": v.reason,
            "recommended_model": v.recommended_model,
            "phase": eval.phase,
            "trace": v.trace,
        });
        ui::out(&serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    match tool_input.get("command").and_then(Value::as_str) {
        Some(cmd) => ui::out(&format!("{tool_name}: {cmd}")),
        None => ui::out(&format!("{tool_name}: {tool_input}")),
    }
    if !parsed.is_empty() {
        ui::out("parsed commands:");
        for (i, p) in parsed.iter().enumerate() {
            ui::out(&format!("  {}. {p}", i + 1));
        }
    }
    ui::out("parts:");
    for p in &c.parts {
        ui::out(&format!(
            "  - {}\n    {} · {} · {} · {}: {}",
            p.text, p.domain, p.kind, p.risk, p.rule, p.reason
        ));
        match (&p.effect, &p.source) {
            (Some(e), Some(s)) => ui::out(&format!("    effect {e}, stated by {s}")),
            (Some(e), None) => ui::out(&format!("    effect {e}")),
            (None, Some(s)) => ui::out(&format!("    stated by {s}")),
            (None, None) => {}
        }
        if let Some(words) = p
            .effect
            .as_deref()
            .and_then(|e| e.strip_prefix("unexplained("))
            .and_then(|e| e.strip_suffix(')'))
            .filter(|w| !w.is_empty())
        {
            ui::out(&format!(
                "    not accounted for by any rule: {words} (never allowed; each word is checked for a protected path, a credential, the home or a system folder, a metadata address or code)"
            ));
        }
        if p.rule.starts_with("unexplained-") {
            ui::out("    found by the check of the words no rule accounts for");
        }
        if p.rule == "unknown-program" {
            ui::out(
                "    no pack describes this program: `oath rules check` and a pack in the user's packs directory teach oath about it",
            );
        }
    }
    ui::out(&format!(
        "classification: {} {} risk {} (complexity {}), rule {}: {}",
        c.domain, c.kind, c.risk, c.complexity, c.rule, c.reason
    ));
    ui::out(&format!(
        "kind of risk: {} ({})",
        c.kind,
        match c.kind {
            crate::classify::Kind::Reversible =>
                "git, a rebuild or the remote brings it back: trust decides",
            crate::classify::Kind::PartlyUnderstood =>
                "oath understands only part of it: never allowed, the client's own rules decide",
            crate::classify::Kind::NotUnderstood =>
                "oath cannot tell what it does: asked at any trust",
            crate::classify::Kind::Irreversible =>
                "nothing brings it back: asked at any trust, trust never lifts it",
            crate::classify::Kind::Catastrophic => "denied at any trust",
        }
    ));
    if let Some(a) = &c.alternative {
        ui::out(&format!("safer: {a}"));
    }
    ui::out(&format!(
        "trust: {:.4} ({}, {})   autonomy: {:.4}",
        v.trust, c.domain, eval.level, v.autonomy
    ));
    if let Some(p) = eval.phase {
        ui::out(&format!("phase: {p}"));
    }
    ui::out(&format!("decision: {}", v.decision.as_str()));
    ui::out(&format!("reason: {}", v.reason));
    ui::out("trace:");
    for t in &v.trace {
        ui::out(&format!("  {t}"));
    }
    Ok(ExitCode::SUCCESS)
}

/// Returns every simple command the line would run, substitutions included, as written.
fn parsed_commands(cmd: &str) -> Vec<String> {
    let script = shell::parse(cmd);
    let mut out = Vec::new();
    if let Some(p) = &script.problem {
        out.push(format!("(not understood: {p})"));
    }
    script.for_each_simple(&mut |s| out.push(s.text.clone()));
    out
}

type Payload = (String, Value, Option<PathBuf>);

fn read_payload() -> Result<Payload> {
    let mut text = String::new();
    std::io::stdin()
        .lock()
        .take(crate::protocol::MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| CliError::new(format!("cannot read stdin: {e}")))?;
    if text.trim().is_empty() {
        let mut e = CliError::new("nothing to explain")
            .hint("give a command: oath explain 'git push --force'")
            .hint("or pipe a hook payload: oath explain < payload.json");
        e.code = EXIT_USAGE;
        return Err(e);
    }
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| CliError::new(format!("stdin is not a JSON payload: {e}")))?;
    let tool_name = v
        .get("tool_name")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| v.get("command").map(|_| "Bash".to_owned()))
        .ok_or_else(|| CliError::new("the payload has no `tool_name`"))?;
    let tool_input = match v.get("tool_input") {
        Some(i) => i.clone(),
        None => v.clone(),
    };
    let cwd = v.get("cwd").and_then(Value::as_str).map(PathBuf::from);
    Ok((tool_name, tool_input, cwd))
}
