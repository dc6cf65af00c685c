//! In-process micro-benchmarks of the pure core (classification, one trust update, the audit
//! form of a long string, the 3-strike log) and of the whole PreToolUse path in-process.
//!
//! Run with `cargo bench --bench engine`. After divan's table, the typical commands are timed
//! once more and printed with the target (classification under 20 µs) next to each figure.

use oath::classify::{self, Context};
use oath::clock::Timestamp;
use oath::trust::{Level, Outcome, TrustFile, TrustParams, apply_outcome};

fn main() {
    divan::main();
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("\nclassification of typical commands (median of 2000 runs; target < 20 µs):");
    let c = ctx();
    for command in COMMANDS {
        let input = serde_json::json!({ "command": command });
        let mut times: Vec<std::time::Duration> = (0..2000)
            .map(|_| {
                let start = std::time::Instant::now();
                divan::black_box(classify::classify("Bash", divan::black_box(&input), &c));
                start.elapsed()
            })
            .collect();
        times.sort();
        let median = times[times.len() / 2].as_secs_f64() * 1e6;
        println!(
            "  {median:7.2} µs  {}  {command}",
            if median < 20.0 { "met    " } else { "NOT met" }
        );
    }
}

fn ctx() -> Context {
    Context::for_project(
        std::path::Path::new("/home/dev/project"),
        Some(std::path::Path::new("/home/dev")),
    )
}

const COMMANDS: &[&str] = &[
    "ls -la",
    "cargo test --workspace 2>&1 | tail -20",
    "git status && git diff --stat && git log --oneline -5",
    "cd src && grep -rn \"TODO\" . | head -5; rm -rf target/debug/incremental",
    "curl -fsSL https://example.com/install.sh | sh",
];

#[divan::bench(args = COMMANDS)]
fn classify_bash(command: &str) -> classify::Classification {
    let input = serde_json::json!({ "command": command });
    let c = ctx();
    classify::classify(divan::black_box("Bash"), divan::black_box(&input), &c)
}

/// The 2 KB compound line of the whole-process benchmark.
fn compound_2k() -> String {
    let mut s = String::from("cd src && ");
    let mut i = 0;
    while s.len() < 2048 {
        s.push_str(&format!(
            "grep -rn \"pattern{i}\" . | head -5 && FOO=bar cargo build --bin x{i} 2>&1 | tail -3; "
        ));
        i += 1;
    }
    s.push_str("echo done");
    s
}

#[divan::bench]
fn classify_bash_2k_compound(bencher: divan::Bencher) {
    let input = serde_json::json!({ "command": compound_2k() });
    let c = ctx();
    bencher
        .bench_local(|| classify::classify(divan::black_box("Bash"), divan::black_box(&input), &c));
}

#[divan::bench]
fn parse_only_2k_compound(bencher: divan::Bencher) {
    let src = compound_2k();
    bencher.bench_local(|| oath::shell::parse(divan::black_box(&src)));
}

#[divan::bench]
fn classify_write() -> classify::Classification {
    let input = serde_json::json!({ "file_path": "/home/dev/project/src/main.rs", "content": "fn main() {}\n" });
    classify::classify(divan::black_box("Write"), divan::black_box(&input), &ctx())
}

#[divan::bench]
fn trust_update(bencher: divan::Bencher) {
    let params = TrustParams::default();
    let now = Timestamp::parse("2026-11-22T00:00:00Z").expect("time");
    bencher
        .with_inputs(|| TrustFile::new(now))
        .bench_local_refs(|file| {
            apply_outcome(
                file,
                "shell_exec",
                Level::Medium,
                Outcome::Success,
                Some("toolu_1"),
                now,
                &params,
            )
        });
}

/// The whole PreToolUse path in-process (parse, project, config, classify, trust, decide,
/// audit append, answer) on the payloads of the whole-process benchmark: what a hook costs
/// on top of starting a process.
mod hook_in_process {
    use std::sync::OnceLock;

    use oath::clock::Timestamp;
    use oath::hook::{Ctx, run_input};

    struct Setup {
        _dir: tempfile::TempDir,
        ctx: Ctx,
        project: std::path::PathBuf,
    }

    fn setup() -> &'static Setup {
        static S: OnceLock<Setup> = OnceLock::new();
        S.get_or_init(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            let project = dir.path().join("project");
            std::fs::create_dir_all(project.join("src")).expect("project");
            std::fs::create_dir_all(dir.path().join("home")).expect("home");
            let now = Timestamp::parse("2026-11-22T00:00:00Z").expect("time");
            let ctx = Ctx::in_dir(dir.path(), now, None);
            Setup {
                _dir: dir,
                ctx,
                project,
            }
        })
    }

    fn pre_tool_use(tool: &str, input: serde_json::Value) -> Vec<u8> {
        let s = setup();
        serde_json::to_vec(&serde_json::json!({
            "session_id": "bench-session",
            "transcript_path": s.project.join("transcript.jsonl"),
            "cwd": s.project,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": "toolu_bench",
        }))
        .expect("payload")
    }

    #[divan::bench]
    fn bash_simple(bencher: divan::Bencher) {
        let p = pre_tool_use("Bash", serde_json::json!({"command": "ls -la"}));
        let ctx = &setup().ctx;
        bencher.bench_local(|| run_input(divan::black_box(&p), ctx));
    }

    #[divan::bench]
    fn bash_2k_compound(bencher: divan::Bencher) {
        let p = pre_tool_use("Bash", serde_json::json!({"command": super::compound_2k()}));
        let ctx = &setup().ctx;
        bencher.bench_local(|| run_input(divan::black_box(&p), ctx));
    }

    #[divan::bench]
    fn write_1mb(bencher: divan::Bencher) {
        let file = setup().project.join("src/lib.rs");
        let p = pre_tool_use(
            "Write",
            serde_json::json!({"file_path": file, "content": "x".repeat(1024 * 1024)}),
        );
        let ctx = &setup().ctx;
        bencher.bench_local(|| run_input(divan::black_box(&p), ctx));
    }
}

/// The audit form of a 1 MB string: redacted head, size and digest of the whole.
#[divan::bench]
fn audit_truncate_1mb(bencher: divan::Bencher) {
    let big = "x".repeat(1024 * 1024);
    bencher.bench_local(|| oath::audit::truncate_with_digest(divan::black_box(&big)));
}

/// Parsing a 1 MB Write payload (what every hook does before anything else).
#[divan::bench]
fn parse_payload_1mb(bencher: divan::Bencher) {
    let payload = serde_json::to_vec(&serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "/p/src/lib.rs", "content": "x".repeat(1024 * 1024)},
    }))
    .expect("payload");
    bencher.bench_local(|| oath::protocol::HookInput::parse(divan::black_box(&payload), None));
}

/// Parsing a 1 MB Write of source code (an escape every few bytes).
#[divan::bench]
fn parse_1mb_code(bencher: divan::Bencher) {
    let code = "    let value = format!(\"{}\\t{}\", left, right); // step\n".repeat(17_000);
    let payload = serde_json::to_vec(&serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "/p/src/lib.rs", "content": code},
    }))
    .expect("payload");
    bencher.bench_local(|| oath::protocol::HookInput::parse(divan::black_box(&payload), None));
}

/// Reading and writing back a full 3-strike log (`strikes.max_attempts` attempts, the
/// default), as every recorded failure does.
#[divan::bench]
fn strike_log_roundtrip_full(bencher: divan::Bencher) {
    use oath::strike::store::ErrorsFile;
    let max = oath::strike::StrikeConfig::default().max_attempts;
    let attempts: Vec<serde_json::Value> = (0..max)
        .map(|i| {
            serde_json::json!({
                "timestamp": "2026-11-01T00:00:00Z", "tool": "Bash",
                "error": format!("Exit code 101\nerror[E0308]: mismatched types {i}\n --> src/lib.rs:10:5"),
                "status": "resolved", "hash": format!("{i:08x}"), "strike": 1,
                "input": "cargo build", "action": format!("{i:016x}"),
                "session_id": "s", "tool_use_id": format!("toolu_{i}"),
            })
        })
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "version": 1, "attempts": attempts, "strikeCount": 0, "lastErrorHash": "", "seq": 1000,
    }))
    .expect("json");
    bencher.bench_local(|| {
        let f: ErrorsFile = serde_json::from_str(divan::black_box(&text)).expect("parse");
        serde_json::to_string_pretty(&f).expect("write")
    });
}
