//! One domain's file of the trust folder (ADR 0023): its state and the outcomes applied to
//! it, the pure update of one outcome, and the merge with the single file of earlier
//! versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{
    AppliedOutcome, DomainTrust, Outcome, TrustFile, TrustUpdate, advance, check_score,
    remember_outcome, was_applied,
};
use super::params::TrustParams;
use crate::clock::Timestamp;

/// Schema version of a domain file.
pub const DOMAIN_FILE_VERSION: u32 = 1;

/// `trust/domains/<name>.json`: one domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawDomainFile")]
pub struct DomainFile {
    /// [`DOMAIN_FILE_VERSION`].
    pub version: u32,
    /// The domain's name (the file's name is made from it).
    pub domain: String,
    /// Its state.
    pub trust: DomainTrust,
    /// Outcomes applied to this domain, by `tool_use_id` (the last 64), so a second fire for
    /// the same call changes nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_outcomes: Vec<AppliedOutcome>,
}

/// A domain file as parsed, before [`DomainFile`]'s checks.
#[derive(Deserialize)]
struct RawDomainFile {
    version: u32,
    domain: String,
    trust: DomainTrust,
    #[serde(default)]
    recent_outcomes: Vec<AppliedOutcome>,
}

impl TryFrom<RawDomainFile> for DomainFile {
    type Error = String;

    fn try_from(raw: RawDomainFile) -> Result<Self, String> {
        check(raw.version, &raw.domain, &raw.trust)?;
        Ok(Self {
            version: raw.version,
            domain: raw.domain,
            trust: raw.trust,
            recent_outcomes: raw.recent_outcomes,
        })
    }
}

/// The domain's state of a domain file, the outcomes it remembers skipped unbuilt: what
/// PreToolUse reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawDomainHead")]
pub struct DomainHead {
    /// The domain's name.
    pub domain: String,
    /// Its state.
    pub trust: DomainTrust,
}

#[derive(Deserialize)]
struct RawDomainHead {
    version: u32,
    domain: String,
    trust: DomainTrust,
}

impl TryFrom<RawDomainHead> for DomainHead {
    type Error = String;

    fn try_from(raw: RawDomainHead) -> Result<Self, String> {
        check(raw.version, &raw.domain, &raw.trust)?;
        Ok(Self {
            domain: raw.domain,
            trust: raw.trust,
        })
    }
}

/// The checks of a domain file: a version this oath reads, and a score in [0, 1].
fn check(version: u32, domain: &str, trust: &DomainTrust) -> Result<(), String> {
    if version != DOMAIN_FILE_VERSION {
        return Err(format!(
            "version {version} is not one this oath understands (it reads version {DOMAIN_FILE_VERSION})"
        ));
    }
    check_score(domain, trust)
}

impl DomainFile {
    /// Returns a domain never operated, at the initial score.
    pub fn new(domain: &str, params: &TrustParams) -> Self {
        Self {
            version: DOMAIN_FILE_VERSION,
            domain: domain.to_owned(),
            trust: DomainTrust::new(params),
            recent_outcomes: Vec::new(),
        }
    }
}

/// Applies a success or failure of `tool_use_id` to a domain, with the rules of
/// [`super::apply_outcome`]; an outcome this domain already applied for the same
/// `tool_use_id` changes nothing.
pub fn apply_to_domain(
    file: &mut DomainFile,
    outcome: Outcome,
    tool_use_id: Option<&str>,
    now: Timestamp,
    params: &TrustParams,
) -> TrustUpdate {
    if was_applied(&file.recent_outcomes, tool_use_id) {
        let s = super::score_of(Some(&file.trust), now, params);
        return TrustUpdate {
            before: s,
            after: s,
            duplicate: true,
        };
    }
    let (d, update) = advance(&file.trust, outcome, now, params);
    file.trust = d;
    file.version = DOMAIN_FILE_VERSION;
    if let Some(id) = tool_use_id {
        remember_outcome(&mut file.recent_outcomes, id, outcome);
    }
    update
}

/// Returns whether `other`, the same domain's state from another file (the single file of
/// an earlier version), is further along than `held`: operated later, or at the same time
/// with more operations. Times that do not parse are earlier than any that does.
pub fn is_further_along(held: &DomainTrust, other: &DomainTrust) -> bool {
    let at = |d: &DomainTrust| d.last_operated_at.as_deref().and_then(Timestamp::parse);
    match (at(held), at(other)) {
        (Some(a), Some(b)) if a != b => b > a,
        (None, Some(_)) => true,
        (Some(_), None) => false,
        _ => other.total_operations > held.total_operations,
    }
}

/// Returns the whole trust state in the single file's shape (version "2") from its domains:
/// the operation count is the sum of the domains' and the update time their latest
/// operation (what the single file kept apart and each outcome moved together); no
/// outcomes are listed (each domain remembers its own).
pub fn whole_view(domains: BTreeMap<String, DomainTrust>) -> TrustFile {
    let global_operation_count = domains
        .values()
        .fold(0u64, |n, d| n.saturating_add(d.total_operations));
    let updated_at = domains
        .values()
        .filter_map(|d| d.last_operated_at.as_deref())
        .filter_map(|s| Timestamp::parse(s).map(|t| (t, s)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, s)| s.to_owned())
        .unwrap_or_default();
    TrustFile {
        version: "2".into(),
        updated_at,
        global_operation_count,
        domains,
        recent_outcomes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn a_domain_file_follows_the_whole_file_rules() {
        let p = TrustParams::default();
        let mut whole = TrustFile::new(&p, t("2026-03-01T00:00:00Z"));
        let mut one = DomainFile::new("shell_exec", &p);
        let steps = [
            (Outcome::Success, "a", "2026-03-01T00:00:00Z"),
            (Outcome::Failure, "b", "2026-03-01T00:01:00Z"),
            (Outcome::Failure, "b", "2026-03-01T00:01:00Z"),
            (Outcome::Success, "c", "2026-05-01T00:00:00Z"),
        ];
        for (outcome, id, at) in steps {
            let a =
                super::super::apply_outcome(&mut whole, "shell_exec", outcome, Some(id), t(at), &p);
            let b = apply_to_domain(&mut one, outcome, Some(id), t(at), &p);
            assert_eq!(a, b, "{id}");
            assert_eq!(whole.domains["shell_exec"], one.trust, "{id}");
        }
        assert_eq!(one.recent_outcomes.len(), 3);
        assert_eq!(
            one.trust.total_operations, 3,
            "the second b was a duplicate"
        );
    }

    #[test]
    fn a_domain_file_is_checked_as_it_is_read() {
        let ok = r#"{"version":1,"domain":"file_read","trust":{"score":0.4},"recent_outcomes":[{"tool_use_id":"t","outcome":"success"}]}"#;
        let f: DomainFile = serde_json::from_str(ok).unwrap();
        assert_eq!((f.trust.score, f.recent_outcomes.len()), (0.4, 1));
        let head: DomainHead = serde_json::from_str(ok).unwrap();
        assert_eq!((head.domain.as_str(), head.trust), ("file_read", f.trust));
        for bad in [
            r#"{"version":2,"domain":"a","trust":{"score":0.4}}"#,
            r#"{"version":1,"domain":"a","trust":{"score":1.5}}"#,
            r#"{"version":1,"trust":{"score":0.4}}"#,
            r#"{"version":1,"domain":"a"}"#,
        ] {
            assert!(serde_json::from_str::<DomainFile>(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<DomainHead>(bad).is_err(), "{bad}");
        }
        // PreToolUse skips the remembered outcomes; an update reads them.
        let odd = r#"{"version":1,"domain":"a","trust":{"score":0.4},"recent_outcomes":[{}]}"#;
        assert!(serde_json::from_str::<DomainFile>(odd).is_err());
        assert!(serde_json::from_str::<DomainHead>(odd).is_ok());
    }

    #[test]
    fn the_state_further_along_wins_a_merge() {
        let p = TrustParams::default();
        let at = |s: Option<&str>, n: u64| DomainTrust {
            last_operated_at: s.map(str::to_owned),
            total_operations: n,
            ..DomainTrust::new(&p)
        };
        let early = Some("2026-03-01T00:00:00Z");
        let late = Some("2026-03-02T00:00:00Z");
        assert!(is_further_along(&at(early, 9), &at(late, 1)));
        assert!(!is_further_along(&at(late, 1), &at(early, 9)));
        assert!(is_further_along(&at(early, 1), &at(early, 2)));
        assert!(
            !is_further_along(&at(early, 2), &at(early, 2)),
            "a tie keeps what is held"
        );
        assert!(is_further_along(&at(None, 5), &at(early, 1)));
        assert!(!is_further_along(&at(early, 1), &at(None, 5)));
        assert!(is_further_along(&at(Some("?"), 1), &at(Some("??"), 2)));
    }

    #[test]
    fn the_whole_view_sums_the_domains() {
        let p = TrustParams::default();
        let mut domains = BTreeMap::new();
        for (name, at, n) in [
            ("a", "2026-03-01T00:00:00Z", 3),
            ("b", "2026-03-05T10:00:00Z", u64::MAX),
            ("c", "not a date", 1),
        ] {
            domains.insert(
                name.to_owned(),
                DomainTrust {
                    last_operated_at: Some(at.to_owned()),
                    total_operations: n,
                    ..DomainTrust::new(&p)
                },
            );
        }
        let v = whole_view(domains);
        assert_eq!(v.version, "2");
        assert_eq!(v.global_operation_count, u64::MAX);
        assert_eq!(v.updated_at, "2026-03-05T10:00:00Z");
        assert_eq!(whole_view(BTreeMap::new()).updated_at, "");
    }
}
