//! A project's audit trail read back as entries (a tool call's pre record joined to its
//! outcomes, or a session event), filtered as they are read and handed over oldest first, in
//! bounded memory.
//!
//! Each session has its own file, appended in time order. Files whose records all lie outside
//! the time window are not read (their first and last records say so), and within a file the
//! window's start is found by bisection ([`read::seek_time`]). Files are read side by side and
//! merged by time, a file being opened when the merge reaches its first record. Joining keeps
//! only a file's recent entries: an entry is handed over once its file has moved on
//! [`JOIN_WINDOW_SECS`] past it ([`MAX_CALL_SECS`] for a call still without an outcome), or
//! when [`MAX_PENDING`] entries wait behind it; an outcome later than that is an entry of its
//! own. A window's margins are the same hour: an outcome read in a window whose call began
//! before the part of the file read (its time less its `duration_ms`) belongs to a call outside
//! the window and is dropped, and a call just before `--until` whose outcome came more than an
//! hour later shows no outcome.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::read::{self, Lines, ReadError, Record};
use crate::clock::Timestamp;
use crate::project;

/// How long after an entry's first record more records are joined to it (a second outcome of
/// a call, a pre record written after its outcome), and how far before `--since` (after
/// `--until`) a file is read: records of writers running side by side are a little out of
/// order, and a call's outcome comes when the tool is done.
pub const JOIN_WINDOW_SECS: i64 = 3600;

/// How long a call without an outcome waits for one (a subagent may run for hours), as long as
/// no more than [`MAX_PENDING`] entries of its file wait behind it.
pub const MAX_CALL_SECS: i64 = 24 * 3600;

/// Most entries of one file kept waiting for more records (the oldest is handed over first).
pub const MAX_PENDING: usize = 4096;

/// One entry: a tool call (its pre record and outcomes) or a session event.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// When: the pre record's time, or the first record's.
    pub time: Option<Timestamp>,
    /// The session (`unknown` when the record names none).
    pub session: String,
    /// The call id.
    pub tool_use_id: Option<String>,
    /// The pre record.
    pub pre: Option<Record>,
    /// Outcome records (more than one when a hook fired twice).
    pub outcomes: Vec<Record>,
    /// A record of another kind.
    pub event: Option<Record>,
    /// Order among entries: `time`, or the latest time of its file before it when it has none.
    key: Option<Timestamp>,
    /// For a call the client gave no id: its key in [`FileStream::waiting`] while its pre
    /// record waits for an outcome.
    waiting: Option<Box<str>>,
}

impl Entry {
    /// Returns the record that describes the entry: the pre record, else the first outcome,
    /// else the event.
    pub fn first(&self) -> Option<&Record> {
        self.pre
            .as_ref()
            .or(self.outcomes.first())
            .or(self.event.as_ref())
    }

    /// Returns the entry's domain (from [`Entry::first`]).
    pub fn domain(&self) -> Option<&str> {
        self.first().and_then(|r| r.domain.as_deref())
    }

    /// Returns the entry as one line of JSON (`version` is the output's): an event as
    /// `{"version", "session_id", "event"}`, a call as `{"version", "session_id",
    /// "tool_use_id", "pre", "outcomes"}` with the records as written.
    pub fn json_line(&self, version: u32) -> String {
        let mut s = format!(
            "{{\"version\":{version},\"session_id\":{}",
            Value::from(self.session.as_str())
        );
        if let Some(e) = &self.event {
            s.push_str(",\"event\":");
            s.push_str(&e.raw);
        } else {
            s.push_str(",\"tool_use_id\":");
            s.push_str(&Value::from(self.tool_use_id.as_deref()).to_string());
            s.push_str(",\"pre\":");
            s.push_str(self.pre.as_ref().map_or("null", |r| &r.raw));
            s.push_str(",\"outcomes\":[");
            for (i, o) in self.outcomes.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(&o.raw);
            }
            s.push(']');
        }
        s.push('}');
        s
    }
}

/// Which entries to hand over.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only sessions whose id starts with this.
    pub session: Option<String>,
    /// Only entries at or after this time.
    pub since: Option<Timestamp>,
    /// Only entries before this time.
    pub until: Option<Timestamp>,
    /// Also session events.
    pub events: bool,
    /// Only calls with one of these decisions (none: any).
    pub decisions: Vec<String>,
    /// Only entries in one of these domains (none: any).
    pub domains: Vec<String>,
}

impl Filter {
    /// Whether an entry passes.
    pub fn matches(&self, e: &Entry) -> bool {
        (self.events || e.event.is_none())
            && self
                .session
                .as_deref()
                .is_none_or(|s| e.session.starts_with(s))
            && self.since.is_none_or(|s| e.time.is_some_and(|t| t >= s))
            && self.until.is_none_or(|u| e.time.is_some_and(|t| t < u))
            && (self.decisions.is_empty()
                || e.pre
                    .as_ref()
                    .and_then(|p| p.decision.as_deref())
                    .is_some_and(|d| self.decisions.iter().any(|x| x == d)))
            && (self.domains.is_empty()
                || e.domain()
                    .is_some_and(|d| self.domains.iter().any(|x| x == d)))
    }

    /// Whether a file whose name (without `.jsonl`) is `stem` may hold entries of the session
    /// filter: files are named by session id, each character outside `[A-Za-z0-9._-]` made `_`.
    fn may_hold_session(&self, stem: &str) -> bool {
        let Some(prefix) = self.session.as_deref().filter(|p| !p.is_empty()) else {
            return true;
        };
        // `_` alone is also the name for an empty id, `.` and `..` (whose `file_safe` form is
        // not their prefix's).
        stem == "_" || matches!(prefix, "." | "..") || stem.starts_with(&project::file_safe(prefix))
    }
}

/// What reading the trail did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Audit files found.
    pub files: usize,
    /// Files not read, their records all outside the window or of other sessions.
    pub files_skipped: usize,
    /// Lines parsed to find where to read (first and last records, bisection).
    pub probe_lines: u64,
    /// Lines read as records.
    pub lines_read: u64,
    /// Records read.
    pub records: u64,
    /// Lines read that are not JSON objects.
    pub unreadable: usize,
}

/// One file being read: its lines and the entries waiting for more of their records.
#[derive(Debug)]
struct FileStream {
    lines: Lines,
    /// Entries in the order their first record came, with the sequence number of the first.
    queue: VecDeque<Entry>,
    first_seq: u64,
    /// Calls waiting for records, by `session NUL call id`: their sequence number.
    open: HashMap<Box<str>, u64>,
    /// Calls the client gave no id, waiting for their outcome, by `session NUL call key`:
    /// their sequence numbers, oldest first (identical calls are joined in order).
    waiting: HashMap<Box<str>, VecDeque<u64>>,
    /// The key being looked up (kept to save an allocation per record).
    scratch: String,
    /// The latest record time seen.
    clock: Option<Timestamp>,
    /// Reading stops at a record this late.
    stop_at: Option<Timestamp>,
    /// When reading began past the file's start: the time it began at.
    entered_at: Option<Timestamp>,
    done: bool,
}

impl FileStream {
    /// Returns the file's next entry, oldest first.
    fn next(&mut self, stats: &mut Stats) -> io::Result<Option<Entry>> {
        loop {
            if let Some(front) = self.queue.front() {
                // A call without an outcome yet may still be running.
                let running = front.event.is_none()
                    && (front.tool_use_id.is_some() || front.waiting.is_some())
                    && front.outcomes.is_empty();
                let wait = if running {
                    MAX_CALL_SECS
                } else {
                    JOIN_WINDOW_SECS
                };
                let aged = match (front.key, self.clock) {
                    (Some(k), Some(c)) => c.unix() - k.unix() > wait,
                    _ => false,
                };
                if self.done || aged || self.queue.len() > MAX_PENDING {
                    return Ok(self.pop());
                }
            } else if self.done {
                return Ok(None);
            }
            self.read_one(stats)?;
        }
    }

    fn pop(&mut self) -> Option<Entry> {
        let e = self.queue.pop_front()?;
        if let Some(id) = &e.tool_use_id {
            let key = open_key(&mut self.scratch, &e.session, id);
            if self.open.get(key) == Some(&self.first_seq) {
                self.open.remove(key);
            }
        }
        // Still waiting: the oldest of its key, so the front of its queue.
        if let Some(key) = &e.waiting
            && let Some(q) = self.waiting.get_mut(key)
        {
            if q.front() == Some(&self.first_seq) {
                q.pop_front();
            }
            if q.is_empty() {
                self.waiting.remove(key);
            }
        }
        self.first_seq += 1;
        Some(e)
    }

    /// Reads one line and files its record.
    fn read_one(&mut self, stats: &mut Stats) -> io::Result<()> {
        let Some((_, line)) = self.lines.next_line()? else {
            self.done = true;
            return Ok(());
        };
        if read::is_blank(line) {
            return Ok(());
        }
        stats.lines_read += 1;
        let Some(r) = Record::parse(line) else {
            stats.unreadable += 1;
            return Ok(());
        };
        stats.records += 1;
        if let (Some(t), Some(stop)) = (r.time, self.stop_at)
            && t >= stop
        {
            self.done = true;
            return Ok(());
        }
        self.file(r);
        Ok(())
    }

    fn file(&mut self, r: Record) {
        if let Some(t) = r.time {
            self.clock = Some(self.clock.map_or(t, |c| c.max(t)));
        }
        let call = matches!(r.kind.as_deref(), Some("pre" | "outcome"));
        let is_pre = r.kind.as_deref() == Some("pre");
        if call && let Some(id) = r.tool_use_id.as_deref() {
            let session = r.session.as_deref().unwrap_or("unknown");
            let key = open_key(&mut self.scratch, session, id);
            if let Some(&seq) = self.open.get(key) {
                let e = &mut self.queue[(seq - self.first_seq) as usize];
                if is_pre {
                    if e.pre.is_none() {
                        e.time = r.time.or(e.time);
                        e.key = e.time.or(e.key);
                    }
                    e.pre = Some(r);
                } else {
                    e.outcomes.push(r);
                }
                return;
            }
            if !is_pre && skipped_its_pre(self.entered_at, &r) {
                return;
            }
            let seq = self.first_seq + self.queue.len() as u64;
            self.open.insert(key.into(), seq);
            let (session, id) = (session.into(), Some(id.into()));
            self.push(session, id, r, is_pre);
            return;
        }
        let session: Box<str> = r.session.clone().unwrap_or_else(|| "unknown".into());
        if call && r.tool_use_id.is_none() && r.call_key.is_some() {
            self.file_keyed(session, r, is_pre);
            return;
        }
        if call {
            self.push(session, None, r, is_pre);
            return;
        }
        let key = r.time.or(self.clock);
        self.queue.push_back(Entry {
            time: r.time,
            session: session.into(),
            tool_use_id: None,
            pre: None,
            outcomes: Vec::new(),
            event: Some(r),
            key,
            waiting: None,
        });
    }

    /// Files a record of a call the client gave no id, by its `call_key`: a pre record waits
    /// for an outcome; an outcome joins the oldest pre record of its key still waiting.
    fn file_keyed(&mut self, session: Box<str>, r: Record, is_pre: bool) {
        let call_key = r.call_key.as_deref().unwrap_or_default();
        let key: Box<str> = open_key(&mut self.scratch, &session, call_key).into();
        if is_pre {
            let seq = self.first_seq + self.queue.len() as u64;
            self.waiting.entry(key.clone()).or_default().push_back(seq);
            self.push(session, None, r, true);
            if let Some(e) = self.queue.back_mut() {
                e.waiting = Some(key);
            }
            return;
        }
        let first_seq = self.first_seq;
        let oldest = self.waiting.get_mut(&key).and_then(|q| {
            // Entries already given out are skipped (their pre record waited too long).
            while q.front().is_some_and(|&seq| seq < first_seq) {
                q.pop_front();
            }
            q.pop_front()
        });
        if self.waiting.get(&key).is_some_and(VecDeque::is_empty) {
            self.waiting.remove(&key);
        }
        if let Some(seq) = oldest {
            let e = &mut self.queue[(seq - first_seq) as usize];
            e.waiting = None;
            e.outcomes.push(r);
            return;
        }
        if skipped_its_pre(self.entered_at, &r) {
            return;
        }
        self.push(session, None, r, false);
    }

    fn push(&mut self, session: Box<str>, id: Option<Box<str>>, r: Record, is_pre: bool) {
        let time = r.time;
        let (pre, outcomes) = if is_pre {
            (Some(r), Vec::new())
        } else {
            (None, vec![r])
        };
        self.queue.push_back(Entry {
            time,
            session: session.into(),
            tool_use_id: id.map(String::from),
            pre,
            outcomes,
            event: None,
            key: time.or(self.clock),
            waiting: None,
        });
    }
}

/// Whether an outcome with no pre record read belongs to a call that started before the point
/// reading began (`entered_at`, when it began past the file's start): the outcome's time less
/// its duration. That call's entry, dated by its pre record, is before the window.
fn skipped_its_pre(entered_at: Option<Timestamp>, r: &Record) -> bool {
    match (entered_at, r.time, r.duration_ms) {
        (Some(at), Some(t), Some(ms)) if ms >= 0.0 => {
            t.unix_millis() - (ms as i128) < at.unix_millis()
        }
        _ => false,
    }
}

/// Returns the key of a call in [`FileStream::open`], written into `scratch`.
fn open_key<'a>(scratch: &'a mut String, session: &str, id: &str) -> &'a str {
    scratch.clear();
    scratch.push_str(session);
    scratch.push('\0');
    scratch.push_str(id);
    scratch
}

/// An audit file found, with the times of its first and last records.
#[derive(Debug)]
struct TrailFile {
    path: PathBuf,
    len: u64,
    first: Option<Timestamp>,
}

/// Returns the `.jsonl` files of an audit folder, sorted by name (none when it is missing).
fn list(dir: &Path) -> Result<Vec<(PathBuf, u64)>, ReadError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ReadError::at(dir)(e)),
    };
    let mut files = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "jsonl") {
            let meta = std::fs::metadata(&path).map_err(ReadError::at(&path))?;
            files.push((path, meta.len()));
        }
    }
    files.sort();
    Ok(files)
}

/// Reads the audit trail in `dir` and hands `sink` every entry `filter` passes, oldest first,
/// until it breaks. Lines that are not JSON objects are counted in [`Stats::unreadable`].
pub fn read(
    dir: &Path,
    filter: &Filter,
    mut sink: impl FnMut(Entry) -> ControlFlow<()>,
) -> Result<Stats, ReadError> {
    let mut stats = Stats::default();
    let margin = |t: Timestamp, sign: i64| t.plus_seconds(sign * JOIN_WINDOW_SECS);
    let read_from = filter.since.map(|s| margin(s, -1));
    let stop_at = filter.until.map(|u| margin(u, 1));
    let mut files = Vec::new();
    for (path, len) in list(dir)? {
        stats.files += 1;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default();
        if !filter.may_hold_session(&stem) {
            stats.files_skipped += 1;
            continue;
        }
        let first = read::first_time_from(&path, (0, len), len, &mut stats.probe_lines)
            .map_err(ReadError::at(&path))?
            .map(|(_, t, _)| t);
        if let (Some(first), Some(stop)) = (first, stop_at)
            && first >= stop
        {
            stats.files_skipped += 1;
            continue;
        }
        if let Some(from) = read_from {
            let last = read::last_record(&path, len, &mut stats.probe_lines, |r| r.time.is_some())
                .map_err(ReadError::at(&path))?;
            if last.and_then(|r| r.time).is_some_and(|t| t < from) {
                stats.files_skipped += 1;
                continue;
            }
        }
        files.push(TrailFile { path, len, first });
    }
    // Opened in the order of their first records (files without a time first).
    files.sort_by_key(|f| f.first);
    let mut pending = files.into_iter().peekable();
    // Streams being read (`None` once done) and the next entry of each.
    let mut streams: Vec<Option<FileStream>> = Vec::new();
    let mut heads: Vec<Option<Entry>> = Vec::new();
    let mut heap: BinaryHeap<Reverse<(Option<Timestamp>, usize)>> = BinaryHeap::new();
    loop {
        // Open every file whose first record is not later than the next entry.
        while let Some(f) =
            pending.next_if(|f| heap.peek().is_none_or(|Reverse((key, _))| f.first <= *key))
        {
            let err = ReadError::at(&f.path);
            let from = match read_from {
                Some(t) => read::seek_time(&f.path, f.len, t, &mut stats.probe_lines),
                None => Ok(0),
            };
            let mut stream = FileStream {
                lines: from
                    .and_then(|from| Lines::new(&f.path, from, f.len))
                    .map_err(err)?,
                queue: VecDeque::new(),
                first_seq: 0,
                open: HashMap::new(),
                waiting: HashMap::new(),
                scratch: String::new(),
                clock: None,
                stop_at,
                entered_at: None,
                done: false,
            };
            if stream.lines.offset() > 0 {
                stream.entered_at = read_from;
            }
            let i = streams.len();
            heads.push(None);
            let more = advance(&mut stream, i, &mut heads, &mut heap, &mut stats)?;
            streams.push(more.then_some(stream));
        }
        let Some(Reverse((_, i))) = heap.pop() else {
            break;
        };
        let Some(entry) = heads[i].take() else {
            continue;
        };
        if let Some(stream) = &mut streams[i]
            && !advance(stream, i, &mut heads, &mut heap, &mut stats)?
        {
            // Done: its buffer and waiting calls go.
            streams[i] = None;
        }
        if filter.matches(&entry) && sink(entry).is_break() {
            break;
        }
    }
    Ok(stats)
}

/// Reads stream `i`'s next entry into `heads` and the merge heap; returns false at its end.
fn advance(
    stream: &mut FileStream,
    i: usize,
    heads: &mut [Option<Entry>],
    heap: &mut BinaryHeap<Reverse<(Option<Timestamp>, usize)>>,
    stats: &mut Stats,
) -> Result<bool, ReadError> {
    let next = stream
        .next(stats)
        .map_err(ReadError::at(stream.lines.path()))?;
    let more = next.is_some();
    if let Some(n) = &next {
        heap.push(Reverse((n.key, i)));
    }
    heads[i] = next;
    Ok(more)
}
