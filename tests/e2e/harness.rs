//! The runner: a temp project whose `.claude/settings.json` registers the built `oath` in
//! every hook, a temp HOME and `OATH_HOME`, and a real `claude -p` session against the mock
//! server; a run returns the parsed result, the requests the model received and oath's audit.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::server::{MockServer, Recorded, Script, SentToolUse, messages_blocks};

/// The Claude Code version the tests are pinned to (`scripts/install-claude.sh`); they pass on
/// the previous pin, 2.1.197, too (`OATH_E2E_CLAUDE`).
pub const CLIENT_VERSION: &str = "2.1.332";

/// Environment variable naming the `claude` binary to use.
pub const CLIENT_ENV: &str = "OATH_E2E_CLAUDE";

/// Longest a session may take before it is killed (a guard, not an assertion on speed).
const SESSION_TIMEOUT: Duration = Duration::from_secs(180);

/// Every hook event the harness registers oath for.
pub const HOOK_EVENTS: [&str; 9] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "PermissionDenied",
];

/// Tool events take a matcher; the others fire always.
const TOOL_EVENTS: [&str; 4] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
];

/// Returns the path of the built oath binary.
pub fn oath_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oath"))
}

/// Returns the cache path `scripts/install-claude.sh` installs the client to.
fn cached_client() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".e2e-cache")
        .join(format!("claude-code-{CLIENT_VERSION}"))
        .join("node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

/// Returns the Claude Code binary, or `None` (after a notice) when it is not installed
/// locally. Under `CI=true` a missing client fails the test: CI must run these.
pub fn client() -> Option<PathBuf> {
    let path = std::env::var_os(CLIENT_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(cached_client);
    if path.is_file() {
        return Some(path);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "CI=true but the Claude Code client is missing at {}: run scripts/install-claude.sh \
         (or set {CLIENT_ENV})",
        path.display()
    );
    eprintln!(
        "SKIPPED real-client test: no Claude Code at {} (run scripts/install-claude.sh or set {CLIENT_ENV})",
        path.display()
    );
    None
}

/// A temp HOME, oath state root and project, with the client to run sessions in it.
pub struct Project {
    dir: tempfile::TempDir,
    claude: PathBuf,
}

/// Options of one session.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// `--allowedTools` value, if any.
    pub allowed_tools: Option<String>,
    /// Whether the client writes its debug log (`--debug-file`, read into [`Run::debug_log`]).
    pub debug_log: bool,
    /// More variables for the client (its telemetry's, for one).
    pub env: Vec<(String, String)>,
}

impl Opts {
    /// Returns options allowing these tools through Claude Code's own permission rules.
    pub fn allow(tools: &str) -> Self {
        Self {
            allowed_tools: Some(tools.to_owned()),
            ..Self::default()
        }
    }

    /// Returns these options with the client's debug log kept.
    pub fn with_debug_log(mut self) -> Self {
        self.debug_log = true;
        self
    }
}

impl Project {
    /// Creates a project with oath registered in `.claude/settings.json`, or `None` when the
    /// client is not installed (see [`client`]).
    pub fn new() -> Option<Self> {
        let p = Self::bare()?;
        p.write(
            ".claude/settings.json",
            &settings_json(&oath_bin()).to_string(),
        );
        Some(p)
    }

    /// Creates a git-initialised project without any hook settings.
    pub fn bare() -> Option<Self> {
        let claude = client()?;
        let dir = tempfile::Builder::new()
            .prefix("oath-e2e-")
            .tempdir()
            .expect("temp dir");
        for sub in ["home", "project", "state", "tmp", "kpt"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create temp subdir");
        }
        let p = Self { dir, claude };
        let status = Command::new("git")
            .args(["-c", "init.defaultBranch=main", "init", "-q"])
            .current_dir(p.root())
            .env("HOME", p.home())
            .status()
            .expect("run git init");
        assert!(status.success(), "git init failed");
        Some(p)
    }

    /// Returns the Claude Code binary the sessions run.
    pub fn claude(&self) -> &Path {
        &self.claude
    }

    /// Returns the version of the client (`claude --version`: `2.1.332 (Claude Code)`).
    pub fn client_version(&self) -> (u32, u32, u32) {
        let mut cmd = Command::new(&self.claude);
        self.hermetic_env(&mut cmd);
        let out = cmd.arg("--version").output().expect("run claude --version");
        let text = String::from_utf8_lossy(&out.stdout);
        parse_version(&text).unwrap_or_else(|| panic!("no version in {text:?}"))
    }

    /// Returns the project root (canonical, as the client reports `cwd`).
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

    /// Returns the KPT report folder (`OATH_KPT_DIR`).
    pub fn kpt_dir(&self) -> PathBuf {
        self.base().join("kpt")
    }

    fn base(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical temp dir")
    }

    /// Writes a file relative to the project root, creating folders.
    pub fn write(&self, rel: &str, contents: &str) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, contents).expect("write project file");
    }

    /// Reads a file relative to the project root.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root().join(rel)).ok()
    }

    /// Returns an `oath` command in this project's environment (state, HOME, cwd).
    pub fn oath(&self) -> Command {
        let mut cmd = Command::new(oath_bin());
        self.hermetic_env(&mut cmd);
        cmd.current_dir(self.root());
        cmd
    }

    fn hermetic_env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("OATH_HOME", self.oath_home())
            .env("OATH_KPT_DIR", self.kpt_dir())
            .env("TMPDIR", self.base().join("tmp"))
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1");
    }

    /// Runs `claude -p` with the script as the model and returns what happened.
    pub fn run(&self, prompt: &str, script: Script, opts: &Opts) -> Run {
        let server = MockServer::start(script);
        let mut cmd = Command::new(&self.claude);
        self.hermetic_env(&mut cmd);
        cmd.current_dir(self.root())
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-not-a-real-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .args(["-p", prompt, "--output-format", "json"]);
        for (k, v) in &opts.env {
            cmd.env(k, v);
        }
        if let Some(tools) = &opts.allowed_tools {
            cmd.args(["--allowedTools", tools]);
        }
        let debug_file = opts.debug_log.then(|| {
            let n = DEBUG_LOGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.base()
                .join("tmp")
                .join(format!("claude-debug-{n}.log"))
        });
        if let Some(file) = &debug_file {
            cmd.arg("--debug-file").arg(file);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn claude");
        let stdout = drain(child.stdout.take().expect("stdout pipe"));
        let stderr = drain(child.stderr.take().expect("stderr pipe"));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for claude") {
                break status;
            }
            if started.elapsed() > SESSION_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "claude did not finish within {SESSION_TIMEOUT:?}; stderr:\n{}",
                    stderr.join().unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        let result: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!("claude printed no JSON result ({e}); status {status}\nstdout:\n{stdout}\nstderr:\n{stderr}")
        });
        let session_id = result["session_id"]
            .as_str()
            .unwrap_or_else(|| panic!("result without session_id: {result}"))
            .to_owned();
        let audit = self.audit(&session_id);
        let debug_log = debug_file
            .map(|f| {
                std::fs::read_to_string(&f)
                    .unwrap_or_else(|e| panic!("debug log {}: {e}", f.display()))
            })
            .unwrap_or_default();
        Run {
            result,
            requests: server.requests(),
            sent: server.sent_tool_uses(),
            audit,
            stderr,
            debug_log,
            session_id,
        }
    }

    /// Returns oath's audit records of one session, in file order.
    pub fn audit(&self, session_id: &str) -> Vec<Value> {
        audit_records(&self.oath_home(), session_id)
    }
}

/// Returns the audit records oath wrote under `oath_home` for one session, in file order
/// (`projects/*/audit/<session>.jsonl`).
pub fn audit_records(oath_home: &Path, session_id: &str) -> Vec<Value> {
    let mut records = Vec::new();
    let Ok(projects) = std::fs::read_dir(oath_home.join("projects")) else {
        return records;
    };
    for p in projects.flatten() {
        let file = p.path().join("audit").join(format!("{session_id}.jsonl"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            records.push(
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("audit line is not JSON ({e}): {line}")),
            );
        }
    }
    records
}

/// Numbers the debug logs of one test process.
static DEBUG_LOGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Returns the first `x.y.z` of a text.
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find_map(|w| {
            let mut parts = w.split('.').map(|p| p.parse::<u32>().ok());
            match (parts.next()?, parts.next()?, parts.next()?) {
                (Some(a), Some(b), Some(c)) => Some((a, b, c)),
                _ => None,
            }
        })
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    })
}

/// Returns `.claude/settings.json` registering `oath hook` (exec form) for every event.
pub fn settings_json(oath: &Path) -> Value {
    let handler = json!({"type": "command", "command": oath, "args": ["hook"], "timeout": 30});
    let mut hooks = serde_json::Map::new();
    for event in HOOK_EVENTS {
        let group = if TOOL_EVENTS.contains(&event) {
            json!({"matcher": "*", "hooks": [handler]})
        } else {
            json!({"hooks": [handler]})
        };
        hooks.insert(event.to_owned(), json!([group]));
    }
    json!({"hooks": hooks})
}

/// What one session did.
#[derive(Debug)]
pub struct Run {
    /// The `--output-format json` result.
    pub result: Value,
    /// Every request the mock server received.
    pub requests: Vec<Recorded>,
    /// Every tool use the scripted model sent, in order.
    pub sent: Vec<SentToolUse>,
    /// oath's audit records of the session.
    pub audit: Vec<Value>,
    /// The client's stderr.
    pub stderr: String,
    /// The client's debug log (empty unless [`Opts::debug_log`]).
    pub debug_log: String,
    /// The session id.
    pub session_id: String,
}

impl Run {
    /// Returns the id of the `n`th tool use sent (0-based).
    pub fn id(&self, n: usize) -> &str {
        &self
            .sent
            .get(n)
            .unwrap_or_else(|| panic!("only {} tool uses were sent", self.sent.len()))
            .id
    }

    /// Returns the audit records of a kind.
    pub fn records(&self, kind: &str) -> Vec<&Value> {
        self.audit.iter().filter(|r| r["kind"] == kind).collect()
    }

    /// Returns the audit records of a kind for one tool use.
    pub fn records_for(&self, kind: &str, tool_use_id: &str) -> Vec<&Value> {
        self.audit
            .iter()
            .filter(|r| r["kind"] == kind && r["tool_use_id"] == tool_use_id)
            .collect()
    }

    /// Returns the outcome records the tool's own report wrote (PostToolUse,
    /// PostToolUseFailure): none for a call that never ran.
    pub fn tool_outcomes(&self, tool_use_id: &str) -> Vec<&Value> {
        self.records_for("outcome", tool_use_id)
            .into_iter()
            .filter(|r| r.get("refused_by").is_none())
            .collect()
    }

    /// Returns the single refusal record of a call that never ran (`refused_by` the client
    /// or oath, written at PermissionDenied or PostToolBatch).
    pub fn refusal(&self, tool_use_id: &str) -> &Value {
        let found: Vec<&Value> = self
            .records_for("outcome", tool_use_id)
            .into_iter()
            .filter(|r| r.get("refused_by").is_some())
            .collect();
        assert_eq!(
            found.len(),
            1,
            "expected one refusal record for {tool_use_id}; audit:\n{}",
            self.audit_text()
        );
        found[0]
    }

    /// Returns the single pre record of a tool use.
    pub fn pre(&self, tool_use_id: &str) -> &Value {
        let found = self.records_for("pre", tool_use_id);
        assert_eq!(
            found.len(),
            1,
            "expected one pre record for {tool_use_id}; audit:\n{}",
            self.audit_text()
        );
        found[0]
    }

    /// Returns the audit as text for failure messages.
    pub fn audit_text(&self) -> String {
        self.audit
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Returns the `permission_denials` of the result.
    pub fn denials(&self) -> Vec<Value> {
        self.result["permission_denials"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Returns whether the result lists a permission denial for this tool use.
    pub fn denied(&self, tool_use_id: &str) -> bool {
        self.denials()
            .iter()
            .any(|d| d["tool_use_id"] == tool_use_id)
    }

    /// Returns the main-loop model requests (those offering tools), in order.
    pub fn main_turns(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.is_main_turn()).collect()
    }

    /// Returns the last main-loop request (it holds the whole conversation).
    pub fn last_turn(&self) -> &Recorded {
        self.main_turns()
            .last()
            .copied()
            .expect("the client made no model request")
    }

    /// Returns the `tool_result` block the model received for a tool use.
    pub fn tool_result(&self, tool_use_id: &str) -> Value {
        messages_blocks(&self.last_turn().body)
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
            .cloned()
            .unwrap_or_else(|| panic!("the model never received a result for {tool_use_id}"))
    }

    /// Returns the text of a tool result (string content or text blocks joined).
    pub fn tool_result_text(&self, tool_use_id: &str) -> String {
        content_text(&self.tool_result(tool_use_id)["content"])
    }

    /// Returns the first main-loop request holding a result for this tool use: what the
    /// model received right after the call.
    pub fn turn_after(&self, tool_use_id: &str) -> &Recorded {
        self.main_turns()
            .into_iter()
            .find(|r| {
                messages_blocks(&r.body)
                    .any(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
            })
            .unwrap_or_else(|| panic!("the model never received a result for {tool_use_id}"))
    }

    /// Returns the texts the model received right after a tool use's `tool_result`, in the
    /// request right after the call: where hook `additionalContext` reaches the model. Two
    /// forms: text blocks following the `tool_result` in the same user message (a
    /// `<system-reminder>`, 2.1.197), and `role: "system"` messages following that user
    /// message (`<Event>:<Tool> hook additional context: …`, 2.1.332).
    pub fn context_after(&self, tool_use_id: &str) -> Vec<String> {
        context_after_in(&self.turn_after(tool_use_id).body, tool_use_id)
    }

    /// Returns every text the model received in any main-loop request (user side, and the
    /// `role: "system"` messages that carry hook context in newer clients).
    pub fn all_model_input_text(&self) -> String {
        let mut out = String::new();
        for r in self.main_turns() {
            let messages = r.body["messages"].as_array().into_iter().flatten();
            for m in messages.filter(|m| m["role"] != "assistant") {
                if let Some(text) = m["content"].as_str() {
                    out.push_str(text);
                    out.push('\n');
                }
                for b in m["content"].as_array().into_iter().flatten() {
                    match b["type"].as_str() {
                        Some("text") => out.push_str(b["text"].as_str().unwrap_or("")),
                        Some("tool_result") => out.push_str(&content_text(&b["content"])),
                        _ => {}
                    }
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// Returns the texts that follow a tool use's `tool_result` in a request body (see
/// [`Run::context_after`]).
pub fn context_after_in(body: &Value, tool_use_id: &str) -> Vec<String> {
    let Some(messages) = body["messages"].as_array() else {
        return Vec::new();
    };
    for (at, m) in messages.iter().enumerate() {
        let Some(blocks) = m["content"].as_array() else {
            continue;
        };
        let Some(pos) = blocks
            .iter()
            .position(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
        else {
            continue;
        };
        let mut texts: Vec<String> = blocks[pos + 1..]
            .iter()
            .take_while(|b| b["type"] != "tool_result")
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str().map(str::to_owned))
            .collect();
        texts.extend(
            messages[at + 1..]
                .iter()
                .take_while(|m| m["role"] == "system")
                .map(|m| content_text(&m["content"]))
                .filter(|t| !t.is_empty()),
        );
        return texts;
    }
    Vec::new()
}

/// Returns the text of a `content` value: a string, or the text blocks of an array.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hook context after a tool result, in the two forms clients send it; nothing from
    /// other tool results or from the next user turn.
    #[test]
    fn context_after_reads_both_forms() {
        let inline = json!({"messages": [
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "Exit code 3"},
                {"type": "text", "text": "<system-reminder>strike a</system-reminder>"},
                {"type": "tool_result", "tool_use_id": "b", "content": "ok"},
                {"type": "text", "text": "after b"}
            ]}
        ]});
        assert_eq!(
            context_after_in(&inline, "a"),
            ["<system-reminder>strike a</system-reminder>"]
        );
        let system = json!({"messages": [
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "Exit code 3"}
            ]},
            {"role": "system", "content": "PostToolUseFailure:Bash hook additional context: strike a"},
            {"role": "system", "content": [{"type": "text", "text": "second"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "not context"}]},
            {"role": "system", "content": "too late"}
        ]});
        assert_eq!(
            context_after_in(&system, "a"),
            [
                "PostToolUseFailure:Bash hook additional context: strike a",
                "second"
            ]
        );
        assert!(context_after_in(&system, "missing").is_empty());
    }
}
