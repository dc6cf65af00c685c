//! Hook payloads: tolerant in.
//!
//! A payload is read once into a JSON value, then its fields are taken out with their types
//! checked one by one: a field that is absent or of the wrong type becomes `None` (and is
//! noted), never an empty string, and unknown fields are ignored. The raw value is kept for
//! the audit trail and for features that need event-specific fields.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::agent::Agent;

/// Largest payload accepted on stdin: 32 MiB. Larger input is refused with a clear message.
pub const MAX_PAYLOAD_BYTES: usize = 32 * 1024 * 1024;

macro_rules! events {
    ($($name:ident),* $(,)?) => {
        /// Every hook event of Claude Code's reference and of the 2.1.332 client's own list
        /// (`PreSkillShellCommand`, `PreModelSwitch`, `PostModelSwitch`), plus `Other` for
        /// names this build does not know.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum EventName {
            $(
                #[doc = concat!("The `", stringify!($name), "` event.")]
                $name,
            )*
            /// An event this build does not know; tolerated.
            Other(String),
        }

        impl EventName {
            /// Every known event, in the reference's order (the 2.1.332 client's own beside
            /// their kin).
            pub const KNOWN: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Maps a `hook_event_name` to the enum.
            pub fn parse(s: &str) -> Self {
                match s {
                    $(stringify!($name) => Self::$name,)*
                    other => Self::Other(other.to_owned()),
                }
            }

            /// Returns the name as Claude Code spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$name => stringify!($name),)*
                    Self::Other(s) => s,
                }
            }
        }
    };
}

events!(
    SessionStart,
    Setup,
    InstructionsLoaded,
    UserPromptSubmit,
    UserPromptExpansion,
    PreSkillShellCommand,
    MessageDisplay,
    PreToolUse,
    PermissionRequest,
    PermissionDenied,
    PostToolUse,
    PostToolUseFailure,
    PostToolBatch,
    Notification,
    SubagentStart,
    SubagentStop,
    TaskCreated,
    TaskCompleted,
    Stop,
    StopFailure,
    TeammateIdle,
    ConfigChange,
    CwdChanged,
    DirectoryAdded,
    FileChanged,
    WorktreeCreate,
    WorktreeRemove,
    PreCompact,
    PostCompact,
    PreModelSwitch,
    PostModelSwitch,
    Elicitation,
    ElicitationResult,
    SessionEnd,
);

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a payload could not be read. Each message is one line for stderr.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputError {
    /// Nothing arrived on stdin.
    #[error("empty hook payload on stdin")]
    Empty,
    /// The payload exceeds [`MAX_PAYLOAD_BYTES`].
    #[error("hook payload of {size} bytes exceeds the {limit}-byte cap")]
    TooLarge {
        /// Bytes received (at least).
        size: usize,
        /// The cap.
        limit: usize,
    },
    /// The bytes are not UTF-8.
    #[error("hook payload is not valid UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The text is not JSON.
    #[error("hook payload is not valid JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object.
    #[error("hook payload is JSON but not an object")]
    NotObject,
}

/// Returns the payload as text: within the size cap, UTF-8, not blank.
fn payload_text(bytes: &[u8]) -> Result<&str, InputError> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(InputError::TooLarge {
            size: bytes.len(),
            limit: MAX_PAYLOAD_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    Ok(text)
}

/// One Claude Code-shaped tool call a client's call amounts to (a patch's file).
#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    /// Claude Code's tool name (`Write`, `Edit`, `Bash`).
    pub tool_name: String,
    /// Its input, in Claude Code's shape.
    pub tool_input: Value,
}

/// What the engine judges of a tool call.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Effects {
    /// The call itself: its `tool_name` and `tool_input` are Claude Code's.
    #[default]
    Itself,
    /// Several calls (a patch touching several files): each is classified, the riskiest
    /// part decides, and user rules hold against each.
    Several(Vec<Effect>),
    /// The client's input could not be read into effects (a malformed patch): judged as not
    /// understood, never allowed by trust.
    Unreadable(String),
}

/// One hook payload: the common fields typed, the rest reachable through accessors.
#[derive(Debug, Clone)]
pub struct HookInput {
    /// The event, from `hook_event_name` (or from the command line when the payload lacks it).
    pub event: EventName,
    /// Session UUID.
    pub session_id: Option<String>,
    /// Path of the session transcript.
    pub transcript_path: Option<PathBuf>,
    /// Working directory when the hook fired.
    pub cwd: Option<PathBuf>,
    /// Permission mode (`default`, `plan`, `acceptEdits`, ...).
    pub permission_mode: Option<String>,
    /// Id of the prompt being processed.
    pub prompt_id: Option<String>,
    /// Subagent id when fired inside a subagent.
    pub agent_id: Option<String>,
    /// Subagent type.
    pub agent_type: Option<String>,
    /// Tool name (tool events).
    pub tool_name: Option<String>,
    /// Tool use id (tool events).
    pub tool_use_id: Option<String>,
    /// Fields present with a type other than the reference's, noted for the log.
    pub type_mismatches: Vec<&'static str>,
    /// The client that sent the payload: only the audit records it (and the answer is
    /// written in its form); the engine's decisions do not depend on it.
    pub agent: Agent,
    /// What the tool call does, when its input is not one Claude Code call.
    pub effects: Effects,
    /// Whether the client reported the tool's outcome (PostToolUse). A client that does not
    /// (Codex CLI gives no exit code and no failure event) leaves it unknown: neither a
    /// success nor a failure for trust and strikes.
    pub outcome_known: bool,
    /// The whole payload (in Claude Code's shape, after a client's adapter).
    pub raw: Map<String, Value>,
}

impl HookInput {
    /// Parses a payload. `event_hint` (from `oath hook <Event>`) is used when the payload has
    /// no `hook_event_name`.
    pub fn parse(bytes: &[u8], event_hint: Option<&str>) -> Result<Self, InputError> {
        Ok(Self::from_map(Self::parse_object(bytes)?, event_hint))
    }

    /// Reads a payload into its JSON object (any client's), without typing its fields.
    pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, InputError> {
        let text = payload_text(bytes)?;
        let value: Value =
            serde_json::from_str(text).map_err(|e| InputError::NotJson(e.to_string()))?;
        match value {
            Value::Object(raw) => Ok(raw),
            _ => Err(InputError::NotObject),
        }
    }

    /// Builds the typed view of an already parsed payload object.
    pub fn from_map(raw: Map<String, Value>, event_hint: Option<&str>) -> Self {
        let mut mismatches = Vec::new();
        let mut string = |key: &'static str| -> Option<String> {
            match raw.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    mismatches.push(key);
                    None
                }
            }
        };
        let event_name = string("hook_event_name");
        let session_id = string("session_id");
        let transcript_path = string("transcript_path").map(PathBuf::from);
        let cwd = string("cwd").map(PathBuf::from);
        let permission_mode = string("permission_mode");
        let prompt_id = string("prompt_id");
        let agent_id = string("agent_id");
        let agent_type = string("agent_type");
        let tool_name = string("tool_name");
        let tool_use_id = string("tool_use_id");
        let event = match (event_name.as_deref(), event_hint) {
            (Some(name), _) => EventName::parse(name),
            (None, Some(hint)) => EventName::parse(hint),
            (None, None) => EventName::Other(String::new()),
        };
        Self {
            event,
            session_id,
            transcript_path,
            cwd,
            permission_mode,
            prompt_id,
            agent_id,
            agent_type,
            tool_name,
            tool_use_id,
            type_mismatches: mismatches,
            agent: Agent::Claude,
            effects: Effects::Itself,
            outcome_known: true,
            raw,
        }
    }

    /// Returns a top-level field of the payload.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.raw.get(key).filter(|v| !v.is_null())
    }

    /// Returns a top-level string field.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.field(key).and_then(Value::as_str)
    }

    /// Returns a top-level boolean field.
    pub fn bool_field(&self, key: &str) -> Option<bool> {
        self.field(key).and_then(Value::as_bool)
    }

    /// Returns `tool_input` when it is an object (an empty object otherwise).
    pub fn tool_input(&self) -> &Value {
        static EMPTY: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        match self.raw.get("tool_input") {
            Some(v @ Value::Object(_)) => v,
            _ => EMPTY.get_or_init(|| Value::Object(Map::new())),
        }
    }

    /// Returns `tool_response` (PostToolUse).
    pub fn tool_response(&self) -> Option<&Value> {
        self.field("tool_response")
    }

    /// Returns the `error` text (PostToolUseFailure).
    pub fn error_text(&self) -> Option<&str> {
        self.str_field("error")
    }

    /// Returns `duration_ms` when present.
    pub fn duration_ms(&self) -> Option<u64> {
        self.field("duration_ms").and_then(Value::as_u64)
    }

    /// Returns the session id or `"unknown"` for file names and records.
    pub fn session_or_unknown(&self) -> &str {
        self.session_id.as_deref().unwrap_or("unknown")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_inputs_are_named() {
        assert_eq!(HookInput::parse(b"", None).unwrap_err(), InputError::Empty);
        assert_eq!(
            HookInput::parse(b"  \n", None).unwrap_err(),
            InputError::Empty
        );
        assert!(matches!(
            HookInput::parse(b"{nope", None),
            Err(InputError::NotJson(_))
        ));
        assert_eq!(
            HookInput::parse(b"[1]", None).unwrap_err(),
            InputError::NotObject
        );
        assert_eq!(
            HookInput::parse(b"{\"a\":\"\xff\"}", None).unwrap_err(),
            InputError::NotUtf8 { offset: 6 }
        );
    }

    #[test]
    fn wrong_types_become_none_and_are_noted() {
        let input = HookInput::parse(
            br#"{"hook_event_name":"PreToolUse","session_id":7,"cwd":null,"x":1}"#,
            None,
        )
        .unwrap();
        assert_eq!(input.event, EventName::PreToolUse);
        assert_eq!(input.session_id, None);
        assert_eq!(input.type_mismatches, vec!["session_id"]);
        assert_eq!(input.tool_input(), &Value::Object(Map::new()));
    }

    #[test]
    fn event_hint_is_used_only_without_a_name() {
        let input = HookInput::parse(br#"{"session_id":"s"}"#, Some("Stop")).unwrap();
        assert_eq!(input.event, EventName::Stop);
        let input = HookInput::parse(br#"{"hook_event_name":"Brand"}"#, Some("Stop")).unwrap();
        assert_eq!(input.event, EventName::Other("Brand".into()));
    }

    #[test]
    fn every_known_event_round_trips() {
        assert_eq!(EventName::KNOWN.len(), 34);
        for name in EventName::KNOWN {
            assert_eq!(EventName::parse(name).as_str(), *name);
            assert!(!matches!(EventName::parse(name), EventName::Other(_)));
        }
    }
}
