//! Faults around oath's files: read-only or missing state dir, disk full, corrupt or odd
//! state and config files, symlinks, parallel writers and writers killed mid-write.
//!
//! The expected safe outcome everywhere: the hook exits 0 (2 only for a deny), answers
//! validly, PreToolUse still decides, problems are named on stderr, and nothing wedges: the
//! next hook works.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::support::{
    HookRun, TestEnv, assert_valid_answer, clip, finish, oath_bin, run_with_stdin, spawn_hook,
};

fn pre_bash(session: &str, id: &str, command: &str) -> Value {
    json!({"hook_event_name":"PreToolUse","session_id":session,"tool_name":"Bash",
           "tool_use_id":id,"tool_input":{"command":command}})
}

fn post_read(env: &TestEnv, session: &str, id: &str) -> Value {
    json!({"hook_event_name":"PostToolUse","session_id":session,"tool_name":"Read",
           "tool_use_id":id,"tool_input":{"file_path":env.project().join("README.md")},
           "tool_response":{"type":"text","file":{"content":"hi"}}})
}

fn pre_read(env: &TestEnv, session: &str) -> Value {
    json!({"hook_event_name":"PreToolUse","session_id":session,"tool_name":"Read",
           "tool_use_id":"toolu_pre","tool_input":{"file_path":env.project().join("README.md")}})
}

/// Checks a valid answer with no caught panic.
fn check(run: &HookRun, event: &str, label: &str) {
    assert_valid_answer(run, Some(event), label);
    assert!(
        !run.stderr.contains("internal error"),
        "{label}: {}",
        clip(&run.stderr)
    );
}

/// Checks that PreToolUse decided on the call itself (not the fail mode of a broken input).
fn check_decided(run: &HookRun, label: &str) {
    check(run, "PreToolUse", label);
    assert!(
        !run.stderr.contains("bad hook input") && !run.stdout.contains("could not check"),
        "{label}: PreToolUse fell back to its fail mode: {}",
        clip(&run.stdout)
    );
}

fn trust(env: &TestEnv) -> Value {
    env.trust()
}

/// Successes of a domain's low level (the tests' calls are reads: low risk).
fn successes(env: &TestEnv, domain: &str) -> u64 {
    trust(env)["domains"][domain]["low"]["successes"]
        .as_u64()
        .unwrap_or(0)
}

fn quarantined(dir: &Path, name: &str) -> Vec<String> {
    fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!("{name}.corrupt-")))
                .collect()
        })
        .unwrap_or_default()
}

/// Returns whether the mode bits stop this process from writing into `dir` (they do not
/// for root).
fn mode_blocks_writes(dir: &Path) -> bool {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join(".probe");
    let blocked = fs::write(&probe, "x").is_err();
    let _ = fs::remove_file(&probe);
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    blocked
}

#[test]
fn corrupt_trust_file_is_moved_aside_and_the_hook_carries_on() {
    let cases: &[(&str, &[u8])] = &[
        (
            "truncated",
            br#"{"version":"2","domains":{"file_read":{"score":0.5"#,
        ),
        ("garbage", b"\x00\xffnot json at all"),
        ("empty", b""),
        ("whitespace", b"  \n"),
        (
            "wrong types",
            br#"{"version":"2","domains":{"file_read":{"score":"high"}}}"#,
        ),
        (
            "score out of range",
            br#"{"version":"2","domains":{"file_read":{"score":7.5}}}"#,
        ),
        ("not an object", b"[1,2,3]"),
        ("unknown version", br#"{"version":"99","domains":{}}"#),
    ];
    for (label, bytes) in cases {
        let env = TestEnv::new();
        fs::create_dir_all(env.state_dir()).unwrap();
        fs::write(env.trust_file(), bytes).unwrap();
        // PreToolUse reads only: it warns, decides from the initial trust, changes nothing.
        let run = env.hook(&pre_read(&env, "s"));
        check_decided(&run, label);
        assert!(run.stderr.contains("unreadable"), "{label}: {}", run.stderr);
        assert_eq!(fs::read(env.trust_file()).unwrap(), *bytes, "{label}");
        // PostToolUse moves it aside with a warning and starts from defaults.
        let run = env.hook(&post_read(&env, "s", "toolu_1"));
        check(&run, "PostToolUse", label);
        assert!(
            run.stderr.contains("moved it to"),
            "{label}: {}",
            run.stderr
        );
        let aside = quarantined(&env.state_dir(), "trust-scores.json");
        assert_eq!(aside.len(), 1, "{label}: {aside:?}");
        assert_eq!(
            fs::read(env.state_dir().join(&aside[0])).unwrap(),
            *bytes,
            "{label}: the corrupt file is kept as it was"
        );
        assert_eq!(successes(&env, "file_read"), 1, "{label}");
        // The next hook is quiet again: nothing wedged.
        let run = env.hook(&post_read(&env, "s", "toolu_2"));
        check(&run, "PostToolUse", label);
        assert!(
            !run.stderr.contains("unreadable"),
            "{label}: {}",
            run.stderr
        );
        assert_eq!(successes(&env, "file_read"), 2, "{label}");
    }
}

#[test]
fn a_trust_file_invalid_only_in_another_domain_is_read_then_moved_aside() {
    // PreToolUse reads the call's domain only: the file's invalid `git_local` leaves the
    // `file_read` score in force (no warning); the next update reads the whole file and moves
    // it aside.
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    let bytes = br#"{"version":"2","domains":{"file_read":{"score":0.9},"git_local":{"score":7}}}"#;
    fs::write(env.trust_file(), bytes).unwrap();
    let run = env.hook(&pre_read(&env, "s"));
    check_decided(&run, "pre");
    assert!(!run.stderr.contains("unreadable"), "{}", run.stderr);
    assert!(run.stdout.contains("trust 0.90"), "{}", clip(&run.stdout));
    let run = env.hook(&post_read(&env, "s", "toolu_1"));
    check(&run, "PostToolUse", "post");
    assert!(run.stderr.contains("moved it to"), "{}", run.stderr);
    assert_eq!(quarantined(&env.state_dir(), "trust-scores.json").len(), 1);
    assert_eq!(successes(&env, "file_read"), 1);
}

#[test]
fn trust_file_that_is_a_directory_is_moved_aside() {
    let env = TestEnv::new();
    fs::create_dir_all(env.trust_file().join("inner")).unwrap();
    let run = env.hook(&pre_read(&env, "s"));
    check_decided(&run, "directory, pre");
    let run = env.hook(&post_read(&env, "s", "t1"));
    check(&run, "PostToolUse", "directory, post");
    assert!(run.stderr.contains("moved it to"), "{}", run.stderr);
    assert!(!env.trust_file().exists());
    assert_eq!(quarantined(&env.state_dir(), "trust-scores.json").len(), 1);
    assert_eq!(successes(&env, "file_read"), 1);

    // The same in the trust folder: the folder itself, and a domain file.
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    fs::write(env.trust_dir(), "a file").unwrap();
    let run = env.hook(&post_read(&env, "s", "t1"));
    check(&run, "PostToolUse", "folder is a file");
    assert!(run.stderr.contains("not a folder"), "{}", run.stderr);
    fs::remove_file(env.domain_file("file_read")).unwrap();
    fs::create_dir_all(env.domain_file("file_read")).unwrap();
    let run = env.hook(&pre_read(&env, "s"));
    check_decided(&run, "domain file is a directory, pre");
    assert!(run.stderr.contains("unreadable"), "{}", run.stderr);
    let run = env.hook(&post_read(&env, "s", "t2"));
    check(&run, "PostToolUse", "domain file is a directory, post");
    assert!(run.stderr.contains("moved it to"), "{}", run.stderr);
    assert!(env.domain_file("file_read").is_file());
    assert_eq!(successes(&env, "file_read"), 1);
}

#[test]
fn symlinked_state_files_are_not_followed() {
    let env = TestEnv::new();
    let victim = env.dir.path().join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    fs::create_dir_all(env.state_dir().join("audit")).unwrap();
    std::os::unix::fs::symlink(&victim, env.trust_file()).unwrap();
    std::os::unix::fs::symlink(&victim, env.audit_file("s")).unwrap();
    let run = env.hook(&pre_read(&env, "s"));
    check_decided(&run, "symlink, pre");
    let run = env.hook(&post_read(&env, "s", "t1"));
    check(&run, "PostToolUse", "symlink, post");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        fs::symlink_metadata(env.trust_file()).is_err(),
        "moved aside"
    );
    assert_eq!(successes(&env, "file_read"), 1);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);

    // Links in the trust folder: a domain file, and the folder itself.
    let elsewhere = env.dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::remove_file(env.domain_file("file_read")).unwrap();
    std::os::unix::fs::symlink(&victim, env.domain_file("file_read")).unwrap();
    let run = env.hook(&post_read(&env, "s", "t2"));
    check(&run, "PostToolUse", "domain symlink");
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(successes(&env, "file_read"), 1);
    fs::rename(env.trust_dir(), env.dir.path().join("old-trust")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, env.trust_dir()).unwrap();
    let run = env.hook(&post_read(&env, "s", "t3"));
    check(&run, "PostToolUse", "folder symlink");
    assert!(run.stderr.contains("not a folder"), "{}", run.stderr);
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written there"
    );
    assert_eq!(successes(&env, "file_read"), 1);
}

#[test]
fn broken_config_files_fall_back_safely() {
    let cases: &[(&str, Option<&[u8]>)] = &[
        ("garbage yaml", Some(b"trust: [unclosed\n  - : :")),
        ("truncated yaml", Some(b"trust:\n  initial_sc")),
        ("not utf-8", Some(b"on_error: \xff\xfe\n")),
        ("wrong type", Some(b"trust: 5\n")),
        ("empty", Some(b"")),
        ("directory", None),
    ];
    for (label, bytes) in cases {
        for user_level in [false, true] {
            let env = TestEnv::new();
            let path = if user_level {
                env.home().join(".config/oath/config.yaml")
            } else {
                env.project().join(".oath.yaml")
            };
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            match bytes {
                Some(b) => fs::write(&path, b).unwrap(),
                None => fs::create_dir_all(&path).unwrap(),
            }
            let label = format!("{label} (user file: {user_level})");
            // A broken file is ignored and named; the rest decides, weakened by nothing:
            // `ls` is allowed as without the file, `rm -rf ~` still denied.
            let run = env.hook(&pre_bash("s", "t0", "ls"));
            check_decided(&run, &label);
            assert_eq!(run.decision().as_deref(), Some("allow"), "{label}");
            if !bytes.is_some_and(<[u8]>::is_empty) {
                assert!(
                    run.stderr.contains("ignored") && run.stderr.contains(&*path.to_string_lossy()),
                    "{label}: {}",
                    run.stderr
                );
            }
            let run = env.hook(&pre_bash("s", "t0b", "rm -rf ~"));
            assert_eq!(run.decision().as_deref(), Some("deny"), "{label}");
            // Other events carry on from defaults with a warning.
            let run = env.hook(&post_read(&env, "s", "t1"));
            check(&run, "PostToolUse", &label);
            assert_eq!(successes(&env, "file_read"), 1, "{label}");
            for event in ["SessionStart", "Stop", "SessionEnd", "PostToolUseFailure"] {
                let run = env.hook(&json!({"hook_event_name":event,"session_id":"s",
                    "tool_name":"Bash","tool_use_id":"t9","tool_input":{"command":"false"},
                    "error":"Exit code 1"}));
                check(&run, event, &label);
            }
        }
    }
}

#[test]
fn state_dir_that_cannot_be_written_does_not_stop_the_gate() {
    // A regular file stands where OATH_HOME's directory should be: works even as root.
    let env = TestEnv::new();
    fs::write(env.oath_home(), "not a directory").unwrap();
    let run = env.hook(&pre_bash("s", "t1", "ls -la"));
    check_decided(&run, "file as OATH_HOME, pre");
    assert!(run.stderr.contains("audit not written"), "{}", run.stderr);
    let run = env.hook(&post_read(&env, "s", "t1"));
    check(&run, "PostToolUse", "file as OATH_HOME, post");
    assert!(run.stderr.contains("trust not updated"), "{}", run.stderr);
    for event in [
        "SessionStart",
        "Stop",
        "SessionEnd",
        "UserPromptSubmit",
        "Notification",
    ] {
        let run = env.hook(&json!({"hook_event_name":event,"session_id":"s"}));
        check(&run, event, event);
    }
    assert_eq!(
        fs::read_to_string(env.oath_home()).unwrap(),
        "not a directory"
    );

    // The audit folder and the lock are blocked by directories and files of the wrong kind.
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    fs::write(env.state_dir().join("audit"), "file where a dir should be").unwrap();
    fs::create_dir_all(env.trust_dir().join(".lock")).unwrap();
    let run = env.hook(&pre_bash("s", "t1", "ls"));
    check_decided(&run, "audit dir is a file");
    assert!(run.stderr.contains("audit not written"), "{}", run.stderr);
    let run = env.hook(&post_read(&env, "s", "t2"));
    check(&run, "PostToolUse", "lock is a dir");
    assert!(run.stderr.contains("not a lock file"), "{}", run.stderr);
    assert_eq!(successes(&env, "file_read"), 1, "the update went through");

    // Read-only by mode, when the mode stops this user (it does not stop root).
    let env = TestEnv::new();
    let run = env.hook(&post_read(&env, "s", "t0"));
    check(&run, "PostToolUse", "seed");
    let before = fs::read(env.domain_file("file_read")).unwrap();
    if !mode_blocks_writes(&env.state_dir()) {
        eprintln!("skipped the chmod sub-case: this user (root?) writes through mode 0555");
        return;
    }
    let read_only = [
        env.state_dir(),
        env.trust_dir(),
        env.trust_dir().join("domains"),
    ];
    for dir in &read_only {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
    }
    let run = env.hook(&pre_bash("s2", "t1", "ls"));
    let post = env.hook(&post_read(&env, "s2", "t2"));
    for dir in &read_only {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    check_decided(&run, "read-only, pre");
    assert!(run.stderr.contains("audit not written"), "{}", run.stderr);
    check(&post, "PostToolUse", "read-only, post");
    assert!(post.stderr.contains("not"), "{}", post.stderr);
    assert_eq!(fs::read(env.domain_file("file_read")).unwrap(), before);
}

/// Runs `oath hook` under `sh -c` with a shell prelude (ulimit, trap).
fn hook_in_shell(env: &TestEnv, prelude: &str, payload: &Value) -> HookRun {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("{prelude}; exec \"$0\" hook"))
        .arg(oath_bin());
    env.apply_env(&mut sh);
    run_with_stdin(sh, payload.to_string().as_bytes())
}

#[test]
fn disk_full_is_a_warning_and_the_previous_state_survives() {
    let env = TestEnv::new();
    let run = env.hook(&post_read(&env, "s", "t0"));
    check(&run, "PostToolUse", "seed");
    let before = fs::read(env.domain_file("file_read")).unwrap();
    let audit_before = fs::read(env.audit_file("s")).unwrap();
    // RLIMIT_FSIZE 0 with SIGXFSZ ignored: every write to a regular file fails (EFBIG), as
    // on a full disk; pipes (stdin, stdout, stderr) are not affected.
    let prelude = "trap '' XFSZ; ulimit -f 0";
    let run = hook_in_shell(&env, prelude, &pre_bash("s", "t1", "ls"));
    check_decided(&run, "disk full, pre");
    assert!(run.stderr.contains("audit not written"), "{}", run.stderr);
    let run = hook_in_shell(&env, prelude, &post_read(&env, "s", "t2"));
    check(&run, "PostToolUse", "disk full, post");
    assert!(run.stderr.contains("trust not updated"), "{}", run.stderr);
    assert_eq!(fs::read(env.domain_file("file_read")).unwrap(), before);
    assert_eq!(fs::read(env.audit_file("s")).unwrap(), audit_before);
    let leftovers: Vec<_> = [env.state_dir(), env.trust_dir()]
        .iter()
        .flat_map(|d| fs::read_dir(d).unwrap())
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".oath-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
    // Space comes back: the next hook works.
    let run = env.hook(&post_read(&env, "s", "t3"));
    check(&run, "PostToolUse", "after");
    assert_eq!(successes(&env, "file_read"), 2);

    // A real full file system, when this user may mount a tmpfs in a private namespace.
    let probe = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            "mount -t tmpfs -o size=64k tmpfs /mnt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipped the tmpfs sub-case: cannot mount in a private namespace here");
        return;
    }
    let home = env.dir.path().join("full");
    fs::create_dir_all(&home).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=64k tmpfs '{h}' && mkdir -p '{h}/oath' && \
         (head -c 1000000 /dev/zero > '{h}/fill' 2>/dev/null; true) && \
         OATH_HOME='{h}/oath' exec \"$0\" hook",
        h = home.display()
    );
    for payload in [pre_bash("s", "t1", "ls"), post_read(&env, "s", "t2")] {
        let mut sh = Command::new("unshare");
        sh.args(["--mount", "--propagation", "private", "sh", "-c", &script])
            .arg(oath_bin())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.home())
            .env("CLAUDE_PROJECT_DIR", env.project())
            .current_dir(env.project());
        let event = payload["hook_event_name"].as_str().unwrap().to_owned();
        let run = run_with_stdin(sh, payload.to_string().as_bytes());
        check(&run, &event, "tmpfs full");
        assert!(
            run.stderr.contains("No space left") || run.stderr.contains("not written"),
            "{}",
            run.stderr
        );
        if event == "PreToolUse" {
            check_decided(&run, "tmpfs full");
        }
    }
}

fn audit_lines(env: &TestEnv, session: &str) -> Vec<Value> {
    let text = fs::read_to_string(env.audit_file(session)).unwrap_or_default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "audit ends mid-line"
    );
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn audit line ({e}): {l}")))
        .collect()
}

#[test]
fn sixty_four_parallel_hooks_lose_nothing() {
    let env = TestEnv::new();
    let run = env.hook(&post_read(&env, "seed", "toolu_seed"));
    check(&run, "PostToolUse", "seed");
    let start = successes(&env, "file_read");
    assert_eq!(start, 1);

    let posts: Vec<Child> = (0..64)
        .map(|i| spawn_hook(&env, &post_read(&env, "par", &format!("toolu_post_{i:02}"))))
        .collect();
    let pres: Vec<Child> = (0..64)
        .map(|i| {
            spawn_hook(
                &env,
                &pre_bash("par", &format!("toolu_pre_{i:02}"), "git status"),
            )
        })
        .collect();
    for (i, c) in posts.into_iter().enumerate() {
        let run = finish(c);
        check(&run, "PostToolUse", &format!("post {i}"));
        assert!(run.stderr.is_empty(), "post {i}: {}", run.stderr);
    }
    for (i, c) in pres.into_iter().enumerate() {
        let run = finish(c);
        check_decided(&run, &format!("pre {i}"));
    }
    assert_eq!(successes(&env, "file_read"), start + 64);
    let lines = audit_lines(&env, "par");
    assert_eq!(lines.len(), 128);
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| l["tool_use_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 128, "every record once");
    assert_eq!(lines.iter().filter(|l| l["kind"] == "pre").count(), 64);
    assert_eq!(lines.iter().filter(|l| l["kind"] == "outcome").count(), 64);
}

#[test]
fn writers_killed_mid_write_leave_valid_state() {
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    // The single trust file of an earlier version, with many domains (unknown ones are kept
    // as they are): the first update migrates them into the trust folder, one file each.
    let template = json!({"score":0.5,"successes":3,"failures":1,"total_operations":4,
                          "last_operated_at":"2026-01-01T00:00:00Z"});
    let mut t = json!({"version":"2","global_operation_count":1200,"domains":{}});
    for n in 0..300 {
        t["domains"][format!("padding_{n:04}")] = template.clone();
    }
    fs::write(env.trust_file(), serde_json::to_vec_pretty(&t).unwrap()).unwrap();
    let whole = |label: &str| {
        let t = trust(&env);
        assert_eq!(t["version"], "3", "{label}");
        for n in [0, 150, 299] {
            // Each migrates as the low level only.
            let d = &t["domains"][format!("padding_{n:04}")];
            assert_eq!(d["low"]["successes"], 3, "{label}: padding_{n:04}");
            assert!(d.get("medium").is_none(), "{label}: padding_{n:04}");
        }
    };
    // Migrations killed part way, each a little later: the state read stays whole.
    for ms in [1, 3, 6, 10, 20, 40] {
        let mut c = spawn_hook(&env, &post_read(&env, "k", &format!("toolu_m{ms}")));
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = c.kill();
        let _ = c.wait();
        whole(&format!("migration killed after {ms} ms"));
    }
    let run = env.hook(&post_read(&env, "k", "toolu_seed"));
    check(&run, "PostToolUse", "seed");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(!env.trust_file().exists(), "migrated");
    whole("migrated");
    let start = successes(&env, "file_read");
    // Waves of writers; every other one is SIGKILLed, each a little later than the last.
    const WAVES: u64 = 4;
    const PER_WAVE: u64 = 10;
    let mut survivors = 0;
    for wave in 0..WAVES {
        let children: Vec<Child> = (0..PER_WAVE)
            .map(|i| spawn_hook(&env, &post_read(&env, "k", &format!("toolu_{wave}_{i}"))))
            .collect();
        for (i, mut c) in (0u64..).zip(children) {
            if i % 2 == 0 {
                std::thread::sleep(std::time::Duration::from_millis((wave * 7 + i) % 20));
                let _ = c.kill();
                let _ = c.wait();
            } else {
                let run = finish(c);
                check(&run, "PostToolUse", "survivor");
                survivors += 1;
            }
        }
        // Whatever was killed, every file is whole and parses.
        whole(&format!("wave {wave}"));
    }
    let n = successes(&env, "file_read") - start;
    assert!(
        n >= survivors && n <= WAVES * PER_WAVE,
        "{n} successes, {survivors} survivors"
    );
    // The audit holds whole lines only, and no lock was left held: the next hook works.
    audit_lines(&env, "k");
    let run = env.hook(&post_read(&env, "k", "toolu_after"));
    check(&run, "PostToolUse", "after");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(successes(&env, "file_read"), start + n + 1);
}

#[test]
fn fifos_and_devices_where_files_should_be_do_not_wedge_the_hook() {
    // Opening a FIFO for reading blocks until a writer comes: a hook that did would hang
    // until Claude Code's timeout on every call. Each run has a generous watchdog.
    for (label, rel) in [
        ("project config", "project/.oath.yaml"),
        ("user config", "home/.config/oath/config.yaml"),
        ("phase file", "project/.claude/current-phase.md"),
        ("git HEAD", "project/.git/HEAD"),
    ] {
        let env = TestEnv::new();
        let path = env.dir.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let made = Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        for payload in [pre_bash("s", "t1", "ls"), post_read(&env, "s", "t2")] {
            let event = payload["hook_event_name"].as_str().unwrap().to_owned();
            let run = finish_or_kill(spawn_hook(&env, &payload), label);
            check(&run, &event, label);
        }
    }
    // The trust file as a FIFO is moved aside like any unreadable state file.
    let env = TestEnv::new();
    fs::create_dir_all(env.state_dir()).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(env.trust_file())
            .status()
            .unwrap()
            .success()
    );
    let run = finish_or_kill(spawn_hook(&env, &pre_read(&env, "s")), "trust fifo, pre");
    check_decided(&run, "trust fifo, pre");
    let run = finish_or_kill(spawn_hook(&env, &post_read(&env, "s", "t")), "trust fifo");
    check(&run, "PostToolUse", "trust fifo");
    assert_eq!(successes(&env, "file_read"), 1);
    // A config that is a link to an endless device is refused, not read forever.
    let env = TestEnv::new();
    std::os::unix::fs::symlink("/dev/zero", env.project().join(".oath.yaml")).unwrap();
    let run = finish_or_kill(spawn_hook(&env, &pre_bash("s", "t", "ls")), "/dev/zero");
    check(&run, "PreToolUse", "/dev/zero config");
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}

/// Waits for a hook, killing it (and failing) if it is still running after two minutes: a
/// hang detector, not a speed check.
fn finish_or_kill(mut child: Child, label: &str) -> HookRun {
    for _ in 0..1200 {
        if child.try_wait().unwrap().is_some() {
            return finish(child);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{label}: the hook hung");
}

#[test]
fn extreme_but_valid_trust_values_do_not_panic() {
    for last in [
        "9999-12-31T23:59:59Z",
        "0001-01-01T00:00:00Z",
        "not a date",
        "",
    ] {
        let env = TestEnv::new();
        fs::create_dir_all(env.state_dir()).unwrap();
        let m = u64::MAX;
        let c = u32::MAX;
        let text = format!(
            r#"{{"version":"2","global_operation_count":{m},"recent_outcomes":[{{"tool_use_id":"x","outcome":"success"}}],
               "domains":{{"file_read":{{"score":1.0,"successes":{m},"failures":{m},"total_operations":{m},
               "consecutive_failures":{c},"warmup_remaining":{c},"is_warming_up":true,"is_recovering":true,
               "pre_failure_score":1e308,"last_operated_at":"{last}"}},
               "shell_exec":{{"score":0.0,"last_operated_at":"{last}"}}}}}}"#
        );
        fs::write(env.trust_file(), text).unwrap();
        let runs = [
            (env.hook(&pre_read(&env, "s")), "PreToolUse"),
            (env.hook(&post_read(&env, "s", "t1")), "PostToolUse"),
            (env.hook(&post_read(&env, "s", "x")), "PostToolUse"),
            (
                env.hook(&json!({"hook_event_name":"PostToolUseFailure","session_id":"s",
                    "tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"ls"},"error":"e"})),
                "PostToolUseFailure",
            ),
        ];
        for (run, event) in runs {
            check(&run, event, last);
        }
        for level in ["low", "medium", "high"] {
            assert!(
                trust(&env)["domains"]["file_read"][level]["score"]
                    .as_f64()
                    .unwrap()
                    <= 1.0,
                "{level}"
            );
        }
    }
}

fn failure(session: &str, id: &str) -> Value {
    json!({"hook_event_name":"PostToolUseFailure","session_id":session,"tool_name":"Bash",
           "tool_use_id":id,"tool_input":{"command":"cargo build"},
           "error":"Exit code 101\nerror[E0425]: cannot find value `x` in this scope"})
}

#[test]
fn broken_error_log_files_do_not_stop_the_hook() {
    // Corrupt, empty, directory: whatever the 3-strike files under .plan/ hold, failures are
    // still answered and recorded from a fresh start.
    let plan = |env: &TestEnv| env.project().join(".plan/@no-git");
    for (label, content) in [
        ("garbage", Some(&b"{\"version\":1,\"attempts\":[{"[..])),
        ("empty", Some(&b""[..])),
        ("array", Some(&b"[1,2]"[..])),
        ("directory", None),
    ] {
        for name in ["errors.json", "strikes.json"] {
            let env = TestEnv::new();
            fs::create_dir_all(plan(&env)).unwrap();
            let path = plan(&env).join(name);
            match content {
                Some(b) => fs::write(&path, b).unwrap(),
                None => fs::create_dir_all(path.join("x")).unwrap(),
            }
            let label = format!("{name}: {label}");
            for id in ["t1", "t2", "t3"] {
                let run = env.hook(&failure("s", id));
                check(&run, "PostToolUseFailure", &label);
            }
            let run = env.hook(&pre_bash("s", "t4", "cargo build"));
            check(&run, "PreToolUse", &label);
            let text = fs::read_to_string(plan(&env).join(name)).unwrap_or_default();
            assert!(
                serde_json::from_str::<Value>(&text).is_ok(),
                "{label}: {name} was not rewritten as valid JSON: {}",
                clip(&text)
            );
        }
    }
    // .plan itself is a file: nothing can be recorded, the hook still answers.
    let env = TestEnv::new();
    fs::write(env.project().join(".plan"), "a file").unwrap();
    for id in ["t1", "t2", "t3"] {
        let run = env.hook(&failure("s", id));
        check(&run, "PostToolUseFailure", ".plan is a file");
    }
    let run = env.hook(&pre_bash("s", "t4", "cargo build"));
    check_decided(&run, ".plan is a file");
    assert_eq!(
        fs::read_to_string(env.project().join(".plan")).unwrap(),
        "a file"
    );
}
