//! The trust model: per-domain scores earned by successes and lost by failures.
//!
//! Pure functions of (state, event, now, parameters), with the formulas and defaults of
//! oath-harness Phase 1 + Phase 2a (see `docs/adr/0001-trust-model.md`): boost period and
//! warm-up, failure decay, recovery boost, and idle decay computed when read (never
//! compounded per call, never written by PreToolUse). The state is kept one file per domain
//! ([`DomainFile`], ADR 0023); [`TrustFile`] is the whole of it in the single file's shape.

mod domain_file;
mod model;
mod params;

pub use domain_file::{
    DOMAIN_FILE_VERSION, DomainFile, DomainHead, apply_to_domain, is_further_along, whole_view,
};
pub use model::{
    AppliedOutcome, DomainTrust, OneDomain, Outcome, TrustFile, TrustUpdate, apply_outcome,
    autonomy, effective, score_of,
};
pub use params::{AutonomyParams, RiskWeights, TrustParams};
