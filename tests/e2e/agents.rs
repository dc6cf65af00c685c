//! The runner for Codex CLI and Gemini CLI: a temp HOME and git-initialised project, the
//! client's config pointing at its loopback model mock, the hooks configuration pointing at a
//! given command, and a real headless session (`codex exec`, `gemini -p`). A run returns what
//! the model was told (the recorded requests) and, with the stub hook, every hook invocation.
//!
//! Recipes from `shared/fixtures/codex-0.169.0/README.md` and `…/gemini-0.61.0/README.md`.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::agent_script::Script;
use crate::codex_server::{self, CodexMock};
use crate::gemini_server::{self, GeminiMock};
use crate::loopback::Recorded;

/// Longest a session may take before it is killed (a guard, not an assertion on speed).
const SESSION_TIMEOUT: Duration = Duration::from_secs(180);

/// A client oath serves through its own hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Codex CLI (`codex exec`).
    Codex,
    /// Gemini CLI (`gemini -p`).
    Gemini,
}

impl Agent {
    /// Returns the name `oath hook --agent` takes.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// Returns the environment variable naming the client to run.
    pub fn env_var(self) -> &'static str {
        match self {
            Agent::Codex => "OATH_E2E_CODEX",
            Agent::Gemini => "OATH_E2E_GEMINI",
        }
    }

    /// Returns the pinned version (`scripts/install-<agent>.sh`).
    pub fn version(self) -> &'static str {
        match self {
            Agent::Codex => "0.169.0",
            Agent::Gemini => "0.61.0",
        }
    }

    /// Returns the event fired before a tool runs.
    pub fn pre_event(self) -> &'static str {
        match self {
            Agent::Codex => "PreToolUse",
            Agent::Gemini => "BeforeTool",
        }
    }

    /// Returns the event fired after a tool ran.
    pub fn post_event(self) -> &'static str {
        match self {
            Agent::Codex => "PostToolUse",
            Agent::Gemini => "AfterTool",
        }
    }

    /// Returns every hook event the harness registers the hook for.
    pub fn hook_events(self) -> &'static [&'static str] {
        match self {
            Agent::Codex => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "Stop",
                "SessionEnd",
            ],
            Agent::Gemini => &[
                "SessionStart",
                "BeforeAgent",
                "BeforeTool",
                "AfterTool",
                "AfterAgent",
                "SessionEnd",
            ],
        }
    }

    /// Returns the client's name for the shell tool in hook payloads.
    pub fn shell_tool(self) -> &'static str {
        match self {
            Agent::Codex => "Bash",
            Agent::Gemini => "run_shell_command",
        }
    }

    /// Returns the exit-0 answer of a hook denying the tool with this reason.
    pub fn deny_answer(self, reason: &str) -> Value {
        match self {
            Agent::Codex => json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason
            }}),
            Agent::Gemini => json!({"decision": "deny", "reason": reason}),
        }
    }
}

/// Returns the client named by the agent's environment variable, or `None` (after a notice)
/// when it is unset outside CI; under `CI=true`, which installs every client (`.ci/run`), a
/// missing one fails the test.
pub fn client(agent: Agent) -> Option<PathBuf> {
    let var = agent.env_var();
    let Some(path) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
        // CI installs every client (.ci/run): there a missing one is a failure, not a skip.
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "CI=true but {var} is not set: .ci/run installs the client with scripts/install-{}.sh",
            agent.name()
        );
        eprintln!(
            "SKIPPED real-client test: {var} is not set (run {var}=\"$(scripts/install-{}.sh)\" cargo test --test e2e)",
            agent.name()
        );
        return None;
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "{var} names {}, which is not a file: run scripts/install-{}.sh",
        path.display(),
        agent.name()
    );
    Some(path)
}

/// A command a hook runs: a program and its arguments.
#[derive(Debug, Clone)]
pub struct HookCommand {
    /// The program (an absolute path).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl HookCommand {
    /// Returns a command running `program` without arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
        }
    }

    /// Returns the command running the built oath: `oath hook --agent <agent>`.
    pub fn oath(agent: Agent) -> Self {
        Self::new(env!("CARGO_BIN_EXE_oath")).args(["hook", "--agent", agent.name()])
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Returns the command as one shell command line (both clients run a string).
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().cloned())
            .map(|w| shell_quote(&w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Quotes a word for `sh` when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Returns `~/.codex/hooks.json` registering the command for every event of
/// [`Agent::hook_events`] (no matcher: every tool). Timeouts are in seconds.
pub fn codex_hooks_json(hook: &HookCommand) -> Value {
    let handler = json!({"type": "command", "command": hook.command_line(), "timeout": 30});
    let hooks: serde_json::Map<String, Value> = Agent::Codex
        .hook_events()
        .iter()
        .map(|e| ((*e).to_owned(), json!([{"hooks": [handler]}])))
        .collect();
    json!({ "hooks": hooks })
}

/// Returns the `hooks` object of Gemini's `settings.json` registering the command for every
/// event of [`Agent::hook_events`] (tool events match every tool). Timeouts are in ms.
pub fn gemini_hooks(hook: &HookCommand) -> Value {
    let handler = json!({"name": "oath-e2e", "type": "command", "command": hook.command_line(), "timeout": 30_000});
    Agent::Gemini
        .hook_events()
        .iter()
        .map(|e| {
            let group = if e.ends_with("Tool") {
                json!({"matcher": ".*", "hooks": [handler]})
            } else {
                json!({"hooks": [handler]})
            };
            ((*e).to_owned(), json!([group]))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Codex's `config.toml`: the mock provider (its `base_url` is set per run with `-c`), no
/// approvals, no update check, analytics or feedback.
const CODEX_CONFIG: &str = r#"model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:9/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"#;

/// Gemini's user `settings.json` without hooks.
fn gemini_settings() -> Value {
    json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false}
    })
}

/// A temp HOME and project with one client to run sessions in it.
pub struct AgentProject {
    dir: tempfile::TempDir,
    agent: Agent,
    client: PathBuf,
    /// Where the stub hook logs its payloads, once installed.
    hook_log: Option<PathBuf>,
    /// Whether Codex runs with `--dangerously-bypass-hook-trust`.
    bypass_hook_trust: bool,
}

impl AgentProject {
    /// Creates a project for the agent, without hooks, or `None` when the client is not
    /// named (see [`client`]).
    pub fn new(agent: Agent) -> Option<Self> {
        let client = client(agent)?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("oath-e2e-{}-", agent.name()))
            .tempdir()
            .expect("temp dir");
        for sub in ["home", "project", "state", "tmp", "hook-log"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create temp subdir");
        }
        let p = Self {
            dir,
            agent,
            client,
            hook_log: None,
            bypass_hook_trust: true,
        };
        let status = Command::new("git")
            .args(["-c", "init.defaultBranch=main", "init", "-q"])
            .current_dir(p.root())
            .env("HOME", p.home())
            .status()
            .expect("run git init");
        assert!(status.success(), "git init failed");
        match agent {
            Agent::Codex => p.write_home(".codex/config.toml", CODEX_CONFIG),
            Agent::Gemini => p.write_home(
                ".gemini/settings.json",
                &serde_json::to_string_pretty(&gemini_settings()).expect("json"),
            ),
        }
        Some(p)
    }

    /// Creates a project whose hooks run a stub (see [`AgentProject::install_stub_hook`]).
    pub fn with_stub_hook(agent: Agent, marker: &str, reason: &str) -> Option<Self> {
        let mut p = Self::new(agent)?;
        p.install_stub_hook(marker, reason);
        Some(p)
    }

    /// Returns the agent.
    pub fn agent(&self) -> Agent {
        self.agent
    }

    fn base(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical temp dir")
    }

    /// Returns the project root (canonical).
    pub fn root(&self) -> PathBuf {
        self.base().join("project")
    }

    /// Returns the temp HOME.
    pub fn home(&self) -> PathBuf {
        self.base().join("home")
    }

    /// Returns oath's state root (`OATH_HOME`).
    pub fn oath_home(&self) -> PathBuf {
        self.base().join("state")
    }

    /// Returns oath's audit records of one session (see [`Run::session_id`]); the clients
    /// pass `OATH_HOME` on to their hooks.
    pub fn audit(&self, session_id: &str) -> Vec<Value> {
        crate::harness::audit_records(&self.oath_home(), session_id)
    }

    /// Returns Codex's home (`CODEX_HOME`, `~/.codex`).
    pub fn codex_home(&self) -> PathBuf {
        self.home().join(".codex")
    }

    /// Writes a file relative to the project root, creating folders.
    pub fn write(&self, rel: &str, contents: &str) {
        write_file(&self.root().join(rel), contents);
    }

    /// Writes a file relative to HOME, creating folders.
    pub fn write_home(&self, rel: &str, contents: &str) {
        write_file(&self.home().join(rel), contents);
    }

    /// Reads a file relative to the project root.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root().join(rel)).ok()
    }

    /// Sets whether Codex runs with `--dangerously-bypass-hook-trust` (default: yes; without
    /// it a hook runs only once trusted).
    pub fn set_bypass_hook_trust(&mut self, bypass: bool) {
        self.bypass_hook_trust = bypass;
    }

    /// Registers `hook` for every event of [`Agent::hook_events`] in the client's user
    /// configuration: `~/.codex/hooks.json`, or the `hooks` of `~/.gemini/settings.json`.
    pub fn set_hooks(&self, hook: &HookCommand) {
        match self.agent {
            Agent::Codex => self.write_home(
                ".codex/hooks.json",
                &serde_json::to_string_pretty(&codex_hooks_json(hook)).expect("json"),
            ),
            Agent::Gemini => {
                let mut settings = gemini_settings();
                settings["hooks"] = gemini_hooks(hook);
                self.write_home(
                    ".gemini/settings.json",
                    &serde_json::to_string_pretty(&settings).expect("json"),
                );
            }
        }
    }

    /// Installs a stub hook in every event: a shell script that logs each payload it gets to
    /// its own file and answers with the agent's deny (exit 0, JSON) when the payload is the
    /// pre-tool event and holds `marker`, allowing everything else (exit 0, no output).
    pub fn install_stub_hook(&mut self, marker: &str, reason: &str) {
        let log = self.base().join("hook-log");
        let script = self.base().join("stub-hook.sh");
        let deny = self.agent.deny_answer(reason).to_string();
        let text = format!(
            "#!/bin/sh\n\
             # The e2e harness's stub hook: logs the payload, denies the marker's pre-tool call.\n\
             input=$(cat)\n\
             # Written aside and renamed, so a run never reads half a payload (Gemini does not\n\
             # await SessionEnd).\n\
             printf '%s\\n' \"$input\" > {log}/.part-$$\n\
             mv {log}/.part-$$ {log}/\"$(date +%s%N)-$$.json\"\n\
             case \"$input\" in\n\
             *{marker}*) case \"$input\" in *'\"{pre}\"'*) printf '%s\\n' {deny} ;; esac ;;\n\
             esac\n\
             exit 0\n",
            log = shell_quote(&log.to_string_lossy()),
            marker = shell_quote(marker),
            pre = self.agent.pre_event(),
            deny = shell_quote(&deny),
        );
        write_file(&script, &text);
        make_executable(&script);
        self.set_hooks(&HookCommand::new(&script));
        self.hook_log = Some(log);
    }

    fn hermetic_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("OATH_HOME", self.oath_home())
            .env("TMPDIR", self.base().join("tmp"))
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1");
    }

    /// Runs one headless session with `script` as the model and returns what happened.
    pub fn run(&self, prompt: &str, script: Script) -> Run {
        let mut cmd = Command::new(&self.client);
        self.hermetic_env(&mut cmd);
        cmd.current_dir(self.root());
        let (requests, out) = match self.agent {
            Agent::Codex => {
                let mock = CodexMock::start(script);
                cmd.env("CODEX_HOME", self.codex_home())
                    .env("MOCK_API_KEY", "e2e-not-a-real-key")
                    .arg("exec")
                    .arg("-c")
                    .arg(format!(
                        "model_providers.mock.base_url=\"{}\"",
                        mock.base_url()
                    ))
                    .args(["--skip-git-repo-check", "--json"])
                    .args(["--disable", "daemon_auto_start"])
                    .args(["--disable", "enable_request_compression"]);
                if self.bypass_hook_trust {
                    cmd.arg("--dangerously-bypass-hook-trust");
                }
                cmd.args(["-s", "workspace-write", "-C"])
                    .arg(self.root())
                    .arg(prompt);
                let out = run_to_end(cmd, self.agent);
                (mock.requests(), out)
            }
            Agent::Gemini => {
                let mock = GeminiMock::start(script);
                cmd.env("GEMINI_API_KEY", "e2e-not-a-real-key")
                    .env("GOOGLE_GEMINI_BASE_URL", mock.base_url())
                    .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
                    .env("GEMINI_CLI_NO_RELAUNCH", "true")
                    .args(["-m", gemini_server::MODEL, "--yolo", "-p", prompt]);
                let out = run_to_end(cmd, self.agent);
                (mock.requests(), out)
            }
        };
        Run {
            agent: self.agent,
            status: out.0,
            stdout: out.1,
            stderr: out.2,
            requests,
            hook_calls: self
                .hook_log
                .as_deref()
                .map(read_hook_log)
                .unwrap_or_default(),
        }
    }
}

fn write_file(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, contents).expect("write file");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Runs the client with no stdin until it exits (killed after [`SESSION_TIMEOUT`]).
fn run_to_end(mut cmd: Command, agent: Agent) -> (ExitStatus, String, String) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", agent.name()));
    let stdout = drain(child.stdout.take().expect("stdout pipe"));
    let stderr = drain(child.stderr.take().expect("stderr pipe"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client") {
            break status;
        }
        if started.elapsed() > SESSION_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not finish within {SESSION_TIMEOUT:?}; stderr:\n{}",
                agent.name(),
                stderr.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status,
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    )
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    })
}

/// Reads the stub hook's payload files in the order they were written.
fn read_hook_log(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "json"));
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("read hook log");
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("hook payload is not JSON ({e}): {text}"))
        })
        .collect()
}

/// What one session did.
#[derive(Debug)]
pub struct Run {
    /// The client.
    pub agent: Agent,
    /// The client's exit status.
    pub status: ExitStatus,
    /// The client's stdout (`codex exec --json` events, Gemini's answer).
    pub stdout: String,
    /// The client's stderr.
    pub stderr: String,
    /// Every request the mock received.
    pub requests: Vec<Recorded>,
    /// Every payload the stub hook received, in order (empty without the stub).
    pub hook_calls: Vec<Value>,
}

impl Run {
    /// Returns the model turns (main-loop requests), in order.
    pub fn turns(&self) -> Vec<&Recorded> {
        self.requests
            .iter()
            .filter(|r| match self.agent {
                Agent::Codex => codex_server::is_turn(r),
                Agent::Gemini => gemini_server::is_turn(r),
            })
            .collect()
    }

    /// Returns what the model was told about each tool call, in call order, as of the last
    /// model turn: Codex's `output` of each tool output item, Gemini's `error` or `output`
    /// of each `functionResponse`.
    pub fn tool_outputs(&self) -> Vec<String> {
        let Some(last) = self.turns().last().copied() else {
            return Vec::new();
        };
        match self.agent {
            Agent::Codex => codex_server::outputs(&last.body)
                .into_iter()
                .map(codex_server::output_text)
                .collect(),
            Agent::Gemini => gemini_server::function_responses(&last.body)
                .into_iter()
                .map(gemini_server::response_text)
                .collect(),
        }
    }

    /// Returns what the model was told about the `n`th tool call (0-based).
    pub fn tool_output(&self, n: usize) -> String {
        let outputs = self.tool_outputs();
        outputs.get(n).cloned().unwrap_or_else(|| {
            panic!(
                "the model was told about {} tool calls, not {}; {}",
                outputs.len(),
                n + 1,
                self.describe()
            )
        })
    }

    /// Returns the session id: from the hook payloads, else [`Run::codex_thread_id`].
    pub fn session_id(&self) -> Option<String> {
        self.hook_calls
            .iter()
            .find_map(|c| c["session_id"].as_str().map(str::to_owned))
            .or_else(|| self.codex_thread_id())
    }

    /// Returns the `thread_id` of the `thread.started` event `codex exec --json` prints: the
    /// `session_id` of Codex's hook payloads.
    pub fn codex_thread_id(&self) -> Option<String> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| e["type"] == "thread.started")
            .and_then(|e| e["thread_id"].as_str().map(str::to_owned))
    }

    /// Returns the events of the hook invocations, in order.
    pub fn hook_events(&self) -> Vec<&str> {
        self.hook_calls
            .iter()
            .filter_map(|c| c["hook_event_name"].as_str())
            .collect()
    }

    /// Returns the hook invocations of one event.
    pub fn hook_calls_of(&self, event: &str) -> Vec<&Value> {
        self.hook_calls
            .iter()
            .filter(|c| c["hook_event_name"] == event)
            .collect()
    }

    /// Returns the run for failure messages: status, hook events, outputs, stderr tail.
    pub fn describe(&self) -> String {
        let tail: String = {
            let lines: Vec<&str> = self.stderr.lines().collect();
            lines[lines.len().saturating_sub(30)..].join("\n")
        };
        format!(
            "{} exited {}; {} requests ({} turns); hook events {:?}\nstdout:\n{}\nstderr (tail):\n{tail}",
            self.agent.name(),
            self.status,
            self.requests.len(),
            self.turns().len(),
            self.hook_events(),
            self.stdout,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_commands_are_quoted_for_the_shell() {
        let hook = HookCommand::new("/opt/my tools/oath").args(["hook", "--agent", "it's"]);
        assert_eq!(
            hook.command_line(),
            r"'/opt/my tools/oath' hook --agent 'it'\''s'"
        );
        let codex = codex_hooks_json(&hook);
        assert_eq!(
            codex["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            hook.command_line()
        );
        assert_eq!(codex["hooks"].as_object().unwrap().len(), 6);
        let gemini = gemini_hooks(&HookCommand::oath(Agent::Gemini));
        assert_eq!(gemini["BeforeTool"][0]["matcher"], ".*");
        assert!(gemini["BeforeAgent"][0].get("matcher").is_none());
        assert!(
            gemini["AfterTool"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .ends_with(" hook --agent gemini")
        );
    }
}
