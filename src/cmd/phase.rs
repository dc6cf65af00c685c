//! `oath phase`: shows or sets the project phase in `.claude/current-phase.md`.

use std::process::ExitCode;

use crate::error::{CliError, Result};
use crate::gitignore;
use crate::phase::Phase;
use crate::project::{Env, Project};
use crate::ui;

/// Show or set the project phase.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The phase tightens the trust gate: planning allows reads and docs only, building everything
but remote git (shell and local git trust-gated), auditing reads only. Without a phase the
trust gate alone decides. The phase lives in `.claude/current-phase.md` of the project.

Examples:
  oath phase                   show the phase
  oath phase set building      start implementing
  oath phase clear             no phase: trust alone decides")]
pub struct PhaseArgs {
    /// What to do (default: get)
    #[command(subcommand)]
    pub action: Option<PhaseAction>,
}

/// `oath phase` actions.
#[derive(Debug, clap::Subcommand)]
pub enum PhaseAction {
    /// Show the phase
    Get,
    /// Set the phase (`none` removes it)
    Set {
        /// planning, building, auditing or none
        phase: PhaseValue,
    },
    /// Remove the phase: the trust gate alone decides
    Clear,
}

/// A phase or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PhaseValue {
    /// Designing: reads and docs only
    Planning,
    /// Implementing: everything but remote git; shell and local git trust-gated
    Building,
    /// Reviewing: reads only
    Auditing,
    /// No phase: trust alone decides
    None,
}

/// Runs `oath phase`.
pub fn run(args: &PhaseArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let file = project.phase_file();
    let set = match &args.action {
        None | Some(PhaseAction::Get) => {
            match std::fs::read_to_string(&file) {
                Ok(text) => {
                    match Phase::parse(&text) {
                        Some(p) => ui::out(&format!("Phase: {p}")),
                        None => {
                            return Err(CliError::new(format!(
                            "{} holds {:?}, which is not a phase, so oath applies no phase profile",
                            file.display(),
                            text.trim()
                        ))
                        .hint("run `oath phase set planning|building|auditing` or `oath phase clear`"));
                        }
                    }
                }
                Err(_) => ui::out(
                    "Phase: none (the trust gate alone decides; `oath phase set building` sets one)",
                ),
            }
            return Ok(ExitCode::SUCCESS);
        }
        Some(PhaseAction::Clear) => None,
        Some(PhaseAction::Set { phase }) => match phase {
            PhaseValue::Planning => Some(Phase::Planning),
            PhaseValue::Building => Some(Phase::Building),
            PhaseValue::Auditing => Some(Phase::Auditing),
            PhaseValue::None => None,
        },
    };
    match set {
        Some(p) => {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| CliError::new(format!("cannot create {}: {e}", dir.display())))?;
            }
            std::fs::write(&file, format!("{p}\n"))
                .map_err(|e| CliError::new(format!("cannot write {}: {e}", file.display())))?;
            ui::out(&format!("Phase: {p}"));
            // One person's current work: kept out of the team's commits.
            if let Some(dir) = file.parent() {
                let ignored = gitignore::ignore_in_client_dir(dir, &[gitignore::PHASE]);
                if let Some(note) = gitignore::note(dir, &ignored) {
                    ui::out(&format!("note: {note}"));
                }
            }
        }
        None => {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(CliError::new(format!(
                        "cannot remove {}: {e}",
                        file.display()
                    )));
                }
            }
            ui::out("Phase: none (the trust gate alone decides)");
        }
    }
    Ok(ExitCode::SUCCESS)
}
