//! Protected files through every program (issue 42, item 6), through the binary: in a git
//! project whose `.claude/settings.json` was never committed and whose
//! `.claude/settings.local.json` is ignored, `git stash -u` (in any form), `git stash -a` and
//! `git clean -fdx` would take them away, and the next session would run unguarded. Each call
//! is judged in the fresh state and after 500 ordinary successes; what oath lets through is
//! run for real, and the settings must still be there. A Write of the settings file is denied
//! as it always was, and so are patterns and find's name tests that reach the settings
//! (`rm -rf .c*`, `find . -name settings.json -delete`); ordinary work (`git stash` of
//! tracked changes, a build into `build/`, a clone into `vendor/`) keeps its answer.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::git;

/// The clock of every hook: the instant `safety::trusted` stamps its successes.
const NOW: &str = "2026-11-01T00:00:00Z";

/// The project's settings, with a hook that must stay in place.
const SETTINGS: &str = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"oath hook\"}]}]}}\n";

/// A project: `src/a.c` and `.gitignore` committed, `.claude/settings.json` untracked,
/// `.claude/settings.local.json` ignored, a tracked change in `src/a.c`.
fn project(trusted: bool) -> TestEnv {
    let env = TestEnv::new();
    let p = env.project();
    git(&p, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/a.c"), "int main(void) { return 0; }\n").unwrap();
    std::fs::write(p.join(".gitignore"), ".claude/settings.local.json\n").unwrap();
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "one"]);
    std::fs::create_dir_all(p.join(".claude")).unwrap();
    std::fs::write(p.join(".claude/settings.json"), SETTINGS).unwrap();
    std::fs::write(p.join(".claude/settings.local.json"), SETTINGS).unwrap();
    std::fs::write(p.join("src/a.c"), "int main(void) { return 1; }\n").unwrap();
    if trusted {
        env.write_trust(&crate::safety::trusted(500));
    }
    env
}

/// Returns the PreToolUse decision (`none` for no opinion) and its reason.
fn decide(env: &TestEnv, tool: &str, input: Value) -> (String, String) {
    let payload = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "sess-untracked",
        "cwd": env.project(),
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_untracked",
    });
    let out = env
        .oath()
        .env("OATH_NOW", NOW)
        .arg("hook")
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let a: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(text.trim()).unwrap()
    };
    let spec = &a["hookSpecificOutput"];
    (
        spec["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_owned(),
        spec["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
    )
}

fn bash(env: &TestEnv, command: &str) -> (String, String) {
    decide(env, "Bash", json!({ "command": command }))
}

/// Runs a command in the project, as the agent would once it is let through.
fn run(env: &TestEnv, command: &str) {
    let _ = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(env.project())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The ways to take the untracked or ignored settings away with git.
const TAKE_AWAY: &[&str] = &[
    "git stash -u",
    "git stash --include-untracked",
    "git stash push --include-u",
    "git stash -ua",
    "git stash --all",
    "git stash -a",
    "git stash push -u -- .claude",
    "git stash push -u -- '*.json'",
    "git stash push -u -- ':/'",
    "git stash save -u wip",
    "cd src && git stash -u",
    "git -C src stash -u",
    "git clean -fd",
    "git clean -fdx",
    "git clean -fX",
];

#[test]
fn git_cannot_stash_or_clean_away_untracked_or_ignored_settings() {
    let mut failures = Vec::new();
    for trusted in [false, true] {
        for cmd in TAKE_AWAY {
            let env = project(trusted);
            let (decision, reason) = bash(&env, cmd);
            if decision != "deny" || !reason.contains("oath-self-protect") {
                failures.push(format!("{cmd} (trusted {trusted}): {decision} ({reason})"));
            }
            if decision != "deny" && decision != "ask" {
                run(&env, cmd);
            }
            for f in [".claude/settings.json", ".claude/settings.local.json"] {
                let now = std::fs::read_to_string(env.project().join(f)).unwrap_or_default();
                if now != SETTINGS {
                    failures.push(format!("{cmd} (trusted {trusted}): {f} was taken away"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "not held:\n{}", failures.join("\n"));
}

#[test]
fn other_programs_cannot_write_or_hide_the_settings() {
    let env = project(true);
    let mut failures = Vec::new();
    let deny = [
        "gcc -E -P -x c -o .claude/settings.local.json src/a.c",
        "gh release download -O .claude/settings.json",
        "git mv -f src/a.c .claude/settings.json",
        "git config --file .claude/settings.json core.x y",
        "chmod 000 .claude",
        "chattr +i .claude",
        "gunzip .claude/settings.json.gz",
        "cd src && git clean -fdx ..",
        "find . -name settings.json -delete",
        "find . -name '*.json' -exec rm {} +",
        "rm -rf .c*",
        "chmod 000 .cl?ude",
    ];
    for cmd in deny {
        let (decision, reason) = bash(&env, cmd);
        if decision != "deny" {
            failures.push(format!("{cmd}: {decision} ({reason})"));
        }
    }
    // Writes whose outcome oath cannot see in full are asked.
    let held = [
        "cmake -E copy src/a.c .claude/settings.json",
        "git clone https://github.com/a/b .claude/agents",
        "cp -r src .claude",
        "rustc --out-dir .claude src/a.rs",
        "sqlite3 .claude/settings.json 'create table t(a)'",
        "chmod -R a-r .",
    ];
    for cmd in held {
        let (decision, reason) = bash(&env, cmd);
        if decision != "deny" && decision != "ask" {
            failures.push(format!("{cmd}: {decision} ({reason})"));
        }
    }
    let settings = env.project().join(".claude/settings.json");
    let tools = [
        (
            "Write",
            json!({"file_path": settings, "content": "{\"disableAllHooks\":true}"}),
        ),
        (
            "mcp__serena__create_text_file",
            json!({"relative_path": ".claude/settings.json", "content": "{}"}),
        ),
        (
            "mcp__jetbrains__replace_text_in_file",
            json!({"pathInProject": ".claude/settings.local.json", "text": "{}"}),
        ),
        (
            "mcp__fs__write_file",
            json!({"name": ".claude/settings.json", "data": "{}"}),
        ),
    ];
    for (tool, input) in tools {
        let (decision, reason) = decide(&env, tool, input);
        if decision != "deny" {
            failures.push(format!("{tool}: {decision} ({reason})"));
        }
    }
    assert!(failures.is_empty(), "not refused:\n{}", failures.join("\n"));
}

#[test]
fn ordinary_work_beside_the_settings_keeps_its_answer() {
    let env = project(true);
    let mut failures = Vec::new();
    for cmd in [
        "git stash",
        "git stash push -- src",
        "gcc -o build/x src/a.c",
        "git clone https://github.com/a/b vendor/x",
        "cat .claude/settings.json",
        "git clean -n -x",
        "find . -name settings.json -exec cat {} +",
        "ls .c*",
    ] {
        let (decision, reason) = bash(&env, cmd);
        if decision != "allow" {
            failures.push(format!("{cmd}: {decision} ({reason})"));
        }
    }
    // A find whose name tests cannot select a settings file keeps the whole tree's answer.
    let (decision, reason) = bash(&env, "find . -name '*.pyc' -delete");
    if decision == "deny" {
        failures.push(format!("find . -name '*.pyc' -delete: {reason}"));
    }
    // Untracked files of another folder hold none of the settings: what is asked there is
    // the work in it, not oath's files.
    let (decision, reason) = bash(&env, "git stash push -u -- src");
    if decision == "deny" {
        failures.push(format!("git stash push -u -- src: {reason}"));
    }
    // Once the settings are committed (and nothing is ignored), stashing the untracked rest
    // takes none of them.
    std::fs::remove_file(env.project().join(".claude/settings.local.json")).unwrap();
    git(&env.project(), &["add", ".claude/settings.json"]);
    git(&env.project(), &["commit", "-q", "-m", "settings"]);
    let (decision, reason) = bash(&env, "git stash -u");
    if decision == "deny" {
        failures.push(format!(
            "git stash -u with the settings committed: {reason}"
        ));
    }
    assert!(failures.is_empty(), "held:\n{}", failures.join("\n"));
}
