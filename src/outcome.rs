//! PostToolUse and PostToolUseFailure: trust updates, outcome records, strikes and
//! commands after tools.
//!
//! Duties are split as ADR-0007 decides: PostToolUse updates trust on success and, when its
//! payload reports an error, only records the failure outcome; PostToolUseFailure alone
//! decays trust. Each outcome is also keyed by `tool_use_id`, so a call whose outcome was
//! already applied (a double fire) changes nothing, and the audit record names the hook that
//! wrote it so double fires can be seen.
//!
//! Only understood work earns ([`Classification::earns_trust`]): an outcome of a call with a
//! part oath understands only partly or not at all, or of a program no pack describes
//! (domain `unknown`), changes no trust, success or failure, and its outcome record says why
//! (`trust_skipped`). An outcome that counts is applied at the call's own risk level (ADR
//! 0025), classified with the context PreToolUse decided with ([`gate::classify_context`]).
//!
//! A client that does not report a tool's outcome ([`HookInput::outcome_known`] false: Codex
//! CLI's PostToolUse has neither an exit code nor a failure event) leaves it `unknown`: the
//! audit records it, trust is not changed and no strike is counted or cleared. An unknown
//! outcome is never counted as a success.

use serde_json::{Value, json};

use crate::audit::{
    self,
    record::{self, Ending, Record},
};
use crate::classify::{Classification, Domain};
use crate::clock::Timestamp;
use crate::config::Config;
use crate::gate;
use crate::kpt;
use crate::observers;
use crate::project::{Env, Project};
use crate::protocol::{Answer, EventName, HookInput};
use crate::state::trust::TrustStore;
use crate::strike;
use crate::trust::{self, DomainFile, Level, Outcome};

/// Returns whether a PostToolUse payload reports an error (older clients, MCP `isError`).
fn reports_error(input: &HookInput) -> bool {
    if input.bool_field("is_error") == Some(true) {
        return true;
    }
    match input.tool_response() {
        Some(Value::Object(m)) => {
            m.get("isError").and_then(Value::as_bool) == Some(true)
                || m.get("is_error").and_then(Value::as_bool) == Some(true)
        }
        _ => false,
    }
}

/// Handles PostToolUse and PostToolUseFailure.
pub fn after_tool(
    env: &Env,
    project: &Project,
    config: &Config,
    input: &HookInput,
    now: Timestamp,
) -> Answer {
    let mut warnings = Vec::new();
    let failure_hook = input.event == EventName::PostToolUseFailure;
    let interrupted = input.bool_field("is_interrupt") == Some(true);
    // Cancelled because a sibling call of its parallel batch failed: not this call's error.
    let cascade = failure_hook
        && input
            .error_text()
            .is_some_and(crate::strike::normalize::is_cascade);
    let outcome = if failure_hook || reports_error(input) {
        Outcome::Failure
    } else {
        Outcome::Success
    };
    let tool_name = input.tool_name.as_deref().unwrap_or("");
    // Classified as PreToolUse classified it (the user's packs included), so the outcome
    // counts for the domain and level the decision used.
    let ctx = gate::classify_context(
        env,
        project,
        input.cwd.as_deref(),
        input.session_id.as_deref(),
        &mut warnings,
    );
    let class = gate::classify_call(tool_name, input.tool_input(), &input.effects, &ctx);
    let domain = class.domain.as_str();
    let level = Level::of(class.risk);
    let skipped = trust_skipped(&class);
    if !input.outcome_known && !failure_hook {
        return unknown_outcome(project, input, tool_name, domain, now);
    }

    // 3-strike first: its count goes in the outcome record, which is then written right
    // after the trust update (a hook killed between them leaves the least apart).
    let notice = if !config.strikes.enabled {
        None
    } else if failure_hook && !interrupted {
        strike::on_failure(project, input, now, &config.strikes, &mut warnings)
    } else {
        if outcome == Outcome::Success {
            strike::on_success(project, input, now, &config.strikes, &mut warnings);
        }
        None
    };

    // Trust: successes from PostToolUse, failures from PostToolUseFailure only; user
    // interrupts are not failures of the agent. A call oath does not understand (or of a
    // program no pack describes) is not counted at all: its success earns nothing, and its
    // failure lowers nothing either, since what oath cannot read shows nothing about the
    // work it decides (its 3-strike count above still holds).
    let apply = skipped.is_none()
        && match outcome {
            Outcome::Success => !failure_hook,
            Outcome::Failure => failure_hook && !interrupted && !cascade,
        };
    let update = if apply {
        let params = &config.trust;
        // A success lost to a power loss only leaves trust lower: not worth an fsync on
        // every PostToolUse. A failure must not be lost.
        let durability = match outcome {
            Outcome::Success => crate::state::Durability::Unsynced,
            Outcome::Failure => crate::state::Durability::Synced,
        };
        match TrustStore::of(project).update_domain(
            domain,
            now,
            &mut warnings,
            durability,
            |file: &mut DomainFile| {
                let u = trust::apply_to_domain(
                    file,
                    level,
                    outcome,
                    input.tool_use_id.as_deref(),
                    now,
                    params,
                );
                (!u.duplicate, u)
            },
        ) {
            Ok(u) => Some(u),
            Err(e) => {
                warnings.push(format!("trust not updated: {e}"));
                None
            }
        }
    } else {
        None
    };

    let mut r = outcome_record(input, tool_name, Some(domain), outcome.into());
    r.trust_score_before = update.map(|u| u.before);
    r.trust_score_after = update.map(|u| u.after);
    r.trust_applied = update.is_some_and(|u| !u.duplicate);
    r.trust_level = update.is_some().then_some(level);
    r.trust_skipped = skipped.map(str::to_owned);
    r.duplicate = update.is_some_and(|u| u.duplicate).then_some(true);
    r.cascade = cascade.then_some(true);
    r.interrupted = interrupted.then_some(true);
    r.error = input.error_text().map(|err| audit::loggable(&json!(err)));

    r.strike = notice.as_ref().map(|n| n.strike);
    r.error_hash = notice.as_ref().map(|n| n.hash.clone());
    if let Err(e) = audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &Record::Outcome(r),
    ) {
        warnings.push(format!("audit not written: {e}"));
    }

    let mut answer = Answer::silent(&input.event);
    if let Some(notice) = notice {
        if let Some(c) = notice.context {
            answer = answer.with_context(c);
        }
        if let Some(m) = notice.system_message {
            answer = answer.with_system_message(m);
        }
    }
    observers::run_after_tool(
        project,
        input,
        outcome,
        now,
        &config.post_tool_use,
        &mut warnings,
    );
    for w in warnings {
        answer = answer.with_stderr(w);
    }
    answer
}

/// Returns why an outcome of this call changes no trust (`None`: it counts): a program no
/// pack describes, or a part oath understands only partly or not at all.
fn trust_skipped(class: &Classification) -> Option<&'static str> {
    if class.earns_trust() {
        None
    } else if class.domain == Domain::Unknown {
        Some("no pack describes the program")
    } else {
        Some("not understood")
    }
}

/// Returns the outcome record of `input`'s call, trust untouched and nothing refused until
/// the caller says otherwise.
pub fn outcome_record(
    input: &HookInput,
    tool_name: &str,
    domain: Option<&str>,
    outcome: Ending,
) -> record::Outcome {
    record::Outcome {
        session_id: input.session_id.clone(),
        tool_use_id: input.tool_use_id.clone(),
        call_key: crate::audit::call_key(
            input.tool_use_id.as_deref(),
            tool_name,
            input.tool_input(),
        ),
        prompt_id: input.prompt_id.clone(),
        tool_name: Some(tool_name.to_owned()),
        domain: domain.map(str::to_owned),
        outcome,
        refused_by: None,
        trust_score_before: None,
        trust_score_after: None,
        trust_applied: false,
        trust_level: None,
        trust_skipped: None,
        duplicate: None,
        duration_ms: input.duration_ms(),
        hook: input.event.as_str().to_owned(),
        agent: input.agent,
        cascade: None,
        interrupted: None,
        error: None,
        strike: None,
        error_hash: None,
        reason: None,
        agent_id: input.agent_id.clone(),
    }
}

/// Records a tool's outcome the client did not report: `unknown`, trust and strikes left
/// alone.
fn unknown_outcome(
    project: &Project,
    input: &HookInput,
    tool_name: &str,
    domain: &str,
    now: Timestamp,
) -> Answer {
    let r = outcome_record(input, tool_name, Some(domain), Ending::Unknown);
    match audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &Record::Outcome(r),
    ) {
        Ok(()) => Answer::silent(&input.event),
        Err(e) => Answer::silent(&input.event).with_stderr(format!("audit not written: {e}")),
    }
}

/// Handles SessionStart: reminds the model of the branch's unresolved errors.
pub fn session_start(
    project: &Project,
    config: &Config,
    input: &HookInput,
    now: Timestamp,
) -> Answer {
    let mut answer = Answer::silent(&input.event);
    let r = record::SessionStart {
        session_id: input.session_id.clone(),
        source: input.str_field("source").map(str::to_owned),
        agent: input.agent,
    };
    if let Err(e) = audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &Record::SessionStart(r),
    ) {
        answer = answer.with_stderr(format!("audit not written: {e}"));
    }
    if config.strikes.enabled
        && let Some(summary) = strike::session_start_summary(project, &config.strikes)
    {
        answer = answer.with_context(summary);
    }
    answer
}

/// Handles Stop and SessionEnd: records the session's metrics for retrospectives.
pub fn session_checkpoint(
    project: &Project,
    config: &Config,
    input: &HookInput,
    now: Timestamp,
) -> Answer {
    let mut warnings = Vec::new();
    kpt::record_session(project, input, now, &config.kpt, &mut warnings);
    let mut answer = Answer::silent(&input.event);
    for w in warnings {
        answer = answer.with_stderr(w);
    }
    answer
}
