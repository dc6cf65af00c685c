//! Claude Code's hook protocol: payloads in (`input`), answers out (`output`).

pub mod input;
pub mod output;

pub use input::{EventName, HookInput, InputError, MAX_PAYLOAD_BYTES};
pub use output::{Answer, PermissionDecision};
