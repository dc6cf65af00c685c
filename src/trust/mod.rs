//! The trust model: per-domain, per-risk-level scores earned by successes and lost by
//! failures.
//!
//! Pure functions of (state, event, now, parameters), with the formulas and defaults of
//! oath-harness Phase 1 + Phase 2a (see `docs/adr/0001-trust-model.md`): boost period and
//! warm-up, failure decay, recovery boost, and idle decay computed when read (never
//! compounded per call, never written by PreToolUse). Each domain keeps them per risk level
//! (ADR 0025, [`Level`]): a call is decided by its own level's trust, a success raises its
//! level and those below, a failure lowers them all. The state is kept one file per domain
//! ([`DomainFile`], ADR 0023); [`TrustFile`] is the whole of it in one value, and
//! [`SingleFile`] the single file of earlier versions, still read and migrated.

mod domain_file;
mod levels;
mod model;
mod params;
mod single_file;

pub use domain_file::{
    DOMAIN_FILE_VERSION, DomainFile, DomainHead, apply_to_domain, is_further_along, whole_view,
};
pub use levels::{DomainLevels, Level, advance_levels};
/// The seed's rules on one level's state (tests build the single file of earlier versions
/// with it).
#[cfg(test)]
pub(crate) use model::advance;
pub use model::{
    AppliedOutcome, DomainTrust, Outcome, TrustFile, TrustUpdate, apply_outcome, autonomy,
    effective, score_of,
};
pub use params::{AutonomyParams, RiskWeights, TrustParams};
pub use single_file::{OneDomain, SingleFile};
