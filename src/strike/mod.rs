//! The 3-strike protocol (seed 003): failures are captured, hashed and counted; the same
//! error twice warns the agent, three times stops the loop and escalates to the user.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `strikes:` in the config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StrikeConfig {
    /// Whether the protocol runs.
    pub enabled: bool,
    /// Most attempts kept in `errors.json`; the oldest resolved ones are dropped first.
    pub max_attempts: usize,
}

impl Default for StrikeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_attempts: 1000,
        }
    }
}

impl StrikeConfig {
    /// Returns out-of-range values.
    pub fn validate(&self) -> Vec<String> {
        if self.max_attempts < 10 {
            vec![format!(
                "strikes.max_attempts is {}, but it must be at least 10",
                self.max_attempts
            )]
        } else {
            Vec::new()
        }
    }
}

use crate::clock::Timestamp;
use crate::project::Project;
use crate::protocol::HookInput;

/// What a failure did to the strike count, and what to tell whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrikeNotice {
    /// The strike count of this error after the failure.
    pub strike: u32,
    /// The error hash (8 hex characters).
    pub hash: String,
    /// Text for the model (`additionalContext`), if any.
    pub context: Option<String>,
    /// Text for the user (`systemMessage`), if any.
    pub system_message: Option<String>,
}

/// Records a PostToolUseFailure; returns the notice for strike 2 and above.
pub fn on_failure(
    _project: &Project,
    _input: &HookInput,
    _now: Timestamp,
    _cfg: &StrikeConfig,
    _warnings: &mut Vec<String>,
) -> Option<StrikeNotice> {
    None
}

/// Records a success: resets the strike count of the same action.
pub fn on_success(
    _project: &Project,
    _input: &HookInput,
    _now: Timestamp,
    _cfg: &StrikeConfig,
    _warnings: &mut Vec<String>,
) {
}

/// Returns the reason to ask when this exact action has escalated (strike 3+). Read-only.
pub fn escalation_for(
    _project: &Project,
    _tool_name: &str,
    _tool_input: &serde_json::Value,
    _cfg: &StrikeConfig,
) -> Option<String> {
    None
}

/// Returns a short summary of the branch's unresolved errors for SessionStart.
pub fn session_start_summary(_project: &Project, _cfg: &StrikeConfig) -> Option<String> {
    None
}
