//! `oath kpt`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath kpt`.
#[derive(Debug, clap::Args)]
pub struct KptArgs {}

/// Runs `oath kpt`.
pub fn run(_args: &KptArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath kpt` is not available in this build yet",
    ))
}
