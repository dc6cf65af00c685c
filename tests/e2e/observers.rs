//! Issue 5: a `postToolUse` command configured in `.oath.yaml` runs after a real Bash call and
//! sees the real tool name, input, output and `tool_use_id` in its environment.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::harness::{Opts, Project};
use crate::server::{Script, bash, tool};

/// Parses `env -0` output.
fn parse_env0(bytes: &[u8]) -> BTreeMap<String, String> {
    bytes
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (k, v) = entry.split_once('=')?;
            Some((k.to_owned(), v.to_owned()))
        })
        .collect()
}

#[test]
fn post_tool_command_sees_the_real_call() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello\n");
    let observed = p.home().join("observed.env");
    p.write(
        ".oath.yaml",
        "postToolUse:\n  commands:\n    - tool: Bash\n      run: |\n        env -0 > \"$HOME/observed.env\"\n        cat \"$OATH_TOOL_OUTPUT_FILE\" > \"$HOME/observed.output\"\n",
    );
    // The user approves the project's file, as they would after reading it.
    let ok = p
        .oath()
        .args(["config", "trust"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "oath config trust");
    let marker = "observed-output-7f3a";
    let command = format!("echo {marker}");
    let script = Script::new()
        .call(bash(&command))
        // A Read afterwards must not trigger the Bash-only command (it would overwrite the file).
        .call(tool(
            "Read",
            json!({"file_path": p.root().join("notes.txt")}),
        ))
        .say("Done.");
    let run = p.run("Say something", script, &Opts::allow("Bash,Read"));
    let id = run.id(0);
    assert_eq!(
        run.records_for("outcome", id).len(),
        1,
        "{}",
        run.audit_text()
    );

    let bytes = std::fs::read(&observed).unwrap_or_else(|e| {
        panic!(
            "the postToolUse command did not write {} ({e}); audit:\n{}",
            observed.display(),
            run.audit_text()
        )
    });
    let env = parse_env0(&bytes);
    let get = |k: &str| {
        env.get(k)
            .cloned()
            .unwrap_or_else(|| panic!("{k} missing from the command's environment: {env:?}"))
    };
    assert_eq!(get("OATH_TOOL_NAME"), "Bash");
    assert_eq!(get("OATH_TOOL_USE_ID"), id);
    assert_eq!(get("OATH_SESSION_ID"), run.session_id);
    assert_eq!(get("OATH_TOOL_OUTCOME"), "success");
    let input: Value = serde_json::from_str(&get("OATH_TOOL_INPUT"))
        .unwrap_or_else(|e| panic!("OATH_TOOL_INPUT is not JSON ({e})"));
    assert_eq!(input["command"], command.as_str(), "{input}");
    // The output is the real tool_response: it holds what the command printed.
    let output = get("OATH_TOOL_OUTPUT");
    assert!(output.contains(marker), "OATH_TOOL_OUTPUT: {output}");
    // The whole output, as the command read it from OATH_TOOL_OUTPUT_FILE.
    let whole = std::fs::read_to_string(p.home().join("observed.output")).unwrap_or_default();
    assert!(
        whole.contains(marker),
        "OATH_TOOL_OUTPUT_FILE held {whole:?}"
    );
    // The model got the same output.
    assert!(run.tool_result_text(id).contains(marker));
}
