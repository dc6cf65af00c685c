//! `oath report`'s pure part: audit entries → a [`model::Model`] of the session → one
//! self-contained HTML page ([`html::render`]). Reading the trail, the 3-strike log and the KPT
//! reports is the command's (`cmd/report.rs`); what they hold comes in here as values.

pub mod html;
pub mod model;

use std::collections::HashMap;

use crate::kpt::report::{self, Report};
use crate::redact;
use crate::strike::store::ErrorsFile;

/// Returns the strike count of each failed call of the 3-strike log, by `tool_use_id`.
pub fn strikes_by_call(errors: &ErrorsFile) -> HashMap<String, u32> {
    errors
        .attempts
        .iter()
        .filter_map(|a| Some((a.tool_use_id.clone()?, a.strike?)))
        .collect()
}

/// Returns the latest valid KPT report of a session among `(file stem, text)` pairs (the
/// latest by id, `kpt-YYYYMMDD-NNN`); drafts still holding placeholders are not valid. Its
/// texts are redacted: oath writes reports redacted, but a person or the model may have
/// edited one since.
pub fn kpt_for(files: impl IntoIterator<Item = (String, String)>, session: &str) -> Option<Report> {
    let found = files
        .into_iter()
        .filter_map(|(stem, text)| report::validate(&text, Some(&stem)).ok())
        .filter(|r| r.session_id.as_deref() == Some(session))
        .max_by(|a, b| a.id.cmp(&b.id))?;
    let mut value = serde_json::to_value(&found).ok()?;
    redact::redact_value(&mut value);
    serde_json::from_value(value).ok()
}

#[cfg(test)]
mod tests;
