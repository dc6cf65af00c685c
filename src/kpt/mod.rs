//! AI-KPT retrospectives (seed 004): a validated YAML report per session, metrics computed
//! from the real transcript, converted to prompt-improver feedback.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kpt:` in the config.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct KptConfig {
    /// Directory of reports (default `~/.claude/hurikaeri`).
    pub dir: Option<String>,
}

use crate::clock::Timestamp;
use crate::project::Project;
use crate::protocol::HookInput;

/// Records the session's metrics quickly at Stop / SessionEnd so `oath kpt new` has them.
pub fn record_session(
    _project: &Project,
    _input: &HookInput,
    _now: Timestamp,
    _cfg: &KptConfig,
    _warnings: &mut Vec<String>,
) {
}
