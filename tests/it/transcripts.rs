//! Real transcripts of several Claude Code versions (1.0.98 to 2.1.39, the earlier pin 2.1.197
//! and the pinned 2.1.332):
//! hand-checked counts, tokens equal to ccusage's, drafts that reason about intent, and a
//! large transcript counted exactly in one run in bounded memory.
//!
//! How the counts were checked: every number below was recounted by a separate Python script
//! over the raw lines (uuid-deduplicated; `tool_result` blocks classified by `is_error`,
//! `toolDenialKind` and the wordings listed in `src/transcript/verdict.rs`; prompts by the
//! rules of `src/transcript/prompts.rs`), and the lines it counted were read one by one for the
//! errors, denials, cascades and prompts (their line numbers are in the comments). Tokens are
//! what ccusage 20.0.24 reports (`ccusage claude daily --json --offline -z UTC` with
//! `CLAUDE_CONFIG_DIR` holding only a copy of the folder, subagent files included, as
//! ccusage reads them).

use std::path::{Path, PathBuf};
use std::time::Instant;

use oath::kpt::{draft, report, session};
use oath::transcript::{Counts, FactKind};
use serde_json::Value;

use crate::support::{fixtures_dir, oath_bin};

/// The main transcript of a folder (`T04-spotter`) of the real transcripts.
fn transcript(folder: &str) -> PathBuf {
    let dir = fixtures_dir().join("real-transcripts").join(folder);
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap_or_else(|| panic!("no transcript in {}", dir.display()))
}

/// The session record of a transcript and its subagents, read whole as `oath kpt` does.
fn record(path: PathBuf) -> session::SessionRecord {
    let mut r = session::SessionRecord {
        session_id: "s".into(),
        transcript_path: Some(path),
        ..Default::default()
    };
    session::refresh(&mut r, &mut Vec::new(), None);
    r
}

/// What a transcript's counts must be.
struct Expected {
    folder: &'static str,
    user_turns: u32,
    assistant_turns: u32,
    tool_uses: u32,
    errors: u32,
    denials: u32,
    rejections: u32,
    interrupts: u32,
    cascades: u32,
    /// input, output, cache creation, cache read.
    tokens: [u64; 4],
}

const EXPECTED: &[Expected] = &[
    // 2.1.39. Prompts at 7, 1484 (`/compact` with arguments) and 1491. Errors 259 and 1300
    // (Edit: string not found), 916 (Exit code 1), 2186 (File does not exist). Denials: 661,
    // 1209, 1343, 1366, 1389, 1419, 1447, 1463, "Pre-commit validation failed: …" of
    // `git commit`, the reason of the PreToolUse:Bash hook that ran for that very call.
    Expected {
        folder: "T01-spotter",
        user_turns: 3,
        assistant_turns: 217,
        tool_uses: 254,
        errors: 4,
        denials: 8,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [2653, 49482, 377624, 16600744],
    },
    // 2.1.39. Prompts at 7 and 671 (664 is a task notification). Errors 401, 494, 519, 639,
    // 1032, 1105, 1781; the hook's deny at 1358.
    Expected {
        folder: "T02-spotter",
        user_turns: 2,
        assistant_turns: 157,
        tool_uses: 243,
        errors: 7,
        denials: 1,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [1627, 36307, 360809, 16175673],
    },
    // 2.1.39. One prompt (6; 1588 is a task notification). Errors: main 69, 321, 568, 791,
    // 1091, 1133, 1180, 1243, 1327, 1357, 1392, 1564 and agent-a7be2f0 line 23; cascades
    // "Sibling tool call errored" at main 1092 and agent-a7be2f0 line 24.
    Expected {
        folder: "T04-spotter",
        user_turns: 1,
        assistant_turns: 143,
        tool_uses: 196,
        errors: 13,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 2,
        tokens: [2578, 40359, 276819, 16207141],
    },
    // 1.0.98. Prompts: `/orchestrator create TODO app by Next.js` (2) and 434. All 23 errors
    // are in the inline sidechains (78 … 412).
    Expected {
        folder: "T06-ccviewer",
        user_turns: 2,
        assistant_turns: 9,
        tool_uses: 167,
        errors: 23,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [818, 51933, 137976, 3647854],
    },
    // 1.0.108. One prompt: `/orchestrator` with Japanese arguments only (1). Errors 15 (Task
    // InputValidationError), 33 (sidechain Bash), 46 (Edit before Read).
    Expected {
        folder: "T07-ccviewer",
        user_turns: 1,
        assistant_turns: 10,
        tool_uses: 21,
        errors: 3,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [129, 3629, 47747, 324259],
    },
    // 2.0.13. One prompt (6); `/clear` (3) and `/compact` (14) have no arguments; 4 and 15
    // are command output, 2 and 13 caveats, 12 the compact summary.
    Expected {
        folder: "T09-agentlogs-compact",
        user_turns: 1,
        assistant_turns: 1,
        tool_uses: 0,
        errors: 0,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [10, 148, 2128, 13522],
    },
    Expected {
        folder: "T10-agentlogs-crud",
        user_turns: 1,
        assistant_turns: 10,
        tool_uses: 9,
        errors: 0,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [25, 1508, 12593, 148958],
    },
    Expected {
        folder: "T11-agentlogs-images",
        user_turns: 1,
        assistant_turns: 3,
        tool_uses: 2,
        errors: 0,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [26, 145, 5927, 67843],
    },
    Expected {
        folder: "T12-agentlogs-subagent",
        user_turns: 1,
        assistant_turns: 2,
        tool_uses: 1,
        errors: 0,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [24, 276, 23122, 20952],
    },
    Expected {
        folder: "T13-agentlogs-todos",
        user_turns: 1,
        assistant_turns: 6,
        tool_uses: 5,
        errors: 0,
        denials: 0,
        rejections: 0,
        interrupts: 0,
        cascades: 0,
        tokens: [24, 660, 2151, 87863],
    },
];

fn check(c: &Counts, e: &Expected) {
    let got = (
        c.user_turns,
        c.assistant_turns,
        c.tool_use_count,
        c.error_count,
        c.permission_denial_count,
        c.rejection_count,
        c.interrupt_count,
        c.cascade_count,
    );
    let want = (
        e.user_turns,
        e.assistant_turns,
        e.tool_uses,
        e.errors,
        e.denials,
        e.rejections,
        e.interrupts,
        e.cascades,
    );
    assert_eq!(
        got, want,
        "{}: (user, assistant, tools, errors, denials, rejections, interrupts, cascades)",
        e.folder
    );
    let t = &c.tokens;
    assert_eq!(
        [
            t.input_tokens,
            t.output_tokens,
            t.cache_creation_input_tokens,
            t.cache_read_input_tokens
        ],
        e.tokens,
        "{}: tokens (ccusage 20.0.24)",
        e.folder
    );
    assert_eq!((c.invalid_lines, c.skipped_lines), (0, 0), "{}", e.folder);
}

#[test]
fn real_transcripts_have_their_hand_checked_counts_and_ccusage_tokens() {
    for e in EXPECTED {
        check(&record(transcript(e.folder)).counts(), e);
    }
}

/// The earlier pinned client (2.1.197), recorded against a mock API that sends no request id: ccusage
/// counts each line there (130 and 65); the API bills once per message, as the client's own
/// `result.json` says.
#[test]
fn the_pinned_clients_tokens_equal_its_own_result() {
    let dir = fixtures_dir().join("claude-code-2.1.197/session-a");
    let c = record(dir.join("transcript.jsonl")).counts();
    check(
        &c,
        &Expected {
            folder: "session-a",
            user_turns: 1,
            assistant_turns: 11,
            tool_uses: 10,
            errors: 4,
            denials: 0,
            rejections: 0,
            interrupts: 0,
            cascades: 0,
            tokens: [110, 55, 0, 0],
        },
    );
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["usage"]["input_tokens"], 110);
    assert_eq!(result["usage"]["output_tokens"], 55);
}

/// The transcript captured from 2.1.332 (`claude-code-2.1.332/session-a`), counted by hand:
/// one prompt (`/greet world`, a slash command), 14 model turns (13 calling tools, 14 tool
/// uses, Edit and two Writes changing code; then the closing text), the failing build, and
/// the settings write the client refused in `-p` mode; the mock API billed 10 and 5 tokens a
/// turn. Every call a hook allowed carries `permissionDecision.source: "hook"`
/// there: none of them is a denial.
#[test]
fn the_2_1_332_transcript_has_its_hand_checked_counts() {
    let dir = fixtures_dir().join("claude-code-2.1.332/session-a");
    let c = record(dir.join("transcript.jsonl")).counts();
    assert_eq!((c.user_turns, c.assistant_turns), (1, 14));
    assert_eq!(c.tool_use_count, 14);
    assert_eq!(c.error_count, 1);
    assert_eq!(c.permission_denial_count, 1);
    assert_eq!(c.code_changes_count, 3);
    assert_eq!(
        (c.rejection_count, c.interrupt_count, c.cascade_count),
        (0, 0, 0)
    );
    assert_eq!((c.invalid_lines, c.skipped_lines), (0, 0));
    assert_eq!((c.tokens.input_tokens, c.tokens.output_tokens), (140, 70));
}

/// T09's lines are not in time order (a compaction wrote 21:56:01.409 after 21:56:01.418):
/// the duration runs from the earliest (line 3) to the latest (line 15, 21:57:52.066).
#[test]
fn duration_runs_from_the_earliest_timestamp() {
    let c = record(transcript("T09-agentlogs-compact")).counts();
    assert_eq!(
        c.first_timestamp.as_deref(),
        Some("2025-10-10T21:56:01.409Z")
    );
    assert_eq!(c.duration_ms(), Some(110_657));
}

/// The session's goal is its first prompt, a slash command's arguments included.
#[test]
fn a_slash_command_with_arguments_is_the_goal() {
    let r = record(transcript("T06-ccviewer"));
    assert_eq!(
        r.main.tally.first_prompt.as_deref(),
        Some("/orchestrator create TODO app by Next.js")
    );
    let r = record(transcript("T07-ccviewer"));
    assert!(
        r.main
            .tally
            .first_prompt
            .as_deref()
            .is_some_and(|p| p.starts_with("/orchestrator @CLAUDE.md を最新の状態に")),
        "{:?}",
        r.main.tally.first_prompt
    );
}

/// Lines of each kind, as the newest client (2.1.332) writes them: the wordings and fields
/// are those of its binary (`toolDenialKind`, `permissionDecision`, the -p ask's message).
#[test]
fn newest_client_shapes_are_told_apart() {
    let call = |n: u32, cmd: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"a{n}","version":"2.1.332","message":{{"id":"m{n}","content":[{{"type":"tool_use","id":"t{n}","name":"Bash","input":{{"command":"{cmd}"}}}}]}}}}"#
        )
    };
    let result = |n: u32, extra: &str, text: &str| {
        format!(
            r#"{{"type":"user","uuid":"r{n}","version":"2.1.332",{extra}"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{n}","content":"{text}","is_error":true}}]}}}}"#
        )
    };
    let lines = [
        r#"{"type":"user","uuid":"u0","version":"2.1.332","origin":{"kind":"human"},"message":{"role":"user","content":"Push the fix"}}"#.to_owned(),
        call(1, "git push --force"),
        result(
            1,
            r#""toolDenialKind":"user-rejected","#,
            "Claude requested permissions to use Bash, but you haven't granted it yet.",
        ),
        call(2, "rm -rf build"),
        result(
            2,
            r#""toolDenialKind":"permission-rule","permissionDecision":{"decision":"reject","source":"hook"},"#,
            "PreToolUse:Bash hook error: [oath hook]: deletes the build",
        ),
        call(3, "cargo test"),
        result(3, "", "Exit code 101"),
        call(4, "cargo clippy"),
        result(
            4,
            r#""toolDenialKind":"cancelled","#,
            "[Tool call skipped: the turn was stopped before this call ran]",
        ),
        call(5, "cargo fmt"),
        result(
            5,
            r#""toolDenialKind":"user-rejected","#,
            "The user doesn't want to proceed with this tool use. The tool use was rejected",
        ),
        call(6, "sleep 100"),
        result(
            6,
            r#""toolDenialKind":"interrupted","#,
            "[Tool call interrupted]",
        ),
        r#"{"type":"attachment","uuid":"q1","version":"2.1.332","attachment":{"type":"queued_command","prompt":"and update the changelog","commandMode":"prompt","origin":{"kind":"human"}}}"#.to_owned(),
        r#"{"type":"user","uuid":"u9","version":"2.1.332","origin":{"kind":"peer","from":"x"},"message":{"role":"user","content":"done on my side"}}"#.to_owned(),
    ];
    let t = oath::transcript::Tally::from_text(&lines.join("\n"), false);
    let c = &t.counts;
    assert_eq!(
        (
            c.user_turns,
            c.error_count,
            c.permission_denial_count,
            c.cascade_count,
            c.rejection_count,
            c.interrupt_count
        ),
        (2, 1, 2, 1, 1, 1)
    );
}

/// The facts of one transcript's main chain that are still failing at the end: the lines of
/// the last failure of each unresolved intent.
fn still_failing_lines(r: &session::SessionRecord) -> Vec<u64> {
    let still = r.main.tally.still_failing();
    let facts = r.facts();
    let mut lines: Vec<u64> = facts
        .iter()
        .filter(|f| f.kind == FactKind::ToolError && f.source == "main")
        .filter(|f| still.iter().any(|(k, _)| Some(*k) == f.call))
        .filter(|f| {
            !facts
                .iter()
                .any(|g| g.kind == FactKind::ToolError && g.call == f.call && g.line > f.line)
        })
        .map(|f| f.line)
        .collect();
    lines.sort_unstable();
    lines
}

/// Which failures were resolved, checked by reading what followed each one:
///
/// | transcript | failure | what followed |
/// |---|---|---|
/// | T04 | 69 Read (file too large) | 74 Read of it with `limit` worked: resolved |
/// | T04 | 321 Skill `handgemacht:commit` | no Skill call again (the agent committed by hand at 337): unresolved |
/// | T04 | 568 `git add … && git commit` | 613 `git add -f … && git add … && git commit` worked: resolved |
/// | T04 | 791 `node assets/build.js` | 805 `cd assets && node build.js` worked: resolved |
/// | T04 | 1091-1392 `mix test …` | 1421 and 1443 `mix test` worked: resolved |
/// | T04 | 1133 `head -c 500 … \| python3 -c …` | 1141 `python3 -c …` worked: the pipeline's work is python's (`head` only feeds it): resolved |
/// | T04 | 1564 `git push` | 1573 `git push --set-upstream origin spotter-fum` worked: resolved |
/// | T02 | 639 `git push` | 648 `git push --set-upstream …` worked: resolved |
/// | T02 | 1105 `git add … && git add _build/…` | 1122 `git add … && git commit` worked: resolved |
/// | T02 | 401, 494, 519 `mix credo …` | later `mix credo` worked: resolved |
/// | T01 | 661 … 1463 hook denies of `git commit` | denials, never unresolved failures |
/// | T01 | 916 `source lib.sh && spotter_rand_hex …` | 925 `bash -c 'source lib.sh …'` worked: the same work, another intent (`bash`): unresolved by intent |
/// | T01 | 2186 Read of a file that does not exist | never read: unresolved |
#[test]
fn a_failure_is_unresolved_only_if_no_later_call_of_its_intent_worked() {
    let cases: [(&str, &[u64], report::Outcome); 3] = [
        ("T04-spotter", &[321], report::Outcome::Partial),
        ("T02-spotter", &[], report::Outcome::Success),
        ("T01-spotter", &[916, 2186], report::Outcome::Partial),
    ];
    let now = oath::clock::Timestamp::parse("2026-02-13T00:00:00Z").unwrap();
    for (folder, unresolved, outcome) in cases {
        let r = record(transcript(folder));
        assert_eq!(still_failing_lines(&r), unresolved, "{folder}");
        let d = draft::draft(&r, &Default::default(), now);
        assert_eq!(d.outcome, outcome, "{folder}");
        let still: Vec<&str> = d
            .problem
            .iter()
            .filter(|p| p.description.contains("still failed"))
            .map(|p| p.evidence.as_str())
            .collect();
        for line in unresolved {
            assert!(
                still
                    .iter()
                    .any(|e| e.starts_with(&format!("transcript line {line} "))),
                "{folder} {line}: {still:?}"
            );
        }
        assert_eq!(still.len(), unresolved.len(), "{folder}: {still:?}");
    }
}

/// Repeated failures are the same normalized error of one intent in a row: T02's `mix credo`
/// failed at 401 and 494 with the same findings, then at 519 with another (exit 6, one file):
/// one streak of two. T04's `mix test` failed at 1243, 1327, 1357 and 1392 with different
/// failing tests each time: no streak. T06's `npm run build` failed four times with the same
/// build error (403, 406, 409, 412).
#[test]
fn repeated_failures_are_the_same_normalized_error() {
    let streaks = |folder: &str| -> Vec<(Option<u64>, u64, Option<u32>)> {
        record(transcript(folder))
            .facts()
            .iter()
            .filter(|f| f.kind == FactKind::RepeatedFailure)
            .map(|f| (f.first_line, f.line, f.count))
            .collect()
    };
    assert_eq!(streaks("T02-spotter"), vec![(Some(401), 494, Some(2))]);
    assert_eq!(streaks("T04-spotter"), vec![]);
    let t06 = streaks("T06-ccviewer");
    assert!(t06.contains(&(Some(403), 412, Some(4))), "{t06:?}");
}

/// A backtrack names the trouble that caused it: the hook's deny of the commit that found the
/// code not formatted (T01), the failed test run of the test file it edits again (T04).
#[test]
fn backtracks_name_their_cause() {
    let cause = |folder: &str, line: u64| {
        record(transcript(folder))
            .facts()
            .into_iter()
            .find(|f| f.kind == FactKind::Backtrack && f.line == line)
            .unwrap_or_else(|| panic!("{folder}: no backtrack at {line}"))
    };
    let b = cause("T01-spotter", 1231);
    assert_eq!(b.cause_line, Some(1209), "{b:?}");
    assert!(b.detail.contains("was denied"), "{b:?}");
    for (line, failed) in [(1340, 1327), (1374, 1357), (1404, 1392)] {
        let b = cause("T04-spotter", line);
        assert_eq!(b.cause_line, Some(failed), "{b:?}");
        assert!(b.detail.contains("mix test"), "{b:?}");
    }
}

/// Writes `copies` copies of a transcript's lines, each with fresh ids (uuids, message and
/// request ids, tool use ids), so each copy counts as new work.
fn write_copies(source: &Path, copies: usize, out: &Path) -> u64 {
    use std::io::Write;
    let text = std::fs::read_to_string(source).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut w = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let suffix = |v: &mut Value, k: usize| {
        if let Some(s) = v.as_str() {
            *v = Value::String(format!("{s}-{k}"));
        }
    };
    for k in 0..copies {
        for line in &lines {
            let mut v = line.clone();
            for key in [
                "uuid",
                "parentUuid",
                "leafUuid",
                "requestId",
                "toolUseID",
                "parentToolUseID",
                "sourceToolAssistantUUID",
            ] {
                if let Some(x) = v.get_mut(key) {
                    suffix(x, k);
                }
            }
            if let Some(m) = v.get_mut("message") {
                if let Some(id) = m.get_mut("id") {
                    suffix(id, k);
                }
                if let Some(blocks) = m.get_mut("content").and_then(Value::as_array_mut) {
                    for b in blocks {
                        for key in ["id", "tool_use_id"] {
                            if let Some(x) = b.get_mut(key) {
                                suffix(x, k);
                            }
                        }
                    }
                }
            }
            serde_json::to_writer(&mut w, &v).unwrap();
            w.write_all(b"\n").unwrap();
        }
    }
    w.flush().unwrap();
    std::fs::metadata(out).unwrap().len()
}

/// Runs a command and returns its output and its peak resident memory in KiB: the child's
/// `VmHWM` (high-water mark) in `/proc`, read until it exits.
#[cfg(target_os = "linux")]
fn run_measured(cmd: &mut std::process::Command, out: &Path) -> (Vec<u8>, u64) {
    let mut child = cmd
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    assert!(status.success(), "{status:?}");
    (std::fs::read(out).unwrap(), peak)
}

/// A transcript far larger than the hooks' budget, made of copies of T01 with fresh ids, is
/// counted exactly (copies × T01's counts) by `oath kpt metrics` in one run, in memory that
/// does not grow with it. 16 copies (44 MB) by default; `OATH_TEST_TRANSCRIPT_COPIES=75` makes
/// the 200 MB run.
#[cfg(target_os = "linux")]
#[test]
fn a_large_transcript_is_counted_exactly_in_bounded_memory() {
    let copies: usize = std::env::var("OATH_TEST_TRANSCRIPT_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let source = transcript("T01-spotter");
    let unit =
        oath::transcript::Tally::from_text(&std::fs::read_to_string(&source).unwrap(), false)
            .counts;
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    let bytes = write_copies(&source, copies, &big);
    let started = Instant::now();
    let (out, peak_kib) = run_measured(
        std::process::Command::new(oath_bin())
            .args(["kpt", "metrics", "--json", "--transcript"])
            .arg(&big)
            .env("HOME", dir.path())
            .env("XDG_STATE_HOME", dir.path().join("state")),
        &dir.path().join("metrics.json"),
    );
    let took = started.elapsed();
    let m: report::Metrics = serde_json::from_slice(&out).unwrap();
    let n = copies as u64;
    let u = |v: u32| Some(u64::from(v) * n);
    assert_eq!(m.user_turns, u(unit.user_turns));
    assert_eq!(m.assistant_turns, u(unit.assistant_turns));
    assert_eq!(m.tool_use_count, u(unit.tool_use_count));
    assert_eq!(m.error_count, u(unit.error_count));
    assert_eq!(m.permission_denial_count, u(unit.permission_denial_count));
    assert_eq!(m.code_changes_count, u(unit.code_changes_count));
    assert_eq!(m.lines_added, Some(unit.lines_added * n));
    let tokens = m.tokens.unwrap();
    assert_eq!(tokens.output_tokens, unit.tokens.output_tokens * n);
    assert_eq!(
        tokens.cache_read_input_tokens,
        unit.tokens.cache_read_input_tokens * n
    );
    assert_eq!(m.unreadable_lines, None);
    println!(
        "{copies} copies of T01: {:.1} MB in {:.2} s, peak RSS {:.1} MiB",
        bytes as f64 / 1e6,
        took.as_secs_f64(),
        peak_kib as f64 / 1024.0
    );
    // Bounded: the program, the read buffer, one parsed line and the per-message and
    // per-uuid hashes (about 15 MiB at 44 MB and at 200 MB), less than the file would take.
    assert!(
        peak_kib < 32 * 1024 && peak_kib * 1024 < bytes,
        "peak RSS {peak_kib} KiB for a {bytes} byte transcript"
    );
}

/// What a hook saves between runs gives the same counts and facts as one pass, with the new
/// state (failure streaks per intent, tokens per message, pending hooks) round-tripped.
#[test]
fn saved_state_between_runs_equals_one_pass_on_real_transcripts() {
    for folder in ["T04-spotter", "T01-spotter"] {
        let text = std::fs::read_to_string(transcript(folder)).unwrap();
        let whole = oath::transcript::Tally::from_text(&text, false);
        let mut parts = oath::transcript::Tally::new(false);
        let lines: Vec<&str> = text.lines().collect();
        for chunk in lines.chunks(97) {
            let saved = serde_json::to_string(&parts).unwrap();
            parts = serde_json::from_str(&saved).unwrap();
            for l in chunk {
                parts.feed(l);
            }
        }
        assert_eq!(whole.counts, parts.counts, "{folder}");
        assert_eq!(whole.facts, parts.facts, "{folder}");
        assert_eq!(whole.still_failing(), parts.still_failing(), "{folder}");
    }
}

/// Lines that cannot be counted are reported: in the metrics and as a warning.
#[test]
fn unreadable_and_skipped_lines_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let sample =
        std::fs::read_to_string(fixtures_dir().join("documented/transcript-sample.jsonl")).unwrap();
    let huge = format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}",
        "a".repeat(session::MAX_LINE_BYTES + 1)
    );
    std::fs::write(&path, format!("{{not json\n{huge}\n{sample}")).unwrap();
    let out = std::process::Command::new(oath_bin())
        .args(["kpt", "metrics", "--json", "--transcript"])
        .arg(&path)
        .env("HOME", dir.path())
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let m: report::Metrics = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((m.unreadable_lines, m.skipped_lines), (Some(1), Some(1)));
    assert_eq!(m.user_turns, Some(2), "the rest is counted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 line not valid JSON") && stderr.contains("1 line over 16 MiB skipped"),
        "{stderr}"
    );
}
