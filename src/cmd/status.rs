//! `oath status`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {}

/// Runs `oath status`.
pub fn run(_args: &StatusArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath status` is not available in this build yet",
    ))
}
