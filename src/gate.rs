//! PreToolUse: the trust gate. Classifies the call, reads trust (never writes it), applies
//! phase, rules and standing 3-strike escalations, decides, records the pre audit record and
//! answers.

use std::path::PathBuf;

use serde_json::Value;

use crate::audit::{self, record};
use crate::classify::{self, Classification, Domain, Kind, Part, Risk};
use crate::clock::Timestamp;
use crate::config::Config;
use crate::decide::{self, Decision, Inputs, Verdict};
use crate::phase::Phase;
use crate::project::{Env, Project};
use crate::protocol::{Answer, Effects, HookInput, PermissionDecision};
use crate::rules::{RuleKind, RuleMatch, Subject};
use crate::state::trust::TrustStore;
use crate::strike;
use crate::trust::{self, Level};

/// Everything the gate computed for one call (also what `oath explain` prints).
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The classification.
    pub class: Classification,
    /// The level of the domain's trust the decision used (the call's risk; high for a
    /// critical call).
    pub level: Level,
    /// The verdict.
    pub verdict: Verdict,
    /// The phase in force.
    pub phase: Option<Phase>,
}

/// Where administrators' managed settings live (they can register hooks no one overrides).
const MANAGED_SETTINGS: [&str; 3] = [
    "/etc/claude-code",
    "/Library/Application Support/ClaudeCode",
    "C:\\Program Files\\ClaudeCode",
];

/// Where Codex CLI and Gemini CLI read hooks and keep their trust in them (`oath install
/// --agent codex|gemini`): an agent that rewrites one of these switches oath off for that
/// client, or trusts a hook of its own.
///
/// Codex: `hooks.json` and `config.toml` (hooks in `[hooks]`, their trust in
/// `[hooks.state]`) of `$CODEX_HOME` or `~/.codex`, and its plugins (which carry hooks); the
/// project's whole `.codex/` (a project layer can hold both files); `/etc/codex` (system
/// layer). Gemini: `settings.json` (its `hooks` object) and extensions (which carry hooks)
/// at user and project scope, `trusted_hooks.json` (the fingerprints of project hooks),
/// `trustedFolders.json` (with folder trust on, an untrusted folder's settings, its hooks
/// included, are not loaded; `$GEMINI_CLI_TRUSTED_FOLDERS_PATH` when set, too) and the system
/// settings in `/etc/gemini-cli`. The user folder is `$GEMINI_CLI_HOME/.gemini` when set.
fn other_clients(env: &Env, project: &Project) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(codex) = env.codex_dir() {
        out.extend(
            ["hooks.json", "config.toml", "plugins"]
                .iter()
                .map(|p| codex.join(p)),
        );
    }
    out.push(project.root.join(".codex"));
    out.push(PathBuf::from("/etc/codex"));
    if let Some(gemini) = env.gemini_dir() {
        out.extend(
            [
                "settings.json",
                "trusted_hooks.json",
                "trustedFolders.json",
                "extensions",
            ]
            .iter()
            .map(|p| gemini.join(p)),
        );
    }
    out.extend(env.gemini_trusted_folders.clone());
    let project_gemini = project.root.join(".gemini");
    out.extend(
        ["settings.json", "extensions"]
            .iter()
            .map(|p| project_gemini.join(p)),
    );
    out.push(PathBuf::from("/etc/gemini-cli"));
    out
}

/// Returns the classification context for a project: the one PreToolUse, PostToolUse and
/// `oath explain` classify with, so a call's outcome credits the domain and level its
/// decision used. It holds the paths the agent must not modify, the project's git worktree,
/// the file system's links, and the user's packs looked up before the built-in ones (warnings
/// from loading them go to `warnings`).
pub fn classify_context(
    env: &Env,
    project: &Project,
    cwd: Option<&std::path::Path>,
    session: Option<&str>,
    warnings: &mut Vec<String>,
) -> classify::Context {
    let mut protected: Vec<PathBuf> = vec![env.state_root(), project.config_file()];
    if let Some(p) = env.user_config_path() {
        protected.push(p);
    }
    if let Some(p) = env.user_packs_dir() {
        protected.push(p);
    }
    // Everything Claude Code reads hooks or permission rules from: settings at every scope,
    // plugins, and the agents, skills and commands whose front matter can carry hooks.
    // Not what it writes as ordinary work (plans, todos, transcripts, CLAUDE.md).
    const HOOK_SOURCES: [&str; 6] = [
        "settings.json",
        "settings.local.json",
        "plugins",
        "agents",
        "skills",
        "commands",
    ];
    if let Some(claude) = env.claude_dir() {
        protected.extend(HOOK_SOURCES.iter().map(|p| claude.join(p)));
    }
    if let Some(home) = &env.home {
        protected.push(home.join(".claude.json"));
    }
    let project_claude = project.root.join(".claude");
    protected.extend(HOOK_SOURCES.iter().map(|p| project_claude.join(p)));
    protected.extend(MANAGED_SETTINGS.iter().map(PathBuf::from));
    protected.extend(other_clients(env, project));
    protected.push(project.phase_file());
    protected.push(strike::errors_path(project));
    protected.push(strike::index_path(project));
    if let Ok(exe) = std::env::current_exe() {
        protected.push(exe);
    }
    let ctx = classify::Context::new(
        &project.root,
        cwd.unwrap_or(&project.root),
        env.home.as_deref(),
        protected,
    )
    .with_worktree(std::sync::Arc::new(crate::worktree::GitWorktree::new(
        &project.root,
    )))
    .with_links(std::sync::Arc::new(crate::links::FsLinks))
    .with_files(std::sync::Arc::new(crate::script_files::FsFiles))
    // The agent's shell inherits the hook's environment: a `CDPATH` there sends `cd NAME`
    // to any of its folders.
    .with_cd_path(crate::env::var(crate::env::CDPATH).is_some());
    let ctx = match env.user_packs_dir() {
        Some(dir) => {
            let user = classify::pack::user::load_dir(&dir);
            warnings.extend(user.warnings);
            ctx.with_user_packs(user.packs)
        }
        None => ctx,
    };
    // Copies of credentials this session made earlier hold credentials too (one `stat`
    // when it made none).
    match session.map(|sid| crate::state::tainted::read(&project.tainted_file(sid))) {
        Some(tainted) if !tainted.is_empty() => ctx.with_tainted(tainted),
        _ => ctx,
    }
}

/// A tool call as the gate sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// Tool name.
    pub tool_name: &'a str,
    /// Tool input object.
    pub tool_input: &'a Value,
    /// Working directory of the call.
    pub cwd: Option<&'a std::path::Path>,
    /// Each part's effect and pack rule are wanted (`oath explain`).
    pub details: bool,
    /// The session of the call (strikes count per session), when known.
    pub session: Option<&'a str>,
    /// What the call does when it is not one Claude Code call (a patch's files).
    pub effects: &'a Effects,
}

/// Classifies a call: itself, or each of its effects with the riskiest part deciding (as the
/// commands of one shell line do), or, when its input could not be read into effects, as
/// not understood (asked at any trust, never allowed by trust).
pub fn classify_call(
    tool_name: &str,
    tool_input: &Value,
    effects: &Effects,
    ctx: &classify::Context,
) -> Classification {
    match effects {
        Effects::Itself => classify::classify(tool_name, tool_input, ctx),
        Effects::Several(list) => {
            let mut parts = Vec::new();
            let mut commands = Vec::new();
            let mut tainted = Vec::new();
            let mut alternative = None;
            for e in list {
                let c = classify::classify(&e.tool_name, &e.tool_input, ctx);
                parts.extend(c.parts);
                commands.extend(c.commands);
                tainted.extend(c.tainted);
                alternative = alternative.or(c.alternative);
            }
            let mut c = Classification::from_parts(parts, alternative);
            c.commands = commands;
            c.tainted = tainted;
            c
        }
        Effects::Unreadable(why) => Classification::from_parts(
            vec![Part {
                text: tool_name.to_owned(),
                domain: Domain::FileWrite,
                risk: Risk::High,
                kind: Kind::NotUnderstood,
                rule: "unreadable-input".into(),
                reason: why.clone(),
                effect: None,
                source: None,
            }],
            None,
        ),
    }
}

/// Returns the commands and paths a call shows user rules.
fn subject<'a>(
    tool_name: &'a str,
    tool_input: &'a Value,
    class: &'a Classification,
) -> Subject<'a> {
    let commands: Vec<&str> = class
        .parts
        .iter()
        .map(|p| p.text.as_str())
        .chain(class.commands.iter().map(String::as_str))
        .chain(tool_input.get("command").and_then(Value::as_str))
        .collect();
    let paths: Vec<&str> = ["file_path", "notebook_path", "path"]
        .iter()
        .filter_map(|k| tool_input.get(*k).and_then(Value::as_str))
        .collect();
    Subject {
        tool: tool_name,
        commands,
        paths,
    }
}

/// Returns the user rule that holds for a call of several effects: a deny or ask matching
/// the call or any effect; an allow only when it matches the call itself or every effect.
fn rule_for_effects(whole: Option<RuleMatch>, each: Vec<Option<RuleMatch>>) -> Option<RuleMatch> {
    let all = std::iter::once(&whole).chain(each.iter()).flatten();
    for kind in [RuleKind::Deny, RuleKind::Ask] {
        if let Some(m) = all.clone().find(|m| m.kind == kind) {
            return Some(m.clone());
        }
    }
    if whole.as_ref().is_some_and(|m| m.kind == RuleKind::Allow) {
        return whole;
    }
    if !each.is_empty()
        && each
            .iter()
            .all(|m| m.as_ref().is_some_and(|m| m.kind == RuleKind::Allow))
    {
        return each.into_iter().next().flatten();
    }
    None
}

/// Evaluates a call without side effects (reads trust, phase and strikes; writes nothing).
pub fn evaluate(
    env: &Env,
    project: &Project,
    config: &Config,
    call: Call<'_>,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Evaluation {
    let Call {
        tool_name,
        tool_input,
        cwd,
        details,
        session,
        effects,
    } = call;
    let mut ctx = classify_context(env, project, cwd, session, warnings);
    if details {
        ctx = ctx.with_details();
    }
    if !config.rules.is_empty() {
        ctx = ctx.with_expanded_commands();
    }
    let class = classify_call(tool_name, tool_input, effects, &ctx);
    // One domain's file is read (and the single file of earlier versions, until migrated);
    // the call is decided by the trust of its own risk level.
    let level = Level::of(class.risk);
    let held = TrustStore::of(project).read_domain(class.domain.as_str(), warnings);
    let trust = trust::score_of(held.as_ref().and_then(|l| l.get(level)), now, &config.trust);
    let phase = Phase::read(&project.phase_file());
    let rule = if config.rules.is_empty() {
        None
    } else {
        match effects {
            Effects::Several(list) => {
                // The call itself shows its tool and text only: its files answer for
                // themselves.
                let whole = config.rules.matching(&Subject {
                    tool: tool_name,
                    commands: tool_input
                        .get("command")
                        .and_then(Value::as_str)
                        .into_iter()
                        .collect(),
                    paths: Vec::new(),
                });
                let each = list
                    .iter()
                    .map(|e| {
                        let c = classify::classify(&e.tool_name, &e.tool_input, &ctx);
                        config
                            .rules
                            .matching(&subject(&e.tool_name, &e.tool_input, &c))
                    })
                    .collect();
                rule_for_effects(whole, each)
            }
            Effects::Itself | Effects::Unreadable(_) => config
                .rules
                .matching(&subject(tool_name, tool_input, &class)),
        }
    };
    let strike = if config.strikes.enabled {
        strike::escalation_for(
            project,
            tool_name,
            tool_input,
            session,
            now,
            &config.strikes,
        )
    } else {
        None
    };
    let verdict = decide::decide(&Inputs {
        class: &class,
        trust,
        phase,
        rule,
        strike,
        weights: &config.risk,
        thresholds: &config.autonomy,
    });
    Evaluation {
        class,
        level,
        verdict,
        phase,
    }
}

/// Handles PreToolUse.
pub fn pre_tool_use(
    env: &Env,
    project: &Project,
    config: &Config,
    input: &HookInput,
    now: Timestamp,
) -> Answer {
    let mut warnings = Vec::new();
    let tool_name = input.tool_name.as_deref().unwrap_or("");
    let tool_input = input.tool_input();
    let call = Call {
        tool_name,
        tool_input,
        cwd: input.cwd.as_deref(),
        details: false,
        session: input.session_id.as_deref(),
        effects: &input.effects,
    };
    let eval = evaluate(env, project, config, call, now, &mut warnings);
    let Evaluation {
        class,
        verdict,
        phase,
        ..
    } = &eval;
    let routed = (config.model_routing.enabled
        && matches!(tool_name, "Agent" | "Task")
        && matches!(verdict.decision, Decision::Allow | Decision::Ask))
    .then(|| decide::routed_input(tool_input, verdict.recommended_model));

    let effects = match &input.effects {
        Effects::Several(list) => Some(
            list.iter()
                .map(|e| record::Effect {
                    tool_name: e.tool_name.clone(),
                    tool_input: audit::loggable(&e.tool_input),
                })
                .collect(),
        ),
        _ => None,
    };
    let pre = record::Pre {
        session_id: input.session_id.clone(),
        tool_use_id: input.tool_use_id.clone(),
        call_key: audit::call_key(input.tool_use_id.as_deref(), tool_name, tool_input),
        prompt_id: input.prompt_id.clone(),
        tool_name: tool_name.to_owned(),
        tool_input: audit::loggable(tool_input),
        domain: class.domain,
        risk_category: class.risk,
        risk_kind: class.kind,
        risk_value: class.risk.value(),
        complexity: class.complexity,
        rule: class.rule.clone(),
        trust_score_before: verdict.trust,
        autonomy_score: verdict.autonomy,
        decision: verdict.decision,
        reason: verdict.reason.clone(),
        outcome: record::Pending::Pending,
        trust_score_after: (),
        recommended_model: verdict.recommended_model,
        phase: *phase,
        agent: input.agent,
        // A client that cannot ask receives an ask as a deny (`Answer::for_agent`).
        answered: (verdict.decision.permission() == Some(PermissionDecision::Ask)
            && !input.agent.can_ask())
        .then_some(Decision::Deny),
        effects,
        model_routed: routed.is_some().then_some(true),
        agent_id: input.agent_id.clone(),
    };
    // The copies of credentials this call makes stay credentials for the rest of the
    // session, whatever the decision (a person may approve the copy).
    if !class.tainted.is_empty()
        && let Some(sid) = input.session_id.as_deref()
    {
        record_tainted(project, sid, &class.tainted, now, &mut warnings);
    }
    if let Err(e) = audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &record::Record::Pre(pre),
    ) {
        warnings.push(format!("audit not written: {e}"));
    }

    let mut answer = match verdict.decision.permission() {
        Some(p) => Answer::decision(p, verdict.reason.clone()),
        None => Answer::silent(&input.event),
    };
    if let Some(routed) = routed {
        answer = answer.with_updated_input(routed);
    }
    for w in warnings {
        answer = answer.with_stderr(w);
    }
    answer
}

/// Records the copies of credentials a call makes in its session's file, each also where a
/// link in its path really leads.
fn record_tainted(
    project: &Project,
    session: &str,
    tainted: &[classify::Taint],
    now: Timestamp,
    warnings: &mut Vec<String>,
) {
    let mut list = Vec::with_capacity(tainted.len());
    for t in tainted {
        let by = format!("{} earlier in this session", t.by);
        let real = crate::links::real_path(&t.path).filter(|r| *r != t.path);
        for path in std::iter::once(t.path.clone()).chain(real) {
            list.push(classify::Taint {
                path,
                from: t.from.clone(),
                by: by.clone(),
            });
        }
    }
    if let Err(e) =
        crate::state::tainted::record(&project.tainted_file(session), &list, now, warnings)
    {
        warnings.push(format!("copies of credentials not recorded: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Effect;
    use serde_json::json;
    use std::path::Path;

    fn m(kind: RuleKind) -> Option<RuleMatch> {
        Some(RuleMatch {
            kind,
            id: format!("{kind:?}"),
            reason: None,
        })
    }

    #[test]
    fn user_rules_hold_against_each_effect() {
        use RuleKind::{Allow, Ask, Deny};
        let kind = |whole, each| rule_for_effects(whole, each).map(|r: RuleMatch| r.kind);
        assert_eq!(kind(None, vec![m(Allow), None]), None);
        assert_eq!(kind(None, vec![m(Allow), m(Allow)]), Some(Allow));
        assert_eq!(kind(m(Allow), vec![m(Ask), None]), Some(Ask));
        assert_eq!(kind(m(Allow), vec![None]), Some(Allow));
        assert_eq!(kind(None, vec![m(Allow), m(Deny)]), Some(Deny));
        assert_eq!(kind(m(Ask), vec![m(Allow)]), Some(Ask));
        assert_eq!(kind(None, vec![]), None);
    }

    #[test]
    fn the_riskiest_effect_decides_and_an_unreadable_call_is_not_understood() {
        let root = Path::new("/p");
        let ctx = classify::Context::new(
            root,
            root,
            Some(Path::new("/h")),
            [PathBuf::from("/p/.oath.yaml")],
        );
        let effects = Effects::Several(vec![
            Effect {
                tool_name: "Write".into(),
                tool_input: json!({"file_path": "a.txt", "content": "x"}),
            },
            Effect {
                tool_name: "Edit".into(),
                tool_input: json!({"file_path": ".oath.yaml", "old_string": "a", "new_string": "b"}),
            },
        ]);
        let c = classify_call("apply_patch", &json!({}), &effects, &ctx);
        assert_eq!(c.parts.len(), 2);
        let alone = classify::classify("Edit", &json!({"file_path": "/p/.oath.yaml"}), &ctx);
        assert_eq!(
            (c.risk, c.kind, &c.rule),
            (alone.risk, alone.kind, &alone.rule)
        );
        assert!(c.risk >= Risk::High, "{c:?}");
        let plain = classify::classify("Write", &json!({"file_path": "/p/a.txt"}), &ctx);
        assert!(plain.risk < c.risk);
        let u = classify_call(
            "apply_patch",
            &json!({}),
            &Effects::Unreadable("x".into()),
            &ctx,
        );
        assert_eq!((u.kind, u.risk), (Kind::NotUnderstood, Risk::High));
    }
}
