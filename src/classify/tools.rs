//! Per-tool classification: Bash and Monitor through the shell parser, file tools by path,
//! web tools by URL, MCP tools by server and verb (their statements by the one SQL judge),
//! subagents and meta tools by name. Each tool's effects are described here and judged by the
//! policy ([`super::policy`]).

use serde_json::Value;

use super::effect::{Effect, Fetch, McpUse, ToolUse};
use super::pack::schema::PathNote;
use super::paths;
use super::policy::{self, Said};
use super::powershell::powershell_finding;
use super::rule::{Finding, Findings};
use super::sql::{self, Sql};
use super::url::{is_loopback_url, is_metadata_url, is_payment_url, url_host};
use super::walker;
use super::{Classification, Context, Kind, Risk};

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
    const EXEC: &[&str] = &[
        "execute", "exec", "run", "shell", "terminal", "command", "eval", "script", "spawn",
        "process", "sql", "deploy", "install",
    ];
    let text = tool_name.to_owned();
    let who = format!("{server} {tool}");
    let mut out = Findings::default();
    let consumed = statements(server, tool, &words, input, ctx, &mut out);
    mcp_arguments(server, tool, &words, input, ctx, &mut out);
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

/// Words of a server's or a tool's name that say it is a database's.
const DATABASES: &[&str] = &[
    "postgres",
    "postgresql",
    "pg",
    "psql",
    "mysql",
    "mariadb",
    "sqlite",
    "sqlite3",
    "redis",
    "valkey",
    "memcached",
    "mongo",
    "mongodb",
    "mongosh",
    "duckdb",
    "motherduck",
    "clickhouse",
    "mssql",
    "sqlserver",
    "oracle",
    "snowflake",
    "bigquery",
    "supabase",
    "neon",
    "cockroach",
    "cockroachdb",
    "cassandra",
    "turso",
    "libsql",
    "database",
    "databases",
    "db",
    "dbhub",
    "sql",
];

/// Returns whether an MCP server is a database's: a word of its name like `postgres`,
/// `redis`, `db`, or one ending in `sql` or `db` (`mysql`, `duckdb`); or its tool runs SQL
/// (`execute_sql`). A tool's other words do not count (Notion's `query_database` reads
/// pages).
fn database_server(server: &str, tool_words: &[String]) -> bool {
    name_words(server).iter().any(|w| {
        DATABASES.contains(&w.as_str()) || w.ends_with("sql") || w.len() > 2 && w.ends_with("db")
    }) || tool_words.iter().any(|w| w.ends_with("sql"))
}

/// Keys whose strings are statements for any server.
const SQL_KEYS: &[&str] = &["sql"];

/// Keys whose strings are statements for a database's server, and for others when they
/// read as statements (a search's `query` of words, a GraphQL `query`, are not).
const STATEMENT_KEYS: &[&str] = &["query", "queries", "statement", "statements"];

/// Keys whose strings are a database's commands when the server is one and they read as
/// statements (`{"command": "FLUSHDB"}`); elsewhere, or otherwise, a command is shell.
const COMMAND_KEYS: &[&str] = &["command", "commands", "cmd"];

/// Judges the statements an MCP tool's input carries (its top-level `sql`, `query` …
/// strings or arrays of them, as [`SQL_KEYS`], [`STATEMENT_KEYS`] and [`COMMAND_KEYS`] say) by the
/// one SQL judge ([`sql::judge`], as the shell clients' statements are), and pushes the act
/// the worst of them is ([`sql::act`]) unless it only reads. Returns whether the `command`
/// was taken as a statement.
fn statements(
    server: &str,
    tool: &str,
    words: &[String],
    input: &Value,
    ctx: &Context,
    out: &mut Findings,
) -> bool {
    let Some(map) = input.as_object() else {
        return false;
    };
    let database = database_server(server, words);
    let mut worst: Option<Sql> = None;
    let mut consumed = false;
    for (key, value) in map {
        let k = key.to_ascii_lowercase();
        let texts: Vec<&str> = match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        let key = k.as_str();
        let read_as = |t: &str| {
            SQL_KEYS.contains(&key)
                || STATEMENT_KEYS.contains(&key) && (database || sql::looks_like(t))
                || COMMAND_KEYS.contains(&key) && database && sql::looks_like(t)
        };
        for t in texts.into_iter().filter(|t| read_as(t)) {
            worst = worst.max(Some(sql::judge(t)));
            consumed |= k == "command";
        }
    }
    if let Some(v) = worst
        && v != Sql::Read
    {
        // A statement that only reads adds nothing to what the tool's name says.
        let (act, id, explain) = sql::act(v, &format!("{server} {tool}"));
        let said = Said {
            id,
            explain: &explain,
            verb: "",
            safer: None,
        };
        let f = policy::finding(&Effect::Act(act), said, ctx);
        out.push(&format!("mcp__{server}__{tool}"), f);
    }
    consumed
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

/// Returns the path a string of a tool's input names, when it looks like one: under a path
/// key anything but text of several lines; elsewhere `/…`, `~…`, `./…`, `../…`, `file://…`,
/// or a word with a slash that resolves inside the project or the home.
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
    if s.contains('/') && !s.contains("://") && !s.contains(char::is_whitespace) {
        let t = resolve(s);
        if t.in_project() || matches!(t.zone, paths::Zone::Home | paths::Zone::HomeTop) {
            return Some(t);
        }
    }
    None
}

/// Describes an MCP tool's arguments by what they are, wherever they are in its input: paths
/// a filesystem server writes, deletes or reads (whatever their key, in nested objects and
/// arrays too), the cloud metadata service, and credentials sent away (statements:
/// [`statements`]).
fn mcp_arguments(
    server: &str,
    tool: &str,
    words: &[String],
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
        let f = if deletes || moves && source_side {
            let effect = Effect::Delete {
                target: t,
                recursive: true,
                note: None,
            };
            judge_path(&effect, &format!("{who} deletes"), ctx)
        } else if writes || moves {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::super::Domain;
    use super::*;

    fn ctx() -> Context {
        let root = Path::new("/home/dev/project");
        Context::new(root, root, Some(Path::new("/home/dev")), [])
    }

    fn verdict(c: &Classification) -> (Domain, Risk, Kind, &str) {
        (c.domain, c.risk, c.kind, c.rule.as_str())
    }

    #[test]
    fn a_statement_through_mcp_is_judged_as_through_its_client() {
        for (tool, input, shell) in [
            (
                "mcp__redis__query",
                json!({"query": "FLUSHDB"}),
                "redis-cli FLUSHDB",
            ),
            (
                "mcp__redis__execute_command",
                json!({"command": "FLUSHALL"}),
                "redis-cli FLUSHALL",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "DROP TABLE t"}),
                "psql -c 'DROP TABLE t'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "DROP/**/TABLE t"}),
                "psql -c 'DROP/**/TABLE t'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "UPDATE users SET admin = true"}),
                "psql -c 'UPDATE users SET admin = true'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "INSERT INTO t VALUES (1)"}),
                "psql -c 'INSERT INTO t VALUES (1)'",
            ),
            (
                "mcp__sqlite__read_query",
                json!({"query": "SELECT load_extension('/tmp/x.so')"}),
                "sqlite3 app.db \"SELECT load_extension('/tmp/x.so')\"",
            ),
            (
                "mcp__mongodb__run",
                json!({"statements": ["db.users.find({})", "db.users.drop()"]}),
                "mongosh --eval 'db.users.drop()'",
            ),
        ] {
            let ctx = ctx();
            let mcp = classify_tool(tool, &input, &ctx);
            let sh = classify_tool("Bash", &json!({ "command": shell }), &ctx);
            assert_eq!(verdict(&mcp), verdict(&sh), "{tool} {input} / {shell}");
            assert_ne!(mcp.domain, Domain::Mcp, "{tool} {input}");
        }
    }

    #[test]
    fn queries_that_only_read_keep_the_tool_s_own_verdict() {
        for (tool, input, rule, risk) in [
            (
                "mcp__postgres__query",
                json!({"sql": "select 1"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__redis__query",
                json!({"query": "GET k"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "WITH x AS (SELECT 1) SELECT * FROM x"}),
                "mcp-read",
                Risk::Low,
            ),
            // Words and GraphQL are not statements, whatever the key.
            (
                "mcp__exa__search",
                json!({"query": "rust hook latency"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__notion__query_database",
                json!({"query": "meeting notes"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__github__graphql",
                json!({"query": "query { viewer { login } }"}),
                "mcp-write",
                Risk::Medium,
            ),
            // A statement's words in quotes are data.
            (
                "mcp__postgres__query",
                json!({"sql": "select 'drop table x'"}),
                "mcp-read",
                Risk::Low,
            ),
            // A shell command of a server that is not a database's stays shell.
            (
                "mcp__desktop-commander__execute_command",
                json!({"command": "ls"}),
                "mcp-exec",
                Risk::High,
            ),
        ] {
            let c = classify_tool(tool, &input, &ctx());
            assert_eq!((c.rule.as_str(), c.risk), (rule, risk), "{tool} {input}");
        }
    }

    #[test]
    fn database_servers_are_told_by_their_names() {
        for (server, tool, want) in [
            ("redis", "query", true),
            ("mcp-server-postgres", "query", true),
            ("plugin_supabase_supabase", "execute_sql", true),
            ("duckdb", "run", true),
            ("notion", "query_database", false),
            ("github", "search_issues", false),
            ("desktop-commander", "execute_command", false),
        ] {
            assert_eq!(database_server(server, &name_words(tool)), want, "{server}");
        }
    }
}
