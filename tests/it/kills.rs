//! State that survives kills: 200 outcome hooks (PostToolUse successes, PostToolUseFailure
//! Bash errors) SIGKILLed at any point of their run leave trust files that parse, a 3-strike
//! log and index that parse and agree, and no temp file that oath does not sweep; the next
//! hook works without a warning and counts on from where the log left off.
//!
//! Where the files are: the trust folder (one file per domain under `domains/`, its lock and
//! its temps in the folder) in `OATH_HOME/projects/<key>/trust/`,
//! the audit under `audit/` there (appended, no temps); the 3-strike log `errors.json` and
//! its index `strikes.json` in the project's `.plan/@no-git/` (no git repository here). Every
//! rewrite goes by temp file `.oath-tmp-*`, fsync and rename under a lock, so a killed writer
//! leaves the old file and maybe a temp, which the next update of that folder removes once it
//! is over 60 s old (a live writer's temp is younger). A failure renames the log first, the
//! index second; both carry `seq`, and an index whose `seq` is behind the log's is stale (its
//! writer was killed between the renames) and rebuilt from the log. That is how oath decides
//! agreement, and so here: an index at the log's `seq` must hold exactly what
//! `Index::rebuild` makes of the log, and one behind it is repaired by the next failure.
//!
//! Why: Claude Code kills hooks that run past their timeout and users kill sessions; a torn
//! or disagreeing state file would turn into a wrong trust score, a lost strike or a 3-strike
//! `ask` on an action that had succeeded since.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant, SystemTime};

use oath::strike::store::{ErrorsFile, Index, UNRESOLVED};
use serde_json::{Value, json};

use crate::support::{HookRun, TestEnv, assert_valid_answer, clip, finish, spawn_hook, to_run};

const SESSION: &str = "k";

/// The three errors: a command and its error text (`n` varies numbers that oath normalises
/// away, so every failure of one kind has one hash). Only `make` also succeeds in the mix,
/// which resets its error; the other two keep striking.
fn bash_failure(kind: u64, n: u64, id: &str) -> Value {
    let (command, error) = match kind {
        0 => (
            "cargo build",
            "Exit code 101\nerror[E0425]: cannot find value `x` in this scope".to_owned(),
        ),
        1 => (
            "npm test",
            format!(
                "Exit code 1\nFAIL src/app.test.js ({n} ms)\n  expected 3 to be 4 at src/app.test.js:{n}:7"
            ),
        ),
        _ => ("make", "make: *** [all] Error 2".to_owned()),
    };
    json!({"hook_event_name":"PostToolUseFailure","session_id":SESSION,"tool_name":"Bash",
           "tool_use_id":id,"tool_input":{"command":command,"description":"Build"},"error":error})
}

fn bash_success(id: &str) -> Value {
    json!({"hook_event_name":"PostToolUse","session_id":SESSION,"tool_name":"Bash",
           "tool_use_id":id,"tool_input":{"command":"make","description":"Build"},
           "tool_response":{"stdout":"ok","stderr":"","interrupted":false}})
}

fn read_success(env: &TestEnv, id: &str) -> Value {
    json!({"hook_event_name":"PostToolUse","session_id":SESSION,"tool_name":"Read",
           "tool_use_id":id,"tool_input":{"file_path":env.project().join("README.md")},
           "tool_response":{"type":"text","file":{"content":"hi"}}})
}

/// The `n`th run of the mix: a Read success, a `make` success, or one of three failures.
fn payload(env: &TestEnv, n: u64) -> Value {
    let id = format!("toolu_{n:03}");
    match n % 5 {
        0 => read_success(env, &id),
        1 => bash_success(&id),
        r => bash_failure((n / 5 + r) % 3, n, &id),
    }
}

/// Checks a hook that ran to its end: a valid answer and nothing on stderr.
fn check_clean(run: &HookRun, event: &str, label: &str) {
    assert_valid_answer(run, Some(event), label);
    assert!(run.stderr.is_empty(), "{label}: {}", clip(&run.stderr));
}

fn trust(env: &TestEnv) -> Value {
    env.trust()
}

/// Checks that the trust state parses, with its version and every padding domain as written
/// (migrated: its state the low level only).
fn check_trust(env: &TestEnv, padding: &Value, label: &str) {
    let t = trust(env);
    assert_eq!(t["version"], "3", "{label}");
    for n in 0..PADDING {
        assert_eq!(
            t["domains"][format!("padding_{n:04}")],
            json!({ "low": padding }),
            "{label}: padding_{n:04}"
        );
    }
}

const PADDING: usize = 300;

fn plan(env: &TestEnv) -> PathBuf {
    env.project().join(".plan/@no-git")
}

/// Reads and parses the log and the index (both must exist and parse).
fn strike_files(env: &TestEnv, label: &str) -> (ErrorsFile, Index) {
    let read = |name: &str| {
        fs::read(plan(env).join(name)).unwrap_or_else(|e| panic!("{label}: {name}: {e}"))
    };
    let errors: ErrorsFile = serde_json::from_slice(&read("errors.json"))
        .unwrap_or_else(|e| panic!("{label}: errors.json does not parse: {e}"));
    let index: Index = serde_json::from_slice(&read("strikes.json"))
        .unwrap_or_else(|e| panic!("{label}: strikes.json does not parse: {e}"));
    (errors, index)
}

/// Returns the strike count of each hash as the log alone says it (its unresolved attempts),
/// checking that they are strikes 1, 2, … in order: no count was lost or repeated.
fn log_counts(errors: &ErrorsFile, label: &str) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for a in &errors.attempts {
        let c = counts.entry(a.hash.clone()).or_insert(0);
        if a.status == UNRESOLVED {
            *c += 1;
            assert_eq!(
                a.strike,
                Some(*c),
                "{label}: attempt {:?} of {} is not the next strike",
                a.tool_use_id,
                a.hash
            );
        }
    }
    counts
}

/// Checks the index against the log as oath does; returns whether the index was current
/// (`false`: stale, behind the log's `seq`, which the next failure rebuilds).
fn check_agreement(errors: &ErrorsFile, index: &Index, label: &str) -> bool {
    let counts = log_counts(errors, label);
    assert!(
        index.seq <= errors.seq,
        "{label}: index seq {} ahead of the log's {}",
        index.seq,
        errors.seq
    );
    if errors.last_error_hash.is_empty() {
        assert_eq!(errors.strike_count, 0, "{label}");
    } else {
        assert_eq!(
            Some(&errors.strike_count),
            counts.get(&errors.last_error_hash),
            "{label}: strikeCount is not the last error's count"
        );
    }
    if index.seq < errors.seq {
        return false;
    }
    let rebuilt = Index::rebuild(errors);
    assert_eq!(
        index.hashes, rebuilt.hashes,
        "{label}: the index at seq {} disagrees with the log",
        index.seq
    );
    for (h, e) in &index.hashes {
        assert_eq!(Some(&e.count), counts.get(h), "{label}: count of {h}");
    }
    true
}

/// Returns the temp files of writers under `OATH_HOME` and the project's `.plan/`.
fn temps(env: &TestEnv) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = env
        .written_files()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".oath-tmp-"))
        })
        .collect();
    out.sort();
    out
}

/// Returns files oath moved aside as corrupt.
fn quarantined(env: &TestEnv) -> Vec<PathBuf> {
    env.written_files()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect()
}

/// Checks that the audit holds whole JSON records, each on its own line, apart from at most
/// `killed` fragments: a single `write()` to a file is cut at a page boundary when SIGKILL
/// arrives in it, so a killed writer may leave the head of its record. A fragment must be
/// such a head, on a line of its own (the next record is whole), and `oath audit` must skip
/// it and read every whole record.
fn check_audit(env: &TestEnv, killed: usize) {
    let text = fs::read_to_string(env.audit_file(SESSION)).unwrap_or_default();
    let head = r#"{"v":1,"kind":""#;
    let (mut whole, mut fragments) = (0, 0);
    for l in text.split_terminator('\n') {
        if serde_json::from_str::<Value>(l).is_ok_and(|v| v.is_object()) {
            whole += 1;
            continue;
        }
        fragments += 1;
        assert!(
            l.starts_with(head) || head.starts_with(l),
            "a line that is neither a record nor the head of one: {l}"
        );
        assert!(
            !l[1..].contains(r#"{"v":"#),
            "a record glued to a fragment: {l}"
        );
    }
    assert!(fragments <= killed, "{fragments} fragments, {killed} kills");
    assert!(whole > 0, "no record");
    let out = env
        .oath()
        .args(["audit", "--json", "--events"])
        .output()
        .unwrap();
    assert!(out.status.success(), "oath audit failed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if fragments == 0 {
        assert!(!stderr.contains("could not be read"), "{stderr}");
    } else {
        let said = if fragments == 1 {
            "1 line".to_owned()
        } else {
            format!("{fragments} lines")
        };
        assert!(
            stderr.contains(&format!("{said} in the audit trail could not be read")),
            "{fragments} fragments: {stderr}"
        );
    }
}

/// Runs one failure to its end and returns its answer's strike count (from the log).
fn fail_once(env: &TestEnv, payload: &Value, label: &str) -> (HookRun, u32) {
    let run = env.hook(payload);
    check_clean(&run, "PostToolUseFailure", label);
    let (errors, index) = strike_files(env, label);
    assert!(
        check_agreement(&errors, &index, label),
        "{label}: a failure that ran to its end left a stale index"
    );
    let last = errors.attempts.last().expect("an attempt");
    assert_eq!(last.tool_use_id.as_deref(), payload["tool_use_id"].as_str());
    (run, last.strike.expect("strike"))
}

#[test]
fn two_hundred_killed_outcome_hooks_leave_valid_agreeing_state_and_no_temps() {
    let started = Instant::now();
    let env = TestEnv::new();
    // Many domains (unknown ones are kept as they are), from the single trust file of an
    // earlier version that the seed migrates into the trust folder: a kill must leave every
    // domain but the one written as it was.
    let padding = json!({"score":0.5,"successes":3,"failures":1,"total_operations":4,
        "last_operated_at":"2026-01-01T00:00:00Z","is_warming_up":false,"warmup_remaining":0,
        "consecutive_failures":0,"pre_failure_score":null,"is_recovering":false});
    let mut t = json!({"version":"2","domains":{}});
    for n in 0..PADDING {
        t["domains"][format!("padding_{n:04}")] = padding.clone();
    }
    fs::create_dir_all(env.state_dir()).unwrap();
    fs::write(env.trust_file(), serde_json::to_vec_pretty(&t).unwrap()).unwrap();
    let run = env.hook(&read_success(&env, "toolu_seed"));
    check_clean(&run, "PostToolUse", "seed");
    assert!(!env.trust_file().exists(), "migrated");

    // How long a wave of parallel hooks takes here, unkilled (a debug build on a small
    // machine takes far longer than a release build on a large one): the kills below are
    // spread over it, so they land before, during and after the writes.
    const WAVES: u64 = 20;
    const PER_WAVE: u64 = 10;
    let calibration = Instant::now();
    let children: Vec<Child> = (0..PER_WAVE)
        .map(|i| spawn_hook(&env, &read_success(&env, &format!("toolu_cal_{i}"))))
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let run = finish(child);
        check_clean(&run, "PostToolUse", &format!("calibration {i}"));
    }
    // Most writes of a wave happen in its first half: there (under the trust folder's lock,
    // one at a time) the kills land.
    let span = calibration.elapsed() / 2;

    // Waves of parallel hooks, each SIGKILLed 0 to `span` after its spawn (21 delays in that
    // range, spread over the waves); some finish first.
    let (mut killed, mut completed) = (0, 0);
    for wave in 0..WAVES {
        let runs: Vec<(u64, Value)> = (0..PER_WAVE)
            .map(|i| {
                let n = wave * PER_WAVE + i;
                (n, payload(&env, n))
            })
            .collect();
        let mut children: Vec<(Instant, Child)> = runs
            .iter()
            .map(|(_, p)| (Instant::now(), spawn_hook(&env, p)))
            .collect();
        let mut order: Vec<(Instant, usize)> = (0..children.len())
            .map(|i| {
                let delay = span * ((runs[i].0 * 13) % 21) as u32 / 20;
                (children[i].0 + delay, i)
            })
            .collect();
        order.sort();
        for (deadline, i) in order {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            let _ = children[i].1.kill();
        }
        for ((n, p), (_, child)) in runs.iter().zip(children) {
            let out = child.wait_with_output().unwrap();
            if out.status.signal() == Some(9) {
                killed += 1;
                continue;
            }
            completed += 1;
            let run = to_run(out);
            let event = p["hook_event_name"].as_str().unwrap();
            check_clean(&run, event, &format!("run {n} ({event}), not killed"));
        }
        check_trust(&env, &padding, &format!("after wave {wave}"));
    }
    let waves_took = started.elapsed();

    // Whatever was killed where: every file parses and the index agrees with the log.
    check_trust(&env, &padding, "after the kills");
    let (errors, index) = strike_files(&env, "after the kills");
    let current = check_agreement(&errors, &index, "after the kills");
    let (attempts, seq) = (errors.attempts.len(), errors.seq);
    check_audit(&env, killed);
    assert!(
        quarantined(&env).is_empty(),
        "no file was ever unreadable: {:?}",
        quarantined(&env)
    );
    let left = temps(&env);

    // (a) A hook that runs to its end leaves no temp of its own; killed writers' temps may
    // stay while they are younger than 60 s (they could be a live writer's).
    fail_once(&env, &bash_failure(1, 7, "toolu_after_1"), "after 1");
    let young = temps(&env);
    assert!(
        young.iter().all(|p| left.contains(p)),
        "a hook that finished left a temp file: {young:?} (before it: {left:?})"
    );
    // (b) Once stale, they are swept: aged by two minutes, gone after the next hook, which
    // updates both folders that hold them (the trust folder and the strike files' folder).
    let two_minutes_ago = SystemTime::now() - Duration::from_secs(120);
    for p in &young {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(two_minutes_ago)
            .unwrap();
    }
    fail_once(&env, &bash_failure(1, 8, "toolu_after_2"), "after 2");
    let remaining = temps(&env);
    assert!(remaining.is_empty(), "stale temps not swept: {remaining:?}");

    // The next failure counts exactly one more than the log said.
    let (errors, _) = strike_files(&env, "before the last");
    let cargo = bash_failure(0, 0, "toolu_last");
    let before = errors
        .attempts
        .iter()
        .rev()
        .find(|a| a.error.contains("E0425"))
        .map(|a| a.hash.clone())
        .and_then(|h| log_counts(&errors, "before the last").get(&h).copied())
        .unwrap_or(0);
    let (run, strike) = fail_once(&env, &cargo, "last");
    assert_eq!(strike, before + 1, "the last failure's strike");
    if strike >= 2 {
        let context = run.answer().unwrap()["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            context.contains(&format!("has now occurred {strike} times")),
            "{context}"
        );
    }
    check_trust(&env, &padding, "at the end");
    check_audit(&env, killed);

    eprintln!(
        "kills: {killed} of {} outcome hooks killed before finishing, {completed} completed; \
         then {} attempts in the log at seq {} (index {}); {} temp files left by the kills, {} still \
         there after a normal hook, 0 after aging; cargo build at strike {strike}; \
         kills 0 to {} ms after spawn; waves {:.1} s, test {:.1} s",
        WAVES * PER_WAVE,
        attempts,
        seq,
        if current { "current" } else { "stale" },
        left.len(),
        young.len(),
        span.as_millis(),
        waves_took.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

/// Returns each hash's count and status as `oath errors list --json` shows them.
fn listed(env: &TestEnv) -> BTreeMap<String, (u64, String)> {
    let out = env
        .oath()
        .args(["errors", "list", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    list["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let hash = e["hash"].as_str().unwrap().to_owned();
            let status = e["status"].as_str().unwrap().to_owned();
            (hash, (e["count"].as_u64().unwrap(), status))
        })
        .collect()
}

/// The one kill that leaves the two strike files out of step, exactly: between the log's
/// rename and the index's, after a failure and after a success that resets a count (the old
/// index is put back, as the kill would have left it). Too narrow a window for the random
/// kills above to hit reliably.
#[test]
fn a_kill_between_the_log_and_index_renames_is_seen_and_repaired() {
    let env = TestEnv::new();
    let index_file = plan(&env).join("strikes.json");
    let make = |n: u64| bash_failure(2, n, &format!("toolu_make_{n}"));
    fail_once(&env, &make(1), "make 1");
    let (_, strike) = fail_once(&env, &make(2), "make 2");
    assert_eq!(strike, 2);
    let hash = strike_files(&env, "make 2").0.last_error_hash;

    // `make` succeeds, which resets its error in both files; killed before the index's rename.
    let old = fs::read(&index_file).unwrap();
    let run = env.hook(&bash_success("toolu_make_ok"));
    check_clean(&run, "PostToolUse", "make succeeds");
    fs::write(&index_file, &old).unwrap();
    let (errors, index) = strike_files(&env, "success killed between the renames");
    check_agreement(&errors, &index, "success killed between the renames");
    assert!(
        errors.attempts.iter().all(|a| a.status != UNRESOLVED),
        "the log holds the reset"
    );
    assert_eq!(
        listed(&env)[&hash],
        (0, "resolved".to_owned()),
        "errors list"
    );
    let (run, strike) = fail_once(&env, &make(3), "make 3");
    assert_eq!(strike, 1, "the success reset the count: {}", run.stdout);

    // A failure killed before the index's rename: the log has its attempt, the index not.
    let old = fs::read(&index_file).unwrap();
    let run = env.hook(&make(4));
    check_clean(&run, "PostToolUseFailure", "make 4");
    fs::write(&index_file, &old).unwrap();
    let (errors, index) = strike_files(&env, "failure killed between the renames");
    assert!(
        !check_agreement(&errors, &index, "failure killed between the renames"),
        "the index is seen as stale"
    );
    assert_eq!(
        listed(&env)[&hash],
        (2, UNRESOLVED.to_owned()),
        "errors list"
    );
    let (_, strike) = fail_once(&env, &make(5), "make 5");
    assert_eq!(strike, 3, "counted on from the log");
}

#[test]
fn readers_see_the_log_a_killed_writer_left_behind() {
    let env = TestEnv::new();
    let index_file = plan(&env).join("strikes.json");
    let make = |n: u64| bash_failure(2, n, &format!("toolu_make_{n}"));

    // The first failure is killed before its index is written: a success of the same action
    // still resets the error the log holds, so the next failure is a first strike again.
    let run = env.hook(&make(1));
    check_clean(&run, "PostToolUseFailure", "make 1");
    fs::remove_file(&index_file).unwrap();
    let run = env.hook(&bash_success("toolu_make_ok"));
    check_clean(&run, "PostToolUse", "make succeeds");
    let (errors, _) = strike_files(&env, "after the success");
    assert!(
        errors.attempts.iter().all(|a| a.status != UNRESOLVED),
        "the success reset the logged failure"
    );
    let (run, strike) = fail_once(&env, &make(2), "make 2");
    assert_eq!(strike, 1, "a fresh count after the reset: {}", run.stdout);

    // The third strike is killed before its index is written: the next PreToolUse of the
    // same action still stops the loop.
    fail_once(&env, &make(3), "make 3");
    let old = fs::read(&index_file).unwrap();
    let run = env.hook(&make(4));
    check_clean(&run, "PostToolUseFailure", "make 4");
    fs::write(&index_file, &old).unwrap();
    let run = env.hook(&json!({"hook_event_name":"PreToolUse","session_id":SESSION,
        "tool_name":"Bash","tool_use_id":"toolu_again",
        "tool_input":{"command":"make","description":"Build"}}));
    assert_valid_answer(&run, Some("PreToolUse"), "make again");
    assert_eq!(
        run.decision().as_deref(),
        Some("ask"),
        "{}",
        clip(&run.stdout)
    );
    assert!(run.stdout.contains("3-strike"), "{}", clip(&run.stdout));
}
