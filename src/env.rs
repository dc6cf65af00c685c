//! Every environment variable oath reads, in one place.
//!
//! `oath doctor` lists these; nothing else in the crate names an environment variable.

/// Root of oath's state (trust scores, audit trails); default is the XDG state dir.
pub const OATH_HOME: &str = "OATH_HOME";
/// Pins the clock to an ISO 8601 instant (tests, demo).
pub const OATH_NOW: &str = "OATH_NOW";
/// Path of the user config file, overriding `$XDG_CONFIG_HOME/oath/config.yaml`.
pub const OATH_CONFIG: &str = "OATH_CONFIG";
/// Prints diagnostics on stderr when set to `1`.
pub const OATH_DEBUG: &str = "OATH_DEBUG";
/// Directory of KPT reports, overriding the config and `~/.claude/hurikaeri`.
pub const OATH_KPT_DIR: &str = "OATH_KPT_DIR";
/// PreToolUse's deadline in milliseconds (default 5000): past it oath answers its fail mode.
pub const OATH_DEADLINE_MS: &str = "OATH_DEADLINE_MS";
/// Project root chosen by Claude Code at launch.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// Claude Code's configuration directory (default `~/.claude`).
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// Codex CLI's configuration directory (default `~/.codex`).
pub const CODEX_HOME: &str = "CODEX_HOME";
/// The home Gemini CLI keeps its `.gemini` folder in (default `$HOME`).
pub const GEMINI_CLI_HOME: &str = "GEMINI_CLI_HOME";
/// Gemini CLI's trusted-folders file (default `~/.gemini/trustedFolders.json`).
pub const GEMINI_CLI_TRUSTED_FOLDERS_PATH: &str = "GEMINI_CLI_TRUSTED_FOLDERS_PATH";
/// XDG base directory for state.
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
/// XDG base directory for configuration.
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
/// The user's home directory.
pub const HOME: &str = "HOME";
/// Disables colour in human output.
pub const NO_COLOR: &str = "NO_COLOR";
/// The folders bash's `cd` searches (read by the hook: where `cd NAME` leads is unknown
/// when set).
pub const CDPATH: &str = "CDPATH";

/// The OpenTelemetry exporter's variables `oath export otlp` reads (never the hook).
pub mod otel {
    /// Base URL of the collector (`/v1/logs` appended).
    pub const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
    /// URL of the logs endpoint, as it is.
    pub const LOGS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
    /// Headers, `key=value,...`, URL-encoded.
    pub const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
    /// Headers of log requests.
    pub const LOGS_HEADERS: &str = "OTEL_EXPORTER_OTLP_LOGS_HEADERS";
    /// `http/protobuf` or `http/json`.
    pub const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
    /// Protocol of log requests.
    pub const LOGS_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL";
    /// Time allowed for a request, in milliseconds.
    pub const TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TIMEOUT";
    /// Time allowed for a log request, in milliseconds.
    pub const LOGS_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT";
    /// Resource attributes, `key=value,...`, URL-encoded.
    pub const RESOURCE_ATTRIBUTES: &str = "OTEL_RESOURCE_ATTRIBUTES";
    /// The resource's `service.name`.
    pub const SERVICE_NAME: &str = "OTEL_SERVICE_NAME";
    /// `1`: also send each call's tool input (Claude Code's name).
    pub const LOG_TOOL_DETAILS: &str = "OTEL_LOG_TOOL_DETAILS";

    /// Every one, for `oath doctor`.
    pub const ALL: [&str; 11] = [
        ENDPOINT,
        LOGS_ENDPOINT,
        HEADERS,
        LOGS_HEADERS,
        PROTOCOL,
        LOGS_PROTOCOL,
        TIMEOUT,
        LOGS_TIMEOUT,
        RESOURCE_ATTRIBUTES,
        SERVICE_NAME,
        LOG_TOOL_DETAILS,
    ];
}

/// Variables oath sets (never reads) for `postToolUse` commands, seed 002's names included so
/// scripts written for that design run unchanged.
pub mod observer {
    /// The tool's name.
    pub const TOOL_NAME: &str = "OATH_TOOL_NAME";
    /// The tool's input as JSON (cut with a marker when over the size limit).
    pub const TOOL_INPUT: &str = "OATH_TOOL_INPUT";
    /// The tool's output: `tool_response` JSON, or the `error` text of a failure (cut with a
    /// marker when over the size limit).
    pub const TOOL_OUTPUT: &str = "OATH_TOOL_OUTPUT";
    /// Path of a file holding the whole output.
    pub const TOOL_OUTPUT_FILE: &str = "OATH_TOOL_OUTPUT_FILE";
    /// When the hook ran, ISO 8601 UTC.
    pub const TOOL_TIMESTAMP: &str = "OATH_TOOL_TIMESTAMP";
    /// The tool call's `tool_use_id`.
    pub const TOOL_USE_ID: &str = "OATH_TOOL_USE_ID";
    /// `success` or `failure`.
    pub const TOOL_OUTCOME: &str = "OATH_TOOL_OUTCOME";
    /// The session id.
    pub const SESSION_ID: &str = "OATH_SESSION_ID";
    /// Seed 002's name for [`TOOL_NAME`].
    pub const CONCLAUDE_TOOL_NAME: &str = "CONCLAUDE_TOOL_NAME";
    /// Seed 002's name for [`TOOL_INPUT`].
    pub const CONCLAUDE_TOOL_INPUT: &str = "CONCLAUDE_TOOL_INPUT";
    /// Seed 002's name for [`TOOL_OUTPUT`].
    pub const CONCLAUDE_TOOL_OUTPUT: &str = "CONCLAUDE_TOOL_OUTPUT";
    /// Seed 002's name for [`TOOL_TIMESTAMP`].
    pub const CONCLAUDE_TOOL_TIMESTAMP: &str = "CONCLAUDE_TOOL_TIMESTAMP";
}

/// Every variable oath reads, with a one-line description, for `oath doctor`.
pub const ALL: &[(&str, &str)] = &[
    (
        OATH_HOME,
        "root of oath's state (default $XDG_STATE_HOME/oath or ~/.local/state/oath)",
    ),
    (
        OATH_NOW,
        "pin the clock to an ISO 8601 instant (tests, demo)",
    ),
    (
        OATH_CONFIG,
        "user config file (default $XDG_CONFIG_HOME/oath/config.yaml)",
    ),
    (OATH_DEBUG, "print diagnostics on stderr when 1"),
    (
        OATH_KPT_DIR,
        "directory of KPT reports (default ~/.claude/hurikaeri)",
    ),
    (
        OATH_DEADLINE_MS,
        "PreToolUse deadline in ms (default 5000), then the fail mode answers",
    ),
    (CLAUDE_PROJECT_DIR, "project root set by Claude Code"),
    (
        CLAUDE_CONFIG_DIR,
        "Claude Code's config dir (default ~/.claude)",
    ),
    (CODEX_HOME, "Codex CLI's config dir (default ~/.codex)"),
    (
        GEMINI_CLI_HOME,
        "the home of Gemini CLI's .gemini folder (default $HOME)",
    ),
    (
        GEMINI_CLI_TRUSTED_FOLDERS_PATH,
        "Gemini CLI's trusted-folders file (default ~/.gemini/trustedFolders.json)",
    ),
    (XDG_STATE_HOME, "XDG state base dir"),
    (XDG_CONFIG_HOME, "XDG config base dir"),
    (HOME, "home directory"),
    (NO_COLOR, "disable colour"),
    (
        CDPATH,
        "bash's cd search path: when set, where `cd NAME` leads is unknown",
    ),
    (
        otel::ENDPOINT,
        "`oath export otlp`: collector base URL (and the other OTEL_EXPORTER_OTLP_* keys)",
    ),
    (
        otel::RESOURCE_ATTRIBUTES,
        "`oath export otlp`: resource attributes key=value,...",
    ),
];

/// Returns a non-empty variable as a string.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Returns whether debug diagnostics are on.
pub fn debug() -> bool {
    var(OATH_DEBUG).is_some_and(|v| v == "1")
}
