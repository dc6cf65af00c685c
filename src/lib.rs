//! oath: a single binary that sits in Claude Code's hooks and makes an AI coding agent safe
//! to leave alone.
//!
//! Module map:
//!
//! | concern | modules |
//! |---|---|
//! | protocol I/O | [`protocol`] (payloads in, answers out), [`hook`] (the hot path) |
//! | trust gate | [`shell`], [`classify`], [`trust`], [`phase`], [`rules`], [`decide`], [`gate`] |
//! | after tools | [`outcome`] (trust updates, outcome records), [`observers`] (user commands), [`refusal`] (calls that never ran) |
//! | 3-strike protocol | [`strike`] |
//! | retrospectives | [`transcript`], [`kpt`] |
//! | files | [`project`] (where), [`state`] (locked atomic files), [`audit`], [`redact`], [`worktree`] (what git would lose), [`gitignore`] (oath's files out of `git status`) |
//! | configuration | [`config`], [`suggest`] ("did you mean") |
//! | people | [`cli`], [`cmd`], [`ui`], [`error`] |
//! | ambient | [`clock`], [`env`](mod@env), [`watchdog`] (the hook's last word), [`links`] (where paths lead), [`script_files`] (what a run file holds) |

// Unsafe code is refused everywhere but in the signal handling of [`watchdog`], where each
// block says why it is sound.
#![deny(unsafe_code)]

pub mod agent;
pub mod audit;
pub mod classify;
pub mod cli;
pub mod clock;
pub mod cmd;
pub mod config;
pub mod decide;
pub mod env;
pub mod error;
pub mod export;
pub mod gate;
pub mod gitignore;
pub mod hook;
pub mod kpt;
pub mod links;
pub mod observers;
pub mod outcome;
pub mod phase;
pub mod project;
pub mod protocol;
pub mod redact;
pub mod refusal;
pub mod report;
pub mod rules;
pub mod script_files;
pub mod shell;
pub mod state;
pub mod strike;
pub mod suggest;
pub mod transcript;
pub mod trust;
pub mod ui;
pub mod watchdog;
pub mod worktree;
