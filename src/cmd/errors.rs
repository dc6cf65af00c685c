//! `oath errors`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath errors`.
#[derive(Debug, clap::Args)]
pub struct ErrorsArgs {}

/// Runs `oath errors`.
pub fn run(_args: &ErrorsArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath errors` is not available in this build yet",
    ))
}
