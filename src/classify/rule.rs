//! A finding: what one rule concluded about one part of a call.

use std::borrow::Cow;

use super::{Domain, Kind, Part, Risk};

/// One rule's conclusion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    /// Domain.
    pub domain: Domain,
    /// Risk.
    pub risk: Risk,
    /// Kind of risk.
    pub kind: Kind,
    /// Rule id (kebab-case).
    pub rule: Cow<'static, str>,
    /// Why.
    pub reason: String,
    /// A safer way, when there is one.
    pub alternative: Option<Cow<'static, str>>,
    /// The effect found (`delete(~/x, recursive)`), when the finding is about one.
    pub effect: Option<String>,
    /// The pack rule that stated the effect (`coreutils: rm › delete-files`).
    pub source: Option<String>,
}

impl Finding {
    /// Returns a finding without an alternative.
    pub fn new(
        domain: Domain,
        risk: Risk,
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            domain,
            risk,
            kind: Kind::of_risk(risk),
            rule: rule.into(),
            reason: reason.into(),
            alternative: None,
            effect: None,
            source: None,
        }
    }

    /// Adds a safer alternative.
    pub fn alt(mut self, a: impl Into<Cow<'static, str>>) -> Self {
        self.alternative = Some(a.into());
        self
    }

    /// Raises the risk to at least `floor` (a critical risk is catastrophic).
    pub fn at_least(mut self, floor: Risk) -> Self {
        self.risk = self.risk.max(floor);
        self.kind = self.kind.max(Kind::of_risk(self.risk));
        self
    }

    /// Sets the kind of risk.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }
}

/// Collects findings with the text they apply to.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// (text, finding) in order.
    pub items: Vec<(String, Finding)>,
    /// Simple commands as their words after static expansion, where that differs from the
    /// text findings name (see [`super::Classification::commands`]).
    pub commands: Vec<String>,
    /// Files the line made from credentials (see [`super::Classification::tainted`]).
    pub tainted: Vec<super::Taint>,
}

impl Findings {
    /// Removes the last finding if its rule is `rule`.
    pub fn pop_if(&mut self, rule: &str) {
        if self.items.last().is_some_and(|(_, f)| f.rule == rule) {
            self.items.pop();
        }
    }

    /// Adds a finding.
    pub fn push(&mut self, text: &str, f: Finding) {
        self.items.push((text.to_owned(), f));
    }

    /// Builds the classification: the riskiest part decides, its alternative is named.
    pub fn into_classification(self) -> super::Classification {
        let alt = super::worst_index(self.items.iter().map(|(_, f)| (f.kind, f.risk, f.domain)))
            .and_then(|i| self.items[i].1.alternative.clone())
            .map(Cow::into_owned);
        let parts = self
            .items
            .into_iter()
            .map(|(text, f)| Part {
                text,
                domain: f.domain,
                risk: f.risk,
                kind: f.kind,
                rule: f.rule.into_owned(),
                reason: f.reason,
                effect: f.effect,
                source: f.source,
            })
            .collect();
        super::Classification {
            commands: self.commands,
            tainted: self.tainted,
            ..super::Classification::from_parts(parts, alt)
        }
    }
}
