//! Shared helpers for integration tests: a hermetic environment for running `oath`.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// Returns `tests/fixtures/`: real Claude Code payloads and transcripts (its README).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Returns the path of the `oath` binary under test: `$OATH_TEST_BIN` when set (CI runs these
/// tests once more against the musl build of the same source), else the one cargo built.
pub fn oath_bin() -> PathBuf {
    std::env::var_os("OATH_TEST_BIN")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oath")), PathBuf::from)
}

/// What one `oath hook` run produced.
#[derive(Debug)]
pub struct HookRun {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl HookRun {
    /// Returns the parsed answer object, if stdout held one.
    pub fn answer(&self) -> Option<Value> {
        let t = self.stdout.trim();
        (!t.is_empty()).then(|| serde_json::from_str(t).expect("answer is JSON"))
    }

    /// Returns the PreToolUse permission decision, if any.
    pub fn decision(&self) -> Option<String> {
        self.answer().and_then(|a| {
            a["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .map(str::to_owned)
        })
    }
}

/// Checks the protocol invariants of an answer to `event` (`None` when the event is unknown
/// or not given): exit 0 or 2 (and oath's stricter rule: exit 0, a deny included, ADR 0002);
/// stdout empty or exactly one JSON object whose `hookSpecificOutput.hookEventName`, when
/// present, equals the event.
pub fn assert_valid_answer(run: &HookRun, event: Option<&str>, context: &str) {
    let code = run.code;
    assert!(
        matches!(code, Some(0 | 2)),
        "{context}: exit {code:?} is outside the protocol, stderr: {}",
        clip(&run.stderr)
    );
    assert_eq!(
        code,
        Some(0),
        "{context}: oath exits 0 on every answer, a deny included; stderr: {}",
        clip(&run.stderr)
    );
    let out = run.stdout.trim_end_matches('\n');
    if out.trim().is_empty() {
        assert!(run.stdout.is_empty(), "{context}: whitespace-only stdout");
        return;
    }
    assert!(
        !out.contains('\n'),
        "{context}: more than one line: {}",
        clip(out)
    );
    let v: Value = serde_json::from_str(out)
        .unwrap_or_else(|e| panic!("{context}: stdout is not JSON ({e}): {}", clip(out)));
    assert!(v.is_object(), "{context}: stdout is not an object");
    if let Some(specific) = v.get("hookSpecificOutput") {
        let name = specific["hookEventName"].as_str();
        assert!(
            name.is_some(),
            "{context}: hookSpecificOutput without hookEventName"
        );
        if let Some(event) = event {
            assert_eq!(name, Some(event), "{context}: wrong hookEventName");
        }
        if specific.get("permissionDecision").is_some() {
            assert_eq!(
                name,
                Some("PreToolUse"),
                "{context}: decision outside PreToolUse"
            );
        }
    }
}

/// Shortens long text for assertion messages.
pub fn clip(s: &str) -> String {
    if s.len() <= 600 {
        return s.to_owned();
    }
    let mut cut = 600;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &s[..cut], s.len())
}

/// A temp HOME, state dir and project for one test.
pub struct TestEnv {
    /// Keeps the temp dir alive.
    pub dir: tempfile::TempDir,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// Creates the environment with a project folder `project/` inside.
    pub fn new() -> Self {
        Self::with_dir(tempfile::tempdir().expect("tempdir"))
    }

    /// Creates the environment in a temp folder under `base` instead of the system's temp
    /// folder (where oath takes the project's neighbours for scratch space).
    pub fn new_in(base: &Path) -> Self {
        std::fs::create_dir_all(base).unwrap();
        Self::with_dir(tempfile::tempdir_in(base).expect("tempdir"))
    }

    fn with_dir(dir: tempfile::TempDir) -> Self {
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        Self { dir }
    }

    /// Returns the temp HOME.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Returns oath's state root (`OATH_HOME`).
    pub fn oath_home(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// Returns the project root.
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// Returns the project's state folder (`OATH_HOME/projects/<key>`).
    pub fn state_dir(&self) -> PathBuf {
        let env = oath::project::Env {
            oath_home: Some(self.oath_home()),
            ..Default::default()
        };
        oath::project::Project::at(&env, self.project()).state_dir
    }

    /// Returns the project's single trust file of earlier versions (read until the first
    /// update migrates it into the trust folder).
    pub fn trust_file(&self) -> PathBuf {
        self.state_dir().join("trust-scores.json")
    }

    /// Returns the project's trust folder (one file per domain).
    pub fn trust_dir(&self) -> PathBuf {
        self.state_dir().join("trust")
    }

    /// Returns the file of one domain in the trust folder.
    pub fn domain_file(&self, domain: &str) -> PathBuf {
        self.trust_store().domain_path(domain)
    }

    /// Returns the project's trust store.
    pub fn trust_store(&self) -> oath::state::trust::TrustStore {
        oath::state::trust::TrustStore::new(self.trust_dir(), self.trust_file())
    }

    /// Writes a whole trust state into the trust folder, one version 2 domain file per
    /// domain, as the hook writes them (no outcome remembered).
    pub fn write_trust(&self, state: &oath::trust::TrustFile) {
        for (name, levels) in &state.domains {
            let file = oath::trust::DomainFile {
                levels: levels.clone(),
                ..oath::trust::DomainFile::new(name)
            };
            let path = self.domain_file(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
        }
    }

    /// Returns the whole trust state (every domain file, and the domains of a single file not
    /// migrated yet) as `oath status` reads it, in the single file's shape with levels
    /// (`domains.<name>.<level>`); panics when there is none or a file is unreadable.
    pub fn trust(&self) -> Value {
        let mut warnings = Vec::new();
        let view = self
            .trust_store()
            .load(&mut warnings)
            .expect("the trust state is readable")
            .expect("there is trust state");
        assert!(warnings.is_empty(), "{warnings:?}");
        serde_json::to_value(view).unwrap()
    }

    /// Returns the audit file of a session.
    pub fn audit_file(&self, session: &str) -> PathBuf {
        self.state_dir()
            .join("audit")
            .join(format!("{session}.jsonl"))
    }

    /// Writes the project's `.oath.yaml` and approves it as the user would
    /// (`oath config trust`), so that it applies whole.
    pub fn trusted_project_config(&self, yaml: &str) {
        std::fs::write(self.project().join(".oath.yaml"), yaml).unwrap();
        self.oath()
            .current_dir(self.project())
            .args(["config", "trust"])
            .assert()
            .success();
    }

    /// Returns an `oath` command with a clean, hermetic environment.
    pub fn oath(&self) -> assert_cmd::Command {
        let mut cmd = Command::new(oath_bin());
        self.apply_env(&mut cmd);
        assert_cmd::Command::from_std(cmd)
    }

    /// Returns a plain `std` command for `oath hook` with the same environment (for spawning
    /// many at once or wrapping in a shell).
    pub fn hook_command(&self) -> Command {
        let mut cmd = Command::new(oath_bin());
        cmd.arg("hook");
        self.apply_env(&mut cmd);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Gives a command the hermetic environment: only PATH, HOME, OATH_HOME and
    /// CLAUDE_PROJECT_DIR, run in the project.
    pub fn apply_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("OATH_HOME", self.oath_home())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .current_dir(self.project());
    }

    /// Runs `oath hook [hint]` with the payload on stdin.
    pub fn hook_raw(&self, payload: &[u8], hint: Option<&str>) -> HookRun {
        let mut cmd = self.hook_command();
        if let Some(h) = hint {
            cmd.arg(h);
        }
        run_with_stdin(cmd, payload)
    }

    /// Runs `oath hook` with a JSON payload.
    pub fn hook(&self, payload: &Value) -> HookRun {
        self.hook_raw(payload.to_string().as_bytes(), None)
    }

    /// Returns every regular file oath may have written for this test: all under
    /// `OATH_HOME` and the project's `.plan/`, with their bytes.
    pub fn written_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for root in [self.oath_home(), self.project().join(".plan")] {
            collect_files(&root, &mut out);
        }
        out
    }
}

fn collect_files(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            collect_files(&p, out);
        } else if ft.is_file() {
            let bytes = std::fs::read(&p).unwrap_or_default();
            out.push((p, bytes));
        }
    }
}

/// Runs a command with bytes on stdin (written from a thread, so a child that exits early or
/// never reads cannot block the test) and collects its output.
pub fn run_with_stdin(mut cmd: Command, payload: &[u8]) -> HookRun {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn oath");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = payload.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait for oath");
    let _ = writer.join();
    HookRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Spawns a command with bytes written to its stdin (which is then closed).
pub fn spawn_with_stdin(mut cmd: Command, payload: &[u8]) -> std::process::Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn oath");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(payload).expect("write the payload");
    drop(stdin);
    child
}

/// Spawns `oath hook` with a JSON payload.
pub fn spawn_hook(env: &TestEnv, payload: &Value) -> std::process::Child {
    spawn_with_stdin(env.hook_command(), payload.to_string().as_bytes())
}

/// Collects a finished process's output.
pub fn to_run(out: std::process::Output) -> HookRun {
    HookRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Waits for a spawned hook and collects its output.
pub fn finish(child: std::process::Child) -> HookRun {
    to_run(child.wait_with_output().expect("wait for oath"))
}

/// Helpers for the command-line tests: a fake `claude`, redacted output for snapshots.
impl TestEnv {
    /// Returns the folder prepended to PATH by [`TestEnv::oath_with_bin`].
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// Puts a fake `claude` on PATH that prints `claude --version` output (`None`: a `claude`
    /// that fails), so tests do not depend on a real Claude Code being installed.
    pub fn fake_claude(&self, version: Option<&str>) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(self.bin()).unwrap();
        let script = match version {
            Some(v) => format!("#!/bin/sh\necho '{v} (Claude Code)'\n"),
            None => "#!/bin/sh\nexit 1\n".to_owned(),
        };
        let p = self.bin().join("claude");
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Returns an `oath` command with [`TestEnv::bin`] first on PATH and the clock pinned.
    pub fn oath_with_bin(&self) -> assert_cmd::Command {
        let mut cmd = self.oath();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.bin()];
        paths.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(paths).unwrap())
            .env("OATH_NOW", "2026-03-01T12:00:00Z");
        cmd
    }

    /// Renders exit code, stdout and stderr as one string with temp paths and the binary's
    /// path redacted.
    pub fn render(&self, out: &std::process::Output) -> String {
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status.code().map_or("signal".into(), |c| c.to_string()),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.redact(&text)
    }

    /// Replaces the temp dir and the oath binary's path by placeholders.
    pub fn redact(&self, text: &str) -> String {
        let exe = std::fs::canonicalize(oath_bin()).unwrap();
        let mut text = text.replace(&exe.display().to_string(), "[OATH]");
        let tmp = self.dir.path();
        if let Ok(canon) = std::fs::canonicalize(tmp) {
            text = text.replace(&canon.display().to_string(), "[TMP]");
        }
        text.replace(&tmp.display().to_string(), "[TMP]")
    }

    /// Returns the canonical path of the oath binary under test.
    pub fn oath_exe(&self) -> String {
        std::fs::canonicalize(oath_bin())
            .unwrap()
            .display()
            .to_string()
    }
}

/// Writes `records` synthetic audit records into the audit folder `dir`, shaped as the hook
/// writes them (pre and outcome records of each call, a `session_start` and a `Stop` event per
/// session), for measuring `oath audit`. Sessions of 5,000 records follow one another over the
/// 30 days up to `end` (every tenth one overlapping the one before, as sessions running side
/// by side do), one file each; calls are about 2.5 s apart at 1M records. Returns the number of
/// files written.
pub fn write_synthetic_audit(dir: &Path, records: usize, end: oath::clock::Timestamp) -> usize {
    use serde_json::json;
    const PER_SESSION: usize = 5000;
    std::fs::create_dir_all(dir).unwrap();
    let sessions = records.div_ceil(PER_SESSION).max(1);
    let span_ms: i64 = 30 * 86_400_000;
    let slot = span_ms / sessions as i64;
    let commands = [
        "cargo test --lib",
        "git status --short",
        "rg -n 'fn main' src/",
        "ls -la target/debug",
        "cargo build --release 2>&1 | tail -20 && ./target/release/app --version",
    ];
    let at = |ms: i64| oath::clock::Timestamp::from_unix_millis(ms.into()).iso_millis();
    let end_ms = end.unix_millis() as i64;
    let mut left = records;
    for s in 0..sessions {
        let n = left.min(PER_SESSION);
        left -= n;
        let id = format!("{:08x}-synth-{s:05}", s * 2_654_435_761 % 0xffff_ffff);
        // Session `s` ends at its slot's end; every tenth starts half a slot early.
        let stop = end_ms - (sessions - 1 - s) as i64 * slot;
        let start = stop - slot * 9 / 10 - if s % 10 == 9 { slot / 2 } else { 0 };
        let step = (stop - start) / n.max(1) as i64;
        let file = std::fs::File::create(dir.join(format!("{id}.jsonl"))).unwrap();
        let mut w = std::io::BufWriter::new(file);
        let mut t = start;
        let mut line = |v: Value| writeln!(w, "{v}").unwrap();
        line(
            json!({"v": 1, "kind": "session_start", "timestamp": at(t), "session_id": id, "source": "startup"}),
        );
        let mut written = 1;
        let mut call = 0;
        while written + 2 < n {
            t += step * 2;
            call += 1;
            let tool_use_id = format!("toolu_{s:05}_{call:06}");
            let command = commands[call % commands.len()];
            let failed = call % 50 == 0;
            line(
                json!({"v": 1, "kind": "pre", "timestamp": at(t), "session_id": id,
                "tool_use_id": tool_use_id, "tool_name": "Bash",
                "tool_input": {"command": command, "description": "Run a step of the build"},
                "domain": "build", "risk_category": "medium", "risk_value": 0.5, "complexity": 0.2,
                "rule": null, "trust_score_before": 0.42, "autonomy_score": 0.61,
                "decision": "no_opinion", "reason": "medium risk at trust 0.42: Claude Code asks",
                "outcome": "pending", "trust_score_after": null, "recommended_model": "sonnet",
                "phase": null}),
            );
            line(
                json!({"v": 1, "kind": "outcome", "timestamp": at(t + step), "session_id": id,
                "tool_use_id": tool_use_id, "tool_name": "Bash", "domain": "build",
                "outcome": if failed { "failure" } else { "success" },
                "trust_score_before": 0.42, "trust_score_after": if failed { 0.38 } else { 0.45 },
                "trust_applied": true, "duration_ms": step / 2,
                "hook": if failed { "PostToolUseFailure" } else { "PostToolUse" }}),
            );
            written += 2;
        }
        while written < n {
            t += step;
            line(
                json!({"v": 1, "kind": "event", "timestamp": at(t), "session_id": id, "hook_event_name": "Stop"}),
            );
            written += 1;
        }
        w.flush().unwrap();
    }
    sessions
}

/// Runs git in `dir`, away from the user's and the system's configuration, with a fixed
/// author; fails the test when git fails, and returns what git printed.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
