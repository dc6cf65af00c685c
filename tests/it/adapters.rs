//! Codex CLI and Gemini CLI through their adapters (issue 31): every payload the real clients
//! sent (`tests/fixtures/codex-0.169.0/`, `tests/fixtures/gemini-0.61.0/`, READMEs there)
//! replayed through `oath hook` against each client's protocol rules; `apply_patch` patches
//! judged file by file; and the repository's adversarial corpus through all three protocols,
//! which must decide alike (an ask reaching Codex and Gemini as a deny).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oath::agent::Agent;
use oath::clock::Timestamp;
use oath::hook::{Ctx, run_guarded};
use oath::project::Env;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::support::{HookRun, TestEnv, clip, fixtures_dir, run_with_stdin};

/// The captured payloads of a client (not the `model-told.*` requests), by file name.
fn captured(dir: &str) -> Vec<(String, Value)> {
    let base = fixtures_dir().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("model-told")
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect()
}

/// Points a captured payload at the test's project.
fn localized(env: &TestEnv, mut payload: Value) -> Value {
    payload["cwd"] = json!(env.project());
    payload
}

/// Runs `oath hook [--agent <agent>]` with a payload.
fn hook(env: &TestEnv, payload: &Value, agent: Option<&str>) -> HookRun {
    let mut cmd = env.hook_command();
    if let Some(a) = agent {
        cmd.args(["--agent", a]);
    }
    run_with_stdin(cmd, payload.to_string().as_bytes())
}

/// Returns the audit records of a session.
fn audit(env: &TestEnv, session: &str) -> Vec<Value> {
    std::fs::read_to_string(env.audit_file(session))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks what every answer to Codex must be: exit 0, silence or one JSON object of the
/// fields Codex admits, a decision only as a PreToolUse deny.
fn assert_codex_answer(run: &HookRun, event: &str, name: &str) {
    assert_eq!(run.code, Some(0), "{name}: {}", clip(&run.stderr));
    assert!(
        !run.stderr.contains("internal error") && !run.stderr.contains("unknown hook event"),
        "{name}: {}",
        clip(&run.stderr)
    );
    let Some(answer) = run.answer() else {
        assert!(run.stdout.is_empty(), "{name}: whitespace on stdout");
        return;
    };
    let obj = answer.as_object().unwrap();
    for key in obj.keys() {
        assert!(
            ["hookSpecificOutput", "systemMessage"].contains(&key.as_str()),
            "{name}: Codex refuses field {key}: {answer}"
        );
    }
    if let Some(s) = obj.get("hookSpecificOutput") {
        assert_eq!(s["hookEventName"], event, "{name}: {answer}");
        if event == "PreToolUse" {
            assert_eq!(s["permissionDecision"], "deny", "{name}: {answer}");
            assert!(
                s["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| !r.is_empty())
            );
        } else {
            assert!(s.get("permissionDecision").is_none(), "{name}: {answer}");
        }
    }
}

/// Checks what every answer to Gemini must be: exit 0, silence or one JSON object, a
/// decision only on BeforeTool and only allow or deny (with a reason).
fn assert_gemini_answer(run: &HookRun, event: &str, name: &str) {
    assert_eq!(run.code, Some(0), "{name}: {}", clip(&run.stderr));
    assert!(
        !run.stderr.contains("internal error"),
        "{name}: {}",
        clip(&run.stderr)
    );
    let Some(answer) = run.answer() else {
        assert!(run.stdout.is_empty(), "{name}: whitespace on stdout");
        return;
    };
    if let Some(d) = answer.get("decision") {
        assert_eq!(event, "BeforeTool", "{name}: {answer}");
        assert!(d == "allow" || d == "deny", "{name}: {answer}");
        if d == "deny" {
            assert!(answer["reason"].as_str().is_some_and(|r| !r.is_empty()));
        }
    }
    assert!(
        answer
            .get("hookSpecificOutput")
            .is_none_or(|s| s["hookEventName"] == event)
    );
}

#[test]
fn every_captured_codex_payload_answers_by_codexs_rules() {
    let payloads = captured("codex-0.169.0");
    assert_eq!(
        payloads.len(),
        9,
        "{:?}",
        payloads.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    for agent in [None, Some("codex")] {
        let env = TestEnv::new();
        for (name, payload) in &payloads {
            let event = payload["hook_event_name"].as_str().unwrap();
            let run = hook(&env, &localized(&env, payload.clone()), agent);
            let name = format!("{name} (--agent {agent:?})");
            assert_codex_answer(&run, event, &name);
            if event == "PreToolUse" {
                // Ordinary work in the project: allowed or left to Codex, both silence.
                assert!(run.stdout.is_empty(), "{name}: {}", run.stdout);
            }
        }
        // Codex's tool and turn events are recognised without --agent.
        let records = audit(&env, "01a21452-d4f1-7822-92de-620dcf983f47");
        let pre = records
            .iter()
            .find(|r| r["kind"] == "pre")
            .expect("a pre record");
        assert_eq!(pre["agent"], "codex", "{pre}");
        // PostToolUse carries no exit code: the outcome is unknown, trust untouched.
        let mut outcomes: Vec<Value> = [
            "01a21452-d4f1-7822-92de-620dcf983f47",
            "01a21453-336f-7bc1-b52a-41ddba49a74c",
            "01a21454-7813-7950-891d-7b65f1f6d16e",
        ]
        .into_iter()
        .flat_map(|s| audit(&env, s))
        .collect();
        outcomes.retain(|r| r["kind"] == "outcome");
        assert_eq!(outcomes.len(), 3, "{outcomes:?}");
        for o in &outcomes {
            assert_eq!(o["outcome"], "unknown", "{o}");
            assert_eq!(o["trust_applied"], false, "{o}");
            assert_eq!(o["agent"], "codex", "{o}");
        }
        assert!(
            !env.trust_dir().exists(),
            "an unknown outcome changed trust"
        );
    }
}

#[test]
fn every_captured_gemini_payload_answers_by_geminis_rules() {
    let payloads = captured("gemini-0.61.0");
    assert_eq!(
        payloads.len(),
        9,
        "{:?}",
        payloads.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    for agent in [None, Some("gemini")] {
        let env = TestEnv::new();
        for (name, payload) in &payloads {
            let event = payload["hook_event_name"].as_str().unwrap();
            let run = hook(&env, &localized(&env, payload.clone()), agent);
            let name = format!("{name} (--agent {agent:?})");
            assert_gemini_answer(&run, event, &name);
            assert!(
                !run.stderr.contains("unknown hook event"),
                "{name}: {}",
                clip(&run.stderr)
            );
        }
        let mut outcomes = BTreeMap::new();
        for session in [
            "5c662ea2-670e-43a1-b307-6e7a8ce9c70d",
            "d11326cd-171b-46da-a9cf-a164ae07af4b",
            "896e2831-85e5-47d9-8417-dc9f7d006bd6",
        ] {
            for r in audit(&env, session) {
                assert_eq!(r["agent"], "gemini", "{r}");
                if r["kind"] == "outcome" {
                    outcomes.insert(r["hook"].as_str().unwrap().to_owned() + " " + session, r);
                }
            }
        }
        let by = |hook: &str, session: &str| outcomes[&format!("{hook} {session}")].clone();
        let ok = by("PostToolUse", "5c662ea2-670e-43a1-b307-6e7a8ce9c70d");
        assert_eq!(ok["outcome"], "success", "{ok}");
        assert_eq!(ok["trust_applied"], true, "{ok}");
        let exit3 = by("PostToolUseFailure", "d11326cd-171b-46da-a9cf-a164ae07af4b");
        assert_eq!(exit3["outcome"], "failure", "{exit3}");
        assert!(
            exit3["error"].as_str().unwrap().starts_with("Exit code 3"),
            "{exit3}"
        );
        let write = by("PostToolUse", "896e2831-85e5-47d9-8417-dc9f7d006bd6");
        assert_eq!(write["outcome"], "success", "{write}");
    }
}

/// The deny forms the captured clients honour: what each model was told after it.
#[test]
fn denials_take_the_form_each_client_showed_its_model() {
    let env = TestEnv::new();
    let codex = json!({"session_id": "c", "turn_id": "t", "hook_event_name": "PreToolUse",
        "cwd": env.project(), "tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}});
    let run = hook(&env, &codex, None);
    assert_codex_answer(&run, "PreToolUse", "codex rm -rf ~");
    assert_eq!(run.decision().as_deref(), Some("deny"), "{}", run.stdout);
    let gemini = json!({"session_id": "g", "timestamp": "2026-11-25T20:11:07.521Z",
        "hook_event_name": "BeforeTool", "cwd": env.project(),
        "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~"}});
    let run = hook(&env, &gemini, None);
    assert_gemini_answer(&run, "BeforeTool", "gemini rm -rf ~");
    let answer = run.answer().unwrap();
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert_eq!(answer.as_object().unwrap().len(), 2, "{answer}");
    // An ask, which Codex receives as a deny.
    let ask = json!({"session_id": "c", "turn_id": "t", "hook_event_name": "PreToolUse",
        "cwd": env.project(), "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}});
    let run = hook(&env, &ask, None);
    assert_eq!(run.decision().as_deref(), Some("deny"), "{}", run.stdout);
    assert_eq!(audit(&env, "c")[1]["decision"], "ask");
    // Neither client sends anything after a call it did not run: the audit shows the three
    // denied by oath, not pending.
    let out = env.oath().arg("audit").output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", env.render(&out));
    assert_eq!(table.matches("denied by oath").count(), 3, "{table}");
    assert!(!table.contains("pending"), "{table}");
}

/// Gemini gives a call no id: its pre record and its outcome carry the same call key, and
/// `oath audit` shows each call that ran as one row with its outcome, identical calls joined
/// in order.
#[test]
fn gemini_calls_join_their_outcomes_by_their_call_key() {
    let env = TestEnv::new();
    let payloads: std::collections::HashMap<String, Value> = captured("gemini-0.61.0")
        .into_iter()
        .map(|(name, p)| (name, localized(&env, p)))
        .collect();
    let before = &payloads["BeforeTool.run_shell_command.json"];
    let ok = &payloads["AfterTool.run_shell_command.ok.json"];
    let failed = &payloads["AfterTool.run_shell_command.exit3.json"];
    // The same command twice, both before either ends: the first ends well, the second
    // fails (the failure was captured in another session with another command: made the
    // same here).
    let mut failed = failed.clone();
    failed["tool_input"] = before["tool_input"].clone();
    failed["session_id"] = before["session_id"].clone();
    for p in [before, before, ok, &failed] {
        assert_eq!(hook(&env, p, None).code, Some(0));
    }
    let session = before["session_id"].as_str().unwrap();
    let records = audit(&env, session);
    let keys: Vec<&Value> = records
        .iter()
        .filter(|r| r["kind"] == "pre" || r["kind"] == "outcome")
        .map(|r| &r["call_key"])
        .collect();
    assert_eq!(keys.len(), 4, "{records:#?}");
    assert!(
        keys.iter().all(|k| k.is_string() && *k == keys[0]),
        "{keys:?}"
    );
    let out = env.oath().arg("audit").output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", env.render(&out));
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("proof.txt")).collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(rows[0].contains("success"), "{table}");
    assert!(rows[1].contains("failure"), "{table}");
    assert!(
        !table.contains("pending") && !table.contains("no pre record"),
        "{table}"
    );
}

/// A broken payload or an internal error never lets a call through silently on a client
/// that cannot ask: it is denied in the client's form.
#[test]
fn broken_payloads_are_denied_in_the_clients_form() {
    let env = TestEnv::new();
    let mut cmd = env.hook_command();
    cmd.args(["--agent", "codex", "PreToolUse"]);
    let run = run_with_stdin(cmd, b"{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{");
    assert_codex_answer(&run, "PreToolUse", "broken codex payload");
    assert_eq!(run.decision().as_deref(), Some("deny"), "{}", run.stdout);
    let run = run_with_stdin(
        env.hook_command(),
        b"{\"turn_id\":\"t\",\"hook_event_name\":\"PreToolUse\",\"tool_input\":\"\xff\"}",
    );
    assert_eq!(run.decision().as_deref(), Some("deny"), "{}", run.stdout);
    let run = run_with_stdin(
        env.hook_command(),
        b"{\"hook_event_name\":\"BeforeTool\",\"tool_input\":{",
    );
    assert_gemini_answer(&run, "BeforeTool", "broken gemini payload");
    assert_eq!(run.answer().unwrap()["decision"], "deny", "{}", run.stdout);
}

fn patch_call(env: &TestEnv, patch: &str) -> Value {
    json!({"session_id": "p", "turn_id": "t", "hook_event_name": "PreToolUse",
        "cwd": env.project(), "tool_name": "apply_patch", "tool_input": {"command": patch}})
}

#[test]
fn a_patch_is_judged_by_every_file_it_touches() {
    let env = TestEnv::new();
    std::fs::write(env.project().join("old.txt"), "x\n").unwrap();
    let deny = |patch: &str, why: &str| {
        let run = hook(&env, &patch_call(&env, patch), None);
        assert_codex_answer(&run, "PreToolUse", why);
        assert_eq!(
            run.decision().as_deref(),
            Some("deny"),
            "{why}: {}",
            run.stdout
        );
        run.answer().unwrap()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // One ordinary file: silence (allowed or left to Codex).
    let run = hook(
        &env,
        &patch_call(
            &env,
            "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch",
        ),
        None,
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    // A protected file inside a multi-file patch.
    deny(
        "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** Update File: .oath.yaml\n@@\n-a\n+b\n*** End Patch",
        "protected file in a multi-file patch",
    );
    deny(
        &format!(
            "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Add File: {}\n+b\n*** End Patch",
            env.oath_home().join("trust/x.json").display()
        ),
        "oath's state in a patch",
    );
    // A deleted file with uncommitted work: a person confirms, which Codex cannot ask.
    let reason = deny(
        "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch",
        "a patch deleting a file",
    );
    assert!(reason.contains("Codex CLI cannot ask"), "{reason}");
    // A malformed patch is never allowed.
    let reason = deny(
        "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",
        "a malformed patch",
    );
    assert!(reason.contains("cannot read this patch"), "{reason}");
    let records = audit(&env, "p");
    let delete = records
        .iter()
        .find(|r| {
            r["kind"] == "pre"
                && r["tool_input"]["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("Delete File: old.txt"))
        })
        .expect("the delete's pre record");
    assert_eq!(delete["domain"], "file_delete", "{delete}");
    assert_eq!(delete["decision"], "ask", "{delete}");
    assert_eq!(delete["answered"], "deny", "{delete}");
    assert_eq!(delete["agent"], "codex", "{delete}");
    let multi = records
        .iter()
        .find(|r| r["kind"] == "pre" && r["effects"].as_array().is_some_and(|e| e.len() == 2))
        .expect("a pre record with the patch's two files");
    assert_eq!(multi["tool_name"], "apply_patch", "{multi}");
    assert_eq!(multi["answered"], json!(null), "{multi}");
}

/// One case of the classification tables, as far as this test reads it.
#[derive(Debug, Deserialize)]
struct TableCase {
    id: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    input: Option<Value>,
}

/// Every corpus call: the case tables and the dcg corpus' destructive commands.
fn corpus() -> Vec<(String, String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/classify");
    let mut out = Vec::new();
    for file in ["adversarial.yaml", "trust_gate.yaml", "tools.yaml"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let cases: Vec<TableCase> = serde_saphyr::from_str(&text).unwrap();
        for c in cases {
            let tool = c.tool.unwrap_or_else(|| "Bash".into());
            let input = match (c.command, c.input) {
                (Some(cmd), _) => json!({ "command": cmd }),
                (None, Some(i)) => i,
                (None, None) => continue,
            };
            out.push((format!("{file} {}", c.id), tool, input));
        }
    }
    for (peer, label, cmd) in super::corpora::labelled() {
        if peer == "dcg" && label == "block" {
            out.push(("dcg block".into(), "Bash".into(), json!({ "command": cmd })));
        }
    }
    out
}

/// The call as a client sends it, or `None` when the client has no such tool.
fn as_client(agent: Agent, tool: &str, input: &Value, cwd: &Path) -> Option<Value> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let (tool_name, tool_input) = match (agent, tool) {
        (Agent::Claude, _) => (tool.to_owned(), input.clone()),
        (Agent::Codex, "Bash") => ("Bash".into(), json!({"command": s("command")?})),
        (Agent::Codex, "Write") => {
            let mut patch = format!("*** Begin Patch\n*** Add File: {}\n", s("file_path")?);
            for line in s("content").unwrap_or("").lines() {
                patch.push_str(&format!("+{line}\n"));
            }
            patch.push_str("*** End Patch");
            ("apply_patch".into(), json!({ "command": patch }))
        }
        (Agent::Codex, "Edit") => {
            let mut patch = format!(
                "*** Begin Patch\n*** Update File: {}\n@@\n",
                s("file_path")?
            );
            for line in s("old_string").unwrap_or("").lines() {
                patch.push_str(&format!("-{line}\n"));
            }
            for line in s("new_string").unwrap_or("").lines() {
                patch.push_str(&format!("+{line}\n"));
            }
            patch.push_str("*** End Patch");
            ("apply_patch".into(), json!({ "command": patch }))
        }
        (Agent::Gemini, "Bash") => (
            "run_shell_command".into(),
            json!({"command": s("command")?, "description": "corpus"}),
        ),
        (Agent::Gemini, "Write") => (
            "write_file".into(),
            json!({"file_path": s("file_path")?, "content": s("content").unwrap_or("")}),
        ),
        (Agent::Gemini, "Edit") => (
            "replace".into(),
            json!({"file_path": s("file_path")?, "old_string": s("old_string").unwrap_or(""),
                   "new_string": s("new_string").unwrap_or(""), "instruction": "corpus"}),
        ),
        (Agent::Gemini, "Read") => ("read_file".into(), json!({"file_path": s("file_path")?})),
        _ => return None,
    };
    let mut p = json!({"session_id": format!("corpus-{}", agent.as_str()), "cwd": cwd,
        "tool_name": tool_name, "tool_input": tool_input});
    match agent {
        Agent::Claude => {
            p["hook_event_name"] = json!("PreToolUse");
            p["permission_mode"] = json!("default");
        }
        Agent::Codex => {
            p["hook_event_name"] = json!("PreToolUse");
            p["turn_id"] = json!("turn");
            p["model"] = json!("gpt-5.5");
        }
        Agent::Gemini => {
            p["hook_event_name"] = json!("BeforeTool");
            p["timestamp"] = json!("2026-11-25T20:11:07.521Z");
        }
    }
    Some(p)
}

/// The decision a client reads from an answer: Claude Code's four; Codex's deny or silence;
/// Gemini's allow, deny or silence.
fn read_decision(agent: Agent, answer: Option<&Value>) -> &'static str {
    let Some(a) = answer else { return "silence" };
    let d = match agent {
        Agent::Claude | Agent::Codex => a["hookSpecificOutput"]["permissionDecision"].as_str(),
        Agent::Gemini => a["decision"].as_str(),
    };
    match d {
        Some("allow") => "allow",
        Some("ask") => "ask",
        Some("deny") => "deny",
        _ => "silence",
    }
}

/// What Claude Code's decision becomes on a client that cannot ask and where allow is
/// silence (Codex) or explicit (Gemini).
fn expected(agent: Agent, claude: &str) -> &'static str {
    match (agent, claude) {
        (_, "ask" | "deny") => "deny",
        (Agent::Codex, _) => "silence",
        (_, "allow") => "allow",
        _ => "silence",
    }
}

#[test]
fn the_adversarial_corpus_decides_alike_through_all_three_protocols() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(home.join(".config/oath")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let ctx = Ctx {
        env: Env {
            oath_home: Some(dir.path().join("state")),
            home: Some(home.clone()),
            claude_project_dir: Some(project.clone()),
            ..Env::default()
        },
        now: Timestamp::parse("2026-11-01T00:00:00Z").unwrap(),
        event_hint: None,
        agent: None,
        last_word: false,
    };
    let cases = corpus();
    assert!(cases.len() > 1500, "only {} corpus calls", cases.len());
    let mut tally: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut compared = 0;
    let mut mismatches = Vec::new();
    // Default thresholds, then thresholds under which trust allows much (allow must hold
    // on each client too).
    for config in [
        "",
        "autonomy:\n  auto_approve_threshold: 0.3\n  human_required_threshold: 0.1\n",
    ] {
        std::fs::write(home.join(".config/oath/config.yaml"), config).unwrap();
        for (origin, tool, input) in &cases {
            let decide = |agent: Agent| -> Option<&'static str> {
                let payload = as_client(agent, tool, input, &project)?;
                let answer = run_guarded(payload.to_string().as_bytes(), &ctx);
                assert_eq!(
                    answer.agent(),
                    agent,
                    "{origin}: recognised as another client"
                );
                Some(read_decision(agent, answer.to_json().as_ref()))
            };
            let claude = decide(Agent::Claude).unwrap();
            *tally.entry(("claude", claude)).or_default() += 1;
            for agent in [Agent::Codex, Agent::Gemini] {
                let Some(got) = decide(agent) else { continue };
                compared += 1;
                if got != expected(agent, claude) {
                    mismatches.push(format!(
                        "{origin} via {}: {got}, Claude Code {claude}: {input}",
                        agent.as_str()
                    ));
                }
            }
        }
    }
    eprintln!("{compared} client decisions compared; Claude Code's: {tally:?}");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    for d in ["allow", "ask", "deny", "silence"] {
        assert!(
            tally.contains_key(&("claude", d)),
            "no {d} in the corpus: {tally:?}"
        );
    }
}

/// Gemini reports a shell's failure only as `Exit Code: N` text: three of the same failure
/// are three strikes (the model is told in Gemini's form), and the fourth try is held, which
/// Gemini receives as a deny. Codex reports no outcome: the same output counts nothing.
#[test]
fn strikes_count_what_each_client_reports() {
    let env = TestEnv::new();
    let command = "cargo build --offline";
    let failed = json!({"session_id": "g", "timestamp": "2026-11-25T20:12:34.905Z",
        "hook_event_name": "AfterTool", "cwd": env.project(), "tool_name": "run_shell_command",
        "tool_input": {"command": command},
        "tool_response": {"llmContent": "<untrusted_context>\nOutput: error[E0425]: cannot find value `x` in this scope\nExit Code: 101\nProcess Group PGID: 7\n</untrusted_context>"}});
    let mut told = None;
    for _ in 0..3 {
        let run = hook(&env, &failed, None);
        assert_gemini_answer(&run, "AfterTool", "failed build");
        if let Some(a) = run.answer() {
            told = Some(a);
        }
    }
    let told = told.expect("the model is told of the repeated failure");
    assert_eq!(
        told["hookSpecificOutput"]["hookEventName"], "AfterTool",
        "{told}"
    );
    assert!(
        told["hookSpecificOutput"]["additionalContext"].is_string(),
        "{told}"
    );
    let again = json!({"session_id": "g", "timestamp": "2026-11-25T20:12:40.000Z",
        "hook_event_name": "BeforeTool", "cwd": env.project(), "tool_name": "run_shell_command",
        "tool_input": {"command": command}});
    let run = hook(&env, &again, None);
    assert_gemini_answer(&run, "BeforeTool", "fourth try");
    let answer = run.answer().unwrap();
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"].as_str().unwrap().contains("strike"),
        "{answer}"
    );
    // The same call in a fresh session is not held.
    let mut fresh = again.clone();
    fresh["session_id"] = json!("g2");
    let run = hook(&env, &fresh, None);
    assert!(
        run.answer()
            .is_none_or(|a| !a["reason"].as_str().unwrap_or("").contains("strike")),
        "{}",
        run.stdout
    );

    let output = json!({"session_id": "c", "turn_id": "t", "hook_event_name": "PostToolUse",
        "cwd": env.project(), "tool_name": "Bash", "tool_input": {"command": command},
        "tool_response": "error[E0425]: cannot find value `x` in this scope\n"});
    for _ in 0..3 {
        let run = hook(&env, &output, None);
        assert_codex_answer(&run, "PostToolUse", "codex output");
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    let records = audit(&env, "c");
    assert!(
        records.iter().all(|r| r["outcome"] != "failure"),
        "{records:?}"
    );
    let mut pre = output.clone();
    pre["hook_event_name"] = json!("PreToolUse");
    let run = hook(&env, &pre, None);
    assert_codex_answer(&run, "PreToolUse", "codex after output");
    assert!(!run.stdout.contains("strike"), "{}", run.stdout);
}
