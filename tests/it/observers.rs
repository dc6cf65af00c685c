//! Commands after tools (`postToolUse`): filters, order, environment, big payloads, shell
//! scripts, timeouts and async commands, driven through the built `oath hook`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::TestEnv;

/// Runs `oath hook` with a payload; returns (exit code, stdout, stderr).
fn hook(env: &TestEnv, payload: &Value) -> (i32, String, String) {
    let out = env
        .oath()
        .env("OATH_NOW", "2026-03-01T10:00:00Z")
        .arg("hook")
        .write_stdin(payload.to_string())
        .output()
        .expect("oath hook runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn post(env: &TestEnv, tool: &str, id: &str, input: Value, response: Value) -> Value {
    json!({
        "hook_event_name": "PostToolUse",
        "session_id": "sess-obs",
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": env.project(),
        "tool_name": tool,
        "tool_use_id": id,
        "tool_input": input,
        "tool_response": response,
    })
}

fn failure(env: &TestEnv, tool: &str, id: &str, error: &str) -> Value {
    json!({
        "hook_event_name": "PostToolUseFailure",
        "session_id": "sess-obs",
        "cwd": env.project(),
        "tool_name": tool,
        "tool_use_id": id,
        "tool_input": {"command": "false"},
        "error": error,
    })
}

fn configure(env: &TestEnv, yaml: &str) {
    env.trusted_project_config(yaml);
}

fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Returns the `observer` records of the session's audit trail.
fn observer_records(env: &TestEnv) -> Vec<Value> {
    let mut out = Vec::new();
    for file in files_under(&env.oath_home()) {
        if file.extension().is_some_and(|e| e == "jsonl")
            && file.parent().is_some_and(|p| p.ends_with("audit"))
        {
            for line in read(&file).lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                if v["kind"] == "observer" {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Waits (generously) for a file to exist.
fn wait_for(path: &Path, secs: u64) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    path.exists()
}

/// Returns whether a process is gone or a zombie (no longer running).
fn not_running(pid: &str) -> bool {
    let stat = fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    stat.is_empty()
        || stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
}

#[test]
fn filters_select_by_tool_glob_and_outcome_and_run_in_config_order() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: "Bash"
      run: echo "0 $OATH_TOOL_NAME" >> order.txt
    - tool: "*Search*"
      run: echo "1 $OATH_TOOL_NAME" >> order.txt
    - run: echo "2 $OATH_TOOL_NAME" >> order.txt
    - tool: "mcp__github__*"
      run: echo "3 $OATH_TOOL_NAME" >> order.txt
    - tool: Bash
      on: failure
      run: echo "4 $OATH_TOOL_NAME $OATH_TOOL_OUTCOME" >> order.txt
    - tool: Bash
      on: both
      run: echo "5 $OATH_TOOL_NAME $OATH_TOOL_OUTCOME" >> order.txt
"#,
    );
    let order = env.project().join("order.txt");
    let take = || {
        let s = fs::read_to_string(&order).unwrap_or_default();
        let _ = fs::remove_file(&order);
        s
    };

    let (code, _, _) = hook(
        &env,
        &post(
            &env,
            "Bash",
            "t1",
            json!({"command": "ls"}),
            json!({"stdout": ""}),
        ),
    );
    assert_eq!(code, 0);
    assert_eq!(take(), "0 Bash\n2 Bash\n5 Bash success\n");

    hook(&env, &failure(&env, "Bash", "t2", "Exit code 1\nnope"));
    assert_eq!(take(), "4 Bash failure\n5 Bash failure\n");

    hook(
        &env,
        &post(&env, "WebSearch", "t3", json!({"query": "q"}), json!({})),
    );
    assert_eq!(take(), "1 WebSearch\n2 WebSearch\n");

    hook(
        &env,
        &post(
            &env,
            "mcp__github__create_issue",
            "t4",
            json!({}),
            json!([]),
        ),
    );
    assert_eq!(
        take(),
        "2 mcp__github__create_issue\n3 mcp__github__create_issue\n"
    );

    hook(
        &env,
        &post(
            &env,
            "mcp__gitlab__create_issue",
            "t5",
            json!({}),
            json!([]),
        ),
    );
    assert_eq!(take(), "2 mcp__gitlab__create_issue\n");

    // Failures of tools no `on: failure` command names run nothing.
    hook(&env, &failure(&env, "Read", "t6", "File does not exist."));
    assert_eq!(take(), "");
}

#[test]
fn commands_see_the_call_in_their_environment_in_the_project_root() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: Bash
      run: |
        mkdir -p seen
        for v in OATH_TOOL_NAME OATH_TOOL_INPUT OATH_TOOL_OUTPUT OATH_TOOL_TIMESTAMP \
                 OATH_TOOL_USE_ID OATH_SESSION_ID OATH_TOOL_OUTCOME OATH_TOOL_OUTPUT_FILE \
                 CONCLAUDE_TOOL_NAME CONCLAUDE_TOOL_INPUT CONCLAUDE_TOOL_OUTPUT \
                 CONCLAUDE_TOOL_TIMESTAMP; do
          eval "printf '%s' \"\$$v\"" > "seen/$v"
        done
        pwd > seen/cwd
        cp "$OATH_TOOL_OUTPUT_FILE" seen/output_file_copy
"#,
    );
    let input = json!({"command": "echo 'hi there'", "description": "greet"});
    let response = json!({"stdout": "hi there\n", "stderr": "", "interrupted": false});
    let (code, stdout, _) = hook(
        &env,
        &post(&env, "Bash", "toolu_01ABC", input.clone(), response.clone()),
    );
    assert_eq!(code, 0);
    assert!(!stdout.contains("hi there"), "answer untouched: {stdout}");
    let seen = env.project().join("seen");
    let get = |name: &str| read(seen.join(name));
    assert_eq!(get("OATH_TOOL_NAME"), "Bash");
    assert_eq!(
        serde_json::from_str::<Value>(&get("OATH_TOOL_INPUT")).unwrap(),
        input
    );
    assert_eq!(
        serde_json::from_str::<Value>(&get("OATH_TOOL_OUTPUT")).unwrap(),
        response
    );
    assert_eq!(get("OATH_TOOL_TIMESTAMP"), "2026-03-01T10:00:00.000Z");
    assert_eq!(get("OATH_TOOL_USE_ID"), "toolu_01ABC");
    assert_eq!(get("OATH_SESSION_ID"), "sess-obs");
    assert_eq!(get("OATH_TOOL_OUTCOME"), "success");
    for (seed, ours) in [
        ("CONCLAUDE_TOOL_NAME", "OATH_TOOL_NAME"),
        ("CONCLAUDE_TOOL_INPUT", "OATH_TOOL_INPUT"),
        ("CONCLAUDE_TOOL_OUTPUT", "OATH_TOOL_OUTPUT"),
        ("CONCLAUDE_TOOL_TIMESTAMP", "OATH_TOOL_TIMESTAMP"),
    ] {
        assert_eq!(get(seed), get(ours), "{seed}");
    }
    assert_eq!(get("output_file_copy"), get("OATH_TOOL_OUTPUT"));
    let file = PathBuf::from(get("OATH_TOOL_OUTPUT_FILE"));
    assert!(file.starts_with(env.oath_home()), "{}", file.display());
    assert!(file.exists(), "the output file outlives the hook");
    assert_eq!(
        fs::canonicalize(get("cwd").trim()).unwrap(),
        fs::canonicalize(env.project()).unwrap()
    );
}

#[test]
fn failures_pass_the_error_text_as_output() {
    let env = TestEnv::new();
    configure(
        &env,
        "postToolUse:\n  commands:\n    - tool: Bash\n      on: failure\n      run: printf '%s|%s' \"$OATH_TOOL_OUTCOME\" \"$OATH_TOOL_OUTPUT\" > failed.txt\n",
    );
    hook(
        &env,
        &failure(&env, "Bash", "t1", "Exit code 2\nls: cannot access"),
    );
    assert_eq!(
        read(env.project().join("failed.txt")),
        "failure|Exit code 2\nls: cannot access"
    );
}

#[test]
fn a_five_megabyte_output_still_starts_the_command_and_is_whole_in_the_file() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: "*"
      run: |
        printf '%s' "$OATH_TOOL_OUTPUT" > env_output
        printf '%s' "$OATH_TOOL_INPUT" > env_input
        cp "$OATH_TOOL_OUTPUT_FILE" file_output
"#,
    );
    let big = "x".repeat(5 * 1024 * 1024);
    let big_input = "y".repeat(300 * 1024);
    let response = json!({"type": "text", "file": {"filePath": "/p/big.txt", "content": big}});
    let input = json!({"file_path": "/p/big.txt", "content": big_input});
    let (code, _, stderr) = hook(&env, &post(&env, "Read", "t-big", input, response.clone()));
    assert_eq!(code, 0, "{stderr}");
    let p = env.project();
    let env_output = read(p.join("env_output"));
    assert!(env_output.len() < 64 * 1024, "{}", env_output.len());
    assert!(env_output.starts_with(r#"{"type":"text","file":{"filePath":"/p/big.txt""#));
    let whole = response.to_string();
    assert!(
        env_output.ends_with(&format!(
            "[... truncated by oath: {} bytes in all; the whole output is in $OATH_TOOL_OUTPUT_FILE]",
            whole.len()
        )),
        "{}",
        &env_output[env_output.len() - 200..]
    );
    let env_input = read(p.join("env_input"));
    assert!(env_input.len() < 64 * 1024, "{}", env_input.len());
    assert!(env_input.contains("[... truncated by oath: "));
    let file_output = read(p.join("file_output"));
    assert_eq!(file_output.len(), whole.len());
    assert_eq!(
        serde_json::from_str::<Value>(&file_output).unwrap(),
        response
    );
}

#[test]
fn a_multi_line_script_runs_as_one_script() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: Edit
      run: |
        count=0
        for word in a b c; do
          count=$((count + 1))
        done
        if [ "$count" = 3 ]; then
          echo "three" > multi.txt
        fi
        echo "same shell: $count" >> multi.txt
"#,
    );
    hook(&env, &post(&env, "Edit", "t1", json!({}), json!({})));
    assert_eq!(
        read(env.project().join("multi.txt")),
        "three\nsame shell: 3\n"
    );
}

#[test]
fn a_timed_out_command_is_killed_with_its_children_even_if_they_ignore_sigterm() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: Bash
      timeout: 3
      run: |
        trap '' TERM
        sleep 30 &
        echo $! > grandchild.pid
        echo $$ > child.pid
        sleep 30
        touch not-killed
    - tool: Bash
      run: touch next-ran
"#,
    );
    let (code, _, stderr) = hook(&env, &post(&env, "Bash", "t1", json!({}), json!({})));
    assert_eq!(code, 0);
    assert!(
        stderr.contains("postToolUse.commands[0] timed out after 3 s"),
        "{stderr}"
    );
    let p = env.project();
    assert!(p.join("next-ran").exists(), "the next command still runs");
    assert!(!p.join("not-killed").exists());
    for name in ["child.pid", "grandchild.pid"] {
        let pid = read(p.join(name));
        let end = Instant::now() + Duration::from_secs(10);
        while !not_running(&pid) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(not_running(&pid), "{name} {pid} survived the timeout");
    }
    let records = observer_records(&env);
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["index"], 0);
    assert_eq!(records[0]["timed_out"], true);
    assert_eq!(records[0]["signal"], 9);
    assert_eq!(records[0]["tool_name"], "Bash");
    assert_eq!(records[0]["tool_use_id"], "t1");
    assert_eq!(records[1]["index"], 1);
    assert_eq!(records[1]["exit_code"], 0);
    assert_eq!(records[1]["timed_out"], false);
}

#[test]
fn an_async_command_is_detached_and_the_hook_returns_before_it_ends() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: "*Search*"
      async: true
      run: |
        touch started
        sleep 5
        cp "$OATH_TOOL_OUTPUT_FILE" output-copy
        echo "log line from $OATH_TOOL_NAME"
        touch finished
"#,
    );
    let response = json!({"results": ["a", "b"]});
    let (code, _, stderr) = hook(
        &env,
        &post(
            &env,
            "WebSearch",
            "t-async",
            json!({"query": "q"}),
            response.clone(),
        ),
    );
    let p = env.project();
    // `output()` read the hook's stdout and stderr to their end: the detached command does
    // not hold them, and it was still sleeping when the hook had returned.
    assert!(
        !p.join("finished").exists(),
        "the hook waited for the command"
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        wait_for(&p.join("started"), 20),
        "async command never started"
    );
    assert!(
        wait_for(&p.join("finished"), 30),
        "async command never finished"
    );
    // The output file outlived the hook.
    assert_eq!(
        serde_json::from_str::<Value>(&read(p.join("output-copy"))).unwrap(),
        response
    );
    let records = observer_records(&env);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["async"], true);
    assert!(records[0]["pid"].as_u64().is_some());
    let log = PathBuf::from(records[0]["log"].as_str().unwrap());
    let end = Instant::now() + Duration::from_secs(10);
    while !read(&log).contains("exit status") && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = read(&log);
    assert!(text.contains("log line from WebSearch"), "{text}");
    assert!(text.contains("[oath] exit status 0"), "{text}");
}

#[test]
fn broken_entries_are_reported_and_skipped_while_the_rest_works() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: "[Bash"
      run: touch bad-glob-ran
    - tool: Bash
    - tool: Bash
      run: touch good-ran
    - tool: Bash
      on: failures
      run: touch bad-on-ran
"#,
    );
    let (code, _, stderr) = hook(&env, &post(&env, "Bash", "t1", json!({}), json!({})));
    assert_eq!(code, 0);
    assert!(
        stderr.contains("postToolUse.commands[0] has an invalid `tool` glob"),
        "{stderr}"
    );
    assert!(
        stderr.contains("postToolUse.commands[1] has no `run`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("postToolUse.commands[3] cannot be read (unknown variant `failures`"),
        "{stderr}"
    );
    assert!(env.project().join("good-ran").exists());
    assert!(!env.project().join("bad-glob-ran").exists());
    assert!(!env.project().join("bad-on-ran").exists());

    // The gate still answers normally.
    let out = env
        .oath()
        .arg("hook")
        .write_stdin(
            json!({
                "hook_event_name": "PreToolUse",
                "session_id": "sess-obs",
                "cwd": env.project(),
                "tool_name": "Read",
                "tool_use_id": "t2",
                "tool_input": {"file_path": env.project().join("a.txt")},
            })
            .to_string(),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("could not check this call"),
        "config broke the gate: {stdout}"
    );
}

#[test]
fn commands_cannot_change_the_answer_and_results_are_audited_redacted() {
    let env = TestEnv::new();
    let baseline = {
        let e = TestEnv::new();
        hook(
            &e,
            &post(&e, "Bash", "t1", json!({"command": "ls"}), json!({})),
        )
    };
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: Bash
      run: |
        echo '{"decision":"block","reason":"observer says no"}'
        echo "token ghp_0123456789abcdefghijABCDEFGHIJ012345" >&2
        exit 2
"#,
    );
    let (code, stdout, stderr) = hook(
        &env,
        &post(&env, "Bash", "t1", json!({"command": "ls"}), json!({})),
    );
    assert_eq!(code, baseline.0);
    assert_eq!(stdout, baseline.1, "an observer changed the answer");
    assert!(!stdout.contains("observer says no"));
    assert!(
        stderr.contains("postToolUse.commands[0] exited with status 2"),
        "{stderr}"
    );
    let records = observer_records(&env);
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!(r["exit_code"], 2);
    assert_eq!(r["timed_out"], false);
    assert!(r["duration_ms"].as_u64().is_some());
    assert!(r["stdout"].as_str().unwrap().contains("observer says no"));
    let err = r["stderr"].as_str().unwrap();
    assert!(err.starts_with("token "), "{err}");
    assert!(!err.contains("ghp_0123"), "secret not redacted: {err}");
}

#[test]
fn no_commands_means_no_files() {
    let env = TestEnv::new();
    hook(
        &env,
        &post(&env, "Bash", "t1", json!({}), json!({"stdout": "x"})),
    );
    assert!(
        !files_under(&env.oath_home())
            .iter()
            .any(|f| f.components().any(|c| c.as_os_str() == "post-tool-use")),
        "observer files written without commands"
    );
    assert!(observer_records(&env).is_empty());
}

#[test]
fn an_async_command_past_its_timeout_is_killed_with_its_children() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - async: true
      timeout: 3
      run: |
        trap '' TERM
        sleep 30 &
        echo $! > grandchild.pid
        echo $$ > child.pid
        sleep 30
        touch not-killed
"#,
    );
    let (code, _, stderr) = hook(&env, &post(&env, "Bash", "t1", json!({}), json!({})));
    assert_eq!(code, 0, "{stderr}");
    let records = observer_records(&env);
    let log = PathBuf::from(records[0]["log"].as_str().unwrap());
    let end = Instant::now() + Duration::from_secs(20);
    while !read(&log).contains("exit status") && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = read(&log);
    assert!(text.contains("[oath] timed out after 3 s"), "{text}");
    let p = env.project();
    for name in ["child.pid", "grandchild.pid"] {
        let pid = read(p.join(name));
        let end = Instant::now() + Duration::from_secs(10);
        while !not_running(&pid) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(not_running(&pid), "{name} {pid} survived the timeout");
    }
    assert!(!p.join("not-killed").exists());
}

#[test]
fn a_payload_the_kernel_refuses_is_cut_further_and_the_command_still_starts() {
    // A 256 KiB stack limit lowers the kernel's argv + environment cap to its 128 KiB floor,
    // below the four ~60 KiB payload variables of a big call.
    let env = TestEnv::new();
    configure(
        &env,
        "postToolUse:\n  commands:\n    - run: printf '%s' \"${#OATH_TOOL_OUTPUT}\" > len\n",
    );
    let payload = post(
        &env,
        "Bash",
        "t-e2big",
        json!({"command": "x".repeat(200_000)}),
        json!({"stdout": "y".repeat(300_000)}),
    );
    let out = std::process::Command::new("/bin/sh")
        .args(["-c", "ulimit -s 256 && exec \"$0\" hook"])
        .arg(crate::support::oath_bin())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home())
        .env("OATH_HOME", env.oath_home())
        .env("CLAUDE_PROJECT_DIR", env.project())
        .current_dir(env.project())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let len: usize = read(env.project().join("len")).parse().unwrap();
    assert!(len <= 4096, "{len}");
    let records = observer_records(&env);
    assert_eq!(records[0]["env_reduced"], true, "{records:?}");
    assert_eq!(records[0]["exit_code"], 0);
}

#[test]
fn real_claude_code_payloads_reach_a_bash_command_intact() {
    let env = TestEnv::new();
    configure(
        &env,
        r#"postToolUse:
  commands:
    - tool: Bash
      on: both
      run: |
        d="seen/$OATH_TOOL_USE_ID"
        mkdir -p "$d"
        printf '%s' "$OATH_TOOL_NAME" > "$d/name"
        printf '%s' "$OATH_TOOL_INPUT" > "$d/input"
        printf '%s' "$OATH_TOOL_OUTPUT" > "$d/output"
        printf '%s' "$OATH_TOOL_OUTCOME" > "$d/outcome"
"#,
    );
    let dir = crate::support::fixtures_dir().join("claude-code-2.1.197/session-a");
    for (file, outcome) in [
        ("25-post-tool-use-bash.json", "success"),
        ("16-post-tool-use-failure-bash.json", "failure"),
    ] {
        let mut payload: Value = serde_json::from_str(&read(dir.join(file))).unwrap();
        payload["cwd"] = json!(env.project());
        let (code, _, stderr) = hook(&env, &payload);
        assert_eq!(code, 0, "{file}: {stderr}");
        let id = payload["tool_use_id"].as_str().unwrap();
        let seen = env.project().join("seen").join(id);
        assert_eq!(read(seen.join("name")), "Bash", "{file}");
        assert_eq!(read(seen.join("outcome")), outcome, "{file}");
        assert_eq!(
            serde_json::from_str::<Value>(&read(seen.join("input"))).unwrap(),
            payload["tool_input"],
            "{file}"
        );
        let output = read(seen.join("output"));
        if outcome == "success" {
            assert_eq!(
                serde_json::from_str::<Value>(&output).unwrap(),
                payload["tool_response"],
                "{file}"
            );
        } else {
            assert_eq!(output, payload["error"].as_str().unwrap(), "{file}");
        }
    }
}
