//! AI-KPT retrospectives (seed 004): a validated YAML report per session, metrics computed
//! from the real transcript, converted to prompt-improver feedback.
//!
//! - [`report`]: the report's types, JSON Schema and validation; [`feedback`]: the same for
//!   prompt-improver feedback, and the KPT → feedback conversion.
//! - [`check`]: YAML with lines, checked against the schemas.
//! - [`session`]: per-session facts recorded incrementally at Stop and SessionEnd.
//! - [`draft`]: draft reports from those facts and oath's audit trail; id allocation.
//! - [`template`]: a draft written as a template to fill, commented from the schema.
//! - [`apply`]: persisting tries into CLAUDE.md managed blocks.

pub mod apply;
pub mod check;
pub mod draft;
pub mod feedback;
pub mod report;
pub mod session;
pub mod template;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::project::{Env, Project};
use crate::protocol::HookInput;

/// `kpt:` in the config.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct KptConfig {
    /// Directory of reports (default `~/.claude/hurikaeri`; `$OATH_KPT_DIR` wins).
    pub dir: Option<String>,
    /// Directory of prompt-improver feedback (default `~/.claude/feedback`).
    pub feedback_dir: Option<String>,
}

fn expand(p: &str, env: &Env) -> PathBuf {
    match (p.strip_prefix("~/"), &env.home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(p),
    }
}

/// Returns the report directory: `$OATH_KPT_DIR`, else `kpt.dir`, else
/// `<claude dir>/hurikaeri`.
pub fn reports_dir(env: &Env, cfg: &KptConfig) -> Option<PathBuf> {
    if let Some(d) = &env.oath_kpt_dir {
        return Some(d.clone());
    }
    if let Some(d) = &cfg.dir {
        return Some(expand(d, env));
    }
    env.claude_dir().map(|c| c.join("hurikaeri"))
}

/// Returns the feedback directory: `kpt.feedback_dir`, else `<claude dir>/feedback`.
pub fn feedback_dir(env: &Env, cfg: &KptConfig) -> Option<PathBuf> {
    if let Some(d) = &cfg.feedback_dir {
        return Some(expand(d, env));
    }
    env.claude_dir().map(|c| c.join("feedback"))
}

/// Serializes a value as YAML, redacted.
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String, String> {
    // Redacted as a value (a masked string stays a YAML string): reports, drafts and feedback
    // quote commands, errors and texts of the session.
    let mut value = serde_json::to_value(value).map_err(|e| format!("cannot write YAML: {e}"))?;
    crate::redact::redact_value(&mut value);
    let mut text =
        serde_saphyr::to_string(&value).map_err(|e| format!("cannot write YAML: {e}"))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Returns a file's stem (`kpt-20260208-001` for `…/kpt-20260208-001.yaml`).
pub fn file_stem(path: &Path) -> Option<String> {
    path.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// Records the session's metrics quickly at Stop / SessionEnd so `oath kpt new` has them.
///
/// Only the transcript lines appended since the previous call are parsed (see
/// [`session`]); problems become warnings, never a failed hook.
pub fn record_session(
    project: &Project,
    input: &HookInput,
    now: Timestamp,
    _cfg: &KptConfig,
    warnings: &mut Vec<String>,
) {
    let Some(sid) = input.session_id.as_deref().filter(|s| !s.is_empty()) else {
        return;
    };
    if let Err(e) = session::update(
        project,
        sid,
        input.transcript_path.as_deref(),
        input.cwd.as_deref(),
        input.event.as_str(),
        now,
        warnings,
    ) {
        warnings.push(format!("kpt: session facts not recorded: {e}"));
    }
}
