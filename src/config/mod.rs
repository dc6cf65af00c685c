//! oath's configuration: YAML, the project's `.oath.yaml` over the user file, defaults equal
//! to the seed values.
//!
//! Each file is read and parsed once, into a value that is then typed as [`Config`] with
//! unknown keys refused (when that fails, errors name the file, line and key, with a "did you
//! mean"); then both values are deep-merged (project wins, key by key) and the result is
//! checked for out-of-range values. Sections whose entries are checked separately
//! (`postToolUse` commands, `rules`) report problems per entry, so one bad entry does not
//! switch off the other features; their globs are read when the file is, and compiled only
//! when a call is first held against them ([`glob`]).

pub mod approval;
mod cache;
pub mod export;
pub mod glob;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kpt::KptConfig;
use crate::observers::PostToolUseConfig;
use crate::rules::Rules;
use crate::strike::StrikeConfig;
use crate::trust::{AutonomyParams, RiskWeights, TrustParams};

/// Largest configuration file read (1 MiB); a larger one is a read error.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// What PreToolUse answers when oath itself fails (bad input, invalid config, a bug).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Ask the user, with the reason (default).
    #[default]
    Ask,
    /// Deny the call.
    Deny,
    /// Let the call through (Claude Code's own rules still apply).
    Allow,
}

/// Model routing for subagents (Phase 2b), off by default.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ModelRouting {
    /// When true, PreToolUse of Agent/Task sets `model` to the recommended model
    /// (through `updatedInput`, with an allow or ask decision).
    pub enabled: bool,
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// PreToolUse outcome when oath fails internally: ask (default), deny or allow.
    pub on_error: OnError,
    /// Trust model parameters.
    pub trust: TrustParams,
    /// Weights of risk and complexity in the autonomy formula.
    pub risk: RiskWeights,
    /// Autonomy thresholds of the decision.
    pub autonomy: AutonomyParams,
    /// User allow / ask / deny rules.
    pub rules: Rules,
    /// Subagent model routing.
    pub model_routing: ModelRouting,
    /// Read-only commands run after tools (seed 002).
    #[serde(rename = "postToolUse")]
    pub post_tool_use: PostToolUseConfig,
    /// The 3-strike protocol.
    pub strikes: StrikeConfig,
    /// KPT retrospectives.
    pub kpt: KptConfig,
    /// Shipping the audit trail elsewhere (`oath export otlp`).
    pub export: export::ExportConfig,
}

/// A configuration problem, naming the file (and line, when known).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The YAML is invalid or does not fit the schema.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column) and a hint.
        message: String,
    },
    /// Values out of range or inconsistent.
    #[error("invalid configuration:\n  {}", .0.join("\n  "))]
    Invalid(Vec<String>),
}

/// Where a layer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// Built-in defaults.
    Builtin,
    /// The user file.
    User,
    /// The project's `.oath.yaml`.
    Project,
}

/// What became of the project's `.oath.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProjectFile {
    /// There is none.
    #[default]
    Absent,
    /// The user approved this content: it applies whole.
    Approved,
    /// Not approved: only what tightens applies; these keys were ignored.
    Unapproved(Vec<String>),
    /// Invalid: ignored whole.
    Invalid,
}

/// A loaded configuration and the files it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The merged, validated configuration.
    pub config: Config,
    /// Files read, with their layer.
    pub sources: Vec<(Layer, PathBuf)>,
    /// Problems of single entries (a command without `run`, a bad glob): reported, skipped;
    /// files ignored as invalid.
    pub warnings: Vec<String>,
    /// What became of the project's file ([`Config::load_checked`]; `Approved` otherwise).
    pub project: ProjectFile,
}

impl Loaded {
    /// The line telling the user that the project's file is not approved, if it is not.
    pub fn unapproved_notice(&self) -> Option<String> {
        let ProjectFile::Unapproved(keys) = &self.project else {
            return None;
        };
        if keys.is_empty() {
            return None;
        }
        let file = self
            .sources
            .iter()
            .find(|(l, _)| *l == Layer::Project)
            .map_or_else(|| ".oath.yaml".to_owned(), |(_, p)| p.display().to_string());
        Some(format!(
            "oath: {file} is not approved, so only its deny and ask rules apply ({} ignored); read it, then run `oath config trust` to apply it whole",
            keys.join(", ")
        ))
    }
}

impl Config {
    /// Loads the user file and the project file (each optional) and merges them: any problem
    /// is an error, and the project's file applies whole (`oath config validate`).
    pub fn load(user: Option<&Path>, project: Option<&Path>) -> Result<Loaded, ConfigError> {
        let mut merged = Value::Object(serde_json::Map::new());
        // The merge, typed, while it is one file's value (which is typed already).
        let mut typed = None;
        let mut sources = Vec::new();
        for (layer, path) in [(Layer::User, user), (Layer::Project, project)] {
            let Some(path) = path else { continue };
            let Some(file) = read_layer(path, None)? else {
                continue;
            };
            typed = sources.is_empty().then_some(file.config);
            deep_merge(&mut merged, file.value);
            sources.push((layer, path.to_path_buf()));
        }
        let config = match typed {
            Some(c) => c,
            None => Config::deserialize(&merged)
                .map_err(|e| ConfigError::Invalid(vec![format!("merged configuration: {e}")]))?,
        };
        let errors = config.range_errors();
        if !errors.is_empty() {
            return Err(ConfigError::Invalid(errors));
        }
        let warnings = config.entry_warnings();
        Ok(Loaded {
            config,
            sources,
            warnings,
            project: ProjectFile::Approved,
        })
    }

    /// Loads the configuration a decision uses. It never fails: a file that cannot be read
    /// or is invalid is ignored (named in `warnings`) and the rest applies, so a broken file
    /// never weakens a decision. The project's file, which the agent can write, applies whole
    /// only when `approvals` holds its exact content; otherwise only its deny and ask rules
    /// (added to the user's) and a stricter `on_error` apply.
    ///
    /// Each file is read and parsed once; the merge is typed once per file (the file alone
    /// needs no second typing when nothing is under it).
    pub fn load_checked(
        user: Option<&Path>,
        project: Option<&Path>,
        approvals: impl FnOnce() -> approval::Approvals,
    ) -> Loaded {
        Self::load_checked_cached(user, project, approvals, None)
    }

    /// [`Config::load_checked`], with the parsed files kept in `cache` between calls
    /// ([`cache`]).
    fn load_checked_cached(
        user: Option<&Path>,
        project: Option<&Path>,
        approvals: impl FnOnce() -> approval::Approvals,
        cache: Option<&Path>,
    ) -> Loaded {
        let mut merged = Value::Object(serde_json::Map::new());
        let mut config = Config::default();
        let mut sources = Vec::new();
        let mut warnings = Vec::new();
        let mut status = ProjectFile::Absent;
        let mut approvals = Some(approvals);
        for (layer, path) in [(Layer::User, user), (Layer::Project, project)] {
            let Some(path) = path else { continue };
            let is_project = layer == Layer::Project;
            let file = match read_layer(path, cache) {
                Ok(Some(f)) => f,
                Ok(None) => continue,
                Err(e) => {
                    warnings.push(match e {
                        ConfigError::Read { message, .. } => {
                            format!("{} ignored: cannot read it: {message}", path.display())
                        }
                        e => format!("ignored: {e}"),
                    });
                    if is_project {
                        status = ProjectFile::Invalid;
                    }
                    continue;
                }
            };
            let whole = !is_project
                || approvals
                    .take()
                    .is_some_and(|a| a().approves(path, file.text.as_bytes()));
            let mut candidate = merged.clone();
            let (layer_status, typed) = if whole {
                let typed = sources.is_empty().then_some(file.config);
                deep_merge(&mut candidate, file.value);
                (ProjectFile::Approved, typed)
            } else {
                let (kept, dropped) = approval::tighten_only(file.value);
                approval::merge_tightening(&mut candidate, kept);
                (ProjectFile::Unapproved(dropped), None)
            };
            let checked = match typed {
                Some(c) => Ok(c),
                None => Config::deserialize(&candidate).map_err(|e| vec![e.to_string()]),
            }
            .and_then(|c| {
                let problems = c.range_errors();
                if problems.is_empty() {
                    Ok(c)
                } else {
                    Err(problems)
                }
            });
            match checked {
                Ok(c) => {
                    merged = candidate;
                    config = c;
                    sources.push((layer, path.to_path_buf()));
                    if is_project {
                        status = layer_status;
                    }
                }
                Err(problems) => {
                    warnings.push(format!(
                        "{} ignored: {}",
                        path.display(),
                        problems.join("; ")
                    ));
                    if is_project {
                        status = ProjectFile::Invalid;
                    }
                }
            }
        }
        warnings.extend(config.entry_warnings());
        Loaded {
            config,
            sources,
            warnings,
            project: status,
        }
    }

    /// Loads the configuration in force for a project ([`Config::load_checked`] of the
    /// user file and the project's `.oath.yaml`, with the user's approvals).
    pub fn in_force(env: &crate::project::Env, project: &crate::project::Project) -> Loaded {
        let state = env.state_root();
        Self::load_checked_cached(
            env.user_config_path().as_deref(),
            Some(&project.config_file()),
            || approval::Approvals::load(&state),
            Some(&state.join("cache/config")),
        )
    }

    /// Parses one YAML text as a full configuration (used by `oath config validate`).
    pub fn from_yaml(text: &str, path: &Path) -> Result<Config, ConfigError> {
        parse_layer(text, path).map(|(_, config)| config)
    }

    /// Returns out-of-range values (these make the configuration invalid).
    pub fn range_errors(&self) -> Vec<String> {
        let mut e = self.trust.validate();
        e.extend(self.risk.validate());
        e.extend(self.autonomy.validate());
        e.extend(self.strikes.validate());
        e
    }

    /// Returns problems of single entries, which are skipped rather than fatal.
    pub fn entry_warnings(&self) -> Vec<String> {
        let mut w = self.rules.validate();
        w.extend(self.post_tool_use.validate());
        w
    }

    /// Returns the JSON Schema of the configuration.
    pub fn schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Config)).unwrap_or(Value::Null)
    }
}

/// A configuration file, read and parsed once.
struct File {
    /// Its text (approvals are of the exact content).
    text: String,
    /// Its YAML, for the merge (an empty file is an empty map).
    value: Value,
    /// The same, typed.
    config: Config,
}

/// Reads and parses one file (the parsed value kept in `cache` when there is one); `None`
/// when there is none.
fn read_layer(path: &Path, cache: Option<&Path>) -> Result<Option<File>, ConfigError> {
    let text = match crate::state::read_text_file(path, MAX_CONFIG_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
        }
    };
    let kept = cache
        .and_then(|dir| cache::get(dir, path, &text))
        .and_then(|value| Config::deserialize(&value).ok().map(|c| (value, c)));
    let (value, config) = match kept {
        Some(parsed) => parsed,
        None => {
            let (value, config) = parse_layer(&text, path)?;
            if let Some(dir) = cache {
                cache::put(dir, path, &text, &value);
            }
            (value, config)
        }
    };
    Ok(Some(File {
        text,
        value,
        config,
    }))
}

/// Parses one file's text once, into a value, and types that value (unknown keys and wrong
/// types are refused). Only when typing fails is the text read again, typed, for an error
/// naming the line and key (with a "did you mean").
fn parse_layer(text: &str, path: &Path) -> Result<(Value, Config), ConfigError> {
    let error = |message: &str| ConfigError::Parse {
        path: path.to_path_buf(),
        message: with_suggestion(message),
    };
    let value = match serde_saphyr::from_str::<Value>(text) {
        Ok(Value::Null) => Value::Object(serde_json::Map::new()),
        Ok(v) => v,
        Err(e) => return Err(error(&e.to_string())),
    };
    match Config::deserialize(&value) {
        Ok(config) => Ok((value, config)),
        Err(e) => Err(error(
            &serde_saphyr::from_str::<Config>(text)
                .err()
                .map_or_else(|| e.to_string(), |typed| typed.to_string()),
        )),
    }
}

/// Merges `overlay` into `base`: objects key by key, anything else replaced.
pub fn deep_merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        deep_merge(existing, v)
                    }
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

/// Adds "did you mean `x`?" to an unknown-field message.
fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.split("unknown field `").nth(1) else {
        return message.to_owned();
    };
    let Some((field, after)) = rest.split_once('`') else {
        return message.to_owned();
    };
    let Some(expected) = after.split("expected one of ").nth(1) else {
        return message.to_owned();
    };
    let first_line = expected.lines().next().unwrap_or_default();
    let candidates = first_line
        .split(',')
        .map(|c| c.trim().trim_matches('`'))
        .filter(|c| !c.is_empty());
    match crate::suggest::closest(field, candidates) {
        Some(c) => format!("{message}\nhint: did you mean `{c}`?"),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn defaults_equal_the_seed_values() {
        let c = Config::default();
        assert_eq!(c.trust.initial_score, 0.3);
        assert_eq!(c.trust.failure_decay, 0.85);
        assert_eq!(c.trust.recovery_boost_multiplier, 1.5);
        assert_eq!(c.trust.boost_threshold, 20);
        assert_eq!(c.trust.hibernation_days, 14);
        assert_eq!((c.risk.lambda1, c.risk.lambda2), (0.6, 0.4));
        assert_eq!(
            (
                c.autonomy.auto_approve_threshold,
                c.autonomy.human_required_threshold
            ),
            (0.8, 0.4)
        );
        assert_eq!(c.on_error, OnError::Ask);
        assert!(c.range_errors().is_empty());
    }

    #[test]
    fn project_overrides_user_key_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.yaml",
            "trust:\n  initial_score: 0.2\n  failure_decay: 0.9\non_error: deny\n",
        );
        let project = write(dir.path(), "project.yaml", "trust:\n  initial_score: 0.1\n");
        let loaded = Config::load(Some(&user), Some(&project)).unwrap();
        assert_eq!(loaded.config.trust.initial_score, 0.1);
        assert_eq!(loaded.config.trust.failure_decay, 0.9);
        assert_eq!(loaded.config.on_error, OnError::Deny);
        assert_eq!(loaded.sources.len(), 2);
    }

    #[test]
    fn unknown_key_names_line_and_suggests() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "c.yaml", "trust:\n  initial_scor: 0.2\n");
        let err = Config::load(None, Some(&p)).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("did you mean `initial_score`?"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "c.yaml",
            "trust:\n  initial_score: 1.0\nautonomy:\n  auto_approve_threshold: 0.3\n",
        );
        let err = Config::load(None, Some(&p)).unwrap_err().to_string();
        assert!(
            err.contains("trust.initial_score is 1, but it must be between 0 and 0.5"),
            "{err}"
        );
        assert!(
            err.contains("must be below autonomy.auto_approve_threshold"),
            "{err}"
        );
    }

    #[test]
    fn cached_loads_equal_fresh_ones_and_see_an_edit_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let readme = include_str!("../../README.md");
        let example = readme
            .split("```yaml\n")
            .find(|b| b.starts_with("on_error:"))
            .and_then(|b| b.split("```").next())
            .expect("the README's example configuration");
        let user = write(dir.path(), "user.yaml", example);
        let none = approval::Approvals::default;
        let fresh = Config::load_checked(Some(&user), None, none);
        let load = || Config::load_checked_cached(Some(&user), None, none, Some(&cache));
        let (first, second) = (load(), load());
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1, "kept");
        for l in [&first, &second] {
            assert_eq!(l.config, fresh.config);
            assert_eq!(l.warnings, fresh.warnings);
        }
        std::fs::write(&user, "on_error: deny\n").unwrap();
        assert_eq!(load().config.on_error, OnError::Deny);
        // A broken file is reported as without the cache, and not kept.
        std::fs::write(&user, "on_error: [\n").unwrap();
        assert!(load().warnings.iter().any(|w| w.contains("user.yaml")));
        assert_eq!(load().config, Config::default());
    }

    #[test]
    fn a_checked_load_never_fails_and_an_unapproved_project_only_tightens() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.yaml",
            "rules:\n  deny:\n    - {tool: WebFetch}\n",
        );
        let project_text = "autonomy:\n  auto_approve_threshold: 0.45\n  human_required_threshold: 0.1\nrules:\n  allow:\n    - {tool: Bash}\n  deny:\n    - {tool: Write}\n";
        let project = write(dir.path(), "project.yaml", project_text);
        let none = approval::Approvals::default;
        let l = Config::load_checked(Some(&user), Some(&project), none);
        assert_eq!(l.config.autonomy, AutonomyParams::default());
        assert!(l.config.rules.allow.is_empty());
        assert_eq!(l.config.rules.deny.len(), 2, "the user's deny rule stays");
        assert!(
            matches!(&l.project, ProjectFile::Unapproved(k) if k.contains(&"autonomy".to_owned()))
        );
        assert!(
            l.unapproved_notice()
                .is_some_and(|n| n.contains("oath config trust"))
        );
        // Approved, the same content applies whole.
        let mut a = approval::Approvals::default();
        a.files.insert(
            std::fs::canonicalize(&project)
                .unwrap()
                .display()
                .to_string(),
            approval::digest(project_text.as_bytes()),
        );
        let l = Config::load_checked(Some(&user), Some(&project), || a);
        assert_eq!(l.config.autonomy.auto_approve_threshold, 0.45);
        assert_eq!(l.config.rules.allow.len(), 1);
        assert_eq!(l.project, ProjectFile::Approved);
        // An invalid file is ignored, named, and weakens nothing.
        let broken = write(dir.path(), "broken.yaml", "on_error: allow\ntrust: [\n");
        let l = Config::load_checked(Some(&user), Some(&broken), none);
        assert_eq!(l.project, ProjectFile::Invalid);
        assert_eq!(l.config.on_error, OnError::Ask);
        assert_eq!(l.config.rules.deny.len(), 1);
        assert!(
            l.warnings.iter().any(|w| w.contains("broken.yaml")),
            "{:?}",
            l.warnings
        );
        let out_of_range = write(dir.path(), "range.yaml", "trust:\n  initial_score: 0.9\n");
        let l = Config::load_checked(Some(&out_of_range), None, none);
        assert_eq!(l.config.trust.initial_score, 0.3);
        assert!(l.warnings.iter().any(|w| w.contains("range.yaml ignored")));
    }

    #[test]
    fn empty_file_is_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "c.yaml", "");
        assert_eq!(
            Config::load(None, Some(&p)).unwrap().config,
            Config::default()
        );
    }

    #[test]
    fn a_rule_with_an_invalid_glob_is_named_and_the_other_rules_apply() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.yaml",
            "rules:\n  deny:\n    - command: \"rm -rf [\"\n    - command: \"terraform destroy*\"\n  ask:\n    - path: \"**/migrations/**\"\n",
        );
        let subject = |command| crate::rules::Subject {
            tool: "Bash",
            commands: vec![command],
            paths: vec![],
        };
        for loaded in [
            Config::load(Some(&user), None).unwrap(),
            Config::load_checked(Some(&user), None, approval::Approvals::default),
        ] {
            assert_eq!(
                loaded.warnings,
                ["rules.deny[0]: invalid glob \"rm -rf [\": unclosed character class; missing ']'"]
            );
            let rules = &loaded.config.rules;
            assert_eq!((rules.deny.len(), rules.ask.len()), (2, 1));
            let hit = rules.matching(&subject("terraform destroy -target=a/b"));
            assert_eq!(hit.map(|m| m.id), Some("rules.deny[1]".to_owned()));
            assert_eq!(rules.matching(&subject("rm -rf [")), None);
        }
    }

    #[test]
    fn wrong_keys_deep_in_a_section_name_their_line_and_layers_merge() {
        // Wrong types deep in a section are refused with the line, as unknown keys are.
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "c.yaml",
            "on_error: deny\nrules:\n  deny:\n    - command: x\n      reasn: y\n",
        );
        let err = Config::load(None, Some(&p)).unwrap_err().to_string();
        assert!(err.contains("line 5"), "{err}");
        assert!(err.contains("did you mean `reason`?"), "{err}");
        let l = Config::load_checked(None, Some(&p), approval::Approvals::default);
        assert_eq!(l.project, ProjectFile::Invalid);
        assert!(l.warnings[0].contains("line 5"), "{:?}", l.warnings);
        // User and project, both valid: merged, the project's key winning.
        let user = write(
            dir.path(),
            "u.yaml",
            "on_error: deny\ntrust:\n  boost_threshold: 7\n",
        );
        let project = write(dir.path(), "p.yaml", "trust:\n  boost_threshold: 9\n");
        let l = Config::load(Some(&user), Some(&project)).unwrap();
        assert_eq!(
            (l.config.on_error, l.config.trust.boost_threshold),
            (OnError::Deny, 9)
        );
    }
}
