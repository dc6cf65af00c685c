//! Per-tool classification: Bash and Monitor through the shell parser, file tools by path,
//! web tools by URL, MCP tools by server and verb (their statements by the one SQL judge),
//! subagents and meta tools by name. Each tool's effects are described here and judged by the
//! policy ([`super::policy`]).

use serde_json::Value;

use super::effect::{Effect, Exposed, Fetch, McpUse, ToolUse};
use super::pack::schema::PathNote;
use super::paths;
use super::policy::{self, Said};
use super::powershell::powershell_finding;
use super::rule::{Finding, Findings};
use super::url::{is_loopback_url, is_metadata_url, is_payment_url, url_host};
use super::walker;
use super::{Classification, Context, Kind, Risk};

mod statements;

use statements::{database_server, statements};

fn one(text: &str, f: Finding) -> Classification {
    let mut out = Findings::default();
    out.push(text, f);
    out.into_classification()
}

/// Returns the policy's finding for what a tool does; `who` names the tool.
fn judge(effect: &Effect, who: &str, ctx: &Context) -> Finding {
    policy::finding(effect, Said::by(who), ctx)
}

/// Returns the policy's finding for a path effect of a tool (`verb`: what it does to it).
fn judge_path(effect: &Effect, verb: &str, ctx: &Context) -> Finding {
    let said = Said {
        verb,
        ..Said::by("")
    };
    policy::finding(effect, said, ctx)
}

fn str_field<'v>(input: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// Classifies a call by tool.
pub(super) fn classify_tool(tool_name: &str, input: &Value, ctx: &Context) -> Classification {
    match tool_name {
        "Bash" | "Monitor" => match str_field(input, &["command"]) {
            Some(cmd) => walker::classify_line(cmd, ctx),
            None if tool_name == "Monitor" && input.get("ws").is_some() => one(
                "Monitor ws",
                judge(&Effect::Tool(ToolUse::Websocket), tool_name, ctx),
            ),
            None => one(
                tool_name,
                judge(
                    &Effect::Tool(ToolUse::Missing { path: false }),
                    tool_name,
                    ctx,
                ),
            ),
        },
        "PowerShell" => {
            let cmd = str_field(input, &["command"]).unwrap_or("");
            one(cmd, powershell_finding(cmd))
        }
        "Read" | "NotebookRead" | "LS" => {
            let path = str_field(input, &["file_path", "notebook_path", "path"]);
            file_read(tool_name, path, ctx)
        }
        "Glob" | "Grep" => {
            let path = str_field(input, &["path"]);
            let mut c = file_read(tool_name, path, ctx);
            // A Grep printing the lines it finds in every file of a folder that holds
            // credentials (the home, /etc, ~/.config) reads them, as `grep -r` does; one
            // kept to some files (`glob`, `type`) or printing names or counts reads none.
            if tool_name == "Grep"
                && str_field(input, &["output_mode"]) == Some("content")
                && str_field(input, &["glob", "type"]).is_none()
            {
                let t = match path {
                    Some(p) => paths::target(paths::resolve(p, false, Some(ctx.cwd()), ctx), ctx),
                    None => paths::target(Some(ctx.cwd().to_path_buf()), ctx),
                };
                if let Some(place) = paths::tree_credentials(&t, true, ctx) {
                    let t = paths::as_holding(t, &place);
                    let f = judge_path(&Effect::Read(t), "searches and prints the lines of", ctx);
                    if (c.kind, c.risk) < (f.kind, f.risk) {
                        c = one(&format!("{tool_name} {}", path.unwrap_or(".")), f);
                    }
                }
            }
            let pattern = if tool_name == "Glob" {
                str_field(input, &["pattern"])
            } else {
                str_field(input, &["glob"])
            };
            if let Some(p) = pattern {
                let last = p.rsplit('/').next().unwrap_or(p);
                let name_secret = paths::credential_name(last.trim_start_matches("**"))
                    || last.starts_with(".env") && !last.contains("example")
                    || p.contains(".ssh/")
                    || p.contains(".aws/");
                if name_secret {
                    let looks = ToolUse::FindCredentials {
                        pattern: p.to_owned(),
                        contents: tool_name == "Grep",
                        // Claude Code's Grep lists the matching files unless asked for
                        // `content` (lines) or a `count`.
                        prints: tool_name == "Grep"
                            && str_field(input, &["output_mode"]) == Some("content"),
                    };
                    let f = judge(&Effect::Tool(looks), tool_name, ctx);
                    // The worse of the two readings stands (the path's, when as bad).
                    if (c.kind, c.risk) < (f.kind, f.risk) {
                        c = one(&format!("{tool_name} {p}"), f);
                    }
                }
            }
            c
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            let keys: &[&str] = if tool_name == "NotebookEdit" {
                &["notebook_path", "file_path"]
            } else {
                &["file_path", "notebook_path"]
            };
            let Some(path) = str_field(input, keys) else {
                return one(
                    tool_name,
                    judge(
                        &Effect::Tool(ToolUse::Missing { path: true }),
                        tool_name,
                        ctx,
                    ),
                );
            };
            let t = paths::target(paths::resolve(path, false, Some(ctx.cwd()), ctx), ctx);
            let verb = match tool_name {
                "Write" => "writes",
                "NotebookEdit" => "edits the notebook",
                _ => "edits",
            };
            let f = judge_path(&Effect::Edit(t), verb, ctx);
            one(&format!("{tool_name} {path}"), f)
        }
        "WebFetch" => {
            let url = str_field(input, &["url"]).unwrap_or("");
            let f = judge(&Effect::Tool(ToolUse::Fetch(fetch(url))), tool_name, ctx);
            one(&format!("WebFetch {url}"), f)
        }
        "WebSearch" => {
            let q = str_field(input, &["query"]).unwrap_or("");
            let search = ToolUse::Search {
                secret: carries_secret(q),
            };
            let f = judge(&Effect::Tool(search), tool_name, ctx);
            one(&format!("WebSearch {q}"), f)
        }
        "Agent" | "Task" => {
            let what = str_field(input, &["description", "subagent_type"]).unwrap_or("");
            let remote = input.get("isolation").and_then(Value::as_str) == Some("remote");
            let f = judge(&Effect::Tool(ToolUse::Subagent { remote }), tool_name, ctx);
            one(&format!("{tool_name} {what}"), f)
        }
        "TodoWrite"
        | "TodoRead"
        | "AskUserQuestion"
        | "ExitPlanMode"
        | "EnterPlanMode"
        | "TaskCreate"
        | "TaskGet"
        | "TaskList"
        | "TaskUpdate"
        | "TaskOutput"
        | "TaskStop"
        | "BashOutput"
        | "KillShell"
        | "KillBash"
        | "SendMessage"
        | "ToolSearch"
        | "WaitForMcpServers"
        | "ListMcpResourcesTool"
        | "ReadMcpResourceTool"
        | "LSP"
        | "StructuredOutput"
        | "CronList"
        | "EnterWorktree"
        | "ExitWorktree" => one(
            tool_name,
            judge(&Effect::Tool(ToolUse::Organise), tool_name, ctx),
        ),
        "Skill" | "SlashCommand" | "CronCreate" | "CronDelete" | "Workflow" => one(
            tool_name,
            judge(&Effect::Tool(ToolUse::Schedule), tool_name, ctx),
        ),
        _ if tool_name.starts_with("mcp__") => mcp(tool_name, input, ctx),
        _ => one(
            tool_name,
            judge(&Effect::Tool(ToolUse::Unknown), tool_name, ctx),
        ),
    }
}

fn file_read(tool: &str, path: Option<&str>, ctx: &Context) -> Classification {
    let shown = path.unwrap_or(".");
    let t = match path {
        Some(p) => paths::target(paths::resolve(p, false, Some(ctx.cwd()), ctx), ctx),
        None => paths::target(Some(ctx.cwd().to_path_buf()), ctx),
    };
    let t = paths::through_read_links(t, ctx);
    one(
        &format!("{tool} {shown}"),
        judge_path(&Effect::Read(t), "reads", ctx),
    )
}

/// Returns whether text carries a credential (a known token format, a `password=…`
/// assignment, user:password in a URL): what redaction would mask.
fn carries_secret(text: &str) -> bool {
    matches!(crate::redact::redact_str(text), std::borrow::Cow::Owned(_))
        || url_userinfo_has_password(text)
}

fn url_userinfo_has_password(u: &str) -> bool {
    let Some(i) = u.find("://") else {
        return false;
    };
    let rest = &u[i + 3..];
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// Returns what a URL a tool fetches is, as its text tells.
fn fetch(url: &str) -> Fetch {
    let lower = url.to_ascii_lowercase();
    Fetch {
        host: url_host(url),
        shown: url.chars().take(40).collect(),
        secret: carries_secret(url),
        metadata: is_metadata_url(url),
        http: lower.starts_with("http://") || lower.starts_with("https://"),
        loopback: is_loopback_url(url),
        payment: is_payment_url(url) && url.contains('?'),
    }
}

/// Splits a tool name into lowercase words (`delete_repository`, `deleteRepo`, `drop-table`).
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' || c == ' ' {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn mcp(tool_name: &str, input: &Value, ctx: &Context) -> Classification {
    let rest = &tool_name["mcp__".len()..];
    let (server, tool) = match rest.rfind("__") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (rest, ""),
    };
    let server = server.strip_prefix("plugin_").unwrap_or(server);
    let words = name_words(tool);
    let verb = words.first().map(String::as_str).unwrap_or("");
    let any = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    const READ: &[&str] = &[
        "get",
        "list",
        "read",
        "search",
        "find",
        "query",
        "fetch",
        "view",
        "show",
        "describe",
        "status",
        "lookup",
        "count",
        "check",
        "info",
        "diff",
        "log",
        "logs",
        "browse",
        "inspect",
        "explain",
        "resolve",
        "retrieve",
        "snapshot",
        "screenshot",
        "take",
        "analyze",
        "summarize",
        "validate",
        "ping",
        "health",
        "whoami",
        "me",
        "current",
        "recent",
        "stats",
        "preview",
        "ls",
        "cat",
        "head",
        "tail",
        "grep",
        "load",
        "select",
        "lint",
        "test",
        "wait",
        "hover",
        "console",
        "network",
        "evaluate",
        "compare",
        "suggest",
        "recommend",
        "estimate",
    ];
    const DESTROY: &[&str] = &[
        "delete",
        "drop",
        "destroy",
        "remove",
        "purge",
        "truncate",
        "wipe",
        "erase",
        "kill",
        "terminate",
        "revoke",
        "reset",
        "force",
        "uninstall",
        "rm",
        "clear",
        "archive",
        "ban",
        "disable",
        "cancel",
        "close",
        "unpublish",
        "rollback",
        "revert",
        "overwrite",
        "flush",
    ];
    const MONEY: &[&str] = &[
        "pay", "payment", "transfer", "withdraw", "trade", "buy", "sell", "purchase", "charge",
        "refund", "payout", "checkout", "swap", "bid",
    ];
    // The words of a database tool that runs the statements it is given.
    const RUNS_STATEMENTS: &[&str] = &["execute", "exec", "run", "sql", "command"];
    const EXEC: &[&str] = &[
        "execute", "exec", "run", "shell", "terminal", "command", "eval", "script", "spawn",
        "process", "sql", "deploy", "install",
    ];
    let text = tool_name.to_owned();
    let who = format!("{server} {tool}");
    let mut out = Findings::default();
    let (judged, consumed) = statements(server, tool, &words, input, ctx, &mut out);
    let reads_only = READ.contains(&verb) && !any(DESTROY);
    mcp_arguments(server, tool, &words, reads_only, input, ctx, &mut out);
    let uses = if READ.contains(&verb) && !any(DESTROY) {
        McpUse::Read
    } else if (any(MONEY) || any(&["order", "orders"]) && any(&["place", "submit", "execute"]))
        && !READ.contains(&verb)
    {
        McpUse::Money
    } else if any(&["order", "orders", "invoice"]) {
        McpUse::Order
    } else if any(DESTROY) {
        McpUse::Destroy
    } else if judged.is_some()
        && any(EXEC)
        && database_server(server, &words)
        && words
            .iter()
            .all(|w| !EXEC.contains(&w.as_str()) || RUNS_STATEMENTS.contains(&w.as_str()))
        && (consumed || input.get("command").and_then(Value::as_str).is_none())
    {
        // A database's tool that runs the statements it is given (`execute_sql`) does what
        // they do, judged above: the tool itself adds a read.
        McpUse::Read
    } else if any(EXEC) {
        let command = input.get("command").and_then(Value::as_str);
        // A database's command (`FLUSHDB`) was judged as a statement; any other is shell.
        if let Some(cmd) = command
            && !consumed
        {
            let inner = walker::classify_line(cmd, ctx);
            out.tainted.extend(inner.tainted.iter().cloned());
            for p in &inner.parts {
                let mut f = policy::carried(
                    p.domain,
                    p.risk,
                    p.kind,
                    "mcp-command",
                    format!("{} (through {server})", p.reason),
                );
                f.effect.clone_from(&p.effect);
                f.source.clone_from(&p.source);
                out.push(&p.text, f);
            }
        }
        McpUse::Exec {
            command: command.is_some(),
        }
    } else {
        McpUse::Change
    };
    out.push(&text, judge(&Effect::Mcp(uses), &who, ctx));
    out.into_classification()
}

/// Keys whose strings are paths (compared in lower case; camelCase and snake_case alike):
/// a string there is a path even without a slash (`{"path": ".env"}`).
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "file_path",
    "filepath",
    "file_paths",
    "filepaths",
    "file",
    "files",
    "filename",
    "filenames",
    "source",
    "sources",
    "src",
    "destination",
    "dest",
    "dst",
    "target",
    "targets",
    "dir",
    "directory",
    "folder",
    "new_path",
    "newpath",
    "old_path",
    "oldpath",
    "from",
    "to",
    "input",
    "output",
    "location",
    "cwd",
    "root",
    "workdir",
    "working_directory",
];

/// Keys whose strings are content, not paths (what a tool writes, sends or searches for).
const CONTENT_KEYS: &[&str] = &[
    "content",
    "contents",
    "text",
    "body",
    "message",
    "messages",
    "description",
    "new_string",
    "old_string",
    "new_text",
    "old_text",
    "newtext",
    "oldtext",
    "newstring",
    "oldstring",
    "comment",
    "title",
    "prompt",
    "instructions",
    "summary",
    "note",
    "notes",
    "diff",
    "patch",
    "command",
    "code",
    "script",
    "query",
    "sql",
    "statement",
    "statements",
];

/// Keys whose strings are hosts a tool connects to.
const HOST_KEYS: &[&str] = &["host", "hostname", "address", "server", "ip", "endpoint"];

/// At most this many strings of a tool's input are read, and this many bytes of them
/// (content excepted); past either, the rest is not understood.
const MAX_STRINGS: usize = 256;
const MAX_STRING_BYTES: usize = 64 * 1024;
const MAX_DEPTH: usize = 32;

/// The strings of a tool's input, each with the key it is under (an array's items under the
/// array's key).
#[derive(Default)]
struct Strings<'v> {
    /// (key, string, under a content key).
    items: Vec<(&'v str, &'v str, bool)>,
    bytes: usize,
    /// Some were left unread.
    overflow: bool,
}

fn collect_strings<'v>(
    v: &'v Value,
    key: &'v str,
    content: bool,
    depth: usize,
    out: &mut Strings<'v>,
) {
    if depth > MAX_DEPTH {
        out.overflow = true;
        return;
    }
    match v {
        Value::String(s) => {
            if out.items.len() >= MAX_STRINGS || !content && out.bytes + s.len() > MAX_STRING_BYTES
            {
                out.overflow = true;
                return;
            }
            if !content {
                out.bytes += s.len();
            }
            out.items.push((key, s, content));
        }
        Value::Array(a) => {
            for x in a {
                collect_strings(x, key, content, depth + 1, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let lower = k.to_ascii_lowercase();
                let c = content || CONTENT_KEYS.contains(&lower.as_str());
                collect_strings(x, k, c, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Returns whether a key names paths: one of [`PATH_KEYS`], or a name ending in one
/// (`sourcePath`, `input_files`, `logDir`).
fn path_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    PATH_KEYS.contains(&k.as_str())
        || [
            "path",
            "paths",
            "file",
            "files",
            "dir",
            "directory",
            "folder",
            "filename",
        ]
        .iter()
        .any(|e| k.ends_with(e))
}

/// Returns whether a key names where a tool puts something (`dest`, `outputPath`).
fn destination_key(k: &str) -> bool {
    [
        "dest",
        "destination",
        "dst",
        "output",
        "outpath",
        "outfile",
        "savepath",
        "save_path",
    ]
    .iter()
    .any(|e| k.ends_with(e))
        || k.starts_with("output")
        || k.starts_with("dest")
}

/// Returns the path a string of a tool's input names, when it looks like one: under a path
/// key anything but text of several lines; elsewhere `/…`, `~…`, `./…`, `../…`, `file://…`,
/// a word with a slash that resolves inside the project or the home, or a file name
/// (`.oath.yaml`, `settings.json`: with a dot and no space) naming a path oath protects or a
/// folder that holds one.
fn path_in(s: &str, key: &str, ctx: &Context) -> Option<paths::Target> {
    if s.is_empty() || s.len() > 4096 || s.contains(['\n', '\0']) {
        return None;
    }
    let s = s.strip_prefix("file://").unwrap_or(s);
    let resolve = |p: &str| paths::target(paths::resolve(p, false, Some(ctx.cwd()), ctx), ctx);
    if path_key(key) && !s.contains("://")
        || s.starts_with(['/', '~'])
        || s.starts_with("./")
        || s.starts_with("../")
    {
        return Some(resolve(s));
    }
    if s.contains("://") || s.contains(char::is_whitespace) {
        return None;
    }
    if s.contains('/') {
        let t = resolve(s);
        if t.in_project() || matches!(t.zone, paths::Zone::Home | paths::Zone::HomeTop) {
            return Some(t);
        }
    }
    let t = resolve(s);
    (s.contains('.') && (t.protected || t.holds_protected && t.in_project())).then_some(t)
}

/// Describes an MCP tool's arguments by what they are, wherever they are in its input: paths
/// a filesystem server writes, deletes or reads (whatever their key, in nested objects and
/// arrays too), the cloud metadata service, and credentials sent away (statements:
/// [`statements`]).
fn mcp_arguments(
    server: &str,
    tool: &str,
    words: &[String],
    reads_only: bool,
    input: &Value,
    ctx: &Context,
    out: &mut Findings,
) {
    if !input.is_object() {
        return;
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let sends = has(&[
        "fetch", "post", "send", "request", "http", "search", "upload", "publish", "create",
        "comment", "message", "email", "webhook", "put", "patch",
    ]);
    let deletes = has(&[
        "delete", "remove", "rm", "unlink", "destroy", "purge", "trash",
    ]);
    let moves = has(&["move", "rename", "mv"]);
    let writes = has(&[
        "write", "create", "edit", "save", "put", "append", "copy", "cp", "mkdir", "replace",
        "update", "set",
    ]);
    // Writing, saving or copying a file replaces what it held (an MCP server keeps no
    // checkpoint of it): judged as deleting it. Edits and appends keep it.
    let overwrites = has(&["write", "save", "put", "copy", "cp"])
        && !has(&["edit", "append", "update", "replace", "patch"]);
    // Of a path oath protects, more names say a change (`insert_after_symbol`, `download`).
    const CHANGES: &[&str] = &[
        "insert",
        "patch",
        "apply",
        "download",
        "export",
        "overwrite",
        "modify",
        "touch",
        "chmod",
        "chown",
        "link",
        "symlink",
        "format",
        "restore",
        "checkout",
        "extract",
        "upsert",
        "generate",
    ];
    let changes = writes || has(CHANGES);
    let text = format!("mcp__{server}__{tool}");
    let who = format!("{server} {tool}");
    let mut strings = Strings::default();
    collect_strings(input, "", false, 0, &mut strings);
    let mut sent_secret = false;
    let mut metadata = false;
    for &(key, s, content) in &strings.items {
        if sends && !sent_secret && carries_secret(s) {
            sent_secret = true;
            let f = judge(&Effect::Mcp(McpUse::SendsSecret(key.to_owned())), &who, ctx);
            out.push(&text, f);
        }
        if content {
            continue;
        }
        let host_key = HOST_KEYS.contains(&key.to_ascii_lowercase().as_str());
        let url_like = s.contains("://") && !s.contains(char::is_whitespace);
        if !metadata
            && (url_like && is_metadata_url(s) || host_key && super::url::is_metadata_host(s))
        {
            metadata = true;
            let f = judge_path(&Effect::Metadata, &format!("{who} reaches"), ctx);
            out.push(&text, f);
        }
        let Some(t) = path_in(s, key, ctx) else {
            continue;
        };
        let k = key.to_ascii_lowercase();
        let source_side = matches!(
            k.as_str(),
            "source" | "sources" | "src" | "from" | "old_path" | "oldpath"
        ) || k.starts_with("source")
            || k.starts_with("old");
        // A path oath protects (or a folder of the project that holds one), whatever key it
        // is under: what the tool does to it is judged as a file tool's would be; a tool
        // whose name does not say it only reads, or changes, is asked about it.
        let guarded = t.protected || t.holds_protected && t.in_project();
        let into = destination_key(&k);
        let f = if guarded && !(deletes || moves || changes || into || reads_only) {
            judge_path(&Effect::Exposes(Exposed::Protected(t)), &who, ctx)
        } else if deletes || moves && source_side {
            let effect = Effect::Delete {
                target: t,
                recursive: true,
                note: None,
            };
            judge_path(&effect, &format!("{who} deletes"), ctx)
        } else if writes || moves || guarded && (changes || into) {
            let note = (overwrites && !source_side).then_some(PathNote::Overwrites);
            judge_path(&Effect::Write(t, note), &format!("{who} writes"), ctx)
        } else {
            let t = paths::through_read_links(t, ctx);
            judge_path(&Effect::Read(t), &format!("{who} reads"), ctx)
        };
        // Under a path key every path is said (as before); elsewhere only what matters.
        if path_key(key) || f.risk >= Risk::High || f.kind >= Kind::Irreversible {
            out.push(&text, f);
        }
    }
    if strings.overflow {
        let unread = McpUse::Unread {
            strings: MAX_STRINGS,
            kib: MAX_STRING_BYTES / 1024,
            depth: MAX_DEPTH,
        };
        out.push(&text, judge(&Effect::Mcp(unread), &who, ctx));
    }
}
