//! Overwriting is deleting (issue 42), through the binary in a real git repository: a
//! committed file with uncommitted changes, an untracked file, an ignored file, a tracked
//! clean file and a file that is not there. After ordinary work has earned trust, each way
//! of replacing a file's content is asked where git says work would be lost, and allowed
//! where nothing is; appending, and the client's own Write tool (its checkpoint brings the
//! file back), are not asked.

use serde_json::json;

use crate::support::git;
use crate::support::{TestEnv, assert_valid_answer, clip};

/// A repository with `README.md`, `notes.md`, `main.c` and `src/lib.rs` committed, then
/// `notes.md` changed, `scratch.txt` untracked, and `target/out.txt` and `build.log`
/// ignored.
fn repository(env: &TestEnv) {
    let p = env.project();
    let write = |rel: &str, text: &str| {
        let f = p.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    };
    write(".gitignore", "target/\n*.log\n");
    write("README.md", "# app\n");
    write("notes.md", "committed notes\n");
    write("main.c", "int main(void) { return 0; }\n");
    write("src/lib.rs", "pub fn f() {}\n");
    git(&p, &["init", "-q", "-b", "main"]);
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "init"]);
    write("notes.md", "committed notes\nand an afternoon of work\n");
    write("scratch.txt", "only here\n");
    write("target/out.txt", "built\n");
    write("build.log", "a log\n");
}

/// Sends one Bash or Write call; returns the decision (`none`: no opinion) and the reason.
fn judge(env: &TestEnv, tool: &str, input: serde_json::Value, id: usize) -> (String, String) {
    let run = env.hook(&json!({
        "hook_event_name": "PreToolUse", "session_id": "overwrite", "tool_name": tool,
        "tool_use_id": format!("toolu_{id}"), "cwd": env.project(),
        "permission_mode": "default", "tool_input": input,
    }));
    assert_valid_answer(&run, Some("PreToolUse"), tool);
    let reason = run.answer().map_or_else(String::new, |a| {
        a["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    });
    (run.decision().unwrap_or_else(|| "none".into()), reason)
}

/// Each family of overwrite, `{}` standing for the file replaced.
const FAMILIES: &[&str] = &[
    "> {}",
    ": > {}",
    "echo hi > {}",
    "echo hi >| {}",
    "make &> {}",
    "sed -n 1p README.md > {}",
    "gzip -c README.md > {}",
    "cp /dev/null {}",
    "cp src/lib.rs {}",
    "mv src/lib.rs {}",
    "install -m 644 src/lib.rs {}",
    "ln -sf src/lib.rs {}",
    "rsync src/lib.rs {}",
    "truncate -s 0 {}",
    "echo x | tee {}",
    "dd if=/dev/zero of={} bs=1 count=1",
    "echo x | sponge {}",
    "sort -o {} README.md",
    "curl -so {} https://example.com/x",
    "gcc -o {} main.c",
];

#[test]
fn an_overwrite_is_asked_where_git_would_lose_work_and_allowed_where_not() {
    let env = TestEnv::new();
    repository(&env);
    env.write_trust(&super::safety::trusted(500));
    let mut wrong = Vec::new();
    let mut id = 0;
    for family in FAMILIES {
        for (file, want) in [
            ("notes.md", "ask"),
            ("scratch.txt", "ask"),
            ("README.md", "allow"),
            ("target/out.txt", "allow"),
            ("build.log", "allow"),
            ("new.txt", "allow"),
        ] {
            id += 1;
            let cmd = family.replace("{}", file);
            let (got, reason) = judge(&env, "Bash", json!({ "command": cmd }), id);
            if got != want {
                wrong.push(format!("{cmd}: {got}, want {want}: {}", clip(&reason)));
            } else if want == "ask" && !reason.contains("replacing what it holds") {
                wrong.push(format!(
                    "{cmd}: asked for another reason: {}",
                    clip(&reason)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Nothing ran: the work is still there.
    let notes = std::fs::read_to_string(env.project().join("notes.md")).unwrap();
    assert!(notes.contains("an afternoon of work"));
}

#[test]
fn appends_the_file_tools_and_devices_are_not_overwrites() {
    let env = TestEnv::new();
    repository(&env);
    env.write_trust(&super::safety::trusted(500));
    let notes = env.project().join("notes.md").display().to_string();
    let calls = [
        ("Bash", json!({"command": "echo hi >> notes.md"})),
        (
            "Bash",
            json!({"command": "echo hi | tee -a notes.md scratch.txt"}),
        ),
        ("Bash", json!({"command": "cp -n src/lib.rs notes.md"})),
        ("Bash", json!({"command": "echo done > /dev/null 2>&1"})),
        ("Bash", json!({"command": "echo done >&2"})),
        ("Bash", json!({"command": "echo done > /dev/stdout"})),
        (
            "Write",
            json!({"file_path": notes, "content": "new notes\n"}),
        ),
    ];
    for (i, (tool, input)) in calls.into_iter().enumerate() {
        let shown = input.to_string();
        let (got, reason) = judge(&env, tool, input, i);
        assert_eq!(got, "allow", "{tool} {shown}: {}", clip(&reason));
    }
}
