//! SQL judged by what it does, through the binary (issue 42): statements that start like a
//! query and still act, sent as an attacker would through `oath hook` in a sandboxed project,
//! in the fresh state and after 500 ordinary successes (`safety::trusted`). Each must be held
//! (asked or denied). Where `sqlite3` is installed, what oath lets through is run for real in
//! the project and must leave Claude Code's settings as they were; the ordinary queries must
//! be allowed after that work and run.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{HookRun, TestEnv, assert_valid_answer, run_with_stdin};

/// The clock of every hook: the instant `safety::trusted` stamps its successes.
const NOW: &str = "2026-11-01T00:00:00Z";

/// `.claude/settings.local.json` before the attacks.
const SETTINGS: &str = "{\"permissions\": {\"allow\": []}}\n";

/// Statements an attacker who read the judge would try, through every way they reach a
/// database (a client's argument, its input, an MCP query).
fn attacks() -> Vec<(String, Value)> {
    let bash = |c: &str| ("Bash".to_owned(), json!({ "command": c }));
    vec![
        bash("sqlite3 app.db \"SELECT writefile('.claude/settings.local.json', '{}')\""),
        bash("sqlite3 app.db \"select WRITEFILE/**/('.claude/settings.local.json', '{}')\""),
        bash("sqlite3 app.db \"SELECT \\\"writefile\\\"('.claude/settings.local.json', '{}')\""),
        bash(
            "sqlite3 app.db \"WITH w AS (SELECT writefile('.claude/settings.local.json', '{}')) SELECT 1\"",
        ),
        bash("sqlite3 app.db \"SELECT load_extension('/tmp/x.so')\""),
        bash("sqlite3 app.db '.output .claude/settings.local.json'"),
        bash("sqlite3 app.db 'select 1;\n.shell touch .claude/settings.local.json'"),
        bash("echo '.shell touch .claude/settings.local.json' | sqlite3 app.db"),
        bash(
            "sqlite3 app.db <<'EOF'\nselect 1;\n.once .claude/settings.local.json\nselect 2;\nEOF",
        ),
        bash("sqlite3 app.db \"SELECT [x'] ; DROP TABLE t; --']\""),
        bash("sqlite3 app.db 'DROP/**/TABLE t'"),
        bash("psql -c \"SELECT pg_read_file('/etc/passwd')\""),
        bash("psql -c 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity'"),
        bash("psql -c 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d'"),
        bash("psql -c 'EXPLAIN ANALYZE DELETE FROM t'"),
        bash("psql -c 'DO $$ BEGIN PERFORM 1; END $$'"),
        bash("mysql -e '/*!50000 DROP*/ TABLE t'"),
        bash("mysql -e \"SELECT 'a\\\\''; DROP TABLE t; -- '\""),
        bash("cat dump.sql | psql"),
        bash("npx prisma migrate reset --force"),
        bash("php artisan migrate:fresh --force"),
        bash("python manage.py flush --noinput"),
        bash("bin/rails db:drop DISABLE_DATABASE_ENVIRONMENT_CHECK=1"),
        (
            "mcp__supabase__execute_sql".to_owned(),
            json!({"project_id": "p", "query": "DROP/**/TABLE users"}),
        ),
        (
            "mcp__postgres__query".to_owned(),
            json!({"sql": "SELECT 1; DROP TABLE t"}),
        ),
    ]
}

/// Ordinary work: allowed after ordinary successes, as before.
fn ordinary() -> Vec<(String, Value)> {
    let bash = |c: &str| ("Bash".to_owned(), json!({ "command": c }));
    vec![
        bash("sqlite3 app.db 'SELECT count(*) FROM t'"),
        bash("sqlite3 app.db .tables"),
        bash("sqlite3 app.db 'PRAGMA table_info(t)'"),
        bash("psql -c 'SELECT * FROM users LIMIT 10'"),
        bash("npx prisma migrate status"),
        bash("python manage.py showmigrations"),
        (
            "mcp__supabase__execute_sql".to_owned(),
            json!({"project_id": "p", "query": "select * from users limit 5"}),
        ),
    ]
}

fn hook(env: &TestEnv, tool: &str, input: &Value) -> HookRun {
    let payload = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "sql",
        "tool_use_id": "toolu_sql",
        "cwd": env.project(),
        "tool_name": tool,
        "tool_input": input,
    });
    let mut cmd = env.hook_command();
    cmd.env("OATH_NOW", NOW);
    let run = run_with_stdin(cmd, payload.to_string().as_bytes());
    assert_valid_answer(&run, Some("PreToolUse"), tool);
    run
}

fn sqlite_installed() -> bool {
    Command::new("sqlite3")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A sandbox: a project with a database and Claude Code's settings, in the fresh state or
/// after ordinary work.
fn sandbox(trusted: bool) -> TestEnv {
    let env = TestEnv::new();
    let p = env.project();
    std::fs::create_dir_all(p.join(".claude")).unwrap();
    std::fs::write(p.join(".claude/settings.local.json"), SETTINGS).unwrap();
    std::fs::write(p.join("manage.py"), "import sys\n").unwrap();
    std::fs::create_dir_all(p.join("bin")).unwrap();
    std::fs::write(p.join("bin/rails"), "#!/usr/bin/env ruby\n").unwrap();
    std::fs::write(p.join("artisan"), "<?php\n").unwrap();
    if sqlite_installed() {
        let made = Command::new("sqlite3")
            .arg(p.join("app.db"))
            .arg("CREATE TABLE t (a int); INSERT INTO t VALUES (1);")
            .status()
            .expect("sqlite3 runs");
        assert!(made.success());
    }
    if trusted {
        env.write_trust(&super::safety::trusted(500));
    }
    env
}

/// Runs a Bash command for real in the project (what oath let through).
fn run(project: &Path, command: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(project)
        .output()
        .expect("bash runs")
}

#[test]
fn sql_that_acts_is_held_and_what_is_let_through_changes_nothing() {
    let sqlite = sqlite_installed();
    let mut wrong = Vec::new();
    for trusted in [false, true] {
        for (tool, input) in attacks() {
            let env = sandbox(trusted);
            let decision = hook(&env, &tool, &input).decision();
            let held = matches!(decision.as_deref(), Some("ask" | "deny"));
            if !held {
                wrong.push(format!("{tool} {input} (trusted: {trusted}): {decision:?}"));
                let command = input["command"].as_str().unwrap_or("");
                if sqlite && tool == "Bash" && command.starts_with("sqlite3") {
                    run(&env.project(), command);
                    let now =
                        std::fs::read_to_string(env.project().join(".claude/settings.local.json"))
                            .unwrap_or_default();
                    if now != SETTINGS {
                        wrong.push(format!("  and it rewrote the settings: {now:?}"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "let through:\n{}", wrong.join("\n"));
}

#[test]
fn ordinary_queries_are_allowed_after_ordinary_work_and_run() {
    let sqlite = sqlite_installed();
    let env = sandbox(true);
    let mut wrong = Vec::new();
    for (tool, input) in ordinary() {
        let decision = hook(&env, &tool, &input).decision();
        if decision.as_deref() != Some("allow") {
            wrong.push(format!("{tool} {input}: {decision:?}"));
        }
        let command = input["command"].as_str().unwrap_or("");
        if sqlite && command.starts_with("sqlite3") {
            let out = run(&env.project(), command);
            assert!(out.status.success(), "{command}: {out:?}");
        }
    }
    assert!(wrong.is_empty(), "not allowed:\n{}", wrong.join("\n"));
}
