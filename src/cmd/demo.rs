//! `oath demo`.

use std::process::ExitCode;

use crate::error::{CliError, Result};

/// Arguments of `oath demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {}

/// Runs `oath demo`.
pub fn run(_args: &DemoArgs) -> Result<ExitCode> {
    Err(CliError::new(
        "`oath demo` is not available in this build yet",
    ))
}
