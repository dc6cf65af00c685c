//! What oath creates in a project's git work tree stays out of `git status`, except what is
//! meant for the team; a `.gitignore` of the user's is never changed.

use serde_json::json;

use crate::support::TestEnv;
use crate::support::git;

/// A git repository with one commit holding `files`.
fn repo(env: &TestEnv, files: &[(&str, &str)]) {
    let root = env.project();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("README.md"), "project\n").unwrap();
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "start"]);
}

/// `git status`, every untracked file listed on its own.
fn status(env: &TestEnv) -> Vec<String> {
    git(
        &env.project(),
        &["status", "--porcelain", "--untracked-files=all"],
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

fn run(env: &TestEnv, args: &[&str]) -> String {
    let out = env.oath_with_bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", env.render(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn failure() -> serde_json::Value {
    json!({
        "hook_event_name": "PostToolUseFailure",
        "session_id": "sess-1",
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": ".",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test", "description": "Run the tests"},
        "tool_use_id": "toolu_1",
        "error": "error[E0425]: cannot find value `x` in this scope",
    })
}

#[test]
fn what_oath_creates_for_this_machine_stays_out_of_git_status() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    repo(&env, &[]);
    let root = env.project();

    // A hook run that creates `.plan/`: the 3-strike log.
    let run_hook = env.hook(&failure());
    assert_eq!(run_hook.code, Some(0), "{}", run_hook.stderr);
    assert!(root.join(".plan/main/errors.json").exists());
    // `.claude/`, created by oath: the phase, then a personal installation, taken back (its
    // backup stays) and made again.
    run(&env, &["phase", "set", "building"]);
    assert!(root.join(".claude/current-phase.md").exists());
    run(&env, &["install", "--local"]);
    run(&env, &["uninstall", "--local"]);
    run(&env, &["install", "--local"]);
    let claude = root.join(".claude");
    assert!(claude.join("settings.local.json").exists());
    assert!(claude.join("commands/quick-save.md").exists());
    let backups = std::fs::read_dir(&claude)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".oath-backup-"))
        .count();
    assert!(backups > 0, "uninstall left a backup");

    assert_eq!(status(&env), Vec::<String>::new());
    assert!(root.join(".plan/.gitignore").exists());
    assert!(claude.join(".gitignore").exists());
}

#[test]
fn a_teams_gemini_settings_stay_visible_but_not_oaths_backups() {
    let env = TestEnv::new();
    repo(
        &env,
        &[(".gemini/settings.json", "{\n  \"model\": \"pro\"\n}\n")],
    );
    run(&env, &["install", "--agent", "gemini", "--project"]);
    assert_eq!(status(&env), [" M .gemini/settings.json"]);
    // Taken back: the file is the team's again, and oath's backup stays out.
    run(&env, &["uninstall", "--agent", "gemini", "--project"]);
    assert_eq!(status(&env), Vec::<String>::new());
    let backups = std::fs::read_dir(env.project().join(".gemini"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".oath-backup-"))
        .count();
    assert!(backups > 0, "install backed the team's file up");
}

#[test]
fn a_teams_settings_and_commands_stay_visible_but_not_oaths_backups() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    repo(
        &env,
        &[(".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n")],
    );
    run(&env, &["install", "--project"]);
    run(&env, &["phase", "set", "planning"]);
    let mut st = status(&env);
    st.sort();
    assert_eq!(
        st,
        [
            " M .claude/settings.json",
            "?? .claude/commands/hurikaeri.md",
            "?? .claude/commands/quick-load.md",
            "?? .claude/commands/quick-save.md",
        ]
    );
}

#[test]
fn a_users_own_gitignore_in_claude_is_left_alone_and_what_it_lacks_is_said() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let users = "# mine\nscratch/\n";
    repo(
        &env,
        &[
            (".claude/settings.json", "{}\n"),
            (".claude/.gitignore", users),
        ],
    );
    let out = run(&env, &["install", "--project"]);
    assert!(
        out.contains("is yours, so oath left it as it is") && out.contains("`/*.oath-backup-*`"),
        "{out}"
    );
    let out = run(&env, &["phase", "set", "building"]);
    assert!(out.contains("`/current-phase.md`"), "{out}");
    let ignore = env.project().join(".claude/.gitignore");
    assert_eq!(std::fs::read_to_string(ignore).unwrap(), users);
}
