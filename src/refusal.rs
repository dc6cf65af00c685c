//! Calls that never ran: an outcome record for each, so that the audit trail does not show
//! them `pending` forever (issue 30).
//!
//! Two ways a refusal reaches oath:
//! - `PermissionDenied`, which the client sends when its auto-mode classifier refused a call
//!   (2.1.332 sends it for nothing else): its `tool_use_id` and `reason`.
//! - `PostToolBatch`, after every batch: a call of the batch that oath saw (a `pre` record)
//!   but whose tool never reported back (no `outcome` record: neither PostToolUse nor
//!   PostToolUseFailure fired) and whose `tool_response` is the client's text rather than a
//!   tool's result object did not run. That is how an `ask` nobody can answer in `claude -p`
//!   ends (neither 2.1.197 nor 2.1.332 sends PermissionDenied for it), and a call the user
//!   refused, another hook denied, or oath denied.
//!
//! The record is an `outcome` (joined to its call by `tool_use_id`) with `outcome: "refused"`
//! and `refused_by: "client"`, or `outcome: "denied"` and `refused_by: "oath"` when oath's own
//! decision was deny. A refusal is not the tool's failure: trust and the 3-strike protocol are
//! left alone (`trust_applied: false`).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::{Value, json};

use crate::audit::record::{self, Ending, RefusedBy as By};
use crate::audit::{self, read::Record};
use crate::clock::Timestamp;
use crate::project::Project;
use crate::protocol::{Answer, HookInput};

/// How much of the end of a session's audit file is read to find a batch's records: a
/// batch's pre and outcome records are the latest ones.
const TAIL_BYTES: u64 = 1024 * 1024;

/// What the end of the audit file says of one call.
#[derive(Debug, Default, Clone, PartialEq)]
struct Seen {
    /// oath's decision, from the call's pre record (`None`: no pre record read).
    decision: Option<String>,
    /// The domain of the pre record.
    domain: Option<String>,
    /// Whether an outcome record of the call was read.
    outcome: bool,
}

/// Reads the end of an audit file and returns what it says of these calls.
fn seen_in_tail(path: &Path, ids: &[&str]) -> HashMap<String, Seen> {
    let mut seen: HashMap<String, Seen> = HashMap::new();
    let Ok(mut file) = File::open(path) else {
        return seen;
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(TAIL_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err()
        || file.take(TAIL_BYTES).read_to_end(&mut bytes).is_err()
    {
        return seen;
    }
    let mut lines = bytes.split(|&b| b == b'\n');
    if from > 0 {
        // The first line read may be the end of a longer one.
        lines.next();
    }
    for line in lines {
        let Some(r) = Record::parse(line) else {
            continue;
        };
        let Some(id) = r.tool_use_id.as_deref().filter(|id| ids.contains(id)) else {
            continue;
        };
        let s = seen.entry(id.to_owned()).or_default();
        match r.kind.as_deref() {
            Some("pre") => {
                s.decision = r.decision.as_deref().map(str::to_owned);
                s.domain = r.domain.as_deref().map(str::to_owned);
            }
            Some("outcome") => s.outcome = true,
            _ => {}
        }
    }
    seen
}

/// Appends the refusal record of one call.
fn record(
    project: &Project,
    input: &HookInput,
    now: Timestamp,
    (tool_use_id, tool_name): (&str, Option<&str>),
    seen: Option<&Seen>,
    by: By,
    reason: Option<&str>,
) -> Result<(), String> {
    let by_oath = by == By::Oath;
    let ending = if by_oath {
        Ending::Denied
    } else {
        Ending::Refused
    };
    let domain = seen.and_then(|s| s.domain.as_deref());
    let mut r = crate::outcome::outcome_record(input, "", domain, ending);
    r.tool_use_id = Some(tool_use_id.to_owned());
    r.tool_name = tool_name.map(str::to_owned);
    r.refused_by = Some(by);
    r.reason = reason.map(|r| audit::loggable(&json!(r)));
    audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &record::Record::Outcome(r),
    )
    .map_err(|e| format!("audit not written: {e}"))
}

/// Handles PermissionDenied: the client refused the call; its reason is recorded.
pub fn permission_denied(project: &Project, input: &HookInput, now: Timestamp) -> Answer {
    let answer = Answer::silent(&input.event);
    let Some(id) = input.tool_use_id.as_deref() else {
        return answer.with_stderr("PermissionDenied without a tool_use_id; not recorded");
    };
    let path = project.audit_file(input.session_or_unknown());
    let seen = seen_in_tail(&path, &[id]);
    let reason = input.str_field("reason");
    match record(
        project,
        input,
        now,
        (id, input.tool_name.as_deref()),
        seen.get(id),
        By::Client,
        reason,
    ) {
        Ok(()) => answer,
        Err(e) => answer.with_stderr(e),
    }
}

/// Handles PostToolBatch: records each call of the batch that oath saw but that did not run
/// (see the module's documentation), once.
pub fn after_batch(project: &Project, input: &HookInput, now: Timestamp) -> Answer {
    let mut answer = Answer::silent(&input.event);
    let Some(Value::Array(calls)) = input.raw.get("tool_calls") else {
        return answer;
    };
    let ids: Vec<&str> = calls
        .iter()
        .filter_map(|c| c.get("tool_use_id").and_then(Value::as_str))
        .collect();
    if ids.is_empty() {
        return answer;
    }
    let seen = seen_in_tail(&project.audit_file(input.session_or_unknown()), &ids);
    for call in calls {
        let Some(id) = call.get("tool_use_id").and_then(Value::as_str) else {
            continue;
        };
        let Some(s) = seen.get(id).filter(|s| s.decision.is_some() && !s.outcome) else {
            continue;
        };
        // A tool that ran answers with its result object; a refusal is the client's text.
        let text = match call.get("tool_response") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.as_str()),
            Some(_) => continue,
        };
        let tool = call.get("tool_name").and_then(Value::as_str);
        let by = if s.decision.as_deref() == Some("deny") {
            By::Oath
        } else {
            By::Client
        };
        if let Err(e) = record(project, input, now, (id, tool), Some(s), by, text) {
            answer = answer.with_stderr(e);
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_finds_pre_and_outcome_records_of_the_asked_calls_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"kind":"pre","tool_use_id":"a","decision":"ask","domain":"git_local"}"#,
            r#"{"kind":"pre","tool_use_id":"b","decision":"allow"}"#,
            r#"{"kind":"outcome","tool_use_id":"b","outcome":"success"}"#,
            r#"{"kind":"pre","tool_use_id":"c","decision":"deny"}"#,
            "not json",
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let seen = seen_in_tail(&path, &["a", "b", "z"]);
        assert_eq!(
            seen.get("a"),
            Some(&Seen {
                decision: Some("ask".into()),
                domain: Some("git_local".into()),
                outcome: false
            })
        );
        assert!(seen["b"].outcome);
        assert!(!seen.contains_key("c") && !seen.contains_key("z"));
        assert!(seen_in_tail(&dir.path().join("missing.jsonl"), &["a"]).is_empty());
    }

    /// Only the end of a long file is read, from a whole line on.
    #[test]
    fn a_long_file_is_read_from_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let old = r#"{"kind":"pre","tool_use_id":"old","decision":"ask"}"#;
        let filler = format!(r#"{{"kind":"event","pad":"{}"}}"#, "x".repeat(1000));
        let mut text = format!("{old}\n");
        while (text.len() as u64) < TAIL_BYTES + 10_000 {
            text.push_str(&filler);
            text.push('\n');
        }
        text.push_str(r#"{"kind":"pre","tool_use_id":"new","decision":"ask"}"#);
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let seen = seen_in_tail(&path, &["old", "new"]);
        assert!(seen.contains_key("new"));
        assert!(!seen.contains_key("old"));
    }
}
