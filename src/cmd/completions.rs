//! `oath completions`: shell completion scripts generated from the clap definition.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::error::Result;
use crate::ui;

/// Print shell completions.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  oath completions bash > ~/.local/share/bash-completion/completions/oath
  oath completions zsh > \"${fpath[1]}/_oath\"
  oath completions fish > ~/.config/fish/completions/oath.fish")]
pub struct CompletionsArgs {
    /// The shell
    pub shell: Shell,
}

/// Runs `oath completions`.
pub fn run(args: &CompletionsArgs) -> Result<ExitCode> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "oath", &mut buf);
    ui::out_raw(&String::from_utf8_lossy(&buf));
    Ok(ExitCode::SUCCESS)
}
