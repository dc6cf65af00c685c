//! `oath completions`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {}

/// Runs `oath completions`.
pub fn run(_args: &CompletionsArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath completions` is not available in this build yet",
    ))
}
