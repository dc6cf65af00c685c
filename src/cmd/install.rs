//! `oath install` and `oath uninstall`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {}

/// Arguments of `oath uninstall`.
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {}

/// Runs `oath install`.
pub fn run_install(_args: &InstallArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath install` is not available in this build yet",
    ))
}

/// Runs `oath uninstall`.
pub fn run_uninstall(_args: &UninstallArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath uninstall` is not available in this build yet",
    ))
}
