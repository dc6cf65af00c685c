//! What the oath library predicts for a project: classifications and decisions computed with
//! the crate itself, so scenarios take their expectations from the engine instead of
//! hard-coding them.

#![allow(dead_code)]

use oath::classify::{Classification, Risk};
use oath::clock::Timestamp;
use oath::config::Config;
use oath::decide::{self, Decision, Inputs};
use oath::project::Env;
use oath::trust::{Level, Outcome, TrustFile, apply_outcome};
use serde_json::{Value, json};

use crate::harness::Project;

/// The engine as a session in `project` sees it, with the default configuration.
pub struct Engine {
    env: Env,
    project: oath::project::Project,
    /// The configuration (defaults: the scenarios write no `.oath.yaml` unless they say so).
    pub config: Config,
}

impl Engine {
    /// Returns the engine for a harness project.
    pub fn new(p: &Project) -> Self {
        let env = Env {
            oath_home: Some(p.oath_home()),
            home: Some(p.home()),
            claude_project_dir: Some(p.root()),
            ..Env::default()
        };
        let project = oath::project::Project::at(&env, p.root());
        Self {
            env,
            project,
            config: Config::default(),
        }
    }

    /// Classifies a tool call made in the project root, with the context the hook uses.
    pub fn classify(&self, tool_name: &str, input: &Value) -> Classification {
        let mut warnings = Vec::new();
        let ctx = oath::gate::classify_context(
            &self.env,
            &self.project,
            Some(&self.project.root),
            None,
            &mut warnings,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        oath::classify::classify(tool_name, input, &ctx)
    }

    /// Classifies a Bash command.
    pub fn classify_bash(&self, command: &str) -> Classification {
        self.classify("Bash", &json!({"command": command}))
    }

    /// Decides a call of this classification at this trust (no phase, rule or strike).
    pub fn decide(&self, class: &Classification, trust: f64) -> Decision {
        decide::decide(&Inputs {
            class,
            trust,
            phase: None,
            rule: None,
            strike: None,
            weights: &self.config.risk,
            thresholds: &self.config.autonomy,
        })
        .decision
    }

    /// Returns the decisions for `class` after 0, 1, 2, ... successes of calls of `earner`
    /// (understood work, so each earns) starting from a fresh trust state, up to and including
    /// the first allow (at most `limit`), with the trust each was decided at: the trust of
    /// `class`'s domain at its risk level, which a success raises only when it is of that
    /// domain at that level or above.
    pub fn decisions_while_earning(
        &self,
        class: &Classification,
        earner: &Classification,
        limit: usize,
    ) -> Vec<(Decision, f64)> {
        assert!(earner.earns_trust(), "{earner:?} earns no trust");
        let now = Timestamp::now();
        let params = &self.config.trust;
        let mut file = TrustFile::new(now);
        let (domain, level) = (class.domain.as_str(), Level::of(class.risk));
        let mut out = Vec::new();
        for k in 0..=limit {
            let trust = file.score(domain, level, now, params);
            let d = self.decide(class, trust);
            out.push((d, trust));
            if d == Decision::Allow {
                break;
            }
            apply_outcome(
                &mut file,
                earner.domain.as_str(),
                Level::of(earner.risk),
                Outcome::Success,
                Some(&format!("predicted-{k}")),
                now,
                params,
            );
        }
        out
    }
}

/// Returns whether a classification is of this risk.
pub fn is(class: &Classification, risk: Risk) -> bool {
    class.risk == risk
}
