//! `oath hook`: the hot path. Reads one payload from stdin, maps it from its client's
//! protocol (Claude Code, Codex CLI or Gemini CLI: `--agent`, else recognised from the
//! payload; [`crate::protocol::recognize`]), dispatches on the event, answers in the client's
//! form with one JSON object or nothing, and exits 0.
//!
//! Bad input (empty, not UTF-8, not JSON, over the size cap) gets one line on stderr and a
//! safe outcome without touching state; PreToolUse then answers the configured `on_error`
//! (default ask, which a client that cannot ask receives as a deny) instead of passing
//! silently. A panic anywhere is caught here and answered the same way.

use std::cell::Cell;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Once;

use crate::agent::Agent;
use crate::audit::{
    self,
    record::{self, Record},
};
use crate::clock::Timestamp;
use crate::config::{Config, OnError};
use crate::gate;
use crate::outcome;
use crate::project::{Env, Project};
use crate::protocol::{
    self, Answer, EventName, HookInput, InputError, MAX_PAYLOAD_BYTES, PermissionDecision,
};
use crate::refusal;

/// What a hook invocation depends on besides stdin.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The environment.
    pub env: Env,
    /// Now.
    pub now: Timestamp,
    /// Event named on the command line (`oath hook PreToolUse`).
    pub event_hint: Option<String>,
    /// The client named on the command line (`oath hook --agent codex`); recognised from the
    /// payload when `None`.
    pub agent: Option<Agent>,
    /// Whether a PreToolUse arms the process's last word ([`crate::watchdog`]): only the
    /// hook process itself, never a program that runs hooks in-process (tests, the demo).
    pub last_word: bool,
}

impl Ctx {
    /// Returns a context whose every folder lies in `dir`: state in `state/`, the home in
    /// `home/`, the project in `project/` (tests, fuzzing and benchmarks).
    pub fn in_dir(dir: &std::path::Path, now: Timestamp, event_hint: Option<String>) -> Self {
        Self {
            env: Env {
                oath_home: Some(dir.join("state")),
                home: Some(dir.join("home")),
                claude_project_dir: Some(dir.join("project")),
                ..Env::default()
            },
            now,
            event_hint,
            agent: None,
            last_word: false,
        }
    }

    /// Builds the context from the process.
    pub fn from_process(event_hint: Option<String>, agent: Option<Agent>) -> Self {
        Self {
            env: Env::from_process(),
            now: Timestamp::now(),
            event_hint,
            agent,
            last_word: true,
        }
    }

    /// Returns the command line's event in Claude Code's name.
    fn claude_hint(&self, agent: Agent) -> Option<String> {
        self.event_hint
            .as_deref()
            .map(|h| protocol::claude_event(agent, h).to_owned())
    }
}

/// Runs the hook on the process's stdin and writes the answer; returns the exit code.
pub fn run(event_hint: Option<String>, agent: Option<Agent>) -> ExitCode {
    let ctx = Ctx::from_process(event_hint, agent);
    let answer = match read_payload(io::stdin().lock()) {
        Ok(bytes) => run_guarded(&bytes, &ctx),
        Err(e) => {
            let agent = ctx.agent.unwrap_or_default();
            bad_input(
                ctx.claude_hint(agent).as_deref(),
                &format!("cannot read stdin: {e}"),
                &ctx,
            )
            .for_agent(agent)
        }
    };
    // Exactly one answer: when the last word (the deadline, an abort) is being written,
    // this one is not.
    if !crate::watchdog::claim() {
        loop {
            std::thread::park();
        }
    }
    let code = answer.emit(&mut io::stdout().lock(), &mut io::stderr().lock());
    ExitCode::from(code)
}

/// Reads a payload: everything up to one byte past [`MAX_PAYLOAD_BYTES`], so that a larger
/// one is refused by its size ([`HookInput::parse`]) without being held whole.
fn read_payload(input: impl io::Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

thread_local! {
    /// Whether this thread is inside [`run_guarded`], whose panics are answered, not printed.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once per process) a panic hook that stays quiet on threads inside
/// [`run_guarded`] and defers to the previous hook elsewhere. Swapping the global hook per
/// call instead would race when several threads run hooks (tests, fuzzing) and could leave
/// the quiet hook installed for good.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let prev = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                prev(info);
            }
        }));
    });
}

/// Runs [`run_input`] catching panics (answered like any internal error, in the client's
/// form).
pub fn run_guarded(bytes: &[u8], ctx: &Ctx) -> Answer {
    guarded(
        || run_input(bytes, ctx),
        || {
            let agent = agent_of(bytes, ctx);
            (sniff_event(bytes, agent), agent)
        },
        ctx,
    )
}

/// Returns the client of a payload: the command line's, else recognised from the bytes.
fn agent_of(bytes: &[u8], ctx: &Ctx) -> Agent {
    ctx.agent
        .unwrap_or_else(|| protocol::recognize_bytes(bytes, scan_raw_event_name(bytes).as_deref()))
}

/// Runs `run` catching panics, answered like any internal error for the event `event()`
/// names (or the command line's), in the form of the client it names.
fn guarded(
    run: impl FnOnce() -> Answer,
    event: impl FnOnce() -> (Option<String>, Agent),
    ctx: &Ctx,
) -> Answer {
    install_quiet_panic_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(run));
    GUARDED.with(|g| g.set(outer));
    match result {
        Ok(answer) => answer,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let (event, agent) = event();
            let event = event.or_else(|| ctx.claude_hint(agent));
            internal_error(
                event.as_deref(),
                &format!("internal error: {msg}"),
                OnError::Ask,
            )
            .for_agent(agent)
        }
    }
}

/// Returns `hook_event_name` from a payload that may be otherwise broken, in Claude Code's
/// name.
fn sniff_event(bytes: &[u8], agent: Agent) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let name = v.get("hook_event_name")?.as_str()?;
    Some(protocol::claude_event(agent, name).to_owned())
}

/// Finds `"hook_event_name": "<Name>"` in bytes that are not valid JSON (or not UTF-8) and
/// returns the name when it is a known event of any client, in Claude Code's name.
fn scan_event_name(bytes: &[u8]) -> Option<String> {
    let name = scan_raw_event_name(bytes)?;
    let claude = protocol::claude_event(Agent::Gemini, &name);
    EventName::KNOWN
        .contains(&claude)
        .then(|| claude.to_owned())
}

/// Finds `"hook_event_name": "<Name>"` in bytes that may not be JSON and returns the name as
/// written. Bounded: looks at the first 64 KiB only.
fn scan_raw_event_name(bytes: &[u8]) -> Option<String> {
    const KEY: &[u8] = b"\"hook_event_name\"";
    let head = &bytes[..bytes.len().min(64 * 1024)];
    let at = head.windows(KEY.len()).position(|w| w == KEY)?;
    let mut rest = &head[at + KEY.len()..];
    while let [b' ' | b'\t' | b'\r' | b'\n', tail @ ..] = rest {
        rest = tail;
    }
    rest = rest.strip_prefix(b":")?;
    while let [b' ' | b'\t' | b'\r' | b'\n', tail @ ..] = rest {
        rest = tail;
    }
    rest = rest.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    std::str::from_utf8(&rest[..end]).ok().map(str::to_owned)
}

/// Answers a payload, in the form of its client.
pub fn run_input(bytes: &[u8], ctx: &Ctx) -> Answer {
    match HookInput::parse_object(bytes) {
        Ok(raw) => {
            let agent = ctx.agent.unwrap_or_else(|| protocol::recognize(&raw));
            let input = protocol::adapt(agent, raw, ctx.event_hint.as_deref());
            answer_input(&input, ctx).for_agent(agent)
        }
        Err(e) => refuse(&e, bytes, ctx).for_agent(agent_of(bytes, ctx)),
    }
}

/// Answers a payload that cannot be read.
fn refuse(e: &InputError, bytes: &[u8], ctx: &Ctx) -> Answer {
    let size_note = match e {
        InputError::TooLarge { .. } => " (the cap is documented in README: 32 MiB)",
        _ => "",
    };
    // The payload cannot be parsed, but its event name usually can still be read, so a
    // broken PreToolUse payload still gets the PreToolUse fail mode.
    let event = ctx
        .claude_hint(agent_of(bytes, ctx))
        .or_else(|| scan_event_name(bytes));
    bad_input(event.as_deref(), &format!("{e}{size_note}"), ctx)
}

/// Answers a parsed payload.
fn answer_input(input: &HookInput, ctx: &Ctx) -> Answer {
    let project = Project::resolve(&ctx.env, input.cwd.as_deref());
    // A file that is invalid is ignored (and named), never weakening a decision; the
    // project's own file applies whole only once the user approved it.
    let loaded = Config::in_force(&ctx.env, &project);
    let notice = if input.event == EventName::SessionStart {
        loaded.unapproved_notice()
    } else {
        None
    };
    let config = loaded.config;
    if ctx.last_word && input.event == EventName::PreToolUse {
        // Past its deadline or memory cap, the hook still answers: its fail mode.
        let deadline = crate::watchdog::deadline();
        let last = internal_error(
            Some("PreToolUse"),
            &format!(
                "it ran past its {} ms deadline or its memory cap",
                deadline.as_millis()
            ),
            config.on_error,
        );
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = last.for_agent(input.agent).emit(&mut out, &mut err);
        crate::watchdog::arm(out, err, code, deadline);
    }
    let config_warnings: Vec<String> = loaded
        .warnings
        .into_iter()
        .map(|w| format!("configuration: {w} (`oath config validate` shows more)"))
        .collect();
    let answer = match &input.event {
        EventName::PreToolUse => gate::pre_tool_use(&ctx.env, &project, &config, input, ctx.now),
        EventName::PostToolUse | EventName::PostToolUseFailure => {
            outcome::after_tool(&ctx.env, &project, &config, input, ctx.now)
        }
        EventName::SessionStart => outcome::session_start(&project, &config, input, ctx.now),
        EventName::PermissionDenied => refusal::permission_denied(&project, input, ctx.now),
        EventName::PostToolBatch => record_event(
            refusal::after_batch(&project, input, ctx.now),
            &project,
            input,
            ctx.now,
        ),
        EventName::Stop | EventName::SessionEnd => record_event(
            outcome::session_checkpoint(&project, &config, input, ctx.now),
            &project,
            input,
            ctx.now,
        ),
        EventName::Other(name) => {
            let r = record::UnknownEvent {
                session_id: input.session_id.clone(),
                hook_event_name: name.clone(),
                agent: input.agent,
            };
            let mut a = Answer::silent(&input.event)
                .with_stderr(format!("unknown hook event {name:?}; ignored"));
            if let Err(e) = audit::write(
                &project.audit_file(input.session_or_unknown()),
                ctx.now,
                &Record::UnknownEvent(r),
            ) {
                a = a.with_stderr(format!("audit not written: {e}"));
            }
            a
        }
        EventName::MessageDisplay | EventName::Notification => Answer::silent(&input.event),
        _ => record_event(Answer::silent(&input.event), &project, input, ctx.now),
    };
    let mut answer = answer;
    if !input.type_mismatches.is_empty() {
        answer = answer.with_stderr(format!(
            "payload fields of unexpected type ignored: {}",
            input.type_mismatches.join(", ")
        ));
    }
    for w in config_warnings {
        answer = answer.with_stderr(w);
    }
    // Once a session: at its start, the user is told the project's file is not approved.
    if let Some(n) = notice {
        answer = answer.with_stderr(n.clone()).with_system_message(n);
    }
    answer
}

/// Records that an event reached oath (one `event` audit record) for events whose handler
/// writes no audit record of its own, and returns `answer` (with a warning if the record
/// could not be written).
fn record_event(answer: Answer, project: &Project, input: &HookInput, now: Timestamp) -> Answer {
    let field = |key: &str| input.str_field(key).map(str::to_owned);
    let r = record::Event {
        session_id: input.session_id.clone(),
        hook_event_name: input.event.as_str().to_owned(),
        agent: input.agent,
        source: field("source"),
        reason: field("reason"),
        trigger: field("trigger"),
        agent_type: field("agent_type"),
        agent_id: input.agent_id.clone(),
    };
    match audit::write(
        &project.audit_file(input.session_or_unknown()),
        now,
        &Record::Event(r),
    ) {
        Ok(()) => answer,
        Err(e) => answer.with_stderr(format!("audit not written: {e}")),
    }
}

/// Answers input that could not be read. No state is touched; the fail mode comes from the
/// configuration of the process's project when it can be read.
fn bad_input(event_hint: Option<&str>, message: &str, ctx: &Ctx) -> Answer {
    let on_error = if event_hint == Some("PreToolUse") {
        let project = Project::resolve(&ctx.env, None);
        Config::in_force(&ctx.env, &project).config.on_error
    } else {
        OnError::Ask
    };
    internal_error(event_hint, &format!("bad hook input: {message}"), on_error)
}

/// Answers an internal problem: for PreToolUse the configured fail mode with the reason,
/// for other events silence with a line on stderr.
fn internal_error(event: Option<&str>, message: &str, on_error: OnError) -> Answer {
    let event = event
        .map(EventName::parse)
        .unwrap_or(EventName::Other(String::new()));
    if event == EventName::PreToolUse {
        let reason = format!("oath could not check this call ({message}); `oath doctor` can help.");
        let decision = match on_error {
            OnError::Ask => PermissionDecision::Ask,
            OnError::Deny => PermissionDecision::Deny,
            OnError::Allow => PermissionDecision::Allow,
        };
        Answer::decision(decision, reason).with_stderr(message.to_owned())
    } else {
        Answer::silent(&event).with_stderr(message.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_name_is_found_in_broken_payloads() {
        assert_eq!(
            scan_event_name(b"{\"hook_event_name\" : \"PreToolUse\", \"x\": \"\xff\"}"),
            Some("PreToolUse".into())
        );
        assert_eq!(
            scan_event_name(b"{\"hook_event_name\":\"PreToolUse\",\"tool_input\":[[[[[["),
            Some("PreToolUse".into())
        );
        assert_eq!(scan_event_name(b"{\"hook_event_name\":\"Nope\""), None);
        assert_eq!(scan_event_name(b"{\"hook_event_name\":"), None);
        assert_eq!(scan_event_name(b""), None);
    }

    #[test]
    fn broken_pre_tool_use_payload_still_asks() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::in_dir(dir.path(), Timestamp::from_unix(0), None);
        let a = run_guarded(
            b"{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"\xff\"}}",
            &ctx,
        );
        assert_eq!(a.permission(), Some(PermissionDecision::Ask));
        assert_eq!(a.event(), &EventName::PreToolUse);
    }

    #[test]
    fn a_panic_is_answered_for_the_event_noted_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::in_dir(dir.path(), Timestamp::from_unix(0), None);
        let a = guarded(
            || panic!("boom"),
            || (Some("PreToolUse".into()), Agent::Claude),
            &ctx,
        );
        assert_eq!(a.permission(), Some(PermissionDecision::Ask));
        assert_eq!(a.event(), &EventName::PreToolUse);
        let hinted = Ctx::in_dir(dir.path(), Timestamp::from_unix(0), Some("Stop".into()));
        let a = guarded(|| panic!("boom"), || (None, Agent::Claude), &hinted);
        assert_eq!(a.event(), &EventName::Stop);
    }

    /// A client that runs the tool when a hook fails and cannot ask gets its deny form.
    #[test]
    fn a_panic_is_a_deny_in_the_form_of_a_client_that_cannot_ask() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::in_dir(dir.path(), Timestamp::from_unix(0), None);
        let a = guarded(
            || panic!("boom"),
            || (Some("PreToolUse".into()), Agent::Gemini),
            &ctx,
        );
        let json = a.to_json().unwrap();
        assert_eq!(json["decision"], "deny", "{json}");
        assert!(json["reason"].as_str().unwrap().contains("boom"), "{json}");
        let a = guarded(
            || panic!("boom"),
            || (Some("PreToolUse".into()), Agent::Codex),
            &ctx,
        );
        assert_eq!(
            a.to_json().unwrap()["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
    }

    /// A payload over the cap is read only one byte past it, and refused by its size with
    /// the PreToolUse fail mode named on the command line.
    #[test]
    fn a_payload_over_the_cap_is_not_held_whole() {
        let over = io::repeat(b' ').take(MAX_PAYLOAD_BYTES as u64 * 2);
        let bytes = read_payload(over).unwrap();
        assert_eq!(bytes.len(), MAX_PAYLOAD_BYTES + 1);
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::in_dir(
            dir.path(),
            Timestamp::from_unix(0),
            Some("PreToolUse".into()),
        );
        let a = run_guarded(&bytes, &ctx);
        assert_eq!(a.permission(), Some(PermissionDecision::Ask));
        assert!(
            a.stderr_lines().iter().any(|l| l.contains("exceeds")),
            "{:?}",
            a.stderr_lines()
        );
        let small = read_payload(&b"{\"hook_event_name\":\"Stop\"}"[..]).unwrap();
        assert_eq!(run_guarded(&small, &ctx).exit_code(), 0);
    }
}
