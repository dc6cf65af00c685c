//! Tool results: what each one was (see `verdict.rs`), failure streaks per intent, code
//! changes, and backtracks with the trouble that caused them.
//!
//! - A failure is resolved when a later call of the same intent (`classify::intent`: the same
//!   tool and target, or the same program and subcommand) succeeds: `git push` failing and
//!   `git push --set-upstream origin x` working is one intent, resolved. A command line that
//!   succeeded resolved each program-and-subcommand it chains (`git add x && git commit`
//!   resolves a failed `git add y`), and a script run from another folder is the same script
//!   (`node assets/build.js`, then `cd assets && node build.js`).
//! - A repeated failure is the same normalized error (`strike::normalize`) from the same
//!   intent, consecutively: four different errors in a row are four failures, not a streak.
//! - A backtrack (a file changed again after trouble since its last change) names that
//!   trouble: a failure of a call on the file itself first, else a failed check (a shell
//!   command that builds, tests, lints, runs a script or commits through hooks) since the
//!   change, else a rejection, interrupt or correction. Failures that say nothing about the
//!   files (a web fetch, a search, `ls`, `git push`) are no cause.

use serde_json::Value;

use super::calls::{is_revert_command, patch_counts, result_text};
use super::tally::{Cause, FileHistory, Streak};
use super::verdict::{CallFacts, Verdict, classify};
use super::{CODE_CHANGE_TOOLS, Fact, FactKind, Tally, excerpt, hash64};
use crate::clock::Timestamp;
use crate::strike::normalize::normalize_error;

/// Most bytes of an error normalized to compare it with the previous one.
const ERROR_PREFIX: usize = 4096;

/// Trouble ranks: how closely a trouble concerns a file.
const RANK_ANY: u8 = 1;
const RANK_CHECK: u8 = 2;
const RANK_SAME_TARGET: u8 = 3;

/// Programs whose failure says nothing about the code (lookups, file and git plumbing): not
/// checks. `git commit` is one (it runs the commit hooks).
const NOT_CHECKS: &[&str] = &[
    "ls", "cat", "find", "grep", "rg", "head", "tail", "which", "echo", "pwd", "tree", "wc",
    "file", "stat", "cd", "mkdir", "rm", "cp", "mv", "touch", "chmod", "ln", "curl", "wget", "gh",
    "git", "sleep", "ps", "kill", "lsof", "du", "df", "env", "printenv", "type", "sed", "awk",
    "sort", "uniq", "diff", "open", "xargs",
];

/// Splits an intent into its tool and its parts (`bash git add && git commit` →
/// `("bash", ["git add", "git commit"])`).
fn parts(intent: &str) -> (&str, Vec<&str>) {
    match intent.split_once(' ') {
        Some((tool, rest)) => (tool, rest.split(" && ").collect()),
        None => (intent, Vec::new()),
    }
}

/// Returns whether two parts of intents are the same work: equal, or the same program run on
/// a script or file of the same name (`node assets/build.js`, `node build.js`).
fn same_part(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (Some((pa, ta)), Some((pb, tb))) = (a.rsplit_once(' '), b.rsplit_once(' ')) else {
        return false;
    };
    let base = |t: &str| t.rsplit('/').next().unwrap_or(t).to_owned();
    let pathy = |t: &str| t.contains('/') || t.contains('.');
    pa == pb && pathy(ta) && pathy(tb) && base(ta) == base(tb)
}

/// Returns whether a successful call of intent `ok` resolves a failure of intent `failed`:
/// the same tool, and each part of the failure done by the success.
pub(super) fn resolves(ok: &str, failed: &str) -> bool {
    let (tool_ok, parts_ok) = parts(ok);
    let (tool_failed, parts_failed) = parts(failed);
    tool_ok == tool_failed
        && (ok == failed
            || (!parts_failed.is_empty()
                && parts_failed
                    .iter()
                    .all(|f| parts_ok.iter().any(|o| same_part(o, f)))))
}

/// Returns whether a shell command's intent checks the code (build, test, lint, a script;
/// with `hooks`, a commit, whose hooks check: a hook's deny of `git commit`, where a failed
/// `git add && git commit` is git's plumbing, not a check).
fn is_check(intent: &str, hooks: bool) -> bool {
    let (_, ps) = parts(intent);
    ps.iter().any(|p| {
        let program = p.split(' ').next().unwrap_or("");
        !NOT_CHECKS.contains(&program) || (hooks && p.starts_with("git commit"))
    })
}

/// Returns the hash of an error's normalized text (its first [`ERROR_PREFIX`] bytes).
fn error_hash(text: &str) -> u64 {
    let mut end = text.len().min(ERROR_PREFIX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    hash64(&normalize_error(&text[..end]))
}

/// Returns whether a text names a file (its path, or its file name).
fn names_file(text: &str, path: &str) -> bool {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    text.contains(path) || (!base.is_empty() && text.contains(base))
}

fn set_cause(h: &mut FileHistory, c: &Cause) {
    if h.cause.as_ref().is_none_or(|old| c.rank >= old.rank) {
        h.cause = Some(c.clone());
    }
}

impl Tally {
    /// Marks every changed file with a trouble of `rank`.
    pub(super) fn trouble_for_all(&mut self, line: u64, rank: u8, what: &str) {
        let c = Cause {
            line,
            rank,
            what: what.to_owned(),
        };
        for h in self.files.values_mut() {
            set_cause(h, &c);
        }
    }

    /// Marks changed files with a failed check: the files it names, and the files changed
    /// since a check last passed (what it checked).
    fn trouble_from_check(&mut self, line: u64, said: &str, what: &str) {
        for (path, h) in self.files.iter_mut() {
            let rank = if names_file(said, path) {
                RANK_SAME_TARGET
            } else if self.unchecked.contains(path) {
                RANK_CHECK
            } else {
                continue;
            };
            let c = Cause {
                line,
                rank,
                what: what.to_owned(),
            };
            set_cause(h, &c);
        }
    }

    /// Marks one changed file with a trouble of a call on it.
    fn trouble_for_file(&mut self, file: &str, line: u64, what: &str) {
        if let Some(h) = self.files.get_mut(file) {
            let c = Cause {
                line,
                rank: RANK_SAME_TARGET,
                what: what.to_owned(),
            };
            set_cause(h, &c);
        }
    }

    pub(super) fn tool_result(
        &mut self,
        v: &serde_json::Map<String, Value>,
        block: &Value,
        n: u64,
        ts: Option<String>,
    ) {
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let pending = self.pending.remove(id);
        let tur = v.get("toolUseResult");
        let text = result_text(block);
        let tur_str = tur.and_then(Value::as_str).unwrap_or("");
        let verdict = classify(
            v,
            block,
            &text,
            CallFacts {
                tool: pending.as_ref().map(|p| p.name.as_str()),
                pre_hook_ran: pending.as_ref().is_some_and(|p| p.pre_hook_ran),
                hook_blocked: pending.as_ref().is_some_and(|p| p.hook_blocked),
            },
        );
        if let (Some(p), Some(t_res)) = (&pending, ts.as_deref())
            && let (Some(a), Some(b)) = (
                p.timestamp.as_deref().and_then(Timestamp::parse),
                Timestamp::parse(t_res),
            )
            && let Ok(ms) = u64::try_from(b.unix_millis() - a.unix_millis())
        {
            self.counts.tool_time_ms += ms;
        }
        let (name, subject, intent) = match &pending {
            Some(p) => (Some(p.name.clone()), p.subject.clone(), p.intent.clone()),
            None => (None, String::new(), format!("unknown:{id}")),
        };
        let sidechain = pending.as_ref().is_some_and(|p| p.sidechain) || self.sidechain_file;
        let said = if text.is_empty() { tur_str } else { &text };
        let fact = |kind| {
            let mut f = Fact::new(kind, n, ts.clone());
            f.tool = name.clone();
            f.subject = subject.clone();
            f.detail = excerpt(said, 160);
            f.call = Some(hash64(&intent));
            f
        };
        let what = |verb: &str| {
            format!(
                "{} `{}` {verb} (line {n}: {})",
                name.as_deref().unwrap_or("a call"),
                excerpt(&subject, 60),
                excerpt(said, 80)
            )
        };
        let file = pending.as_ref().and_then(|p| p.file.clone());
        let shell = matches!(name.as_deref(), Some("Bash" | "PowerShell"));
        match verdict {
            Verdict::Cascade => {
                self.counts.cascade_count += 1;
                self.push_fact(fact(FactKind::Cascade));
            }
            Verdict::Rejection | Verdict::Denial | Verdict::Interrupt => {
                let (kind, verb) = match verdict {
                    Verdict::Rejection => {
                        self.counts.rejection_count += 1;
                        (FactKind::Rejection, "was rejected")
                    }
                    Verdict::Denial => {
                        self.counts.permission_denial_count += 1;
                        (FactKind::PermissionDenial, "was denied")
                    }
                    _ => {
                        self.counts.interrupt_count += 1;
                        (FactKind::Interrupt, "was interrupted")
                    }
                };
                let mut f = fact(kind);
                if kind == FactKind::Interrupt {
                    f.detail = "interrupted".into();
                }
                self.push_fact(f);
                let what = what(verb);
                match &file {
                    Some(path) => self.trouble_for_file(path, n, &what),
                    None if verdict == Verdict::Denial => {
                        // A check refused (a commit hook that found unformatted code) is a
                        // failed check; other denials say nothing about the files.
                        if shell && is_check(&intent, true) {
                            self.trouble_from_check(n, said, &what);
                        }
                    }
                    None => self.trouble_for_all(n, RANK_ANY, &what),
                }
                if !sidechain {
                    self.last_was_refusal = true;
                }
            }
            Verdict::Error => {
                self.counts.error_count += 1;
                self.push_fact(fact(FactKind::ToolError));
                self.streak(&intent, said, n, sidechain, &fact);
                let what = what("failed");
                self.last_failure = Some(Cause {
                    line: n,
                    rank: RANK_ANY,
                    what: what.clone(),
                });
                match &file {
                    Some(path) => self.trouble_for_file(path, n, &what),
                    None if shell && is_check(&intent, false) => {
                        self.trouble_from_check(n, said, &what);
                    }
                    None => {}
                }
            }
            Verdict::Success => {
                self.streaks.retain(|failed, _| !resolves(&intent, failed));
                if shell && is_check(&intent, false) {
                    self.unchecked.clear();
                }
                if let Some(p) = pending {
                    self.success(p, tur, n, ts);
                }
            }
        }
    }

    /// Counts a failure in its intent's streak (a different error starts a new streak).
    fn streak(
        &mut self,
        intent: &str,
        said: &str,
        n: u64,
        sidechain: bool,
        fact: &dyn Fn(FactKind) -> Fact,
    ) {
        let error = error_hash(said);
        let s = self.streaks.entry(intent.to_owned()).or_default();
        if s.count > 0 && s.error == error {
            s.count += 1;
        } else {
            *s = Streak {
                count: 1,
                first_line: n,
                error,
                sidechain,
            };
        }
        let (count, first) = (s.count, s.first_line);
        if count < 2 {
            return;
        }
        let call = Some(hash64(intent));
        // One fact per streak, updated as it grows.
        if let Some(existing) = self.facts.iter_mut().rev().find(|x| {
            x.kind == FactKind::RepeatedFailure && x.call == call && x.first_line == Some(first)
        }) {
            existing.count = Some(count);
            existing.line = n;
        } else {
            let mut f = fact(FactKind::RepeatedFailure);
            f.count = Some(count);
            f.first_line = Some(first);
            self.push_fact(f);
        }
    }

    /// A successful call: git commands that undo work, and code changes.
    fn success(
        &mut self,
        p: super::tally::Pending,
        tur: Option<&Value>,
        n: u64,
        ts: Option<String>,
    ) {
        if p.name == "Bash" && is_revert_command(&p.subject) {
            // The trouble it undoes: that of a file it names, else the last failure.
            let named = self
                .files
                .iter()
                .filter(|(path, _)| names_file(&p.subject, path))
                .filter_map(|(_, h)| h.cause.clone())
                .max_by_key(|c| (c.rank, c.line));
            let cause = named.or_else(|| self.last_failure.clone());
            let mut f = Fact::new(FactKind::Backtrack, n, ts.clone());
            f.tool = Some(p.name.clone());
            f.subject = p.subject.clone();
            f.detail = match &cause {
                Some(c) => format!("a git command that undoes work succeeded after {}", c.what),
                None => "a git command that undoes work succeeded".into(),
            };
            f.cause_line = cause.map(|c| c.line);
            self.counts.backtrack_count += 1;
            self.push_fact(f);
        }
        if !CODE_CHANGE_TOOLS.contains(&p.name.as_str()) {
            return;
        }
        self.counts.code_changes_count += 1;
        let (added, removed) = patch_counts(tur, p.content_lines);
        self.counts.lines_added += added;
        self.counts.lines_removed += removed;
        self.last_change_line = Some(n);
        self.ran_after_last_change = false;
        let Some(file) = p.file.clone() else {
            return;
        };
        self.counts.files_changed.insert(file.clone());
        self.unchecked.insert(file.clone());
        let history = self.files.entry(file.clone()).or_default();
        let cause = if history.changes > 0 {
            history.cause.take()
        } else {
            None
        };
        let reverted = match (p.old_hash, p.new_hash) {
            (Some(o), Some(nw)) => history
                .edit_log
                .iter()
                .rev()
                .find(|(po, pn, _)| *po == nw && *pn == o)
                .map(|(_, _, line)| *line),
            _ => None,
        };
        history.changes += 1;
        history.cause = None;
        if let (Some(o), Some(nw)) = (p.old_hash, p.new_hash) {
            history.edit_log.push((o, nw, n));
            if history.edit_log.len() > 32 {
                history.edit_log.remove(0);
            }
        }
        if cause.is_none() && reverted.is_none() {
            return;
        }
        self.counts.backtrack_count += 1;
        let mut f = Fact::new(FactKind::Backtrack, n, ts);
        f.tool = Some(p.name.clone());
        f.subject = file;
        f.detail = match (&reverted, &cause) {
            (Some(line), _) => {
                format!("this edit reverts the edit of the same file at line {line}")
            }
            (None, Some(c)) => format!("the file was changed again after {}", c.what),
            (None, None) => String::new(),
        };
        f.cause_line = reverted.or(cause.map(|c| c.line));
        self.push_fact(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash_call(n: u32, cmd: &str) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"a{n}","message":{{"id":"m{n}","content":[{{"type":"tool_use","id":"t{n}","name":"Bash","input":{{"command":"{cmd}"}}}}]}}}}"#
        )
    }

    fn result(n: u32, text: &str, is_error: bool) -> String {
        format!(
            r#"{{"type":"user","uuid":"r{n}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{n}","content":"{text}","is_error":{is_error}}}]}}}}"#
        )
    }

    #[test]
    fn a_failure_resolved_by_a_later_call_of_the_same_intent_is_not_still_failing() {
        let lines = [
            bash_call(1, "git push"),
            result(
                1,
                "Exit code 128\\nfatal: The current branch x has no upstream branch.",
                true,
            ),
            bash_call(2, "git push --set-upstream origin x"),
            result(2, "branch set up", false),
            bash_call(3, "cargo test"),
            result(3, "Exit code 101", true),
        ];
        let t = Tally::from_text(&lines.join("\n"), false);
        assert_eq!(t.counts.error_count, 2);
        let still = t.still_failing();
        assert_eq!(still, vec![(hash64("bash cargo test"), 1)]);
    }

    #[test]
    fn a_chained_or_moved_call_resolves_its_parts() {
        assert!(resolves("bash git add && git commit", "bash git add"));
        assert!(resolves("bash node build.js", "bash node assets/build.js"));
        assert!(resolves("bash git push", "bash git push"));
        assert!(!resolves("bash git add", "bash git add && git commit"));
        assert!(!resolves("bash cargo build", "bash cargo test"));
        assert!(!resolves("bash node a.js", "bash node b.js"));
        assert!(!resolves("read src/a.rs", "edit src/a.rs"));
        assert!(is_check("bash cargo test", false));
        assert!(is_check("bash git add && git commit", true));
        assert!(!is_check("bash git add && git commit", false));
        assert!(!is_check("bash git push", true));
        assert!(!is_check("bash ls", false));
    }

    #[test]
    fn repeated_means_the_same_normalized_error_of_one_intent() {
        let lines = [
            bash_call(1, "cargo build"),
            result(
                1,
                "Exit code 1\\nerror[E0425]: cannot find value `x` in /tmp/a1b2/src.rs",
                true,
            ),
            bash_call(2, "cargo build -q"),
            result(
                2,
                "Exit code 1\\nerror[E0425]: cannot find value `x` in /tmp/c3d4/src.rs",
                true,
            ),
            bash_call(3, "cargo build"),
            result(3, "Exit code 1\\nerror[E0308]: mismatched types", true),
            bash_call(4, "cargo build"),
            result(4, "Exit code 1\\nerror: linker `cc` not found", true),
        ];
        let t = Tally::from_text(&lines.join("\n"), false);
        let repeated: Vec<_> = t
            .facts
            .iter()
            .filter(|f| f.kind == FactKind::RepeatedFailure)
            .collect();
        assert_eq!(repeated.len(), 1, "{repeated:?}");
        assert_eq!(
            (repeated[0].first_line, repeated[0].line, repeated[0].count),
            (Some(2), 4, Some(2))
        );
        // The streak now is the last, different error.
        assert_eq!(t.still_failing(), vec![(hash64("bash cargo build"), 1)]);
    }

    #[test]
    fn a_backtrack_names_its_cause_not_an_unrelated_failure() {
        let edit = |n: u32, new: &str| {
            format!(
                r#"{{"type":"assistant","uuid":"a{n}","message":{{"id":"m{n}","content":[{{"type":"tool_use","id":"t{n}","name":"Edit","input":{{"file_path":"src/a.rs","old_string":"x{n}","new_string":"{new}"}}}}]}}}}"#
            )
        };
        let fetch = r#"{"type":"assistant","uuid":"a9","message":{"id":"m9","content":[{"type":"tool_use","id":"t9","name":"WebFetch","input":{"url":"https://x.dev"}}]}}"#;
        let lines = [
            edit(1, "a"),
            result(1, "ok", false),
            fetch.to_owned(),
            result(9, "Unable to verify if domain x.dev is safe", true),
            edit(2, "b"),
            result(2, "ok", false),
            bash_call(3, "cargo test"),
            result(3, "Exit code 101\\nthread panicked at src/a.rs:3", true),
            edit(4, "c"),
            result(4, "ok", false),
        ];
        let t = Tally::from_text(&lines.join("\n"), false);
        let b: Vec<_> = t
            .facts
            .iter()
            .filter(|f| f.kind == FactKind::Backtrack)
            .collect();
        assert_eq!(b.len(), 1, "the failed fetch is no cause: {b:?}");
        assert_eq!((b[0].line, b[0].cause_line), (10, Some(8)));
        assert!(b[0].detail.contains("cargo test"), "{}", b[0].detail);
    }
}
