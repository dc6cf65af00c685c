//! Issue 30: an ask nobody can answer in `-p` mode. oath asks, the client refuses the call
//! (it sends no PermissionDenied for that, only the batch's PostToolBatch), and `oath audit`
//! shows the call refused by the client instead of `pending` forever, without moving trust.

use oath::decide::Decision;
use serde_json::Value;

use crate::engine::Engine;
use crate::harness::{Opts, Project};
use crate::server::{Script, bash};

#[test]
fn an_ask_the_client_refuses_in_print_mode_shows_in_the_audit() {
    let Some(p) = Project::new() else { return };
    let command = "git reset --hard HEAD~1";
    let engine = Engine::new(&p);
    let class = engine.classify_bash(command);
    assert_eq!(
        engine.decide(&class, engine.config.trust.initial_score),
        Decision::Ask,
        "{command}: {class:?}"
    );
    // No tool allowed: only a person could approve the call, and there is none in -p mode.
    let run = p.run(
        "Undo the last commit",
        Script::new().call(bash(command)).say("Stopped."),
        &Opts::default(),
    );
    let id = run.id(0);
    assert_eq!(run.pre(id)["decision"], "ask", "{}", run.audit_text());
    assert!(run.denied(id), "the client ran the call: {}", run.result);

    let out = p
        .oath()
        .args(["audit", "--json"])
        .output()
        .expect("run oath audit");
    assert!(out.status.success(), "{out:?}");
    let entry: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["tool_use_id"] == id)
        .unwrap_or_else(|| {
            panic!(
                "no audit entry for {id}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
    let outcomes = entry["outcomes"].as_array().expect("outcomes");
    assert_eq!(outcomes.len(), 1, "{entry}");
    let o = &outcomes[0];
    assert_eq!(o["outcome"], "refused", "{entry}");
    assert_eq!(o["refused_by"], "client", "{entry}");
    assert_eq!(o["trust_applied"], false, "{entry}");
    // What the client said to the model is kept: oath's ask reason.
    assert_eq!(
        o["reason"].as_str().map(str::trim_end),
        run.pre(id)["reason"].as_str(),
        "{entry}"
    );

    let table = p.oath().arg("audit").output().expect("run oath audit");
    let table = String::from_utf8_lossy(&table.stdout);
    let row = table
        .lines()
        .find(|l| l.contains("git reset"))
        .unwrap_or_else(|| panic!("no row for the call:\n{table}"));
    assert!(row.contains("refused by the client"), "{row}");
}
