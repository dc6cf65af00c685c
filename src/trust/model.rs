//! One level's trust state (the seed's per-domain fields) and its pure update rules, and the
//! whole trust state by domain and level in one value ([`TrustFile`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::levels::{DomainLevels, Level, advance_levels};
use super::params::{RiskWeights, TrustParams};
use crate::classify::Risk;
use crate::clock::Timestamp;

/// How many applied outcomes are remembered to ignore a second fire for the same call: per
/// domain in the trust folder (a call's outcomes all go to its domain), over all domains in
/// the single file of earlier versions. A second fire (a second hook entry) runs in parallel
/// with the first, so it is missed only if 64 other outcomes (of all the project's sessions
/// and subagents, in that domain) are applied in between, and then one outcome counts twice.
pub(super) const REMEMBERED_OUTCOMES: usize = 64;

/// The trust state of one level of a domain (seed 001 §5.1: what the seed kept per domain).
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

/// The whole trust state of a project in one value: what `oath status`, `oath demo` and
/// tests read of the trust folder ([`super::whole_view`]), and a trust state in memory that
/// tests drive with [`apply_outcome`]. Never written to disk (the folder holds one file per
/// domain); it serializes as the single file's shape with levels, version "3".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrustFile {
    /// Always "3".
    pub version: String,
    /// Last operation of any domain (ISO 8601).
    pub updated_at: String,
    /// Outcomes applied over all domains.
    pub global_operation_count: u64,
    /// Per-domain state by level, keyed by domain name (unknown names are kept as they are).
    pub domains: BTreeMap<String, DomainLevels>,
    /// Outcomes recently applied, by tool_use_id (in memory; the folder keeps them per domain).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_outcomes: Vec<AppliedOutcome>,
}

/// Checks that a level's score is a number in [0, 1] (`name` says whose).
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

impl TrustFile {
    /// Returns a state holding no domain (every domain at the initial score at every level).
    pub fn new(now: Timestamp) -> Self {
        Self {
            version: "3".into(),
            updated_at: now.iso_seconds(),
            global_operation_count: 0,
            domains: BTreeMap::new(),
            recent_outcomes: Vec::new(),
        }
    }

    /// Returns the effective trust of a domain at a level now (idle decay applied, nothing
    /// written). A level never operated has the initial score.
    pub fn score(&self, domain: &str, level: Level, now: Timestamp, params: &TrustParams) -> f64 {
        score_of(
            self.domains.get(domain).and_then(|d| d.get(level)),
            now,
            params,
        )
    }
}

/// Returns the effective trust of a level's state now (idle decay applied); a level never
/// operated (`None`) has the initial score.
pub fn score_of(domain: Option<&DomainTrust>, now: Timestamp, params: &TrustParams) -> f64 {
    domain.map_or(params.initial_score, |d| effective(d, now, params).score)
}

/// Rounds to `digits` decimals (the seed's round4 / round5).
fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Returns a level's state as it is now: when it has been idle longer than the hibernation period,
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

/// What one outcome did to the level of its call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrustUpdate {
    /// Effective score before.
    pub before: f64,
    /// Score after.
    pub after: f64,
    /// True when this call's outcome was already applied (a second hook fire): nothing changed.
    pub duplicate: bool,
}

/// Applies a success or failure of `tool_use_id`, a call at `level` in `domain`.
///
/// Each level touched follows the seed on its own state: a success raises `level` and the
/// levels below it, a failure lowers every level of the domain ([`advance_levels`]).
/// Success: `rate = base × (2 if warming up) × (recovery multiplier if recovering)` where base
/// is the boost rate for the first `boost_threshold` operations and the normal rate after;
/// `score += (1 − score) × rate`, rounded to 5 decimals; recovery ends once the score is back
/// to the pre-failure score. Failure: the first failure of a run records the pre-failure score
/// and starts recovery, later ones keep it; `score ×= failure_decay`. Both materialise idle
/// decay first. An outcome already recorded for the same `tool_use_id` changes nothing. The
/// update returned is `level`'s.
pub fn apply_outcome(
    file: &mut TrustFile,
    domain: &str,
    level: Level,
    outcome: Outcome,
    tool_use_id: Option<&str>,
    now: Timestamp,
    params: &TrustParams,
) -> TrustUpdate {
    if was_applied(&file.recent_outcomes, tool_use_id) {
        let s = file.score(domain, level, now, params);
        return TrustUpdate {
            before: s,
            after: s,
            duplicate: true,
        };
    }
    let levels = file.domains.entry(domain.to_owned()).or_default();
    let update = advance_levels(levels, level, outcome, now, params);
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

/// Returns a level's state after one success or failure at `now` (the seed's rules of
/// [`apply_outcome`]), and the update.
pub(crate) fn advance(
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

    /// Applies outcomes of calls at one level of one domain (the seed's trajectories hold
    /// for each level's own state).
    fn run(file: &mut TrustFile, outcomes: &[Outcome]) -> Vec<f64> {
        let p = TrustParams::default();
        outcomes
            .iter()
            .map(|o| apply_outcome(file, "shell_exec", Level::Medium, *o, None, t0(), &p).after)
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// A level's stored state.
    fn at<'a>(f: &'a TrustFile, domain: &str, level: Level) -> &'a DomainTrust {
        f.domains[domain].get(level).unwrap()
    }

    #[test]
    fn growth_trajectory_matches_the_reference() {
        let mut f = TrustFile::new(t0());
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
        // Medium work vouched for low (same trajectory), never for high.
        assert_eq!(
            at(&f, "shell_exec", Level::Low),
            at(&f, "shell_exec", Level::Medium)
        );
        assert!(f.domains["shell_exec"].high.is_none());
        assert_eq!(f.global_operation_count, 25);
    }

    #[test]
    fn failure_and_recovery_match_the_reference() {
        let mut f = TrustFile::new(t0());
        run(&mut f, &[Outcome::Success; 25]);
        let s = run(&mut f, &[Outcome::Failure, Outcome::Failure]);
        assert!(close(s[0], 0.6571945) && close(s[1], 0.558615325), "{s:?}");
        let d = at(&f, "shell_exec", Level::Medium);
        assert_eq!(d.pre_failure_score, Some(0.77317));
        assert!(d.is_recovering);
        assert_eq!(d.consecutive_failures, 2);
        let s = run(&mut f, &[Outcome::Success; 3]);
        assert!(
            close(s[0], 0.57186) && close(s[1], 0.5847) && close(s[2], 0.59716),
            "{s:?}"
        );
        assert_eq!(at(&f, "shell_exec", Level::Medium).consecutive_failures, 0);
        // A failure during recovery keeps the first pre-failure score.
        run(&mut f, &[Outcome::Failure]);
        assert_eq!(
            at(&f, "shell_exec", Level::Medium).pre_failure_score,
            Some(0.77317)
        );
        // Recovery ends once the score is back.
        run(&mut f, &[Outcome::Success; 40]);
        let d = at(&f, "shell_exec", Level::Medium);
        assert!(!d.is_recovering && d.pre_failure_score.is_none() && d.score >= 0.77317);
        // High only ever saw the three failures: 0.3 · 0.85³, recovering to 0.3.
        let h = at(&f, "shell_exec", Level::High);
        assert!(close(h.score, 0.3 * 0.85 * 0.85 * 0.85), "{h:?}");
        assert_eq!((h.successes, h.failures), (0, 3));
        assert_eq!(h.pre_failure_score, Some(0.3));
    }

    #[test]
    fn idle_decay_is_computed_on_read_and_materialised_once() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(t0());
        let low = Level::Low;
        apply_outcome(&mut f, "file_read", low, Outcome::Success, None, t0(), &p);
        let stored = at(&f, "file_read", low).score;
        let later = t0().plus_seconds(100 * 86_400);
        let e1 = f.score("file_read", low, later, &p);
        let e2 = f.score("file_read", low, later, &p);
        assert_eq!(e1, e2, "reading twice does not compound");
        assert!(close(e1, round(stored * 0.999f64.powi(86), 4)));
        assert_eq!(
            at(&f, "file_read", low).score,
            stored,
            "reading never writes"
        );
        // The next success starts from the decayed score, at warm-up rate, and re-arms nothing.
        let u = apply_outcome(&mut f, "file_read", low, Outcome::Success, None, later, &p);
        assert!(close(u.before, e1));
        assert!(close(u.after, round(e1 + (1.0 - e1) * 0.10, 5)));
        let d = at(&f, "file_read", low);
        assert!(d.is_warming_up && d.warmup_remaining == 4);
        assert!(close(f.score("file_read", low, later, &p), u.after));
        // A level never operated has the initial score, idle or not.
        assert_eq!(
            f.score("file_read", Level::High, later, &p),
            p.initial_score
        );
    }

    #[test]
    fn the_last_outcomes_are_remembered() {
        let p = TrustParams::default();
        let mut f = TrustFile::new(t0());
        let apply = |f: &mut TrustFile, i: usize| {
            let id = format!("toolu_{i}");
            apply_outcome(
                f,
                "file_read",
                Level::Low,
                Outcome::Success,
                Some(&id),
                t0(),
                &p,
            )
            .duplicate
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
        let mut f = TrustFile::new(t0());
        let mut fire = |level, outcome| {
            apply_outcome(
                &mut f,
                "git_local",
                level,
                outcome,
                Some("toolu_1"),
                t0(),
                &p,
            )
        };
        let a = fire(Level::Medium, Outcome::Failure);
        let b = fire(Level::Medium, Outcome::Failure);
        // A second fire at another level or with another outcome is the same call too.
        let c = fire(Level::Low, Outcome::Success);
        assert!(!a.duplicate && b.duplicate && c.duplicate);
        assert_eq!((b.before, b.after), (a.after, a.after));
        assert_eq!(f.global_operation_count, 1);
        for level in Level::ALL {
            let d = at(&f, "git_local", level);
            assert_eq!((d.failures, d.total_operations), (1, 1), "{level}");
            assert!(close(d.score, 0.3 * 0.85), "{level}");
        }
    }

    #[test]
    fn counters_saturate_instead_of_overflowing() {
        let params = TrustParams::default();
        let now = Timestamp::from_unix(1_772_366_400);
        let m = u64::MAX;
        let full = DomainTrust {
            score: 0.5,
            successes: m,
            failures: m,
            total_operations: m,
            consecutive_failures: u32::MAX,
            ..DomainTrust::new(&params)
        };
        let mut file = TrustFile::new(now);
        file.global_operation_count = m;
        file.domains.insert(
            "file_read".into(),
            DomainLevels {
                low: Some(full.clone()),
                medium: Some(full.clone()),
                high: Some(full),
            },
        );
        for level in Level::ALL {
            for o in [Outcome::Success, Outcome::Failure] {
                apply_outcome(&mut file, "file_read", level, o, None, now, &params);
            }
        }
        for (_, d) in file.domains["file_read"].operated() {
            assert_eq!((d.successes, d.failures, d.total_operations), (m, m, m));
        }
        assert_eq!(file.global_operation_count, m);
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
