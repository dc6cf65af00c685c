//! `oath install` and `oath uninstall`: oath's hooks in a Claude Code settings file and its
//! slash commands next to it.
//!
//! Install merges one handler per event into the chosen settings file, keeping every other key
//! and handler as it is, and records in oath's state what it created (the file, the `hooks`
//! object, event arrays, command files) and where it backed the file up. Uninstall removes
//! exactly oath's handlers (identified by the registered command path and `args: ["hook"]`,
//! or the shell-form string), drops containers only when they became empty and install created
//! them, and restores the backup's exact bytes when the result equals the backed-up file, so
//! install then uninstall gives back the original file.
//!
//! The settings file is rewritten as an edit of its text: every value oath did not change
//! keeps its original text (number spellings such as `1e10` or `-0`, `\u` escapes, compact
//! parts), and the objects and arrays it changed are written in the file's indentation (2
//! spaces unless it used another), so a file Claude Code wrote comes back as it was. The JSON
//! work itself is in [`settings`] and `layout`; the decisions behind all this are in
//! `docs/adr/0010-install-and-uninstall.md`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::agent::Agent;
use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::gitignore;
use crate::project::{Env, Project, file_safe};
use crate::state::{self, ReadOutcome};
use crate::ui;

pub mod agents;
mod apply;
mod backups;
mod layout;
pub mod settings;

use apply::{remove_backed_up, write_backed_up};

pub use settings::{
    Form, Merge, Removal, Settings, check_shape, diff, handler, is_oath_handler, merge_export,
    merge_hooks, remove_export, remove_hooks, shell_quote, stale_binaries, unquote,
};

/// Where oath is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::Args)]
#[group(multiple = false)]
pub struct ScopeArgs {
    /// Your user settings (`~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR/settings.json`):
    /// oath guards every project you open. This is the default
    #[arg(long)]
    pub user: bool,
    /// The project's shared settings (`.claude/settings.json`, usually committed): note that
    /// the registered path is this machine's
    #[arg(long)]
    pub project: bool,
    /// The project's personal settings (`.claude/settings.local.json`, not committed)
    #[arg(long)]
    pub local: bool,
}

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `~/.claude/settings.json`.
    User,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`.
    Local,
}

impl ScopeArgs {
    /// Returns the chosen scope (user when none is given).
    pub fn scope(self) -> Scope {
        if self.project {
            Scope::Project
        } else if self.local {
            Scope::Local
        } else {
            Scope::User
        }
    }
}

impl Scope {
    /// Returns the name shown to people.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
        }
    }
}

/// Register oath's hooks and slash commands in Claude Code settings (or Codex CLI's and
/// Gemini CLI's hooks with `--agent`).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Adds one handler per event oath answers (PreToolUse, PostToolUse, PostToolUseFailure, Stop,
SessionStart, SessionEnd, UserPromptSubmit, PostToolBatch, PermissionDenied) that runs this
binary by its absolute path as `oath hook`, and the `/quick-save`, `/quick-load` and
`/hurikaeri` slash commands. Every other setting and your own hooks stay as they are; the
file is backed up (`settings.json.oath-backup-<time>`, the last three kept) before it
changes. Running it again changes nothing.

Examples:
  oath install                 guard every project (user settings, the default)
  oath install --project       guard this project only (.claude/settings.json)
  oath install --dry-run       show what would change, write nothing
  oath install --agent codex   guard Codex CLI (~/.codex/hooks.json, then trusted)
  oath install --agent gemini  guard Gemini CLI (~/.gemini/settings.json)
  oath doctor                  check the installation afterwards

Timeouts: PreToolUse 10 s, PostToolUse and PostToolUseFailure 120 s (they run your
postToolUse commands, whose default timeout is 60 s), SessionEnd 5 s, other events 10-30 s.
Claude Code older than 2.1.139 gets the shell form \"<path> hook\" instead of exec form.")]
pub struct InstallArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// The client whose hooks run oath: claude (Claude Code, the default), codex (Codex CLI:
    /// `$CODEX_HOME/hooks.json`, user scope only, its hooks then trusted through `codex
    /// app-server`) or gemini (Gemini CLI: `~/.gemini/settings.json`, or
    /// `.gemini/settings.json` with `--project`)
    #[arg(long, value_enum, default_value_t = Agent::Claude, hide_possible_values = true, hide_default_value = true)]
    pub agent: Agent,
    /// Print the changes as a diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Also ship the audit trail to your OpenTelemetry collector at the end of each turn and
    /// session: `oath export otlp --project --hook` as an async Stop and SessionEnd hook (configured
    /// by `export.otlp` in your oath configuration: hooks do not get OTEL_* variables)
    #[arg(long)]
    pub export: bool,
}

/// Remove exactly what `oath install` added.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Removes oath's handlers from the settings file (nothing else: other hooks and keys stay),
the event lists and `hooks` object install created once they are empty, and the slash
commands install wrote unless you changed them. oath's state (trust, audit trail) is kept.

Examples:
  oath uninstall               remove oath from your user settings
  oath uninstall --project     remove oath from .claude/settings.json
  oath uninstall --agent codex remove oath (and its hook trust) from Codex CLI
  oath uninstall --dry-run     show what would change, write nothing")]
pub struct UninstallArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// The client to remove oath from: claude (the default), codex (its hook trust in
    /// config.toml too) or gemini
    #[arg(long, value_enum, default_value_t = Agent::Claude, hide_possible_values = true, hide_default_value = true)]
    pub agent: Agent,
    /// Print the changes as a diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// The events oath registers for, with their matcher and timeout in seconds.
///
/// PostToolUse and PostToolUseFailure run the configured synchronous `postToolUse` commands,
/// whose default timeout is 60 s; 120 s leaves room for one of them plus oath's own work.
/// SessionEnd shares a short budget in Claude Code, so it gets 5 s.
pub const EVENTS: &[(&str, Option<&str>, u64)] = &[
    ("PreToolUse", Some("*"), 10),
    ("PostToolUse", Some("*"), 120),
    ("PostToolUseFailure", Some("*"), 120),
    ("Stop", None, 30),
    ("SessionStart", None, 10),
    ("SessionEnd", None, 5),
    ("UserPromptSubmit", None, 10),
    ("PostToolBatch", None, 10),
    ("PermissionDenied", Some("*"), 10),
];

/// First Claude Code version with exec-form handlers (`args`).
pub const EXEC_FORM_SINCE: Version = Version(2, 1, 139);
/// Last listed Claude Code version known to lack PostToolUseFailure (reference §11: 2.1.10,
/// mid-January 2026; the event was documented on 2026-01-22).
pub const LAST_WITHOUT_FAILURE_HOOK: Version = Version(2, 1, 10);
/// First listed version known to have PostToolUseFailure (2.1.33, February 2026). Versions
/// in between may or may not have it, and get a softer warning.
pub const FIRST_WITH_FAILURE_HOOK: Version = Version(2, 1, 33);

/// The slash commands oath installs: file name and text (`{{oath}}` becomes the binary's path).
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "quick-save.md",
        include_str!("../../assets/commands/quick-save.md"),
    ),
    (
        "quick-load.md",
        include_str!("../../assets/commands/quick-load.md"),
    ),
    (
        "hurikaeri.md",
        include_str!("../../assets/commands/hurikaeri.md"),
    ),
];

/// A Claude Code version `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// Parses the first `x.y.z` in a `claude --version` output such as `2.1.197 (Claude Code)`.
    pub fn parse(text: &str) -> Option<Self> {
        text.split_whitespace().find_map(|word| {
            let mut parts = word.trim_start_matches('v').split('.');
            let a = parts.next()?.parse().ok()?;
            let b = parts.next()?.parse().ok()?;
            let c: String = parts
                .next()?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            Some(Self(a, b, c.parse().ok()?))
        })
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Runs `claude --version` when `claude` is on PATH (giving up after 5 s); `None` otherwise.
pub fn claude_version() -> Option<Version> {
    let mut child = Command::new("claude")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    Version::parse(&String::from_utf8_lossy(&out.stdout))
}

/// What install created in one settings file, kept in oath's state for uninstall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The settings file.
    pub settings: PathBuf,
    /// Paths of the binary registered (the latest last).
    #[serde(default)]
    pub commands: Vec<String>,
    /// Install created the settings file.
    #[serde(default)]
    pub created_file: bool,
    /// Install created the `hooks` object.
    #[serde(default)]
    pub created_hooks: bool,
    /// Event arrays install created.
    #[serde(default)]
    pub created_events: Vec<String>,
    /// Backup of the file as it was before the first install (`None` again once it is
    /// rotated away, see `backups`).
    #[serde(default)]
    pub backup: Option<PathBuf>,
    /// Slash command files install wrote, with the sha256 of what it wrote.
    #[serde(default)]
    pub command_files: Vec<CommandFile>,
    /// Codex CLI: the trust install wrote in its `config.toml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codex_trust: Option<agents::codex_trust::CodexTrust>,
}

/// A slash command file install wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandFile {
    /// Its path.
    pub path: PathBuf,
    /// sha256 of the text written.
    pub sha256: String,
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Returns the manifest file of a settings file.
pub fn manifest_path(env: &Env, settings: &Path) -> PathBuf {
    let name = format!(
        "{}-{}.json",
        file_safe(
            &settings
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ),
        &sha256_hex(settings.as_os_str().as_encoded_bytes())[..12]
    );
    env.state_root().join("installs").join(name)
}

/// The settings file and commands folder of a scope.
#[derive(Debug, Clone)]
pub struct Target {
    /// The scope.
    pub scope: Scope,
    /// The settings file.
    pub settings: PathBuf,
    /// Where slash commands go.
    pub commands_dir: PathBuf,
}

/// Resolves a scope to its files.
pub fn target(env: &Env, scope: Scope) -> Result<Target> {
    match scope {
        Scope::User => {
            let dir = env.claude_dir().ok_or_else(|| {
                CliError::new("cannot find Claude Code's config dir: neither CLAUDE_CONFIG_DIR nor HOME is set")
                    .hint("set HOME, or use `--project`")
            })?;
            Ok(Target {
                scope,
                settings: dir.join("settings.json"),
                commands_dir: dir.join("commands"),
            })
        }
        Scope::Project | Scope::Local => {
            let project = Project::resolve(env, None);
            let dir = project.root.join(".claude");
            let file = if scope == Scope::Project {
                "settings.json"
            } else {
                "settings.local.json"
            };
            Ok(Target {
                scope,
                settings: dir.join(file),
                commands_dir: dir.join("commands"),
            })
        }
    }
}

/// Returns the absolute, canonical path of the running binary.
pub fn current_exe() -> Result<String> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| CliError::new(format!("cannot find the path of this oath binary: {e}")))?;
    exe.to_str().map(str::to_owned).ok_or_else(|| {
        CliError::new(format!(
            "the path of this oath binary is not UTF-8: {}",
            exe.display()
        ))
        .hint("move the binary to a path Claude Code can store in JSON")
    })
}

/// Fails when a settings file no longer holds the text read at the start.
fn unchanged_since_read(path: &Path, expected: Option<&str>) -> Result<()> {
    let now = std::fs::read_to_string(path).ok();
    if now.as_deref() != expected {
        return Err(CliError::new(format!(
            "{} changed while oath was working on it; nothing was written",
            path.display()
        ))
        .hint("run the command again"));
    }
    Ok(())
}

/// Writes a settings file keeping its permissions, and through a symlink to its target.
///
/// `expected` is the text read at the start (`None`: the file did not exist); when the file
/// changed since (Claude Code saving a permission, an editor), nothing is written.
fn write_settings(path: &Path, text: &str, expected: Option<&str>) -> Result<()> {
    unchanged_since_read(path, expected)?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let perms = std::fs::metadata(&real).ok().map(|m| m.permissions());
    state::write_raw_atomic(&real, text.as_bytes())?;
    if let Some(p) = perms {
        std::fs::set_permissions(&real, p).map_err(|e| {
            CliError::new(format!(
                "cannot restore permissions of {}: {e}",
                real.display()
            ))
        })?;
    }
    Ok(())
}

fn read_manifest(path: &Path) -> Result<Option<Manifest>> {
    match state::read_json::<Manifest>(path) {
        ReadOutcome::Ok(m) => Ok(Some(m)),
        ReadOutcome::Missing => Ok(None),
        ReadOutcome::Corrupt(why) => {
            ui::warn(&format!(
                "{} is unreadable ({why}); treating oath as not installed there before",
                path.display()
            ));
            Ok(None)
        }
    }
}

/// Returns the text of a slash command with the binary's path filled in.
pub fn command_text(template: &str, exe: &str) -> String {
    template.replace("{{oath}}", &shell_quote(exe))
}

/// Installs the slash commands; returns one note per command.
fn install_commands(
    t: &Target,
    exe: &str,
    manifest: &mut Manifest,
    dry_run: bool,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for (name, template) in COMMANDS {
        let path = t.commands_dir.join(name);
        let text = command_text(template, exe);
        let hash = sha256_hex(text.as_bytes());
        let ours_before = manifest
            .command_files
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.sha256.clone());
        match std::fs::read(&path) {
            Ok(existing) if existing == text.as_bytes() => {
                notes.push(format!("{name} up to date"));
                if ours_before.is_none() {
                    manifest
                        .command_files
                        .push(CommandFile { path, sha256: hash });
                }
            }
            Ok(existing) if ours_before.as_deref() == Some(&sha256_hex(&existing)) => {
                if !dry_run {
                    std::fs::write(&path, &text).map_err(|e| {
                        CliError::new(format!("cannot write {}: {e}", path.display()))
                    })?;
                }
                notes.push(format!(
                    "{name} {}",
                    if dry_run { "to update" } else { "updated" }
                ));
                for c in &mut manifest.command_files {
                    if c.path == path {
                        c.sha256 = hash.clone();
                    }
                }
            }
            Ok(_) => {
                ui::warn(&format!(
                    "{} exists and differs from oath's version; left unchanged (move it away and run `oath install` again to get oath's)",
                    path.display()
                ));
                notes.push(format!("{name} kept (yours)"));
            }
            Err(_) => {
                if !dry_run {
                    std::fs::create_dir_all(&t.commands_dir)
                        .and_then(|()| std::fs::write(&path, &text))
                        .map_err(|e| {
                            CliError::new(format!("cannot write {}: {e}", path.display()))
                        })?;
                }
                notes.push(format!(
                    "{name} {}",
                    if dry_run { "to install" } else { "installed" }
                ));
                manifest.command_files.retain(|c| c.path != path);
                manifest
                    .command_files
                    .push(CommandFile { path, sha256: hash });
            }
        }
    }
    Ok(notes)
}

/// Removes the slash commands install wrote, when unchanged; returns one note per command.
fn uninstall_commands(
    t: &Target,
    exe: &str,
    manifest: Option<&Manifest>,
    dry_run: bool,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for (name, template) in COMMANDS {
        let path = t.commands_dir.join(name);
        let Ok(existing) = std::fs::read(&path) else {
            continue;
        };
        let recorded = manifest.and_then(|m| m.command_files.iter().find(|c| c.path == path));
        let ours = recorded.is_some_and(|c| c.sha256 == sha256_hex(&existing))
            || existing == command_text(template, exe).as_bytes();
        if ours {
            if !dry_run {
                std::fs::remove_file(&path)
                    .map_err(|e| CliError::new(format!("cannot remove {}: {e}", path.display())))?;
            }
            notes.push(format!(
                "{name} {}",
                if dry_run { "to remove" } else { "removed" }
            ));
        } else if recorded.is_some() {
            ui::warn(&format!(
                "{} was changed since oath installed it; left in place (delete it yourself if you do not need it)",
                path.display()
            ));
            notes.push(format!("{name} kept (changed)"));
        }
    }
    Ok(notes)
}

/// Runs `oath install`.
pub fn run_install(args: &InstallArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let exe = current_exe()?;
    if args.export && args.agent != Agent::Claude {
        return Err(CliError::new("--export is for Claude Code only")
            .hint("run `oath export otlp` from cron or a systemd timer instead"));
    }
    if args.agent != Agent::Claude {
        let codex = agents::codex_trust::find_codex();
        return agents::install(
            &env,
            args.agent,
            args.scope.scope(),
            &exe,
            args.dry_run,
            Timestamp::now(),
            codex.as_deref(),
        );
    }
    let version = claude_version();
    install(
        &env,
        args.scope.scope(),
        &exe,
        version,
        (args.dry_run, args.export),
        Timestamp::now(),
    )
}

/// Installs into a scope: the work of `oath install`, with its inputs explicit.
pub fn install(
    env: &Env,
    scope: Scope,
    exe: &str,
    version: Option<Version>,
    (dry_run, export): (bool, bool),
    now: Timestamp,
) -> Result<ExitCode> {
    let t = target(env, scope)?;
    let form = match version {
        Some(v) if v < EXEC_FORM_SINCE => Form::Shell,
        _ => Form::Exec,
    };
    let settings = Settings::read(&t.settings)?;
    check_shape(&t.settings, &settings.value)?;
    let mpath = manifest_path(env, &t.settings);
    let old_manifest = read_manifest(&mpath)?;
    let mut known: Vec<String> = old_manifest
        .as_ref()
        .map(|m| m.commands.clone())
        .unwrap_or_default();
    known.extend(stale_binaries(&settings.value));
    let mut value = settings.value.clone();
    let mut merge = merge_hooks(&mut value, exe, form, &known);
    if export {
        let m = merge_export(&mut value, exe, form, &known);
        merge.created_hooks |= m.created_hooks;
        merge.created_events.extend(m.created_events);
        merge
            .added
            .extend(m.added.into_iter().map(|e| format!("{e} (export)")));
        merge
            .updated
            .extend(m.updated.into_iter().map(|e| format!("{e} (export)")));
    }

    ui::out(&format!(
        "oath install ({} scope{})",
        scope.as_str(),
        if dry_run { ", dry run" } else { "" }
    ));
    match version {
        Some(v) => ui::out(&format!(
            "  Claude Code {v} found: registering the {} form",
            if form == Form::Exec { "exec" } else { "shell" }
        )),
        None => ui::out(
            "  `claude` not found on PATH: registering the exec form (Claude Code 2.1.139+)",
        ),
    }
    if let Some(v) = version {
        if v <= LAST_WITHOUT_FAILURE_HOOK {
            ui::warn(&format!(
                "Claude Code {v} predates the PostToolUseFailure hook: failed tools will not lower trust or count strikes; update Claude Code"
            ));
        } else if v < FIRST_WITH_FAILURE_HOOK {
            ui::warn(&format!(
                "Claude Code {v} may predate the PostToolUseFailure hook (it appeared in January 2026, after 2.1.10): if it does, failed tools will not lower trust; update Claude Code"
            ));
        }
    }

    if is_cargo_build_output(exe) {
        ui::warn(&format!(
            "registering a cargo build output ({exe}): `cargo clean` deletes it; `cargo install --path .` gives a lasting path (then run `oath install` again)"
        ));
    }
    let mut others: Vec<String> = Vec::new();
    for reg in super::doctor::registrations(&value, &[]) {
        if reg.binary != exe && !others.contains(&reg.binary) {
            others.push(reg.binary);
        }
    }
    for other in &others {
        ui::warn(&format!(
            "{} also registers another oath ({other}): every event would run oath twice; remove those handlers (or `oath uninstall` with that binary)",
            t.settings.display()
        ));
    }

    let mut manifest = old_manifest.clone().unwrap_or_else(|| Manifest {
        settings: t.settings.clone(),
        ..Manifest::default()
    });
    let new_text = settings.render(&value);
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
        if dry_run {
            ui::out(&format!("  would change {}:", t.settings.display()));
            ui::out_raw(&diff(
                &t.settings,
                settings.text.as_deref().unwrap_or(""),
                &new_text,
            ));
        } else {
            write_backed_up(&t.settings, &settings, &new_text, &mut manifest, now)?;
            ui::out(&format!(
                "  {}: {}{}",
                t.settings.display(),
                if merge.added.is_empty() {
                    String::new()
                } else {
                    format!("added {}", ui::plural(merge.added.len(), "hook", "hooks"))
                },
                if merge.updated.is_empty() {
                    String::new()
                } else {
                    format!(
                        "{}updated {}",
                        if merge.added.is_empty() { "" } else { ", " },
                        merge.updated.join(", ")
                    )
                }
            ));
        }
    } else {
        ui::out(&format!("  {}: already up to date", t.settings.display()));
    }
    if !manifest.commands.iter().any(|c| c == exe) {
        manifest.commands.push(exe.to_owned());
    }

    let notes = install_commands(&t, exe, &mut manifest, dry_run)?;
    ui::out(&format!(
        "  {}: {}",
        t.commands_dir.display(),
        notes.join(", ")
    ));

    if dry_run {
        ui::out("Dry run: nothing was written.");
        return Ok(ExitCode::SUCCESS);
    }
    if old_manifest.as_ref() != Some(&manifest) {
        state::write_json_atomic(&mpath, &manifest)?;
    }
    let mut own = Vec::new();
    if t.scope == Scope::Local {
        own.push("/settings.local.json".to_owned());
        for c in &manifest.command_files {
            if let Some(name) = c.path.file_name().and_then(|n| n.to_str()) {
                own.push(format!("/commands/{name}"));
            }
        }
    }
    ignore_own_files(t.scope, &t.settings, own);
    ui::out(
        "Done. Claude Code applies settings changes live (older versions: restart it, or review in /hooks).",
    );
    ui::out("Check with `oath doctor`.");
    Ok(ExitCode::SUCCESS)
}

/// Keeps oath's own files in a project's client folder (`.claude/`, `.gemini/`) out of `git
/// status` (`crate::gitignore`): the backups of `settings` when there are any, and `own` (what
/// `--local` wrote for this machine). The user scope is no project: nothing is done there.
fn ignore_own_files(scope: Scope, settings: &Path, mut own: Vec<String>) {
    if scope == Scope::User {
        return;
    }
    if !backups::list(settings).is_empty() {
        own.insert(0, gitignore::BACKUPS.to_owned());
    }
    let Some(dir) = settings.parent().filter(|d| d.is_dir()) else {
        return;
    };
    if own.is_empty() {
        return;
    }
    let entries: Vec<&str> = own.iter().map(String::as_str).collect();
    let ignored = gitignore::ignore_in_client_dir(dir, &entries);
    if let Some(note) = gitignore::note(dir, &ignored) {
        ui::out(&format!("  note: {note}"));
    }
}

/// Runs `oath uninstall`.
pub fn run_uninstall(args: &UninstallArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let exe = current_exe()?;
    if args.agent != Agent::Claude {
        return agents::uninstall(
            &env,
            args.agent,
            args.scope.scope(),
            &exe,
            args.dry_run,
            Timestamp::now(),
        );
    }
    uninstall(
        &env,
        args.scope.scope(),
        &exe,
        args.dry_run,
        Timestamp::now(),
    )
}

/// Uninstalls from a scope: the work of `oath uninstall`, with its inputs explicit.
pub fn uninstall(
    env: &Env,
    scope: Scope,
    exe: &str,
    dry_run: bool,
    now: Timestamp,
) -> Result<ExitCode> {
    let t = target(env, scope)?;
    ui::out(&format!(
        "oath uninstall ({} scope{})",
        scope.as_str(),
        if dry_run { ", dry run" } else { "" }
    ));
    let mpath = manifest_path(env, &t.settings);
    let manifest = read_manifest(&mpath)?;
    let mut exes = manifest
        .as_ref()
        .map(|m| m.commands.clone())
        .unwrap_or_default();
    exes.push(exe.to_owned());

    let settings = Settings::read(&t.settings)?;
    exes.extend(stale_binaries(&settings.value));
    if settings.text.is_none() {
        ui::out(&format!(
            "  {}: does not exist, nothing to remove",
            t.settings.display()
        ));
    } else {
        check_shape(&t.settings, &settings.value)?;
        let mut value = settings.value.clone();
        let mut removal = remove_hooks(&mut value, &exes, manifest.as_ref());
        removal.handlers += remove_export(&mut value, &exes, manifest.as_ref()).handlers;
        if value == settings.value {
            ui::out(&format!(
                "  {}: oath is not registered there",
                t.settings.display()
            ));
        } else {
            remove_backed_up(
                &t.settings,
                &settings,
                &value,
                removal.handlers,
                manifest.as_ref(),
                dry_run,
                now,
            )?;
        }
    }

    let notes = uninstall_commands(&t, exe, manifest.as_ref(), dry_run)?;
    if !notes.is_empty() {
        ui::out(&format!(
            "  {}: {}",
            t.commands_dir.display(),
            notes.join(", ")
        ));
        if !dry_run && std::fs::read_dir(&t.commands_dir).is_ok_and(|mut d| d.next().is_none()) {
            let _ = std::fs::remove_dir(&t.commands_dir);
        }
    }
    if dry_run {
        ui::out("Dry run: nothing was written.");
        return Ok(ExitCode::SUCCESS);
    }
    if manifest.is_some() {
        let _ = std::fs::remove_file(&mpath);
    }
    ignore_own_files(t.scope, &t.settings, Vec::new());
    ui::out("Done. oath's state (trust scores, audit trail) is kept.");
    Ok(ExitCode::SUCCESS)
}

/// Whether a binary path lies in a cargo target directory (`target/release/oath`, or
/// `target/<triple>/debug/oath` when a target is configured), which `cargo clean` deletes.
fn is_cargo_build_output(exe: &str) -> bool {
    let parts: Vec<&str> = exe.split(['/', '\\']).collect();
    parts.windows(3).any(|w| {
        w[0] == "target"
            && (matches!(w[1], "debug" | "release")
                || (w[1].contains('-') && matches!(w[2], "debug" | "release")))
    })
}

#[cfg(test)]
mod tests;
