//! The two strike files of a branch and the pure rules that change them.
//!
//! `errors.json` is the log in the seed's schema (`attempts`, `strikeCount`, `lastErrorHash`)
//! plus oath's fields; only failures and the CLI write it. `strikes.json` is a small index
//! (per-hash counts, the action keys of each hash, resolution state) that the per-call paths
//! read instead of the log, so they do not slow down as the log grows. Both carry `seq`, bumped
//! on every write of the log: an index whose `seq` differs from the log's is stale (a writer
//! died between the two renames, or the index was lost) and is rebuilt from the log.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::normalize;

/// Version of both files' schema (2: counts per intent and session, see [`HashState`]).
pub const SCHEMA_VERSION: u32 = 2;
/// Status of an attempt or hash that still counts.
pub const UNRESOLVED: &str = "unresolved";
/// Status of an attempt or hash that no longer counts.
pub const RESOLVED: &str = "resolved";
/// Most hashes kept in the index; resolved and least-struck ones are dropped first.
pub const MAX_HASHES: usize = 256;
/// Most resolved hashes kept in the index (the least recently seen are dropped first).
pub const MAX_RESOLVED_HASHES: usize = 32;
/// Most tool families remembered per hash.
pub const MAX_TOOLS: usize = 8;
/// Strike count from which an action is escalated to the user.
pub const ESCALATE_AT: u32 = 3;
/// Strike count from which the model is warned.
pub const WARN_AT: u32 = 2;

/// One failed tool call, as stored in `errors.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// When it failed (`YYYY-MM-DDTHH:MM:SSZ`).
    #[serde(default)]
    pub timestamp: String,
    /// The tool.
    #[serde(default)]
    pub tool: String,
    /// The error text from the payload (redacted, bounded).
    #[serde(default)]
    pub error: String,
    /// `unresolved` or `resolved`.
    #[serde(default = "unresolved")]
    pub status: String,
    /// The error hash (empty in files written by the seed's script).
    #[serde(default)]
    pub hash: String,
    /// The strike count of the hash after this attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strike: Option<u32>,
    /// A short summary of the tool input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The action key (tool + normalised input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The intent ([`crate::classify::intent`]): what the call tried to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// The session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The subagent, when the call came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// When the attempt was resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<String>,
    /// How it was resolved: `success`, `user` or `reset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// Fields written by others, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn unresolved() -> String {
    UNRESOLVED.into()
}

/// Returns an attempt with every string redacted ([`crate::redact::redact_value`] over all
/// its fields, the extra ones included, as a whole-file redaction would see them): what
/// enters the log, which is not redacted again as it is written.
pub fn redacted(attempt: Attempt) -> Attempt {
    let Ok(mut value) = serde_json::to_value(&attempt) else {
        return masked(attempt);
    };
    crate::redact::redact_value(&mut value);
    serde_json::from_value(value).unwrap_or_else(|_| masked(attempt))
}

/// The attempt with its texts masked: the fallback of [`redacted`] if a redacted value no
/// longer read as an attempt (a number under a secret-looking key becomes a string; none of
/// the attempt's own keys looks secret, so only extra fields could, and they are dropped).
fn masked(attempt: Attempt) -> Attempt {
    let mask = |s: Option<String>| s.map(|_| crate::redact::MASK.to_owned());
    Attempt {
        tool: crate::redact::redact_str(&attempt.tool).into_owned(),
        error: crate::redact::MASK.to_owned(),
        input: mask(attempt.input),
        session_id: mask(attempt.session_id),
        tool_use_id: mask(attempt.tool_use_id),
        agent_id: mask(attempt.agent_id),
        extra: Map::new(),
        ..attempt
    }
}

/// `.plan/{branch}/errors.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorsFile {
    /// Schema version.
    #[serde(default)]
    pub version: u32,
    /// Failed attempts, oldest first, at most `strikes.max_attempts`.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// The strike count of the last error (seed field).
    #[serde(rename = "strikeCount", default)]
    pub strike_count: u32,
    /// The hash of the last error, `""` when none counts (seed field).
    #[serde(rename = "lastErrorHash", default)]
    pub last_error_hash: String,
    /// Write sequence number shared with the index.
    #[serde(default)]
    pub seq: u64,
    /// Fields written by others, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for ErrorsFile {
    fn default() -> Self {
        Self {
            version: SCHEMA_VERSION,
            attempts: Vec::new(),
            strike_count: 0,
            last_error_hash: String::new(),
            seq: 0,
            extra: Map::new(),
        }
    }
}

/// What the index knows about one error hash: one normalised error of one intent (the hash
/// covers both), so a count is the run of the same error on the same intent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HashState {
    /// The current strike count: consecutive failures of this error on its intent in one
    /// session (0 once resolved).
    pub count: u32,
    /// Failures with this hash ever recorded.
    pub total: u32,
    /// The tool.
    pub tool: String,
    /// The line of the last error that says what went wrong.
    pub headline: String,
    /// First failure.
    pub first_seen: String,
    /// Last failure.
    pub last_seen: String,
    /// `unresolved` or `resolved`.
    pub status: String,
    /// The intent that failed with this error.
    #[serde(default)]
    pub intent: String,
    /// The session of the last failure: a count goes on only in that session (a resumed
    /// session keeps its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The tool families of the failures ([`tool_family`]), so a call of another tool is
    /// known not to match without computing its intent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// When the hash was last resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<String>,
    /// How: `success` (a call of the same intent succeeded), `changed` (the same intent
    /// then failed with another error), `user` (`oath errors resolve`) or `reset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
}

/// The family of a tool for matching intents: the file-editing tools are one (the same
/// mistake made through Edit, MultiEdit and Write is one intent).
pub fn tool_family(tool: &str) -> &str {
    match tool {
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => "edit",
        other => other,
    }
}

impl HashState {
    /// Returns whether the hash still counts.
    pub fn is_unresolved(&self) -> bool {
        self.status == UNRESOLVED && self.count > 0
    }

    /// Returns whether the next identical action must be asked about.
    pub fn is_escalated(&self) -> bool {
        self.is_unresolved() && self.count >= ESCALATE_AT
    }

    /// Returns whether a call of `tool` may have this hash's intent (always, when the tools
    /// were not recorded).
    pub fn may_hold_tool(&self, tool: &str) -> bool {
        let family = tool_family(tool);
        self.tools.is_empty() || self.tools.iter().any(|t| t == family)
    }

    /// Returns whether the count still runs for a call of `session` at `now`: the same
    /// session (any, when the caller does not know it) and the last failure within `expiry`.
    pub fn runs_for(&self, session: Option<&str>, now: &str, expiry: Expiry) -> bool {
        let same_session = match (session, self.session.as_deref()) {
            (Some(s), Some(mine)) => s == mine,
            _ => true,
        };
        same_session && !expiry.expired(&self.last_seen, now)
    }

    fn resolve(&mut self, now: &str, by: &str) {
        self.count = 0;
        self.status = RESOLVED.into();
        self.resolved_at = Some(now.into());
        self.resolved_by = Some(by.into());
    }
}

/// `.plan/{branch}/strikes.json`: the index the per-call paths read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    /// Schema version.
    #[serde(default)]
    pub version: u32,
    /// The `seq` of the log this index matches.
    #[serde(default)]
    pub seq: u64,
    /// The log file this index was written with ([`LogStamp::of`]): a reader that finds
    /// another log (a writer killed between the two renames) rebuilds the index from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogStamp>,
    /// Per error hash.
    #[serde(default)]
    pub hashes: BTreeMap<String, HashState>,
}

impl Default for Index {
    fn default() -> Self {
        Self {
            version: SCHEMA_VERSION,
            seq: 0,
            log: None,
            hashes: BTreeMap::new(),
        }
    }
}

/// What identifies one version of the log file without reading it: every write renames a
/// new file over it (a new inode, a new modification time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogStamp {
    /// The file's inode (0 where there is none).
    pub inode: u64,
    /// Its length in bytes.
    pub len: u64,
    /// Its modification time, in nanoseconds since the epoch.
    pub modified_ns: u64,
}

impl LogStamp {
    /// Returns the stamp of the file at `path` (`None` when it cannot be read).
    pub fn of(path: &std::path::Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        let modified_ns = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| u64::try_from(d.as_nanos()).ok())?;
        Some(Self {
            inode,
            len: meta.len(),
            modified_ns,
        })
    }
}

/// A failure to record, already normalised, hashed, redacted and bounded.
#[derive(Debug, Clone)]
pub struct NewFailure {
    /// The error hash (of the intent and the normalised error).
    pub hash: String,
    /// The intent.
    pub intent: String,
    /// The attempt to append (its `strike` is filled in).
    pub attempt: Attempt,
}

/// How long a count runs without a new failure: a failure after that starts again at 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    /// Seconds.
    pub seconds: i64,
}

impl Expiry {
    /// Returns whether a count last seen at `last_seen` has expired at `now` (both
    /// `YYYY-MM-DDTHH:MM:SSZ`; an unreadable time never expires).
    pub fn expired(self, last_seen: &str, now: &str) -> bool {
        use crate::clock::Timestamp;
        match (Timestamp::parse(last_seen), Timestamp::parse(now)) {
            (Some(a), Some(b)) => b.unix() - a.unix() > self.seconds,
            _ => false,
        }
    }
}

impl Index {
    /// Rebuilds an index from a log: unresolved attempts count, resolved ones do not; each
    /// hash counts its attempts since its last resolution or change of session.
    pub fn rebuild(errors: &ErrorsFile) -> Self {
        let mut index = Index {
            seq: errors.seq,
            ..Index::default()
        };
        let mut last: BTreeMap<&str, &str> = BTreeMap::new();
        for a in errors.attempts.iter().filter(|a| !a.hash.is_empty()) {
            last.insert(&a.hash, &a.error);
            let e = index.hashes.entry(a.hash.clone()).or_default();
            e.total += 1;
            if e.first_seen.is_empty() {
                e.first_seen = a.timestamp.clone();
            }
            e.last_seen = a.timestamp.clone();
            e.tool = a.tool.clone();
            if let Some(intent) = &a.intent {
                e.intent = intent.clone();
            }
            remember(&mut e.tools, tool_family(&a.tool));
            if a.status == UNRESOLVED {
                if e.session != a.session_id {
                    e.count = 0;
                }
                e.count += 1;
                e.status = UNRESOLVED.into();
                e.resolved_at = None;
                e.resolved_by = None;
            } else {
                e.count = 0;
                e.status = RESOLVED.into();
                e.resolved_at = a.resolved_at.clone();
                e.resolved_by = a.resolution.clone();
            }
            e.session = a.session_id.clone();
        }
        index.evict(None);
        // Headlines only for the hashes kept, from their last error.
        for (h, e) in index.hashes.iter_mut() {
            if let Some(error) = last.get(h.as_str()) {
                e.headline = normalize::headline(error);
            }
        }
        index
    }

    /// Returns the escalated hash of `intent` whose count runs for `session` at `now`, if any.
    pub fn escalation(
        &self,
        intent: &str,
        session: Option<&str>,
        now: &str,
        expiry: Expiry,
    ) -> Option<(&String, &HashState)> {
        self.hashes
            .iter()
            .filter(|(_, e)| {
                e.is_escalated() && e.intent == intent && e.runs_for(session, now, expiry)
            })
            .max_by_key(|(_, e)| e.count)
    }

    /// Returns whether any hash still counts.
    pub fn any_unresolved(&self) -> bool {
        self.hashes.values().any(HashState::is_unresolved)
    }

    /// Returns whether an action of `tool` may have failed with a hash that still counts
    /// (`escalated_only`: with one that is escalated). When not, the caller need not compute
    /// the action key, which hashes the whole tool input (a 1 MB Write included).
    pub fn may_count_tool(&self, tool: &str, escalated_only: bool) -> bool {
        self.hashes.values().any(|e| {
            (if escalated_only {
                e.is_escalated()
            } else {
                e.is_unresolved()
            }) && e.may_hold_tool(tool)
        })
    }

    /// Resets every hash of the intent of a successful call; returns whether anything
    /// changed.
    pub fn record_success(&mut self, intent: &str, now: &str) -> bool {
        let mut changed = false;
        for e in self.hashes.values_mut() {
            if e.is_unresolved() && e.intent == intent {
                e.resolve(now, "success");
                changed = true;
            }
        }
        changed
    }

    /// Returns the hashes still counting, most-struck first, then most recent.
    pub fn unresolved_sorted(&self) -> Vec<(&String, &HashState)> {
        let mut v: Vec<_> = self
            .hashes
            .iter()
            .filter(|(_, e)| e.is_unresolved())
            .collect();
        v.sort_by(|a, b| {
            b.1.count
                .cmp(&a.1.count)
                .then_with(|| b.1.last_seen.cmp(&a.1.last_seen))
        });
        v
    }

    /// Drops hashes past [`MAX_HASHES`]: resolved first, then the least struck, oldest first;
    /// never `keep`.
    fn evict(&mut self, keep: Option<&str>) {
        // Resolved hashes only inform `oath errors`, which can read the log; every PreToolUse
        // reads this index, so they are kept few.
        let mut resolved: Vec<(String, String)> = self
            .hashes
            .iter()
            .filter(|(h, e)| !e.is_unresolved() && keep != Some(h.as_str()))
            .map(|(h, e)| (e.last_seen.clone(), h.clone()))
            .collect();
        if resolved.len() > MAX_RESOLVED_HASHES {
            resolved.sort();
            let excess = resolved.len() - MAX_RESOLVED_HASHES;
            for (_, h) in resolved.into_iter().take(excess) {
                self.hashes.remove(&h);
            }
        }
        if self.hashes.len() <= MAX_HASHES {
            return;
        }
        let mut order: Vec<(bool, u32, String, String)> = self
            .hashes
            .iter()
            .filter(|(h, _)| keep != Some(h.as_str()))
            .map(|(h, e)| (e.is_unresolved(), e.count, e.last_seen.clone(), h.clone()))
            .collect();
        order.sort();
        let excess = self.hashes.len() - MAX_HASHES;
        for (_, _, _, h) in order.into_iter().take(excess) {
            self.hashes.remove(&h);
        }
    }
}

fn remember(list: &mut Vec<String>, item: &str) {
    list.retain(|a| a != item);
    list.push(item.to_owned());
    if list.len() > MAX_TOOLS {
        let drop = list.len() - MAX_TOOLS;
        list.drain(..drop);
    }
}

/// Carries resolutions made in the index (successes) over to the log's attempts.
pub fn reconcile(index: &Index, errors: &mut ErrorsFile) {
    for a in errors
        .attempts
        .iter_mut()
        .filter(|a| a.status == UNRESOLVED)
    {
        if let Some(e) = index.hashes.get(&a.hash)
            && e.status == RESOLVED
        {
            a.status = RESOLVED.into();
            a.resolved_at = e.resolved_at.clone();
            a.resolution = e.resolved_by.clone();
        }
    }
    match index.hashes.get(&errors.last_error_hash) {
        Some(e) if e.is_unresolved() => errors.strike_count = e.count,
        Some(_) => {
            errors.strike_count = 0;
            errors.last_error_hash.clear();
        }
        None => {}
    }
}

/// Drops attempts past `max`: the oldest resolved ones first, then the oldest.
pub fn trim(errors: &mut ErrorsFile, max: usize) {
    let len = errors.attempts.len();
    if len <= max {
        return;
    }
    let mut excess = len - max;
    let resolved = errors
        .attempts
        .iter()
        .filter(|a| a.status != UNRESOLVED)
        .count();
    let mut drop_resolved = excess.min(resolved);
    excess -= drop_resolved;
    errors.attempts.retain(|a| {
        if drop_resolved > 0 && a.status != UNRESOLVED {
            drop_resolved -= 1;
            false
        } else {
            true
        }
    });
    errors.attempts.drain(..excess);
}

/// Returns whether the log already holds an attempt of this tool call: Claude Code runs a
/// plugin's copy of a hook separately from the settings' copy, so one failure can reach oath
/// twice, and it must count once.
pub fn already_recorded(errors: &ErrorsFile, tool_use_id: Option<&str>) -> bool {
    tool_use_id.is_some_and(|id| {
        !id.is_empty()
            && errors
                .attempts
                .iter()
                .any(|a| a.tool_use_id.as_deref() == Some(id))
    })
}

/// Records a failure in both files; returns the new strike count of its hash.
///
/// The count is the run of this error on its intent: it goes on from the hash's count when
/// the last failure was in the same session and within `expiry`, and starts at 1
/// otherwise. Another error of the same intent ends the run of the previous one (resolved
/// as `changed`): the agent got further, and what repeats now is the new error.
pub fn record_failure(
    index: &mut Index,
    errors: &mut ErrorsFile,
    failure: NewFailure,
    max_attempts: usize,
    expiry: Expiry,
) -> u32 {
    if index.seq != errors.seq {
        *index = Index::rebuild(errors);
    }
    reconcile(index, errors);
    let NewFailure {
        hash,
        intent,
        mut attempt,
    } = failure;
    let now = attempt.timestamp.clone();
    for (h, e) in index.hashes.iter_mut() {
        if *h != hash && e.is_unresolved() && e.intent == intent {
            e.resolve(&now, "changed");
        }
    }
    let e = index.hashes.entry(hash.clone()).or_default();
    if e.is_unresolved() && !e.runs_for(attempt.session_id.as_deref(), &now, expiry) {
        e.count = 0;
    }
    e.count += 1;
    e.total += 1;
    if e.first_seen.is_empty() {
        e.first_seen = now.clone();
    }
    e.last_seen = now;
    e.tool = attempt.tool.clone();
    e.headline = normalize::headline(&attempt.error);
    e.status = UNRESOLVED.into();
    e.intent = intent;
    e.session = attempt.session_id.clone();
    e.resolved_at = None;
    e.resolved_by = None;
    remember(&mut e.tools, tool_family(&attempt.tool));
    let count = e.count;
    index.evict(Some(&hash));
    reconcile(index, errors);

    attempt.strike = Some(count);
    errors.attempts.push(attempt);
    trim(errors, max_attempts);
    errors.version = SCHEMA_VERSION;
    errors.strike_count = count;
    errors.last_error_hash = hash;
    errors.seq += 1;
    index.seq = errors.seq;
    count
}

/// Records a success of a call of `intent` in both files: the errors it failed with are
/// reset. Returns whether anything changed.
pub fn record_success(index: &mut Index, errors: &mut ErrorsFile, intent: &str, now: &str) -> bool {
    if index.seq != errors.seq {
        *index = Index::rebuild(errors);
    }
    reconcile(index, errors);
    let reset = index.record_success(intent, now);
    if reset {
        reconcile(index, errors);
        errors.seq += 1;
        index.seq = errors.seq;
    }
    reset
}

/// Resolves the hashes chosen by `which` (all when `None`) in both files; returns the
/// hashes that were still unresolved in either file.
pub fn resolve(
    index: &mut Index,
    errors: &mut ErrorsFile,
    which: Option<&str>,
    now: &str,
    by: &str,
) -> Vec<String> {
    if index.seq != errors.seq {
        *index = Index::rebuild(errors);
    }
    reconcile(index, errors);
    let mut changed = std::collections::BTreeSet::new();
    for (h, e) in index.hashes.iter_mut() {
        if which.is_none_or(|w| w == h) && e.is_unresolved() {
            e.resolve(now, by);
            changed.insert(h.clone());
        }
    }
    for a in errors.attempts.iter_mut() {
        if a.status == UNRESOLVED && which.is_none_or(|w| w == a.hash) {
            a.status = RESOLVED.into();
            a.resolved_at = Some(now.into());
            a.resolution = Some(by.into());
            if !a.hash.is_empty() {
                changed.insert(a.hash.clone());
            }
        }
    }
    if which.is_none_or(|w| w == errors.last_error_hash) {
        errors.strike_count = 0;
        errors.last_error_hash.clear();
    }
    if which.is_none() {
        index.hashes.clear();
    }
    errors.version = SCHEMA_VERSION;
    errors.seq += 1;
    index.seq = errors.seq;
    changed.into_iter().collect()
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
