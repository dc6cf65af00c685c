//! Claude Code's hook protocol: payloads in (`stream` reads one from stdin, a PreToolUse
//! Write's long content digested as it arrives; `input` parses it, a large one without
//! copying its content, `adopt`), answers out (`output`).

mod adopt;
pub mod input;
pub mod output;
pub mod stream;

pub use input::{EventName, HookInput, InputError, MAX_PAYLOAD_BYTES};
pub use output::{Answer, PermissionDecision};
