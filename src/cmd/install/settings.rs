//! The settings file itself: reading it with its layout, checking the parts oath touches,
//! merging and removing oath's handlers, and a unified diff for `--dry-run`.
//!
//! Pure functions on `serde_json::Value` (key order kept by `preserve_order`), so the
//! round trip install → uninstall can be tested without a disk; the file is written back as
//! an edit of its text (`layout.rs`), so what oath did not change keeps its spelling.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{EVENTS, Manifest};
use crate::error::{CliError, Result};

/// How the handler runs the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// `{"command": "<abs>", "args": ["hook"]}` (Claude Code 2.1.139+).
    Exec,
    /// `{"command": "<abs> hook"}` through the shell.
    Shell,
}

/// Quotes a path for `sh -c` when it needs it (`shlex`: ordinary paths as they are, others in
/// single quotes, or double quotes when they hold one).
pub fn shell_quote(s: &str) -> String {
    match shlex::try_quote(s) {
        Ok(q) => q.into_owned(),
        // Only a NUL byte is refused, which no path holds; quoted by hand all the same.
        Err(_) => format!("'{}'", s.replace('\'', r"'\''")),
    }
}

/// Returns the handler oath registers for one event.
pub fn handler(exe: &str, form: Form, timeout: u64) -> Value {
    match form {
        Form::Exec => {
            json!({"type": "command", "command": exe, "args": ["hook"], "timeout": timeout})
        }
        Form::Shell => {
            json!({"type": "command", "command": format!("{} hook", shell_quote(exe)), "timeout": timeout})
        }
    }
}

/// Returns whether a handler is oath's, registered for one of `exes`.
pub fn is_oath_handler(h: &Value, exes: &[String]) -> bool {
    let Some(obj) = h.as_object() else {
        return false;
    };
    if obj.get("type").and_then(Value::as_str) != Some("command") {
        return false;
    }
    let Some(cmd) = obj.get("command").and_then(Value::as_str) else {
        return false;
    };
    match obj.get("args") {
        Some(args) => args == &json!(["hook"]) && exes.iter().any(|e| e == cmd),
        // Whatever quoting the binary got (this version's or an earlier one's).
        None => cmd
            .strip_suffix(" hook")
            .map(unquote)
            .is_some_and(|b| exes.contains(&b)),
    }
}

/// A command handler that runs `<binary> hook`, in exec form (`args: ["hook"]`) or shell
/// form (`<quoted binary> hook`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookHandler {
    /// The event it is registered for.
    pub event: String,
    /// The binary (unquoted for the shell form).
    pub binary: String,
    /// Exec or shell form.
    pub form: Form,
    /// The `command` string as written.
    pub command: String,
}

/// Returns every command handler of a settings value that runs `<binary> hook`, whatever the
/// binary is called (callers decide which binaries are oath).
pub fn hook_handlers(settings: &Value) -> Vec<HookHandler> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
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
            if h.get("type").and_then(Value::as_str) != Some("command") {
                continue;
            }
            let Some(cmd) = h.get("command").and_then(Value::as_str) else {
                continue;
            };
            let found = match h.get("args") {
                Some(a) if a == &json!(["hook"]) => Some((cmd.to_owned(), Form::Exec)),
                Some(_) => None,
                None => cmd.strip_suffix(" hook").map(|p| (unquote(p), Form::Shell)),
            };
            if let Some((binary, form)) = found {
                out.push(HookHandler {
                    event: event.clone(),
                    binary,
                    form,
                    command: cmd.to_owned(),
                });
            }
        }
    }
    out
}

/// Returns the binaries of handlers that look like oath's (`oath hook` in exec or shell form,
/// binary named `oath`) but whose binary no longer exists: install replaces them and
/// uninstall removes them, since nothing else can run them.
pub fn stale_binaries(settings: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in hook_handlers(settings) {
        let pp = Path::new(&h.binary);
        let named_oath = pp.file_name().is_some_and(|n| n == "oath");
        if named_oath && pp.is_absolute() && !pp.exists() && !out.contains(&h.binary) {
            out.push(h.binary);
        }
    }
    out
}

/// Undoes [`shell_quote`] (and the single-quoted form earlier versions wrote): the one shell
/// word `s` stands for, or `s` itself when it is not one word.
pub fn unquote(s: &str) -> String {
    match shlex::split(s).as_deref() {
        Some([word]) => word.clone(),
        _ => s.to_owned(),
    }
}

/// A settings file as read: its value, its text (when it exists) and its layout.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The parsed object.
    pub value: Value,
    /// The original text, `None` when the file does not exist.
    pub text: Option<String>,
    /// Indentation unit of the original.
    pub indent: String,
    /// Whether the original ended with a newline.
    pub trailing_newline: bool,
}

impl Settings {
    /// Reads a settings file; a missing file is an empty object. Invalid JSON, a top level
    /// that is not an object and unreadable files are errors (the file is then never written).
    pub fn read(path: &Path) -> Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(
                    CliError::new(format!("cannot read {}: {e}", path.display()))
                        .hint("fix its permissions; oath did not change it"),
                );
            }
        };
        let Some(text) = text else {
            return Ok(Self {
                value: Value::Object(Map::new()),
                text: None,
                indent: "  ".into(),
                trailing_newline: true,
            });
        };
        let value: Value = if text.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(&text).map_err(|e| {
                CliError::new(format!("{} is not valid JSON: {e}", path.display())).hint(
                    "fix the file (Claude Code would not read it either); oath did not change it",
                )
            })?
        };
        if !value.is_object() {
            return Err(CliError::new(format!(
                "{} does not hold a JSON object at the top level",
                path.display()
            ))
            .hint("fix the file by hand; oath did not change it"));
        }
        let indent = text
            .lines()
            .skip(1)
            .find(|l| l.starts_with([' ', '\t']))
            .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect())
            .unwrap_or_else(|| "  ".into());
        let trailing_newline = text.ends_with('\n') || text.trim().is_empty();
        Ok(Self {
            value,
            trailing_newline,
            indent,
            text: Some(text),
        })
    }

    /// Renders a value in this file's layout: what the value shares with the file keeps its
    /// text (`layout.rs`); the rest is pretty JSON in the file's indentation.
    pub fn render(&self, value: &Value) -> String {
        let edited = self
            .text
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .and_then(|t| super::layout::render(t, value, &self.indent));
        if let Some(mut s) = edited {
            if self.trailing_newline {
                s.push('\n');
            }
            return s;
        }
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        // Serializing a Value into a Vec cannot fail.
        let _ = value.serialize(&mut ser);
        let mut s = String::from_utf8_lossy(&buf).into_owned();
        if self.trailing_newline {
            s.push('\n');
        }
        s
    }
}

pub fn shape_error(path: &Path, what: &str) -> CliError {
    CliError::new(format!(
        "{}: {what}, so oath cannot merge its hooks safely",
        path.display()
    ))
    .hint("fix that part of the file by hand (see Claude Code's hooks documentation); oath did not change it")
}

/// One event oath registers for: its name, the matcher of its group (`None`: no matcher) and
/// the handler's timeout, in the client's unit.
pub type EventSpec = (&'static str, Option<&'static str>, u64);

/// Checks the shape of every part of a Claude Code settings file oath may touch.
pub fn check_shape(path: &Path, root: &Value) -> Result<()> {
    check_events_shape(path, root, EVENTS)
}

/// Checks the shape of the `hooks` object's parts for `events` (Claude Code's shape, which
/// Codex CLI and Gemini CLI share).
pub fn check_events_shape(path: &Path, root: &Value, events: &[EventSpec]) -> Result<()> {
    let Some(hooks) = root.get("hooks") else {
        return Ok(());
    };
    let Some(hooks) = hooks.as_object() else {
        return Err(shape_error(path, "`hooks` is not an object"));
    };
    for (event, _, _) in events {
        let Some(groups) = hooks.get(*event) else {
            continue;
        };
        let Some(groups) = groups.as_array() else {
            return Err(shape_error(
                path,
                &format!("`hooks.{event}` is not an array"),
            ));
        };
        for (i, g) in groups.iter().enumerate() {
            match g.get("hooks") {
                Some(Value::Array(_)) => {}
                Some(_) => {
                    return Err(shape_error(
                        path,
                        &format!("`hooks.{event}[{i}].hooks` is not an array"),
                    ));
                }
                None if g.is_object() => {}
                None => {
                    return Err(shape_error(
                        path,
                        &format!("`hooks.{event}[{i}]` is not an object"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merge {
    /// Events where a handler was added.
    pub added: Vec<String>,
    /// Events where an existing oath handler was replaced (another path, form or timeout).
    pub updated: Vec<String>,
    /// Whether the `hooks` object was created.
    pub created_hooks: bool,
    /// Event arrays created.
    pub created_events: Vec<String>,
}

impl Merge {
    /// Returns whether anything changed.
    pub fn changed(&self) -> bool {
        !self.added.is_empty() || !self.updated.is_empty()
    }
}

/// Merges oath's handlers into a settings object (shape checked by the caller).
///
/// `exe` is registered; handlers for any of `known` (earlier registrations) are replaced in
/// place, so an upgrade keeps their position; duplicates beyond the first are removed.
pub fn merge_hooks(root: &mut Value, exe: &str, form: Form, known: &[String]) -> Merge {
    let mut all: Vec<String> = known.to_vec();
    all.push(exe.to_owned());
    merge_events(
        root,
        EVENTS,
        |timeout| handler(exe, form, timeout),
        |h| is_oath_handler(h, &all),
    )
}

/// Merges one handler per event of `events` (`want` makes it from the timeout) into a
/// settings object whose shape the caller checked: the first handler `is_ours` of an event
/// is replaced in place, the others of oath removed, and a group is added where there is none.
pub fn merge_events(
    root: &mut Value,
    events: &[EventSpec],
    want: impl Fn(u64) -> Value,
    is_ours: impl Fn(&Value) -> bool,
) -> Merge {
    let mut m = Merge::default();
    let Some(obj) = root.as_object_mut() else {
        return m;
    };
    if !obj.contains_key("hooks") {
        obj.insert("hooks".into(), Value::Object(Map::new()));
        m.created_hooks = true;
    }
    let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) else {
        return m;
    };
    for (event, matcher, timeout) in events {
        let want = want(*timeout);
        if !hooks.contains_key(*event) {
            hooks.insert((*event).into(), Value::Array(Vec::new()));
            m.created_events.push((*event).into());
        }
        let Some(groups) = hooks.get_mut(*event).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut found = 0usize;
        let mut changed = false;
        for g in groups.iter_mut() {
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            let mut i = 0;
            while i < hs.len() {
                if is_ours(&hs[i]) {
                    found += 1;
                    if found == 1 {
                        if hs[i] != want {
                            hs[i] = want.clone();
                            changed = true;
                        }
                        i += 1;
                    } else {
                        hs.remove(i);
                        changed = true;
                    }
                } else {
                    i += 1;
                }
            }
        }
        if found == 0 {
            let mut group = Map::new();
            if let Some(mt) = matcher {
                group.insert("matcher".into(), json!(mt));
            }
            group.insert("hooks".into(), json!([want]));
            groups.push(Value::Object(group));
            m.added.push((*event).into());
        } else if changed {
            groups.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
            m.updated.push((*event).into());
        }
    }
    m
}

/// The events `oath install --export` adds `oath export otlp --project --hook` to, as an async
/// handler: Stop (each turn's end) and SessionEnd. 15 s: the request's default 10 s and the
/// start; async, it holds nothing up, and a kill at `-p` teardown loses nothing (the cursor
/// moves only once the collector accepted a batch).
pub const EXPORT_EVENTS: &[EventSpec] = &[("Stop", None, 15), ("SessionEnd", None, 15)];

/// The arguments of the export handler.
const EXPORT_ARGS: [&str; 4] = ["export", "otlp", "--project", "--hook"];

/// Returns the export handler for one event.
pub fn export_handler(exe: &str, form: Form, timeout: u64) -> Value {
    match form {
        Form::Exec => json!({"type": "command", "command": exe, "args": EXPORT_ARGS,
                             "async": true, "timeout": timeout}),
        Form::Shell => json!({"type": "command",
                              "command": format!("{} {}", shell_quote(exe), EXPORT_ARGS.join(" ")),
                              "async": true, "timeout": timeout}),
    }
}

/// Returns whether a handler is oath's export handler, registered for one of `exes`.
pub fn is_export_handler(h: &Value, exes: &[String]) -> bool {
    let Some(obj) = h.as_object() else {
        return false;
    };
    let Some(cmd) = obj.get("command").and_then(Value::as_str) else {
        return false;
    };
    if obj.get("type").and_then(Value::as_str) != Some("command") {
        return false;
    }
    match obj.get("args") {
        Some(args) => args == &json!(EXPORT_ARGS) && exes.iter().any(|e| e == cmd),
        None => cmd
            .strip_suffix(&format!(" {}", EXPORT_ARGS.join(" ")))
            .map(unquote)
            .is_some_and(|b| exes.contains(&b)),
    }
}

/// Merges the export handlers (`oath install --export`), as [`merge_hooks`] does oath's.
pub fn merge_export(root: &mut Value, exe: &str, form: Form, known: &[String]) -> Merge {
    let mut all: Vec<String> = known.to_vec();
    all.push(exe.to_owned());
    merge_events(
        root,
        EXPORT_EVENTS,
        |timeout| export_handler(exe, form, timeout),
        |h| is_export_handler(h, &all),
    )
}

/// Removes the export handlers, as [`remove_hooks`] does oath's.
pub fn remove_export(root: &mut Value, exes: &[String], manifest: Option<&Manifest>) -> Removal {
    remove_events(
        root,
        EXPORT_EVENTS,
        |h| is_export_handler(h, exes),
        manifest,
    )
}

/// What a removal did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Removal {
    /// Handlers removed.
    pub handlers: usize,
}

/// Removes oath's handlers (for any of `exes`) from a settings object. Groups left empty are
/// dropped (they held only oath's handler); event arrays and the `hooks` object only when they
/// became empty and are listed as created by install.
pub fn remove_hooks(root: &mut Value, exes: &[String], manifest: Option<&Manifest>) -> Removal {
    remove_events(root, EVENTS, |h| is_oath_handler(h, exes), manifest)
}

/// Removes the handlers `is_ours` from the events of `events`, as [`remove_hooks`] does.
pub fn remove_events(
    root: &mut Value,
    events: &[EventSpec],
    is_ours: impl Fn(&Value) -> bool,
    manifest: Option<&Manifest>,
) -> Removal {
    let mut r = Removal::default();
    let Some(obj) = root.as_object_mut() else {
        return r;
    };
    let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) else {
        return r;
    };
    for (event, _, _) in events {
        let Some(groups) = hooks.get_mut(*event).and_then(Value::as_array_mut) else {
            continue;
        };
        let before_groups = groups.len();
        let mut touched = false;
        for g in groups.iter_mut() {
            if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = hs.len();
                hs.retain(|h| !is_ours(h));
                if hs.len() != n {
                    r.handlers += n - hs.len();
                    touched = true;
                }
            }
        }
        if touched {
            groups.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
        }
        let created = manifest.is_some_and(|m| m.created_events.iter().any(|e| e == event));
        if groups.is_empty() && created && (touched || before_groups == 0) {
            hooks.remove(*event);
        }
    }
    if hooks.is_empty() && manifest.is_some_and(|m| m.created_hooks) {
        obj.remove("hooks");
    }
    r
}

/// Returns a unified diff of a settings file's change (two lines of context), as `diff -u`
/// prints it.
pub fn diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(&name, &name)
        .to_string()
}
