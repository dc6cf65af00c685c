//! `oath doctor`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

/// Runs `oath doctor`.
pub fn run(_args: &DoctorArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath doctor` is not available in this build yet",
    ))
}
