//! `oath doctor`: checks that oath is registered where Claude Code reads it, that the
//! registered binary runs, that its state dir is writable and its config valid, then replays a
//! few real hook payloads through the registered command and says how to mend what is wrong.

use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::install::{self, EVENTS, FIRST_WITH_FAILURE_HOOK, Form, Scope, Settings, shell_quote};
use crate::config::Config;
use crate::env;
use crate::error::Result;
use crate::project::{Env, Project};
use crate::ui;

mod clients;

/// Payloads replayed by the self-test (recorded from Claude Code 2.1.197).
const PAYLOADS: &[(&str, &str)] = &[
    (
        "SessionStart",
        include_str!("../../assets/doctor/session-start.json"),
    ),
    (
        "PreToolUse",
        include_str!("../../assets/doctor/pre-tool-use-read.json"),
    ),
    (
        "PostToolUse",
        include_str!("../../assets/doctor/post-tool-use-read.json"),
    ),
    (
        "PreToolUse",
        include_str!("../../assets/doctor/pre-tool-use-bash.json"),
    ),
    (
        "PostToolUseFailure",
        include_str!("../../assets/doctor/post-tool-use-failure-bash.json"),
    ),
];

/// Managed settings on Linux (reference §2.2), which can forbid all other hooks.
const MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// The project path in the recorded payloads, replaced by a temporary project.
const RECORDED_PROJECT: &str = "/home/dev/projects/demo";

/// Check that oath is installed, registered and working, and say how to fix what is not.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Looks at the user, project and local settings files, the registered binary, the state dir
and the configuration, then runs the registered command on five recorded hook payloads in a
temporary project (your trust and audit trail are not touched). Exits 1 when something is
wrong.

Examples:
  oath doctor                  check everything
  oath install && oath doctor  install, then check")]
pub struct DoctorArgs {}

/// A handler of oath found in a settings file.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    /// The event.
    pub event: String,
    /// The binary as registered.
    pub binary: String,
    /// Exec or shell form.
    pub form: Form,
}

/// Returns oath's handlers in a settings value: exec form with `args: ["hook"]` or shell form
/// `<path> hook`, where the binary is named `oath` or is one of `known`.
pub fn registrations(value: &Value, known: &[String]) -> Vec<Registration> {
    let named_oath = |p: &str| {
        known.iter().any(|k| k == p)
            || Path::new(p)
                .file_name()
                .is_some_and(|n| n == "oath" || n == "oath.exe")
    };
    install::settings::hook_handlers(value)
        .into_iter()
        .filter(|h| named_oath(&h.binary))
        // A shell-form command is oath's only when it is quoted exactly as install writes it.
        .filter(|h| h.form == Form::Exec || h.command == format!("{} hook", shell_quote(&h.binary)))
        .map(|h| Registration {
            event: h.event,
            binary: h.binary,
            form: h.form,
        })
        .collect()
}

struct Report {
    problems: usize,
}

impl Report {
    fn ok(&self, line: &str) {
        ui::out(&format!("  ok    {line}"));
    }
    fn info(&self, line: &str) {
        ui::out(&format!("  --    {line}"));
    }
    fn fail(&mut self, line: &str, fix: &str) {
        self.problems += 1;
        ui::out(&format!("  FAIL  {line}"));
        ui::out(&format!("        fix: {fix}"));
    }
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Runs `oath doctor`.
pub fn run(_args: &DoctorArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let mut r = Report { problems: 0 };
    let current = install::current_exe().ok();
    ui::out("oath doctor");
    ui::out("");
    ui::out("Registration");

    // 1. Where is oath registered?
    let mut found: Vec<(Scope, Registration)> = Vec::new();
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        let Ok(t) = install::target(&env, scope) else {
            r.info(&format!("{} settings: cannot be located", scope.as_str()));
            continue;
        };
        let path = t.settings.display();
        let settings = match Settings::read(&t.settings) {
            Ok(s) => s,
            Err(e) => {
                r.fail(
                    &format!("{} settings {path}: {}", scope.as_str(), e.message),
                    "fix the file: Claude Code ignores settings it cannot read, oath's hooks included",
                );
                continue;
            }
        };
        if settings.text.is_none() {
            r.info(&format!("{} settings {path}: no file", scope.as_str()));
            continue;
        }
        let known = current.iter().cloned().collect::<Vec<_>>();
        let regs = registrations(&settings.value, &known);
        if regs.is_empty() {
            r.info(&format!(
                "{} settings {path}: oath not registered",
                scope.as_str()
            ));
            continue;
        }
        let missing: Vec<&str> = EVENTS
            .iter()
            .map(|(e, _, _)| *e)
            .filter(|e| !regs.iter().any(|g| g.event == *e))
            .collect();
        if missing.is_empty() {
            r.ok(&format!(
                "{} settings {path}: all {} events registered",
                scope.as_str(),
                EVENTS.len()
            ));
        } else {
            r.fail(
                &format!(
                    "{} settings {path}: not registered for {}",
                    scope.as_str(),
                    missing.join(", ")
                ),
                &format!("run `oath install --{}`", scope.as_str()),
            );
        }
        if settings.value.get("disableAllHooks") == Some(&Value::Bool(true)) {
            r.fail(
                &format!(
                    "{} settings {path}: disableAllHooks is true",
                    scope.as_str()
                ),
                "remove `disableAllHooks` or set it to false, or Claude Code runs no hooks at all",
            );
        }
        found.extend(regs.into_iter().map(|g| (scope, g)));
    }
    let managed = Path::new(MANAGED_SETTINGS);
    if let Ok(Settings { value, .. }) = Settings::read(managed)
        && value.get("allowManagedHooksOnly") == Some(&Value::Bool(true))
    {
        r.fail(
            &format!("{MANAGED_SETTINGS} sets allowManagedHooksOnly: user and project hooks, oath's included, do not run"),
            "ask whoever manages this machine to register oath in the managed settings",
        );
    }
    let other_clients = clients::check(&env, &mut r, current.as_deref());
    if found.is_empty() && other_clients.is_empty() {
        r.fail(
            "oath is not registered in any settings file Claude Code reads",
            "run `oath install` (user settings) or `oath install --project`",
        );
    }

    // 2. Do the registered binaries exist and run?
    let mut binaries: Vec<(String, Form)> = Vec::new();
    for (_, g) in &found {
        if !binaries.iter().any(|(b, _)| b == &g.binary) {
            binaries.push((g.binary.clone(), g.form));
        }
    }
    for b in other_clients {
        if !binaries.iter().any(|(x, _)| *x == b) {
            binaries.push((b, Form::Shell));
        }
    }
    if binaries.len() > 1 {
        let list: Vec<&str> = binaries.iter().map(|(b, _)| b.as_str()).collect();
        r.fail(
            &format!(
                "oath is registered with {} different binaries ({}): each event runs oath more than once",
                binaries.len(),
                list.join(", ")
            ),
            "keep one: `oath uninstall --user|--project|--local` where it should not be, or remove the extra handlers by hand",
        );
    }
    for (b, _) in &binaries {
        let p = Path::new(b);
        if !p.is_absolute() {
            r.fail(
                &format!("registered command {b:?} is not an absolute path"),
                "run `oath install` again: it registers the absolute path of the binary",
            );
        } else if !p.exists() {
            r.fail(
                &format!("registered binary {b} does not exist"),
                "run `oath install` from the oath you want Claude Code to use (it replaces the missing path)",
            );
        } else if !is_executable(p) {
            r.fail(
                &format!("registered binary {b} is not executable"),
                &format!("chmod +x {}", shell_quote(b)),
            );
        } else {
            r.ok(&format!("registered binary {b} exists and is executable"));
        }
        if let Some(c) = &current
            && c != b
        {
            r.info(&format!("this oath is {c}, a different binary"));
        }
    }

    // 3. Claude Code.
    match install::claude_version() {
        Some(v) if v < FIRST_WITH_FAILURE_HOOK => r.fail(
            &format!("Claude Code {v} may predate the PostToolUseFailure hook: failures would not lower trust"),
            "update Claude Code (`claude update`)",
        ),
        Some(v) => {
            r.ok(&format!("Claude Code {v}"));
            if v < install::EXEC_FORM_SINCE
                && binaries.iter().any(|(_, f)| *f == Form::Exec)
            {
                r.fail(
                    &format!("Claude Code {v} predates exec-form hooks (2.1.139), which are registered"),
                    "update Claude Code, or run `oath install` again to register the shell form",
                );
            }
        }
        None => r.info("`claude` is not on PATH (fine if Claude Code runs oath another way)"),
    }

    ui::out("");
    ui::out("State and configuration");
    // 4. State dir writable.
    let root = env.state_root();
    match check_writable(&root) {
        Ok(()) => r.ok(&format!("state dir {} is writable", root.display())),
        Err(e) => r.fail(
            &format!("state dir {} is not writable: {e}", root.display()),
            &format!(
                "fix its permissions, or point {} at a writable dir",
                env::OATH_HOME
            ),
        ),
    }
    // 5. Config.
    let project = Project::resolve(&env, None);
    let l = Config::in_force(&env, &project);
    if l.sources.is_empty() {
        r.ok("configuration: built-in defaults (no config file)");
    } else {
        let files: Vec<String> = l
            .sources
            .iter()
            .map(|(_, p)| p.display().to_string())
            .collect();
        r.ok(&format!("configuration in force: {}", files.join(", ")));
    }
    for w in &l.warnings {
        r.fail(
            &format!("configuration: {w}"),
            "fix it; `oath config validate` shows all (an ignored file weakens nothing: the rest applies)",
        );
    }
    if let Some(n) = l.unapproved_notice() {
        r.fail(
            &n,
            "read the project's .oath.yaml, then `oath config trust` applies it whole",
        );
    }

    // Environment variables oath reads, as set for this run.
    let set: Vec<String> = env::ALL
        .iter()
        .filter_map(|(name, _)| env::var(name).map(|v| format!("{name}={v}")))
        .collect();
    if set.is_empty() {
        r.info("no oath-related environment variables set");
    } else {
        r.info(&format!("environment: {}", set.join(" ")));
    }

    // 6. Self-test through the registered command (or this binary when none is registered).
    ui::out("");
    let (bin, form) = binaries
        .iter()
        .find(|(b, _)| Path::new(b).exists())
        .cloned()
        .or_else(|| current.clone().map(|c| (c, Form::Exec)))
        .unwrap_or_else(|| ("oath".into(), Form::Exec));
    ui::out(&format!(
        "Self-test: {} recorded payloads through `{}` in a temporary project",
        PAYLOADS.len(),
        match form {
            Form::Exec => format!("{bin} hook"),
            Form::Shell => format!("sh -c '{} hook'", shell_quote(&bin)),
        }
    ));
    match self_test(&bin, form) {
        Ok(lines) => {
            for (ok, line, fix) in lines {
                if ok {
                    r.ok(&line);
                } else {
                    r.fail(&line, &fix);
                }
            }
        }
        Err(e) => r.fail(
            &format!("self-test could not run: {e}"),
            "check that the temp dir is writable",
        ),
    }

    ui::out("");
    if r.problems == 0 {
        ui::out("All good.");
        Ok(ExitCode::SUCCESS)
    } else {
        ui::out(&format!(
            "{} found; see the fixes above.",
            ui::plural(r.problems, "problem", "problems")
        ));
        Ok(ExitCode::from(crate::error::EXIT_FAILURE))
    }
}

fn check_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let f = tempfile::Builder::new()
        .prefix(".oath-doctor-")
        .tempfile_in(dir)?;
    drop(f);
    Ok(())
}

/// Replaces the recorded project path in every string of a payload.
fn rewrite(v: &mut Value, project: &str, transcript: &str) {
    match v {
        Value::String(s) if s.contains(RECORDED_PROJECT) => {
            *s = s.replace(RECORDED_PROJECT, project);
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, project, transcript)),
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match k.as_str() {
                    "session_id" => *x = Value::String("oath-doctor-self-test".into()),
                    "transcript_path" => *x = Value::String(transcript.into()),
                    _ => rewrite(x, project, transcript),
                }
            }
        }
        _ => {}
    }
}

/// Runs each payload through the command; returns (passed, what, fix) per payload.
fn self_test(bin: &str, form: Form) -> std::io::Result<Vec<(bool, String, String)>> {
    let dir = tempfile::tempdir()?;
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project)?;
    std::fs::write(project.join("notes.txt"), "oath doctor\n")?;
    let transcript = dir.path().join("transcript.jsonl");
    std::fs::write(&transcript, "")?;
    let state = dir.path().join("state");
    let mut out = Vec::new();
    for (event, text) in PAYLOADS {
        let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        rewrite(
            &mut v,
            &project.display().to_string(),
            &transcript.display().to_string(),
        );
        let label = match v.get("tool_name").and_then(Value::as_str) {
            Some(t) => format!("{event} {t}"),
            None => (*event).to_owned(),
        };
        let mut cmd = match form {
            Form::Exec => {
                let mut c = Command::new(bin);
                c.arg("hook");
                c
            }
            Form::Shell => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(format!("{} hook", shell_quote(bin)));
                c
            }
        };
        cmd.env(env::OATH_HOME, &state)
            .env(env::CLAUDE_PROJECT_DIR, &project)
            .current_dir(&project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let result = run_with_timeout(cmd, v.to_string().as_bytes(), Duration::from_secs(10));
        out.push(judge(event, &label, result));
    }
    Ok(out)
}

type RunResult = std::result::Result<std::process::Output, String>;

fn run_with_timeout(mut cmd: Command, stdin: &[u8], limit: Duration) -> RunResult {
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(stdin);
    }
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {} s", limit.as_secs()));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    child.wait_with_output().map_err(|e| e.to_string())
}

fn judge(event: &str, label: &str, result: RunResult) -> (bool, String, String) {
    let reinstall = "run `oath install` again with a working oath binary".to_owned();
    let out = match result {
        Ok(o) => o,
        Err(e) => return (false, format!("{label}: {e}"), reinstall),
    };
    let code = out.status.code();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first_err = stderr.lines().next().unwrap_or("").to_owned();
    if !matches!(code, Some(0 | 2)) {
        return (
            false,
            format!(
                "{label}: exit {} (hooks must exit 0 or 2){}",
                code.map_or("by signal".into(), |c| c.to_string()),
                if first_err.is_empty() {
                    String::new()
                } else {
                    format!(": {first_err}")
                }
            ),
            reinstall,
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.trim().is_empty() {
        return (
            true,
            format!("{label}: exit {}, no output", code.unwrap_or(0)),
            String::new(),
        );
    }
    let v: Value = match serde_json::from_str(stdout.trim()) {
        Ok(v) => v,
        Err(e) => {
            return (
                false,
                format!("{label}: stdout is not one JSON object ({e})"),
                "something prints on stdout besides oath: check shell start-up files (shell form) or wrappers".into(),
            );
        }
    };
    if let Some(spec) = v.get("hookSpecificOutput") {
        let named = spec.get("hookEventName").and_then(Value::as_str);
        if named != Some(event) {
            return (
                false,
                format!("{label}: answer names hookEventName {named:?}, not {event:?}"),
                reinstall,
            );
        }
        if let Some(d) = spec.get("permissionDecision").and_then(Value::as_str) {
            return (
                true,
                format!("{label}: exit {}, decision {d}", code.unwrap_or(0)),
                String::new(),
            );
        }
    }
    (
        true,
        format!("{label}: exit {}, valid JSON answer", code.unwrap_or(0)),
        String::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn registrations_find_both_forms_and_ignore_others() {
        let v = json!({"hooks": {
            "PreToolUse": [{"hooks": [
                {"type": "command", "command": "/opt/x/oath", "args": ["hook"]},
                {"type": "command", "command": "/opt/x/other", "args": ["hook"]},
                {"type": "command", "command": "echo oath hook"}
            ]}],
            "Stop": [{"hooks": [{"type": "command", "command": "'/My Apps/oath' hook"}]}]
        }});
        let regs = registrations(&v, &[]);
        assert_eq!(regs.len(), 2, "{regs:?}");
        assert_eq!(regs[0].binary, "/opt/x/oath");
        assert_eq!(regs[1].binary, "/My Apps/oath");
        assert_eq!(regs[1].form, Form::Shell);
    }

    #[test]
    fn payloads_are_rewritten_to_the_temp_project() {
        let mut v: Value = serde_json::from_str(PAYLOADS[1].1).unwrap();
        rewrite(&mut v, "/tmp/p", "/tmp/t.jsonl");
        let text = v.to_string();
        assert!(!text.contains(RECORDED_PROJECT));
        assert_eq!(v["tool_input"]["file_path"], "/tmp/p/notes.txt");
        assert_eq!(v["session_id"], "oath-doctor-self-test");
    }
}
