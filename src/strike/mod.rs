//! The 3-strike protocol (seed 003): failures are captured, hashed and counted; the same
//! error twice warns the agent, three times stops the loop and escalates to the user.
//!
//! A PostToolUseFailure appends an attempt to `.plan/{branch}/errors.json` and bumps the
//! strike count of its error hash ([`normalize`]) in the small index `strikes.json` next to
//! it ([`store`]), both under their locks (index first, then log). Strike 2 tells the model
//! the error repeated; strike 3 and above also tell the user, and the next PreToolUse of an
//! action that failed with that error is answered `ask`. A success of such an action, or
//! `oath errors resolve`, sets the count back to 0. PreToolUse and PostToolUse success read
//! only the index, never the log, so their cost does not grow with the log.

pub mod normalize;
pub mod store;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `strikes:` in the config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StrikeConfig {
    /// Whether the protocol runs.
    pub enabled: bool,
    /// Most attempts kept in `errors.json`; the oldest resolved ones are dropped first.
    /// Every recorded failure reads and rewrites the whole log (it is not redacted again:
    /// each attempt is as it is made, ADR 0023), so this bounds its cost; the per-hash
    /// totals in the index are not bounded by it.
    pub max_attempts: usize,
    /// Hours after which a repeated error counts from 1 again (a count also starts again
    /// in a new session; a resumed session keeps its id and its counts).
    pub expire_hours: u32,
}

impl Default for StrikeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_attempts: 200,
            expire_hours: 24,
        }
    }
}

impl StrikeConfig {
    /// Returns the expiry of counts.
    pub fn expiry(&self) -> store::Expiry {
        store::Expiry {
            seconds: i64::from(self.expire_hours.max(1)) * 3600,
        }
    }

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

use std::path::{Path, PathBuf};

use crate::clock::Timestamp;
use crate::project::Project;
use crate::protocol::HookInput;
use crate::state::{self, ReadOutcome, StateError};

use store::{Attempt, ErrorsFile, Index, LogStamp, NewFailure};

/// Name of the log in the branch's plan folder.
pub const ERRORS_FILE: &str = "errors.json";
/// Name of the index in the branch's plan folder.
pub const INDEX_FILE: &str = "strikes.json";
/// Most errors named in the SessionStart summary.
const SUMMARY_LINES: usize = 5;

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

/// Returns the branch's log `.plan/{branch}/errors.json`.
pub fn errors_path(project: &Project) -> PathBuf {
    project.plan_dir().join(ERRORS_FILE)
}

/// Returns the branch's index `.plan/{branch}/strikes.json`.
pub fn index_path(project: &Project) -> PathBuf {
    project.plan_dir().join(INDEX_FILE)
}

/// Creates the branch's `.plan/` folder with a `.gitignore` of `*` (and one in `.plan/` when
/// oath creates that too), so the log never lands in a commit; an existing folder is left
/// as its owner made it. Each folder is built under a temporary name with its `.gitignore`
/// and renamed into place, so a kill never leaves one without it.
fn ignore_plan_folder(project: &Project, warnings: &mut Vec<String>) {
    let dir = project.plan_dir();
    if dir.exists() {
        return;
    }
    let plan = project.root.join(".plan");
    for (target, parent) in [(&plan, &project.root), (&dir, &plan)] {
        if target.exists() {
            continue;
        }
        if let Err(e) = place_ignored_folder(target, parent) {
            warnings.push(format!("3-strike: cannot create {}: {e}", target.display()));
            return;
        }
    }
}

/// Creates `target` (in `parent`) holding only a `.gitignore` of `*`: built as a temporary
/// folder and renamed, so it appears whole or not at all. Another hook that created it
/// first wins; its folder is kept.
fn place_ignored_folder(target: &Path, parent: &Path) -> std::io::Result<()> {
    sweep_stale_stages(parent);
    let stage = parent.join(format!("{STAGE_PREFIX}{}", std::process::id()));
    std::fs::create_dir_all(&stage)?;
    let built = std::fs::write(
        stage.join(".gitignore"),
        "# written by oath: its 3-strike log is local state\n*\n",
    )
    .and_then(|()| std::fs::rename(&stage, target));
    if built.is_err() {
        let _ = std::fs::remove_dir_all(&stage);
    }
    match built {
        Err(_) if target.is_dir() => Ok(()),
        other => other,
    }
}

/// The name a folder is built under before it is renamed into place.
const STAGE_PREFIX: &str = ".oath-tmp-folder-";

/// Removes the staging folders of killed hooks (older than a minute) from `parent`.
fn sweep_stale_stages(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let stale = e
            .file_name()
            .as_encoded_bytes()
            .starts_with(STAGE_PREFIX.as_bytes())
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60));
        if stale {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Returns a path relative to the project root for messages.
fn shown(project: &Project, path: &Path) -> String {
    path.strip_prefix(&project.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Reads the index as the log stands. An index written with another log than the one on
/// disk (a writer killed between the log's rename and the index's), or missing beside a
/// log, is rebuilt from the log; with neither, nothing is counted.
fn read_index(project: &Project) -> Option<Index> {
    let index = match state::read_json::<Index>(&index_path(project)) {
        ReadOutcome::Ok(i) => Some(i),
        ReadOutcome::Missing | ReadOutcome::Corrupt(_) => None,
    };
    let log = errors_path(project);
    let stale = match (&index, LogStamp::of(&log)) {
        (Some(i), Some(stamp)) => i.log.as_ref().is_some_and(|l| *l != stamp),
        (None, Some(_)) => true,
        (_, None) => false,
    };
    if !stale {
        return index;
    }
    match state::read_json::<ErrorsFile>(&log) {
        ReadOutcome::Ok(errors) => Some(Index::rebuild(&errors)),
        ReadOutcome::Missing | ReadOutcome::Corrupt(_) => index,
    }
}

/// Returns the intent of a call as the strike files keep it: redacted (a command's target
/// can hold a token), and compared in that form.
fn intent_of(tool: &str, tool_input: &serde_json::Value) -> String {
    crate::redact::redact_str(&crate::classify::intent::intent(tool, tool_input)).into_owned()
}

/// Returns the hash that identifies a failure for counting, and the call's intent: the hash
/// covers the intent and the normalised error, so two failures count as the same error
/// exactly when their hashes are equal.
pub fn failure_hash(tool: &str, tool_input: &serde_json::Value, error: &str) -> (String, String) {
    let intent = intent_of(tool, tool_input);
    // Without an error text the action stands in for it (what the seed hashed).
    let signature = if error.trim().is_empty() {
        format!(
            "[no error text] {}",
            normalize::action_text(tool, tool_input)
        )
    } else {
        normalize::normalize_error(&crate::redact::redact_str(error))
    };
    (normalize::error_hash(&intent, &signature), intent)
}

/// Builds the failure to record from a PostToolUseFailure payload.
fn new_failure(project: &Project, input: &HookInput, now: Timestamp) -> NewFailure {
    let tool = input.tool_name.as_deref().unwrap_or("unknown");
    let tool_input = input.tool_input();
    let raw_error = input.error_text().unwrap_or("");
    let (hash, intent) = failure_hash(tool, tool_input, raw_error);
    let id = |s: &Option<String>| s.as_deref().map(clip_id);
    let attempt = Attempt {
        timestamp: now.iso_seconds(),
        tool: clip_id(tool),
        error: normalize::bounded_error(raw_error),
        status: store::UNRESOLVED.into(),
        hash: hash.clone(),
        strike: None,
        input: Some(normalize::input_summary(tool_input, &project.root)),
        action: Some(normalize::action_key(tool, tool_input)),
        intent: Some(intent.clone()),
        session_id: id(&input.session_id),
        tool_use_id: id(&input.tool_use_id),
        agent_id: id(&input.agent_id),
        resolved_at: None,
        resolution: None,
        extra: serde_json::Map::new(),
    };
    NewFailure {
        hash,
        intent,
        // The strike files are not redacted again as they are written
        // (`state::update_json_redacted_at_entry`): what enters them is redacted here, whole.
        attempt: store::redacted(attempt),
    }
}

/// Longest identifier (tool name, session, call, agent) an attempt keeps, in bytes: they are
/// short in Claude Code's payloads, and bounding them bounds the log (with the bounded error
/// text and summary, and `strikes.max_attempts`).
const MAX_ID_BYTES: usize = 256;

/// Cuts an identifier from the payload to [`MAX_ID_BYTES`] (at a character boundary).
fn clip_id(s: &str) -> String {
    let mut end = s.len().min(MAX_ID_BYTES);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// Returns the fact sentence shared by the strike texts.
fn occurred(tool: &str, hash: &str, count: u32, headline: &str) -> String {
    format!(
        "oath 3-strike: this {tool} error (hash {hash}) has now occurred {count} times in a row: {headline}."
    )
}

/// Returns the texts for a strike count (none below strike 2).
fn notice(tool: &str, intent: &str, hash: &str, count: u32, headline: &str) -> StrikeNotice {
    let fact = occurred(tool, hash, count, headline);
    let (context, system_message) = if count >= store::ESCALATE_AT {
        (
            Some(format!(
                "{fact} Repeating it will not fix it. Stop and ask the user how to proceed before \
                 trying again; running `{intent}` again (in any variant) requires the user's \
                 approval. The count clears when a call with the same intent succeeds."
            )),
            Some(format!(
                "oath 3-strike: the same {tool} error (hash {hash}) occurred {count} times: \
                 {headline}. Claude was told to stop and ask you; `{intent}` (in any variant) will \
                 need your approval in this session. `oath errors show {hash}` has the attempts, `oath errors resolve {hash}` \
                 clears it."
            )),
        )
    } else if count >= store::WARN_AT {
        (
            Some(format!(
                "{fact} Repeating the same action will not fix it; the next attempt needs a \
                 different approach. A third occurrence stops the loop and hands the decision to \
                 the user."
            )),
            None,
        )
    } else {
        (None, None)
    };
    StrikeNotice {
        strike: count,
        hash: hash.to_owned(),
        context,
        system_message,
    }
}

/// Records a PostToolUseFailure; returns its strike count and notice (texts from strike 2 on),
/// or nothing when it was not counted (a cascade, a repeated hook, or the log not written).
pub fn on_failure(
    project: &Project,
    input: &HookInput,
    now: Timestamp,
    cfg: &StrikeConfig,
    warnings: &mut Vec<String>,
) -> Option<StrikeNotice> {
    if input.error_text().is_some_and(normalize::is_cascade) {
        // Cancelled because another call of its parallel batch failed: not its own error.
        return None;
    }
    ignore_plan_folder(project, warnings);
    let failure = new_failure(project, input, now);
    let hash = failure.hash.clone();
    let tool = failure.attempt.tool.clone();
    let intent = failure.intent.clone();
    let headline = normalize::headline(&failure.attempt.error);
    let result = update_both(project, now, warnings, |index, errors| {
        // The raw id: a stored id the redaction changed never matches it (as before).
        let raw_id = input.tool_use_id.as_deref().map(clip_id);
        if store::already_recorded(errors, raw_id.as_deref()) {
            // A second fire of the same call: counted already, told already.
            return (false, None);
        }
        let count = store::record_failure(
            index,
            errors,
            failure,
            cfg.max_attempts.max(1),
            cfg.expiry(),
        );
        (true, Some(count))
    });
    match result {
        Ok(Some(count)) => Some(notice(&tool, &intent, &hash, count, &headline)),
        Ok(None) => None,
        Err(e) => {
            warnings.push(format!("3-strike: failure not recorded: {e}"));
            None
        }
    }
}

/// Records a success: resets the strike counts of the same intent.
pub fn on_success(
    project: &Project,
    input: &HookInput,
    now: Timestamp,
    _cfg: &StrikeConfig,
    warnings: &mut Vec<String>,
) {
    // Fast path: no index, or nothing counting, means nothing to reset and nothing written.
    let Some(index) = read_index(project) else {
        return;
    };
    let tool = input.tool_name.as_deref().unwrap_or("unknown");
    if !index.may_count_tool(tool, false) {
        return;
    }
    let intent = intent_of(tool, input.tool_input());
    if !index
        .hashes
        .values()
        .any(|e| e.is_unresolved() && e.intent == intent)
    {
        return;
    }
    // Rare (only after a failure of this intent): the reset goes to both files, the log
    // first, so a kill between the two renames leaves an index that readers see is not the
    // log's.
    let stamp = now.iso_seconds();
    if let Err(e) = update_both(project, now, warnings, |index, errors| {
        (store::record_success(index, errors, &intent, &stamp), ())
    }) {
        warnings.push(format!("3-strike: success not recorded: {e}"));
    }
}

/// Returns the reason to ask when a call of this intent has escalated (strike 3+) in this
/// session. Read-only.
pub fn escalation_for(
    project: &Project,
    tool_name: &str,
    tool_input: &serde_json::Value,
    session: Option<&str>,
    now: Timestamp,
    cfg: &StrikeConfig,
) -> Option<String> {
    let index = read_index(project)?;
    if !index.may_count_tool(tool_name, true) {
        return None;
    }
    let intent = intent_of(tool_name, tool_input);
    // Sessions are stored cut as attempts keep them.
    let session = session.map(clip_id);
    let (hash, e) = index.escalation(
        &intent,
        session.as_deref(),
        &now.iso_seconds(),
        cfg.expiry(),
    )?;
    Some(format!(
        "3-strike: `{intent}` already failed with the same error {} times in a row in this \
         session (hash {hash}: {}), so a person decides whether it runs again until a call \
         of it succeeds or the error is resolved",
        e.count, e.headline
    ))
}

/// Returns a short summary of the branch's unresolved errors for SessionStart.
pub fn session_start_summary(project: &Project, _cfg: &StrikeConfig) -> Option<String> {
    let index = read_index(project)?;
    let open = index.unresolved_sorted();
    if open.is_empty() {
        return None;
    }
    let mut out = format!(
        "oath 3-strike: this branch has {} from earlier work (in {}):",
        crate::ui::plural(
            open.len(),
            "unresolved tool error",
            "unresolved tool errors"
        ),
        shown(project, &errors_path(project))
    );
    for (hash, e) in open.iter().take(SUMMARY_LINES) {
        let state = if e.is_escalated() {
            ", escalated: calls of the same intent need the user's approval"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n- {} error {hash}, {} (last {}{state}): {}",
            e.tool,
            crate::ui::plural(e.count as usize, "time", "times"),
            e.last_seen,
            e.headline
        ));
    }
    if open.len() > SUMMARY_LINES {
        out.push_str(&format!(
            "\n- and {} more (`oath errors list`)",
            open.len() - SUMMARY_LINES
        ));
    }
    out.push_str(
        "\nAt strike 2 the same approach has failed twice in a row and a different one is \
         needed; at strike 3 the user decides before a call with the same intent runs again.",
    );
    Some(out)
}

/// The branch's strike state as people see it.
#[derive(Debug, Clone)]
pub struct View {
    /// The index (rebuilt from the log when stale).
    pub index: Index,
    /// The log.
    pub errors: ErrorsFile,
    /// Problems met while reading.
    pub warnings: Vec<String>,
}

/// Reads both files without changing them (for `oath errors list` and `show`).
pub fn view(project: &Project) -> View {
    let mut warnings = Vec::new();
    let errors = match state::read_json::<ErrorsFile>(&errors_path(project)) {
        ReadOutcome::Ok(e) => Some(e),
        ReadOutcome::Missing => None,
        ReadOutcome::Corrupt(r) => {
            warnings.push(format!(
                "{} is unreadable ({r}); the next failure moves it aside",
                errors_path(project).display()
            ));
            None
        }
    };
    let index = match state::read_json::<Index>(&index_path(project)) {
        ReadOutcome::Ok(i) => Some(i),
        ReadOutcome::Missing => None,
        ReadOutcome::Corrupt(r) => {
            warnings.push(format!(
                "{} is unreadable ({r}); it is rebuilt from the log",
                index_path(project).display()
            ));
            None
        }
    };
    let (index, errors) = match (index, errors) {
        (Some(i), Some(mut e)) if i.seq == e.seq => {
            store::reconcile(&i, &mut e);
            (i, e)
        }
        (_, Some(e)) => (Index::rebuild(&e), e),
        (Some(i), None) => (i, ErrorsFile::default()),
        (None, None) => (Index::default(), ErrorsFile::default()),
    };
    View {
        index,
        errors,
        warnings,
    }
}

/// Finds the hash a person meant: an exact hash or a unique prefix of at least 4 characters.
pub fn find_hash(view: &View, wanted: &str) -> Result<String, String> {
    let wanted = wanted.trim().to_ascii_lowercase();
    let known = view
        .index
        .hashes
        .keys()
        .chain(view.errors.attempts.iter().map(|a| &a.hash))
        .filter(|h| !h.is_empty());
    let mut matches: Vec<&String> = known
        .filter(|h| **h == wanted || (wanted.len() >= 4 && h.starts_with(&wanted)))
        .collect();
    matches.sort();
    matches.dedup();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("no error with hash {wanted:?} in this branch")),
        many => Err(format!(
            "{wanted:?} matches {} hashes: {}",
            many.len(),
            many.iter()
                .map(|h| h.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Resolves one hash (`Some`) or every error (`None`, a reset) in both files; returns the
/// hashes that were still unresolved.
pub fn resolve(
    project: &Project,
    which: Option<&str>,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, StateError> {
    let by = if which.is_some() { "user" } else { "reset" };
    let stamp = now.iso_seconds();
    update_both(project, now, warnings, |index, errors| {
        (true, store::resolve(index, errors, which, &stamp, by))
    })
}

/// Changes the index and the log together, under both locks (always the index first, then
/// the log). `change` returns whether anything changed (nothing is written otherwise) and a
/// value. A lost log starts from the index's sequence number, so the counts the index still
/// holds are not wiped.
fn update_both<R>(
    project: &Project,
    now: Timestamp,
    warnings: &mut Vec<String>,
    change: impl FnOnce(&mut Index, &mut ErrorsFile) -> (bool, R),
) -> Result<R, StateError> {
    let errors_file = errors_path(project);
    let mut inner_warnings = Vec::new();
    // Both files hold only values redacted as they were made (attempts by `new_failure`,
    // the index's from them): their rewrites are not redacted again.
    let result = state::update_json_redacted_at_entry(
        &index_path(project),
        now,
        warnings,
        Index::default,
        |index: &mut Index| {
            let log_missing = std::cell::Cell::new(false);
            let r = state::update_json_redacted_at_entry(
                &errors_file,
                now,
                &mut inner_warnings,
                || {
                    log_missing.set(true);
                    ErrorsFile::default()
                },
                |errors: &mut ErrorsFile| {
                    if log_missing.get() {
                        errors.seq = index.seq;
                    }
                    let (changed, value) = change(index, errors);
                    (changed, (changed, value))
                },
            );
            match r {
                Ok((changed, value)) => {
                    if changed {
                        // The log is renamed: the index records which log it goes with.
                        index.log = LogStamp::of(&errors_file);
                    }
                    (changed, Ok(value))
                }
                Err(e) => (false, Err(e)),
            }
        },
    );
    warnings.append(&mut inner_warnings);
    result?
}

#[cfg(test)]
mod tests;
