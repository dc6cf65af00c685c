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

mod config;
mod files;
mod process;

use std::io;
use std::path::Path;
use std::time::Duration;

use rustix::io::Errno;
use serde_json::{Value, json};

use crate::audit::{
    self,
    record::{self, Record},
};
use crate::clock::Timestamp;
use crate::env::observer as var;
use crate::project::Project;
use crate::protocol::{EventName, HookInput};
use crate::trust::Outcome;
use files::{log_path, sweep_old_files, write_output_file};
use process::{run_sync, spawn_async};

pub use config::{ObserverCommand, On, PostToolUseConfig};

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

/// Total time the synchronous commands of one tool call may take. `oath install` registers
/// PostToolUse and PostToolUseFailure with a 120 s timeout; staying below it means Claude Code
/// never kills oath in the middle of a command (which would leave that command running and
/// skip the rest). Commands past the budget are skipped with a warning.
pub const SYNC_BUDGET: Duration = Duration::from_secs(100);

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
        let mut f = record::Observer {
            session_id: input.session_id.clone(),
            tool_use_id: input.tool_use_id.clone(),
            tool_name: tool.to_owned(),
            hook: input.event.as_str().to_owned(),
            outcome: outcome.into(),
            index,
            run: audit::loggable(&json!(script)),
            is_async: command.is_async,
            ..Default::default()
        };
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
                    f.pid = Some(pid);
                    f.log = Some(log.display().to_string());
                }
                Err(e) => {
                    warnings.push(format!("{label} could not start: {e}"));
                    f.error = Some(e.to_string());
                }
            }
        } else {
            let remaining = budget.saturating_sub(started_at.elapsed());
            if remaining.is_zero() {
                warnings.push(format!(
                    "{label} skipped: the synchronous commands of this call used the whole {} s budget",
                    budget.as_secs_f64()
                ));
                f.skipped = Some("budget".into());
                if let Err(e) = audit::write(
                    &project.audit_file(input.session_or_unknown()),
                    now,
                    &Record::Observer(f),
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
                    f.ran = Some(r.record());
                }
                Err(e) => {
                    warnings.push(format!("{label} could not start: {e}"));
                    f.error = Some(e.to_string());
                }
            }
        }
        f.env_reduced = reduced.then_some(true);
        if let Err(e) = audit::write(
            &project.audit_file(input.session_or_unknown()),
            now,
            &Record::Observer(f),
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

#[cfg(test)]
mod tests {
    use super::*;

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
