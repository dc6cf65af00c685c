//! `oath audit`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {}

/// Runs `oath audit`.
pub fn run(_args: &AuditArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath audit` is not available in this build yet",
    ))
}
