//! Phase profiles (planning / building / auditing) and what each allows per domain.
//!
//! The phase is read from the project's `.claude/current-phase.md`. A project without that
//! file has no phase profile: the trust gate alone decides (oath-harness fell back to
//! "auditing", which blocks most work).

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::classify::Domain;

/// A project phase.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Designing: reads and docs only.
    Planning,
    /// Implementing: everything but remote git; shell and local git are trust-gated.
    Building,
    /// Reviewing: reads only.
    Auditing,
}

/// What a phase says about a domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseRule {
    /// The domain is allowed in this phase (the trust gate decides).
    Allowed,
    /// Allowed only when trust alone would allow; otherwise ask.
    TrustGated,
    /// Not allowed in this phase.
    Denied,
}

impl Phase {
    /// Returns the lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planning => "planning",
            Self::Building => "building",
            Self::Auditing => "auditing",
        }
    }

    /// Parses the phase file's text (case and whitespace ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let t: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        match t.as_str() {
            "planning" => Some(Self::Planning),
            "building" => Some(Self::Building),
            "auditing" => Some(Self::Auditing),
            _ => None,
        }
    }

    /// Reads the phase from a phase file; `None` when it is missing or unrecognised.
    pub fn read(path: &Path) -> Option<Self> {
        crate::state::read_text_file(path, 64 * 1024)
            .ok()
            .flatten()
            .and_then(|t| Self::parse(&t))
    }

    /// Returns the rule for a domain (reference §3.3, checked denied → trust_gated → allowed,
    /// domains the table does not list taking the phase's default).
    pub fn rule(self, domain: Domain) -> PhaseRule {
        use Domain::*;
        use PhaseRule::*;
        match self {
            Self::Planning => match domain {
                FileWrite | FileWriteSrc | ShellExec | GitRemote | Package | Build | FileDelete
                | Container | Infra | Cloud | Database | Remote | Publish | NetworkWrite
                | System | Unknown => Denied,
                _ => Allowed,
            },
            Self::Building => match domain {
                GitRemote | Publish => Denied,
                ShellExec | GitLocal | Build | FileDelete | Container | Infra | Cloud
                | Database | Remote | NetworkWrite | System | Unknown => TrustGated,
                _ => Allowed,
            },
            Self::Auditing => match domain {
                FileRead | GitRead => Allowed,
                _ => Denied,
            },
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_reference() {
        use Domain::*;
        use PhaseRule::*;
        let rows = [
            (Phase::Planning, FileRead, Allowed),
            (Phase::Planning, DocsWrite, Allowed),
            (Phase::Planning, FileWriteSrc, Denied),
            (Phase::Planning, ShellExec, Denied),
            (Phase::Planning, GitRemote, Denied),
            (Phase::Planning, GitLocal, Allowed),
            (Phase::Building, GitRemote, Denied),
            (Phase::Building, ShellExec, TrustGated),
            (Phase::Building, GitLocal, TrustGated),
            (Phase::Building, FileWriteSrc, Allowed),
            (Phase::Auditing, FileRead, Allowed),
            (Phase::Auditing, GitRead, Allowed),
            (Phase::Auditing, DocsWrite, Denied),
            (Phase::Auditing, TestRun, Denied),
        ];
        for (phase, domain, want) in rows {
            assert_eq!(phase.rule(domain), want, "{phase} {domain}");
        }
    }

    #[test]
    fn parse_is_lenient_about_case_and_space() {
        assert_eq!(Phase::parse(" BUILDING\n"), Some(Phase::Building));
        assert_eq!(Phase::parse("nonsense"), None);
    }
}
