//! Secrets never reach oath's files: a corpus of secret formats (`secrets_corpus.rs`) is sent
//! through the binary in every field of every event oath may record, with an observer whose
//! output is kept (sync and async), failures the 3-strike log records, and a session whose
//! transcript quotes them all turned into a KPT draft; then every file oath wrote (all of
//! `OATH_HOME`, the project's `.plan/`, the KPT reports) is searched for each secret and for
//! every 16-byte piece of it. Ordinary values next to them must survive.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::secrets_corpus::{ORDINARY, Secret, corpus, dotenv, ordinary_command};
use crate::support::{TestEnv, assert_valid_answer, clip};

const SESSION: &str = "sec";

/// The least number of formats the corpus holds: the test fails if it shrinks.
const LEAST_FORMATS: usize = 50;

#[test]
fn the_corpus_keeps_at_least_50_formats_each_in_its_text() {
    let c = corpus();
    assert!(
        c.len() >= LEAST_FORMATS,
        "{} formats, fewer than {LEAST_FORMATS}",
        c.len()
    );
    let labels: HashSet<&str> = c.iter().map(|s| s.label).collect();
    assert_eq!(labels.len(), c.len(), "two formats share a label");
    let secrets: HashSet<&str> = c.iter().map(|s| s.secret.as_str()).collect();
    assert_eq!(secrets.len(), c.len(), "two formats share a secret");
    for s in &c {
        assert!(
            s.text.contains(&s.secret),
            "{}: secret not in text",
            s.label
        );
        assert!(
            s.secret.len() >= 12,
            "{}: secret too short to search",
            s.label
        );
    }
}

/// The observer: a sync command that reads the kept output file (and prints its head, which
/// the audit records), and an async one after failures that prints the raw output variable
/// and the file into its log.
const OBSERVERS: &str = r#"postToolUse:
  commands:
    - tool: "*"
      on: both
      run: head -c 3000 "$OATH_TOOL_OUTPUT_FILE"
    - tool: Bash
      on: failure
      async: true
      run: printf '%s\n' "$OATH_TOOL_OUTPUT"; cat "$OATH_TOOL_OUTPUT_FILE"; echo
"#;

/// The payloads of one text: every event and every tool field oath may record.
fn payloads(env: &TestEnv, i: usize, sec: &Secret, transcript: &Path) -> Vec<Value> {
    let (text, secret) = (sec.text.as_str(), sec.secret.as_str());
    let p = env.project();
    let id = |k: &str| format!("toolu_{i:03}_{k}");
    let base = |event: &str| {
        json!({"hook_event_name": event, "session_id": SESSION,
               "transcript_path": transcript, "cwd": p})
    };
    let with = |event: &str, field: &str, value: Value| {
        let mut v = base(event);
        v[field] = value;
        v
    };
    let tool = |event: &str, name: &str, k: &str, input: Value| {
        let mut v = base(event);
        v["tool_name"] = json!(name);
        v["tool_use_id"] = json!(id(k));
        v["tool_input"] = input;
        v
    };
    let post = |name: &str, k: &str, input: Value, response: Value| {
        let mut v = tool("PostToolUse", name, k, input);
        v["tool_response"] = response;
        v
    };
    let file = p.join(format!("notes-{i}.txt"));
    let url = format!("https://example.com/p?q={text}");
    let mut failure = tool(
        "PostToolUseFailure",
        "Bash",
        "fail",
        json!({"command": text}),
    );
    failure["error"] = json!(format!("Exit code 1\n{text}"));
    // The same text placed so the secret straddles the audit's 2048-byte cut.
    let offset = text.find(secret).expect("secret in text");
    let filler = "y".repeat(2028_usize.saturating_sub(offset + 1));
    vec![
        with("UserPromptSubmit", "prompt", json!(text)),
        tool(
            "PreToolUse",
            "Bash",
            "bash",
            json!({"command": text, "description": text}),
        ),
        post(
            "Bash",
            "bash",
            json!({"command": text, "description": text}),
            json!({"stdout": text, "stderr": text, "interrupted": false,
                   "nested": {"config": {"token": secret, "items": [text]}}}),
        ),
        failure,
        tool(
            "PreToolUse",
            "Write",
            "write",
            json!({"file_path": file, "content": format!("{}\n{text}", "filler line\n".repeat(i * 37))}),
        ),
        tool(
            "PreToolUse",
            "Write",
            "cut",
            json!({"file_path": p.join("cut.txt"),
                   "content": format!("{filler}\n{text}\n{}", "z".repeat(3000))}),
        ),
        tool(
            "PreToolUse",
            "Write",
            "path",
            json!({"file_path": p.join(format!("cfg/{text}")), "content": "x"}),
        ),
        post(
            "Write",
            "write",
            json!({"file_path": file, "content": text}),
            json!({"type": "create", "filePath": file, "content": text, "structuredPatch": []}),
        ),
        tool(
            "PreToolUse",
            "Edit",
            "edit",
            json!({"file_path": file, "old_string": text, "new_string": format!("{text}\n")}),
        ),
        post(
            "Edit",
            "edit",
            json!({"file_path": file, "old_string": text, "new_string": "x"}),
            json!({"filePath": file, "oldString": text, "newString": "x", "originalFile": text}),
        ),
        tool(
            "PreToolUse",
            "MultiEdit",
            "multi",
            json!({"file_path": file, "edits": [
                {"old_string": text, "new_string": "x"},
                {"old_string": "y", "new_string": text}]}),
        ),
        tool(
            "PreToolUse",
            "WebFetch",
            "fetch",
            json!({"url": url, "prompt": text}),
        ),
        post(
            "WebFetch",
            "fetch",
            json!({"url": url, "prompt": text}),
            json!({"result": text, "code": 200, "url": url}),
        ),
        tool("PreToolUse", "WebSearch", "search", json!({"query": text})),
        post(
            "WebSearch",
            "search",
            json!({"query": text}),
            json!({"results": [{"title": "t", "url": "https://example.com", "content": text}]}),
        ),
        post(
            "Read",
            "read",
            json!({"file_path": file}),
            json!({"type": "text", "file": {"filePath": file, "content": text, "numLines": 3}}),
        ),
        tool(
            "PreToolUse",
            "Grep",
            "grep",
            json!({"pattern": text, "path": p}),
        ),
        tool(
            "PreToolUse",
            "mcp__github__create_issue",
            "mcp",
            json!({"title": text, "body": {"sections": [text], "meta": {"api_key": secret}}}),
        ),
        post(
            "mcp__github__create_issue",
            "mcp",
            json!({"title": text}),
            json!([{"type": "text", "text": text}]),
        ),
        with("Notification", "message", json!(text)),
        with("PreCompact", "custom_instructions", json!(text)),
        with("Stop", "last_assistant_message", json!(text)),
        with("SubagentStop", "last_assistant_message", json!(text)),
    ]
}

/// A transcript of the session quoting every text: a prompt, and a command that fails twice
/// (a failing streak, which a KPT draft cites with its command).
fn transcript(texts: &[&str]) -> String {
    let mut lines = Vec::new();
    let mut n = 0;
    let mut line = |kind: &str, message: Value| {
        n += 1;
        lines.push(
            json!({"type": kind, "message": message, "uuid": format!("u-{n}"),
                   "parentUuid": if n > 1 { json!(format!("u-{}", n - 1)) } else { Value::Null },
                   "timestamp": format!("2026-03-01T10:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
                   "sessionId": SESSION, "isSidechain": false})
            .to_string(),
        );
    };
    for (i, text) in texts.iter().enumerate() {
        line("user", json!({"role": "user", "content": text}));
        for k in 0..2 {
            let id = format!("toolu_t{i}_{k}");
            line(
                "assistant",
                json!({"role": "assistant", "id": format!("msg_{i}_{k}"), "content": [
                    {"type": "tool_use", "id": id, "name": "Bash",
                     "input": {"command": text, "description": "run"}}]}),
            );
            line(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                    "content": format!("Exit code 1\n{text}"), "is_error": true}]}),
            );
        }
    }
    lines.join("\n") + "\n"
}

/// Every regular file under a folder, with its bytes.
fn files_under(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => files_under(&p, out),
            Ok(t) if t.is_file() => out.push((p.clone(), std::fs::read(&p).unwrap_or_default())),
            _ => {}
        }
    }
}

/// Waits until every async observer log has its exit status line.
fn wait_for_async_logs(dir: &Path, want: usize) -> Vec<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let mut logs = Vec::new();
        files_under(dir, &mut logs);
        let done = logs
            .iter()
            .filter(|(_, b)| String::from_utf8_lossy(b).contains("[oath] exit status"))
            .count();
        if done >= want || Instant::now() > deadline {
            assert!(done >= want, "{done} of {want} async logs finished");
            return logs.into_iter().map(|(p, _)| p).collect();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn secrets_are_redacted_in_every_file_oath_writes() {
    let env = TestEnv::new();
    env.trusted_project_config(OBSERVERS);
    let corpus = corpus();
    let (dotenv, dotenv_secrets) = dotenv();
    let texts: Vec<&str> = corpus.iter().map(|s| s.text.as_str()).collect();
    let transcript_path = env.home().join(".claude/projects/-demo/sec.jsonl");
    std::fs::create_dir_all(transcript_path.parent().unwrap()).unwrap();
    std::fs::write(&transcript_path, transcript(&texts)).unwrap();

    let base =
        json!({"session_id": SESSION, "transcript_path": transcript_path, "cwd": env.project()});
    let event = |name: &str, extra: Value| {
        let mut v = base.clone();
        v["hook_event_name"] = json!(name);
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let mut runs: Vec<Value> = vec![event("SessionStart", json!({"source": "startup"}))];
    for (i, sec) in corpus.iter().enumerate() {
        runs.extend(payloads(&env, i, sec, &transcript_path));
    }
    let env_file = env.project().join(".env");
    runs.push(event(
        "PreToolUse",
        json!({"tool_name": "Write", "tool_use_id": "toolu_env",
               "tool_input": {"file_path": env_file, "content": dotenv}}),
    ));
    runs.push(event(
        "PostToolUse",
        json!({"tool_name": "Write", "tool_use_id": "toolu_env",
               "tool_input": {"file_path": env_file, "content": dotenv},
               "tool_response": {"type": "create", "filePath": env_file, "content": dotenv}}),
    ));
    runs.push(event(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_use_id": "toolu_plain",
               "tool_input": {"command": ordinary_command()}}),
    ));
    runs.push(event("SessionEnd", json!({"reason": "other"})));

    // Two at a time: the machine running the tests has few cores, and each hook is a process.
    let chunks: Vec<&[Value]> = runs.chunks(runs.len().div_ceil(2)).collect();
    std::thread::scope(|scope| {
        for part in chunks {
            let env = &env;
            scope.spawn(move || {
                for (n, p) in part.iter().enumerate() {
                    let run = env.hook(p);
                    let event = p["hook_event_name"].as_str();
                    assert_valid_answer(&run, event, &format!("payload {n} ({event:?})"));
                    assert!(
                        !run.stderr.contains("internal error"),
                        "{}",
                        clip(&run.stderr)
                    );
                }
            });
        }
    });

    // A KPT draft of the session: its prompts and failing commands quote every secret.
    let out = env
        .oath()
        .args(["kpt", "new", "--session", SESSION])
        .assert()
        .success();
    let draft = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    let draft_text = std::fs::read_to_string(&draft).unwrap();
    assert!(
        draft_text.contains("[REDACTED"),
        "the draft quotes nothing that was masked"
    );

    // Every kind of file oath writes is there to be searched.
    let observer_dir = env.state_dir().join("post-tool-use");
    let failures = corpus.len();
    wait_for_async_logs(&observer_dir.join("logs"), failures);
    let mut files = env.written_files();
    files_under(&env.home().join(".claude/hurikaeri"), &mut files);
    let has = |part: &str| {
        files
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains(part))
    };
    for part in [
        "/post-tool-use/outputs/",
        "/post-tool-use/logs/",
        "/audit/sec.jsonl",
        "/sessions/sec.json",
        "errors.json",
        "/trust/domains/",
        "/hurikaeri/kpt-",
    ] {
        assert!(has(part), "no file {part} was written");
    }

    // No file holds a secret, nor any 16-byte piece of one (a secret cut in half).
    let mut pieces: HashSet<&[u8]> = HashSet::new();
    let mut whole: Vec<&str> = dotenv_secrets.clone();
    for sec in &corpus {
        let b = sec.secret.as_bytes();
        if b.len() < 16 {
            whole.push(&sec.secret);
        } else {
            pieces.extend(b.windows(16));
        }
    }
    let label_of = |piece: &[u8]| {
        corpus
            .iter()
            .find(|s| s.secret.as_bytes().windows(piece.len()).any(|w| w == piece))
            .map_or("?", |s| s.label)
    };
    for (path, bytes) in &files {
        if let Some(at) = bytes.windows(16).position(|w| pieces.contains(w)) {
            let piece = &bytes[at..at + 16];
            let around = &bytes[at.saturating_sub(300)..(at + 300).min(bytes.len())];
            panic!(
                "{}: {:?} of the secret leaked into {}:\n…{}…",
                label_of(piece),
                String::from_utf8_lossy(piece),
                path.display(),
                String::from_utf8_lossy(around)
            );
        }
        let text = String::from_utf8_lossy(bytes);
        for secret in &whole {
            assert!(
                !text.contains(secret),
                "{secret} leaked into {}",
                path.display()
            );
        }
    }

    // The audit is JSON lines, and still holds the ordinary values.
    let audit = std::fs::read_to_string(env.audit_file(SESSION)).unwrap();
    for line in audit.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    for plain in ORDINARY {
        assert!(audit.contains(plain), "{plain} was redacted");
    }
    assert!(audit.contains("[REDACTED"), "nothing was redacted at all");
    assert!(
        files
            .iter()
            .any(|(_, b)| String::from_utf8_lossy(b).contains("NODE_ENV=production")),
        "ordinary .env lines are kept"
    );
}

#[test]
fn a_secret_in_a_failure_never_reaches_the_strike_files() {
    // The strike files are not redacted as a whole when rewritten: each attempt is redacted
    // as it is made. Secrets in every field of failures (the error output above all), a
    // success and further failures rewriting the log: none of them, nor a piece of one, is in
    // either file, and the errors still count.
    let env = TestEnv::new();
    let corpus = corpus();
    let secrets: Vec<&Secret> = corpus.iter().take(12).collect();
    let failure = |i: usize, sec: &Secret| {
        json!({"hook_event_name": "PostToolUseFailure", "session_id": SESSION,
               "tool_name": "Bash", "tool_use_id": format!("toolu_{i} {}", sec.text),
               "agent_id": sec.text, "cwd": env.project(),
               "tool_input": {"command": "cargo build", "description": sec.text},
               "error": format!("Exit code 101\nerror: build failed\n{}", sec.text)})
    };
    for (i, sec) in secrets.iter().enumerate() {
        let run = env.hook(&failure(i, sec));
        assert_valid_answer(&run, Some("PostToolUseFailure"), sec.label);
        if i == 5 {
            let ok = json!({"hook_event_name": "PostToolUse", "session_id": SESSION,
                "tool_name": "Bash", "tool_use_id": "toolu_ok", "cwd": env.project(),
                "tool_input": {"command": "cargo build"},
                "tool_response": {"stdout": "ok", "stderr": "", "interrupted": false}});
            assert_valid_answer(&env.hook(&ok), Some("PostToolUse"), "success");
        }
    }
    // The last failure once more: its error counts on.
    let again = env.hook(&failure(secrets.len(), secrets[secrets.len() - 1]));
    assert_valid_answer(&again, Some("PostToolUseFailure"), "again");
    assert!(
        again.stdout.contains("has now occurred 2 times"),
        "{}",
        again.stdout
    );
    let plan = env.project().join(".plan/@no-git");
    let log = std::fs::read(plan.join("errors.json")).unwrap();
    let index = std::fs::read(plan.join("strikes.json")).unwrap();
    for (name, bytes) in [("errors.json", &log), ("strikes.json", &index)] {
        for sec in &secrets {
            let b = sec.secret.as_bytes();
            let piece = b.len().min(16);
            assert!(
                !bytes
                    .windows(piece)
                    .any(|w| b.windows(piece).any(|s| s == w)),
                "{}: the secret leaked into {name}:\n{}",
                sec.label,
                String::from_utf8_lossy(bytes)
            );
        }
    }
    let log: Value = serde_json::from_slice(&log).unwrap();
    let attempts = log["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), secrets.len() + 1);
    assert!(
        attempts
            .iter()
            .all(|a| a["error"].as_str().unwrap().contains("Exit code 101"))
    );
    assert_eq!(attempts.last().unwrap()["strike"], 2);
    assert!(
        log.to_string().contains("[REDACTED"),
        "nothing was redacted"
    );
}
