//! The trust model: per-domain scores earned by successes and lost by failures.
//!
//! Pure functions of (state, event, now, parameters), with the formulas and defaults of
//! oath-harness Phase 1 + Phase 2a (see `docs/adr/0001-trust-model.md`): boost period and
//! warm-up, failure decay, recovery boost, and idle decay computed when read (never
//! compounded per call, never written by PreToolUse).

mod model;
mod params;

pub use model::{
    DomainTrust, OneDomain, Outcome, TrustFile, TrustUpdate, apply_outcome, autonomy, effective,
    score_of,
};
pub use params::{AutonomyParams, RiskWeights, TrustParams};
