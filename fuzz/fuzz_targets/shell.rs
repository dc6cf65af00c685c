//! Fuzzes classification of `Bash` calls with arbitrary command strings: never panics, and
//! the whole call is at least as risky as each of its parts.

#![no_main]

mod parser_panics;

use libfuzzer_sys::fuzz_target;
use oath::classify::{Context, classify};
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    parser_panics::let_parser_panics_reach_the_guard();
    let command = String::from_utf8_lossy(data);
    let ctx = Context::for_project(
        std::path::Path::new("/srv/project"),
        Some(std::path::Path::new("/home/user")),
    );
    let class = classify("Bash", &json!({ "command": command }), &ctx);
    for part in &class.parts {
        assert!(class.risk >= part.risk, "{part:?} riskier than the call");
    }
});
