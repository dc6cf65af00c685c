//! Secret redaction for everything oath writes.
//!
//! Every byte oath writes goes through here: the records of the state files and the audit
//! trail as JSON values ([`redact_value`], [`redact_map`]), texts ([`redact_str`]) and streams
//! ([`RedactingWriter`], for the observers' output files). One engine, one rule table.
//!
//! Values are inspected, not only key names: known token formats (the data table
//! `rules.yaml`: cloud keys, source hosting, CI and registry tokens, AI providers, payments,
//! bots and webhooks, JWTs, base64 private keys), bearer and basic credentials, private-key
//! blocks, passwords in URLs, passwords given by option to known commands (`mysql -pX`,
//! `redis-cli -a X`, the same table), secret flags (`--password x`), `NAME=value` / `NAME:
//! value` / `NAME = value` where NAME looks secret, the private members of a JWK, and random
//! values assigned to any name. In JSON, any string or number under a secret-looking key is
//! redacted too, and object keys that are tokens.
//!
//! Pure functions and hand-written scanners, each pass linear in the text (bounded look-ahead
//! only), so redacting a 20 MB Write content costs milliseconds and no regex is compiled on the
//! hook's hot path. Every slice index lands on an ASCII byte, so any UTF-8 text is safe.
//!
//! The public entry points are here; the secret-name rules are in `names`, the token matcher
//! in `tokens` (its patterns in `rules.yaml`, compiled by build.rs into `table`), command-line
//! options in `options`, random values in `random`, the masking passes in `engine`, and the
//! streaming writer in `stream`.

mod class;
mod engine;
mod names;
mod options;
mod random;
mod stream;
mod table;
mod tokens;

use std::borrow::Cow;

use serde_json::{Map, Value};

use engine::redact_plain;
pub use names::is_secret_name;
pub use stream::RedactingWriter;
pub use tokens::{is_known_token, rule_of};

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Redacts secrets inside a JSON value in place; returns whether anything changed.
pub fn redact_value(v: &mut Value) -> bool {
    redact_value_except(v, &|_| false)
}

/// Redacts secrets inside a JSON object in place (keys that are tokens, values under
/// secret-looking keys, the private members of a JWK, random values under any key, secrets
/// inside values); returns whether anything changed.
pub fn redact_map(map: &mut Map<String, Value>) -> bool {
    redact_map_except(map, &|_| false)
}

/// [`redact_value`], leaving as they are the strings `known` accepts: those a state file held
/// when it was read, which oath wrote redacted already (a rewrite then costs what it adds, not
/// what the file holds; the values of secret-looking keys are masked all the same).
pub fn redact_value_except(v: &mut Value, known: &dyn Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => {
            if known(s) {
                return false;
            }
            if let Cow::Owned(r) = redact_str(s) {
                *s = r;
                true
            } else {
                false
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |acc, i| redact_value_except(i, known) | acc),
        Value::Object(map) => redact_map_except(map, known),
        _ => false,
    }
}

fn redact_map_except(map: &mut Map<String, Value>, known: &dyn Fn(&str) -> bool) -> bool {
    let mut changed = false;
    let masks = |k: &String| !known(k) && matches!(redact_str(k), Cow::Owned(_));
    if map.keys().any(masks) {
        let old = std::mem::take(map);
        let mut renamed = Map::with_capacity(old.len());
        for (k, val) in old {
            let k = if known(&k) {
                k
            } else {
                redact_str(&k).into_owned()
            };
            renamed.insert(k, val);
        }
        *map = renamed;
        changed = true;
    }
    let jwk = map.contains_key("kty");
    for (k, val) in map.iter_mut() {
        // A known key with a known string: both were in the file already (a rewrite adds
        // nothing there).
        if matches!(val, Value::String(s) if known(s)) && known(k) {
            continue;
        }
        let secret_key = is_secret_name(k) || (jwk && names::is_jwk_private_member(k));
        match val {
            Value::String(s) if secret_key && !s.is_empty() && s != MASK => {
                *val = Value::String(MASK.into());
                changed = true;
            }
            Value::String(s) if !known(s) && random::is_random_value(k, s) => {
                *val = Value::String(MASK.into());
                changed = true;
            }
            Value::Number(_) if secret_key => {
                *val = Value::String(MASK.into());
                changed = true;
            }
            _ => changed |= redact_value_except(val, known),
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
