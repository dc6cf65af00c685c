//! Per-tool classification (placeholder until the full rules land).

use serde_json::Value;

use super::{Classification, Context, Domain, Risk};

/// Classifies a call by tool.
pub(super) fn classify_tool(tool_name: &str, tool_input: &Value, _ctx: &Context) -> Classification {
    let _ = tool_input;
    match tool_name {
        "Read" | "Glob" | "Grep" => Classification::single(
            tool_name,
            Domain::FileRead,
            Risk::Low,
            "read",
            "reads files",
        ),
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => Classification::single(
            tool_name,
            Domain::FileWrite,
            Risk::Medium,
            "write",
            "writes a file",
        ),
        _ => Classification::single(
            tool_name,
            Domain::ShellExec,
            Risk::High,
            "unclassified",
            "not yet classified",
        ),
    }
}
