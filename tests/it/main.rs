//! The integration test binary: one module per area, all driving the built `oath` binary or
//! the library.

mod classify_cases;
mod cli;
mod explain;
mod install;
mod kpt;
mod observers;
mod strike;
mod support;
