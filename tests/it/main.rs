//! The integration test binary: one module per area, all driving the built `oath` binary or
//! the library.

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
mod install;
mod kills;
mod kpt;
mod kpt_apply;
mod observers;
mod packs;
mod payloads;
mod project_config;
mod refusals;
mod safety;
mod secrets;
mod secrets_corpus;
mod sessions;
mod strike;
mod strike_pairs;
mod support;
mod transcripts;
