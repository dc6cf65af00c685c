//! Configuration a program loads, through the binary and a real file system: a folder of the
//! project that is a link to a temporary folder is that temporary folder, so naming it in
//! `PYTHONPATH` or working there with git (whose `.git/config` there names a command) is held,
//! while the project's own folders and repository stay allowed.

use serde_json::{Value, json};

use crate::support::TestEnv;

fn pre(env: &TestEnv, id: &str, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
           "cwd": env.project(), "tool_use_id": id, "tool_input": {"command": command}})
}

#[test]
fn a_project_folder_linked_to_a_temporary_one_is_foreign() {
    let env = TestEnv::new();
    let project = env.project();
    std::fs::create_dir_all(project.join("src")).unwrap();
    // The agent writes a temporary folder freely: a repository whose configuration runs a
    // command, and a module that would shadow the standard library's.
    let elsewhere = env.dir.path().join("scratch");
    std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
    std::fs::write(
        elsewhere.join(".git/config"),
        "[core]\n\tfsmonitor = touch pwned\n",
    )
    .unwrap();
    std::fs::write(elsewhere.join("json.py"), "import os\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join("vendor")).unwrap();

    for (i, command) in [
        "PYTHONPATH=vendor python3 -c 'import json'",
        "git -C vendor status",
        "cd vendor && git status",
    ]
    .into_iter()
    .enumerate()
    {
        let run = env.hook(&pre(&env, &format!("f{i}"), command));
        assert_eq!(run.decision().as_deref(), Some("ask"), "{command}: {run:?}");
    }
    for (i, command) in [
        "PYTHONPATH=src python3 -c 1",
        "git status",
        "git -C src status",
    ]
    .into_iter()
    .enumerate()
    {
        let run = env.hook(&pre(&env, &format!("o{i}"), command));
        assert_ne!(run.decision().as_deref(), Some("ask"), "{command}: {run:?}");
        assert_ne!(
            run.decision().as_deref(),
            Some("deny"),
            "{command}: {run:?}"
        );
    }
}
