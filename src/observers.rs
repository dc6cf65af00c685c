//! Commands after tools (seed 002): user-configured, read-only observer commands run after
//! matching tools, with the tool's name, input and output in environment variables.
//!
//! Each matching command runs as one `sh -c` script (multi-line scripts work) in the project
//! root, in config order. Sync commands run one after another, each in its own process group
//! and bounded by its `timeout`: on expiry the whole group gets SIGTERM, then SIGKILL after a
//! short grace, so children that ignore SIGTERM and grandchildren die too. Async commands are
//! detached (own process group, stdin null, output to a log file) and the hook does not wait;
//! their `timeout` is enforced by coreutils `timeout` where it exists.
//!
//! Payloads never stop a command from starting: each variable is cut below the kernel's
//! per-string limit with a marker, and the whole output is in a file named by
//! `OATH_TOOL_OUTPUT_FILE`. Nothing a command does changes the hook's answer; results go to
//! the audit trail (kind `observer`) and problems to stderr.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::audit;
use crate::clock::Timestamp;
use crate::env::observer as var;
use crate::project::{Project, file_safe};
use crate::protocol::{EventName, HookInput};
use crate::trust::Outcome;

/// Default seconds before a command is killed.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// Largest value put in one environment variable. Linux refuses any single string over
/// 128 KiB (`MAX_ARG_STRLEN`) and the whole argv + environment over `ARG_MAX`; four payload
/// variables of this size stay far below both.
pub const MAX_ENV_VALUE_BYTES: usize = 60 * 1024;

/// Size the input and output variables are cut to when the kernel refused the first set.
pub const REDUCED_ENV_VALUE_BYTES: usize = 4 * 1024;

/// Bytes of a sync command's stdout and stderr kept in its audit record.
pub const OUTPUT_HEAD_BYTES: usize = 2048;

/// Time between SIGTERM and SIGKILL for a timed-out command's process group.
const KILL_GRACE: Duration = Duration::from_millis(1000);

/// Total time the synchronous commands of one tool call may take. `oath install` registers
/// PostToolUse and PostToolUseFailure with a 120 s timeout; staying below it means Claude Code
/// never kills oath in the middle of a command (which would leave that command running and
/// skip the rest). Commands past the budget are skipped with a warning.
pub const SYNC_BUDGET: Duration = Duration::from_secs(100);

/// Output files older than this are deleted by a later run.
const OUTPUT_FILE_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// Async logs older than this are deleted by a later run.
const LOG_FILE_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// Minimum time between two sweeps of old files.
const SWEEP_INTERVAL: Duration = Duration::from_secs(3600);

/// Most directory entries looked at by one sweep (keeps a sweep's cost bounded).
const SWEEP_MAX_ENTRIES: usize = 5000;

/// `postToolUse:` in the config; the seed's block pastes in unchanged.
///
/// A section that does not fit the schema (a list without `commands:`, an unknown key) is read
/// as no commands plus its `problem`, which is reported: the rest of the configuration (the
/// gate's rules, trust, strikes) keeps working.
#[derive(Debug, Clone, PartialEq, Default, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PostToolUseConfig {
    /// Commands, run in config order.
    pub commands: Vec<ObserverCommand>,
    /// Why the section could not be read, when it could not (no command then runs).
    #[serde(skip)]
    pub problem: Option<String>,
}

/// The schema of the section, as written in the file.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawPostToolUseConfig {
    commands: Vec<ObserverCommand>,
}

impl<'de> Deserialize<'de> for PostToolUseConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        if value.is_null() {
            return Ok(Self::default());
        }
        Ok(
            match serde_json::from_value::<RawPostToolUseConfig>(value) {
                Ok(r) => Self {
                    commands: r.commands,
                    problem: None,
                },
                Err(e) => Self {
                    commands: Vec::new(),
                    problem: Some(e.to_string()),
                },
            },
        )
    }
}

/// Which tool outcomes trigger a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum On {
    /// Successful calls (PostToolUse), the default.
    #[default]
    Success,
    /// Failed calls (PostToolUseFailure).
    Failure,
    /// Both.
    Both,
}

impl On {
    /// Returns whether a call with this outcome triggers the command.
    pub fn includes(self, outcome: Outcome) -> bool {
        matches!(
            (self, outcome),
            (Self::Both, _) | (Self::Success, Outcome::Success) | (Self::Failure, Outcome::Failure)
        )
    }
}

/// One observer command.
///
/// An entry that does not fit the schema (an unknown key, a bad `on`, a wrong type) is still
/// read, as a command carrying its `problem`: it is reported and skipped, and the rest of the
/// configuration keeps working instead of the whole file being refused.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserverCommand {
    /// Glob on the tool name (`AskUserQuestion`, `*Search*`, `mcp__github__*`, `*`); default
    /// `*`.
    #[serde(default = "any_tool")]
    pub tool: String,
    /// Shell script run with `sh -c` in the project root.
    #[serde(default)]
    pub run: Option<String>,
    /// Run detached; the hook returns at once.
    #[serde(default, rename = "async")]
    pub is_async: bool,
    /// Seconds before the command's process group is killed (default 60; for async commands
    /// where coreutils `timeout` exists).
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Which outcomes trigger it: success (default), failure or both.
    #[serde(default)]
    pub on: On,
    /// Why the entry could not be read, when it could not (it is then skipped).
    #[serde(skip)]
    pub problem: Option<String>,
}

/// The schema of one entry, as written in the file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawObserverCommand {
    #[serde(default = "any_tool")]
    tool: String,
    #[serde(default)]
    run: Option<String>,
    #[serde(default, rename = "async")]
    is_async: bool,
    #[serde(default = "default_timeout")]
    timeout: u64,
    #[serde(default)]
    on: On,
}

impl<'de> Deserialize<'de> for ObserverCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match serde_json::from_value::<RawObserverCommand>(value) {
            Ok(r) => Self {
                tool: r.tool,
                run: r.run,
                is_async: r.is_async,
                timeout: r.timeout,
                on: r.on,
                problem: None,
            },
            Err(e) => Self {
                problem: Some(e.to_string()),
                ..Self::default()
            },
        })
    }
}

fn any_tool() -> String {
    "*".into()
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

impl Default for ObserverCommand {
    fn default() -> Self {
        Self {
            tool: any_tool(),
            run: None,
            is_async: false,
            timeout: DEFAULT_TIMEOUT_SECS,
            on: On::Success,
            problem: None,
        }
    }
}

/// A compiled `tool` filter; plain names and `*` need no glob machinery.
enum ToolMatcher {
    Any,
    Exact(String),
    Glob(globset::GlobMatcher),
}

impl ToolMatcher {
    fn new(pattern: &str) -> Result<Self, String> {
        if pattern.is_empty() {
            return Err("has an empty `tool`".into());
        }
        if pattern.chars().all(|c| c == '*') {
            return Ok(Self::Any);
        }
        if !pattern.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            return Ok(Self::Exact(pattern.to_owned()));
        }
        globset::Glob::new(pattern)
            .map(|g| Self::Glob(g.compile_matcher()))
            .map_err(|e| format!("has an invalid `tool` glob {pattern:?}: {}", e.kind()))
    }

    fn is_match(&self, tool: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(name) => name == tool,
            Self::Glob(m) => m.is_match(tool),
        }
    }
}

impl ObserverCommand {
    /// Returns the script, or why the command cannot run.
    fn script(&self) -> Result<&str, String> {
        match self.run.as_deref() {
            Some(r) if !r.trim().is_empty() => Ok(r),
            _ => Err("has no `run`".into()),
        }
    }

    /// Returns the compiled filter, or the first problem making the command unusable.
    fn matcher(&self) -> Result<ToolMatcher, String> {
        if let Some(p) = &self.problem {
            return Err(format!("cannot be read ({p})"));
        }
        self.script()?;
        if self.timeout == 0 {
            return Err("has `timeout: 0`; it must be at least 1 second".into());
        }
        ToolMatcher::new(&self.tool)
    }
}

impl PostToolUseConfig {
    /// Returns problems of single commands (they are skipped at hook time).
    pub fn validate(&self) -> Vec<String> {
        let section = self.problem.as_ref().map(|p| {
            format!(
                "postToolUse cannot be read ({p}); no command after tools runs \
                 (expected `postToolUse: {{commands: [{{tool, run, ...}}]}}`)"
            )
        });
        section
            .into_iter()
            .chain(self.commands.iter().enumerate().filter_map(|(i, c)| {
                c.matcher()
                    .err()
                    .map(|p| format!("postToolUse.commands[{i}] {p}; it is skipped"))
            }))
            .collect()
    }
}

/// Runs the commands matching a finished tool call (`outcome` is `success` or `failure`).
/// Never changes the tool's result; problems are pushed to `warnings`. Broken commands are
/// skipped here: the configuration's entry warnings already name them.
pub fn run_after_tool(
    project: &Project,
    input: &HookInput,
    outcome: Outcome,
    now: Timestamp,
    cfg: &PostToolUseConfig,
    warnings: &mut Vec<String>,
) {
    run_within(project, input, outcome, now, cfg, warnings, SYNC_BUDGET);
}

/// Runs the matching commands, the synchronous ones within `budget` in total.
fn run_within(
    project: &Project,
    input: &HookInput,
    outcome: Outcome,
    now: Timestamp,
    cfg: &PostToolUseConfig,
    warnings: &mut Vec<String>,
    budget: Duration,
) {
    if cfg.commands.is_empty() {
        return;
    }
    let tool = input.tool_name.as_deref().unwrap_or("");
    let selected: Vec<(usize, &ObserverCommand)> = cfg
        .commands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.on.includes(outcome))
        .filter(|(_, c)| c.matcher().is_ok_and(|m| m.is_match(tool)))
        .collect();
    if selected.is_empty() {
        return;
    }
    let dir = project.observer_log_dir();
    let payload = Payload::prepare(&dir, input, outcome, now, warnings);
    let mut vars = payload.vars(MAX_ENV_VALUE_BYTES);
    let mut reduced = false;
    let started_at = std::time::Instant::now();
    for (index, command) in selected {
        let Ok(script) = command.script() else {
            continue;
        };
        let mut f = Map::new();
        f.insert("session_id".into(), json!(input.session_id));
        f.insert("tool_use_id".into(), json!(input.tool_use_id));
        f.insert("tool_name".into(), json!(tool));
        f.insert("hook".into(), json!(input.event.as_str()));
        f.insert("outcome".into(), json!(outcome.as_str()));
        f.insert("index".into(), json!(index));
        f.insert("run".into(), audit::loggable(&json!(script)));
        f.insert("async".into(), json!(command.is_async));
        let label = format!("postToolUse.commands[{index}]");
        if command.is_async {
            let log = log_path(&dir, now, index, input);
            let started = start_with_env(&payload, &mut vars, &mut reduced, |vars| {
                let header = format!(
                    "{label} for {tool} {} at {}",
                    input.tool_use_id.as_deref().unwrap_or("-"),
                    now.iso_millis()
                );
                spawn_async(script, &project.root, vars, &log, &header, command.timeout)
            });
            match started {
                Ok(pid) => {
                    f.insert("pid".into(), json!(pid));
                    f.insert("log".into(), json!(log.display().to_string()));
                }
                Err(e) => {
                    warnings.push(format!("{label} could not start: {e}"));
                    f.insert("error".into(), json!(e.to_string()));
                }
            }
        } else {
            let remaining = budget.saturating_sub(started_at.elapsed());
            if remaining.is_zero() {
                warnings.push(format!(
                    "{label} skipped: the synchronous commands of this call used the whole {} s budget",
                    budget.as_secs_f64()
                ));
                f.insert("skipped".into(), json!("budget"));
                if let Err(e) = audit::append(
                    &project.audit_file(input.session_or_unknown()),
                    "observer",
                    now,
                    f,
                ) {
                    warnings.push(format!("audit not written: {e}"));
                }
                continue;
            }
            let timeout = Duration::from_secs(command.timeout).min(remaining);
            let ran = start_with_env(&payload, &mut vars, &mut reduced, |vars| {
                run_sync(script, &project.root, vars, timeout)
            });
            match ran {
                Ok(r) => {
                    if r.timed_out {
                        warnings.push(format!(
                            "{label} timed out after {} s; its process group was killed",
                            timeout.as_secs()
                        ));
                    } else if let Some(code) = r.exit_code.filter(|c| *c != 0) {
                        warnings.push(format!("{label} exited with status {code}"));
                    } else if let Some(sig) = r.signal {
                        warnings.push(format!("{label} was killed by signal {sig}"));
                    }
                    r.record(&mut f);
                }
                Err(e) => {
                    warnings.push(format!("{label} could not start: {e}"));
                    f.insert("error".into(), json!(e.to_string()));
                }
            }
        }
        if reduced {
            f.insert("env_reduced".into(), json!(true));
        }
        if let Err(e) = audit::append(
            &project.audit_file(input.session_or_unknown()),
            "observer",
            now,
            f,
        ) {
            warnings.push(format!("audit not written: {e}"));
        }
    }
    sweep_old_files(&dir);
}

/// The environment given to every command of one tool call.
struct Payload {
    /// Variables that are always small.
    fixed: Vec<(&'static str, String)>,
    tool_input: String,
    output: String,
    /// What the output's truncation marker says about the file.
    file_note: String,
}

impl Payload {
    /// Prepares the variables and writes the whole output to a file under `dir/outputs`.
    fn prepare(
        dir: &Path,
        input: &HookInput,
        outcome: Outcome,
        now: Timestamp,
        warnings: &mut Vec<String>,
    ) -> Self {
        let tool = input.tool_name.clone().unwrap_or_default();
        let tool_input = input
            .field("tool_input")
            .map_or_else(|| "{}".to_owned(), Value::to_string);
        let output = output_text(input);
        let output_file = match write_output_file(dir, now, input, &output) {
            Ok(p) => Some(p),
            Err(e) => {
                warnings.push(format!(
                    "postToolUse: the tool output file could not be written: {e}"
                ));
                None
            }
        };
        let file_note = if output_file.is_some() {
            format!("; the whole output is in ${}", var::TOOL_OUTPUT_FILE)
        } else {
            String::new()
        };
        let small = |s: &str| env_value(s, "", MAX_ENV_VALUE_BYTES);
        let stamp = now.iso_millis();
        let mut fixed = vec![
            (var::TOOL_NAME, small(&tool)),
            (var::TOOL_TIMESTAMP, stamp.clone()),
            (
                var::TOOL_USE_ID,
                small(input.tool_use_id.as_deref().unwrap_or("")),
            ),
            (
                var::SESSION_ID,
                small(input.session_id.as_deref().unwrap_or("")),
            ),
            (var::TOOL_OUTCOME, outcome.as_str().to_owned()),
            (var::CONCLAUDE_TOOL_NAME, small(&tool)),
            (var::CONCLAUDE_TOOL_TIMESTAMP, stamp),
        ];
        if let Some(p) = output_file {
            fixed.push((var::TOOL_OUTPUT_FILE, p.display().to_string()));
        }
        Self {
            fixed,
            tool_input,
            output,
            file_note,
        }
    }

    /// Returns every variable, the input and output cut to `limit` bytes each.
    fn vars(&self, limit: usize) -> Vec<(&'static str, String)> {
        let input = env_value(&self.tool_input, "", limit);
        let output = env_value(&self.output, &self.file_note, limit);
        let mut vars = self.fixed.clone();
        vars.extend([
            (var::TOOL_INPUT, input.clone()),
            (var::TOOL_OUTPUT, output.clone()),
            (var::CONCLAUDE_TOOL_INPUT, input),
            (var::CONCLAUDE_TOOL_OUTPUT, output),
        ]);
        vars
    }
}

/// Starts a command with the payload's variables; when the kernel refuses the environment as
/// too big (a small stack limit lowers `ARG_MAX`), cuts the input and output further and
/// tries once more, keeping the smaller set for the next commands.
fn start_with_env<T>(
    payload: &Payload,
    vars: &mut Vec<(&'static str, String)>,
    reduced: &mut bool,
    mut start: impl FnMut(&[(&'static str, String)]) -> io::Result<T>,
) -> io::Result<T> {
    match start(vars) {
        Err(e) if !*reduced && e.raw_os_error() == Some(Errno::TOOBIG.raw_os_error()) => {
            *vars = payload.vars(REDUCED_ENV_VALUE_BYTES);
            *reduced = true;
            start(vars)
        }
        r => r,
    }
}

/// Returns the tool's output: the `error` text of a failure, the `tool_response` JSON of a
/// success (or of an older client's error report), empty when the payload has neither.
fn output_text(input: &HookInput) -> String {
    if input.event == EventName::PostToolUseFailure {
        return input.error_text().unwrap_or_default().to_owned();
    }
    match input.tool_response() {
        Some(v) => v.to_string(),
        None => input.error_text().unwrap_or_default().to_owned(),
    }
}

/// Makes a text safe for one environment variable: NUL bytes (which no variable can hold)
/// removed, and anything over `limit` bytes cut with a marker naming the full size.
fn env_value(text: &str, note: &str, limit: usize) -> String {
    let clean: std::borrow::Cow<'_, str> = if text.contains('\0') {
        text.replace('\0', "").into()
    } else {
        text.into()
    };
    if clean.len() <= limit {
        return clean.into_owned();
    }
    let marker = format!(
        "\n[... truncated by oath: {} bytes in all{note}]",
        clean.len()
    );
    let mut cut = limit.saturating_sub(marker.len());
    while !clean.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{marker}", &clean[..cut])
}

/// Returns a file-name stem unique enough to find a call's files: time and tool use id.
fn stem(now: Timestamp, input: &HookInput) -> String {
    let time: String = now
        .iso_millis()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let id = file_safe(input.tool_use_id.as_deref().unwrap_or("call"));
    let id: String = id.chars().take(64).collect();
    format!("{time}-{id}")
}

/// Writes the whole output to a new private file (mode 0600) that outlives the hook.
fn write_output_file(
    dir: &Path,
    now: Timestamp,
    input: &HookInput,
    output: &str,
) -> io::Result<PathBuf> {
    let dir = dir.join("outputs");
    fs::create_dir_all(&dir)?;
    let mut file = tempfile::Builder::new()
        .prefix(&format!("{}-", stem(now, input)))
        .suffix(".out")
        .tempfile_in(&dir)?;
    file.write_all(output.as_bytes())?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

/// Returns the log file of one async command.
fn log_path(dir: &Path, now: Timestamp, index: usize, input: &HookInput) -> PathBuf {
    dir.join("logs")
        .join(format!("{}-{index}.log", stem(now, input)))
}

/// Builds `/bin/sh -c <script>` in `cwd` with the payload variables, in a new process group.
fn shell(script: &str, cwd: &Path, vars: &[(&'static str, String)]) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(script)
        .arg("oath-observer")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .process_group(0);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd
}

/// The shell that runs an async command: under coreutils `timeout` when it is there (which
/// puts the command in a process group of its own, sends it SIGTERM at the limit and SIGKILL
/// a second later), killing that group once more after a timeout so children that outlived
/// the command die too; the exit status goes to the log. `$1` is the script, `$2` the limit.
const ASYNC_WRAPPER: &str = r#"if timeout -k 1 1 true 2>/dev/null; then
  timeout -k 1 "$2" sh -c "$1" oath-observer &
  p=$!
  wait "$p"
  s=$?
  if [ "$s" = 124 ] || [ "$s" = 137 ]; then
    kill -s KILL -- "-$p" 2>/dev/null
    printf '[oath] timed out after %s s; its process group was killed\n' "$2"
  fi
else
  sh -c "$1" oath-observer
  s=$?
fi
printf '[oath] exit status %s\n' "$s"
"#;

/// Starts a detached command writing to `log`; returns its pid. The hook does not wait: the
/// command is reparented when the hook exits, and holds none of the hook's pipes.
fn spawn_async(
    script: &str,
    cwd: &Path,
    vars: &[(&'static str, String)],
    log: &Path,
    header: &str,
    timeout_secs: u64,
) -> io::Result<u32> {
    if let Some(parent) = log.parent() {
        fs::create_dir_all(parent)?;
    }
    // Private like the output file: a command may print what the tool returned.
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)?;
    writeln!(file, "[oath] {header}")?;
    let mut cmd = shell(ASYNC_WRAPPER, cwd, vars);
    cmd.arg(script)
        .arg(timeout_secs.to_string())
        .stdout(Stdio::from(file.try_clone()?))
        .stderr(Stdio::from(file));
    let child = cmd.spawn()?;
    Ok(child.id())
}

/// How a sync command ended.
#[derive(Debug)]
struct SyncResult {
    exit_code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    duration_ms: u128,
    stdout: String,
    stdout_bytes: u64,
    stderr: String,
    stderr_bytes: u64,
}

impl SyncResult {
    fn record(&self, f: &mut Map<String, Value>) {
        f.insert("exit_code".into(), json!(self.exit_code));
        f.insert("signal".into(), json!(self.signal));
        f.insert("timed_out".into(), json!(self.timed_out));
        f.insert("duration_ms".into(), json!(self.duration_ms as u64));
        f.insert("stdout".into(), audit::loggable(&json!(self.stdout)));
        f.insert("stdout_bytes".into(), json!(self.stdout_bytes));
        f.insert("stderr".into(), audit::loggable(&json!(self.stderr)));
        f.insert("stderr_bytes".into(), json!(self.stderr_bytes));
    }
}

/// Runs a command to its end or its timeout. Output goes to anonymous files rather than
/// pipes, so a background grandchild holding them open cannot make the hook wait.
fn run_sync(
    script: &str,
    cwd: &Path,
    vars: &[(&'static str, String)],
    timeout: Duration,
) -> io::Result<SyncResult> {
    let mut out = tempfile::tempfile()?;
    let mut err = tempfile::tempfile()?;
    let mut cmd = shell(script, cwd, vars);
    cmd.stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(err.try_clone()?));
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    drop(cmd);
    // A timeout too large for the clock is no limit at all.
    let deadline = start.checked_add(timeout);
    let (status, timed_out) = wait_or_kill(&mut child, deadline)?;
    let duration_ms = start.elapsed().as_millis();
    let (stdout, stdout_bytes) = head(&mut out)?;
    let (stderr, stderr_bytes) = head(&mut err)?;
    Ok(SyncResult {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        duration_ms,
        stdout,
        stdout_bytes,
        stderr,
        stderr_bytes,
    })
}

/// Waits for the child until `deadline`; past it, kills its process group. Returns the exit
/// status and whether the deadline passed.
fn wait_or_kill(child: &mut Child, deadline: Option<Instant>) -> io::Result<(ExitStatus, bool)> {
    let Some(deadline) = deadline else {
        return child.wait().map(|s| (s, false));
    };
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, false));
        }
        let now = Instant::now();
        if now >= deadline {
            return kill_group(child).map(|s| (s, true));
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Sends SIGTERM to the child's process group, waits a short grace for the group to empty,
/// then sends SIGKILL to whatever is left, and reaps the child.
fn kill_group(child: &mut Child) -> io::Result<ExitStatus> {
    let Some(pgid) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) else {
        child.kill()?;
        return child.wait();
    };
    let _ = kill_process_group(pgid, Signal::TERM);
    let grace_end = Instant::now() + KILL_GRACE;
    let mut status = None;
    let mut emptied = false;
    while Instant::now() < grace_end {
        if status.is_none() {
            status = child.try_wait()?;
        }
        // The group id stays reserved while any member lives, so once the leader is reaped
        // an ESRCH here means every member is gone.
        if status.is_some() && test_kill_process_group(pgid).is_err() {
            emptied = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !emptied {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    match status {
        Some(s) => Ok(s),
        None => child.wait(),
    }
}

/// Bytes read past the head so that a secret the head's end cuts through is still recognised
/// (and masked) before the cut: half a token no longer looks like one.
const REDACT_LOOKAHEAD_BYTES: usize = 1024;

/// Returns the first [`OUTPUT_HEAD_BYTES`] of a file as redacted text, and the file's size.
fn head(file: &mut File) -> io::Result<(String, u64)> {
    let size = file.metadata()?.len();
    file.seek(SeekFrom::Start(0))?;
    let want = OUTPUT_HEAD_BYTES + REDACT_LOOKAHEAD_BYTES;
    let mut buf = Vec::with_capacity(want.min(size as usize));
    file.take(want as u64).read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let text = crate::redact::redact_str(&text);
    let mut cut = OUTPUT_HEAD_BYTES.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok((text[..cut].to_owned(), size))
}

/// Deletes old output files and logs, at most once per [`SWEEP_INTERVAL`] (a marker file's
/// age says when the last sweep ran) and looking at a bounded number of entries. File ages
/// are compared with the system clock, not `OATH_NOW`, because the kernel stamps them.
fn sweep_old_files(dir: &Path) {
    let marker = dir.join(".last-sweep");
    let now = SystemTime::now();
    let recent = fs::metadata(&marker)
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < SWEEP_INTERVAL));
    if recent || fs::write(&marker, b"").is_err() {
        return;
    }
    for (sub, max_age) in [("outputs", OUTPUT_FILE_MAX_AGE), ("logs", LOG_FILE_MAX_AGE)] {
        let Ok(entries) = fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten().take(SWEEP_MAX_ENTRIES) {
            let old = entry
                .metadata()
                .ok()
                .filter(fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .is_some_and(|t| now.duration_since(t).is_ok_and(|age| age > max_age));
            if old {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> PostToolUseConfig {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn the_seed_block_parses_unchanged() {
        let c = config(
            r#"
commands:
  # Log all Q&A interactions for documentation
  - tool: "AskUserQuestion"
    run: ".claude/scripts/log-qa.sh"

  # Optional: Log search results
  - tool: "*Search*"
    run: ".claude/scripts/log-search.sh"
    async: true
"#,
        );
        assert_eq!(c.commands.len(), 2);
        assert_eq!(c.commands[0].tool, "AskUserQuestion");
        assert!(!c.commands[0].is_async);
        assert_eq!(c.commands[0].timeout, 60);
        assert_eq!(c.commands[0].on, On::Success);
        assert!(c.commands[1].is_async);
        assert!(c.validate().is_empty());
    }

    #[test]
    fn defaults_are_any_tool_success_sixty_seconds() {
        let c = config("commands:\n  - run: echo hi\n    on: both\n");
        assert_eq!(c.commands[0].tool, "*");
        assert_eq!(c.commands[0].on, On::Both);
        assert_eq!(
            c.commands[0],
            ObserverCommand {
                run: Some("echo hi".into()),
                on: On::Both,
                ..Default::default()
            }
        );
    }

    #[test]
    fn an_entry_that_does_not_fit_is_skipped_and_the_rest_of_the_config_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".oath.yaml");
        fs::write(
            &path,
            "on_error: deny\npostToolUse:\n  commands:\n    - run: x\n      on: sometimes\n    - command: typo-for-run\n    - run: 'true'\n      timeout: 60s\n    - run: ok\n",
        )
        .unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).expect("the file loads");
        assert_eq!(loaded.config.on_error, crate::config::OnError::Deny);
        let c = &loaded.config.post_tool_use;
        assert_eq!(c.commands.len(), 4);
        assert_eq!(c.commands[3].script(), Ok("ok"));
        let w = &loaded.warnings;
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w[0].starts_with("postToolUse.commands[0] cannot be read (unknown variant `sometimes`"),
            "{w:?}"
        );
        assert!(
            w[1].contains("commands[1] cannot be read (unknown field `command`"),
            "{w:?}"
        );
        assert!(w[2].contains("commands[2] cannot be read ("), "{w:?}");
        assert!(w.iter().all(|w| w.ends_with("; it is skipped")), "{w:?}");
    }

    #[test]
    fn broken_entries_are_named() {
        let c = config(
            "commands:\n  - tool: Bash\n  - tool: '[abc'\n    run: x\n  - run: x\n    timeout: 0\n  - tool: ''\n    run: x\n  - run: '   '\n  - run: ok\n",
        );
        let w = c.validate();
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(
            w[0].starts_with("postToolUse.commands[0] has no `run`"),
            "{w:?}"
        );
        assert!(
            w[1].contains("commands[1] has an invalid `tool` glob \"[abc\""),
            "{w:?}"
        );
        assert!(w[2].contains("commands[2] has `timeout: 0`"), "{w:?}");
        assert!(w[3].contains("commands[3] has an empty `tool`"), "{w:?}");
        assert!(w[4].contains("commands[4] has no `run`"), "{w:?}");
    }

    #[test]
    fn tool_globs_match_names() {
        let m = |p: &str, t: &str| ToolMatcher::new(p).unwrap().is_match(t);
        assert!(m("*", "Bash"));
        assert!(m("*", ""));
        assert!(m("AskUserQuestion", "AskUserQuestion"));
        assert!(!m("AskUserQuestion", "AskUserQuestions"));
        assert!(!m("Bash", "bash"));
        assert!(m("*Search*", "WebSearch"));
        assert!(m("*Search*", "ToolSearch"));
        assert!(!m("*Search*", "WebFetch"));
        assert!(m("mcp__github__*", "mcp__github__create_issue"));
        assert!(!m("mcp__github__*", "mcp__gitlab__create_issue"));
        assert!(m("{Edit,Write}", "Write"));
        assert!(m("Bas?", "Bash"));
    }

    #[test]
    fn on_selects_outcomes() {
        assert!(On::Success.includes(Outcome::Success));
        assert!(!On::Success.includes(Outcome::Failure));
        assert!(On::Failure.includes(Outcome::Failure));
        assert!(!On::Failure.includes(Outcome::Success));
        assert!(On::Both.includes(Outcome::Success) && On::Both.includes(Outcome::Failure));
    }

    #[test]
    fn big_values_are_cut_below_the_limit_with_a_marker() {
        let small = env_value("hello", "; note", MAX_ENV_VALUE_BYTES);
        assert_eq!(small, "hello");
        let big = "é".repeat(100_000);
        let v = env_value(&big, "; see file", MAX_ENV_VALUE_BYTES);
        assert!(v.len() <= MAX_ENV_VALUE_BYTES, "{}", v.len());
        assert!(v.ends_with("[... truncated by oath: 200000 bytes in all; see file]"));
        assert!(v.starts_with("éé"));
        assert_eq!(env_value("a\0b", "", MAX_ENV_VALUE_BYTES), "ab");
        let v = env_value(&big, "", REDUCED_ENV_VALUE_BYTES);
        assert!(v.len() <= REDUCED_ENV_VALUE_BYTES, "{}", v.len());
    }

    #[test]
    fn output_is_error_text_for_failures_and_json_for_successes() {
        let fail = HookInput::parse(
            br#"{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Exit code 1\nboom","tool_response":{"x":1}}"#,
            None,
        )
        .unwrap();
        assert_eq!(output_text(&fail), "Exit code 1\nboom");
        let ok = HookInput::parse(
            br#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"hi","stderr":""}}"#,
            None,
        )
        .unwrap();
        assert_eq!(output_text(&ok), r#"{"stdout":"hi","stderr":""}"#);
    }

    #[test]
    fn a_timed_out_group_is_killed_even_when_it_ignores_sigterm() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "trap '' TERM; sleep 30 & echo $! > grandchild; sleep 30",
            dir.path(),
            &[],
            // Long enough for the script to record its grandchild even on a loaded machine.
            Duration::from_secs(2),
        )
        .unwrap();
        assert!(r.timed_out);
        assert_eq!(r.signal, Some(9));
        let pid = fs::read_to_string(dir.path().join("grandchild")).unwrap();
        let pid = pid.trim();
        // Gone, or a zombie waiting for a reaper: either way no longer running.
        let mut dead = false;
        for _ in 0..100 {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty()
                || stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z'))
            {
                dead = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(dead, "grandchild {pid} still running");
    }

    #[test]
    fn old_files_are_swept_at_most_once_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let outputs = dir.path().join("outputs");
        let logs = dir.path().join("logs");
        fs::create_dir_all(&outputs).unwrap();
        fs::create_dir_all(&logs).unwrap();
        let aged = |path: &Path, hours: u64| {
            let f = File::create(path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(hours * 3600))
                .unwrap();
        };
        aged(&outputs.join("old.out"), 25);
        aged(&outputs.join("fresh.out"), 1);
        aged(&logs.join("day-old.log"), 25);
        aged(&logs.join("old.log"), 8 * 24);
        sweep_old_files(dir.path());
        assert!(!outputs.join("old.out").exists());
        assert!(outputs.join("fresh.out").exists());
        assert!(logs.join("day-old.log").exists());
        assert!(!logs.join("old.log").exists());
        // A second run within the hour does not scan again.
        aged(&outputs.join("old2.out"), 25);
        sweep_old_files(dir.path());
        assert!(outputs.join("old2.out").exists());
    }

    #[test]
    fn a_secret_cut_by_the_end_of_the_kept_head_is_still_masked() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "printf '%2030s' '' >&2; printf 'ghp_0123456789abcdefghijABCDEFGHIJ012345 more\\n' >&2",
            dir.path(),
            &[],
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(r.stderr.len() <= OUTPUT_HEAD_BYTES);
        let logged = audit::loggable(&json!(r.stderr));
        let logged = logged.as_str().unwrap();
        assert!(
            !logged.contains("ghp_0123"),
            "part of a token kept: {logged:?}"
        );
    }

    #[test]
    fn a_section_that_does_not_fit_is_reported_and_the_rest_of_the_config_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".oath.yaml");
        // `commands:` forgotten: the entries sit directly under `postToolUse`.
        fs::write(
            &path,
            "on_error: deny\npostToolUse:\n  - tool: Bash\n    run: echo hi\n",
        )
        .unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).expect("the file loads");
        assert_eq!(loaded.config.on_error, crate::config::OnError::Deny);
        assert!(loaded.config.post_tool_use.commands.is_empty());
        let w = &loaded.warnings;
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("postToolUse cannot be read ("), "{w:?}");
        // An empty section is simply no commands.
        fs::write(&path, "postToolUse:\n").unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }

    #[test]
    fn sync_output_heads_and_sizes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "printf 'out'; head -c 5000 /dev/zero | tr '\\0' x >&2; exit 3",
            dir.path(),
            &[],
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(!r.timed_out);
        assert_eq!(r.exit_code, Some(3));
        assert_eq!(r.stdout, "out");
        assert_eq!(r.stdout_bytes, 3);
        assert_eq!(r.stderr.len(), OUTPUT_HEAD_BYTES);
        assert_eq!(r.stderr_bytes, 5000);
    }

    #[test]
    fn sync_commands_past_the_budget_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let env = crate::project::Env {
            oath_home: Some(dir.path().join("state")),
            ..Default::default()
        };
        let root = dir.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        let project = Project::at(&env, root.clone());
        let input = HookInput::parse(
            br#"{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","tool_response":{}}"#,
            None,
        )
        .unwrap();
        let cfg: PostToolUseConfig = serde_json::from_value(serde_json::json!({"commands": [
            {"tool": "*", "run": "sleep 1; touch first"},
            {"tool": "*", "run": "touch second"},
        ]}))
        .unwrap();
        let mut warnings = Vec::new();
        run_within(
            &project,
            &input,
            Outcome::Success,
            Timestamp::from_unix(0),
            &cfg,
            &mut warnings,
            Duration::from_millis(500),
        );
        assert!(
            !root.join("second").exists(),
            "the second command ran past the budget"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("postToolUse.commands[1] skipped")),
            "{warnings:?}"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("postToolUse.commands[0] timed out")),
            "{warnings:?}"
        );
    }
}
