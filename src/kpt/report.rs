//! The KPT report of seed 004 (`kpt-YYYYMMDD-NNN.yaml`): its types, JSON Schema and
//! validation.
//!
//! The seed's schema is kept field for field. oath adds optional fields, all marked as
//! extensions in their doc comments: extra `metrics` (files and lines changed, rejections,
//! denials, interrupts, durations) and an `oath` section with the gate's own facts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::{self, Issue, Node};

/// Marker that starts every text left for a person or the model to write.
pub const JUDGEMENT: &str = "TODO(judgement)";

/// `outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The goals were reached.
    Success,
    /// Some goals were reached.
    Partial,
    /// The goals were not reached.
    Failure,
}

/// `keep[].category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeepCategory {
    /// A good choice of approach.
    Approach,
    /// Efficient tool use.
    ToolUse,
    /// Good communication with the user.
    Communication,
    /// A good design decision.
    Architecture,
}

/// `high | medium | low` (reusability, impact, risk level).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
}

impl Level {
    /// Returns the name as written in YAML.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
        }
    }
}

/// `problem[].category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProblemCategory {
    /// Caused an error.
    Error,
    /// Wasted effort (e.g. the same search repeated).
    Inefficiency,
    /// Misread the requirement.
    Misunderstanding,
    /// Missed a check.
    Oversight,
    /// Chose an unsuitable approach.
    WrongApproach,
}

/// `try[].scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TryScope {
    /// Within this session.
    Immediate,
    /// From the next session.
    Session,
    /// This project.
    Project,
    /// Every project.
    Global,
}

/// `try[].persistence_target.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetType {
    /// A CLAUDE.md file (applied by `oath kpt apply`).
    ClaudeMd,
    /// A skill.
    Skill,
    /// A hook.
    Hook,
    /// Memory.
    Memory,
}

impl TargetType {
    /// Returns the name as written in YAML.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetType::ClaudeMd => "claude_md",
            TargetType::Skill => "skill",
            TargetType::Hook => "hook",
            TargetType::Memory => "memory",
        }
    }
}

/// A `keep` item: what went well.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Keep {
    /// `keep-NNN`, unique in the report.
    #[schemars(regex(pattern = r"^keep-[0-9]{3}$"))]
    pub id: String,
    /// What went well.
    #[schemars(length(min = 1))]
    pub description: String,
    /// Evidence: turn, line, file or operation.
    #[schemars(length(min = 1))]
    pub evidence: String,
    /// Category.
    pub category: KeepCategory,
    /// How reusable it is elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reusability: Option<Level>,
}

/// A `problem` item: what went wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// `prob-NNN`, unique in the report.
    #[schemars(regex(pattern = r"^prob-[0-9]{3}$"))]
    pub id: String,
    /// What went wrong.
    #[schemars(length(min = 1))]
    pub description: String,
    /// Impact.
    pub impact: Level,
    /// Evidence.
    #[schemars(length(min = 1))]
    pub evidence: String,
    /// Category.
    pub category: ProblemCategory,
    /// Estimated root cause (recommended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<String>,
    /// Turn range such as `"5-8"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_range: Option<String>,
}

/// Where a `try` is persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PersistenceTarget {
    /// Kind of target.
    #[serde(rename = "type")]
    pub kind: TargetType,
    /// File path (`~/` is the home directory; relative paths are from the project root).
    #[schemars(length(min = 1))]
    pub path: String,
    /// Section heading, such as `"## Package management"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// A `try` item: what to do next time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Try {
    /// `try-NNN`, unique in the report.
    #[schemars(regex(pattern = r"^try-[0-9]{3}$"))]
    pub id: String,
    /// A concrete action.
    #[schemars(length(min = 1))]
    pub description: String,
    /// Ids of the problems and omissions it answers (each must exist in the report).
    #[schemars(length(min = 1))]
    pub addresses: Vec<String>,
    /// When it applies.
    pub scope: TryScope,
    /// Where to persist it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence_target: Option<PersistenceTarget>,
}

/// An `omission` item: what was not done (found by counterfactual prompts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Omission {
    /// `omit-NNN`, unique in the report.
    #[schemars(regex(pattern = r"^omit-[0-9]{3}$"))]
    pub id: String,
    /// What was overlooked.
    #[schemars(length(min = 1))]
    pub description: String,
    /// Why it was overlooked.
    #[schemars(length(min = 1))]
    pub reasoning: String,
    /// Risk.
    pub risk_level: Level,
    /// The counterfactual prompt (perspective) that found it.
    #[schemars(length(min = 1))]
    pub counterfactual_prompt: String,
    /// What to do next time (recommended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_action: Option<String>,
}

/// Session metrics, computed from the transcript (never guessed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// `user_turns + assistant_turns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_duration_turns: Option<u64>,
    /// Real human prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_turns: Option<u64>,
    /// Distinct assistant API messages (main chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_turns: Option<u64>,
    /// Tool calls (main chain and subagents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_count: Option<u64>,
    /// Tool names used, sorted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_tools: Option<Vec<String>>,
    /// Successful Write/Edit/MultiEdit/NotebookEdit calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_changes_count: Option<u64>,
    /// Real tool failures (rejections, denials and interrupts excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_count: Option<u64>,
    /// Human prompts correcting the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction_count: Option<u64>,
    /// Work undone or redone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backtrack_count: Option<u64>,
    /// oath extension: distinct files changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<u64>,
    /// oath extension: lines added by code changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u64>,
    /// oath extension: lines removed by code changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u64>,
    /// oath extension: tool calls the user rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection_count: Option<u64>,
    /// oath extension: tool calls denied by a rule, mode or hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_denial_count: Option<u64>,
    /// oath extension: user interrupts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt_count: Option<u64>,
    /// oath extension: calls cancelled because another call of their parallel batch failed
    /// (not counted in `error_count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cascade_count: Option<u64>,
    /// oath extension: token usage, counted once per API message (main chain and
    /// subagents), with the API's usage names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenUsage>,
    /// oath extension: transcript lines that were not valid JSON (skipped), when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable_lines: Option<u64>,
    /// oath extension: transcript lines too long to keep (over 16 MiB), skipped, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_lines: Option<u64>,
    /// oath extension: tool calls made inside subagents (included in `tool_use_count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_tool_use_count: Option<u64>,
    /// oath extension: milliseconds from the first to the last transcript line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// oath extension: milliseconds spent in tools (result time minus call time, summed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_time_ms: Option<u64>,
}

/// oath extension: token usage with the API's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenUsage {
    /// Input tokens not read from or written to the prompt cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

/// Trust of one domain at one level over the session (from oath's audit trail).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrustChange {
    /// Domain.
    pub domain: String,
    /// The level of the domain's trust (`low`, `medium`, `high`; absent for trails written
    /// before trust was kept per level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Score before the first update of the session.
    pub before: f64,
    /// Score after the last update of the session.
    pub after: f64,
    /// Successful outcomes applied.
    pub successes: u64,
    /// Failed outcomes applied.
    pub failures: u64,
}

/// oath extension: what oath's own gate recorded for the session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OathFacts {
    /// Calls the gate allowed.
    #[serde(default)]
    pub allowed: u64,
    /// Calls the gate left to Claude Code's own permission rules (no opinion).
    #[serde(default)]
    pub no_opinion: u64,
    /// Calls the gate asked the user about.
    #[serde(default)]
    pub asked: u64,
    /// Calls the gate denied.
    #[serde(default)]
    pub denied: u64,
    /// 3-strike escalations (the same failure three times or more).
    #[serde(default)]
    pub strike_escalations: u64,
    /// Trust changes per domain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trust_changes: Vec<TrustChange>,
}

/// `feedback_integration`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackIntegration {
    /// Whether feedback was sent to prompt-improver.
    pub enabled: bool,
    /// Id of the generated feedback (`fb-YYYYMMDD-NNN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^fb-[0-9]{8}-[0-9]{3}$"))]
    pub generated_feedback_id: Option<String>,
}

/// A KPT report (seed 004).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "AI-KPT report")]
pub struct Report {
    /// `kpt-YYYYMMDD-NNN`, equal to the file name.
    #[schemars(regex(pattern = r"^kpt-[0-9]{8}-[0-9]{3}$"))]
    pub id: String,
    /// When the report was written (ISO 8601).
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
    /// Claude Code session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Two or three sentences about the session.
    #[schemars(length(min = 1))]
    pub session_summary: String,
    /// The session's goals (at least one).
    #[schemars(length(min = 1))]
    pub task_goals: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// What to keep doing (may be empty).
    pub keep: Vec<Keep>,
    /// What went wrong (may be empty).
    pub problem: Vec<Problem>,
    /// What to try next (may be empty).
    #[serde(rename = "try")]
    pub tries: Vec<Try>,
    /// What was overlooked (may be empty).
    pub omission: Vec<Omission>,
    /// Session metrics (recommended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// oath extension: the gate's own facts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oath: Option<OathFacts>,
    /// prompt-improver integration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_integration: Option<FeedbackIntegration>,
}

impl Report {
    /// Returns the JSON Schema of a report.
    pub fn schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Report)).unwrap_or(Value::Null)
    }
}

/// Returns whether `YYYYMMDD` is a real calendar date.
pub fn valid_compact_date(d: &str) -> bool {
    if d.len() != 8 || !d.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (Ok(y), Ok(m), Ok(day)) = (
        d[..4].parse::<i32>(),
        d[4..6].parse::<u8>(),
        d[6..].parse::<u8>(),
    ) else {
        return false;
    };
    time::Month::try_from(m)
        .ok()
        .and_then(|m| time::Date::from_calendar_date(y, m, day).ok())
        .is_some()
}

/// Checks the id of a dated document (`kpt-…`, `fb-…`): a real date and the file's name.
pub fn check_dated_id(tree: &Node, prefix: &str, file_stem: Option<&str>, out: &mut Vec<Issue>) {
    let Some(idn) = tree.get("id") else { return };
    let Some(id) = idn.as_str() else { return };
    if let Some(date) = id.strip_prefix(prefix).and_then(|r| r.split('-').next())
        && date.len() == 8
        && date.bytes().all(|b| b.is_ascii_digit())
        && !valid_compact_date(date)
    {
        out.push(Issue::new(
            idn.line,
            "id",
            format!("`{id}` does not hold a real date (YYYYMMDD)"),
        ));
    }
    if let Some(stem) = file_stem
        && stem != id
    {
        out.push(Issue::new(
            idn.line,
            "id",
            format!("`{id}` does not match the file name `{stem}`"),
        ));
    }
}

/// Checks what the schema cannot: unique ids, `try.addresses` references, the id against the
/// file name, and `feedback_integration` consistency.
pub fn semantic_issues(tree: &Node, file_stem: Option<&str>) -> Vec<Issue> {
    let mut out = Vec::new();
    check_dated_id(tree, "kpt-", file_stem, &mut out);
    let mut ids: Vec<(String, String)> = Vec::new(); // (id, path)
    let mut targets: Vec<String> = Vec::new();
    for section in ["keep", "problem", "try", "omission"] {
        let Some(list) = tree.get(section) else {
            continue;
        };
        for (i, item) in list.items().iter().enumerate() {
            let Some(idn) = item.get("id") else { continue };
            let Some(id) = idn.as_str() else { continue };
            let path = format!("{section}[{i}].id");
            if let Some((_, first)) = ids.iter().find(|(x, _)| x == id) {
                out.push(Issue::new(
                    idn.line,
                    &path,
                    format!("duplicate id `{id}` (already used at {first})"),
                ));
            } else {
                ids.push((id.to_owned(), path));
            }
            if section == "problem" || section == "omission" {
                targets.push(id.to_owned());
            }
        }
    }
    if let Some(list) = tree.get("try") {
        for (i, item) in list.items().iter().enumerate() {
            let Some(addr) = item.get("addresses") else {
                continue;
            };
            for (j, a) in addr.items().iter().enumerate() {
                let Some(name) = a.as_str() else { continue };
                if !targets.iter().any(|t| t == name) {
                    out.push(Issue::new(
                        a.line,
                        format!("try[{i}].addresses[{j}]"),
                        format!("`{name}` names no problem or omission of this report"),
                    ));
                }
            }
        }
    }
    if let Some(fi) = tree.get("feedback_integration")
        && matches!(
            fi.get("enabled").map(|n| &n.kind),
            Some(check::Kind::Bool(true))
        )
        && fi.get("generated_feedback_id").is_none()
    {
        out.push(Issue::new(
            fi.line,
            "feedback_integration.generated_feedback_id",
            "required when enabled is true",
        ));
    }
    out
}

/// Returns the judgement texts still left to write (`TODO(judgement)` markers), as issues.
pub fn unfinished(tree: &Node) -> Vec<Issue> {
    fn walk(n: &Node, path: &str, out: &mut Vec<Issue>) {
        match &n.kind {
            check::Kind::Str(s) if s.contains(JUDGEMENT) => out.push(Issue::new(
                n.line,
                path,
                "still a TODO(judgement) placeholder: write it",
            )),
            check::Kind::Seq(items) => {
                for (i, it) in items.iter().enumerate() {
                    walk(it, &format!("{path}[{i}]"), out);
                }
            }
            check::Kind::Map(entries) => {
                for (k, _, v) in entries {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(v, &p, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(tree, "", &mut out);
    out
}

/// Returns the issues of a report's tree: against the schema, then the semantic rules.
fn tree_issues(tree: &Node, file_stem: Option<&str>) -> Vec<Issue> {
    let mut issues = check::check(&Report::schema(), tree);
    issues.extend(semantic_issues(tree, file_stem));
    issues.sort();
    issues.dedup();
    issues
}

/// Returns the issues of report text that are not at a `TODO(judgement)` placeholder: none
/// for a draft as `oath kpt new` writes it, however many placeholders are left to fill (a
/// placeholder of a choice or of `try.addresses` is not a valid value yet).
pub fn issues_beyond_placeholders(text: &str, file_stem: Option<&str>) -> Vec<Issue> {
    let tree = match check::parse(text) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let todo: Vec<String> = unfinished(&tree).into_iter().map(|i| i.path).collect();
    let mut issues = tree_issues(&tree, file_stem);
    issues.retain(|i| !todo.contains(&i.path));
    issues
}

/// Validates report text: structure against the schema, then the semantic rules. Returns the
/// typed report when there is no issue.
pub fn validate(text: &str, file_stem: Option<&str>) -> Result<Report, Vec<Issue>> {
    let tree = check::parse(text).map_err(|e| vec![e])?;
    let issues = tree_issues(&tree, file_stem);
    if !issues.is_empty() {
        return Err(issues);
    }
    serde_saphyr::from_str::<Report>(text).map_err(|e| {
        vec![Issue::new(
            e.location().map(|l| l.line()).unwrap_or(0),
            "",
            e.to_string()
                .lines()
                .next()
                .unwrap_or("invalid report")
                .to_owned(),
        )]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(valid_compact_date("20260208"));
        assert!(valid_compact_date("20240229"));
        assert!(!valid_compact_date("20250229"));
        assert!(!valid_compact_date("20261301"));
    }
}
