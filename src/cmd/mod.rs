//! One module per subcommand: its arguments (doc comments are the help) and its `run`.

pub mod audit;
pub mod completions;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod errors;
pub mod explain;
pub mod export;
pub mod hook;
pub mod install;
pub mod kpt;
pub mod phase;
pub mod redact;
pub mod report;
pub mod rules;
pub mod status;
