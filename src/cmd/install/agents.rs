//! `oath install --agent codex|gemini` and `oath uninstall --agent …`: oath's hooks in the
//! hook configuration of Codex CLI (`$CODEX_HOME/hooks.json`, `~/.codex/hooks.json` by
//! default) or Gemini CLI (the `hooks` object of `~/.gemini/settings.json`, or the project's
//! `.gemini/settings.json`), with Claude Code's guarantees: a backup before each change (the
//! last three kept), nothing changed on a second run, every other byte of the file kept, and
//! uninstall removing exactly what install added (the file's bytes from before install when
//! nothing else changed since).
//!
//! Both clients read Claude Code's shape (`hooks.<Event>[].hooks[]` command handlers), so the
//! merge and the text-keeping rendering are Claude Code's (`settings`, `layout`); what differs
//! is the events, the matchers, the timeouts' unit (Codex: seconds, Gemini: milliseconds)
//! and the handler, a shell command string `<oath> hook --agent <client>`.
//!
//! Codex only runs a hook the user trusted: after writing `hooks.json`, install trusts oath's
//! hooks through Codex's own app server (`codex_trust`); without `codex` on PATH it says, loudly,
//! the one step left (`/hooks` in Codex), and `oath doctor` reports it until it is done.
//! Codex project hooks (`.codex/hooks.json`) load only in a project Codex trusts, which the
//! captured protocol facts do not cover: Codex is installed at user scope only.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::settings::{EventSpec, check_events_shape, merge_events, remove_events, shell_quote};
use super::{
    Manifest, Scope, Settings, diff, manifest_path, read_manifest, remove_backed_up,
    write_backed_up,
};
use crate::agent::Agent;
use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::project::{Env, Project};
use crate::state;
use crate::ui;

pub mod codex_trust;

/// The matcher of Codex's tool events: its shell tool and its edit tool (whose matcher also
/// matches Edit and Write).
pub const CODEX_TOOLS: &str = "Bash|apply_patch";

/// Codex CLI's events oath answers, timeouts in seconds (as Claude Code's).
pub const CODEX_EVENTS: &[EventSpec] = &[
    ("PreToolUse", Some(CODEX_TOOLS), 10),
    ("PostToolUse", Some(CODEX_TOOLS), 120),
    ("Stop", None, 30),
    ("SessionStart", None, 10),
    ("SessionEnd", None, 5),
    ("UserPromptSubmit", None, 10),
];

/// Gemini CLI's events oath answers, timeouts in milliseconds; the tool events match every
/// tool (their matcher is a regular expression).
pub const GEMINI_EVENTS: &[EventSpec] = &[
    ("BeforeTool", Some(".*"), 10_000),
    ("AfterTool", Some(".*"), 120_000),
    ("AfterAgent", None, 30_000),
    ("SessionStart", None, 10_000),
    ("SessionEnd", None, 5_000),
    ("BeforeAgent", None, 10_000),
];

/// A client's name as people know it.
pub fn client_name(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "Claude Code",
        Agent::Codex => "Codex CLI",
        Agent::Gemini => "Gemini CLI",
    }
}

/// The events oath registers for with a client (Claude Code's are `super::EVENTS`).
pub fn events(agent: Agent) -> &'static [EventSpec] {
    match agent {
        Agent::Claude => super::EVENTS,
        Agent::Codex => CODEX_EVENTS,
        Agent::Gemini => GEMINI_EVENTS,
    }
}

/// Returns the hook configuration file of a client at a scope (Claude Code's is
/// `super::target`).
pub fn hooks_file(env: &Env, agent: Agent, scope: Scope) -> Result<PathBuf> {
    let no_home = |what: &str| {
        CliError::new(format!("cannot find {what}: HOME is not set"))
            .hint("set HOME (or CODEX_HOME for Codex CLI)")
    };
    match (agent, scope) {
        (Agent::Codex, Scope::User) => env
            .codex_dir()
            .map(|d| d.join("hooks.json"))
            .ok_or_else(|| no_home("Codex CLI's config dir")),
        (Agent::Codex, _) => Err(CliError::new(
            "Codex CLI is installed at user scope only ($CODEX_HOME/hooks.json, ~/.codex/hooks.json by default)",
        )
        .hint("run `oath install --agent codex`: Codex loads a project's .codex/hooks.json only once it trusts the project")),
        (Agent::Gemini, Scope::User) => env
            .gemini_dir()
            .map(|d| d.join("settings.json"))
            .ok_or_else(|| no_home("Gemini CLI's config dir")),
        (Agent::Gemini, Scope::Project) => Ok(Project::resolve(env, None)
            .root
            .join(".gemini/settings.json")),
        (Agent::Gemini, Scope::Local) => Err(CliError::new(
            "Gemini CLI has no personal project settings file",
        )
        .hint("use `--project` (.gemini/settings.json) or the user scope (~/.gemini/settings.json)")),
        (Agent::Claude, _) => Err(CliError::new("Claude Code's settings are not a client hooks file")),
    }
}

/// The command string of oath's handler for a client.
pub fn command(exe: &str, agent: Agent) -> String {
    format!("{} hook --agent {}", shell_quote(exe), agent.as_str())
}

/// Returns the handler oath registers for one event of a client.
pub fn handler(exe: &str, agent: Agent, timeout: u64) -> Value {
    json!({"type": "command", "command": command(exe, agent), "timeout": timeout})
}

/// Returns the binary of a command handler running `<binary> hook --agent <agent>`, whatever
/// the binary is (callers decide which are oath).
pub fn handler_binary(h: &Value, agent: Agent) -> Option<String> {
    if h.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    let cmd = h.get("command").and_then(Value::as_str)?;
    match shlex::split(cmd).as_deref() {
        Some([bin, hook, flag, name])
            if hook == "hook" && flag == "--agent" && name == agent.as_str() =>
        {
            Some(bin.clone())
        }
        _ => None,
    }
}

/// Every `(event, binary)` of a settings value's handlers that run `<binary> hook --agent
/// <agent>`.
pub fn agent_handlers(value: &Value, agent: Agent) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = value.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        let handlers = groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten();
        for h in handlers {
            if let Some(bin) = handler_binary(h, agent) {
                out.push((event.clone(), bin));
            }
        }
    }
    out
}

/// Binaries of oath-looking handlers (named `oath`, absolute) that no longer exist.
fn stale(value: &Value, agent: Agent) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, b) in agent_handlers(value, agent) {
        let p = Path::new(&b);
        if p.file_name().is_some_and(|n| n == "oath")
            && p.is_absolute()
            && !p.exists()
            && !out.contains(&b)
        {
            out.push(b);
        }
    }
    out
}

fn is_ours(h: &Value, agent: Agent, exes: &[String]) -> bool {
    handler_binary(h, agent).is_some_and(|b| exes.contains(&b))
}

/// Installs oath's hooks for Codex CLI or Gemini CLI: the work of `oath install --agent`.
/// `codex` is how Codex's app server is started (`None`: not found), for trusting the hooks.
pub fn install(
    env: &Env,
    agent: Agent,
    scope: Scope,
    exe: &str,
    dry_run: bool,
    now: Timestamp,
    codex: Option<&Path>,
) -> Result<ExitCode> {
    let file = hooks_file(env, agent, scope)?;
    let name = client_name(agent);
    let events = events(agent);
    let settings = Settings::read(&file)?;
    check_events_shape(&file, &settings.value, events)?;
    let mpath = manifest_path(env, &file);
    let old_manifest = read_manifest(&mpath)?;
    let mut known: Vec<String> = old_manifest
        .as_ref()
        .map(|m| m.commands.clone())
        .unwrap_or_default();
    known.extend(stale(&settings.value, agent));
    known.push(exe.to_owned());
    let mut value = settings.value.clone();
    let merge = merge_events(
        &mut value,
        events,
        |t| handler(exe, agent, t),
        |h| is_ours(h, agent, &known),
    );
    ui::out(&format!(
        "oath install ({name}, {} scope{})",
        scope.as_str(),
        if dry_run { ", dry run" } else { "" }
    ));
    let mut others: Vec<String> = Vec::new();
    for (_, b) in agent_handlers(&value, agent) {
        if b != exe && !others.contains(&b) {
            others.push(b);
        }
    }
    for other in &others {
        ui::warn(&format!(
            "{} also registers another oath ({other}): every event would run oath twice; remove those handlers",
            file.display()
        ));
    }
    let mut manifest = old_manifest.clone().unwrap_or_else(|| Manifest {
        settings: file.clone(),
        ..Manifest::default()
    });
    if merge.changed() {
        if settings.text.is_none() {
            manifest.created_file = true;
        }
        manifest.created_hooks |= merge.created_hooks;
        for e in &merge.created_events {
            if !manifest.created_events.contains(e) {
                manifest.created_events.push(e.clone());
            }
        }
        let new_text = settings.render(&value);
        if dry_run {
            ui::out(&format!("  would change {}:", file.display()));
            ui::out_raw(&diff(
                &file,
                settings.text.as_deref().unwrap_or(""),
                &new_text,
            ));
        } else {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| CliError::new(format!("cannot create {}: {e}", dir.display())))?;
            }
            write_backed_up(&file, &settings, &new_text, &mut manifest, now)?;
            super::ignore_own_files(scope, &file, Vec::new());
            let mut what = Vec::new();
            if !merge.added.is_empty() {
                what.push(format!(
                    "added {}",
                    ui::plural(merge.added.len(), "hook", "hooks")
                ));
            }
            if !merge.updated.is_empty() {
                what.push(format!("updated {}", merge.updated.join(", ")));
            }
            ui::out(&format!("  {}: {}", file.display(), what.join(", ")));
        }
    } else {
        ui::out(&format!("  {}: already up to date", file.display()));
    }
    if !manifest.commands.iter().any(|c| c == exe) {
        manifest.commands.push(exe.to_owned());
    }
    if dry_run {
        if agent == Agent::Codex {
            ui::out(&format!(
                "  would then trust oath's hooks in Codex ({})",
                match codex {
                    Some(c) => format!("through `{} app-server`", c.display()),
                    None => format!("`codex` is not on PATH: {}", codex_trust::MANUAL_STEP),
                }
            ));
        }
        ui::out("Dry run: nothing was written.");
        return Ok(ExitCode::SUCCESS);
    }
    if agent == Agent::Codex {
        codex_trust::after_install(env, &file, exe, codex, &mut manifest, now);
    }
    if old_manifest.as_ref() != Some(&manifest) {
        state::write_json_atomic(&mpath, &manifest)?;
    }
    if agent == Agent::Gemini {
        ui::out(
            "  Gemini CLI runs hooks by default (unless `hooks.enabled` is false in its settings).",
        );
        if scope == Scope::Project {
            ui::out(
                "  note: Gemini CLI fingerprints project hooks in ~/.gemini/trusted_hooks.json: it asks each person who opens the project to trust them (headless, it warns and runs them); the registered path is this machine's.",
            );
        }
    }
    ui::out("Check with `oath doctor`.");
    Ok(ExitCode::SUCCESS)
}

/// Removes oath's hooks for Codex CLI or Gemini CLI: the work of `oath uninstall --agent`.
pub fn uninstall(
    env: &Env,
    agent: Agent,
    scope: Scope,
    exe: &str,
    dry_run: bool,
    now: Timestamp,
) -> Result<ExitCode> {
    let file = hooks_file(env, agent, scope)?;
    ui::out(&format!(
        "oath uninstall ({}, {} scope{})",
        client_name(agent),
        scope.as_str(),
        if dry_run { ", dry run" } else { "" }
    ));
    let mpath = manifest_path(env, &file);
    let manifest = read_manifest(&mpath)?;
    let mut exes = manifest
        .as_ref()
        .map(|m| m.commands.clone())
        .unwrap_or_default();
    exes.push(exe.to_owned());
    let settings = Settings::read(&file)?;
    exes.extend(stale(&settings.value, agent));
    if settings.text.is_none() {
        ui::out(&format!(
            "  {}: does not exist, nothing to remove",
            file.display()
        ));
    } else {
        check_events_shape(&file, &settings.value, events(agent))?;
        let mut value = settings.value.clone();
        let removal = remove_events(
            &mut value,
            events(agent),
            |h| is_ours(h, agent, &exes),
            manifest.as_ref(),
        );
        if value == settings.value {
            ui::out(&format!(
                "  {}: oath is not registered there",
                file.display()
            ));
        } else {
            remove_backed_up(
                &file,
                &settings,
                &value,
                removal.handlers,
                manifest.as_ref(),
                dry_run,
                now,
            )?;
            if !dry_run {
                super::ignore_own_files(scope, &file, Vec::new());
            }
        }
    }
    if agent == Agent::Codex
        && let Some(m) = &manifest
    {
        codex_trust::after_uninstall(env, m, dry_run, now)?;
    }
    if dry_run {
        ui::out("Dry run: nothing was written.");
        return Ok(ExitCode::SUCCESS);
    }
    if manifest.is_some() {
        let _ = std::fs::remove_file(&mpath);
    }
    ui::out("Done. oath's state (trust scores, audit trail) is kept.");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handlers_are_recognised_by_binary_and_client() {
        let h = handler("/My Apps/oath", Agent::Codex, 10);
        assert_eq!(h["command"], "'/My Apps/oath' hook --agent codex");
        assert_eq!(
            handler_binary(&h, Agent::Codex).as_deref(),
            Some("/My Apps/oath")
        );
        assert_eq!(handler_binary(&h, Agent::Gemini), None);
        let other = json!({"type": "command", "command": "/opt/oath hook"});
        assert_eq!(handler_binary(&other, Agent::Codex), None);
    }

    #[test]
    fn each_client_has_its_file_and_unit() {
        let env = Env {
            home: Some("/h".into()),
            codex_home: Some("/c".into()),
            claude_project_dir: Some("/p".into()),
            ..Env::default()
        };
        let f = |a, s| hooks_file(&env, a, s).ok();
        assert_eq!(
            f(Agent::Codex, Scope::User),
            Some(PathBuf::from("/c/hooks.json"))
        );
        assert_eq!(f(Agent::Codex, Scope::Project), None);
        assert_eq!(
            f(Agent::Gemini, Scope::User),
            Some(PathBuf::from("/h/.gemini/settings.json"))
        );
        assert_eq!(
            f(Agent::Gemini, Scope::Project),
            Some(PathBuf::from("/p/.gemini/settings.json"))
        );
        // Gemini's timeouts are milliseconds, Codex's seconds.
        assert!(GEMINI_EVENTS.iter().all(|(_, _, t)| *t >= 1000));
        assert!(CODEX_EVENTS.iter().all(|(_, _, t)| *t <= 600));
    }
}
