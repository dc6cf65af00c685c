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
/// Project root chosen by Claude Code at launch.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// Claude Code's configuration directory (default `~/.claude`).
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// XDG base directory for state.
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
/// XDG base directory for configuration.
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
/// The user's home directory.
pub const HOME: &str = "HOME";
/// Disables colour in human output.
pub const NO_COLOR: &str = "NO_COLOR";

/// Every variable above with a one-line description, for `oath doctor`.
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
    (CLAUDE_PROJECT_DIR, "project root set by Claude Code"),
    (
        CLAUDE_CONFIG_DIR,
        "Claude Code's config dir (default ~/.claude)",
    ),
    (XDG_STATE_HOME, "XDG state base dir"),
    (XDG_CONFIG_HOME, "XDG config base dir"),
    (HOME, "home directory"),
    (NO_COLOR, "disable colour"),
];

/// Returns a non-empty variable as a string.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Returns whether debug diagnostics are on.
pub fn debug() -> bool {
    var(OATH_DEBUG).is_some_and(|v| v == "1")
}
