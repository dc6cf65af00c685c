//! Fuzzes the hook's hot path: arbitrary bytes on stdin, in a temp OATH_HOME, HOME and
//! project. Any caught panic ("internal error"), an exit code other than 0 (oath answers
//! every event with exit 0, a deny included), or an answer naming another event is a finding.

#![no_main]

use std::sync::Mutex;

mod parser_panics;

use libfuzzer_sys::fuzz_target;
use oath::clock::Timestamp;
use oath::hook::{Ctx, run_guarded};
use oath::protocol::EventName;

/// The temp environment, replaced every few hundred runs so the state stays small.
static DIR: Mutex<Option<(tempfile::TempDir, u32)>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    parser_panics::let_parser_panics_reach_the_guard();
    let mut guard = DIR.lock().unwrap_or_else(|e| e.into_inner());
    if guard.as_ref().is_none_or(|(_, runs)| *runs >= 500) {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("project")).expect("project dir");
        *guard = Some((dir, 0));
    }
    let Some((dir, runs)) = guard.as_mut() else {
        return;
    };
    *runs += 1;
    // Input starting like JSON is stdin as it is (so hook payloads seed the corpus);
    // otherwise the first byte picks the event named on the command line and the rest is stdin.
    let (hint, payload) = match data.split_first() {
        Some((b'{' | b' ' | b'\n', _)) | None => (None, data),
        Some((&b, rest)) => {
            let known = EventName::KNOWN;
            let hint = known.get(usize::from(b) % (known.len() + 1)).copied();
            (hint, rest)
        }
    };
    let ctx = Ctx::in_dir(
        dir.path(),
        Timestamp::from_unix(1_772_366_400),
        hint.map(str::to_owned),
    );
    let answer = run_guarded(payload, &ctx);
    if let Some(line) = answer
        .stderr_lines()
        .iter()
        .find(|l| l.contains("internal error"))
    {
        panic!("caught panic: {line}");
    }
    let code = answer.exit_code();
    assert_eq!(code, 0, "exit {code}");
    if answer.permission().is_some() {
        assert_eq!(answer.event(), &EventName::PreToolUse);
    }
    if let Some(json) = answer.to_json() {
        assert!(json.is_object());
        if let Some(name) = json["hookSpecificOutput"].get("hookEventName") {
            assert_eq!(name.as_str(), Some(answer.event().as_str()));
        }
    }
});
