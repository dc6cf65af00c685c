//! Every payload Claude Code 2.1.332 sent in the captured sessions
//! (`tests/fixtures/claude-code-2.1.332/`, README there), replayed session by session through
//! `oath hook`: new fields (`effort`, `prompt_id`, `background_tasks`, `session_crons`,
//! `is_interrupt`, ...) and new events (`CwdChanged`, `MessageDisplay`, `PermissionDenied`,
//! `PostToolBatch`, `PreSkillShellCommand`, ...) stay harmless.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::{TestEnv, assert_valid_answer, clip, fixtures_dir};

/// The captured sessions, each a folder of numbered payloads.
fn sessions() -> Vec<PathBuf> {
    let base = fixtures_dir().join("claude-code-2.1.332");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_captured_2_1_332_payload_answers_by_the_protocol() {
    let mut events = BTreeSet::new();
    let mut fields = BTreeSet::new();
    let mut replayed = 0;
    for dir in sessions() {
        // One environment per session: state builds up as in the session.
        let env = TestEnv::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            let payload: Value = serde_json::from_slice(&bytes).unwrap();
            let Some(event) = payload["hook_event_name"].as_str() else {
                continue; // result.json: the client's final answer
            };
            let name = file
                .strip_prefix(fixtures_dir())
                .unwrap()
                .display()
                .to_string();
            let run = env.hook_raw(&bytes, None);
            // Exit 0 or 2, one JSON object or nothing, the event echoed.
            assert_valid_answer(&run, Some(event), &name);
            assert!(
                !run.stderr.contains("internal error")
                    && !run.stderr.contains("unknown hook event"),
                "{name}: {}",
                clip(&run.stderr)
            );
            if let Some(answer) = run.answer() {
                let specific = &answer["hookSpecificOutput"];
                assert!(
                    specific.get("permissionDecision").is_none() || event == "PreToolUse",
                    "{name}: a decision outside PreToolUse: {answer}"
                );
            }
            events.insert(event.to_owned());
            fields.extend(payload.as_object().unwrap().keys().cloned());
            replayed += 1;
        }
    }
    assert!(replayed >= 100, "only {replayed} payloads replayed");
    for e in [
        "SessionStart",
        "InstructionsLoaded",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PreSkillShellCommand",
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "CwdChanged",
        "FileChanged",
        "ConfigChange",
        "SubagentStart",
        "SubagentStop",
        "TaskCreated",
        "TaskCompleted",
        "PreCompact",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "Setup",
        "MessageDisplay",
        "Stop",
        "StopFailure",
        "SessionEnd",
    ] {
        assert!(events.contains(e), "no {e} payload captured: {events:?}");
    }
    for f in [
        "effort",
        "prompt_id",
        "background_tasks",
        "session_crons",
        "is_interrupt",
    ] {
        assert!(fields.contains(f), "no payload with {f}: {fields:?}");
    }
}
