//! Issue 32: `oath export otlp` beside Claude Code's own telemetry. Claude Code (telemetry on,
//! OTLP/HTTP JSON) and `oath export otlp` send to the same loopback receiver; every decision
//! oath exports joins a Claude Code `tool_decision` record by `tool_use_id`, in the same
//! session and prompt.

use std::collections::BTreeMap;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;

use crate::harness::{Opts, Project};
use crate::otlp_receiver::{Flat, Mode, Receiver, flatten};
use crate::server::{Script, bash, tool};

#[test]
fn otlp_every_oath_decision_joins_a_claude_code_tool_decision() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello\n");
    let receiver = Receiver::start(Mode::Ok);
    let telemetry: Vec<(String, String)> = [
        ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
        ("OTEL_LOGS_EXPORTER", "otlp"),
        ("OTEL_METRICS_EXPORTER", "none"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.base.as_str()),
        ("OTEL_LOG_TOOL_DETAILS", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let notes = p.root().join("notes.txt").display().to_string();
    let victim = p.home().join("important");
    std::fs::create_dir_all(&victim).expect("create victim dir");
    let script = Script::new()
        .call(tool("Read", serde_json::json!({ "file_path": notes })))
        .call(bash("echo e2e"))
        .call(bash(&format!("rm -rf {}", victim.display())))
        .say("Done.");
    let opts = Opts {
        env: telemetry,
        ..Opts::allow("Bash")
    };
    let run = p.run("Read the notes, then clean up", script, &opts);
    assert!(victim.is_dir(), "the denied command ran");

    let mut export = p.oath();
    export
        .args(["export", "otlp"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.base)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
    let out = export.output().expect("run oath export otlp");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Claude Code's records (decoded leniently: its exporter writes 64-bit integers as JSON
    // numbers) and oath's (strictly).
    let mut claude: Vec<Flat> = Vec::new();
    let mut oath: Vec<Flat> = Vec::new();
    for r in receiver.logs() {
        if r.header("user-agent")
            .is_some_and(|u| u.starts_with("oath/"))
        {
            oath.extend(flatten(&r.logs()));
        } else {
            let req: ExportLogsServiceRequest =
                serde_json::from_slice(&r.body).expect("Claude Code's request decodes");
            claude.extend(flatten(&req));
        }
    }
    let decisions: BTreeMap<String, &Flat> = claude
        .iter()
        .filter(|r| r.str("event.name") == Some("tool_decision"))
        .filter_map(|r| Some((r.str("tool_use_id")?.to_owned(), r)))
        .collect();
    assert!(
        !decisions.is_empty(),
        "Claude Code sent no tool_decision; its records: {:?}",
        claude
            .iter()
            .map(|r| r.str("event.name"))
            .collect::<Vec<_>>()
    );
    let pre: Vec<&Flat> = oath.iter().filter(|r| r.event_name == "oath.pre").collect();
    assert_eq!(
        pre.len(),
        run.records("pre").len(),
        "every decision exported"
    );
    assert!(pre.len() >= 3);
    let mut joined = 0;
    for d in &pre {
        let id = d.str("tool_use_id").expect("tool_use_id");
        let c = decisions
            .get(id)
            .unwrap_or_else(|| panic!("oath's decision {id} joins no tool_decision"));
        assert_eq!(d.str("session.id"), c.str("session.id"), "{id}");
        assert_eq!(d.str("session.id"), Some(run.session_id.as_str()));
        assert_eq!(d.str("tool_name"), c.str("tool_name"), "{id}");
        // The audit records the client's prompt_id (2.1.332 sends it with every call).
        assert!(d.str("prompt.id").is_some(), "{id}: no prompt.id");
        assert_eq!(d.str("prompt.id"), c.str("prompt.id"), "{id}");
        if d.str("oath.decision") == Some("deny") {
            assert_eq!(c.str("decision"), Some("reject"), "{id}");
            assert_eq!(c.str("source"), Some("hook"), "{id}");
        }
        joined += 1;
    }
    assert!(pre.iter().any(|d| d.str("oath.decision") == Some("deny")));
    assert!(pre.iter().any(|d| d.str("oath.decision") == Some("allow")));
    let with_prompt = pre.iter().filter(|d| d.str("prompt.id").is_some()).count();
    eprintln!(
        "otlp: {with_prompt} with prompt.id; {joined} oath decisions joined Claude Code's tool_decision records"
    );
}
