//! One domain's file of the trust folder (ADR 0023): its state per level (ADR 0025) and the
//! outcomes applied to it, the pure update of one outcome, and the merge with the single
//! file of earlier versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::levels::{DomainLevels, Level, advance_levels};
use super::model::{
    AppliedOutcome, DomainTrust, Outcome, TrustFile, TrustUpdate, remember_outcome, was_applied,
};
use super::params::TrustParams;
use crate::clock::Timestamp;

/// Schema version of a domain file: 2 holds the domain's levels; version 1 (one `trust`
/// state for the whole domain) is still read, its state becoming the low level.
pub const DOMAIN_FILE_VERSION: u32 = 2;

/// `trust/domains/<name>.json`: one domain, `{"version": 2, "domain", "levels": {"low",
/// "medium", "high"}, "recent_outcomes"}`; a level never operated is absent (the initial
/// score).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawDomainFile")]
pub struct DomainFile {
    /// [`DOMAIN_FILE_VERSION`] (a version 1 file is migrated as it is read, and written as
    /// version 2 by its next update).
    pub version: u32,
    /// The domain's name (the file's name is made from it).
    pub domain: String,
    /// Its state per level.
    pub levels: DomainLevels,
    /// Outcomes applied to this domain, by `tool_use_id` (the last 64), so a second fire for
    /// the same call changes nothing (kept through the migration of a version 1 file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_outcomes: Vec<AppliedOutcome>,
}

/// A domain file as parsed, before [`DomainFile`]'s checks: `trust` in version 1, `levels`
/// in version 2.
#[derive(Deserialize)]
struct RawDomainFile {
    version: u32,
    domain: String,
    #[serde(default)]
    trust: Option<DomainTrust>,
    #[serde(default)]
    levels: Option<DomainLevels>,
    #[serde(default)]
    recent_outcomes: Vec<AppliedOutcome>,
}

impl TryFrom<RawDomainFile> for DomainFile {
    type Error = String;

    fn try_from(raw: RawDomainFile) -> Result<Self, String> {
        let levels = levels_of(raw.version, &raw.domain, raw.trust, raw.levels)?;
        Ok(Self {
            version: DOMAIN_FILE_VERSION,
            domain: raw.domain,
            levels,
            recent_outcomes: raw.recent_outcomes,
        })
    }
}

/// The domain's levels of a domain file, the outcomes it remembers skipped unbuilt: what
/// PreToolUse reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawDomainHead")]
pub struct DomainHead {
    /// The domain's name.
    pub domain: String,
    /// Its state per level.
    pub levels: DomainLevels,
}

#[derive(Deserialize)]
struct RawDomainHead {
    version: u32,
    domain: String,
    #[serde(default)]
    trust: Option<DomainTrust>,
    #[serde(default)]
    levels: Option<DomainLevels>,
}

impl TryFrom<RawDomainHead> for DomainHead {
    type Error = String;

    fn try_from(raw: RawDomainHead) -> Result<Self, String> {
        let levels = levels_of(raw.version, &raw.domain, raw.trust, raw.levels)?;
        Ok(Self {
            domain: raw.domain,
            levels,
        })
    }
}

/// The checks of a domain file and its levels: a version this oath reads with the field of
/// that version (version 1's `trust` becomes the low level only: nothing says at which level
/// it was earned, so medium and high start at the initial score), and scores in [0, 1].
fn levels_of(
    version: u32,
    domain: &str,
    trust: Option<DomainTrust>,
    levels: Option<DomainLevels>,
) -> Result<DomainLevels, String> {
    let levels = match (version, trust, levels) {
        (1, Some(t), None) => DomainLevels::only_low(t),
        (2, None, Some(l)) => l,
        (1, _, _) => return Err("a version 1 domain file holds `trust` only".into()),
        (2, _, _) => return Err("a version 2 domain file holds `levels` only".into()),
        (v, _, _) => {
            return Err(format!(
                "version {v} is not one this oath understands (it reads versions 1 and {DOMAIN_FILE_VERSION})"
            ));
        }
    };
    levels.check(domain)?;
    Ok(levels)
}

impl DomainFile {
    /// Returns a domain never operated: every level at the initial score.
    pub fn new(domain: &str) -> Self {
        Self {
            version: DOMAIN_FILE_VERSION,
            domain: domain.to_owned(),
            levels: DomainLevels::default(),
            recent_outcomes: Vec::new(),
        }
    }
}

/// Applies a success or failure of `tool_use_id`, a call at `level`, to a domain, with the
/// rules of [`super::apply_outcome`] (a success raises `level` and the levels below, a
/// failure every level); an outcome this domain already applied for the same `tool_use_id`
/// changes nothing. The update returned is `level`'s.
pub fn apply_to_domain(
    file: &mut DomainFile,
    level: Level,
    outcome: Outcome,
    tool_use_id: Option<&str>,
    now: Timestamp,
    params: &TrustParams,
) -> TrustUpdate {
    if was_applied(&file.recent_outcomes, tool_use_id) {
        let s = file.levels.score(level, now, params);
        return TrustUpdate {
            before: s,
            after: s,
            duplicate: true,
        };
    }
    let update = advance_levels(&mut file.levels, level, outcome, now, params);
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

/// Returns the whole trust state ([`TrustFile`], version "3") from its domains: the
/// operation count is the sum of the domains' (each outcome touches its domain's low level,
/// [`DomainLevels::operations`]) and the update time their latest operation (what the single
/// file kept apart and each outcome moved together); no outcomes are listed (each domain
/// remembers its own).
pub fn whole_view(domains: BTreeMap<String, DomainLevels>) -> TrustFile {
    let global_operation_count = domains
        .values()
        .fold(0u64, |n, d| n.saturating_add(d.operations()));
    let updated_at = domains
        .values()
        .filter_map(DomainLevels::last_operated_at)
        .filter_map(|s| Timestamp::parse(s).map(|t| (t, s)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, s)| s.to_owned())
        .unwrap_or_default();
    TrustFile {
        version: "3".into(),
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
        let mut whole = TrustFile::new(t("2026-03-01T00:00:00Z"));
        let mut one = DomainFile::new("shell_exec");
        let steps = [
            (Level::Medium, Outcome::Success, "a", "2026-03-01T00:00:00Z"),
            (Level::Low, Outcome::Failure, "b", "2026-03-01T00:01:00Z"),
            (Level::Low, Outcome::Failure, "b", "2026-03-01T00:01:00Z"),
            (Level::High, Outcome::Success, "c", "2026-05-01T00:00:00Z"),
        ];
        for (level, outcome, id, at) in steps {
            let a = super::super::apply_outcome(
                &mut whole,
                "shell_exec",
                level,
                outcome,
                Some(id),
                t(at),
                &p,
            );
            let b = apply_to_domain(&mut one, level, outcome, Some(id), t(at), &p);
            assert_eq!(a, b, "{id}");
            assert_eq!(whole.domains["shell_exec"], one.levels, "{id}");
        }
        assert_eq!(one.recent_outcomes.len(), 3);
        assert_eq!(one.levels.operations(), 3, "the second b was a duplicate");
        let high = one.levels.get(Level::High).unwrap();
        assert_eq!((high.successes, high.failures), (1, 1));
    }

    #[test]
    fn a_domain_file_is_checked_as_it_is_read() {
        let ok = r#"{"version":2,"domain":"file_read","levels":{"low":{"score":0.4},"medium":{"score":0.35}},"recent_outcomes":[{"tool_use_id":"t","outcome":"success"}]}"#;
        let f: DomainFile = serde_json::from_str(ok).unwrap();
        assert_eq!(
            f.levels.score(
                Level::Medium,
                t("2026-03-01T00:00:00Z"),
                &TrustParams::default()
            ),
            0.35
        );
        assert!(f.levels.high.is_none());
        assert_eq!(f.recent_outcomes.len(), 1);
        let head: DomainHead = serde_json::from_str(ok).unwrap();
        assert_eq!(
            (head.domain.as_str(), &head.levels),
            ("file_read", &f.levels)
        );
        for bad in [
            r#"{"version":3,"domain":"a","levels":{}}"#,
            r#"{"version":2,"domain":"a","trust":{"score":0.4}}"#,
            r#"{"version":2,"domain":"a","levels":{"low":{"score":1.5}}}"#,
            r#"{"version":2,"domain":"a","levels":{"critical":{"score":0.5}}}"#,
            r#"{"version":2,"domain":"a","levels":{},"trust":{"score":0.4}}"#,
            r#"{"version":1,"domain":"a","trust":{"score":1.5}}"#,
            r#"{"version":1,"domain":"a","levels":{}}"#,
            r#"{"version":1,"trust":{"score":0.4}}"#,
            r#"{"version":1,"domain":"a"}"#,
        ] {
            assert!(serde_json::from_str::<DomainFile>(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<DomainHead>(bad).is_err(), "{bad}");
        }
        // PreToolUse skips the remembered outcomes; an update reads them.
        let odd = r#"{"version":2,"domain":"a","levels":{},"recent_outcomes":[{}]}"#;
        assert!(serde_json::from_str::<DomainFile>(odd).is_err());
        assert!(serde_json::from_str::<DomainHead>(odd).is_ok());
    }

    #[test]
    fn a_version_1_file_becomes_the_low_level_and_keeps_its_outcomes() {
        let p = TrustParams::default();
        let now = t("2026-03-01T00:00:00Z");
        let v1 = r#"{"version":1,"domain":"container","trust":{"score":0.9,"successes":60,"total_operations":60,"last_operated_at":"2026-02-28T00:00:00Z"},"recent_outcomes":[{"tool_use_id":"toolu_old","outcome":"success"}]}"#;
        let mut f: DomainFile = serde_json::from_str(v1).unwrap();
        let head: DomainHead = serde_json::from_str(v1).unwrap();
        assert_eq!(head.levels, f.levels);
        assert_eq!(f.version, DOMAIN_FILE_VERSION);
        // The old score is the low level's only; medium and high start at the initial score.
        assert_eq!(f.levels.score(Level::Low, now, &p), 0.9);
        assert_eq!(f.levels.score(Level::Medium, now, &p), p.initial_score);
        assert_eq!(f.levels.score(Level::High, now, &p), p.initial_score);
        assert_eq!(f.levels.low.as_ref().unwrap().successes, 60);
        // A second fire of a call the version 1 file applied still applies nothing.
        let dup = apply_to_domain(
            &mut f,
            Level::Medium,
            Outcome::Success,
            Some("toolu_old"),
            now,
            &p,
        );
        assert!(dup.duplicate && dup.before == p.initial_score && dup.after == dup.before);
        assert!(f.levels.medium.is_none());
        // The next update writes version 2.
        apply_to_domain(
            &mut f,
            Level::Medium,
            Outcome::Success,
            Some("toolu_new"),
            now,
            &p,
        );
        let written = serde_json::to_value(&f).unwrap();
        assert_eq!(written["version"], 2);
        assert!(written.get("trust").is_none(), "{written}");
        assert_eq!(written["levels"]["medium"]["successes"], 1);
        assert_eq!(written["levels"]["low"]["successes"], 61);
        assert!(written["levels"].get("high").is_none(), "{written}");
        let again: DomainFile = serde_json::from_value(written).unwrap();
        assert_eq!(again, f);
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
            let d = DomainTrust {
                last_operated_at: Some(at.to_owned()),
                total_operations: n,
                ..DomainTrust::new(&p)
            };
            let mut levels = DomainLevels::only_low(d.clone());
            // A medium level of fewer operations, operated earlier: the low level counts.
            levels.medium = Some(DomainTrust {
                total_operations: 1,
                last_operated_at: Some("2026-01-01T00:00:00Z".into()),
                ..d
            });
            domains.insert(name.to_owned(), levels);
        }
        let v = whole_view(domains);
        assert_eq!(v.version, "3");
        assert_eq!(v.global_operation_count, u64::MAX);
        assert_eq!(v.updated_at, "2026-03-05T10:00:00Z");
        assert_eq!(whole_view(BTreeMap::new()).updated_at, "");
        let mut two = BTreeMap::new();
        two.insert("a".to_owned(), v.domains["a"].clone());
        two.insert("c".to_owned(), v.domains["c"].clone());
        assert_eq!(whole_view(two).global_operation_count, 4);
    }
}
