//! Trust per risk level (ADR 0025): each domain keeps one seed state per level (low, medium,
//! high). A call is decided by its own level's trust; a success at a level raises that level
//! and the ones below it (medium work vouches for low, reads never vouch for writes), and a
//! failure at any level lowers every level of its domain.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::model::{DomainTrust, Outcome, TrustUpdate, advance, check_score, score_of};
use super::params::TrustParams;
use crate::classify::Risk;
use crate::clock::Timestamp;

/// A level of trust within a domain: the risk of the calls it decides and is earned by.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Low-risk calls (reads, tests, recording in git).
    Low,
    /// Medium-risk calls (builds, scripts, shell writes).
    Medium,
    /// High-risk calls (and critical ones, which are denied whatever the trust).
    High,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Self; 3] = [Self::Low, Self::Medium, Self::High];

    /// Returns the level of a call of `risk`. A critical call is denied whatever the trust;
    /// where a score is needed for it, high's is used.
    pub fn of(risk: Risk) -> Self {
        match risk {
            Risk::Low => Self::Low,
            Risk::Medium => Self::Medium,
            Risk::High | Risk::Critical => Self::High,
        }
    }

    /// Returns the lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One domain's trust, one seed state per level; a level never operated (`None`, absent
/// from the file) has the initial score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainLevels {
    /// Low-risk calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<DomainTrust>,
    /// Medium-risk calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<DomainTrust>,
    /// High-risk calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<DomainTrust>,
}

impl DomainLevels {
    /// Returns the levels of a domain whose trust was kept as one score (a version 1 domain
    /// file, the single file of earlier versions): it becomes the low level only, and medium
    /// and high start at the initial score, since nothing says at which level it was earned.
    pub fn only_low(d: DomainTrust) -> Self {
        Self {
            low: Some(d),
            medium: None,
            high: None,
        }
    }

    /// Returns a level's state (`None`: never operated).
    pub fn get(&self, level: Level) -> Option<&DomainTrust> {
        match level {
            Level::Low => self.low.as_ref(),
            Level::Medium => self.medium.as_ref(),
            Level::High => self.high.as_ref(),
        }
    }

    fn slot(&mut self, level: Level) -> &mut Option<DomainTrust> {
        match level {
            Level::Low => &mut self.low,
            Level::Medium => &mut self.medium,
            Level::High => &mut self.high,
        }
    }

    /// Returns the effective trust of a level now (idle decay applied, nothing written).
    pub fn score(&self, level: Level, now: Timestamp, params: &TrustParams) -> f64 {
        score_of(self.get(level), now, params)
    }

    /// Returns the levels operated, lowest first.
    pub fn operated(&self) -> impl Iterator<Item = (Level, &DomainTrust)> {
        Level::ALL
            .into_iter()
            .filter_map(|l| self.get(l).map(|d| (l, d)))
    }

    /// Returns the outcomes applied to the domain: every outcome touches the low level (a
    /// success raises low and up to its own level, a failure every level), so this is the
    /// most operations of any level.
    pub fn operations(&self) -> u64 {
        self.operated()
            .map(|(_, d)| d.total_operations)
            .max()
            .unwrap_or(0)
    }

    /// Returns the latest operation of any level (as stored; times that do not parse are
    /// left out).
    pub fn last_operated_at(&self) -> Option<&str> {
        self.operated()
            .filter_map(|(_, d)| d.last_operated_at.as_deref())
            .filter_map(|s| Timestamp::parse(s).map(|t| (t, s)))
            .max_by_key(|(t, _)| *t)
            .map(|(_, s)| s)
    }

    /// Checks that every level's score is a number in [0, 1].
    pub fn check(&self, name: &str) -> Result<(), String> {
        for (level, d) in self.operated() {
            check_score(&format!("{name} ({level})"), d)?;
        }
        Ok(())
    }

    /// Takes each level of `other` (the same domain from another file) that is further
    /// along than the one held ([`super::is_further_along`]; a level never operated here is
    /// always taken). Returns whether anything was taken.
    pub fn take_further_along(&mut self, other: Self) -> bool {
        let mut taken = false;
        for level in Level::ALL {
            let Some(theirs) = other.get(level) else {
                continue;
            };
            let take = self
                .get(level)
                .is_none_or(|held| super::is_further_along(held, theirs));
            if take {
                *self.slot(level) = Some(theirs.clone());
                taken = true;
            }
        }
        taken
    }
}

/// Applies a success or failure of a call at `level` to its domain's levels, each level with
/// the seed's rules ([`super::apply_outcome`]) on its own state: a success raises `level` and
/// the levels below it, a failure lowers every level (it shows the domain's work going
/// wrong). Returns what it did to `level` itself.
pub fn advance_levels(
    levels: &mut DomainLevels,
    level: Level,
    outcome: Outcome,
    now: Timestamp,
    params: &TrustParams,
) -> TrustUpdate {
    let mut step = |l: Level| {
        let slot = levels.slot(l);
        let current = slot.take().unwrap_or_else(|| DomainTrust::new(params));
        let (d, update) = advance(&current, outcome, now, params);
        *slot = Some(d);
        update
    };
    let own = step(level);
    for l in Level::ALL {
        let touched = match outcome {
            Outcome::Success => l < level,
            Outcome::Failure => l != level,
        };
        if touched {
            step(l);
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> Timestamp {
        Timestamp::parse("2026-03-01T00:00:00Z").unwrap()
    }

    /// The stored score of each level, low first (`None`: never operated).
    fn scores(l: &DomainLevels) -> [Option<f64>; 3] {
        Level::ALL.map(|lv| l.get(lv).map(|d| d.score))
    }

    #[test]
    fn critical_calls_use_the_high_level() {
        assert_eq!(Level::of(Risk::Low), Level::Low);
        assert_eq!(Level::of(Risk::Medium), Level::Medium);
        assert_eq!(Level::of(Risk::High), Level::High);
        assert_eq!(Level::of(Risk::Critical), Level::High);
    }

    #[test]
    fn a_success_raises_its_level_and_those_below_only() {
        let p = TrustParams::default();
        // (level of the success, scores after it: low, medium, high)
        let table = [
            (Level::Low, [Some(0.335), None, None]),
            (Level::Medium, [Some(0.335), Some(0.335), None]),
            (Level::High, [Some(0.335), Some(0.335), Some(0.335)]),
        ];
        for (level, want) in table {
            let mut l = DomainLevels::default();
            let u = advance_levels(&mut l, level, Outcome::Success, t0(), &p);
            assert_eq!(scores(&l), want, "success at {level}");
            assert_eq!((u.before, u.after), (0.3, 0.335), "{level}");
            for (lv, d) in l.operated() {
                assert_eq!((d.successes, d.total_operations), (1, 1), "{level}/{lv}");
            }
        }
    }

    #[test]
    fn a_failure_lowers_every_level() {
        let p = TrustParams::default();
        for level in Level::ALL {
            let mut l = DomainLevels::default();
            // Earned at medium first: low 0.335, medium 0.335, high never operated.
            advance_levels(&mut l, Level::Medium, Outcome::Success, t0(), &p);
            let u = advance_levels(&mut l, level, Outcome::Failure, t0(), &p);
            let want = [Some(0.335 * 0.85), Some(0.335 * 0.85), Some(0.3 * 0.85)];
            for (got, want) in scores(&l).iter().zip(want) {
                assert!(
                    (got.unwrap() - want.unwrap()).abs() < 1e-12,
                    "failure at {level}: {:?}",
                    scores(&l)
                );
            }
            let own = l.score(level, t0(), &p);
            assert!((u.after - own).abs() < 1e-12, "{level}: {u:?}");
            for (lv, d) in l.operated() {
                assert_eq!(d.consecutive_failures, 1, "{level}/{lv}");
                assert!(d.is_recovering, "{level}/{lv}");
            }
        }
    }

    #[test]
    fn each_level_follows_the_seed_on_its_own_state() {
        // Thirty low successes take low past medium's threshold and leave medium where it
        // started; medium work then earns at the boosted rate of its own first operations.
        let p = TrustParams::default();
        let mut l = DomainLevels::default();
        for _ in 0..30 {
            advance_levels(&mut l, Level::Low, Outcome::Success, t0(), &p);
        }
        assert!(l.score(Level::Low, t0(), &p) > 0.75);
        assert_eq!(l.score(Level::Medium, t0(), &p), p.initial_score);
        assert_eq!(l.score(Level::High, t0(), &p), p.initial_score);
        let u = advance_levels(&mut l, Level::Medium, Outcome::Success, t0(), &p);
        assert_eq!(
            (u.before, u.after),
            (0.3, 0.335),
            "medium's own boost period"
        );
        assert_eq!(l.operations(), 31);
        // Idle decay and warm-up are per level: each level's own last operation counts.
        let later = t0().plus_seconds(100 * 86_400);
        let low = l.get(Level::Low).unwrap().score;
        assert!(l.score(Level::Low, later, &p) < low);
        advance_levels(&mut l, Level::Low, Outcome::Success, later, &p);
        assert!(l.get(Level::Low).unwrap().is_warming_up);
        assert!(!l.get(Level::Medium).unwrap().is_warming_up);
        assert_eq!(l.last_operated_at(), Some(later.iso_seconds().as_str()));
    }

    #[test]
    fn levels_further_along_are_taken() {
        let p = TrustParams::default();
        let mut held = DomainLevels::default();
        advance_levels(&mut held, Level::Medium, Outcome::Success, t0(), &p);
        let mut later = DomainTrust::new(&p);
        later.last_operated_at = Some("2026-03-02T00:00:00Z".into());
        later.score = 0.9;
        assert!(held.take_further_along(DomainLevels::only_low(later.clone())));
        assert_eq!(held.low, Some(later.clone()));
        assert_eq!(held.get(Level::Medium).unwrap().score, 0.335, "kept");
        assert!(!held.take_further_along(DomainLevels::only_low(later)));
        assert!(held.check("x").is_ok());
        held.high = Some(DomainTrust {
            score: 1.5,
            ..DomainTrust::new(&p)
        });
        assert!(held.check("x").unwrap_err().contains("x (high)"));
    }
}
