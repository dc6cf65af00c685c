//! The floor `benches/hook_latency.rs` divides by: a program that does what any hook must
//! (reads the payload from stdin, parses it with serde_json, prints `{}`) and nothing else,
//! built as oath is built (`cargo build --release --example minimal_hook`).

use std::io::{Read, Write};

fn main() {
    let mut bytes = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut bytes);
    let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    std::hint::black_box(&value);
    let _ = std::io::stdout().write_all(b"{}\n");
}
