//! Real-client end-to-end tests: the pinned Claude Code runs `-p` sessions against a loopback
//! mock of the Messages API that plays scripted tool calls, with the built `oath` registered in
//! every hook; Codex CLI and Gemini CLI run the same way against loopback mocks of their own
//! model APIs (`agents.rs`). See "Real-client tests" in DEVELOPERS.md.

mod agent_script;
mod agents;
mod codex_server;
mod engine;
mod gemini_server;
mod harness;
mod loopback;
#[path = "../it/otlp_receiver.rs"]
mod otlp_receiver;
mod server;
#[path = "../it/synthetic_session.rs"]
mod synthetic_session;

mod agents_oath;
mod agents_stub;
mod deny;
mod hook_events;
mod install;
mod kpt;
mod observers;
mod otlp;
mod refusals;
mod report;
mod safety;
mod strikes;
mod trust_gate;
