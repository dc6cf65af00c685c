//! `oath config`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath config`.
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {}

/// Runs `oath config`.
pub fn run(_args: &ConfigArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath config` is not available in this build yet",
    ))
}
