//! CLI commands.
