//! The report's model: audit entries (read by [`crate::audit::trail`]) folded, one at a time,
//! into the calls of a session with their decisions, trust per domain and level after each
//! outcome, strike marks, and totals. Pure: the strike counts and the thresholds are passed in.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::audit::{self, trail::Entry};
use crate::classify::Risk;
use crate::clock::Timestamp;
use crate::decide::Decision;
use crate::kpt::report::Report;
use crate::strike::store::{ESCALATE_AT, WARN_AT};
use crate::trust::{AutonomyParams, RiskWeights, autonomy};

/// The gate's decision on a call, as drawn: one lane each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// Approved without a prompt.
    Allow,
    /// Left to the client's own permission rules.
    NoOpinion,
    /// The user was asked.
    Ask,
    /// Blocked.
    Deny,
    /// No pre record (an outcome whose call the gate did not record).
    Ungated,
}

impl Mark {
    /// Every mark, in lane order.
    pub const ALL: [Mark; 5] = [
        Mark::Allow,
        Mark::NoOpinion,
        Mark::Ask,
        Mark::Deny,
        Mark::Ungated,
    ];

    /// The gate's decision the mark draws (`None` for no pre record).
    fn decision(self) -> Option<Decision> {
        match self {
            Self::Allow => Some(Decision::Allow),
            Self::NoOpinion => Some(Decision::NoOpinion),
            Self::Ask => Some(Decision::Ask),
            Self::Deny => Some(Decision::Deny),
            Self::Ungated => None,
        }
    }

    /// Reads a pre record's `decision` (the audit's names, [`Decision::as_str`]).
    pub fn parse(decision: Option<&str>) -> Self {
        Self::ALL
            .into_iter()
            .find(|m| m.decision().map(Decision::as_str) == decision && decision.is_some())
            .unwrap_or(Self::Ungated)
    }

    /// Returns the audit's name of the decision (`none` for no pre record).
    pub fn as_str(self) -> &'static str {
        self.decision().map_or("none", Decision::as_str)
    }

    /// Returns the label people read.
    pub fn label(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::NoOpinion => "no opinion",
            Self::Ask => "ask",
            Self::Deny => "deny",
            Self::Ungated => "no pre record",
        }
    }
}

/// One tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The pre record's time (else the first outcome's).
    pub time: Option<Timestamp>,
    /// The session.
    pub session: String,
    /// The tool.
    pub tool: String,
    /// The command, file, pattern or URL, the project root taken off, cut as the audit cuts.
    pub target: String,
    /// The decision.
    pub mark: Mark,
    /// Domain, risk and the classification rule.
    pub domain: String,
    /// Risk category.
    pub risk: String,
    /// Classification rule.
    pub rule: String,
    /// The gate's reason.
    pub reason: String,
    /// The last outcome (`success`, `failure`, `refused`, `denied`, `unknown`), or `pending`.
    pub outcome: String,
    /// Who refused a call that never ran (`client`, `oath`).
    pub refused_by: String,
    /// The error of a failure (or the client's text for a call it refused), cut as the audit
    /// cuts.
    pub error: String,
    /// The trust change an outcome applied: before and after.
    pub trust: Option<(f64, f64)>,
    /// The 3-strike count of this call's failure (2 and above are marked).
    pub strike: Option<u32>,
    /// Asked or denied because of a standing 3-strike escalation.
    pub escalation: bool,
}

impl TrustLine {
    /// Returns the line's name: `domain (level)`, or the domain alone for older records.
    pub fn label(&self) -> String {
        if self.level.is_empty() {
            self.domain.clone()
        } else {
            format!("{} ({})", self.domain, self.level)
        }
    }
}

impl Call {
    /// Whether the call failed.
    pub fn failed(&self) -> bool {
        self.outcome == "failure"
    }
}

/// Trust of one domain at one level over the session: a point before its first change and
/// one after each outcome that changed it, at the call's index.
#[derive(Debug, Clone, PartialEq)]
pub struct TrustLine {
    /// The domain.
    pub domain: String,
    /// The level of the domain's trust (`low`, `medium`, `high`; empty for records written
    /// before trust was kept per level).
    pub level: String,
    /// (x, score): x is the call's index (before) or the index plus one (after).
    pub points: Vec<(f64, f64)>,
}

/// A trust level drawn across the trust chart: above it a reversible call of `risk` is
/// allowed (`allow`), below it asked (`ask`).
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// `allow` or `ask`.
    pub kind: &'static str,
    /// The risk it holds for.
    pub risk: Risk,
    /// The trust level.
    pub trust: f64,
}

/// The figures at the top of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Tool calls.
    pub calls: usize,
    /// Calls oath allowed: each ran without a permission prompt.
    pub allowed: usize,
    /// Calls left to the client's rules.
    pub no_opinion: usize,
    /// Calls asked (of a user the client could ask).
    pub asked: usize,
    /// Calls denied, asks a client that cannot ask received as denies included.
    pub denied: usize,
    /// Calls that failed.
    pub failures: usize,
    /// Failures at strike 2 or more.
    pub strikes: usize,
    /// Calls asked or denied by a 3-strike escalation, and failures at strike 3 or more.
    pub escalations: usize,
    /// Human prompts (UserPromptSubmit events).
    pub prompts: usize,
}

/// Everything the page shows.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// The sessions of the calls, in order of appearance.
    pub sessions: Vec<String>,
    /// The calls, oldest first.
    pub calls: Vec<Call>,
    /// Call index before which each human prompt came.
    pub prompts: Vec<usize>,
    /// Trust per domain, in order of first change.
    pub trust: Vec<TrustLine>,
    /// Trust thresholds.
    pub thresholds: Vec<Threshold>,
    /// Totals.
    pub totals: Totals,
    /// The session's KPT retrospective, when there is one.
    pub kpt: Option<Report>,
    /// First and last record times.
    pub span: Option<(Timestamp, Timestamp)>,
}

/// Folds entries into a [`Model`].
#[derive(Debug, Default)]
pub struct Builder {
    root: String,
    strikes: HashMap<String, u32>,
    model: Model,
    lines: BTreeMap<(String, String), usize>,
}

/// Returns a text cut as the audit cuts strings ([`audit::loggable`]).
/// A text as the page shows it: redacted again (a trail written by an earlier oath, whose
/// table knew fewer secret formats, or edited by hand) and cut as the audit cuts.
fn cut(s: &str) -> String {
    let s = crate::redact::redact_str(s);
    if s.len() > audit::MAX_STRING_BYTES {
        audit::truncate_with_digest(&s)
    } else {
        s.into_owned()
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .map(cut)
        .unwrap_or_default()
}

/// Returns what a call acts on, the project root taken off paths.
pub fn target(pre: &Value, root: &str) -> String {
    let input = &pre["tool_input"];
    let raw = crate::audit::TARGET_KEYS
        .iter()
        .find_map(|k| input[*k].as_str())
        .unwrap_or("");
    let rel = match raw.strip_prefix(root) {
        Some(r) if !root.is_empty() && (r.is_empty() || r.starts_with('/')) => {
            let r = r.trim_start_matches('/');
            if r.is_empty() { "." } else { r }
        }
        _ => raw,
    };
    cut(rel)
}

impl Builder {
    /// Starts a model for a project rooted at `root` (taken off paths), with the strike count
    /// of each failed call by `tool_use_id` from the 3-strike log (for outcome records written
    /// before they carried their `strike`).
    pub fn new(root: &str, strikes: HashMap<String, u32>) -> Self {
        Self {
            root: root.to_owned(),
            strikes,
            ..Self::default()
        }
    }

    /// Adds one entry of the trail (oldest first).
    pub fn push(&mut self, e: &Entry) {
        if let Some(t) = e.time {
            self.model.span = Some(match self.model.span {
                Some((a, b)) => (a.min(t), b.max(t)),
                None => (t, t),
            });
        }
        if let Some(ev) = &e.event {
            let v = ev.value();
            if v["hook_event_name"] == "UserPromptSubmit" {
                self.model.prompts.push(self.model.calls.len());
                self.model.totals.prompts += 1;
            }
            return;
        }
        if !self.model.sessions.contains(&e.session) {
            self.model.sessions.push(e.session.clone());
        }
        let index = self.model.calls.len();
        let pre = e.pre.as_ref().map(|r| r.value()).unwrap_or(Value::Null);
        let outcomes: Vec<Value> = e.outcomes.iter().map(|r| r.value()).collect();
        let first = if pre.is_null() {
            outcomes.first().cloned().unwrap_or(Value::Null)
        } else {
            pre.clone()
        };
        let mark = Mark::parse(pre["decision"].as_str());
        let last = outcomes.last();
        // No outcome record: denied when the call's own answer refused it, else pending.
        let refused_by_answer = last.is_none() && audit::refused_by_answer(&pre);
        let outcome = match last.and_then(|o| o["outcome"].as_str()) {
            Some(o) => o,
            None if refused_by_answer => "denied",
            None => "pending",
        }
        .to_owned();
        // The error of a failure, else the client's text for a call it refused.
        let error = outcomes
            .iter()
            .rev()
            .find_map(|o| o["error"].as_str())
            .or_else(|| last.and_then(|o| o["reason"].as_str()))
            .map(cut)
            .unwrap_or_default();
        // The risk and, in records that name it, its kind (`medium, reversible`).
        let risk = match (pre["risk_category"].as_str(), pre["risk_kind"].as_str()) {
            (Some(r), Some(k)) => cut(&format!("{r}, {k}")),
            (Some(r), None) => cut(r),
            _ => String::new(),
        };
        let applied = outcomes.iter().find(|o| o["trust_applied"] == true);
        let level = applied
            .and_then(|o| o["trust_level"].as_str())
            .map(cut)
            .unwrap_or_default();
        let trust = applied.and_then(|o| {
            Some((
                o["trust_score_before"].as_f64()?,
                o["trust_score_after"].as_f64()?,
            ))
        });
        let domain = e.domain().unwrap_or("").to_owned();
        let reason = text(&pre, "reason");
        // The outcome record's own count (written since the audit carries it), else the
        // 3-strike log's (older trails).
        let recorded = outcomes
            .iter()
            .find_map(|o| o["strike"].as_u64())
            .and_then(|n| u32::try_from(n).ok());
        let strike = recorded
            .or_else(|| {
                e.tool_use_id
                    .as_deref()
                    .and_then(|id| self.strikes.get(id).copied())
            })
            .filter(|_| outcome == "failure");
        let escalation = matches!(mark, Mark::Ask | Mark::Deny) && reason.contains("3-strike");
        let call = Call {
            time: e.time,
            session: e.session.clone(),
            tool: text(&first, "tool_name"),
            target: target(&pre, &self.root),
            mark,
            domain: domain.clone(),
            risk,
            rule: text(&pre, "rule"),
            reason,
            outcome,
            refused_by: match last {
                Some(o) => text(o, "refused_by"),
                None if refused_by_answer => "oath".into(),
                None => String::new(),
            },
            error,
            trust,
            strike,
            escalation,
        };
        let t = &mut self.model.totals;
        t.calls += 1;
        match mark {
            Mark::Allow => t.allowed += 1,
            Mark::NoOpinion => t.no_opinion += 1,
            // An ask a client that cannot ask received as a deny: nobody was asked.
            Mark::Ask if pre["answered"] == "deny" => t.denied += 1,
            Mark::Ask => t.asked += 1,
            Mark::Deny => t.denied += 1,
            Mark::Ungated => {}
        }
        if call.failed() {
            t.failures += 1;
        }
        if call.strike.is_some_and(|s| s >= WARN_AT) {
            t.strikes += 1;
        }
        if call.escalation || call.strike.is_some_and(|s| s >= ESCALATE_AT) {
            t.escalations += 1;
        }
        if let Some((before, after)) = trust {
            let next = self.model.trust.len();
            let line = *self
                .lines
                .entry((domain.clone(), level.clone()))
                .or_insert(next);
            if line == next {
                self.model.trust.push(TrustLine {
                    domain,
                    level,
                    points: vec![(index as f64, before)],
                });
            }
            self.model.trust[line]
                .points
                .push(((index + 1) as f64, after));
        }
        self.model.calls.push(call);
    }

    /// Returns the model, with the thresholds to draw and the KPT report.
    pub fn finish(mut self, thresholds: Vec<Threshold>, kpt: Option<Report>) -> Model {
        self.model.thresholds = thresholds;
        self.model.kpt = kpt;
        self.model
    }
}

/// Returns the trust levels at which the gate's formula changes its answer for reversible
/// calls of low, medium and high risk: above `allow` it allows, below `ask` it asks (levels
/// outside 0 – 1 are left out: never or always). Found on [`autonomy`] itself, which rises
/// with trust.
pub fn thresholds(weights: &RiskWeights, params: &AutonomyParams) -> Vec<Threshold> {
    let mut out = Vec::new();
    for risk in [Risk::Low, Risk::Medium, Risk::High] {
        for (kind, level) in [
            ("allow", params.auto_approve_threshold),
            ("ask", params.human_required_threshold),
        ] {
            let at = |t: f64| autonomy(t, risk, weights);
            if at(0.0) >= level || at(1.0) < level {
                continue;
            }
            let (mut lo, mut hi) = (0.0, 1.0);
            for _ in 0..50 {
                let mid = (lo + hi) / 2.0;
                if at(mid) < level {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            out.push(Threshold {
                kind,
                risk,
                trust: hi,
            });
        }
    }
    out
}
