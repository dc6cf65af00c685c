//! The integration test binary: one module per area, all driving the built `oath` binary or
//! the library.

mod adapters;
mod agents_protect;
mod audit;
mod budgets;
mod bypass;
mod captured;
mod classify_cases;
mod cli;
mod corpora;
mod deadline;
mod explain;
mod faults;
mod git_ignored;
mod install;
mod install_agents;
mod install_backups;
mod install_text;
mod kills;
mod kpt;
mod kpt_apply;
mod kpt_draft;
mod observers;
mod packs;
mod payloads;
mod project_config;
mod refusals;
mod safety;
mod scripts;
mod secrets;
mod secrets_corpus;
mod sessions;
mod strike;
mod strike_pairs;
mod support;
mod transcripts;
