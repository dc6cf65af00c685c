//! The trust gate's decision: classification + trust + phase + rules → allow / no opinion /
//! ask / deny, with the reason Claude Code shows and a trace for `oath explain`.
//!
//! Pure: everything it needs is passed in.

use serde::Serialize;
use serde_json::Value;

use crate::classify::{Classification, Kind, Risk};
use crate::phase::{Phase, PhaseRule};
use crate::protocol::PermissionDecision;
use crate::rules::{RuleKind, RuleMatch};
use crate::trust::{AutonomyParams, RiskWeights, autonomy};

/// The gate's answer, as recorded in the audit trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Approved without a prompt.
    Allow,
    /// No opinion: Claude Code's own permission rules decide.
    NoOpinion,
    /// The user is asked.
    Ask,
    /// Blocked.
    Deny,
}

impl Decision {
    /// Returns the protocol decision (`None` for no opinion).
    pub fn permission(self) -> Option<PermissionDecision> {
        match self {
            Self::Allow => Some(PermissionDecision::Allow),
            Self::NoOpinion => None,
            Self::Ask => Some(PermissionDecision::Ask),
            Self::Deny => Some(PermissionDecision::Deny),
        }
    }

    /// Returns the name used in the audit trail.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::NoOpinion => "no_opinion",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// A model recommendation (reference §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// The most capable model.
    Opus,
    /// The default model.
    Sonnet,
    /// The fastest model.
    Haiku,
}

impl Model {
    /// Returns the alias Claude Code accepts in `Agent.model`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Opus => "opus",
            Self::Sonnet => "sonnet",
            Self::Haiku => "haiku",
        }
    }
}

/// Everything the decision depends on.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    /// The call's classification.
    pub class: &'a Classification,
    /// Effective trust of the call's domain at the call's risk level (ADR 0025).
    pub trust: f64,
    /// The project phase, if a phase file exists.
    pub phase: Option<Phase>,
    /// The most restrictive user rule that matched.
    pub rule: Option<RuleMatch>,
    /// A 3-strike escalation standing against this exact action (its reason).
    pub strike: Option<String>,
    /// Risk weights.
    pub weights: &'a RiskWeights,
    /// Thresholds.
    pub thresholds: &'a AutonomyParams,
}

/// The decision with everything that explains it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// The reason shown to the user (allow/ask) or the model (deny).
    pub reason: String,
    /// Effective trust used.
    pub trust: f64,
    /// Autonomy computed.
    pub autonomy: f64,
    /// What trust and risk alone would have decided.
    pub trust_decision: Decision,
    /// Recommended model for this call.
    pub recommended_model: Model,
    /// Steps that led to the decision, for `oath explain`.
    pub trace: Vec<String>,
}

/// Decides one call.
///
/// The kind of risk decides first: catastrophic is denied at any trust (no rule lifts it);
/// irreversible and not understood are asked at any trust (only a user's allow rule lets them
/// through); reversible work is decided by trust and risk through the seed's formula (allow
/// above the auto-approve threshold, no opinion between, ask below). A deny rule, the phase and
/// a standing 3-strike escalation can only tighten.
pub fn decide(i: &Inputs<'_>) -> Verdict {
    let c = i.class;
    let auto = autonomy(i.trust, c.risk, i.weights);
    let mut trace = vec![format!(
        "classified {} risk {} (value {}, complexity {}), {} by rule {}: {}",
        c.domain,
        c.risk,
        c.risk.value(),
        c.complexity,
        c.kind,
        c.rule,
        c.reason
    )];
    trace.push(format!(
        "autonomy = 1 − ({}·{}/4 + {}·{})·(1 − {:.4}) = {:.4}",
        i.weights.lambda1,
        c.risk.value(),
        i.weights.lambda2,
        c.complexity,
        i.trust,
        auto
    ));
    let formula = if auto > i.thresholds.auto_approve_threshold {
        Decision::Allow
    } else if auto >= i.thresholds.human_required_threshold {
        Decision::NoOpinion
    } else {
        Decision::Ask
    };
    let trust_decision = match c.kind {
        Kind::Catastrophic => Decision::Deny,
        Kind::Irreversible | Kind::NotUnderstood => Decision::Ask,
        // Never allowed: what oath only partly understands goes to the client's own rules.
        Kind::PartlyUnderstood => formula.max(Decision::NoOpinion),
        Kind::Reversible => formula,
    };
    match c.kind {
        Kind::Reversible => trace.push(format!(
            "reversible: trust decides: {} (allow above {}, ask below {})",
            formula.as_str(),
            i.thresholds.auto_approve_threshold,
            i.thresholds.human_required_threshold
        )),
        Kind::Catastrophic => {
            trace.push("catastrophic: denied at any trust, whatever a rule says".to_owned())
        }
        Kind::PartlyUnderstood => trace.push(format!(
            "partly understood: never allowed at any trust (the formula alone would say {}); no opinion, so the client's own rules decide",
            formula.as_str()
        )),
        kind => trace.push(format!(
            "{kind}: asked at any trust (the formula alone would say {}); only a user's allow rule lets it through",
            formula.as_str()
        )),
    }
    let facts = format!(
        "{} {} risk {}, trust {:.2}, autonomy {:.2}",
        c.domain, c.kind, c.risk, i.trust, auto
    );
    let safer = c
        .alternative
        .as_deref()
        .map(|a| format!(" Safer: {a}."))
        .unwrap_or_default();
    let (decision, why) = 'decide: {
        if c.kind == Kind::Catastrophic {
            break 'decide (
                Decision::Deny,
                format!(
                    "catastrophic, denied at any trust (rule {}): {}.{safer}",
                    c.rule, c.reason
                ),
            );
        }
        if let Some(r) = i.rule.as_ref().filter(|r| r.kind == RuleKind::Deny) {
            break 'decide (Decision::Deny, rule_reason(r, "denies this"));
        }
        if let Some(phase) = i.phase {
            match phase.rule(c.domain) {
                PhaseRule::Denied => {
                    trace.push(format!("phase {phase} does not allow {}", c.domain));
                    break 'decide (
                        Decision::Deny,
                        format!(
                            "the {phase} phase does not allow {} work (change it with `oath phase set`)",
                            c.domain
                        ),
                    );
                }
                PhaseRule::TrustGated if trust_decision != Decision::Allow => {
                    trace.push(format!(
                        "phase {phase}: {} is trust-gated and trust alone does not allow",
                        c.domain
                    ));
                    break 'decide (
                        Decision::Ask,
                        format!(
                            "the {phase} phase gates {} work on trust, and trust does not yet allow it",
                            c.domain
                        ),
                    );
                }
                rule => trace.push(format!("phase {phase}: {} is {:?}", c.domain, rule)),
            }
        }
        let mut decision = trust_decision;
        let mut why = match c.kind {
            Kind::Irreversible => format!(
                "irreversible, asked at any trust: earned trust never approves what nothing brings back (rule {}): {}.{safer}",
                c.rule, c.reason
            ),
            Kind::NotUnderstood => format!(
                "not understood, asked at any trust: oath cannot tell what this does (rule {}): {}.{safer}",
                c.rule, c.reason
            ),
            Kind::PartlyUnderstood if trust_decision == Decision::NoOpinion => format!(
                "no opinion: oath understands only part of this (rule {}): {}",
                c.rule, c.reason
            ),
            _ => match trust_decision {
                Decision::Allow => "trust allows this".to_owned(),
                Decision::NoOpinion => {
                    "no opinion: Claude Code's permission rules decide".to_owned()
                }
                _ => format!(
                    "trust is too low for this risk (rule {}): {}.{safer}",
                    c.rule, c.reason
                ),
            },
        };
        if let Some(r) = &i.rule {
            match r.kind {
                RuleKind::Ask if decision < Decision::Ask => {
                    decision = Decision::Ask;
                    why = rule_reason(r, "asks for this");
                }
                RuleKind::Allow
                    if decision > Decision::Allow || decision == Decision::NoOpinion =>
                {
                    trace.push(format!("user rule {} allows it", r.id));
                    decision = Decision::Allow;
                    why = rule_reason(r, "allows this");
                }
                _ => {}
            }
        }
        // A standing 3-strike escalation asks, and names itself even when trust already asks.
        if let Some(strike) = &i.strike
            && decision <= Decision::Ask
        {
            decision = Decision::Ask;
            why = strike.clone();
        }
        (decision, why)
    };
    trace.push(format!("decision: {}", decision.as_str()));
    let reason = format!(
        "oath {}: {why} ({facts}). `oath explain` shows why.",
        decision.as_str()
    );
    Verdict {
        decision,
        reason,
        trust: i.trust,
        autonomy: auto,
        trust_decision,
        recommended_model: recommend_model(decision, trust_decision, c.risk, i.trust, auto),
        trace,
    }
}

fn rule_reason(r: &RuleMatch, verb: &str) -> String {
    match &r.reason {
        Some(text) => format!("{} {verb}: {text}", r.id),
        None => format!("{} {verb}", r.id),
    }
}

/// Recommends a model (reference §4, first match wins).
pub fn recommend_model(
    decision: Decision,
    trust_decision: Decision,
    risk: Risk,
    trust: f64,
    autonomy: f64,
) -> Model {
    let critical_block = decision == Decision::Deny && risk == Risk::Critical;
    let uncertain = autonomy < 0.6 && matches!(risk, Risk::Medium | Risk::High);
    if critical_block || trust < 0.4 || uncertain {
        Model::Opus
    } else if trust_decision == Decision::Allow && risk == Risk::Low {
        Model::Haiku
    } else {
        Model::Sonnet
    }
}

/// Returns the Agent/Task input with `model` set to the recommendation (Phase 2b routing):
/// the whole input is copied because `updatedInput` replaces it.
pub fn routed_input(tool_input: &Value, model: Model) -> Value {
    let mut input = tool_input.clone();
    if let Value::Object(map) = &mut input {
        map.insert("model".into(), Value::String(model.as_str().into()));
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{Domain, Kind};

    fn verdict(
        risk: Risk,
        trust: f64,
        phase: Option<Phase>,
        rule: Option<RuleMatch>,
        strike: Option<&str>,
    ) -> Verdict {
        let class = Classification::single("x", Domain::ShellExec, risk, "test", "test");
        decide(&Inputs {
            class: &class,
            trust,
            phase,
            rule,
            strike: strike.map(Into::into),
            weights: &RiskWeights::default(),
            thresholds: &AutonomyParams::default(),
        })
    }

    #[test]
    fn kinds_decide_before_trust() {
        let (weights, thresholds) = (RiskWeights::default(), AutonomyParams::default());
        for (kind, risk, at_full, allowed_by_rule) in [
            (Kind::NotUnderstood, Risk::High, Decision::Ask, true),
            (Kind::Irreversible, Risk::High, Decision::Ask, true),
            (Kind::Irreversible, Risk::Medium, Decision::Ask, true),
            (Kind::Catastrophic, Risk::Critical, Decision::Deny, false),
            (Kind::Reversible, Risk::High, Decision::Allow, true),
        ] {
            let mut class =
                Classification::single("x", Domain::ShellExec, risk, "some-rule", "does x");
            class.kind = kind;
            let run = |trust, rule: Option<RuleKind>| {
                decide(&Inputs {
                    class: &class,
                    trust,
                    phase: None,
                    rule: rule.map(|kind| RuleMatch {
                        kind,
                        id: "rules.x[0]".into(),
                        reason: None,
                    }),
                    strike: None,
                    weights: &weights,
                    thresholds: &thresholds,
                })
            };
            let full = run(1.0, None);
            assert_eq!(
                full.decision, at_full,
                "{kind} at full trust: {}",
                full.reason
            );
            if kind != Kind::Reversible {
                assert_eq!(run(0.3, None).decision, at_full, "{kind} at initial trust");
                assert!(full.reason.contains(kind.as_str()), "{}", full.reason);
                assert!(full.reason.contains("some-rule"), "{}", full.reason);
            }
            // The user's own allow rule decides what trust cannot; never a catastrophe.
            let allowed = run(1.0, Some(RuleKind::Allow)).decision == Decision::Allow;
            assert_eq!(allowed, allowed_by_rule, "{kind} with an allow rule");
            assert_eq!(run(1.0, Some(RuleKind::Deny)).decision, Decision::Deny);
        }
    }

    #[test]
    fn a_safer_way_is_named_when_there_is_one() {
        let mut class = Classification::single(
            "git reset --hard",
            Domain::GitLocal,
            Risk::High,
            "git-reset-hard",
            "throws away uncommitted changes",
        );
        class.kind = Kind::Irreversible;
        class.alternative = Some("git stash".into());
        let v = decide(&Inputs {
            class: &class,
            trust: 1.0,
            phase: None,
            rule: None,
            strike: None,
            weights: &RiskWeights::default(),
            thresholds: &AutonomyParams::default(),
        });
        assert_eq!(v.decision, Decision::Ask);
        assert!(v.reason.contains("Safer: git stash."), "{}", v.reason);
    }

    #[test]
    fn decision_regions_match_the_reference() {
        use Decision::*;
        let rows = [
            (Risk::Low, 0.3, Allow),
            (Risk::Low, 0.13, NoOpinion),
            (Risk::Low, 0.131, Allow),
            (Risk::Medium, 0.3, NoOpinion),
            (Risk::Medium, 0.6, NoOpinion),
            (Risk::Medium, 0.61, Allow),
            (Risk::High, 0.3, NoOpinion),
            (Risk::High, 0.17, Ask),
            (Risk::High, 0.73, Allow),
            (Risk::Critical, 1.0, Deny),
        ];
        for (risk, trust, want) in rows {
            assert_eq!(
                verdict(risk, trust, None, None, None).decision,
                want,
                "{risk} at {trust}"
            );
        }
    }

    #[test]
    fn phase_rules_apply() {
        assert_eq!(
            verdict(Risk::Low, 0.3, Some(Phase::Planning), None, None).decision,
            Decision::Deny
        );
        assert_eq!(
            verdict(Risk::Medium, 0.3, Some(Phase::Building), None, None).decision,
            Decision::Ask
        );
        assert_eq!(
            verdict(Risk::Low, 0.3, Some(Phase::Building), None, None).decision,
            Decision::Allow
        );
    }

    #[test]
    fn rules_and_strikes_only_tighten_except_allow() {
        let m = |kind| {
            Some(RuleMatch {
                kind,
                id: "rules.x[0]".into(),
                reason: None,
            })
        };
        assert_eq!(
            verdict(Risk::Low, 0.9, None, m(RuleKind::Deny), None).decision,
            Decision::Deny
        );
        assert_eq!(
            verdict(Risk::Low, 0.9, None, m(RuleKind::Ask), None).decision,
            Decision::Ask
        );
        assert_eq!(
            verdict(Risk::High, 0.1, None, m(RuleKind::Allow), None).decision,
            Decision::Allow
        );
        assert_eq!(
            verdict(Risk::Critical, 0.9, None, m(RuleKind::Allow), None).decision,
            Decision::Deny
        );
        let v = verdict(Risk::Low, 0.9, None, None, Some("same error 3 times"));
        assert_eq!(v.decision, Decision::Ask);
        assert!(v.reason.contains("same error 3 times"));
        let v = verdict(Risk::High, 0.05, None, None, Some("same error 3 times"));
        assert_eq!(v.decision, Decision::Ask);
        assert!(v.reason.contains("same error 3 times"), "{}", v.reason);
    }

    #[test]
    fn reasons_name_domain_risk_trust_and_autonomy() {
        let v = verdict(Risk::High, 0.1, None, None, None);
        assert!(
            v.reason
                .contains("shell_exec reversible risk high, trust 0.10, autonomy 0.34"),
            "{}",
            v.reason
        );
    }

    #[test]
    fn routing_copies_the_whole_input() {
        let input =
            serde_json::json!({"description": "d", "prompt": "p", "subagent_type": "Explore"});
        let routed = routed_input(&input, Model::Haiku);
        assert_eq!(
            routed,
            serde_json::json!({"description": "d", "prompt": "p", "subagent_type": "Explore", "model": "haiku"})
        );
    }
}
