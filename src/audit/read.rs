//! Reading audit files back, in bounded memory: lines read block by block, records parsed for
//! the few fields that join, filter and order them (the rest kept as text), and the probes that
//! find where a time window starts in a file without reading what comes before it.
//!
//! This is the CLI's side (`oath audit`, KPT drafts, the demo); the hook only appends
//! ([`super::append`]).

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::clock::Timestamp;

/// Bytes read at a time.
pub const BLOCK: usize = 64 * 1024;

/// An audit file that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", path.display())]
pub struct ReadError {
    /// The file or folder.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: io::Error,
}

impl ReadError {
    /// Returns a closure that wraps an I/O error of `path`.
    pub fn at(path: &Path) -> impl FnOnce(io::Error) -> Self + '_ {
        move |source| Self {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Lines of a file from an offset up to an end offset, read a block at a time. The file is
/// opened for each block and closed again, so that any number of cursors may be parked at
/// once without holding a descriptor each.
#[derive(Debug)]
pub struct Lines {
    path: PathBuf,
    /// File offset of `buf[0]`.
    base: u64,
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    head: usize,
    /// Where reading stops (the file's size when it was listed).
    end: u64,
}

impl Lines {
    /// Returns the lines starting at or after `from` (a line `from` falls inside is skipped)
    /// and before `end`.
    pub fn new(path: &Path, from: u64, end: u64) -> io::Result<Self> {
        let mut lines = Self {
            path: path.to_path_buf(),
            base: from.saturating_sub(1).min(end),
            buf: Vec::new(),
            head: 0,
            end,
        };
        if from > 0 {
            // The line holding byte `from - 1` ends at or after it: skip it, so that the next
            // line starts at or after `from`.
            lines.next_line()?;
        }
        Ok(lines)
    }

    /// Returns the file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Returns the offset of the next line's first byte.
    pub fn offset(&self) -> u64 {
        self.base + self.head as u64
    }

    /// Reads the next block after what `buf` holds; returns false at the end.
    fn fill(&mut self) -> io::Result<bool> {
        let at = self.base + self.buf.len() as u64;
        if at >= self.end {
            return Ok(false);
        }
        // Drop what was consumed, keeping a partial line.
        if self.head > 0 {
            self.buf.drain(..self.head);
            self.base += self.head as u64;
            self.head = 0;
        }
        let want = BLOCK.min(usize::try_from(self.end - at).unwrap_or(BLOCK));
        let got = read_at(&self.path, at, want, &mut self.buf)?;
        if got == 0 {
            // The file shrank: nothing more to read.
            self.end = at;
        }
        Ok(got > 0)
    }

    /// Returns the next line (without its line end) and the offset it starts at.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        let mut searched = self.head;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[searched..]) {
                let start = self.head;
                let stop = searched + i;
                self.head = stop + 1;
                return Ok(Some((self.base + start as u64, &self.buf[start..stop])));
            }
            searched = self.buf.len();
            let before = self.head;
            if !self.fill()? {
                if self.head == self.buf.len() {
                    return Ok(None);
                }
                // The last line, without a line end.
                let start = self.head;
                self.head = self.buf.len();
                return Ok(Some((self.base + start as u64, &self.buf[start..])));
            }
            // `fill` moved the unread part to the front of `buf`.
            searched -= before - self.head;
        }
    }
}

/// Appends up to `want` bytes of `path` from offset `at` to `buf`; returns how many.
fn read_at(path: &Path, at: u64, want: usize, buf: &mut Vec<u8>) -> io::Result<usize> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(at))?;
    let len = buf.len();
    f.take(want as u64).read_to_end(buf)?;
    Ok(buf.len() - len)
}

/// A field of a record as far as reading back needs it: a string, a number, or anything else.
#[derive(Debug, Default)]
enum Field<'a> {
    Str(Cow<'a, str>),
    Num(f64),
    #[default]
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor(PhantomData))
    }
}

struct FieldVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for FieldVisitor<'a> {
    type Value = Field<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Field::Other)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Field::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Field::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Field::Num(v))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Other)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Other)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Field::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Field::Other)
    }
}

impl Field<'_> {
    fn str(&self) -> Option<&str> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }
    fn own(&self) -> Option<Box<str>> {
        self.str().map(Box::from)
    }
}

/// The fields of a record read back; the rest is skipped (and checked to be valid JSON).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Head<'a> {
    #[serde(borrow)]
    kind: Field<'a>,
    #[serde(borrow)]
    timestamp: Field<'a>,
    #[serde(borrow)]
    session_id: Field<'a>,
    #[serde(borrow)]
    tool_use_id: Field<'a>,
    #[serde(borrow)]
    decision: Field<'a>,
    #[serde(borrow)]
    domain: Field<'a>,
    #[serde(borrow)]
    duration_ms: Field<'a>,
    #[serde(borrow)]
    call_key: Field<'a>,
}

/// One record of an audit file: its text and the fields that join, filter and order it.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line: one JSON object.
    pub raw: Box<str>,
    /// `kind` (`pre`, `outcome`, `event`, ...).
    pub kind: Option<Box<str>>,
    /// `timestamp`, when it is a valid instant.
    pub time: Option<Timestamp>,
    /// `session_id`.
    pub session: Option<Box<str>>,
    /// `tool_use_id`.
    pub tool_use_id: Option<Box<str>>,
    /// `decision` (pre records).
    pub decision: Option<Box<str>>,
    /// `domain`.
    pub domain: Option<Box<str>>,
    /// `duration_ms` (outcome records, when Claude Code sent it).
    pub duration_ms: Option<f64>,
    /// `call_key` (pre and outcome records of a call the client gave no id).
    pub call_key: Option<Box<str>>,
}

impl Record {
    /// Parses one line; `None` when it is not a JSON object. Invalid UTF-8 is replaced.
    pub fn parse(line: &[u8]) -> Option<Self> {
        // `from_utf8` first: it checks ASCII a word at a time, `from_utf8_lossy` byte by byte.
        let text = match std::str::from_utf8(line) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(line),
        };
        let text = text.trim();
        if !text.starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Head>(text) {
            Ok(h) => Some(Self {
                raw: text.into(),
                kind: h.kind.own(),
                time: h.timestamp.str().and_then(Timestamp::parse),
                session: h.session_id.own(),
                tool_use_id: h.tool_use_id.own(),
                decision: h.decision.own(),
                domain: h.domain.own(),
                duration_ms: match h.duration_ms {
                    Field::Num(n) => Some(n),
                    _ => None,
                },
                call_key: h.call_key.own(),
            }),
            // A field given twice (which a map keeps the last of) or of a shape `Head`
            // refuses: read it the general way.
            Err(_) => Self::from_value(text),
        }
    }

    fn from_value(text: &str) -> Option<Self> {
        let v: Value = serde_json::from_str(text).ok()?;
        let s = |k: &str| v[k].as_str().map(Box::from);
        v.is_object().then(|| Self {
            raw: text.into(),
            kind: s("kind"),
            time: v["timestamp"].as_str().and_then(Timestamp::parse),
            session: s("session_id"),
            tool_use_id: s("tool_use_id"),
            decision: s("decision"),
            domain: s("domain"),
            duration_ms: v["duration_ms"].as_f64(),
            call_key: s("call_key"),
        })
    }

    /// Returns the whole record as a JSON value.
    pub fn value(&self) -> Value {
        // `raw` parsed as a JSON object when the record was read.
        serde_json::from_str(&self.raw).unwrap_or(Value::Null)
    }
}

/// Whether a line holds nothing but white space (such lines are not counted as unreadable).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Returns the first record with a time among the lines of a file (of `len` bytes) that start
/// at or after `from` and before `to`: its offset, time and the offset of the line after it.
/// `parsed` counts the lines parsed.
pub fn first_time_from(
    path: &Path,
    (from, to): (u64, u64),
    len: u64,
    parsed: &mut u64,
) -> io::Result<Option<(u64, Timestamp, u64)>> {
    let mut lines = Lines::new(path, from, len)?;
    while let Some((start, line)) = lines.next_line()? {
        if start >= to {
            break;
        }
        if is_blank(line) {
            continue;
        }
        *parsed += 1;
        if let Some(t) = Record::parse(line).and_then(|r| r.time) {
            return Ok(Some((start, t, lines.offset())));
        }
    }
    Ok(None)
}

/// Returns the last record of the first `len` bytes of a file for which `keep` holds, reading
/// backwards a block at a time. `parsed` counts the lines parsed.
pub fn last_record(
    path: &Path,
    len: u64,
    parsed: &mut u64,
    keep: impl Fn(&Record) -> bool,
) -> io::Result<Option<Record>> {
    let mut end = len;
    // The bytes from `end` up to the lines already looked at: the start of a line whose
    // beginning is in a block not read yet.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let start = end.saturating_sub(BLOCK as u64);
        let mut block = Vec::with_capacity(BLOCK + carry.len());
        read_at(path, start, (end - start) as usize, &mut block)?;
        block.extend_from_slice(&carry);
        let mut stop = block.len();
        // Lines from the last back; the first one is whole only at the file's start.
        while let Some(nl) = memchr::memrchr(b'\n', &block[..stop]) {
            let line = &block[nl + 1..stop];
            stop = nl;
            if is_blank(line) {
                continue;
            }
            *parsed += 1;
            if let Some(r) = Record::parse(line).filter(&keep) {
                return Ok(Some(r));
            }
        }
        if start == 0 {
            let line = &block[..stop];
            if is_blank(line) {
                return Ok(None);
            }
            *parsed += 1;
            return Ok(Record::parse(line).filter(&keep));
        }
        block.truncate(stop);
        carry = block;
        end = start;
    }
}

/// Returns an offset of a line at or before the first record of a file (of `len` bytes) whose
/// time is at or after `target`, by bisecting on line starts; a file's records are appended in
/// time order (the caller leaves a margin for writers slightly out of order). Reading from the
/// offset returned may read up to [`BLOCK`] bytes of earlier records. `parsed` counts the lines
/// parsed.
pub fn seek_time(path: &Path, len: u64, target: Timestamp, parsed: &mut u64) -> io::Result<u64> {
    // The first record at or after `target` starts in [lo, hi]; `lo` is a line start.
    let (mut lo, mut hi) = (0u64, len);
    // (A record before `target` whose line ends past `hi` moves `lo` past `hi`: reading
    // from there is right, as every record before it is older.)
    while hi.saturating_sub(lo) > BLOCK as u64 {
        let mid = lo + (hi - lo) / 2;
        match first_time_from(path, (mid, hi), len, parsed)? {
            Some((_, t, next)) if t < target => lo = next,
            Some((start, _, _)) => hi = start,
            // No record with a time starts in [mid, hi): reading from `lo` reads them all.
            None => hi = mid,
        }
    }
    Ok(lo)
}

/// The records of one file, oldest first, without their fields picked out: unreadable lines
/// and lines that are not JSON objects are skipped. A missing file has none.
pub fn values(path: &Path) -> Result<impl Iterator<Item = Value>, ReadError> {
    let len = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
        Err(e) => return Err(ReadError::at(path)(e)),
    };
    let mut lines = Lines::new(path, 0, len).map_err(ReadError::at(path))?;
    Ok(std::iter::from_fn(move || {
        loop {
            // A read error ends the records (what was read is kept).
            let (_, line) = lines.next_line().ok()??;
            if let Ok(v @ Value::Object(_)) = serde_json::from_str(&String::from_utf8_lossy(line)) {
                return Some(v);
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(lines: &[String]) -> (tempfile::TempDir, PathBuf, u64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        (dir, path, text.len() as u64)
    }

    fn rec(secs: i64, pad: usize) -> String {
        serde_json::json!({"v": 1, "kind": "pre", "timestamp": Timestamp::from_unix(secs).iso_millis(),
                           "pad": "x".repeat(pad)})
        .to_string()
    }

    #[test]
    fn lines_cross_blocks_and_keep_a_last_line_without_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let long = "y".repeat(3 * BLOCK + 7);
        std::fs::write(&path, format!("a\n{long}\n\nlast")).unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        let mut lines = Lines::new(&path, 0, len).unwrap();
        let mut got = Vec::new();
        while let Some((at, l)) = lines.next_line().unwrap() {
            got.push((at, l.len()));
        }
        let long_at = 2u64;
        let empty_at = long_at + long.len() as u64 + 1;
        assert_eq!(
            got,
            vec![
                (0, 1),
                (long_at, long.len()),
                (empty_at, 0),
                (empty_at + 1, 4)
            ]
        );
        // From inside the long line: the next line is the empty one.
        let mut lines = Lines::new(&path, 5, len).unwrap();
        assert_eq!(lines.next_line().unwrap().unwrap().0, empty_at);
        // From a line start: that line.
        let mut lines = Lines::new(&path, long_at, len).unwrap();
        assert_eq!(lines.next_line().unwrap().unwrap().0, long_at);
    }

    #[test]
    fn fields_of_any_type_are_read_leniently() {
        let r = Record::parse(br#"{"kind":"pre","session_id":5,"tool_use_id":null,"decision":{"a":[1]},"domain":"x\u0041","duration_ms":12,"timestamp":"2026-03-01T10:00:00.000Z"}"#).unwrap();
        assert_eq!(r.kind.as_deref(), Some("pre"));
        assert_eq!(r.session, None);
        assert_eq!(r.tool_use_id, None);
        assert_eq!(r.decision, None);
        assert_eq!(r.domain.as_deref(), Some("xA"));
        assert_eq!(r.duration_ms, Some(12.0));
        assert_eq!(r.time, Timestamp::parse("2026-03-01T10:00:00Z"));
        // A field given twice: the last one, as a JSON map keeps it.
        let r = Record::parse(br#"{"kind":"pre","kind":"outcome"}"#).unwrap();
        assert_eq!(r.kind.as_deref(), Some("outcome"));
        for bad in [&b"[1,2]"[..], b"\"s\"", b"{\"a\":", b"nonsense", b"{} x"] {
            assert!(
                Record::parse(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // Invalid UTF-8 is replaced, as the whole line would be.
        let r = Record::parse(b"{\"kind\":\"ev\xffent\"}").unwrap();
        assert_eq!(r.kind.as_deref(), Some("ev\u{fffd}ent"));
    }

    #[test]
    fn the_window_is_found_without_reading_the_file() {
        let lines: Vec<String> = (0..20_000).map(|i| rec(i * 10, 100)).collect();
        let (_d, path, len) = write(&lines);
        for target in [0, 5, 10, 77_775, 100_000, 199_990, 250_000] {
            let mut parsed = 0;
            let at = seek_time(&path, len, Timestamp::from_unix(target), &mut parsed).unwrap();
            assert!(parsed < 100, "{target}: {parsed} lines parsed");
            // Every record at or after the target is at or after the offset, and at most a
            // block of earlier ones.
            let mut read = Lines::new(&path, at, len).unwrap();
            let (first_at, first) = read.next_line().map(|l| l.unwrap()).unwrap();
            assert_eq!(first_at, at);
            let first = Record::parse(first).unwrap().time.unwrap();
            assert!(first <= Timestamp::from_unix(target), "{target}");
            let skipped_to = (target / 10).min(20_000) as usize;
            let bytes_before: usize = lines[..skipped_to].iter().map(|l| l.len() + 1).sum();
            assert!(bytes_before as u64 - at <= BLOCK as u64 + 200, "{target}");
        }
    }

    #[test]
    fn garbage_and_lines_without_time_do_not_hide_records() {
        let mut lines: Vec<String> = (0..3000).map(|i| rec(i, 200)).collect();
        for l in &mut lines[1000..2500] {
            *l = "garbage".into();
        }
        let (_d, path, len) = write(&lines);
        let mut parsed = 0;
        let at = seek_time(&path, len, Timestamp::from_unix(2600), &mut parsed).unwrap();
        let mut read = Lines::new(&path, at, len).unwrap();
        let mut seen = Vec::new();
        while let Some((_, l)) = read.next_line().unwrap() {
            if let Some(t) = Record::parse(l).and_then(|r| r.time) {
                seen.push(t.unix());
            }
        }
        assert!(seen.contains(&2600) && seen.contains(&2999));
        let at = seek_time(&path, len, Timestamp::from_unix(1500), &mut parsed).unwrap();
        let mut read = Lines::new(&path, at, len).unwrap();
        let first = Record::parse(read.next_line().unwrap().unwrap().1).unwrap();
        assert!(
            first.time.unwrap().unix() < 1000,
            "records in the garbage's place"
        );
    }

    #[test]
    fn the_last_record_is_found_from_the_end() {
        let mut lines: Vec<String> = (0..2000).map(|i| rec(i, 300)).collect();
        lines.push("torn {\"kind".into());
        lines.push(String::new());
        let (_d, path, len) = write(&lines);
        let mut parsed = 0;
        let last = last_record(&path, len, &mut parsed, |r| r.time.is_some()).unwrap();
        assert_eq!(last.unwrap().time.unwrap().unix(), 1999);
        assert_eq!(parsed, 2);
        let first = last_record(&path, len, &mut parsed, |r| r.time.unwrap().unix() == 0);
        assert_eq!(first.unwrap().unwrap().time.unwrap().unix(), 0);
        let none = last_record(&path, 0, &mut parsed, |_| true).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn values_stream_objects_only() {
        let (_d, path, _) = write(&["{\"a\":1}".into(), "[1]".into(), "x".into(), "{}".into()]);
        let v: Vec<Value> = values(&path).unwrap().collect();
        assert_eq!(v, vec![serde_json::json!({"a": 1}), serde_json::json!({})]);
        assert_eq!(values(&path.with_extension("none")).unwrap().count(), 0);
    }
}
