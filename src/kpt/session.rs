//! Per-session facts kept for retrospectives: `sessions/<session_id>.json` in the project's
//! state folder, brought up to date incrementally at every Stop and SessionEnd.
//!
//! The record remembers how many bytes of the transcript (and of each subagent transcript)
//! were parsed and the running [`Tally`], so a turn only parses the lines appended since the
//! previous one. A transcript that shrank or whose first line changed is parsed again from the
//! start. A hook reads at most [`MAX_BYTES_PER_RUN`] per run (the rest waits for the next
//! one); `oath kpt` reads the whole transcript. Lines are streamed in bounded memory: one
//! longer than [`MAX_LINE_BYTES`] is skipped and counted, never a stop.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::project::{Project, file_safe};
use crate::state::{self, ReadOutcome, StateError};
use crate::transcript::{Counts, Fact, Tally, hash64};

use super::report::{Metrics, TokenUsage};

/// Version of the session record format.
pub const RECORD_VERSION: u32 = 1;

/// Most bytes of one transcript a hook parses per run (keeps SessionEnd within its time
/// budget).
pub const MAX_BYTES_PER_RUN: u64 = 16 * 1024 * 1024;

/// Longest transcript line kept (a large image result can be longer: it is skipped).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Parsing progress of one transcript file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileProgress {
    /// Bytes consumed (always at a line boundary).
    pub offset: u64,
    /// Hash of the first line, to notice a replaced file.
    pub first_line_hash: Option<u64>,
    /// The running tally.
    pub tally: Tally,
}

/// What oath knows of one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionRecord {
    /// Format version.
    pub v: u32,
    /// Session id.
    pub session_id: String,
    /// Main transcript.
    pub transcript_path: Option<PathBuf>,
    /// Working directory reported by the hook.
    pub cwd: Option<PathBuf>,
    /// Project root.
    pub project_root: Option<PathBuf>,
    /// First time recorded.
    pub first_recorded_at: Option<String>,
    /// Last time recorded.
    pub updated_at: Option<String>,
    /// Hook event of the last update (`Stop`, `SessionEnd`, `kpt new`).
    pub last_event: Option<String>,
    /// Main transcript progress.
    pub main: FileProgress,
    /// Subagent transcripts by file name.
    pub subagents: BTreeMap<String, FileProgress>,
    /// The report metrics as of the last update (for people and other tools; derived from
    /// the progress above).
    pub metrics: Option<Metrics>,
}

impl SessionRecord {
    /// Returns the counts of the main transcript and its subagents together.
    pub fn counts(&self) -> Counts {
        let mut c = self.main.tally.counts.clone();
        for p in self.subagents.values() {
            c.absorb(&p.tally.counts);
        }
        c
    }

    /// Returns every fact with its source named (`main` or the subagent file).
    pub fn facts(&self) -> Vec<Fact> {
        let mut out: Vec<Fact> = self
            .main
            .tally
            .facts
            .iter()
            .cloned()
            .map(|mut f| {
                f.source = "main".into();
                f
            })
            .collect();
        for (name, p) in &self.subagents {
            out.extend(p.tally.facts.iter().cloned().map(|mut f| {
                f.source = name.clone();
                f
            }));
        }
        out
    }

    /// Returns the report metrics.
    pub fn metrics(&self) -> Metrics {
        metrics_from(&self.counts())
    }
}

/// Returns report metrics from transcript counts.
pub fn metrics_from(c: &Counts) -> Metrics {
    let n = |v: u32| Some(u64::from(v));
    Metrics {
        session_duration_turns: n(c.session_duration_turns()),
        user_turns: n(c.user_turns),
        assistant_turns: n(c.assistant_turns),
        tool_use_count: n(c.tool_use_count),
        unique_tools: Some(c.unique_tools()),
        code_changes_count: n(c.code_changes_count),
        error_count: n(c.error_count),
        correction_count: n(c.correction_count),
        backtrack_count: n(c.backtrack_count),
        files_changed: Some(c.files_changed.len() as u64),
        lines_added: Some(c.lines_added),
        lines_removed: Some(c.lines_removed),
        rejection_count: n(c.rejection_count),
        permission_denial_count: n(c.permission_denial_count),
        interrupt_count: n(c.interrupt_count),
        cascade_count: n(c.cascade_count),
        tokens: Some(TokenUsage {
            input_tokens: c.tokens.input_tokens,
            output_tokens: c.tokens.output_tokens,
            cache_creation_input_tokens: c.tokens.cache_creation_input_tokens,
            cache_read_input_tokens: c.tokens.cache_read_input_tokens,
        }),
        unreadable_lines: Some(c.invalid_lines).filter(|n| *n > 0),
        skipped_lines: Some(c.skipped_lines).filter(|n| *n > 0),
        subagent_tool_use_count: n(c.subagent_tool_use_count),
        duration_ms: c.duration_ms(),
        tool_time_ms: Some(c.tool_time_ms),
    }
}

/// Returns the record file of a session.
pub fn record_path(project: &Project, session_id: &str) -> PathBuf {
    project
        .sessions_dir()
        .join(format!("{}.json", file_safe(session_id)))
}

/// Returns the subagent folder of a transcript: `<dir>/<session>/subagents/`.
pub fn subagents_dir(transcript: &Path) -> Option<PathBuf> {
    let stem = transcript.file_stem()?;
    Some(transcript.parent()?.join(stem).join("subagents"))
}

/// Parses the lines appended to `path` since `progress.offset`, at most about `budget` bytes
/// of them (all without one). Returns whether anything changed. A missing file changes
/// nothing.
pub fn catch_up(
    path: &Path,
    progress: &mut FileProgress,
    sidechain: bool,
    budget: Option<u64>,
) -> std::io::Result<bool> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let mut first = [0u8; 4096];
    let got = read_up_to(&mut file, &mut first)?;
    let first_line = first[..got]
        .split(|b| *b == b'\n')
        .next()
        .filter(|_| first[..got].contains(&b'\n'))
        .map(|l| hash64(&String::from_utf8_lossy(l)));
    let replaced = len < progress.offset
        || (progress.offset > 0 && first_line.is_some() && progress.first_line_hash != first_line);
    if replaced {
        *progress = FileProgress::default();
    }
    if progress.tally.counts.lines == 0 {
        progress.tally = Tally::new(sidechain);
    }
    if len == progress.offset {
        return Ok(replaced);
    }
    file.seek(SeekFrom::Start(progress.offset))?;
    let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
    let start = progress.offset;
    let mut line = Vec::new();
    let mut consumed = 0u64;
    loop {
        if budget.is_some_and(|b| consumed >= b) {
            break;
        }
        match next_line(&mut reader, &mut line, MAX_LINE_BYTES)? {
            Line::End => break,
            Line::Kept(n) => {
                consumed += n;
                if !line.is_empty() {
                    progress.tally.feed(&String::from_utf8_lossy(&line));
                }
            }
            Line::TooLong(n) => {
                consumed += n;
                progress.tally.counts.skipped_lines += 1;
            }
        }
    }
    if consumed == 0 {
        return Ok(replaced);
    }
    if start == 0 {
        progress.first_line_hash = first_line;
    }
    progress.offset += consumed;
    Ok(true)
}

/// One line of a transcript as read.
enum Line {
    /// No complete line is left (a partial last line waits for its end).
    End,
    /// A line, in the buffer, with the bytes it took (its newline included).
    Kept(u64),
    /// A line longer than the cap, read past and dropped, with the bytes it took.
    TooLong(u64),
}

/// Reads the next complete line into `line` (without its newline), holding at most `cap`
/// bytes of it.
fn next_line(
    reader: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut taken = 0u64;
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            // The file ends inside a line: it is not complete yet; nothing is consumed.
            return Ok(Line::End);
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + chunk.len() <= cap {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let used = done.unwrap_or(chunk.len());
        taken += used as u64;
        reader.consume(used);
        if done.is_some() {
            return Ok(if too_long {
                Line::TooLong(taken)
            } else {
                Line::Kept(taken)
            });
        }
    }
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Brings a record up to date with its transcripts (main and subagents), reading at most
/// about `budget` bytes of each (all without one).
pub fn refresh(
    record: &mut SessionRecord,
    warnings: &mut Vec<String>,
    budget: Option<u64>,
) -> bool {
    let Some(path) = record.transcript_path.clone() else {
        return false;
    };
    let mut changed = match catch_up(&path, &mut record.main, false, budget) {
        Ok(c) => c,
        Err(e) => {
            warnings.push(format!("cannot read transcript {}: {e}", path.display()));
            false
        }
    };
    if let Some(dir) = subagents_dir(&path)
        && let Ok(entries) = std::fs::read_dir(&dir)
    {
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let progress = record.subagents.entry(name).or_default();
            match catch_up(&f, progress, true, budget) {
                Ok(c) => changed |= c,
                Err(e) => warnings.push(format!("cannot read {}: {e}", f.display())),
            }
        }
    }
    changed
}

/// Creates or updates a session's record under its lock and returns it.
pub fn update(
    project: &Project,
    session_id: &str,
    transcript: Option<&Path>,
    cwd: Option<&Path>,
    event: &str,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<SessionRecord, StateError> {
    let path = record_path(project, session_id);
    let mut inner_warnings = Vec::new();
    let result = state::update_json(
        &path,
        now,
        warnings,
        SessionRecord::default,
        |r: &mut SessionRecord| {
            let before = (
                r.transcript_path.clone(),
                r.cwd.clone(),
                r.last_event.clone(),
            );
            r.v = RECORD_VERSION;
            r.session_id = session_id.to_owned();
            if let Some(t) = transcript {
                r.transcript_path = Some(t.to_path_buf());
            }
            if let Some(c) = cwd {
                r.cwd = Some(c.to_path_buf());
            }
            r.project_root = Some(project.root.clone());
            let new = r.first_recorded_at.is_none();
            if new {
                r.first_recorded_at = Some(now.iso_millis());
            }
            r.last_event = Some(event.to_owned());
            // A hook reads a bounded part per run; `oath kpt` (the event "kpt") reads all.
            let budget = (event != "kpt").then_some(MAX_BYTES_PER_RUN);
            let parsed = refresh(r, &mut inner_warnings, budget);
            // Nothing new (a Stop with no new transcript lines): nothing is written.
            let changed = new
                || parsed
                || before
                    != (
                        r.transcript_path.clone(),
                        r.cwd.clone(),
                        r.last_event.clone(),
                    );
            if changed {
                r.updated_at = Some(now.iso_millis());
                r.metrics = Some(r.metrics());
            }
            (changed, r.clone())
        },
    );
    warnings.extend(inner_warnings);
    result
}

/// Reads a session's record without changing it.
pub fn read(project: &Project, session_id: &str) -> Option<SessionRecord> {
    match state::read_json::<SessionRecord>(&record_path(project, session_id)) {
        ReadOutcome::Ok(r) => Some(r),
        _ => None,
    }
}

/// Returns the records of a sessions folder.
fn records_in(dir: &Path) -> Vec<SessionRecord> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| match state::read_json::<SessionRecord>(&p) {
            ReadOutcome::Ok(r) if !r.session_id.is_empty() => Some(r),
            _ => None,
        })
        .collect()
}

fn most_recent(records: Vec<SessionRecord>) -> Option<SessionRecord> {
    records.into_iter().max_by_key(|r| {
        r.updated_at
            .as_deref()
            .and_then(Timestamp::parse)
            .map(|t| t.unix_millis())
            .unwrap_or(0)
    })
}

/// Returns the id of the most recently updated session of the project.
pub fn latest(project: &Project) -> Option<String> {
    most_recent(records_in(&project.sessions_dir())).map(|r| r.session_id)
}

/// Finds a session recorded under any project of oath's state (the hooks may have resolved
/// the project differently, e.g. `CLAUDE_PROJECT_DIR` in a sub-folder of a repository).
/// With `id` `None`, returns the most recent session of a project whose root contains `cwd`
/// or lies inside it.
pub fn find_anywhere(state_root: &Path, id: Option<&str>, cwd: &Path) -> Option<SessionRecord> {
    let projects = std::fs::read_dir(state_root.join("projects")).ok()?;
    let mut found = Vec::new();
    for p in projects.filter_map(Result::ok) {
        let sessions = p.path().join("sessions");
        match id {
            Some(id) => {
                let f = sessions.join(format!("{}.json", file_safe(id)));
                if let ReadOutcome::Ok(r) = state::read_json::<SessionRecord>(&f) {
                    found.push(r);
                }
            }
            None => found.extend(records_in(&sessions).into_iter().filter(|r| {
                r.project_root
                    .as_deref()
                    .is_some_and(|root| cwd.starts_with(root) || root.starts_with(cwd))
            })),
        }
    }
    most_recent(found)
}

/// Looks for a session's transcript under Claude Code's `projects/` folder.
pub fn find_transcript(claude_dir: &Path, session_id: &str) -> Option<PathBuf> {
    let name = format!("{}.jsonl", file_safe(session_id));
    let entries = std::fs::read_dir(claude_dir.join("projects")).ok()?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path().join(&name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#;
    const ANSWER: &str = r#"{"type":"assistant","uuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"ok"}]}}"#;

    #[test]
    fn lines_over_the_cap_are_skipped_and_counted_in_bounded_memory() {
        let text = format!("{PROMPT}\n{}\n{ANSWER}\npartial", "x".repeat(5000));
        let mut reader = std::io::BufReader::with_capacity(64, text.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        loop {
            match next_line(&mut reader, &mut line, 1000).unwrap() {
                Line::End => break,
                Line::Kept(n) => seen.push(format!("kept {n} {}", line.len())),
                Line::TooLong(n) => {
                    assert!(line.capacity() <= 1064, "held {}", line.capacity());
                    seen.push(format!("skipped {n}"));
                }
            }
        }
        assert_eq!(
            seen,
            [
                format!("kept {} {}", PROMPT.len() + 1, PROMPT.len()),
                "skipped 5001".to_owned(),
                format!("kept {} {}", ANSWER.len() + 1, ANSWER.len()),
            ]
        );
    }

    #[test]
    fn a_hook_reads_a_budget_a_run_and_oath_kpt_reads_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let lines: Vec<String> = (0..400)
            .map(|i| {
                format!(
                    r#"{{"type":"user","uuid":"u{i}","message":{{"role":"user","content":"prompt {i}"}}}}"#
                )
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let mut hook = FileProgress::default();
        assert!(catch_up(&path, &mut hook, false, Some(4096)).unwrap());
        let first = hook.tally.counts.lines;
        assert!(first > 0 && first < 400, "{first} lines in one bounded run");
        let mut whole = FileProgress::default();
        assert!(catch_up(&path, &mut whole, false, None).unwrap());
        assert_eq!(whole.tally.counts.lines, 400);
        assert_eq!(whole.tally.counts.user_turns, 400);
    }

    #[test]
    fn catch_up_parses_only_complete_new_lines_and_restarts_on_a_replaced_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut p = FileProgress::default();
        assert!(
            !catch_up(&path, &mut p, false, None).unwrap(),
            "missing file: nothing"
        );
        std::fs::write(&path, format!("{PROMPT}\n{}", &ANSWER[..20])).unwrap();
        assert!(catch_up(&path, &mut p, false, None).unwrap());
        assert_eq!(p.offset, PROMPT.len() as u64 + 1);
        assert_eq!(p.tally.counts.user_turns, 1);
        assert_eq!(p.tally.counts.invalid_lines, 0, "the partial line waits");
        std::fs::write(&path, format!("{PROMPT}\n{ANSWER}\n")).unwrap();
        assert!(catch_up(&path, &mut p, false, None).unwrap());
        assert_eq!(p.tally.counts.assistant_turns, 1);
        assert!(
            !catch_up(&path, &mut p, false, None).unwrap(),
            "nothing new"
        );
        // Replaced by another session's file: parsed again from the start.
        let other = r#"{"type":"user","uuid":"z9","message":{"role":"user","content":"other"}}"#;
        std::fs::write(&path, format!("{other}\n")).unwrap();
        assert!(catch_up(&path, &mut p, false, None).unwrap());
        assert_eq!(p.tally.counts.user_turns, 1);
        assert_eq!(p.tally.counts.assistant_turns, 0);
        assert_eq!(p.tally.counts.lines, 1);
    }
}
