//! Trusting oath's Codex CLI hooks the way Codex documents it. Codex skips a hook the user
//! added, silently, until it is trusted: its `/hooks` screen, or its app server (`codex
//! app-server`, JSON-RPC lines on stdin and stdout), whose `hooks/list` gives each hook's key
//! (`<file>:<event>:<group>:<handler>`) and current hash and whose `config/batchWrite` stores
//! `[hooks.state."<key>"] trusted_hash` in `config.toml`. Install uses the app server (Codex
//! computes its hashes and writes its own file); editing a hook's command untrusts it.
//!
//! What install trusted is recorded (key and hash), and `config.toml` is backed up before
//! Codex writes it, so uninstall can remove exactly those entries again (`toml_edit`, every
//! other byte kept) and give back the file's exact bytes when nothing else changed. Without
//! `codex` on PATH, or when the app server fails, install prints the one step left and
//! `oath doctor` reports it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::super::{Manifest, backups};
use super::{command, handler_binary};
use crate::agent::Agent;
use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::project::Env;
use crate::state;
use crate::ui;

/// How long the app server may take for one answer.
const TIMEOUT: Duration = Duration::from_secs(15);

/// The one step left when oath could not trust its hooks itself.
pub const MANUAL_STEP: &str = "open Codex, type /hooks, and trust oath's hooks (or run `oath install --agent codex` again with `codex` on PATH)";

/// What install trusted in Codex's `config.toml`, for uninstall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CodexTrust {
    /// `config.toml`.
    pub config: PathBuf,
    /// The `hooks.state` keys trusted, with the hash written.
    pub hooks: Vec<TrustedHook>,
    /// Backup of `config.toml` before the first trust (`None` when it did not exist).
    #[serde(default)]
    pub backup: Option<PathBuf>,
    /// `config.toml` did not exist before.
    #[serde(default)]
    pub created_file: bool,
    /// The `hooks` table did not exist before.
    #[serde(default)]
    pub created_hooks: bool,
    /// The `hooks.state` table did not exist before.
    #[serde(default)]
    pub created_state: bool,
}

/// One hook trusted by install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrustedHook {
    /// Its `hooks.state` key.
    pub key: String,
    /// The `trusted_hash` written.
    pub hash: String,
}

/// A hook as Codex's `hooks/list` reports it (the fields oath reads).
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// `hooks.state` key.
    pub key: String,
    /// The command string.
    pub command: String,
    /// The file it comes from.
    pub source_path: String,
    /// Its current hash.
    pub current_hash: String,
    /// `trusted`, `untrusted`, `modified` or `managed`.
    pub trust_status: String,
    /// Whether it is enabled.
    pub enabled: bool,
}

/// Returns `codex` on PATH, if any.
pub fn find_codex() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("codex"))
        .find(|p| p.is_file())
}

/// A running `codex app-server`.
struct AppServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl AppServer {
    fn start(codex: &Path, cwd: &Path) -> std::result::Result<Self, String> {
        let mut child = Command::new(codex)
            .arg("app-server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start `{} app-server`: {e}", codex.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Self {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({
                "clientInfo": {"name": "oath", "version": env!("CARGO_PKG_VERSION")},
                "capabilities": {"experimentalApi": true},
            }),
        )?;
        server.send(&json!({"method": "initialized"}))?;
        Ok(server)
    }

    fn send(&mut self, msg: &Value) -> std::result::Result<(), String> {
        writeln!(self.stdin, "{msg}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the app server closed its input: {e}"))
    }

    /// Sends a request and waits for its answer (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> std::result::Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "no answer to {method} within {} s",
                        TIMEOUT.as_secs()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("the app server exited before answering {method}"));
                }
            };
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if msg.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if let Some(err) = msg.get("error") {
                let text = err.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(format!("{method} failed: {text}"));
            }
            return Ok(msg.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    fn hooks(&mut self, cwd: &Path) -> std::result::Result<Vec<Listed>, String> {
        let r = self.request("hooks/list", json!({"cwds": [cwd]}))?;
        let hooks = r
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|d| d.get("hooks").and_then(Value::as_array))
            .flatten();
        let s = |h: &Value, k: &str| h.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        Ok(hooks
            .map(|h| Listed {
                key: s(h, "key"),
                command: s(h, "command"),
                source_path: s(h, "sourcePath"),
                current_hash: s(h, "currentHash"),
                trust_status: s(h, "trustStatus"),
                enabled: h.get("enabled").and_then(Value::as_bool) != Some(false),
            })
            .collect())
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn same_file(a: &str, b: &Path) -> bool {
    let a = Path::new(a);
    a == b
        || std::fs::canonicalize(a)
            .ok()
            .is_some_and(|x| std::fs::canonicalize(b).ok().as_deref() == Some(x.as_path()))
}

/// Returns oath's hooks of `file` as Codex lists them (through `codex app-server`).
pub fn list_ours(codex: &Path, file: &Path) -> std::result::Result<Vec<Listed>, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut server = AppServer::start(codex, &cwd)?;
    Ok(server
        .hooks(&cwd)?
        .into_iter()
        .filter(|h| same_file(&h.source_path, file) && is_oath_command(&h.command))
        .collect())
}

fn is_oath_command(cmd: &str) -> bool {
    handler_binary(&json!({"type": "command", "command": cmd}), Agent::Codex).is_some()
}

/// After `oath install --agent codex` wrote `file`: trusts oath's hooks through Codex's app
/// server, or says loudly what is left to do.
pub fn after_install(
    env: &Env,
    file: &Path,
    exe: &str,
    codex: Option<&Path>,
    manifest: &mut Manifest,
    now: Timestamp,
) {
    let Some(codex) = codex else {
        loud(
            "`codex` is not on PATH, so oath could not trust its hooks: Codex skips them silently until you do",
        );
        return;
    };
    match trust(env, file, exe, codex, manifest, now) {
        Ok(0) => ui::out("  Codex already trusts oath's hooks"),
        Ok(n) => ui::out(&format!(
            "  trusted oath's {} in Codex ({} [hooks.state], written by `codex app-server`)",
            ui::plural(n, "hook", "hooks"),
            manifest
                .codex_trust
                .as_ref()
                .map_or_else(String::new, |t| t.config.display().to_string())
        )),
        Err(e) => loud(&format!(
            "oath could not trust its hooks through `codex app-server` ({e}): Codex skips them silently until you do"
        )),
    }
}

fn loud(why: &str) {
    ui::warn(why);
    ui::warn(&format!("ONE STEP LEFT: {MANUAL_STEP}"));
    ui::out("  `oath doctor` reports whether Codex trusts oath's hooks.");
}

/// The `config.toml` Codex keeps its trust in.
pub fn config_path(env: &Env) -> Option<PathBuf> {
    env.codex_dir().map(|d| d.join("config.toml"))
}

fn trust(
    env: &Env,
    file: &Path,
    exe: &str,
    codex: &Path,
    manifest: &mut Manifest,
    now: Timestamp,
) -> std::result::Result<usize, String> {
    let config = config_path(env).ok_or("cannot find Codex's config dir")?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut server = AppServer::start(codex, &cwd)?;
    let want = command(exe, Agent::Codex);
    let ours: Vec<Listed> = server
        .hooks(&cwd)?
        .into_iter()
        .filter(|h| same_file(&h.source_path, file) && h.command == want)
        .collect();
    if ours.is_empty() {
        return Err(format!(
            "Codex does not list oath's hooks from {}",
            file.display()
        ));
    }
    let todo: Vec<&Listed> = ours
        .iter()
        .filter(|h| h.trust_status != "trusted")
        .collect();
    if todo.is_empty() {
        return Ok(0);
    }
    // The file as it was, for uninstall.
    let before = std::fs::read_to_string(&config).ok();
    let record = manifest.codex_trust.get_or_insert_with(|| {
        let doc = before
            .as_deref()
            .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok());
        let hooks = doc.as_ref().and_then(|d| d.get("hooks"));
        CodexTrust {
            config: config.clone(),
            created_file: before.is_none(),
            created_hooks: hooks.is_none(),
            created_state: hooks.and_then(|h| h.get("state")).is_none(),
            ..CodexTrust::default()
        }
    });
    let mut backup = None;
    if let Some(old) = &before {
        let b = backups::path(&config, now);
        std::fs::write(&b, old).map_err(|e| format!("cannot back up {}: {e}", config.display()))?;
        if record.backup.is_none() && !record.created_file {
            record.backup = Some(b.clone());
        }
        backup = Some(b);
    }
    let value: serde_json::Map<String, Value> = todo
        .iter()
        .map(|h| (h.key.clone(), json!({"trusted_hash": h.current_hash})))
        .collect();
    server.request(
        "config/batchWrite",
        json!({"edits": [{"keyPath": "hooks.state", "value": value, "mergeStrategy": "upsert"}]}),
    )?;
    if let Some(b) = &backup {
        let removed = backups::rotate(&config, b);
        if record.backup.as_ref().is_some_and(|x| removed.contains(x)) {
            record.backup = None;
        }
    }
    for h in &todo {
        record.hooks.retain(|t| t.key != h.key);
        record.hooks.push(TrustedHook {
            key: h.key.clone(),
            hash: h.current_hash.clone(),
        });
    }
    // Codex's own view afterwards.
    let untrusted: Vec<String> = server
        .hooks(&cwd)?
        .into_iter()
        .filter(|h| same_file(&h.source_path, file) && h.command == want)
        .filter(|h| h.trust_status != "trusted")
        .map(|h| h.key)
        .collect();
    if !untrusted.is_empty() {
        return Err(format!(
            "Codex still lists as untrusted: {}",
            untrusted.join(", ")
        ));
    }
    Ok(todo.len())
}

/// Reads the `trusted_hash` of each `hooks.state` key in `config.toml`'s text.
pub fn trusted_hashes(text: &str) -> Vec<(String, String)> {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return Vec::new();
    };
    let Some(state) = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(toml_edit::Item::as_table_like)
    else {
        return Vec::new();
    };
    state
        .iter()
        .filter_map(|(k, v)| {
            let hash = v.get("trusted_hash")?.as_str()?;
            Some((k.to_owned(), hash.to_owned()))
        })
        .collect()
}

/// Removes from `config.toml`'s text the entries install trusted (those whose hash is still
/// the one written), and the tables install created once empty; every other byte is kept.
pub fn remove_trust(text: &str, t: &CodexTrust) -> Option<String> {
    let mut doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    if let Some(state) = doc
        .get_mut("hooks")
        .and_then(|h| h.get_mut("state"))
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        for h in &t.hooks {
            let ours = state
                .get(&h.key)
                .and_then(|v| v.get("trusted_hash"))
                .and_then(toml_edit::Item::as_str)
                == Some(h.hash.as_str());
            if ours {
                state.remove(&h.key);
            }
        }
    }
    if let Some(hooks) = doc
        .get_mut("hooks")
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        let empty_state = hooks
            .get("state")
            .and_then(toml_edit::Item::as_table_like)
            .is_some_and(|s| s.is_empty());
        if t.created_state && empty_state {
            hooks.remove("state");
        }
    }
    let empty_hooks = doc
        .get("hooks")
        .and_then(toml_edit::Item::as_table_like)
        .is_some_and(|h| h.is_empty());
    if t.created_hooks && empty_hooks {
        doc.remove("hooks");
    }
    Some(doc.to_string())
}

/// After `oath uninstall --agent codex`: removes the trust install wrote.
pub fn after_uninstall(_env: &Env, m: &Manifest, dry_run: bool, now: Timestamp) -> Result<()> {
    let Some(t) = &m.codex_trust else {
        return Ok(());
    };
    let Ok(text) = std::fs::read_to_string(&t.config) else {
        return Ok(());
    };
    let Some(mut new) = remove_trust(&text, t) else {
        ui::warn(&format!(
            "{} is not valid TOML: oath's trust entries were left in it",
            t.config.display()
        ));
        return Ok(());
    };
    if new == text {
        return Ok(());
    }
    // The file before install, byte for byte, when nothing else changed.
    let restored = t
        .backup
        .as_ref()
        .and_then(|b| std::fs::read_to_string(b).ok())
        .filter(|old| toml_value(old).is_some() && toml_value(old) == toml_value(&new));
    if let Some(old) = &restored {
        new.clone_from(old);
    }
    let delete = t.created_file && toml_value(&new).is_some_and(|v| v.is_empty());
    if dry_run {
        ui::out(&format!(
            "  would remove oath's {} from {}",
            ui::plural(t.hooks.len(), "trust entry", "trust entries"),
            t.config.display()
        ));
        return Ok(());
    }
    let b = backups::path(&t.config, now);
    std::fs::write(&b, &text).map_err(|e| {
        CliError::new(format!("cannot back up {}: {e}", t.config.display()))
            .hint("nothing was changed")
    })?;
    if delete {
        std::fs::remove_file(&t.config)
            .map_err(|e| CliError::new(format!("cannot remove {}: {e}", t.config.display())))?;
    } else {
        state::write_raw_atomic(&t.config, new.as_bytes())?;
    }
    if restored.is_some()
        && let Some(ib) = &t.backup
    {
        let _ = std::fs::remove_file(ib);
    }
    backups::rotate(&t.config, &b);
    ui::out(&format!(
        "  {}: removed oath's hook trust (backup: {})",
        t.config.display(),
        b.display()
    ));
    Ok(())
}

/// A TOML document's values (layout and comments aside), `None` when it is not TOML.
fn toml_value(text: &str) -> Option<serde_json::Map<String, Value>> {
    let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    match item_value(doc.as_item()) {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

fn item_value(item: &toml_edit::Item) -> Value {
    use toml_edit::Item;
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_value(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), item_value(v)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| item_value(&Item::Table(t.clone())))
                .collect(),
        ),
    }
}

fn value_value(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match v {
        V::String(s) => json!(s.value()),
        V::Integer(i) => json!(i.value()),
        V::Float(f) => json!(f.value()),
        V::Boolean(b) => json!(b.value()),
        V::Datetime(d) => json!(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(value_value).collect()),
        V::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), value_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "# mine\nmodel = \"gpt-5.5\"   # keep\n\n[hooks.state.\"/u/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:mine\"\n";

    #[test]
    fn only_the_entries_install_wrote_are_removed() {
        let ours =
            "[hooks.state.\"/c/hooks.json:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:oath\"\n";
        let text = format!("{CONFIG}\n{ours}");
        let t = CodexTrust {
            config: "/c/config.toml".into(),
            hooks: vec![
                TrustedHook {
                    key: "/c/hooks.json:pre_tool_use:1:0".into(),
                    hash: "sha256:oath".into(),
                },
                // The user's own entry at a key oath once used, with another hash: kept.
                TrustedHook {
                    key: "/u/.codex/hooks.json:stop:0:0".into(),
                    hash: "sha256:old".into(),
                },
            ],
            ..CodexTrust::default()
        };
        let out = remove_trust(&text, &t).unwrap();
        assert!(out.starts_with(CONFIG), "{out}");
        assert!(!out.contains("sha256:oath"), "{out}");
        assert_eq!(
            trusted_hashes(&out),
            [(
                "/u/.codex/hooks.json:stop:0:0".to_owned(),
                "sha256:mine".to_owned()
            )]
        );
    }

    #[test]
    fn tables_install_created_go_when_empty() {
        let text = "model = \"x\"\n\n[hooks.state.\"k\"]\ntrusted_hash = \"h\"\n";
        let t = CodexTrust {
            hooks: vec![TrustedHook {
                key: "k".into(),
                hash: "h".into(),
            }],
            created_hooks: true,
            created_state: true,
            ..CodexTrust::default()
        };
        assert_eq!(remove_trust(text, &t).unwrap().trim_end(), "model = \"x\"");
    }
}
