//! The whole trust state in the shape of `trust-scores.json` (version "2" with the Phase 2a
//! fields: the single file of earlier versions, and the view `oath status` shows of the trust
//! folder), and the pure update rules.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::params::{RiskWeights, TrustParams};
use crate::classify::Risk;
use crate::clock::Timestamp;

/// How many applied outcomes are remembered to ignore a second fire for the same call: per
/// domain in the trust folder (a call's outcomes all go to its domain), over all domains in
/// the single file of earlier versions. A second fire (a second hook entry) runs in parallel
/// with the first, so it is missed only if 64 other outcomes (of all the project's sessions
/// and subagents, in that domain) are applied in between, and then one outcome counts twice.
pub(super) const REMEMBERED_OUTCOMES: usize = 64;

/// The trust state of one domain (seed 001 §5.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainTrust {
    /// Score in [0, 1].
    pub score: f64,
    /// Successful operations.
    #[serde(default)]
    pub successes: u64,
    /// Failed operations.
    #[serde(default)]
    pub failures: u64,
    /// Successes plus failures.
    #[serde(default)]
    pub total_operations: u64,
    /// Last success or failure (ISO 8601).
    #[serde(default)]
    pub last_operated_at: Option<String>,
    /// Whether the domain earns at double rate after hibernation.
    #[serde(default)]
    pub is_warming_up: bool,
    /// Warm-up successes left.
    #[serde(default)]
    pub warmup_remaining: u32,
    /// Failures since the last success (Phase 2a).
    #[serde(default)]
    pub consecutive_failures: u32,
    /// Score before the first failure of the current recovery (Phase 2a).
    #[serde(default)]
    pub pre_failure_score: Option<f64>,
    /// Whether successes earn at the recovery-boosted rate (Phase 2a).
    #[serde(default)]
    pub is_recovering: bool,
}

impl DomainTrust {
    /// Returns a fresh domain at the initial score.
    pub fn new(params: &TrustParams) -> Self {
        Self {
            score: params.initial_score,
            successes: 0,
            failures: 0,
            total_operations: 0,
            last_operated_at: None,
            is_warming_up: false,
            warmup_remaining: 0,
            consecutive_failures: 0,
            pre_failure_score: None,
            is_recovering: false,
        }
    }
}

/// An outcome already applied, remembered so a second hook fire for the same call is ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppliedOutcome {
    /// The call.
    pub tool_use_id: String,
    /// `success` or `failure`.
    pub outcome: Outcome,
}

/// The result of a tool call, as far as trust is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The tool succeeded.
    Success,
    /// The tool failed.
    Failure,
}

impl Outcome {
    /// Returns `success` or `failure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
        }
    }
}

/// The whole trust file. Reading accepts version "2" (Phase 2a fields filled in when absent)
/// and the v1 shape `{score, successes, failures}`, migrated into `_global`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrustFile {
    /// Always "2".
    pub version: String,
    /// Last write (ISO 8601).
    pub updated_at: String,
    /// Successes and failures over all domains.
    pub global_operation_count: u64,
    /// Per-domain state, keyed by domain name (unknown names are kept as they are).
    pub domains: BTreeMap<String, DomainTrust>,
    /// Outcomes recently applied, by tool_use_id (oath's addition; readers may ignore it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_outcomes: Vec<AppliedOutcome>,
}

/// Every top-level field of either version, read in one pass (no intermediate `Value` tree:
/// every PreToolUse reads this file).
#[derive(Default)]
struct AnyVersion {
    version: Option<Value>,
    updated_at: Option<String>,
    global_operation_count: u64,
    domains: BTreeMap<String, DomainTrust>,
    recent_outcomes: Vec<AppliedOutcome>,
    // Version 1.
    score: Option<Value>,
    successes: Option<Value>,
    failures: Option<Value>,
}

struct AnyVersionVisitor;

impl<'de> serde::de::Visitor<'de> for AnyVersionVisitor {
    type Value = AnyVersion;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // serde would read a JSON array as the fields of a struct in order: only an object
        // is accepted, so `[1,2,3]` is corrupt rather than a v1 file with score 1.
        f.write_str("the trust file must be a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<AnyVersion, A::Error> {
        let mut out = AnyVersion::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "version" => out.version = Some(map.next_value()?),
                "updated_at" => out.updated_at = map.next_value()?,
                "global_operation_count" => {
                    out.global_operation_count = map.next_value::<Option<u64>>()?.unwrap_or(0);
                }
                "domains" => out.domains = map.next_value::<Option<_>>()?.unwrap_or_default(),
                "recent_outcomes" => {
                    out.recent_outcomes = map.next_value::<Option<_>>()?.unwrap_or_default();
                }
                "score" => out.score = Some(map.next_value()?),
                "successes" => out.successes = Some(map.next_value()?),
                "failures" => out.failures = Some(map.next_value()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for TrustFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let any = d.deserialize_map(AnyVersionVisitor)?;
        match version_of(any.version.as_ref()).map_err(D::Error::custom)? {
            Version::V2 => {
                for (name, d) in &any.domains {
                    check_score(name, d).map_err(D::Error::custom)?;
                }
                Ok(Self {
                    version: "2".into(),
                    updated_at: any.updated_at.unwrap_or_default(),
                    global_operation_count: any.global_operation_count,
                    domains: any.domains,
                    recent_outcomes: any.recent_outcomes,
                })
            }
            Version::V1 => {
                let global =
                    v1_global(any.score, any.successes, any.failures).map_err(D::Error::custom)?;
                let count = global.total_operations;
                let mut domains = BTreeMap::new();
                domains.insert(GLOBAL.to_owned(), global);
                Ok(Self {
                    version: "2".into(),
                    updated_at: String::new(),
                    global_operation_count: count,
                    domains,
                    recent_outcomes: Vec::new(),
                })
            }
        }
    }
}

/// The domain a version 1 file migrates into.
const GLOBAL: &str = "_global";

/// The versions of the trust file this oath reads.
enum Version {
    /// `{score, successes, failures}` (no `version`, or `"1"`).
    V1,
    /// Per-domain state.
    V2,
}

/// Reads the `version` field (a string or a number; absent means version 1).
fn version_of(v: Option<&Value>) -> Result<Version, String> {
    let number;
    let version = match v {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Number(n)) => {
            number = n.to_string();
            Some(number.as_str())
        }
        Some(other) => return Err(format!("version must be a string, found {other}")),
    };
    match version {
        Some("2") => Ok(Version::V2),
        None | Some("1") => Ok(Version::V1),
        Some(other) => Err(format!(
            "version {other:?} is not one this oath understands (it reads versions 1 and 2)"
        )),
    }
}

/// Checks that a domain's score is a number in [0, 1].
pub(super) fn check_score(name: &str, d: &DomainTrust) -> Result<(), String> {
    if d.score.is_finite() && (0.0..=1.0).contains(&d.score) {
        Ok(())
    } else {
        Err(format!(
            "domain {name} has score {} outside [0, 1]",
            d.score
        ))
    }
}

/// Migrates the fields of a version 1 file into the `_global` domain (a score outside
/// [0, 1] is replaced by the initial one; absent or null counts are 0).
fn v1_global(
    score: Option<Value>,
    successes: Option<Value>,
    failures: Option<Value>,
) -> Result<DomainTrust, String> {
    let count = |v: Option<Value>, name: &str| -> Result<u64, String> {
        match v {
            None | Some(Value::Null) => Ok(0),
            Some(v) => serde_json::from_value(v).map_err(|e| format!("{name}: {e}")),
        }
    };
    let score: Option<f64> = match score {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value(v).map_err(|e| format!("score: {e}"))?),
    };
    let successes = count(successes, "successes")?;
    let failures = count(failures, "failures")?;
    let mut global = DomainTrust::new(&TrustParams::default());
    if let Some(s) = score.filter(|s| s.is_finite() && (0.0..=1.0).contains(s)) {
        global.score = s;
    }
    global.successes = successes;
    global.failures = failures;
    global.total_operations = successes.saturating_add(failures);
    Ok(global)
}

/// Reads one domain of the trust file and skips the rest (other domains, remembered
/// outcomes) without building it: PreToolUse needs one domain, and building the whole file
/// (50 domains, the remembered outcomes) was over half of a simple call's instructions.
/// The version is checked and the domain validated as [`TrustFile`] does; the rest is only
/// checked to be JSON syntax (its strings are not checked for UTF-8). A file invalid only
/// there gives the domain's score, not the initial one with a warning, until the next update
/// reads the whole file and moves it aside (the file is a protected path: a tool call that
/// writes it is denied).
/// `None`: the file does not hold the domain.
pub struct OneDomain<'a>(pub &'a str);

impl<'de> serde::de::DeserializeSeed<'de> for OneDomain<'_> {
    type Value = Option<DomainTrust>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for OneDomain<'_> {
    type Value = Option<DomainTrust>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        AnyVersionVisitor.expecting(f)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut version, mut domain) = (None, None);
        let (mut score, mut successes, mut failures) = (None, None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "version" => version = Some(map.next_value()?),
                "domains" => domain = map.next_value_seed(PickDomain(self.0))?,
                "score" => score = Some(map.next_value()?),
                "successes" => successes = Some(map.next_value()?),
                "failures" => failures = Some(map.next_value()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        match version_of(version.as_ref()).map_err(A::Error::custom)? {
            Version::V2 => {
                if let Some(d) = &domain {
                    check_score(self.0, d).map_err(A::Error::custom)?;
                }
                Ok(domain)
            }
            Version::V1 if self.0 == GLOBAL => v1_global(score, successes, failures)
                .map(Some)
                .map_err(A::Error::custom),
            Version::V1 => Ok(None),
        }
    }
}

/// The `domains` object (or null), keeping the one named domain.
struct PickDomain<'a>(&'a str);

impl<'de> serde::de::DeserializeSeed<'de> for PickDomain<'_> {
    type Value = Option<DomainTrust>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> serde::de::Visitor<'de> for PickDomain<'_> {
    type Value = Option<DomainTrust>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map of domains")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 {
                // A repeated name: the last wins, as when the whole map is read.
                found = Some(map.next_value::<DomainTrust>()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

impl TrustFile {
    /// Returns a new file holding only `_global` at the initial score.
    pub fn new(params: &TrustParams, now: Timestamp) -> Self {
        let mut domains = BTreeMap::new();
        domains.insert(GLOBAL.to_owned(), DomainTrust::new(params));
        Self {
            version: "2".into(),
            updated_at: now.iso_seconds(),
            global_operation_count: 0,
            domains,
            recent_outcomes: Vec::new(),
        }
    }

    /// Returns the effective trust of a domain now (idle decay applied, nothing written).
    /// A domain never operated has the initial score.
    pub fn score(&self, domain: &str, now: Timestamp, params: &TrustParams) -> f64 {
        score_of(self.domains.get(domain), now, params)
    }
}

/// Returns the effective trust of a domain's state now (idle decay applied); a domain never
/// operated (`None`) has the initial score.
pub fn score_of(domain: Option<&DomainTrust>, now: Timestamp, params: &TrustParams) -> f64 {
    domain.map_or(params.initial_score, |d| effective(d, now, params).score)
}

/// Rounds to `digits` decimals (the seed's round4 / round5).
fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Returns a domain as it is now: when it has been idle longer than the hibernation period,
/// its score decayed by `base^(days − hibernation)` (rounded to 4 decimals) and warm-up armed.
/// The stored state is not changed; the decay is materialised at the next operation only.
pub fn effective(d: &DomainTrust, now: Timestamp, params: &TrustParams) -> DomainTrust {
    let mut out = d.clone();
    let Some(last) = d.last_operated_at.as_deref().and_then(Timestamp::parse) else {
        return out;
    };
    let days = now.days_since(last);
    let hib = i64::from(params.hibernation_days);
    if days > hib {
        let exponent = i32::try_from(days - hib).unwrap_or(i32::MAX);
        out.score = round(d.score * params.idle_decay_base.powi(exponent), 4).clamp(0.0, 1.0);
        out.is_warming_up = params.warmup_operations > 0;
        out.warmup_remaining = params.warmup_operations;
    }
    out
}

/// What one outcome did to a domain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrustUpdate {
    /// Effective score before.
    pub before: f64,
    /// Score after.
    pub after: f64,
    /// True when this call's outcome was already applied (a second hook fire): nothing changed.
    pub duplicate: bool,
}

/// Applies a success or failure of `tool_use_id` in `domain`.
///
/// Success: `rate = base × (2 if warming up) × (recovery multiplier if recovering)` where base
/// is the boost rate for the first `boost_threshold` operations and the normal rate after;
/// `score += (1 − score) × rate`, rounded to 5 decimals; recovery ends once the score is back
/// to the pre-failure score. Failure: the first failure of a run records the pre-failure score
/// and starts recovery, later ones keep it; `score ×= failure_decay`. Both materialise idle
/// decay first. An outcome already recorded for the same `tool_use_id` changes nothing.
pub fn apply_outcome(
    file: &mut TrustFile,
    domain: &str,
    outcome: Outcome,
    tool_use_id: Option<&str>,
    now: Timestamp,
    params: &TrustParams,
) -> TrustUpdate {
    if was_applied(&file.recent_outcomes, tool_use_id) {
        let s = file.score(domain, now, params);
        return TrustUpdate {
            before: s,
            after: s,
            duplicate: true,
        };
    }
    let current = file
        .domains
        .get(domain)
        .cloned()
        .unwrap_or_else(|| DomainTrust::new(params));
    let (d, update) = advance(&current, outcome, now, params);
    file.domains.insert(domain.to_owned(), d);
    file.global_operation_count = file.global_operation_count.saturating_add(1);
    file.updated_at = now.iso_seconds();
    if let Some(id) = tool_use_id {
        remember_outcome(&mut file.recent_outcomes, id, outcome);
    }
    update
}

/// Returns whether `tool_use_id`'s outcome is among those remembered.
pub(super) fn was_applied(recent: &[AppliedOutcome], tool_use_id: Option<&str>) -> bool {
    tool_use_id.is_some_and(|id| recent.iter().any(|a| a.tool_use_id == id))
}

/// Remembers an applied outcome, forgetting the oldest past [`REMEMBERED_OUTCOMES`].
pub(super) fn remember_outcome(
    recent: &mut Vec<AppliedOutcome>,
    tool_use_id: &str,
    outcome: Outcome,
) {
    recent.push(AppliedOutcome {
        tool_use_id: tool_use_id.to_owned(),
        outcome,
    });
    let excess = recent.len().saturating_sub(REMEMBERED_OUTCOMES);
    recent.drain(..excess);
}

/// Returns a domain's state after one success or failure at `now` (the rules of
/// [`apply_outcome`]), and the update.
pub(super) fn advance(
    current: &DomainTrust,
    outcome: Outcome,
    now: Timestamp,
    params: &TrustParams,
) -> (DomainTrust, TrustUpdate) {
    let mut d = effective(current, now, params);
    let before = d.score;
    match outcome {
        Outcome::Success => {
            let warm = d.is_warming_up;
            let boosted = d.total_operations < u64::from(params.boost_threshold);
            let base = if boosted {
                params.boost_rate
            } else {
                params.normal_rate
            };
            let base = if warm { base * 2.0 } else { base };
            let recovering = d.is_recovering && d.pre_failure_score.is_some();
            let rate = if recovering {
                base * params.recovery_boost_multiplier
            } else {
                base
            };
            d.score = round(d.score + (1.0 - d.score) * rate, 5).clamp(0.0, 1.0);
            if warm {
                d.warmup_remaining = d.warmup_remaining.saturating_sub(1);
                d.is_warming_up = d.warmup_remaining > 0;
            }
            if d.is_recovering && d.score >= d.pre_failure_score.unwrap_or(1.0)
                || d.pre_failure_score.is_none()
            {
                d.is_recovering = false;
                d.pre_failure_score = None;
            }
            d.successes = d.successes.saturating_add(1);
            d.consecutive_failures = 0;
        }
        Outcome::Failure => {
            if d.consecutive_failures == 0 && !d.is_recovering {
                d.pre_failure_score = Some(d.score);
                d.is_recovering = true;
            }
            d.score = (d.score * params.failure_decay).clamp(0.0, 1.0);
            d.failures = d.failures.saturating_add(1);
            d.consecutive_failures = d.consecutive_failures.saturating_add(1);
        }
    }
    // Counters saturate: a hand-edited or hostile file holding u64::MAX must not panic.
    d.total_operations = d.total_operations.saturating_add(1);
    d.last_operated_at = Some(now.iso_seconds());
    let update = TrustUpdate {
        before,
        after: d.score,
        duplicate: false,
    };
    (d, update)
}

/// Returns `autonomy = clamp01(1 − (λ1·risk/4 + λ2·complexity)·(1 − trust))`.
pub fn autonomy(trust: f64, risk: Risk, weights: &RiskWeights) -> f64 {
    let k = weights.lambda1 * f64::from(risk.value()) / 4.0 + weights.lambda2 * risk.complexity();
    (1.0 - k * (1.0 - trust)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> Timestamp {
        Timestamp::parse("2026-03-01T00:00:00Z").unwrap()
    }

    fn run(file: &mut TrustFile, outcomes: &[Outcome]) -> Vec<f64> {
        let p = TrustParams::default();
        outcomes
            .iter()
            .map(|o| apply_outcome(file, "shell_exec", *o, None, t0(), &p).after)
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn growth_trajectory_matches_the_reference() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(&p, t0());
        let s = run(&mut f, &[Outcome::Success; 25]);
        for (step, want) in [
            (1, 0.335),
            (2, 0.36825),
            (5, 0.45836),
            (10, 0.58089),
            (19, 0.73585),
            (20, 0.74906),
            (21, 0.75408),
            (25, 0.77317),
        ] {
            assert!(
                close(s[step - 1], want),
                "step {step}: {} != {want}",
                s[step - 1]
            );
        }
    }

    #[test]
    fn failure_and_recovery_match_the_reference() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(&p, t0());
        run(&mut f, &[Outcome::Success; 25]);
        let s = run(&mut f, &[Outcome::Failure, Outcome::Failure]);
        assert!(close(s[0], 0.6571945) && close(s[1], 0.558615325), "{s:?}");
        let d = &f.domains["shell_exec"];
        assert_eq!(d.pre_failure_score, Some(0.77317));
        assert!(d.is_recovering);
        assert_eq!(d.consecutive_failures, 2);
        let s = run(&mut f, &[Outcome::Success; 3]);
        assert!(
            close(s[0], 0.57186) && close(s[1], 0.5847) && close(s[2], 0.59716),
            "{s:?}"
        );
        assert_eq!(f.domains["shell_exec"].consecutive_failures, 0);
        // A failure during recovery keeps the first pre-failure score.
        run(&mut f, &[Outcome::Failure]);
        assert_eq!(f.domains["shell_exec"].pre_failure_score, Some(0.77317));
        // Recovery ends once the score is back.
        run(&mut f, &[Outcome::Success; 40]);
        let d = &f.domains["shell_exec"];
        assert!(!d.is_recovering && d.pre_failure_score.is_none() && d.score >= 0.77317);
    }

    #[test]
    fn idle_decay_is_computed_on_read_and_materialised_once() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(&p, t0());
        apply_outcome(&mut f, "file_read", Outcome::Success, None, t0(), &p);
        let stored = f.domains["file_read"].score;
        let later = t0().plus_seconds(100 * 86_400);
        let e1 = f.score("file_read", later, &p);
        let e2 = f.score("file_read", later, &p);
        assert_eq!(e1, e2, "reading twice does not compound");
        assert!(close(e1, round(stored * 0.999f64.powi(86), 4)));
        assert_eq!(f.domains["file_read"].score, stored, "reading never writes");
        // The next success starts from the decayed score, at warm-up rate, and re-arms nothing.
        let u = apply_outcome(&mut f, "file_read", Outcome::Success, None, later, &p);
        assert!(close(u.before, e1));
        assert!(close(u.after, round(e1 + (1.0 - e1) * 0.10, 5)));
        let d = &f.domains["file_read"];
        assert!(d.is_warming_up && d.warmup_remaining == 4);
        assert!(close(f.score("file_read", later, &p), u.after));
    }

    #[test]
    fn the_last_outcomes_are_remembered() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(&p, t0());
        let apply = |f: &mut TrustFile, i: usize| {
            let id = format!("toolu_{i}");
            apply_outcome(f, "file_read", Outcome::Success, Some(&id), t0(), &p).duplicate
        };
        for i in 0..REMEMBERED_OUTCOMES + 10 {
            assert!(!apply(&mut f, i));
        }
        assert_eq!(f.recent_outcomes.len(), REMEMBERED_OUTCOMES);
        assert!(apply(&mut f, 10), "the oldest remembered call");
        assert!(!apply(&mut f, 9), "forgotten: applied again");
    }

    #[test]
    fn duplicate_outcome_is_ignored() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(&p, t0());
        let a = apply_outcome(
            &mut f,
            "git_local",
            Outcome::Failure,
            Some("toolu_1"),
            t0(),
            &p,
        );
        let b = apply_outcome(
            &mut f,
            "git_local",
            Outcome::Failure,
            Some("toolu_1"),
            t0(),
            &p,
        );
        assert!(!a.duplicate && b.duplicate);
        assert_eq!(f.domains["git_local"].failures, 1);
        assert!(close(f.domains["git_local"].score, 0.3 * 0.85));
    }

    #[test]
    fn counters_saturate_instead_of_overflowing() {
        let params = TrustParams::default();
        let now = Timestamp::from_unix(1_772_366_400);
        let mut file: TrustFile = serde_json::from_str(&format!(
            r#"{{"version":"2","global_operation_count":{m},"domains":{{"file_read":{{"score":0.5,"successes":{m},"failures":{m},"total_operations":{m},"consecutive_failures":{c}}}}}}}"#,
            m = u64::MAX,
            c = u32::MAX
        ))
        .unwrap();
        apply_outcome(&mut file, "file_read", Outcome::Success, None, now, &params);
        apply_outcome(&mut file, "file_read", Outcome::Failure, None, now, &params);
        let d = &file.domains["file_read"];
        assert_eq!(
            (d.successes, d.failures, d.total_operations),
            (u64::MAX, u64::MAX, u64::MAX)
        );
        assert_eq!(file.global_operation_count, u64::MAX);
        let v1: TrustFile = serde_json::from_str(&format!(
            r#"{{"successes":{m},"failures":1}}"#,
            m = u64::MAX
        ))
        .unwrap();
        assert_eq!(v1.global_operation_count, u64::MAX);
    }

    #[test]
    fn v1_file_migrates_and_unknown_version_is_refused() {
        let f: TrustFile =
            serde_json::from_str(r#"{"score":0.6,"successes":20,"failures":3}"#).unwrap();
        assert_eq!(f.version, "2");
        let g = &f.domains["_global"];
        assert_eq!(
            (g.score, g.successes, g.failures, g.total_operations),
            (0.6, 20, 3, 23)
        );
        assert_eq!(f.global_operation_count, 23);
        let v2_without_2a: TrustFile = serde_json::from_str(
            r#"{"version":"2","updated_at":"x","global_operation_count":1,"domains":{"file_read":{"score":0.4,"successes":1,"failures":0,"total_operations":1,"last_operated_at":"2026-01-01T00:00:00Z","is_warming_up":false,"warmup_remaining":0}}}"#,
        )
        .unwrap();
        let d = &v2_without_2a.domains["file_read"];
        assert_eq!(
            (d.consecutive_failures, d.pre_failure_score, d.is_recovering),
            (0, None, false)
        );
        assert!(serde_json::from_str::<TrustFile>(r#"{"version":"3","domains":{}}"#).is_err());
        assert!(serde_json::from_str::<TrustFile>("[0.9, 2, 3]").is_err());
        let null_version = serde_json::from_str::<TrustFile>(r#"{"version":null,"score":0.9}"#);
        assert!(
            null_version
                .unwrap_err()
                .to_string()
                .contains("version must be a string"),
            "a null version is not read as version 1"
        );
        assert!(
            serde_json::from_str::<TrustFile>(r#"{"version":"2","domains":{"a":{"score":7}}}"#)
                .is_err()
        );
    }

    /// Reads one domain the way PreToolUse does.
    fn one(json: &str, domain: &str) -> Result<Option<DomainTrust>, String> {
        crate::state::from_slice_seed(json.as_bytes(), OneDomain(domain)).map_err(|e| e.to_string())
    }

    #[test]
    fn one_domain_reads_what_the_whole_file_holds() {
        let files = [
            r#"{"version":"2","domains":{"a":{"score":0.4,"successes":3},"b":{"score":0.9}},"recent_outcomes":[{"tool_use_id":"t","outcome":"success"}]}"#,
            r#"{"version":2,"domains":{"a":{"score":0.1},"a":{"score":0.7}}}"#,
            r#"{"domains":{"a":{"score":0.1}},"version":"2","updated_at":"x"}"#,
            r#"{"version":"2","domains":null}"#,
            r#"{"version":"2"}"#,
            r#"{"score":0.6,"successes":20,"failures":3}"#,
            r#"{"version":"1","score":7,"successes":null}"#,
            r#"{"version":"3","domains":{}}"#,
            r#"{"version":null,"score":0.9}"#,
            r#"{"version":"2","domains":[]}"#,
            r#"{"version":"2","domains":{"a":{"score":0.2}},"domains":{"b":{"score":0.3}}}"#,
            r#"{"score":0.6,"domains":{"a":{"score":0.9}}}"#,
            r#"{"version":1,"domains":{"_global":{"score":0.9},"a":{"score":0.9}}}"#,
            "[0.9, 2, 3]",
            r#"{"version":"2","domains":{}} x"#,
        ];
        for json in files {
            let whole = serde_json::from_str::<TrustFile>(json);
            for domain in ["a", "b", "_global", "missing"] {
                let want = whole
                    .as_ref()
                    .map(|f| f.domains.get(domain).cloned())
                    .map_err(|_| ());
                assert_eq!(one(json, domain).map_err(|_| ()), want, "{json} / {domain}");
            }
        }
    }

    #[test]
    fn one_domain_skips_what_it_does_not_read() {
        // Another domain's invalid score or a malformed field it does not read is left for
        // the next update (which reads the whole file) to find.
        let json = r#"{"version":"2","updated_at":5,"domains":{"a":{"score":0.4},"b":{"score":7}},"recent_outcomes":"?"}"#;
        assert!(serde_json::from_str::<TrustFile>(json).is_err());
        assert_eq!(one(json, "a").unwrap().map(|d| d.score), Some(0.4));
        assert!(one(json, "b").is_err(), "the domain read is validated");
        assert!(one(r#"{"version":"2","domains":{"a":{"score":"high"}}}"#, "a").is_err());
        assert!(one(r#"{"version":"2","domains":{"a":{"score":0.4}}"#, "a").is_err());
    }

    #[test]
    fn autonomy_regions_match_the_reference() {
        let w = RiskWeights::default();
        assert!(close(autonomy(0.3, Risk::Low, &w), 0.839));
        assert!(close(autonomy(0.3, Risk::Medium, &w), 0.65));
        assert!(close(autonomy(0.3, Risk::High, &w), 0.489));
        assert!(close(autonomy(0.3, Risk::Critical, &w), 0.3));
    }
}
