//! Commands after tools (seed 002): user-configured, read-only observer commands run after
//! matching tools, with the tool's name, input and output in environment variables.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `postToolUse:` in the config; the seed's block pastes in unchanged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PostToolUseConfig {
    /// Commands, run in config order.
    pub commands: Vec<ObserverCommand>,
}

/// One observer command.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserverCommand {
    /// Glob on the tool name (`AskUserQuestion`, `*Search*`, `mcp__github__*`, `*`).
    #[serde(default)]
    pub tool: Option<String>,
    /// Shell script run with `sh -c` in the project root.
    #[serde(default)]
    pub run: Option<String>,
    /// Run detached; the hook returns at once.
    #[serde(default, rename = "async")]
    pub is_async: bool,
    /// Seconds before the command's process group is killed (default 60).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Which outcomes trigger it: success (default), failure or both.
    #[serde(default)]
    pub on: Option<String>,
}

impl PostToolUseConfig {
    /// Returns problems of single commands (they are skipped at hook time).
    pub fn validate(&self) -> Vec<String> {
        let mut w = Vec::new();
        for (i, c) in self.commands.iter().enumerate() {
            if c.run.as_deref().is_none_or(|r| r.trim().is_empty()) {
                w.push(format!("postToolUse.commands[{i}] has no `run`"));
            }
        }
        w
    }
}

use crate::clock::Timestamp;
use crate::project::Project;
use crate::protocol::HookInput;

/// Runs the commands matching a finished tool call (`outcome` is `success` or `failure`).
/// Never changes the tool's result; problems are pushed to `warnings`.
pub fn run_after_tool(
    _project: &Project,
    _input: &HookInput,
    _outcome: crate::trust::Outcome,
    _now: Timestamp,
    _cfg: &PostToolUseConfig,
    _warnings: &mut Vec<String>,
) {
}
