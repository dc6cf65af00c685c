//! The clients' hook protocols. Claude Code's is oath's own: payloads in (`input`), answers
//! out (`output`). Codex CLI's (`codex`) and Gemini CLI's (`gemini`) are thin adapters that
//! map their payloads to Claude Code's shape and oath's answer back to what each honours;
//! `recognize` tells them apart when `oath hook` is not told (`--agent`).

pub mod codex;
pub mod gemini;
pub mod input;
pub mod output;
pub mod patch;
mod recognize;

pub use input::{Effect, Effects, EventName, HookInput, InputError, MAX_PAYLOAD_BYTES};
pub use output::{Answer, PermissionDecision};
pub use recognize::{adapt, claude_event, recognize, recognize_bytes};
