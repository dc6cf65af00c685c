//! The policy of the client's own tools (other than shells and file tools) and of MCP
//! servers' tools: what their names and arguments say they do, judged.

use super::super::effect::{McpUse, ToolUse};
use super::super::rule::Finding;
use super::super::{Domain, Kind, Risk};

/// Returns the finding for a tool of the client; `who` names the tool.
pub(super) fn tool(t: &ToolUse, who: &str) -> Finding {
    match t {
        ToolUse::Organise => Finding::new(
            Domain::Global,
            Risk::Low,
            "meta-tool",
            format!("{who} only organises the session"),
        ),
        ToolUse::Schedule => Finding::new(
            Domain::Global,
            Risk::Medium,
            "session-tool",
            format!("{who} starts or schedules more work"),
        ),
        ToolUse::Subagent { remote: true } => Finding::new(
            Domain::Subagent,
            Risk::Medium,
            "subagent-remote",
            "starts a subagent on a remote machine",
        ),
        ToolUse::Subagent { remote: false } => Finding::new(
            Domain::Subagent,
            Risk::Low,
            "subagent",
            "starts a subagent; its own tool calls pass through this gate",
        ),
        ToolUse::Search { secret: true } => Finding::new(
            Domain::Network,
            Risk::Critical,
            "exfiltration",
            "searches the web with a credential in the query: it leaves the machine",
        ),
        ToolUse::Search { secret: false } => {
            Finding::new(Domain::Network, Risk::Low, "web-search", "searches the web")
        }
        ToolUse::Fetch(f) => super::net::fetch(f),
        ToolUse::Websocket => Finding::new(
            Domain::Network,
            Risk::Medium,
            "monitor-websocket",
            "watches a websocket",
        ),
        // A Grep that prints matching lines reads the secrets into the session, as `cat` of
        // the file would (nothing takes them back); listing names (a Glob) or which files
        // match (a Grep's default mode) reads less.
        ToolUse::FindCredentials {
            pattern,
            prints: true,
            ..
        } => Finding::new(
            Domain::FileRead,
            Risk::High,
            "read-credentials",
            format!("{who} prints the matching lines of credential files ({pattern})"),
        )
        .kind(Kind::Irreversible)
        .alt("read the non-secret configuration instead (e.g. .env.example)"),
        ToolUse::FindCredentials {
            pattern, contents, ..
        } => Finding::new(
            Domain::FileRead,
            if *contents { Risk::High } else { Risk::Medium },
            "read-credentials",
            format!("{who} looks into credential files ({pattern})"),
        ),
        ToolUse::Missing { path: false } => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "missing-input",
            format!("{who} call without a command"),
        ),
        ToolUse::Missing { path: true } => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "missing-input",
            format!("{who} call without a path"),
        ),
        ToolUse::Unknown => Finding::new(
            Domain::Global,
            Risk::Medium,
            "unknown-tool",
            format!("{who} is a tool oath has no rule for"),
        ),
    }
}

/// Returns the finding for a tool of an MCP server; `who` names the server and the tool.
pub(super) fn mcp(m: &McpUse, who: &str) -> Finding {
    match m {
        McpUse::Read => Finding::new(Domain::Mcp, Risk::Low, "mcp-read", format!("{who} reads")),
        McpUse::Money => Finding::new(
            Domain::Mcp,
            Risk::Critical,
            "mcp-money",
            format!("{who} may move money (payment, order, trade)"),
        ),
        McpUse::Order => Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-order",
            format!("{who} creates or changes orders or invoices"),
        )
        .kind(Kind::Irreversible),
        McpUse::Destroy => Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-destructive",
            format!("{who} deletes, drops or destroys"),
        )
        .kind(Kind::Irreversible),
        McpUse::Exec { command } => {
            let f = Finding::new(
                Domain::Mcp,
                Risk::High,
                "mcp-exec",
                format!("{who} runs commands or code"),
            );
            // Without a command oath can read, what runs is not understood.
            if *command {
                f
            } else {
                f.kind(Kind::NotUnderstood)
            }
        }
        McpUse::Change => Finding::new(
            Domain::Mcp,
            Risk::Medium,
            "mcp-write",
            format!("{who} acts through an MCP server"),
        ),
        McpUse::SendsSecret(key) => Finding::new(
            Domain::Mcp,
            Risk::Critical,
            "exfiltration",
            format!("{who} sends a credential (in `{key}`) off the machine"),
        ),
        McpUse::Unread {
            strings,
            kib,
            depth,
        } => Finding::new(
            Domain::Mcp,
            Risk::High,
            "mcp-arguments-unread",
            format!(
                "{who} was given more than {strings} strings or {kib} KiB of them (or nesting deeper than {depth}): oath did not read them all"
            ),
        )
        .kind(Kind::NotUnderstood),
    }
}
