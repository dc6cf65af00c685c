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

/// Version of both files' schema.
pub const SCHEMA_VERSION: u32 = 1;
/// Status of an attempt or hash that still counts.
pub const UNRESOLVED: &str = "unresolved";
/// Status of an attempt or hash that no longer counts.
pub const RESOLVED: &str = "resolved";
/// Most hashes kept in the index; resolved and least-struck ones are dropped first.
pub const MAX_HASHES: usize = 256;
/// Most resolved hashes kept in the index (the least recently seen are dropped first).
pub const MAX_RESOLVED_HASHES: usize = 32;
/// Most action keys remembered per hash.
pub const MAX_ACTIONS: usize = 8;
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

/// What the index knows about one error hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HashState {
    /// The current strike count (0 once resolved).
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
    /// Action keys that failed with this hash, most recent last.
    #[serde(default)]
    pub actions: Vec<String>,
    /// The tools of those actions (empty in indexes written before oath recorded them), so a
    /// call of another tool is known not to match without computing its action key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// When the hash was last resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<String>,
    /// How: `success` (the same action succeeded), `user` (`oath errors resolve`) or `reset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
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

    /// Returns whether an action of `tool` may be among this hash's actions (always, when the
    /// tools were not recorded).
    pub fn may_hold_tool(&self, tool: &str) -> bool {
        self.tools.is_empty() || self.tools.iter().any(|t| t == tool)
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
    /// The error hash.
    pub hash: String,
    /// The action key.
    pub action: String,
    /// The attempt to append (its `strike` is filled in).
    pub attempt: Attempt,
}

impl Index {
    /// Rebuilds an index from a log: unresolved attempts count, resolved ones do not.
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
            if let Some(action) = &a.action {
                remember(&mut e.actions, action);
                remember(&mut e.tools, &a.tool);
            }
            if a.status == UNRESOLVED {
                e.count += 1;
                e.status = UNRESOLVED.into();
                e.resolved_at = None;
                e.resolved_by = None;
            } else if e.count == 0 {
                e.status = RESOLVED.into();
                e.resolved_at = a.resolved_at.clone();
                e.resolved_by = a.resolution.clone();
            }
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

    /// Returns the escalated hash whose actions include `action`, if any (highest count).
    pub fn escalation(&self, action: &str) -> Option<(&String, &HashState)> {
        self.hashes
            .iter()
            .filter(|(_, e)| e.is_escalated() && e.actions.iter().any(|a| a == action))
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

    /// Resets every hash that the successful `action` failed with; returns whether anything
    /// changed.
    pub fn record_success(&mut self, action: &str, now: &str) -> bool {
        let mut changed = false;
        for e in self.hashes.values_mut() {
            if e.is_unresolved() && e.actions.iter().any(|a| a == action) {
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

fn remember(actions: &mut Vec<String>, action: &str) {
    actions.retain(|a| a != action);
    actions.push(action.to_owned());
    if actions.len() > MAX_ACTIONS {
        let drop = actions.len() - MAX_ACTIONS;
        actions.drain(..drop);
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
pub fn record_failure(
    index: &mut Index,
    errors: &mut ErrorsFile,
    failure: NewFailure,
    max_attempts: usize,
) -> u32 {
    if index.seq != errors.seq {
        *index = Index::rebuild(errors);
    }
    reconcile(index, errors);
    let NewFailure {
        hash,
        action,
        mut attempt,
    } = failure;
    let e = index.hashes.entry(hash.clone()).or_default();
    e.count += 1;
    e.total += 1;
    if e.first_seen.is_empty() {
        e.first_seen = attempt.timestamp.clone();
    }
    e.last_seen = attempt.timestamp.clone();
    e.tool = attempt.tool.clone();
    e.headline = normalize::headline(&attempt.error);
    e.status = UNRESOLVED.into();
    e.resolved_at = None;
    e.resolved_by = None;
    remember(&mut e.actions, &action);
    remember(&mut e.tools, &attempt.tool);
    let count = e.count;
    index.evict(Some(&hash));

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

/// Records a success of `action` in both files: the errors it failed with are reset.
/// Returns whether anything changed.
pub fn record_success(index: &mut Index, errors: &mut ErrorsFile, action: &str, now: &str) -> bool {
    if index.seq != errors.seq {
        *index = Index::rebuild(errors);
    }
    reconcile(index, errors);
    let reset = index.record_success(action, now);
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
mod tests {
    use super::*;

    fn failure(hash: &str, action: &str) -> NewFailure {
        NewFailure {
            hash: hash.into(),
            action: action.into(),
            attempt: Attempt {
                timestamp: "2026-01-01T00:00:00Z".into(),
                tool: "Bash".into(),
                error: format!("Exit code 1\nerror {hash}"),
                status: UNRESOLVED.into(),
                hash: hash.into(),
                strike: None,
                input: None,
                action: Some(action.into()),
                session_id: None,
                tool_use_id: None,
                agent_id: None,
                resolved_at: None,
                resolution: None,
                extra: Map::new(),
            },
        }
    }

    enum Step {
        Fail(&'static str, &'static str),
        Succeed(&'static str),
        Resolve(&'static str),
        Reset,
    }
    use Step::*;

    /// Runs steps and returns the strike count after each failure (0 for other steps).
    fn run(steps: &[Step]) -> (Vec<u32>, Index, ErrorsFile) {
        let mut index = Index::default();
        let mut errors = ErrorsFile::default();
        let counts = steps
            .iter()
            .map(|s| match s {
                Fail(h, a) => record_failure(&mut index, &mut errors, failure(h, a), 1000),
                Succeed(a) => {
                    index.record_success(a, "t");
                    0
                }
                Resolve(h) => {
                    resolve(&mut index, &mut errors, Some(h), "t", "user");
                    0
                }
                Reset => {
                    resolve(&mut index, &mut errors, None, "t", "reset");
                    0
                }
            })
            .collect();
        (counts, index, errors)
    }

    #[test]
    fn strike_counting() {
        let cases: &[(&str, &[Step], &[u32])] = &[
            (
                "same error repeats",
                &[
                    Fail("A", "a"),
                    Fail("A", "a"),
                    Fail("A", "a"),
                    Fail("A", "a"),
                ],
                &[1, 2, 3, 4],
            ),
            (
                "A-B-A-B still escalates",
                &[
                    Fail("A", "a"),
                    Fail("B", "b"),
                    Fail("A", "a"),
                    Fail("B", "b"),
                    Fail("A", "a"),
                    Fail("B", "b"),
                ],
                &[1, 1, 2, 2, 3, 3],
            ),
            (
                "success of the same action resets",
                &[Fail("A", "a"), Fail("A", "a"), Succeed("a"), Fail("A", "a")],
                &[1, 2, 0, 1],
            ),
            (
                "success of another action does not",
                &[Fail("A", "a"), Fail("A", "a"), Succeed("z"), Fail("A", "a")],
                &[1, 2, 0, 3],
            ),
            (
                "same error from two actions counts together",
                &[Fail("A", "a1"), Fail("A", "a2"), Fail("A", "a1")],
                &[1, 2, 3],
            ),
            (
                "success of either action resets the hash",
                &[
                    Fail("A", "a1"),
                    Fail("A", "a2"),
                    Succeed("a2"),
                    Fail("A", "a1"),
                ],
                &[1, 2, 0, 1],
            ),
            (
                "resolve resets one hash",
                &[
                    Fail("A", "a"),
                    Fail("B", "b"),
                    Fail("A", "a"),
                    Fail("B", "b"),
                    Resolve("A"),
                    Fail("A", "a"),
                    Fail("B", "b"),
                ],
                &[1, 1, 2, 2, 0, 1, 3],
            ),
            (
                "reset resets all",
                &[
                    Fail("A", "a"),
                    Fail("A", "a"),
                    Fail("B", "b"),
                    Reset,
                    Fail("A", "a"),
                    Fail("B", "b"),
                ],
                &[1, 2, 1, 0, 1, 1],
            ),
        ];
        for (name, steps, want) in cases {
            let (got, _, _) = run(steps);
            assert_eq!(&got, want, "{name}");
        }
    }

    #[test]
    fn escalation_is_per_action_and_cleared_by_success() {
        let (_, mut index, _) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("A", "a")]);
        assert_eq!(
            index.escalation("a").map(|(h, e)| (h.as_str(), e.count)),
            Some(("A", 3))
        );
        assert!(index.escalation("b").is_none());
        assert!(index.record_success("a", "t"));
        assert!(index.escalation("a").is_none());
        assert!(!index.record_success("a", "t"), "nothing left to reset");
        let (_, index, _) = run(&[Fail("A", "a"), Fail("A", "a")]);
        assert!(index.escalation("a").is_none(), "strike 2 does not ask");
    }

    #[test]
    fn only_tools_that_failed_need_an_action_key() {
        let (_, mut index, _) = run(&[Fail("A", "a"), Fail("A", "a")]);
        assert!(index.may_count_tool("Bash", false));
        assert!(
            !index.may_count_tool("Bash", true),
            "strike 2 is not escalated"
        );
        assert!(!index.may_count_tool("Write", false));
        let (_, escalated, _) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("A", "a")]);
        assert!(escalated.may_count_tool("Bash", true));
        assert!(!escalated.may_count_tool("Write", true));
        // An index written before tools were recorded cannot rule any tool out.
        for e in index.hashes.values_mut() {
            e.tools.clear();
        }
        assert!(index.may_count_tool("Write", false));
        // A rebuild from the log records them again.
        let (_, _, errors) = run(&[Fail("A", "a")]);
        assert_eq!(Index::rebuild(&errors).hashes["A"].tools, vec!["Bash"]);
    }

    #[test]
    fn seed_fields_follow_the_last_error() {
        let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("B", "b")]);
        assert_eq!(
            (errors.strike_count, errors.last_error_hash.as_str()),
            (1, "B")
        );
        let (_, _, errors) = run(&[Fail("A", "a"), Fail("B", "b"), Fail("A", "a")]);
        assert_eq!(
            (errors.strike_count, errors.last_error_hash.as_str()),
            (2, "A")
        );
        let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Resolve("A")]);
        assert_eq!(
            (errors.strike_count, errors.last_error_hash.as_str()),
            (0, "")
        );
        assert!(errors.attempts.iter().all(|a| a.status == RESOLVED));
    }

    #[test]
    fn successes_reach_the_log_on_its_next_write() {
        let (_, _, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Succeed("a"), Fail("B", "b")]);
        let statuses: Vec<_> = errors.attempts.iter().map(|a| a.status.as_str()).collect();
        assert_eq!(statuses, [RESOLVED, RESOLVED, UNRESOLVED]);
        assert_eq!(errors.attempts[0].resolution.as_deref(), Some("success"));
    }

    #[test]
    fn a_stale_index_is_rebuilt_from_the_log() {
        let (_, index, errors) = run(&[Fail("A", "a"), Fail("A", "a"), Fail("B", "b")]);
        let rebuilt = Index::rebuild(&errors);
        assert_eq!(rebuilt.hashes, index.hashes);
        // A lost index (seq 0) is rebuilt before the next failure counts.
        let mut fresh = Index::default();
        let mut errors = errors;
        assert_eq!(
            record_failure(&mut fresh, &mut errors, failure("A", "a"), 1000),
            3
        );
    }

    #[test]
    fn trimming_drops_resolved_attempts_first() {
        let mut errors = ErrorsFile::default();
        for (n, status) in [UNRESOLVED, RESOLVED, UNRESOLVED, RESOLVED, UNRESOLVED]
            .iter()
            .enumerate()
        {
            let mut a = failure("A", "a").attempt;
            a.status = (*status).into();
            a.timestamp = n.to_string();
            errors.attempts.push(a);
        }
        trim(&mut errors, 3);
        let kept: Vec<_> = errors
            .attempts
            .iter()
            .map(|a| a.timestamp.as_str())
            .collect();
        assert_eq!(kept, ["0", "2", "4"]);
        trim(&mut errors, 2);
        let kept: Vec<_> = errors
            .attempts
            .iter()
            .map(|a| a.timestamp.as_str())
            .collect();
        assert_eq!(kept, ["2", "4"]);
    }

    #[test]
    fn the_index_stays_bounded() {
        let mut index = Index::default();
        let mut errors = ErrorsFile::default();
        for _ in 0..2 {
            record_failure(&mut index, &mut errors, failure("ffffffff", "a"), 10_000);
        }
        for n in 0..(MAX_HASHES + 50) {
            let h = format!("{n:08x}");
            let mut f = failure(&h, "a");
            f.attempt.timestamp = format!("t{n:05}");
            let count = record_failure(&mut index, &mut errors, f, 10_000);
            assert_eq!(index.hashes[&h].count, count, "the new hash is kept");
        }
        assert_eq!(index.hashes.len(), MAX_HASHES);
        assert_eq!(index.hashes["ffffffff"].count, 2, "struck hashes are kept");
        assert!(
            !index.hashes.contains_key("00000000"),
            "the oldest single strike goes"
        );
    }

    #[test]
    fn few_resolved_hashes_stay_in_the_index() {
        let mut index = Index::default();
        let mut errors = ErrorsFile::default();
        for n in 0..(MAX_RESOLVED_HASHES + 10) {
            let h = format!("{n:08x}");
            let mut f = failure(&h, &h);
            f.attempt.timestamp = format!("t{n:05}");
            record_failure(&mut index, &mut errors, f, 10_000);
            assert!(index.record_success(&h, &format!("t{n:05}")));
        }
        record_failure(&mut index, &mut errors, failure("ffffffff", "z"), 10_000);
        let resolved = index.hashes.values().filter(|e| !e.is_unresolved()).count();
        assert_eq!(resolved, MAX_RESOLVED_HASHES);
        assert!(index.hashes["ffffffff"].is_unresolved());
        assert!(
            !index.hashes.contains_key("00000000"),
            "the least recently seen resolved hash goes"
        );
        assert!(
            index
                .hashes
                .contains_key(&format!("{:08x}", MAX_RESOLVED_HASHES + 9))
        );
    }

    #[test]
    fn seed_files_are_read() {
        let seed = r#"{"attempts":[{"timestamp":"2026-01-25T10:00:00Z","tool":"Bash","error":"npm test","status":"unresolved"}],"strikeCount":1,"lastErrorHash":"3b7610a8"}"#;
        let errors: ErrorsFile = serde_json::from_str(seed).unwrap();
        assert_eq!(errors.attempts.len(), 1);
        assert_eq!(errors.strike_count, 1);
        let index = Index::rebuild(&errors);
        assert!(
            index.hashes.is_empty(),
            "attempts without a hash do not count"
        );
    }
}
