//! Fuzzes classification of `Bash` calls with arbitrary command strings: never panics, and
//! the whole call is at least as risky as each of its parts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oath::classify::{Context, classify};
use serde_json::json;

/// libFuzzer's panic hook aborts on every panic, caught or not. brush-parser's own panics
/// (0.4 unwraps an I/O number that overflows an `i32`) are caught by oath's guard around the
/// parser and classified as a parser failure: only panics elsewhere are findings here.
fn let_parser_panics_reach_the_guard() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info
                .location()
                .is_some_and(|l| l.file().contains("brush-parser"))
            {
                abort(info);
            }
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    let_parser_panics_reach_the_guard();
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
