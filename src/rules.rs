//! User rules: allow / ask / deny globs on tool name, command and path (`rules:` in config).
//!
//! A rule matches when every field it gives matches: `tool` against the tool name, `command`
//! against any command of a shell line (or the whole line), `path` against the file the tool
//! touches. Deny wins over ask, ask over allow. Each command is offered with its words one
//! space apart, as written and with quotes removed, so `terraform  "destroy"` meets
//! `terraform destroy*`.
//!
//! A rule's globs are checked when the configuration is read and compiled only when a call is
//! first held against them ([`Glob`]): a rule on paths costs a Bash call nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::glob::Glob;

/// One rule as written in the config.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Glob on the tool name (`Bash`, `mcp__github__*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub tool: Option<Glob>,
    /// Glob on a shell command (`terraform destroy*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub command: Option<Glob>,
    /// Glob on the path a file tool touches (`/etc/**`, `**/.env`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub path: Option<Glob>,
    /// Text added to the decision's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The three rule lists.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// Rules that allow without a prompt (never lifting a critical risk).
    pub allow: Vec<Rule>,
    /// Rules that always ask.
    pub ask: Vec<Rule>,
    /// Rules that always deny.
    pub deny: Vec<Rule>,
}

/// Which list a rule came from, least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// `rules.allow`.
    Allow,
    /// `rules.ask`.
    Ask,
    /// `rules.deny`.
    Deny,
}

/// What a call looks like to the rules.
#[derive(Debug, Clone, Default)]
pub struct Subject<'a> {
    /// Tool name.
    pub tool: &'a str,
    /// Commands of the shell line (as written, and as words after static expansion), and the
    /// line itself.
    pub commands: Vec<&'a str>,
    /// Paths the tool touches.
    pub paths: Vec<&'a str>,
}

/// A rule that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleMatch {
    /// Its list.
    pub kind: RuleKind,
    /// `rules.<kind>[<index>]`.
    pub id: String,
    /// Its reason, if any.
    pub reason: Option<String>,
}

impl Rules {
    /// Returns whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    /// Returns every invalid glob or empty rule, naming the rule (the globs are read, not
    /// compiled).
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        for (kind, list) in [
            ("allow", &self.allow),
            ("ask", &self.ask),
            ("deny", &self.deny),
        ] {
            for (i, r) in list.iter().enumerate() {
                if r.tool.is_none() && r.command.is_none() && r.path.is_none() {
                    errors.push(format!(
                        "rules.{kind}[{i}] gives none of tool, command, path"
                    ));
                }
                for g in [&r.tool, &r.command, &r.path].into_iter().flatten() {
                    if let Err(e) = g.check() {
                        errors.push(format!(
                            "rules.{kind}[{i}]: invalid glob {:?}: {e}",
                            g.as_str()
                        ));
                    }
                }
            }
        }
        errors
    }

    /// Returns the most restrictive rule matching the subject (invalid globs never match).
    pub fn matching(&self, s: &Subject<'_>) -> Option<RuleMatch> {
        for (kind, name, list) in [
            (RuleKind::Deny, "deny", &self.deny),
            (RuleKind::Ask, "ask", &self.ask),
            (RuleKind::Allow, "allow", &self.allow),
        ] {
            for (i, r) in list.iter().enumerate() {
                if rule_matches(r, s) {
                    return Some(RuleMatch {
                        kind,
                        id: format!("rules.{name}[{i}]"),
                        reason: r.reason.clone(),
                    });
                }
            }
        }
        None
    }
}

fn rule_matches(r: &Rule, s: &Subject<'_>) -> bool {
    if r.tool.is_none() && r.command.is_none() && r.path.is_none() {
        return false;
    }
    // A glob is compiled only when there is something to hold it against.
    let field = |pattern: &Option<Glob>, values: &[&str]| -> bool {
        match pattern {
            None => true,
            Some(g) => values.iter().any(|v| g.is_match(v)),
        }
    };
    field(&r.tool, &[s.tool]) && field(&r.command, &s.commands) && field(&r.path, &s.paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tool: Option<&str>, command: Option<&str>, path: Option<&str>) -> Rule {
        Rule {
            tool: tool.map(Into::into),
            command: command.map(Into::into),
            path: path.map(Into::into),
            reason: None,
        }
    }

    #[test]
    fn deny_wins_over_ask_and_allow() {
        let rules = Rules {
            allow: vec![rule(Some("Bash"), None, None)],
            ask: vec![rule(None, Some("terraform *"), None)],
            deny: vec![rule(None, Some("terraform destroy*"), None)],
        };
        let s = |c| Subject {
            tool: "Bash",
            commands: vec![c],
            paths: vec![],
        };
        assert_eq!(
            rules
                .matching(&s("terraform destroy -auto-approve"))
                .unwrap()
                .kind,
            RuleKind::Deny
        );
        assert_eq!(
            rules.matching(&s("terraform plan")).unwrap().kind,
            RuleKind::Ask
        );
        assert_eq!(rules.matching(&s("ls")).unwrap().kind, RuleKind::Allow);
    }

    #[test]
    fn path_rules_and_validation() {
        let rules = Rules {
            deny: vec![
                rule(None, None, Some("**/.env")),
                rule(None, None, Some("[bad")),
            ],
            ..Rules::default()
        };
        let s = Subject {
            tool: "Write",
            commands: vec![],
            paths: vec!["/p/app/.env"],
        };
        assert_eq!(rules.matching(&s).unwrap().id, "rules.deny[0]");
        assert_eq!(rules.validate().len(), 1);
        let empty = Rules {
            ask: vec![Rule::default()],
            ..Rules::default()
        };
        assert_eq!(
            empty.validate(),
            vec!["rules.ask[0] gives none of tool, command, path".to_owned()]
        );
    }

    #[test]
    fn a_glob_is_compiled_only_when_its_rule_is_consulted() {
        let rules = Rules {
            deny: vec![rule(None, Some("terraform destroy*"), None)],
            ask: vec![
                rule(None, None, Some("**/migrations/**")),
                rule(Some("Write"), Some("x*"), None),
            ],
            allow: vec![rule(Some("mcp__*"), None, None)],
        };
        let compiled = |r: &Rule| {
            [&r.tool, &r.command, &r.path]
                .into_iter()
                .flatten()
                .map(Glob::is_compiled)
                .collect::<Vec<_>>()
        };
        assert!(rules.validate().is_empty());
        let all = [
            &rules.deny[0],
            &rules.ask[0],
            &rules.ask[1],
            &rules.allow[0],
        ];
        assert!(
            all.iter().all(|r| compiled(r).iter().all(|c| !c)),
            "reading and checking compile nothing"
        );
        let bash = Subject {
            tool: "Bash",
            commands: vec!["ls -la"],
            paths: vec![],
        };
        assert_eq!(rules.matching(&bash), None);
        assert_eq!(compiled(&rules.deny[0]), [true], "consulted");
        assert_eq!(compiled(&rules.ask[0]), [false], "no path to match");
        assert_eq!(
            compiled(&rules.ask[1]),
            [true, false],
            "the tool did not match"
        );
        assert_eq!(compiled(&rules.allow[0]), [true]);
    }
}
