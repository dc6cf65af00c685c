//! Read the code before it runs: a script, a make recipe or a package script is judged by
//! the commands in it, through the binary, with the trust ordinary work earns. What a file
//! holds when the call is decided is the truth: written in one call and run in the next
//! is judged as written and run on one line.

use serde_json::{Value, json};

use crate::support::{TestEnv, assert_valid_answer};

/// Contents of each family: (what it holds, the decision running it gets after trust).
const CONTENTS: [(&str, &str, &str); 3] = [
    ("catastrophic", "set -e\nrm -rf \"$HOME\"\n", "deny"),
    ("irreversible", "cat ~/.ssh/id_rsa\n", "ask"),
    ("harmless", "echo building\nls -la\n", "allow"),
];

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.write_trust(&super::safety::trusted(500));
    env
}

fn decide(env: &TestEnv, tool_name: &str, input: Value) -> String {
    let run = env.hook(&json!({
        "hook_event_name": "PreToolUse", "session_id": "s1", "cwd": env.project(),
        "tool_name": tool_name, "tool_use_id": "t1", "tool_input": input,
    }));
    assert_valid_answer(&run, Some("PreToolUse"), &input.to_string());
    run.decision().unwrap_or_else(|| "none".into())
}

fn bash(env: &TestEnv, cmd: &str) -> String {
    decide(env, "Bash", json!({ "command": cmd }))
}

fn write(env: &TestEnv, path: &str, text: &str) {
    let p = env.project().join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn a_script_is_judged_by_its_commands_whichever_way_it_runs() {
    let env = env();
    let runners = [
        "bash scripts/x.sh",
        "sh scripts/x.sh",
        "zsh ./scripts/x.sh",
        "./scripts/x.sh",
        "source scripts/x.sh",
        ". scripts/x.sh",
        "bash < scripts/x.sh",
        "cd scripts && bash x.sh",
        "bash scripts/outer.sh",
    ];
    let mut wrong = Vec::new();
    for (family, text, want) in CONTENTS {
        write(&env, "scripts/x.sh", &format!("#!/bin/sh\n{text}"));
        write(&env, "scripts/outer.sh", "echo outer\nbash scripts/x.sh\n");
        for cmd in runners {
            let got = bash(&env, cmd);
            if got != want {
                wrong.push(format!("{family}: {cmd}: {got}, want {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn interpreters_read_their_scripts() {
    let env = env();
    write(
        &env,
        "gen.py",
        "import os, shutil\nshutil.rmtree(os.path.expanduser('~'))\n",
    );
    write(
        &env,
        "tool.js",
        "#!/usr/bin/env node\nrequire('child_process').execSync('rm -rf ~')\n",
    );
    for cmd in [
        "python3 gen.py",
        "python gen.py",
        "node tool.js",
        "./tool.js",
    ] {
        assert_eq!(bash(&env, cmd), "deny", "{cmd}");
    }
}

#[test]
fn make_recipes_and_package_scripts_are_judged_by_what_they_run() {
    let env = env();
    let mut wrong = Vec::new();
    for (family, text, want) in CONTENTS {
        let recipe: String = text
            .lines()
            .filter(|l| !l.starts_with("set "))
            .map(|l| format!("\t{}\n", l.replace('$', "$$")))
            .collect();
        write(
            &env,
            "Makefile",
            &format!("all: build\nbuild:\n\techo ok\ndeploy: build\n{recipe}"),
        );
        let script = text
            .lines()
            .filter(|l| !l.starts_with("set "))
            .collect::<Vec<_>>()
            .join(" && ");
        write(
            &env,
            "package.json",
            &json!({"scripts": {"test": "echo testing", "pretest": script, "deploy": script}})
                .to_string(),
        );
        for cmd in [
            "make deploy",
            "make -C . deploy",
            "npm test",
            "npm run deploy",
            "pnpm deploy",
            "yarn deploy",
            "bun run deploy",
        ] {
            let got = bash(&env, cmd);
            if got != want {
                wrong.push(format!("{family}: {cmd}: {got}, want {want}"));
            }
        }
    }
    // What the file does not run is not held against it.
    write(&env, "Makefile", "build:\n\techo ok\nclean:\n\trm -rf ~\n");
    if bash(&env, "make build") != "allow" {
        wrong.push("make build of a Makefile whose other target wipes the home".into());
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn written_in_one_call_and_run_in_the_next_is_judged_as_on_one_line() {
    let env = env();
    let text = "rm -rf ~/precious\n";
    // The Write tool's call itself writes a file in the project: not held.
    let wrote = decide(
        &env,
        "Write",
        json!({"file_path": env.project().join("scripts/clean.sh"), "content": text}),
    );
    assert_ne!(wrote, "deny");
    write(&env, "scripts/clean.sh", text);
    let two_calls = bash(&env, "bash scripts/clean.sh");
    let one_line = bash(
        &env,
        "cat > scripts/clean.sh <<'EOF'\nrm -rf ~/precious\nEOF\nbash scripts/clean.sh",
    );
    assert_eq!(two_calls, "deny");
    assert_eq!(one_line, two_calls);
    // Changed since: the file on disk decides, not what oath saw before.
    write(&env, "scripts/clean.sh", "echo clean\n");
    assert_eq!(bash(&env, "bash scripts/clean.sh"), "allow");
    // Written on the line by something oath cannot read: not understood, never allowed.
    assert_ne!(
        bash(
            &env,
            "cp scripts/other.sh scripts/clean.sh; bash scripts/clean.sh"
        ),
        "allow"
    );
}
