//! Claude Code's hook protocol: payloads in (`input`; a large one parsed without copying its
//! content, `adopt`), answers out (`output`).

mod adopt;
pub mod input;
pub mod output;

pub use input::{EventName, HookInput, InputError, MAX_PAYLOAD_BYTES};
pub use output::{Answer, PermissionDecision};
