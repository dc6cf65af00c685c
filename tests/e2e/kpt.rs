//! Issue 7: after a real session ends, `oath kpt new` writes a draft retrospective, wrong only
//! at the placeholders left to fill, whose metrics are those of the session the client ran.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::json;

use crate::harness::{Opts, Project};
use crate::server::{Script, bash, tool};

#[test]
fn kpt_draft_of_a_real_session_has_its_metrics() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello world\n");
    let notes = p.root().join("notes.txt");
    let script = Script::new()
        .call(tool("Read", json!({"file_path": notes})))
        .call(tool(
            "Edit",
            json!({"file_path": notes, "old_string": "hello world", "new_string": "hello kpt"}),
        ))
        .call(bash("exit 3"))
        .call(tool(
            "Write",
            json!({"file_path": p.root().join("summary.md"), "content": "# Summary\n\nDone.\n"}),
        ))
        .say("All done.");
    let run = p.run(
        "Update the notes and write a summary",
        script,
        &Opts::allow("Read,Edit,Bash,Write"),
    );
    assert_eq!(run.result["is_error"], false, "{}", run.result);

    let out = p
        .oath()
        .args(["kpt", "new", "--session", &run.session_id])
        .output()
        .expect("run oath kpt new");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "oath kpt new failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = PathBuf::from(stdout.trim());
    assert!(
        path.starts_with(p.kpt_dir()),
        "draft {} outside OATH_KPT_DIR",
        path.display()
    );
    let text = std::fs::read_to_string(&path).expect("read the draft");

    // Wrong only at its placeholders, as the CLI checks it and as the library reads it.
    let check = p
        .oath()
        .arg("kpt")
        .arg("validate")
        .arg(&path)
        .output()
        .expect("run oath kpt validate");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        !check.status.success() && stderr.lines().all(|l| l.contains("TODO(judgement)")),
        "the draft is wrong beyond its placeholders: {}{stderr}\n{text}",
        String::from_utf8_lossy(&check.stdout),
    );
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let beyond = oath::kpt::report::issues_beyond_placeholders(&text, stem.as_deref());
    assert!(
        beyond.is_empty(),
        "library rejects the draft: {beyond:?}\n{text}"
    );
    let draft: serde_json::Value = serde_saphyr::from_str(&text).expect("the draft is YAML");
    let m: oath::kpt::report::Metrics = serde_json::from_value(draft["metrics"].clone())
        .unwrap_or_else(|e| panic!("draft without metrics ({e}):\n{text}"));

    // The session as the client and the mock saw it.
    let sent = &run.sent;
    let tools: BTreeSet<String> = sent.iter().map(|u| u.name.clone()).collect();
    let failures = sent
        .iter()
        .filter(|u| run.tool_result(&u.id)["is_error"] == true)
        .count() as u64;
    let changes = sent
        .iter()
        .filter(|u| matches!(u.name.as_str(), "Write" | "Edit"))
        .filter(|u| run.tool_result(&u.id)["is_error"] != true)
        .count() as u64;
    let changed_files: BTreeSet<String> = sent
        .iter()
        .filter(|u| matches!(u.name.as_str(), "Write" | "Edit"))
        .filter_map(|u| u.input["file_path"].as_str().map(str::to_owned))
        .collect();
    let model_turns = run.main_turns().len() as u64;

    let ctx = format!("metrics {m:?}\n{text}");
    assert_eq!(m.user_turns, Some(1), "{ctx}");
    assert_eq!(m.assistant_turns, Some(model_turns), "{ctx}");
    assert_eq!(m.session_duration_turns, Some(1 + model_turns), "{ctx}");
    assert_eq!(m.tool_use_count, Some(sent.len() as u64), "{ctx}");
    assert_eq!(
        m.unique_tools,
        Some(tools.into_iter().collect::<Vec<_>>()),
        "{ctx}"
    );
    assert_eq!(m.error_count, Some(failures), "{ctx}");
    assert_eq!(failures, 1);
    assert_eq!(m.code_changes_count, Some(changes), "{ctx}");
    assert_eq!(m.files_changed, Some(changed_files.len() as u64), "{ctx}");
    assert_eq!(
        m.permission_denial_count,
        Some(run.denials().len() as u64),
        "{ctx}"
    );
    assert_eq!(m.correction_count, Some(0), "{ctx}");
    assert!(m.lines_added.unwrap_or(0) >= 1, "{ctx}");
}
