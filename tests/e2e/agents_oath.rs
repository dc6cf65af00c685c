//! Issue 31 with oath itself in the hooks of Codex CLI and Gemini CLI, as `oath install
//! --agent …` registers it: a destructive command is refused and its target survives, an
//! ordinary command runs, an edit of a protected file through `apply_patch` / `write_file`
//! is refused, outcomes reach the audit as each client reports them (Gemini's as a success
//! that earns trust; Codex's, which carry no exit code, as unknown), and the installed hooks
//! are active with no manual step (Codex's trusted through its app server).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::agent_script::{Script, shell, write_file};
use crate::agents::{Agent, AgentProject, HookCommand};

/// A project whose hooks run the built oath for `agent` (Codex with the per-run trust bypass;
/// [`installed_hooks_are_active`] covers the trust step).
fn project(agent: Agent) -> Option<AgentProject> {
    let p = AgentProject::new(agent)?;
    p.set_hooks(&HookCommand::oath(agent));
    Some(p)
}

/// Every audit record oath wrote for the project, in file order.
fn audit(p: &AgentProject) -> Vec<Value> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "jsonl")
                && path.parent().is_some_and(|d| d.ends_with("audit"))
            {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&p.oath_home(), &mut files);
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// The pre record of the call whose input holds `needle`.
fn pre_of<'a>(records: &'a [Value], needle: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["kind"] == "pre" && r["tool_input"].to_string().contains(needle))
        .unwrap_or_else(|| panic!("no pre record for {needle:?} in {records:#?}"))
}

fn destructive_command_is_refused_and_its_target_survives(agent: Agent) {
    let Some(p) = project(agent) else { return };
    p.write("data/precious.txt", "keep me\n");
    let run = p.run(
        "Clean up.",
        Script::new().call(shell("rm -rf data")).say("Stopped."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read("data/precious.txt").as_deref(),
        Some("keep me\n"),
        "the refused command ran; {}",
        run.describe()
    );
    let told = run.tool_output(0);
    assert!(
        told.contains("oath"),
        "the model was not told oath's reason: {told}"
    );
    let records = audit(&p);
    let pre = pre_of(&records, "rm -rf data");
    assert_eq!(pre["agent"], agent.name(), "{pre}");
    assert!(
        matches!(pre["decision"].as_str(), Some("deny" | "ask")),
        "{pre}"
    );
}

/// The trust state of one domain in the project's folder of oath's state.
fn trust_state(p: &AgentProject, domain: &str) -> Value {
    let projects = p.oath_home().join("projects");
    let file = std::fs::read_dir(&projects)
        .expect("projects")
        .filter_map(Result::ok)
        .map(|e| e.path().join(format!("trust/domains/{domain}.json")))
        .find(|f| f.is_file())
        .unwrap_or_else(|| panic!("no trust state of {domain} under {}", projects.display()));
    serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json")
}

fn ordinary_command_runs_and_its_outcome_is_audited(agent: Agent) {
    let Some(p) = project(agent) else { return };
    p.write("src/marker-file.txt", "x\n");
    let run = p.run(
        "List the sources.",
        Script::new().call(shell("ls src")).say("Listed."),
    );
    assert!(run.status.success(), "{}", run.describe());
    let told = run.tool_output(0);
    assert!(
        told.contains("marker-file.txt"),
        "the command did not run: {told}; {}",
        run.describe()
    );
    let records = audit(&p);
    let pre = pre_of(&records, "ls src");
    assert_eq!(pre["agent"], agent.name(), "{pre}");
    let id = &pre["tool_use_id"];
    let outcome = records
        .iter()
        .find(|r| r["kind"] == "outcome" && &r["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no outcome for {id}: {records:#?}"));
    match agent {
        // Gemini reports the result: a success, which earns trust.
        Agent::Gemini => {
            assert_eq!(outcome["outcome"], "success", "{outcome}");
            assert_eq!(outcome["trust_applied"], true, "{outcome}");
            // The trust state holds what the audit says the outcome made of it.
            // (at the level of the call's risk: `ls` is low, the only level it raises).
            let domain = outcome["domain"].as_str().expect("domain");
            assert_eq!(outcome["trust_level"], "low", "{outcome}");
            let state = trust_state(&p, domain);
            assert_eq!(state["version"], 2, "{state}");
            let low = &state["levels"]["low"];
            assert_eq!(low["score"], outcome["trust_score_after"], "{state}");
            assert!(
                outcome["trust_score_after"].as_f64() > outcome["trust_score_before"].as_f64(),
                "{outcome}"
            );
            assert_eq!(low["successes"], 1, "{state}");
            assert!(state["levels"].get("medium").is_none(), "{state}");
        }
        // Codex gives the output but no exit code: never counted as a success.
        Agent::Codex => {
            assert_eq!(outcome["outcome"], "unknown", "{outcome}");
            assert_eq!(outcome["trust_applied"], false, "{outcome}");
        }
    }
}

fn protected_file_edit_is_refused(agent: Agent) {
    let Some(p) = project(agent) else { return };
    let run = p.run(
        "Relax the guard.",
        Script::new()
            .call(write_file(".oath.yaml", "on_error: allow\n"))
            .say("Done."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read(".oath.yaml"),
        None,
        "oath's own configuration was written; {}",
        run.describe()
    );
    let records = audit(&p);
    let pre = pre_of(&records, ".oath.yaml");
    assert_eq!(pre["decision"], "deny", "{pre}");
}

/// `oath install --agent …` as a user runs it (Codex's binary on PATH, so install can trust
/// its hooks through the app server), then a session without any test-side hook setup or
/// trust bypass: oath answers.
fn installed_hooks_are_active(agent: Agent) {
    let Some(mut p) = AgentProject::new(agent) else {
        return;
    };
    p.set_bypass_hook_trust(false);
    let client = crate::agents::client(agent).expect("the client");
    let path = format!(
        "{}:{}",
        client.parent().expect("the client's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_oath"))
        .args(["install", "--agent", agent.name()])
        .env("HOME", p.home())
        .env("CODEX_HOME", p.codex_home())
        .env("OATH_HOME", p.oath_home())
        .env("PATH", path)
        .current_dir(p.root())
        .output()
        .expect("run oath install");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(
        !said.contains("ONE STEP LEFT"),
        "install left a step: {said}"
    );
    p.write("data/precious.txt", "keep me\n");
    let run = p.run(
        "Clean up.",
        Script::new().call(shell("rm -rf data")).say("Stopped."),
    );
    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        p.read("data/precious.txt").as_deref(),
        Some("keep me\n"),
        "the installed hook did not answer; install said:\n{said}\n{}",
        run.describe()
    );
    assert!(
        audit(&p)
            .iter()
            .any(|r| r["kind"] == "pre" && r["agent"] == agent.name()),
        "no audit record from the installed hook"
    );
}

#[test]
fn codex_destructive_command_is_refused_and_its_target_survives() {
    destructive_command_is_refused_and_its_target_survives(Agent::Codex);
}

#[test]
fn gemini_destructive_command_is_refused_and_its_target_survives() {
    destructive_command_is_refused_and_its_target_survives(Agent::Gemini);
}

#[test]
fn codex_ordinary_command_runs_and_its_outcome_is_unknown() {
    ordinary_command_runs_and_its_outcome_is_audited(Agent::Codex);
}

#[test]
fn gemini_ordinary_command_runs_and_its_success_earns_trust() {
    ordinary_command_runs_and_its_outcome_is_audited(Agent::Gemini);
}

#[test]
fn codex_apply_patch_to_oaths_config_is_refused() {
    protected_file_edit_is_refused(Agent::Codex);
}

#[test]
fn gemini_write_file_to_oaths_config_is_refused() {
    protected_file_edit_is_refused(Agent::Gemini);
}

#[test]
fn codex_installed_by_oath_install_is_active() {
    installed_hooks_are_active(Agent::Codex);
}

#[test]
fn gemini_installed_by_oath_install_is_active() {
    installed_hooks_are_active(Agent::Gemini);
}
