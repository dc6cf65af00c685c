//! Issue 2: every hook event of a real session reaches oath, and the audit joins each tool
//! call's pre record to its outcome by `tool_use_id`.

use serde_json::json;

use crate::harness::{Opts, Project};
use crate::server::{Script, bash, tool};

#[test]
fn every_hook_event_reaches_oath_and_pre_joins_outcome() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello world\n");
    let notes = p.root().join("notes.txt");
    let out = p.root().join("out.txt");
    let script = Script::new()
        .call(tool("Read", json!({"file_path": notes})))
        .call(tool(
            "Edit",
            json!({"file_path": notes, "old_string": "hello world", "new_string": "hello e2e"}),
        ))
        .call(bash("exit 3"))
        .call(tool(
            "Write",
            json!({"file_path": out, "content": "written by the scripted model\n"}),
        ))
        .say("Finished.");
    let run = p.run(
        "Edit the notes, try the build, write out.txt",
        script,
        &Opts::allow("Read,Edit,Bash,Write"),
    );

    // The session ran to the end and every tool really ran.
    assert_eq!(run.result["is_error"], false, "{}", run.result);
    assert_eq!(run.result["result"], "Finished.", "{}", run.result);
    assert!(run.denials().is_empty(), "{}", run.result);
    assert_eq!(p.read("notes.txt").as_deref(), Some("hello e2e\n"));
    assert_eq!(
        p.read("out.txt").as_deref(),
        Some("written by the scripted model\n")
    );
    let bash_id = run.id(2);
    assert_eq!(run.tool_result(bash_id)["is_error"], true);
    assert!(
        run.tool_result_text(bash_id).contains("Exit code 3"),
        "{}",
        run.tool_result(bash_id)
    );

    // Every tool call: one pre record, then one outcome from the right hook, joined by id.
    let expected = [
        ("Read", "success", "PostToolUse"),
        ("Edit", "success", "PostToolUse"),
        ("Bash", "failure", "PostToolUseFailure"),
        ("Write", "success", "PostToolUse"),
    ];
    assert_eq!(run.sent.len(), expected.len());
    for (n, (tool_name, outcome, hook)) in expected.into_iter().enumerate() {
        let id = run.id(n);
        let pre = run.pre(id);
        assert_eq!(pre["tool_name"], tool_name, "{pre}");
        assert_eq!(pre["session_id"], run.session_id.as_str(), "{pre}");
        assert_eq!(pre["outcome"], "pending", "{pre}");
        let outcomes = run.records_for("outcome", id);
        assert_eq!(
            outcomes.len(),
            1,
            "one outcome for {tool_name} {id}; audit:\n{}",
            run.audit_text()
        );
        let o = outcomes[0];
        assert_eq!(o["tool_name"], tool_name, "{o}");
        assert_eq!(o["outcome"], outcome, "{o}");
        assert_eq!(o["hook"], hook, "{o}");
        assert_eq!(
            o["domain"], pre["domain"],
            "pre and outcome disagree: {pre} / {o}"
        );
        let pos = |r: &serde_json::Value| run.audit.iter().position(|x| x == r);
        assert!(pos(pre) < pos(o), "outcome before pre for {id}");
    }
    assert_eq!(
        run.records("pre").len(),
        expected.len(),
        "{}",
        run.audit_text()
    );
    assert_eq!(
        run.records("outcome").len(),
        expected.len(),
        "{}",
        run.audit_text()
    );

    // The session's other events (those 2.1.197 and 2.1.332 fire in -p mode, per their
    // captured fixtures' session-a): each reached oath and left a record naming it.
    let named = |event: &str| {
        run.audit
            .iter()
            .filter(|r| {
                r["hook_event_name"] == event
                    || (event == "SessionStart" && r["kind"] == "session_start")
            })
            .count()
    };
    for event in ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"] {
        assert_eq!(
            named(event),
            1,
            "{event} once; audit:\n{}",
            run.audit_text()
        );
    }
    // One PostToolBatch per batch of tool calls (four single-call turns).
    assert_eq!(named("PostToolBatch"), 4, "audit:\n{}", run.audit_text());
    for r in &run.audit {
        assert_eq!(r["session_id"], run.session_id.as_str(), "{r}");
    }
}

/// A Write of a long file from the real client: the pre record keeps the content's head,
/// size and digest, the file is written whole, and the digest is that of what was written.
#[test]
fn a_long_write_is_recorded_by_its_digest_and_written_whole() {
    let Some(p) = Project::new() else { return };
    let out = p.root().join("big.rs");
    let content = "fn main() {\n\tprintln!(\"é 😀 \\\\ done\");\n}\n".repeat(8_000);
    assert!(content.len() > 300_000);
    let script = Script::new()
        .call(tool("Write", json!({"file_path": out, "content": content})))
        .say("Written.");
    let run = p.run("Write big.rs", script, &Opts::allow("Write"));
    assert_eq!(run.result["is_error"], false, "{}", run.result);
    assert!(run.denials().is_empty(), "{}", run.result);
    assert_eq!(p.read("big.rs").as_deref(), Some(content.as_str()));
    let id = run.id(0);
    let logged = run.pre(id)["tool_input"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let digest = blake3::hash(content.as_bytes()).to_hex();
    assert!(
        logged.starts_with("fn main() {\n\tprintln!")
            && logged.ends_with(&format!(
                "[... truncated by oath: {} bytes, blake3 {digest}]",
                content.len()
            ))
            && logged.len() <= 2048,
        "{logged}"
    );
    let outcomes = run.records_for("outcome", id);
    assert_eq!(outcomes.len(), 1, "{}", run.audit_text());
    assert_eq!(outcomes[0]["outcome"], "success");
}
