//! Self-protection for Codex CLI and Gemini CLI (issue 31): the files those clients read
//! their hooks and their hook trust from are refused to the agent as Claude Code's settings
//! are, through a Write, an Edit and a shell redirect.

use serde_json::{Value, json};

use crate::support::TestEnv;

/// What oath's self-protection says in its reason.
const SELF_PROTECT: &str = "oath's own configuration";

fn call(
    env: &TestEnv,
    tool: &str,
    input: Value,
    extra: &[(&str, &std::path::Path)],
) -> (String, String) {
    let payload = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "sess-protect",
        "cwd": env.project(),
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_protect",
    });
    let mut cmd = env.oath();
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd
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

/// Sends a Write, an Edit and a shell redirect at `path`; returns what is not refused as
/// self-protection.
fn unheld(
    env: &TestEnv,
    path: &std::path::Path,
    extra: &[(&str, &std::path::Path)],
) -> Vec<String> {
    let p = path.display().to_string();
    let calls = [
        ("Write", json!({"file_path": p, "content": "{}\n"})),
        (
            "Edit",
            json!({"file_path": p, "old_string": "\"hooks\"", "new_string": "\"x\""}),
        ),
        ("Bash", json!({"command": format!("echo '{{}}' > '{p}'")})),
    ];
    let mut out = Vec::new();
    for (tool, input) in calls {
        let (decision, reason) = call(env, tool, input, extra);
        let held = matches!(decision.as_str(), "deny" | "ask") && reason.contains(SELF_PROTECT);
        if !held {
            out.push(format!("{tool} {p}: {decision} ({reason})"));
        }
    }
    out
}

#[test]
fn codex_and_gemini_hook_files_are_refused_like_claude_settings() {
    let env = TestEnv::new();
    let home = env.home();
    let project = env.project();
    for dir in [
        home.join(".claude"),
        home.join(".codex"),
        home.join(".gemini"),
        project.join(".gemini"),
        project.join(".codex"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let files = [
        // The control: Claude Code's own settings.
        home.join(".claude/settings.json"),
        home.join(".codex/hooks.json"),
        home.join(".codex/config.toml"),
        project.join(".codex/hooks.json"),
        project.join(".codex/config.toml"),
        home.join(".gemini/settings.json"),
        home.join(".gemini/trusted_hooks.json"),
        home.join(".gemini/trustedFolders.json"),
        project.join(".gemini/settings.json"),
    ];
    let mut failures = Vec::new();
    for f in &files {
        std::fs::write(f, "{\"hooks\": {}}\n").unwrap();
        failures.extend(unheld(&env, f, &[]));
    }
    assert!(failures.is_empty(), "not refused:\n{}", failures.join("\n"));
    // An ordinary file of the project is not self-protection: the test can tell.
    let plain = project.join("notes.json");
    std::fs::write(&plain, "{\"hooks\": {}}\n").unwrap();
    assert_eq!(unheld(&env, &plain, &[]).len(), 3);
}

#[test]
fn codex_home_moves_the_protected_files_with_it() {
    let env = TestEnv::new();
    let codex_home = env.dir.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let mut failures = Vec::new();
    for name in ["hooks.json", "config.toml"] {
        let f = codex_home.join(name);
        std::fs::write(&f, "{}\n").unwrap();
        failures.extend(unheld(&env, &f, &[("CODEX_HOME", &codex_home)]));
    }
    assert!(failures.is_empty(), "not refused:\n{}", failures.join("\n"));
}

#[test]
fn gemini_cli_home_and_its_trusted_folders_path_move_the_protected_files_with_them() {
    let env = TestEnv::new();
    let gemini_home = env.dir.path().join("gemini-home");
    let dir = gemini_home.join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let folders = env.dir.path().join("elsewhere/folders.json");
    std::fs::create_dir_all(folders.parent().unwrap()).unwrap();
    let vars = [
        ("GEMINI_CLI_HOME", gemini_home.as_path()),
        ("GEMINI_CLI_TRUSTED_FOLDERS_PATH", folders.as_path()),
    ];
    let mut failures = Vec::new();
    for f in [
        dir.join("settings.json"),
        dir.join("trusted_hooks.json"),
        dir.join("trustedFolders.json"),
        folders.clone(),
    ] {
        std::fs::write(&f, "{}\n").unwrap();
        failures.extend(unheld(&env, &f, &vars));
    }
    assert!(failures.is_empty(), "not refused:\n{}", failures.join("\n"));
}
