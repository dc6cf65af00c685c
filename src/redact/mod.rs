//! Secret redaction for everything oath writes.
//!
//! Values are inspected, not only key names: known token formats (cloud keys, GitHub, GitLab,
//! Slack, OpenAI/Anthropic/Stripe keys, Google API keys, JWTs, webhooks), bearer and basic
//! credentials, private-key blocks, passwords in URLs, secret flags (`--password x`), and
//! `NAME=value` / `NAME: value` / `NAME = value` where NAME looks secret. In JSON, any string or
//! number under a secret-looking key is redacted too, and object keys that are tokens.
//!
//! Pure functions and hand-written scanners, each pass linear in the text (bounded look-ahead
//! only), so redacting a 20 MB Write content costs milliseconds and no regex is compiled on the
//! hook's hot path. Every slice index lands on an ASCII byte, so any UTF-8 text is safe.
//!
//! The public entry points are here; the secret-name rules are in `names`, the table of token
//! formats in `tokens`, and the masking passes in `engine`.

mod engine;
mod names;
mod tokens;

use std::borrow::Cow;

use serde_json::{Map, Value};

use engine::redact_plain;
pub use names::is_secret_name;
pub use tokens::is_known_token;

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Redacts secrets inside a JSON value in place; returns whether anything changed.
pub fn redact_value(v: &mut Value) -> bool {
    match v {
        Value::String(s) => {
            if let Cow::Owned(r) = redact_str(s) {
                *s = r;
                true
            } else {
                false
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |acc, i| redact_value(i) | acc),
        Value::Object(map) => redact_map(map),
        _ => false,
    }
}

/// Redacts secrets inside a JSON object in place (keys that are tokens, values under
/// secret-looking keys, secrets inside values); returns whether anything changed.
pub fn redact_map(map: &mut Map<String, Value>) -> bool {
    let mut changed = false;
    if map.keys().any(|k| matches!(redact_str(k), Cow::Owned(_))) {
        let old = std::mem::take(map);
        let mut renamed = Map::with_capacity(old.len());
        for (k, val) in old {
            renamed.insert(redact_str(&k).into_owned(), val);
        }
        *map = renamed;
        changed = true;
    }
    for (k, val) in map.iter_mut() {
        let secret_key = is_secret_name(k);
        match val {
            Value::String(s) if secret_key && !s.is_empty() && s != MASK => {
                *val = Value::String(MASK.into());
                changed = true;
            }
            Value::Number(_) if secret_key => {
                *val = Value::String(MASK.into());
                changed = true;
            }
            _ => changed |= redact_value(val),
        }
    }
    changed
}

/// Redacts secrets in a text; borrows when nothing was found.
///
/// Colour codes glue themselves to the words around them (`ESC[1mghp_…`, `ESC[32mAPI_KEY
/// ESC[0m=…`) and hide tokens and names from the scanner, so a text with escapes is scanned
/// without them; when it holds a secret, the redacted text without colours replaces it.
pub fn redact_str(s: &str) -> Cow<'_, str> {
    if !s.contains('\u{1b}') {
        return redact_plain(s);
    }
    // First the text as it is (an escape can swallow the space before a token, or an
    // unterminated OSC the rest of the text), then without its escapes (which can split a
    // token in two): each stage only masks more.
    let raw = redact_plain(s);
    let plain = strip_ansi(&raw);
    match (raw, redact_plain(&plain)) {
        (_, Cow::Owned(r)) => Cow::Owned(r),
        (Cow::Owned(_), Cow::Borrowed(_)) => Cow::Owned(plain),
        (Cow::Borrowed(_), Cow::Borrowed(_)) => Cow::Borrowed(s),
    }
}

/// Removes ANSI escape sequences (CSI, OSC, escapes with intermediates, two-byte escapes).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameters and intermediates, then one final byte in 0x40..=0x7e.
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            // Character-set and other escapes with intermediates (`ESC ( B` from `tput
            // sgr0`): the intermediates, then one final character.
            Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
                for n in chars.by_ref() {
                    if !('\u{20}'..='\u{2f}').contains(&n) {
                        break;
                    }
                }
            }
            Some(']') => {
                // Operating system command: up to BEL or ESC \.
                while let Some(n) = chars.next() {
                    if n == '\u{7}' {
                        break;
                    }
                    if n == '\u{1b}' {
                        if chars.peek() == Some(&'\\') {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
