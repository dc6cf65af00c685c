//! Issue 4: a project set up only with `oath install --project` is guarded: the settings file
//! the installer wrote makes a real session run every tool call through oath.

use oath::classify::Risk;
use serde_json::{Value, json};

use crate::engine::Engine;
use crate::harness::{Opts, Project, oath_bin};
use crate::server::{Script, bash, tool};

#[test]
fn project_set_up_only_with_oath_install_is_guarded() {
    let Some(p) = Project::bare() else { return };
    assert!(p.read(".claude/settings.json").is_none());

    // The installer sees the client on PATH, as a user's shell would.
    let client_dir = p.claude().parent().expect("client dir").to_path_buf();
    let path = std::env::join_paths(std::iter::once(client_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let out = p
        .oath()
        .args(["install", "--project"])
        .env("PATH", path)
        .output()
        .expect("run oath install");
    assert!(
        out.status.success(),
        "oath install --project failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let settings: Value = serde_json::from_str(
        &p.read(".claude/settings.json")
            .expect("install wrote no .claude/settings.json"),
    )
    .expect("settings.json is JSON");
    let exe = oath_bin();
    let pre_handlers = settings["hooks"]["PreToolUse"].to_string();
    assert!(
        pre_handlers.contains(&*exe.to_string_lossy()),
        "PreToolUse does not run this oath: {settings}"
    );

    p.write("notes.txt", "hello\n");
    let victim = p.home().join("important");
    std::fs::create_dir_all(&victim).expect("victim dir");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("victim file");
    let critical = "rm -rf ~/important";
    assert_eq!(Engine::new(&p).classify_bash(critical).risk, Risk::Critical);
    let script = Script::new()
        .call(tool(
            "Read",
            json!({"file_path": p.root().join("notes.txt")}),
        ))
        .call(bash("exit 3"))
        .call(bash(critical))
        .say("Done.");
    let run = p.run("Tidy up", script, &Opts::allow("Read,Bash"));

    // Every call went through the gate and its outcome was recorded.
    for (n, outcome) in [(0, "success"), (1, "failure")] {
        let id = run.id(n);
        run.pre(id);
        let o = run.records_for("outcome", id);
        assert_eq!(o.len(), 1, "{}", run.audit_text());
        assert_eq!(o[0]["outcome"], outcome);
    }
    let denied = run.id(2);
    assert_eq!(run.pre(denied)["decision"], "deny", "{}", run.audit_text());
    assert!(run.denied(denied), "{}", run.result);
    assert!(
        victim.join("keep.txt").is_file(),
        "the guarded project lost a file"
    );
    for event in ["UserPromptSubmit", "Stop", "SessionEnd"] {
        assert!(
            run.audit.iter().any(|r| r["hook_event_name"] == event),
            "{event} did not reach oath: {}",
            run.audit_text()
        );
    }
}
