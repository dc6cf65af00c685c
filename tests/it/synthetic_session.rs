//! One synthetic session of many calls for the report's size tests (`tests/it/report.rs`, and
//! `tests/e2e/report.rs`, which includes this file): pre and outcome records as the hook
//! writes them, a user prompt every 200 calls, every decision, long commands, failures, and
//! the trust each applied outcome leaves.

use std::io::Write;
use std::path::Path;

use serde_json::json;

/// Writes `calls` calls of session `session` to the audit file `path`.
pub fn write(path: &Path, session: &str, calls: usize) {
    std::fs::create_dir_all(path.parent().expect("audit folder")).expect("audit folder");
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("audit file"));
    let at = |n: usize| {
        oath::clock::Timestamp::from_unix_millis(1_772_355_600_000 + n as i128 * 1500).iso_millis()
    };
    let domains = ["file_read", "shell_exec", "build", "git_local", "test_run"];
    let decisions = [
        "allow",
        "allow",
        "allow",
        "no_opinion",
        "allow",
        "ask",
        "allow",
    ];
    let mut trust = [0.5f64; 5];
    for n in 0..calls {
        if n % 200 == 0 {
            let e = json!({"v": 1, "kind": "event", "timestamp": at(n), "session_id": session,
                           "hook_event_name": "UserPromptSubmit"});
            writeln!(w, "{e}").expect("write");
        }
        let d = n % domains.len();
        let decision = if n % 97 == 0 {
            "deny"
        } else {
            decisions[n % decisions.len()]
        };
        let command = if n % 50 == 0 {
            format!("echo {}", "y".repeat(1500))
        } else {
            format!("cargo test --lib step_{n} && grep -n '<T>' src/m{n}.rs")
        };
        let id = format!("toolu_{n:06}");
        let pre = json!({"v": 1, "kind": "pre", "timestamp": at(n), "session_id": session,
            "tool_use_id": id, "tool_name": "Bash", "tool_input": {"command": command},
            "domain": domains[d], "risk_category": "medium", "rule": "shell.cargo",
            "trust_score_before": trust[d], "autonomy_score": 0.7, "decision": decision,
            "reason": format!("oath {decision}: {} reversible risk medium, trust {:.2}", domains[d], trust[d]),
            "outcome": "pending"});
        writeln!(w, "{pre}").expect("write");
        if decision == "deny" {
            continue;
        }
        let failed = n % 23 == 0;
        let before = trust[d];
        trust[d] = if failed {
            before * 0.8
        } else {
            before + (1.0 - before) * 0.02
        };
        let o = json!({"v": 1, "kind": "outcome", "timestamp": at(n), "session_id": session,
            "tool_use_id": id, "tool_name": "Bash", "domain": domains[d],
            "outcome": if failed { "failure" } else { "success" },
            "trust_score_before": before, "trust_score_after": trust[d], "trust_applied": true,
            "duration_ms": 700});
        writeln!(w, "{o}").expect("write");
    }
}
