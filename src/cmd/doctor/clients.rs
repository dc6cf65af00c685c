//! `oath doctor` for Codex CLI and Gemini CLI: for each client found on the machine (its
//! config dir exists or it is on PATH), whether oath is registered for every event it
//! answers and whether the client will actually run those hooks (Codex: trusted, with the hash
//! Codex computes now; Gemini: hooks not switched off), with the one step needed when not.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Report;
use crate::agent::Agent;
use crate::cmd::install::agents::codex_trust::{self, MANUAL_STEP};
use crate::cmd::install::agents::{self, client_name, events, hooks_file};
use crate::cmd::install::{Scope, Settings};
use crate::project::Env;

/// Gemini CLI's system settings on Linux.
const GEMINI_SYSTEM_SETTINGS: &str = "/etc/gemini-cli/settings.json";

/// Returns `name` on PATH, if any.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether a binary registered for a client is oath (named so, or this binary).
fn is_oath(binary: &str, current: Option<&str>) -> bool {
    current == Some(binary)
        || Path::new(binary)
            .file_name()
            .is_some_and(|n| n == "oath" || n == "oath.exe")
}

/// Checks Codex CLI and Gemini CLI; returns the oath binaries registered with them.
pub(super) fn check(env: &Env, r: &mut Report, current: Option<&str>) -> Vec<String> {
    let mut binaries = Vec::new();
    let codex_dir = env.codex_dir().filter(|d| d.is_dir());
    let codex_bin = on_path("codex");
    if codex_dir.is_some() || codex_bin.is_some() {
        ui_header(r, Agent::Codex, codex_dir.as_deref(), codex_bin.as_deref());
        binaries.extend(codex(env, r, current, codex_bin.as_deref()));
    }
    let gemini_dir = env.gemini_dir().filter(|d| d.is_dir());
    let gemini_bin = on_path("gemini");
    if gemini_dir.is_some() || gemini_bin.is_some() {
        ui_header(
            r,
            Agent::Gemini,
            gemini_dir.as_deref(),
            gemini_bin.as_deref(),
        );
        binaries.extend(gemini(env, r, current));
    }
    binaries
}

fn ui_header(r: &Report, agent: Agent, dir: Option<&Path>, bin: Option<&Path>) {
    let mut found = Vec::new();
    if let Some(d) = dir {
        found.push(d.display().to_string());
    }
    if let Some(b) = bin {
        found.push(b.display().to_string());
    }
    r.info(&format!(
        "{} found ({})",
        client_name(agent),
        found.join(", ")
    ));
}

/// oath's registrations in a client's file: `None` when the file is missing or unreadable
/// (reported), else the `(event, binary)` pairs of oath.
fn registered(
    r: &mut Report,
    agent: Agent,
    file: &Path,
    current: Option<&str>,
) -> Option<(Settings, Vec<(String, String)>)> {
    let name = client_name(agent);
    let settings = match Settings::read(file) {
        Ok(s) => s,
        Err(e) => {
            r.fail(
                &format!("{name} {}: {}", file.display(), e.message),
                &format!("fix the file: {name} ignores hooks it cannot read, oath's included"),
            );
            return None;
        }
    };
    settings.text.as_ref()?;
    let regs: Vec<(String, String)> = agents::agent_handlers(&settings.value, agent)
        .into_iter()
        .filter(|(_, b)| is_oath(b, current))
        .collect();
    Some((settings, regs))
}

/// Reports missing events; returns whether every event is registered.
fn all_events(
    r: &mut Report,
    agent: Agent,
    file: &Path,
    regs: &[(String, String)],
    fix: &str,
) -> bool {
    let missing: Vec<&str> = events(agent)
        .iter()
        .map(|(e, _, _)| *e)
        .filter(|e| !regs.iter().any(|(g, _)| g == e))
        .collect();
    if missing.is_empty() {
        return true;
    }
    r.fail(
        &format!(
            "{} {}: oath not registered for {}",
            client_name(agent),
            file.display(),
            missing.join(", ")
        ),
        fix,
    );
    false
}

fn codex(env: &Env, r: &mut Report, current: Option<&str>, codex: Option<&Path>) -> Vec<String> {
    let Ok(file) = hooks_file(env, Agent::Codex, Scope::User) else {
        return Vec::new();
    };
    let install = "run `oath install --agent codex`";
    let Some((settings, regs)) = registered(r, Agent::Codex, &file, current) else {
        if !file.exists() {
            r.info(&format!(
                "Codex CLI {}: no file, oath not registered (`oath install --agent codex` guards Codex too)",
                file.display()
            ));
        }
        return Vec::new();
    };
    if regs.is_empty() {
        r.info(&format!(
            "Codex CLI {}: oath not registered (`oath install --agent codex` guards Codex too)",
            file.display()
        ));
        return Vec::new();
    }
    let complete = all_events(r, Agent::Codex, &file, &regs, install);
    match codex {
        Some(bin) => match codex_trust::list_ours(bin, &file) {
            Ok(listed) if listed.is_empty() => r.fail(
                &format!(
                    "Codex CLI does not list oath's hooks from {}",
                    file.display()
                ),
                install,
            ),
            Ok(listed) => {
                let off: Vec<&str> = listed
                    .iter()
                    .filter(|h| !h.enabled)
                    .map(|h| h.key.as_str())
                    .collect();
                let untrusted: Vec<String> = listed
                    .iter()
                    .filter(|h| h.trust_status != "trusted" && h.trust_status != "managed")
                    .map(|h| format!("{} ({})", h.key, h.trust_status))
                    .collect();
                if !untrusted.is_empty() {
                    r.fail(
                        &format!(
                            "Codex CLI: oath is registered but not trusted, so Codex skips it: {}",
                            untrusted.join(", ")
                        ),
                        MANUAL_STEP,
                    );
                } else if !off.is_empty() {
                    r.fail(
                        &format!("Codex CLI: oath's hooks are disabled: {}", off.join(", ")),
                        "open Codex, type /hooks, and enable oath's hooks",
                    );
                } else if complete {
                    r.ok(&format!(
                        "Codex CLI {}: oath registered and trusted ({} hooks, active)",
                        file.display(),
                        listed.len()
                    ));
                }
            }
            Err(e) => r.fail(
                &format!(
                    "Codex CLI: cannot ask `codex app-server` whether oath's hooks are trusted: {e}"
                ),
                MANUAL_STEP,
            ),
        },
        None => codex_offline(env, r, &file, &settings.value, current, complete),
    }
    regs.into_iter().map(|(_, b)| b).collect()
}

/// Without `codex` on PATH: the trust entries of oath's hooks in `config.toml`, at the keys
/// Codex gives them (`<file>:<event>:<group>:<handler>`); whether their hash is still the
/// current one only Codex can tell.
fn codex_offline(
    env: &Env,
    r: &mut Report,
    file: &Path,
    value: &Value,
    current: Option<&str>,
    complete: bool,
) {
    let text = codex_trust::config_path(env)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let trusted = codex_trust::trusted_hashes(&text);
    let keys = our_keys(file, value, current);
    let missing: Vec<&String> = keys
        .iter()
        .filter(|k| !trusted.iter().any(|(t, _)| t == *k))
        .collect();
    if missing.is_empty() {
        if complete {
            r.ok(&format!(
                "Codex CLI {}: oath registered, a trusted hash recorded for each hook (`codex` is not on PATH to check them against the current ones)",
                file.display()
            ));
        }
    } else {
        r.fail(
            &format!(
                "Codex CLI: oath is registered but {} of its {} hooks have no trusted hash, so Codex skips them",
                missing.len(),
                keys.len()
            ),
            MANUAL_STEP,
        );
    }
}

/// The `hooks.state` keys of oath's handlers in a Codex hooks file.
pub fn our_keys(file: &Path, value: &Value, current: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(hooks) = value.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        let label = snake(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if agents::handler_binary(handler, Agent::Codex)
                    .is_some_and(|b| is_oath(&b, current))
                {
                    out.push(format!("{}:{label}:{g}:{h}", file.display()));
                }
            }
        }
    }
    out
}

/// `PreToolUse` → `pre_tool_use`.
fn snake(event: &str) -> String {
    let mut s = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

fn gemini(env: &Env, r: &mut Report, current: Option<&str>) -> Vec<String> {
    let mut binaries = Vec::new();
    let mut any = false;
    let before = r.problems;
    let mut values = Vec::new();
    for scope in [Scope::User, Scope::Project] {
        let Ok(file) = hooks_file(env, Agent::Gemini, scope) else {
            continue;
        };
        let Some((settings, regs)) = registered(r, Agent::Gemini, &file, current) else {
            continue;
        };
        values.push((file.clone(), settings.value.clone()));
        if regs.is_empty() {
            continue;
        }
        any = true;
        let fix = match scope {
            Scope::Project => "run `oath install --agent gemini --project`",
            _ => "run `oath install --agent gemini`",
        };
        if all_events(r, Agent::Gemini, &file, &regs, fix) {
            r.ok(&format!(
                "Gemini CLI {} settings {}: oath registered for all {} events",
                scope.as_str(),
                file.display(),
                events(Agent::Gemini).len()
            ));
        }
        if scope == Scope::Project {
            r.info("Gemini CLI asks each person to trust the project's hooks (~/.gemini/trusted_hooks.json); headless, it warns and runs them");
        }
        binaries.extend(regs.into_iter().map(|(_, b)| b));
    }
    if !any {
        r.info("Gemini CLI: oath not registered (`oath install --agent gemini` guards Gemini too)");
        return binaries;
    }
    // The system settings can switch hooks off too.
    let system = PathBuf::from(GEMINI_SYSTEM_SETTINGS);
    if let Ok(Settings {
        value,
        text: Some(_),
        ..
    }) = Settings::read(&system)
    {
        values.push((system, value));
    }
    // Hooks switched off at any scope stop them all.
    for (file, value) in &values {
        const SWITCHES: [[&str; 2]; 3] = [
            ["hooksConfig", "enabled"],
            ["hooks", "enabled"],
            ["tools", "enableHooks"],
        ];
        for path in SWITCHES {
            let v = path.iter().try_fold(value, |v, k| v.get(*k));
            if v == Some(&Value::Bool(false)) {
                r.fail(
                    &format!(
                        "Gemini CLI {}: `{}` is false, so Gemini runs no hooks, oath's included",
                        file.display(),
                        path.join(".")
                    ),
                    &format!("remove `{}` or set it to true", path.join(".")),
                );
            }
        }
    }
    if r.problems == before {
        r.ok("Gemini CLI: hooks enabled (oath active)");
    }
    binaries
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_follow_codex_positions() {
        let v = json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]},
                {"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": "/o/oath hook --agent codex"}]}
            ],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "/o/oath hook --agent codex"}]}]
        }});
        assert_eq!(
            our_keys(Path::new("/c/hooks.json"), &v, None),
            [
                "/c/hooks.json:pre_tool_use:1:0",
                "/c/hooks.json:session_end:0:0"
            ]
        );
    }
}
