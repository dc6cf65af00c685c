//! The command line: the clap root and one dispatch match. Each subcommand lives in
//! `cmd/<name>.rs` with its arguments and its `run`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cmd;

/// oath: a trust gate, post-tool observer, 3-strike loop breaker and KPT retrospective for
/// Claude Code, in one fast binary.
///
/// Claude Code runs `oath hook` on every hook event (`oath install` registers it); the other
/// commands are for people.
#[derive(Debug, Parser)]
#[command(name = "oath", version, about, long_about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer one Claude Code hook event read from stdin (what Claude Code runs)
    Hook(cmd::hook::HookArgs),
    /// Show how oath classifies and decides a command or a payload
    Explain(cmd::explain::ExplainArgs),
    /// Show trust per domain
    Status(cmd::status::StatusArgs),
    /// Run the seed's four trust scenarios on the real engine and print each step
    Demo(cmd::demo::DemoArgs),
    /// Show the audit trail
    Audit(cmd::audit::AuditArgs),
    /// Write a self-contained HTML report of a session: timeline, trust, strikes, KPT
    Report(cmd::report::ReportArgs),
    /// Show or set the project phase (planning, building, auditing)
    Phase(cmd::phase::PhaseArgs),
    /// Register oath's hooks and slash commands in Claude Code settings
    Install(cmd::install::InstallArgs),
    /// Remove exactly what `oath install` added
    Uninstall(cmd::install::UninstallArgs),
    /// Check that oath is installed, registered and working, and say how to fix what is not
    Doctor(cmd::doctor::DoctorArgs),
    /// Show, validate or print the schema of the configuration
    Config(cmd::config::ConfigArgs),
    /// Show and check the rule packs that say what programs do
    Rules(cmd::rules::RulesArgs),
    /// Inspect and resolve errors tracked by the 3-strike protocol
    Errors(cmd::errors::ErrorsArgs),
    /// Write, validate and apply KPT session retrospectives
    Kpt(cmd::kpt::KptArgs),
    /// Ship the audit trail to an OpenTelemetry collector
    Export(cmd::export::ExportArgs),
    /// Mask secrets in a text as oath does in everything it writes
    Redact(cmd::redact::RedactArgs),
    /// Print shell completions
    Completions(cmd::completions::CompletionsArgs),
}

/// Parses the process arguments and runs the command.
///
/// With no arguments at all and stdin not a terminal, oath answers a hook payload, as
/// `oath hook` would: a Claude Code older than 2.1.139 ignores the `args` of an exec-form
/// handler and runs the bare binary, and a usage error (exit 2) there would block every tool
/// call.
pub fn main() -> ExitCode {
    if std::env::args_os().len() == 1 && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return cmd::hook::run(cmd::hook::HookArgs {
            event: None,
            agent: None,
        });
    }
    if let Some(args) = hook_fast_path(std::env::args_os().skip(1)) {
        return cmd::hook::run(args);
    }
    let cli = Cli::parse();
    run(cli)
}

/// Recognises `oath hook [--agent AGENT] [EVENT]` without building the whole command-line
/// parser: the clients run it on every tool call, so it skips clap's start-up cost (ripgrep's
/// "special modes"). Anything else, including `oath hook --help` or an unknown agent, goes
/// through clap.
fn hook_fast_path(
    mut args: impl Iterator<Item = std::ffi::OsString>,
) -> Option<cmd::hook::HookArgs> {
    if args.next()? != "hook" {
        return None;
    }
    let agent_of = |name: &str| {
        [
            crate::agent::Agent::Claude,
            crate::agent::Agent::Codex,
            crate::agent::Agent::Gemini,
        ]
        .into_iter()
        .find(|a| a.as_str() == name)
    };
    let mut event = None;
    let mut agent = None;
    while let Some(arg) = args.next() {
        let arg = arg.into_string().ok()?;
        if arg == "--agent" {
            let value = args.next()?.into_string().ok()?;
            agent = Some(agent_of(&value)?);
        } else if let Some(value) = arg.strip_prefix("--agent=") {
            agent = Some(agent_of(value)?);
        } else if arg.starts_with('-') || event.is_some() {
            return None;
        } else {
            event = Some(arg);
        }
    }
    Some(cmd::hook::HookArgs { event, agent })
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Hook(args) => return cmd::hook::run(args),
        Command::Explain(args) => cmd::explain::run(&args),
        Command::Status(args) => cmd::status::run(&args),
        Command::Demo(args) => cmd::demo::run(&args),
        Command::Audit(args) => cmd::audit::run(&args),
        Command::Report(args) => cmd::report::run(&args),
        Command::Phase(args) => cmd::phase::run(&args),
        Command::Install(args) => cmd::install::run_install(&args),
        Command::Uninstall(args) => cmd::install::run_uninstall(&args),
        Command::Doctor(args) => cmd::doctor::run(&args),
        Command::Config(args) => cmd::config::run(&args),
        Command::Rules(args) => cmd::rules::run(&args),
        Command::Errors(args) => cmd::errors::run(&args),
        Command::Kpt(args) => cmd::kpt::run(&args),
        Command::Export(args) => cmd::export::run(&args),
        Command::Redact(args) => cmd::redact::run(&args),
        Command::Completions(args) => cmd::completions::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::ui::error(&e.to_string());
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn hook_fast_path_takes_only_plain_hook_invocations() {
        use crate::agent::Agent;
        let fast = |args: &[&str]| {
            hook_fast_path(args.iter().map(std::ffi::OsString::from)).map(|a| (a.event, a.agent))
        };
        assert_eq!(fast(&["hook"]), Some((None, None)));
        assert_eq!(
            fast(&["hook", "PreToolUse"]),
            Some((Some("PreToolUse".into()), None))
        );
        assert_eq!(
            fast(&["hook", "--agent", "codex"]),
            Some((None, Some(Agent::Codex)))
        );
        assert_eq!(
            fast(&["hook", "--agent=gemini", "BeforeTool"]),
            Some((Some("BeforeTool".into()), Some(Agent::Gemini)))
        );
        assert_eq!(
            fast(&["hook", "Stop", "--agent", "claude"]),
            Some((Some("Stop".into()), Some(Agent::Claude)))
        );
        assert_eq!(fast(&["hook", "--agent", "cursor"]), None);
        assert_eq!(fast(&["hook", "--agent"]), None);
        assert_eq!(fast(&["hook", "--help"]), None);
        assert_eq!(fast(&["hook", "Stop", "extra"]), None);
        assert_eq!(fast(&["status"]), None);
        assert_eq!(fast(&[]), None);
    }

    #[test]
    fn verify_app() {
        Cli::command().debug_assert();
    }
}
