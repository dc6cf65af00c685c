//! The coding agents oath serves through their own hooks: Claude Code, Codex CLI and Gemini
//! CLI. The engine (classification, policy, trust, strikes, audit) does not know which one
//! asked; the protocol adapters and `oath install` do, and the audit records it.

use serde::{Deserialize, Serialize};

/// A client whose hooks run `oath hook`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code.
    #[default]
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
}

impl Agent {
    /// Its name in arguments, settings and the audit.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
        }
    }

    /// Its name for people.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::Claude => "Claude Code",
            Self::Codex => "Codex CLI",
            Self::Gemini => "Gemini CLI",
        }
    }

    /// Whether the client can ask its user about a call. Codex treats an "ask" as a failed
    /// hook and runs the tool; Gemini CLI in headless mode ends the session on one. Where the
    /// client cannot ask, oath denies with a reason that says how a person grants the call.
    pub fn can_ask(self) -> bool {
        matches!(self, Self::Claude)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_claude_code_asks() {
        for a in [Agent::Claude, Agent::Codex, Agent::Gemini] {
            let v = serde_json::to_value(a).unwrap();
            assert_eq!(v, a.as_str());
            assert_eq!(serde_json::from_value::<Agent>(v).unwrap(), a);
        }
        assert!(Agent::Claude.can_ask());
        assert!(!Agent::Codex.can_ask() && !Agent::Gemini.can_ask());
    }
}
