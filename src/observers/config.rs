//! The `postToolUse:` section of the configuration: observer commands, which tool outcomes
//! trigger them, and the checks that name broken entries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::DEFAULT_TIMEOUT_SECS;
use crate::config::glob::Glob;
use crate::trust::Outcome;

/// `postToolUse:` in the config; the seed's block pastes in unchanged.
///
/// A section that does not fit the schema (a list without `commands:`, an unknown key) is read
/// as no commands plus its `problem`, which is reported: the rest of the configuration (the
/// gate's rules, trust, strikes) keeps working.
#[derive(Debug, Clone, PartialEq, Default, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PostToolUseConfig {
    /// Commands, run in config order.
    pub commands: Vec<ObserverCommand>,
    /// Why the section could not be read, when it could not (no command then runs).
    #[serde(skip)]
    pub problem: Option<String>,
}

/// The schema of the section, as written in the file.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawPostToolUseConfig {
    commands: Vec<ObserverCommand>,
}

impl<'de> Deserialize<'de> for PostToolUseConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        if value.is_null() {
            return Ok(Self::default());
        }
        Ok(
            match serde_json::from_value::<RawPostToolUseConfig>(value) {
                Ok(r) => Self {
                    commands: r.commands,
                    problem: None,
                },
                Err(e) => Self {
                    commands: Vec::new(),
                    problem: Some(e.to_string()),
                },
            },
        )
    }
}

/// Which tool outcomes trigger a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum On {
    /// Successful calls (PostToolUse), the default.
    #[default]
    Success,
    /// Failed calls (PostToolUseFailure).
    Failure,
    /// Both.
    Both,
}

impl On {
    /// Returns whether a call with this outcome triggers the command.
    pub fn includes(self, outcome: Outcome) -> bool {
        matches!(
            (self, outcome),
            (Self::Both, _) | (Self::Success, Outcome::Success) | (Self::Failure, Outcome::Failure)
        )
    }
}

/// One observer command.
///
/// An entry that does not fit the schema (an unknown key, a bad `on`, a wrong type) is still
/// read, as a command carrying its `problem`: it is reported and skipped, and the rest of the
/// configuration keeps working instead of the whole file being refused.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserverCommand {
    /// Glob on the tool name (`AskUserQuestion`, `*Search*`, `mcp__github__*`, `*`); default
    /// `*`.
    // Compiled when a tool's outcome is first held against it.
    #[serde(default = "any_tool")]
    #[schemars(with = "String")]
    pub tool: Glob,
    /// Shell script run with `sh -c` in the project root.
    #[serde(default)]
    pub run: Option<String>,
    /// Run detached; the hook returns at once.
    #[serde(default, rename = "async")]
    pub is_async: bool,
    /// Seconds before the command's process group is killed (default 60; for async commands
    /// where coreutils `timeout` exists).
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Which outcomes trigger it: success (default), failure or both.
    #[serde(default)]
    pub on: On,
    /// Why the entry could not be read, when it could not (it is then skipped).
    #[serde(skip)]
    pub problem: Option<String>,
}

/// The schema of one entry, as written in the file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawObserverCommand {
    #[serde(default = "any_tool")]
    tool: Glob,
    #[serde(default)]
    run: Option<String>,
    #[serde(default, rename = "async")]
    is_async: bool,
    #[serde(default = "default_timeout")]
    timeout: u64,
    #[serde(default)]
    on: On,
}

impl<'de> Deserialize<'de> for ObserverCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match serde_json::from_value::<RawObserverCommand>(value) {
            Ok(r) => Self {
                tool: r.tool,
                run: r.run,
                is_async: r.is_async,
                timeout: r.timeout,
                on: r.on,
                problem: None,
            },
            Err(e) => Self {
                problem: Some(e.to_string()),
                ..Self::default()
            },
        })
    }
}

fn any_tool() -> Glob {
    Glob::new("*")
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

impl Default for ObserverCommand {
    fn default() -> Self {
        Self {
            tool: any_tool(),
            run: None,
            is_async: false,
            timeout: DEFAULT_TIMEOUT_SECS,
            on: On::Success,
            problem: None,
        }
    }
}

impl ObserverCommand {
    /// Returns the script, or why the command cannot run.
    pub(super) fn script(&self) -> Result<&str, String> {
        match self.run.as_deref() {
            Some(r) if !r.trim().is_empty() => Ok(r),
            _ => Err("has no `run`".into()),
        }
    }

    /// Returns the `tool` filter (compiled when first matched), or the first problem making
    /// the command unusable.
    pub(super) fn matcher(&self) -> Result<&Glob, String> {
        if let Some(p) = &self.problem {
            return Err(format!("cannot be read ({p})"));
        }
        self.script()?;
        if self.timeout == 0 {
            return Err("has `timeout: 0`; it must be at least 1 second".into());
        }
        if self.tool.as_str().is_empty() {
            return Err("has an empty `tool`".into());
        }
        self.tool
            .check()
            .map_err(|e| format!("has an invalid `tool` glob {:?}: {e}", self.tool.as_str()))?;
        Ok(&self.tool)
    }
}

impl PostToolUseConfig {
    /// Returns problems of single commands (they are skipped at hook time).
    pub fn validate(&self) -> Vec<String> {
        let section = self.problem.as_ref().map(|p| {
            format!(
                "postToolUse cannot be read ({p}); no command after tools runs \
                 (expected `postToolUse: {{commands: [{{tool, run, ...}}]}}`)"
            )
        });
        section
            .into_iter()
            .chain(self.commands.iter().enumerate().filter_map(|(i, c)| {
                c.matcher()
                    .err()
                    .map(|p| format!("postToolUse.commands[{i}] {p}; it is skipped"))
            }))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn config(yaml: &str) -> PostToolUseConfig {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn the_seed_block_parses_unchanged() {
        let c = config(
            r#"
commands:
  # Log all Q&A interactions for documentation
  - tool: "AskUserQuestion"
    run: ".claude/scripts/log-qa.sh"

  # Optional: Log search results
  - tool: "*Search*"
    run: ".claude/scripts/log-search.sh"
    async: true
"#,
        );
        assert_eq!(c.commands.len(), 2);
        assert_eq!(c.commands[0].tool.as_str(), "AskUserQuestion");
        assert!(!c.commands[0].is_async);
        assert_eq!(c.commands[0].timeout, 60);
        assert_eq!(c.commands[0].on, On::Success);
        assert!(c.commands[1].is_async);
        assert!(c.validate().is_empty());
    }

    #[test]
    fn defaults_are_any_tool_success_sixty_seconds() {
        let c = config("commands:\n  - run: echo hi\n    on: both\n");
        assert_eq!(c.commands[0].tool.as_str(), "*");
        assert_eq!(c.commands[0].on, On::Both);
        assert_eq!(
            c.commands[0],
            ObserverCommand {
                run: Some("echo hi".into()),
                on: On::Both,
                ..Default::default()
            }
        );
    }

    #[test]
    fn an_entry_that_does_not_fit_is_skipped_and_the_rest_of_the_config_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".oath.yaml");
        fs::write(
            &path,
            "on_error: deny\npostToolUse:\n  commands:\n    - run: x\n      on: sometimes\n    - command: typo-for-run\n    - run: 'true'\n      timeout: 60s\n    - run: ok\n",
        )
        .unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).expect("the file loads");
        assert_eq!(loaded.config.on_error, crate::config::OnError::Deny);
        let c = &loaded.config.post_tool_use;
        assert_eq!(c.commands.len(), 4);
        assert_eq!(c.commands[3].script(), Ok("ok"));
        let w = &loaded.warnings;
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w[0].starts_with("postToolUse.commands[0] cannot be read (unknown variant `sometimes`"),
            "{w:?}"
        );
        assert!(
            w[1].contains("commands[1] cannot be read (unknown field `command`"),
            "{w:?}"
        );
        assert!(w[2].contains("commands[2] cannot be read ("), "{w:?}");
        assert!(w.iter().all(|w| w.ends_with("; it is skipped")), "{w:?}");
    }

    #[test]
    fn broken_entries_are_named() {
        let c = config(
            "commands:\n  - tool: Bash\n  - tool: '[abc'\n    run: x\n  - run: x\n    timeout: 0\n  - tool: ''\n    run: x\n  - run: '   '\n  - run: ok\n",
        );
        let w = c.validate();
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(
            w[0].starts_with("postToolUse.commands[0] has no `run`"),
            "{w:?}"
        );
        assert!(
            w[1].contains("commands[1] has an invalid `tool` glob \"[abc\""),
            "{w:?}"
        );
        assert!(w[2].contains("commands[2] has `timeout: 0`"), "{w:?}");
        assert!(w[3].contains("commands[3] has an empty `tool`"), "{w:?}");
        assert!(w[4].contains("commands[4] has no `run`"), "{w:?}");
    }

    #[test]
    fn checks_compile_no_tool_glob_and_the_first_match_does() {
        let c =
            config("commands:\n  - tool: '*Search*'\n    run: x\n  - tool: 'mcp__*'\n    run: z\n");
        assert_eq!(c.validate(), Vec::<String>::new());
        assert!(c.commands.iter().all(|c| !c.tool.is_compiled()));
        assert!(c.commands[0].matcher().unwrap().is_match("WebSearch"));
        assert!(c.commands[0].tool.is_compiled());
        assert!(!c.commands[1].tool.is_compiled());
    }

    #[test]
    fn tool_globs_match_names() {
        let m = |p: &str, t: &str| {
            let c = ObserverCommand {
                tool: Glob::new(p),
                run: Some("x".into()),
                ..ObserverCommand::default()
            };
            c.matcher().unwrap().is_match(t)
        };
        assert!(m("*", "Bash"));
        assert!(m("*", ""));
        assert!(m("AskUserQuestion", "AskUserQuestion"));
        assert!(!m("AskUserQuestion", "AskUserQuestions"));
        assert!(!m("Bash", "bash"));
        assert!(m("*Search*", "WebSearch"));
        assert!(m("*Search*", "ToolSearch"));
        assert!(!m("*Search*", "WebFetch"));
        assert!(m("mcp__github__*", "mcp__github__create_issue"));
        assert!(!m("mcp__github__*", "mcp__gitlab__create_issue"));
        assert!(m("{Edit,Write}", "Write"));
        assert!(m("Bas?", "Bash"));
    }

    #[test]
    fn on_selects_outcomes() {
        assert!(On::Success.includes(Outcome::Success));
        assert!(!On::Success.includes(Outcome::Failure));
        assert!(On::Failure.includes(Outcome::Failure));
        assert!(!On::Failure.includes(Outcome::Success));
        assert!(On::Both.includes(Outcome::Success) && On::Both.includes(Outcome::Failure));
    }

    #[test]
    fn a_section_that_does_not_fit_is_reported_and_the_rest_of_the_config_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".oath.yaml");
        // `commands:` forgotten: the entries sit directly under `postToolUse`.
        fs::write(
            &path,
            "on_error: deny\npostToolUse:\n  - tool: Bash\n    run: echo hi\n",
        )
        .unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).expect("the file loads");
        assert_eq!(loaded.config.on_error, crate::config::OnError::Deny);
        assert!(loaded.config.post_tool_use.commands.is_empty());
        let w = &loaded.warnings;
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("postToolUse cannot be read ("), "{w:?}");
        // An empty section is simply no commands.
        fs::write(&path, "postToolUse:\n").unwrap();
        let loaded = crate::config::Config::load(None, Some(&path)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }
}
