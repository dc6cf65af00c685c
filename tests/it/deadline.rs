//! The hook's last word: a PreToolUse that cannot finish (past its deadline, aborted, out of
//! memory) still answers with its fail mode, exactly once, and exits 0, instead of leaving
//! Claude Code to run the call after its own timeout.
//!
//! A deletion inside the project asks the project's git what would be lost; a `git` on PATH
//! that sleeps makes the hook slow on purpose and for certain.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{HookRun, TestEnv, assert_valid_answer, finish, spawn_with_stdin};

/// An environment whose `git` sleeps for `seconds`, with a folder the payload deletes.
fn slow_git(seconds: u32) -> (TestEnv, String) {
    let env = TestEnv::new();
    fs::create_dir_all(env.project().join("src")).unwrap();
    fs::write(env.project().join("src/a.rs"), "fn main() {}\n").unwrap();
    let bin = env.home().join("slow-bin");
    fs::create_dir_all(&bin).unwrap();
    let git = bin.join("git");
    fs::write(&git, format!("#!/bin/sh\nsleep {seconds}\n")).unwrap();
    fs::set_permissions(&git, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (env, path)
}

fn delete_src() -> Value {
    json!({"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash",
           "tool_use_id":"t1","tool_input":{"command":"rm -rf src"}})
}

fn spawn(env: &TestEnv, path: &str, deadline_ms: Option<u64>) -> std::process::Child {
    let mut cmd = env.hook_command();
    cmd.env("PATH", path);
    if let Some(ms) = deadline_ms {
        cmd.env("OATH_DEADLINE_MS", ms.to_string());
    }
    spawn_with_stdin(cmd, delete_src().to_string().as_bytes())
}

/// Checks the last word: one valid PreToolUse answer, the given decision, exit 0.
fn check_last_word(run: &HookRun, decision: &str, label: &str) {
    assert_valid_answer(run, Some("PreToolUse"), label);
    assert_eq!(run.code, Some(0), "{label}: {run:?}");
    assert_eq!(
        run.decision().as_deref(),
        Some(decision),
        "{label}: {run:?}"
    );
    assert!(run.stdout.contains("could not check"), "{label}: {run:?}");
}

#[test]
fn past_its_deadline_the_hook_answers_its_fail_mode() {
    let (env, path) = slow_git(5);
    let started = Instant::now();
    let run = finish(spawn(&env, &path, Some(200)));
    let took = started.elapsed();
    check_last_word(&run, "ask", "deadline");
    assert!(took < Duration::from_secs(4), "it waited for git: {took:?}");
}

#[test]
fn the_last_word_follows_the_configured_fail_mode() {
    let (env, path) = slow_git(5);
    let config = env.home().join(".config/oath/config.yaml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, "on_error: deny\n").unwrap();
    let run = finish(spawn(&env, &path, Some(200)));
    assert_valid_answer(&run, Some("PreToolUse"), "deny mode");
    assert_eq!(run.decision().as_deref(), Some("deny"), "{run:?}");
}

#[test]
fn an_abort_still_answers() {
    // An allocation past the memory cap aborts: the same last word answers.
    let (env, path) = slow_git(5);
    let child = spawn(&env, &path, None);
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-ABRT", &child.id().to_string()])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(killed.success());
    check_last_word(&finish(child), "ask", "abort");
}

#[test]
fn a_slow_git_within_the_deadline_is_answered_by_the_gate() {
    // The git budget (1.5 s) is under the default deadline (5 s): the gate itself answers,
    // counting the unknown worktree as work that would be lost.
    let (env, path) = slow_git(5);
    let run = finish(spawn(&env, &path, None));
    assert_valid_answer(&run, Some("PreToolUse"), "slow git");
    assert_eq!(run.decision().as_deref(), Some("ask"), "{run:?}");
    assert!(!run.stdout.contains("could not check"), "{run:?}");
}

/// On Codex CLI and Gemini CLI, which run the tool when a hook times out and cannot ask,
/// the last word is a deny in the client's own form.
#[test]
fn past_its_deadline_codex_and_gemini_are_told_deny() {
    let (env, path) = slow_git(5);
    let codex = json!({"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t",
        "tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf src"}});
    let gemini = json!({"hook_event_name":"BeforeTool","session_id":"s",
        "timestamp":"2026-11-25T20:11:07.521Z","tool_name":"run_shell_command",
        "tool_input":{"command":"rm -rf src"}});
    for (label, payload) in [("codex", codex), ("gemini", gemini)] {
        let mut cmd = env.hook_command();
        cmd.env("PATH", &path).env("OATH_DEADLINE_MS", "200");
        let started = Instant::now();
        let run = finish(spawn_with_stdin(cmd, payload.to_string().as_bytes()));
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{label}: waited"
        );
        assert_eq!(run.code, Some(0), "{label}: {run:?}");
        let answer = run
            .answer()
            .unwrap_or_else(|| panic!("{label}: silence: {run:?}"));
        let (decision, reason) = if label == "codex" {
            let s = &answer["hookSpecificOutput"];
            (
                s["permissionDecision"].clone(),
                s["permissionDecisionReason"].clone(),
            )
        } else {
            (answer["decision"].clone(), answer["reason"].clone())
        };
        assert_eq!(decision, "deny", "{label}: {answer}");
        let reason = reason.as_str().unwrap_or_default();
        assert!(reason.contains("could not check"), "{label}: {reason}");
        assert!(reason.contains("cannot ask"), "{label}: {reason}");
    }
}
