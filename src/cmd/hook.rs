//! `oath hook [EVENT]`.

use std::process::ExitCode;

/// Arguments of `oath hook`.
#[derive(Debug, clap::Args)]
pub struct HookArgs {
    /// Event name, for settings written as `oath hook PreToolUse`; the payload's
    /// `hook_event_name` wins when present
    pub event: Option<String>,
}

/// Runs the hook on stdin.
pub fn run(args: HookArgs) -> ExitCode {
    crate::hook::run(args.event)
}
