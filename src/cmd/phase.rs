//! `oath phase`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath phase`.
#[derive(Debug, clap::Args)]
pub struct PhaseArgs {}

/// Runs `oath phase`.
pub fn run(_args: &PhaseArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath phase` is not available in this build yet",
    ))
}
