//! Issue 41, item 3 ("trust is earned where it is spent"), through the binary: each domain
//! keeps its trust per risk level, so reads never vouch for writes and a failure costs every
//! level; only work oath understands earns; and trust kept as one score per domain (a
//! version 1 domain file, the single file of earlier versions) migrates as the low level
//! only. (PostToolUse classifying a call with the user's packs, as PreToolUse does:
//! `packs.rs`.)

use std::fs;

use serde_json::{Value, json};

use crate::support::{TestEnv, assert_valid_answer};

const SESSION: &str = "levels";

/// Sends PreToolUse for a Bash command and returns its `pre` audit record.
fn pre(env: &TestEnv, id: &str, command: &str) -> Value {
    let run = env.hook(&json!({
        "hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": env.project(),
        "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command},
    }));
    assert_valid_answer(&run, Some("PreToolUse"), command);
    let rec = last_record(env);
    assert_eq!(
        (rec["kind"].as_str(), rec["tool_use_id"].as_str()),
        (Some("pre"), Some(id))
    );
    rec
}

/// Sends the outcome of a Bash command (PostToolUse, or PostToolUseFailure) and returns its
/// `outcome` audit record.
fn outcome(env: &TestEnv, id: &str, command: &str, success: bool) -> Value {
    let mut p = json!({
        "session_id": SESSION, "cwd": env.project(), "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command},
    });
    if success {
        p["hook_event_name"] = json!("PostToolUse");
        p["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    } else {
        p["hook_event_name"] = json!("PostToolUseFailure");
        p["error"] = json!("Exit code 1");
        p["is_interrupt"] = json!(false);
    }
    let event = p["hook_event_name"].as_str().map(str::to_owned);
    let run = env.hook(&p);
    assert_valid_answer(&run, event.as_deref(), command);
    assert!(run.stderr.is_empty(), "{command}: {}", run.stderr);
    let rec = last_record(env);
    assert_eq!(
        (rec["kind"].as_str(), rec["tool_use_id"].as_str()),
        (Some("outcome"), Some(id))
    );
    rec
}

/// Runs a call through PreToolUse and a successful PostToolUse, as a client that ran it.
fn succeed(env: &TestEnv, id: &str, command: &str) -> (Value, Value) {
    (pre(env, id, command), outcome(env, id, command, true))
}

fn last_record(env: &TestEnv) -> Value {
    let text = fs::read_to_string(env.audit_file(SESSION)).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// `oath status --json`'s domain.
fn status(env: &TestEnv, domain: &str) -> Value {
    let out = env
        .oath()
        .args(["status", "--json", domain])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["domains"][domain].clone()
}

#[test]
fn thirty_reads_do_not_unlock_a_medium_container_command() {
    let env = TestEnv::new();
    for i in 0..30 {
        let (p, o) = succeed(&env, &format!("toolu_ps{i}"), "docker ps");
        assert_eq!(
            (p["domain"].as_str(), p["risk_category"].as_str()),
            (Some("container"), Some("low"))
        );
        assert_eq!(p["decision"], "allow");
        assert_eq!(
            (o["trust_applied"].as_bool(), o["trust_level"].as_str()),
            (Some(true), Some("low"))
        );
    }
    let low = status(&env, "container")["levels"]["low"].clone();
    assert!(low["score"].as_f64().unwrap() > 0.75, "{low}");
    for (n, command) in ["docker run -d nginx", "docker run --device=/dev/sda ubuntu"]
        .iter()
        .enumerate()
    {
        let p = pre(&env, &format!("toolu_run{n}"), command);
        // A run is medium; one given a host device is more (irreversible, high).
        assert_eq!(p["domain"], "container", "{p}");
        assert!(
            matches!(p["risk_category"].as_str(), Some("medium" | "high")),
            "{p}"
        );
        // Decided by its own level, which reads never raised.
        assert_eq!(p["trust_score_before"], 0.3, "{p}");
        assert_ne!(p["decision"], "allow", "{command} allowed by 30 reads: {p}");
    }
    let s = status(&env, "container");
    assert_eq!(s["levels"]["medium"]["operated"], false, "{s}");
    assert_eq!(s["levels"]["high"]["operated"], false, "{s}");
    // The same holds for the cluster: reads of it do not unlock working inside it.
    for i in 0..30 {
        succeed(&env, &format!("toolu_get{i}"), "kubectl get pods");
    }
    let p = pre(
        &env,
        "toolu_debug",
        "kubectl debug node/x -it --image=busybox",
    );
    // Working inside a node's host is more than a read, whatever level decides it.
    assert_ne!(p["risk_category"], "low", "{p}");
    assert_ne!(p["decision"], "allow", "{p}");
}

#[test]
fn medium_container_work_earns_medium_trust_and_a_failure_costs_every_level() {
    let env = TestEnv::new();
    let mut decisions = Vec::new();
    for i in 0..30 {
        let command = if i % 2 == 0 {
            "docker build ."
        } else {
            "docker run -d nginx"
        };
        let (p, o) = succeed(&env, &format!("toolu_m{i}"), command);
        assert_eq!(p["risk_category"], "medium", "{p}");
        assert_eq!(o["trust_level"], "medium", "{o}");
        assert_eq!(o["trust_score_before"], p["trust_score_before"], "{o}");
        decisions.push(p["decision"].as_str().unwrap().to_owned());
    }
    // No opinion at first, allowed once the medium level passes 0.6 (about 11 successes).
    assert_eq!(decisions[0], "no_opinion");
    assert_eq!(decisions[29], "allow", "{decisions:?}");
    let p = pre(&env, "toolu_next", "docker run -d redis");
    assert_eq!(
        (p["risk_category"].as_str(), p["decision"].as_str()),
        (Some("medium"), Some("allow")),
        "{p}"
    );
    // Medium work vouched for low, not for high.
    let s = status(&env, "container");
    let score = |level: &str| s["levels"][level]["score"].as_f64().unwrap();
    assert_eq!(score("low"), score("medium"), "{s}");
    assert_eq!(s["levels"]["high"]["operated"], false, "{s}");
    assert_eq!(s["levels"]["low"]["successes"], 30, "{s}");
    // A failure of a read lowers every level of the domain, high included.
    let before = (score("low"), score("medium"));
    pre(&env, "toolu_fail", "docker ps");
    let o = outcome(&env, "toolu_fail", "docker ps", false);
    assert_eq!(
        (o["trust_applied"].as_bool(), o["trust_level"].as_str()),
        (Some(true), Some("low"))
    );
    let s = status(&env, "container");
    let score = |level: &str| s["levels"][level]["score"].as_f64().unwrap();
    assert!((score("low") - before.0 * 0.85).abs() < 1e-9, "{s}");
    assert!((score("medium") - before.1 * 0.85).abs() < 1e-9, "{s}");
    assert!((score("high") - 0.3 * 0.85).abs() < 1e-9, "{s}");
    for level in ["low", "medium", "high"] {
        assert_eq!(
            s["levels"][level]["consecutive_failures"], 1,
            "{level}: {s}"
        );
    }
    // A second fire of the same call (a second hook entry) applies nothing.
    let again = outcome(&env, "toolu_fail", "docker ps", false);
    assert_eq!(
        (
            again["trust_applied"].as_bool(),
            again["duplicate"].as_bool()
        ),
        (Some(false), Some(true)),
        "{again}"
    );
    assert_eq!(status(&env, "container"), s);
    let again = outcome(&env, "toolu_m3", "docker run -d nginx", true);
    assert_eq!(again["duplicate"], true, "{again}");
    assert_eq!(status(&env, "container"), s);
}

#[test]
fn a_version_1_domain_file_migrates_its_score_to_the_low_level_only() {
    let env = TestEnv::new();
    let path = env.domain_file("container");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let v1 = json!({"version": 1, "domain": "container",
        "trust": {"score": 0.95, "successes": 200, "failures": 0, "total_operations": 200},
        "recent_outcomes": [{"tool_use_id": "toolu_old", "outcome": "success"}]});
    fs::write(&path, v1.to_string()).unwrap();
    // Reads are allowed on the old score; a medium call is decided at the initial score.
    let p = pre(&env, "toolu_ps", "docker ps");
    assert_eq!(
        (p["decision"].as_str(), p["trust_score_before"].as_f64()),
        (Some("allow"), Some(0.95))
    );
    let p = pre(&env, "toolu_run", "docker run -d nginx");
    assert_eq!(p["trust_score_before"], 0.3, "{p}");
    assert_ne!(p["decision"], "allow", "{p}");
    // A second fire of a call the old file applied changes nothing, and leaves it as it was.
    let o = outcome(&env, "toolu_old", "docker ps", true);
    assert_eq!(o["duplicate"], true, "{o}");
    assert_eq!(fs::read_to_string(&path).unwrap(), v1.to_string());
    // The next update writes version 2: the old state as the low level, medium and high not
    // operated; the medium call is still not allowed.
    let o = outcome(&env, "toolu_ps", "docker ps", true);
    assert_eq!(o["trust_applied"], true, "{o}");
    let file: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(file["version"], 2, "{file}");
    assert_eq!(file["levels"]["low"]["successes"], 201, "{file}");
    assert!(
        file["levels"].get("medium").is_none() && file["levels"].get("high").is_none(),
        "{file}"
    );
    assert!(file.get("trust").is_none(), "{file}");
    let p = pre(&env, "toolu_run2", "docker run -d nginx");
    assert_eq!(p["trust_score_before"], 0.3, "{p}");
    assert_ne!(p["decision"], "allow", "{p}");
    let aside: Vec<String> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(aside, ["container.json"], "nothing moved aside");
}

#[test]
fn the_single_file_of_earlier_versions_migrates_as_low_levels() {
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    let single = json!({"version": "2", "global_operation_count": 200, "domains": {
        "container": {"score": 0.95, "successes": 200, "total_operations": 200}}});
    fs::write(env.trust_file(), single.to_string()).unwrap();
    let p = pre(&env, "toolu_run", "docker run -d nginx");
    assert_eq!(p["trust_score_before"], 0.3, "{p}");
    assert_ne!(p["decision"], "allow", "{p}");
    succeed(&env, "toolu_ps", "docker ps");
    assert!(!env.trust_file().exists(), "migrated");
    let t = env.trust();
    assert_eq!(t["domains"]["container"]["low"]["successes"], 201, "{t}");
    assert!(t["domains"]["container"].get("medium").is_none(), "{t}");
    let p = pre(&env, "toolu_run2", "docker run -d nginx");
    assert_ne!(p["decision"], "allow", "{p}");
}

#[test]
fn programs_no_pack_describes_earn_nothing_and_lose_nothing() {
    let env = TestEnv::new();
    for i in 0..20 {
        let (p, o) = succeed(&env, &format!("toolu_f{i}"), "frobnicate --all");
        assert_eq!(p["domain"], "unknown", "{p}");
        assert_ne!(p["decision"], "allow", "{p}");
        assert_eq!(o["trust_applied"], false, "{o}");
        assert_eq!(o["trust_skipped"], "no pack describes the program", "{o}");
        assert!(
            o["trust_score_before"].is_null() && o.get("trust_level").is_none(),
            "{o}"
        );
    }
    // Twenty successes later another program no pack describes is still not allowed.
    let p = pre(&env, "toolu_other", "quuxify --now");
    assert_eq!(
        (p["domain"].as_str(), p["trust_score_before"].as_f64()),
        (Some("unknown"), Some(0.3))
    );
    assert_ne!(p["decision"], "allow", "{p}");
    // Nor does a failure of one count.
    pre(&env, "toolu_ff", "frobnicate --all");
    let o = outcome(&env, "toolu_ff", "frobnicate --all", false);
    assert_eq!(
        (o["trust_applied"].as_bool(), o["trust_skipped"].as_str()),
        (Some(false), Some("no pack describes the program"))
    );
    assert!(!env.domain_file("unknown").exists());
    // What oath does not understand earns nothing either.
    let (p, o) = succeed(&env, "toolu_computed", "$TOOL build");
    assert_eq!(p["risk_kind"], "not_understood", "{p}");
    assert_eq!(
        (o["trust_applied"].as_bool(), o["trust_skipped"].as_str()),
        (Some(false), Some("not understood")),
        "{o}"
    );
    assert!(
        !env.domain_file(p["domain"].as_str().unwrap()).exists(),
        "{p}"
    );
}
