//! prompt-improver feedback (`fb-YYYYMMDD-NNN.yaml`, kpt.md §8.2): types, validation, and the
//! complete KPT → feedback conversion of kpt.md §9.3.
//!
//! Conversion: `session_summary` → `task_summary` and `outcome.rationale`; `outcome` success →
//! `{success: true, score: 1.0}`, partial → `{false, 0.5}`, failure → `{false, 0.2}`; each
//! problem → an issue (`id` → `issue_id`, category → type by [`issue_type`], `impact` →
//! `severity`, `evidence` → `evidence_ref`, `root_cause` → `impact`, `target` from the
//! `persistence_target` of the first try addressing it, `memory` → `other`, else
//! `{type: other, path: ""}`); each try → a proposed action (`scope` from its persistence
//! target type, fallback `other`; `description` → `change_summary`; `expected_impact` = the
//! highest impact among the addressed problems, or the highest risk level of the addressed
//! omissions when it addresses no problem, else `medium`; `effort: medium`); `metrics` →
//! `stats` (`tool_use_count` → `tool_uses`, `code_changes_count` → `code_changes`, the
//! transcript's line count → `message_count`, `collection_reason: hurikaeri`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::{self, Issue};
use super::report::{self, Level, ProblemCategory, Report, TargetType};

/// `issues[].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IssueType {
    /// The prompt was unclear.
    PromptUnclear,
    /// A skill lacks something.
    SkillIncomplete,
    /// A skill is wrong.
    SkillIncorrect,
    /// A hook is missing.
    HookMissing,
    /// A hook is wrong.
    HookIncorrect,
    /// An example is missing.
    ExampleMissing,
    /// A pattern is missing.
    PatternMissing,
    /// Context was lost.
    ContextLost,
    /// The requirement was misunderstood.
    Misunderstanding,
    /// Anything else.
    Other,
}

/// Maps a KPT problem category to a feedback issue type (kpt.md §9.3).
pub fn issue_type(c: ProblemCategory) -> IssueType {
    match c {
        ProblemCategory::Error => IssueType::SkillIncorrect,
        ProblemCategory::Oversight => IssueType::ExampleMissing,
        ProblemCategory::Misunderstanding => IssueType::PromptUnclear,
        ProblemCategory::Inefficiency => IssueType::PatternMissing,
        ProblemCategory::WrongApproach => IssueType::SkillIncomplete,
    }
}

/// `target.type` and `proposed_actions[].scope`'s kinds of instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// CLAUDE.md.
    ClaudeMd,
    /// A skill.
    Skill,
    /// A hook.
    Hook,
    /// A slash command.
    Command,
    /// An agent.
    Agent,
    /// Anything else.
    Other,
}

/// `proposed_actions[].scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionScope {
    /// A skill.
    Skill,
    /// CLAUDE.md.
    ClaudeMd,
    /// A hook.
    Hook,
    /// A slash command.
    Command,
    /// Anything else.
    Other,
}

/// `critical | high | medium | low`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Critical.
    Critical,
    /// High.
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

impl From<Level> for Severity {
    fn from(l: Level) -> Self {
        match l {
            Level::High => Severity::High,
            Level::Medium => Severity::Medium,
            Level::Low => Severity::Low,
        }
    }
}

/// `outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FbOutcome {
    /// Whether the task succeeded.
    pub success: bool,
    /// Score 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub score: Option<f64>,
    /// Why.
    pub rationale: String,
}

/// `issues[].target`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Kind of instruction.
    #[serde(rename = "type")]
    pub kind: TargetKind,
    /// Its file (may be empty when unknown).
    pub path: String,
    /// Section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Symbol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// One issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FbIssue {
    /// Id, unique in the feedback.
    #[schemars(length(min = 1))]
    pub issue_id: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: IssueType,
    /// Description.
    pub description: String,
    /// Which instruction it concerns.
    pub target: Target,
    /// Severity.
    pub severity: Severity,
    /// Confidence 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Option<f64>,
    /// Impact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// Frequency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<String>,
    /// Evidence reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_ref: Option<String>,
}

/// `context.runtime`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// Model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Tools version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_version: Option<String>,
}

/// `context`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Context {
    /// Skill name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_name: Option<String>,
    /// Skill version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_version: Option<String>,
    /// Prompt hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_hash: Option<String>,
    /// Repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// Runtime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// Locale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}

/// `input_refs[].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefType {
    /// A session transcript.
    Transcript,
    /// A log.
    Log,
    /// A screenshot.
    Screenshot,
    /// Any other artifact.
    Artifact,
}

/// `input_refs[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputRef {
    /// Kind.
    #[serde(rename = "type")]
    pub kind: RefType,
    /// Path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Excerpt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}

/// `output_refs[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputRef {
    /// Kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// Path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `metrics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FbMetrics {
    /// Tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

/// `repro`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Repro {
    /// Steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
    /// Seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// Minimal case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimal_case: Option<String>,
}

/// `source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Source {
    /// A user.
    #[serde(rename = "user")]
    User,
    /// The agent itself.
    #[serde(rename = "self")]
    Myself,
    /// An evaluation.
    #[serde(rename = "eval")]
    Eval,
    /// A production log.
    #[serde(rename = "prod-log")]
    ProdLog,
}

/// `proposed_actions[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposedAction {
    /// Where the change goes.
    pub scope: ActionScope,
    /// The change.
    pub change_summary: String,
    /// Expected impact.
    pub expected_impact: Severity,
    /// Effort.
    pub effort: Level,
}

/// `triage.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriageStatus {
    /// New.
    Open,
    /// Looked at.
    Triaged,
    /// Being fixed.
    InProgress,
    /// Fixed.
    Fixed,
    /// Fix verified.
    Verified,
    /// Will not be fixed.
    WontFix,
}

/// `triage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Triage {
    /// Status.
    pub status: TriageStatus,
    /// Priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// Owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
}

/// `resolution`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    /// Fix reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_ref: Option<String>,
    /// When verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub verified_at: Option<String>,
    /// Regression test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression_test_ref: Option<String>,
}

/// `privacy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Privacy {
    /// Whether secrets were redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redaction_notes: Option<String>,
}

/// `stats.collection_reason` (the Stop-hook collector's values plus `hurikaeri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CollectionReason {
    /// Collected for code changes.
    CodeChanges,
    /// Collected for a substantial session.
    SubstantialSession,
    /// Converted from a KPT report.
    Hurikaeri,
}

/// `stats` (written by collectors; from KPT `metrics`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    /// Transcript lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_count: Option<u64>,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_uses: Option<u64>,
    /// Code changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_changes: Option<u64>,
    /// Why it was collected.
    pub collection_reason: CollectionReason,
}

/// A prompt-improver feedback record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "prompt-improver feedback")]
pub struct Feedback {
    /// `fb-YYYYMMDD-NNN`, equal to the file name.
    #[schemars(regex(pattern = r"^fb-[0-9]{8}-[0-9]{3}$"))]
    pub id: String,
    /// When written.
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub occurred_at: Option<String>,
    /// When last updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub updated_at: Option<String>,
    /// One or two sentences.
    #[schemars(length(min = 1))]
    pub task_summary: String,
    /// Session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Outcome.
    pub outcome: FbOutcome,
    /// Issues (may be empty).
    pub issues: Vec<FbIssue>,
    /// Context (recommended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// Inputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_refs: Vec<InputRef>,
    /// Outputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_refs: Vec<OutputRef>,
    /// Metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<FbMetrics>,
    /// Reproduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro: Option<Repro>,
    /// Source (recommended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The user's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_feedback: Option<String>,
    /// One sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_improvement: Option<String>,
    /// Proposed actions (recommended).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposed_actions: Vec<ProposedAction>,
    /// Triage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triage: Option<Triage>,
    /// Resolution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// Privacy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy: Option<Privacy>,
    /// Transcript path (collector field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// Statistics (collector field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
}

impl Feedback {
    /// Returns the JSON Schema of a feedback record.
    pub fn schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Feedback)).unwrap_or(Value::Null)
    }
}

/// Validates feedback text: schema, id against the file name, unique issue ids.
pub fn validate(text: &str, file_stem: Option<&str>) -> Result<Feedback, Vec<Issue>> {
    let tree = check::parse(text).map_err(|e| vec![e])?;
    let mut issues = check::check(&Feedback::schema(), &tree);
    report::check_dated_id(&tree, "fb-", file_stem, &mut issues);
    let mut seen: Vec<&str> = Vec::new();
    if let Some(list) = tree.get("issues") {
        for (i, item) in list.items().iter().enumerate() {
            if let Some(n) = item.get("issue_id")
                && let Some(id) = n.as_str()
            {
                if seen.contains(&id) {
                    issues.push(Issue::new(
                        n.line,
                        format!("issues[{i}].issue_id"),
                        format!("duplicate issue id `{id}`"),
                    ));
                }
                seen.push(id);
            }
        }
    }
    issues.sort();
    if !issues.is_empty() {
        return Err(issues);
    }
    serde_saphyr::from_str::<Feedback>(text).map_err(|e| {
        vec![Issue::new(
            e.location().map(|l| l.line()).unwrap_or(0),
            "",
            e.to_string()
                .lines()
                .next()
                .unwrap_or("invalid feedback")
                .to_owned(),
        )]
    })
}

fn target_kind(t: TargetType) -> TargetKind {
    match t {
        TargetType::ClaudeMd => TargetKind::ClaudeMd,
        TargetType::Skill => TargetKind::Skill,
        TargetType::Hook => TargetKind::Hook,
        TargetType::Memory => TargetKind::Other,
    }
}

fn action_scope(t: Option<TargetType>) -> ActionScope {
    match t {
        Some(TargetType::ClaudeMd) => ActionScope::ClaudeMd,
        Some(TargetType::Skill) => ActionScope::Skill,
        Some(TargetType::Hook) => ActionScope::Hook,
        Some(TargetType::Memory) | None => ActionScope::Other,
    }
}

/// Extra facts for the conversion that the report does not hold.
#[derive(Debug, Clone, Default)]
pub struct ConvertContext {
    /// The session transcript, when known.
    pub transcript_path: Option<String>,
    /// The transcript's line count (`stats.message_count`).
    pub message_count: Option<u64>,
}

/// Converts a report into feedback with the given id and time (kpt.md §9.3).
pub fn from_report(r: &Report, id: &str, created_at: &str, ctx: &ConvertContext) -> Feedback {
    let (success, score) = match r.outcome {
        report::Outcome::Success => (true, 1.0),
        report::Outcome::Partial => (false, 0.5),
        report::Outcome::Failure => (false, 0.2),
    };
    let issues = r
        .problem
        .iter()
        .map(|p| {
            let target = r
                .tries
                .iter()
                .find(|t| t.addresses.contains(&p.id))
                .and_then(|t| t.persistence_target.as_ref())
                .map(|pt| Target {
                    kind: target_kind(pt.kind),
                    path: pt.path.clone(),
                    section: pt.section.clone(),
                    line: None,
                    symbol: None,
                })
                .unwrap_or(Target {
                    kind: TargetKind::Other,
                    path: String::new(),
                    section: None,
                    line: None,
                    symbol: None,
                });
            FbIssue {
                issue_id: p.id.clone(),
                kind: issue_type(p.category),
                description: p.description.clone(),
                target,
                severity: p.impact.into(),
                confidence: None,
                impact: p.root_cause.clone(),
                frequency: None,
                evidence_ref: Some(p.evidence.clone()),
            }
        })
        .collect();
    let proposed_actions = r
        .tries
        .iter()
        .map(|t| {
            let from_problems = t
                .addresses
                .iter()
                .filter_map(|a| r.problem.iter().find(|p| p.id == *a))
                .map(|p| p.impact)
                .max();
            let from_omissions = t
                .addresses
                .iter()
                .filter_map(|a| r.omission.iter().find(|o| o.id == *a))
                .map(|o| o.risk_level)
                .max();
            let level = from_problems.or(from_omissions).unwrap_or(Level::Medium);
            ProposedAction {
                scope: action_scope(t.persistence_target.as_ref().map(|p| p.kind)),
                change_summary: t.description.clone(),
                expected_impact: level.into(),
                effort: Level::Medium,
            }
        })
        .collect();
    let stats = r.metrics.as_ref().map(|m| Stats {
        message_count: ctx.message_count,
        tool_uses: m.tool_use_count,
        code_changes: m.code_changes_count,
        collection_reason: CollectionReason::Hurikaeri,
    });
    Feedback {
        id: id.to_owned(),
        created_at: created_at.to_owned(),
        occurred_at: None,
        updated_at: None,
        task_summary: r.session_summary.clone(),
        session_id: r.session_id.clone(),
        outcome: FbOutcome {
            success,
            score: Some(score),
            rationale: r.session_summary.clone(),
        },
        issues,
        context: None,
        input_refs: ctx
            .transcript_path
            .iter()
            .map(|p| InputRef {
                kind: RefType::Transcript,
                path: Some(p.clone()),
                excerpt: None,
            })
            .collect(),
        output_refs: Vec::new(),
        metrics: None,
        repro: None,
        source: Some(Source::Myself),
        user_feedback: None,
        suggested_improvement: None,
        proposed_actions,
        triage: Some(Triage {
            status: TriageStatus::Open,
            priority: None,
            owner: None,
            labels: vec!["hurikaeri".into(), r.id.clone()],
        }),
        resolution: None,
        privacy: None,
        transcript_path: ctx.transcript_path.clone(),
        stats,
    }
}
