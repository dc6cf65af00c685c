//! Per-tool classification: Bash and Monitor through the shell parser, file tools by path,
//! web tools by URL, MCP tools by server and verb, subagents and meta tools by name.

use serde_json::Value;

use super::paths;
use super::policy;
use super::powershell::powershell_finding;
use super::rule::{Finding, Findings};
use super::url::{is_loopback_url, is_payment_url, url_host};
use super::walker;
use super::{Classification, Context, Domain, Risk};

fn one(text: &str, f: Finding) -> Classification {
    let mut out = Findings::default();
    out.push(text, f);
    out.into_classification()
}

fn str_field<'v>(input: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// Classifies a call by tool.
pub(super) fn classify_tool(tool_name: &str, input: &Value, ctx: &Context) -> Classification {
    match tool_name {
        "Bash" | "Monitor" => match str_field(input, &["command"]) {
            Some(cmd) => walker::classify_command(cmd, ctx),
            None if tool_name == "Monitor" && input.get("ws").is_some() => one(
                "Monitor ws",
                Finding::new(
                    Domain::Network,
                    Risk::Medium,
                    "monitor-websocket",
                    "watches a websocket",
                ),
            ),
            None => one(
                tool_name,
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "missing-input",
                    format!("{tool_name} call without a command"),
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
                if name_secret && c.risk < Risk::High {
                    c = one(
                        &format!("{tool_name} {p}"),
                        Finding::new(
                            Domain::FileRead,
                            if tool_name == "Glob" {
                                Risk::Medium
                            } else {
                                Risk::High
                            },
                            "read-credentials",
                            format!("{tool_name} looks into credential files ({p})"),
                        ),
                    );
                }
            }
            c
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            let Some(path) = str_field(input, &["file_path", "notebook_path"]) else {
                return one(
                    tool_name,
                    Finding::new(
                        Domain::FileWrite,
                        Risk::High,
                        "missing-input",
                        format!("{tool_name} call without a path"),
                    ),
                );
            };
            let t = paths::target(paths::resolve(path, false, Some(ctx.cwd()), ctx), ctx);
            let verb = match tool_name {
                "Write" => "writes",
                "NotebookEdit" => "edits the notebook",
                _ => "edits",
            };
            one(
                &format!("{tool_name} {path}"),
                policy::write_finding(&t, verb),
            )
        }
        "WebFetch" => {
            let url = str_field(input, &["url"]).unwrap_or("");
            one(&format!("WebFetch {url}"), web_fetch(url))
        }
        "WebSearch" => {
            let q = str_field(input, &["query"]).unwrap_or("");
            one(
                &format!("WebSearch {q}"),
                Finding::new(Domain::Network, Risk::Low, "web-search", "searches the web"),
            )
        }
        "Agent" | "Task" => {
            let what = str_field(input, &["description", "subagent_type"]).unwrap_or("");
            let remote = input.get("isolation").and_then(Value::as_str) == Some("remote");
            one(
                &format!("{tool_name} {what}"),
                if remote {
                    Finding::new(
                        Domain::Subagent,
                        Risk::Medium,
                        "subagent-remote",
                        "starts a subagent on a remote machine",
                    )
                } else {
                    Finding::new(
                        Domain::Subagent,
                        Risk::Low,
                        "subagent",
                        "starts a subagent; its own tool calls pass through this gate",
                    )
                },
            )
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
            Finding::new(
                Domain::Global,
                Risk::Low,
                "meta-tool",
                format!("{tool_name} only organises the session"),
            ),
        ),
        "Skill" | "SlashCommand" | "CronCreate" | "CronDelete" | "Workflow" => one(
            tool_name,
            Finding::new(
                Domain::Global,
                Risk::Medium,
                "session-tool",
                format!("{tool_name} starts or schedules more work"),
            ),
        ),
        _ if tool_name.starts_with("mcp__") => mcp(tool_name, input, ctx),
        _ => one(
            tool_name,
            Finding::new(
                Domain::Global,
                Risk::Medium,
                "unknown-tool",
                format!("{tool_name} is a tool oath has no rule for"),
            ),
        ),
    }
}

fn file_read(tool: &str, path: Option<&str>, ctx: &Context) -> Classification {
    let shown = path.unwrap_or(".");
    let t = match path {
        Some(p) => paths::target(paths::resolve(p, false, Some(ctx.cwd()), ctx), ctx),
        None => paths::target(Some(ctx.cwd().to_path_buf()), ctx),
    };
    one(
        &format!("{tool} {shown}"),
        policy::read_finding(&t, "reads"),
    )
}

fn web_fetch(url: &str) -> Finding {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Finding::new(
            Domain::Network,
            Risk::High,
            "fetch-non-http",
            format!(
                "fetches a non-HTTP URL ({})",
                url.chars().take(40).collect::<String>()
            ),
        );
    }
    if is_loopback_url(url) {
        return Finding::new(
            Domain::Global,
            Risk::Low,
            "loopback",
            "fetches from a service on this machine",
        );
    }
    if is_payment_url(url) && url.contains('?') {
        return Finding::new(
            Domain::Network,
            Risk::High,
            "payment-url",
            "fetches a payment, order or trading URL with parameters",
        );
    }
    Finding::new(
        Domain::Network,
        Risk::Medium,
        "web-fetch",
        format!("fetches {}", url_host(url)),
    )
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
    let mut out = Findings::default();
    let f = if READ.contains(&verb) && !any(DESTROY) {
        Finding::new(
            Domain::Mcp,
            Risk::Low,
            "mcp-read",
            format!("{server} {tool} reads"),
        )
    } else if (any(MONEY) || any(&["order", "orders"]) && any(&["place", "submit", "execute"]))
        && !READ.contains(&verb)
    {
        Finding::new(
            Domain::Mcp,
            Risk::Critical,
            "mcp-money",
            format!("{server} {tool} may move money (payment, order, trade)"),
        )
    } else if any(&["order", "orders", "invoice"]) {
        Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-order",
            format!("{server} {tool} creates or changes orders or invoices"),
        )
    } else if any(DESTROY) {
        Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-destructive",
            format!("{server} {tool} deletes, drops or destroys"),
        )
    } else if any(EXEC) {
        if let Some(cmd) = input.get("command").and_then(Value::as_str) {
            let inner = walker::classify_command(cmd, ctx);
            for p in &inner.parts {
                out.push(
                    &p.text,
                    Finding {
                        effect: p.effect.clone(),
                        source: p.source.clone(),
                        ..Finding::new(
                            p.domain,
                            p.risk,
                            "mcp-command",
                            format!("{} (through {server})", p.reason),
                        )
                    },
                );
            }
        }
        Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-exec",
            format!("{server} {tool} runs commands or code"),
        )
    } else {
        Finding::new(
            Domain::Mcp,
            Risk::Medium,
            "mcp-write",
            format!("{server} {tool} acts through an MCP server"),
        )
    };
    out.push(&text, f);
    out.into_classification()
}
