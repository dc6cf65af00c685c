//! KPT retrospectives as `oath.kpt` log records: one per valid report (a draft still holding
//! placeholders, or an invalid file, waits), sent again only when its text changes. The
//! cursor is the set of reports sent, each with the hash of its text
//! (`export/otlp/kpt.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::otlp::{AnyValue, LogRecord};
use super::settings::Settings;
use super::{Summary, Transport, encode};
use crate::clock::Timestamp;
use crate::kpt::report::{self, Report};
use crate::state;

/// Maps a validated report to a log record. Pure.
pub fn report_record(r: &Report, id: String) -> LogRecord {
    let name = "oath.kpt".to_owned();
    let mut attributes = vec![("event.name".to_owned(), AnyValue::Str(name.clone()))];
    if let Some(s) = &r.session_id {
        attributes.push(("session.id".into(), AnyValue::Str(s.clone())));
    }
    let outcome = serde_json::to_value(r.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let count = |n: usize| AnyValue::Int(i64::try_from(n).unwrap_or(i64::MAX));
    attributes.extend([
        ("oath.record_id".into(), AnyValue::Str(id)),
        ("oath.kpt.id".into(), AnyValue::Str(r.id.clone())),
        ("oath.outcome".into(), AnyValue::Str(outcome)),
        ("oath.kpt.keep".into(), count(r.keep.len())),
        ("oath.kpt.problem".into(), count(r.problem.len())),
        ("oath.kpt.try".into(), count(r.tries.len())),
        ("oath.kpt.omission".into(), count(r.omission.len())),
        (
            "oath.session_summary".into(),
            AnyValue::Str(crate::redact::redact_str(&r.session_summary).into_owned()),
        ),
    ]);
    LogRecord {
        time_unix_nano: Timestamp::parse(&r.created_at)
            .and_then(|t| u64::try_from(t.unix_millis().checked_mul(1_000_000)?).ok())
            .unwrap_or(0),
        severity: (9, "INFO"),
        event_name: name,
        attributes,
    }
}

/// Sends the valid reports of `dir` not sent yet (or changed since); with `session` given,
/// only those of the sessions it accepts.
pub fn run(
    state_root: &Path,
    dir: &Path,
    session: Option<&dyn Fn(&str) -> bool>,
    settings: &Settings,
    transport: &mut dyn Transport,
    move_cursors: bool,
    summary: &mut Summary,
) -> Result<(), String> {
    let cursor_file = state_root.join("export/otlp/kpt.json");
    let now = Timestamp::now();
    let mut warnings = Vec::new();
    let _lock = match super::take_turn(&cursor_file, move_cursors, now, &mut warnings)? {
        super::Turn::Mine(lock) => lock,
        super::Turn::Busy => {
            summary.busy += 1;
            return Ok(());
        }
    };
    let mut sent: BTreeMap<String, String> = match state::read_json(&cursor_file) {
        state::ReadOutcome::Ok(m) => m,
        _ => BTreeMap::new(),
    };
    let mut batch = Vec::new();
    let mut marks = Vec::new();
    for path in report_files(dir) {
        let Some(stem) = crate::kpt::file_stem(&path) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let hash = blake3::hash(text.as_bytes()).to_hex()[..32].to_owned();
        if sent.get(&stem) == Some(&hash) {
            continue;
        }
        let Ok(r) = report::validate(&text, Some(&stem)) else {
            continue;
        };
        if let (Some(accept), Some(s)) = (session, &r.session_id)
            && !accept(s)
        {
            continue;
        }
        if session.is_some() && r.session_id.is_none() {
            continue;
        }
        let id = blake3::hash(format!("kpt\0{stem}\0{text}").as_bytes()).to_hex()[..32].to_owned();
        batch.push(report_record(&r, id));
        marks.push((stem, hash));
        if batch.len() == super::MAX_RECORDS {
            break;
        }
    }
    if batch.is_empty() {
        return Ok(());
    }
    summary.requests += 1;
    match transport.send(encode(settings, &batch)) {
        Ok(()) => summary.records += batch.len() as u64,
        // Malformed for this collector: counted and reported, not sent again.
        Err(super::SendError::Rejected(m)) => {
            summary.rejected += batch.len() as u64;
            summary.rejections.push(m);
        }
        Err(e) => return Err(e.message().to_owned()),
    }
    if move_cursors {
        sent.extend(marks);
        let mut text = serde_json::to_vec(&sent).map_err(|e| e.to_string())?;
        text.push(b'\n');
        state::write_raw_atomic(&cursor_file, &text).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The `kpt-*.yaml` files of a folder, sorted.
fn report_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "yaml")
                        && crate::kpt::file_stem(p).is_some_and(|s| s.starts_with("kpt-"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
