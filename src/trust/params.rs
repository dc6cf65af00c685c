//! Parameters of the trust model, with the seed defaults and their valid ranges.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Trust parameters (`trust:` in the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrustParams {
    /// Score of a new domain (0 – 0.5).
    pub initial_score: f64,
    /// Days without operations before idle decay starts (1 – 365).
    pub hibernation_days: u32,
    /// Operations of a domain that earn at the boosted rate (0 – 1000).
    pub boost_threshold: u32,
    /// Success rate during the boost period (0 – 0.5).
    pub boost_rate: f64,
    /// Success rate after the boost period (0 – 0.5).
    pub normal_rate: f64,
    /// Operations at double rate after hibernation (0 – 100).
    pub warmup_operations: u32,
    /// Multiplier applied on each failure (0.5 – 0.99).
    pub failure_decay: f64,
    /// Success-rate multiplier while recovering from a failure (1.0 – 5.0).
    pub recovery_boost_multiplier: f64,
    /// Daily idle-decay base after hibernation (0.9 – 1.0).
    pub idle_decay_base: f64,
}

impl Default for TrustParams {
    fn default() -> Self {
        Self {
            initial_score: 0.3,
            hibernation_days: 14,
            boost_threshold: 20,
            boost_rate: 0.05,
            normal_rate: 0.02,
            warmup_operations: 5,
            failure_decay: 0.85,
            recovery_boost_multiplier: 1.5,
            idle_decay_base: 0.999,
        }
    }
}

/// Risk weights of the autonomy formula (`risk:` in the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RiskWeights {
    /// Weight of the normalised risk (0 – 1).
    pub lambda1: f64,
    /// Weight of the complexity (0 – 1).
    pub lambda2: f64,
}

impl Default for RiskWeights {
    fn default() -> Self {
        Self {
            lambda1: 0.6,
            lambda2: 0.4,
        }
    }
}

/// Decision thresholds (`autonomy:` in the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AutonomyParams {
    /// Autonomy strictly above this is allowed without a prompt (0 – 1).
    pub auto_approve_threshold: f64,
    /// Autonomy at or above this (and not above the approve threshold) is "no opinion";
    /// below it oath asks (0 – 1, below `auto_approve_threshold`).
    pub human_required_threshold: f64,
}

impl Default for AutonomyParams {
    fn default() -> Self {
        Self {
            auto_approve_threshold: 0.8,
            human_required_threshold: 0.4,
        }
    }
}

fn check(errors: &mut Vec<String>, key: &str, value: f64, lo: f64, hi: f64) {
    if !(value.is_finite() && value >= lo && value <= hi) {
        errors.push(format!(
            "{key} is {value}, but it must be between {lo} and {hi}"
        ));
    }
}

impl TrustParams {
    /// Returns every out-of-range value, as messages naming the key.
    pub fn validate(&self) -> Vec<String> {
        let mut e = Vec::new();
        check(&mut e, "trust.initial_score", self.initial_score, 0.0, 0.5);
        check(
            &mut e,
            "trust.hibernation_days",
            f64::from(self.hibernation_days),
            1.0,
            365.0,
        );
        check(
            &mut e,
            "trust.boost_threshold",
            f64::from(self.boost_threshold),
            0.0,
            1000.0,
        );
        check(&mut e, "trust.boost_rate", self.boost_rate, 0.0, 0.5);
        check(&mut e, "trust.normal_rate", self.normal_rate, 0.0, 0.5);
        check(
            &mut e,
            "trust.warmup_operations",
            f64::from(self.warmup_operations),
            0.0,
            100.0,
        );
        check(&mut e, "trust.failure_decay", self.failure_decay, 0.5, 0.99);
        check(
            &mut e,
            "trust.recovery_boost_multiplier",
            self.recovery_boost_multiplier,
            1.0,
            5.0,
        );
        check(
            &mut e,
            "trust.idle_decay_base",
            self.idle_decay_base,
            0.9,
            1.0,
        );
        e
    }
}

impl RiskWeights {
    /// Returns every out-of-range value.
    pub fn validate(&self) -> Vec<String> {
        let mut e = Vec::new();
        check(&mut e, "risk.lambda1", self.lambda1, 0.0, 1.0);
        check(&mut e, "risk.lambda2", self.lambda2, 0.0, 1.0);
        if self.lambda1 + self.lambda2 > 1.0 + 1e-9 {
            e.push(format!(
                "risk.lambda1 + risk.lambda2 is {}, but it must not exceed 1",
                self.lambda1 + self.lambda2
            ));
        }
        e
    }
}

impl AutonomyParams {
    /// Returns every out-of-range value.
    pub fn validate(&self) -> Vec<String> {
        let mut e = Vec::new();
        check(
            &mut e,
            "autonomy.auto_approve_threshold",
            self.auto_approve_threshold,
            0.0,
            1.0,
        );
        check(
            &mut e,
            "autonomy.human_required_threshold",
            self.human_required_threshold,
            0.0,
            1.0,
        );
        if self.human_required_threshold >= self.auto_approve_threshold {
            e.push(format!(
                "autonomy.human_required_threshold ({}) must be below autonomy.auto_approve_threshold ({})",
                self.human_required_threshold, self.auto_approve_threshold
            ));
        }
        e
    }
}
