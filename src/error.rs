//! The command line's error: a message, optional hints, and an exit code.
//!
//! The hook never uses this type's exit codes: `oath hook` exits 0 or 2 only.

use std::fmt;

/// Exit code of a command that failed (a check that did not pass, a missing file).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code of a usage error.
pub const EXIT_USAGE: u8 = 2;

/// An error shown to a person.
#[derive(Debug)]
pub struct CliError {
    /// What went wrong, lowercase, no final period.
    pub message: String,
    /// What to do about it.
    pub hints: Vec<String>,
    /// Exit code.
    pub code: u8,
}

impl CliError {
    /// Returns a failure with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hints: Vec::new(),
            code: EXIT_FAILURE,
        }
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        for h in &self.hints {
            write!(f, "\nhint: {h}")?;
        }
        Ok(())
    }
}

impl<E: std::error::Error> From<E> for CliError {
    fn from(e: E) -> Self {
        Self::new(e.to_string())
    }
}

/// The result of a command.
pub type Result<T, E = CliError> = std::result::Result<T, E>;
