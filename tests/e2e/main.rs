//! Real-client end-to-end tests: the pinned Claude Code runs `-p` sessions against a loopback
//! mock of the Messages API that plays scripted tool calls, with the built `oath` registered in
//! every hook. See "Real-client tests" in DEVELOPERS.md.

mod engine;
mod harness;
mod loopback;
mod server;

mod deny;
mod hook_events;
mod install;
mod kpt;
mod observers;
mod refusals;
mod safety;
mod strikes;
mod trust_gate;
