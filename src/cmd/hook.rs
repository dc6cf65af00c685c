//! `oath hook [--agent claude|codex|gemini] [EVENT]`.

use std::process::ExitCode;

use crate::agent::Agent;

/// Arguments of `oath hook`.
#[derive(Debug, clap::Args)]
pub struct HookArgs {
    /// Event name, for settings written as `oath hook PreToolUse`; the payload's
    /// `hook_event_name` wins when present
    pub event: Option<String>,
    /// The client whose hook runs oath (`oath install` writes it); without it, oath
    /// recognises the client from the payload (ambiguous payloads are Claude Code's)
    #[arg(long, value_enum)]
    pub agent: Option<Agent>,
}

/// Runs the hook on stdin.
pub fn run(args: HookArgs) -> ExitCode {
    crate::hook::run(args.event, args.agent)
}
