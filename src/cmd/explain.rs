//! `oath explain`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {}

/// Runs `oath explain`.
pub fn run(_args: &ExplainArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath explain` is not available in this build yet",
    ))
}
