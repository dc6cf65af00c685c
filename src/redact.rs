//! Secret redaction for everything oath writes.
//!
//! Values are inspected, not only key names: known token formats (cloud keys, GitHub, Slack,
//! OpenAI/Anthropic/Stripe keys, Google API keys, JWTs), bearer and basic credentials,
//! private-key blocks, passwords in URLs, and `NAME=value` / `NAME: value` where NAME looks
//! secret. In JSON, any string under a secret-looking key is redacted too. Pure functions; a
//! hand-written scanner keeps this off the hook's start-up cost (no regex compilation).

use std::borrow::Cow;

use serde_json::Value;

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Returns whether a key or variable name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "api_key",
        "apikey",
        "api-key",
        "access_key",
        "accesskey",
        "private_key",
        "privatekey",
        "credential",
        "auth_key",
        "client_secret",
        "session_key",
        "pwd",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    matches!(
        lower.as_str(),
        "authorization" | "auth" | "cookie" | "set-cookie" | "x-api-key" | "pass"
    ) || lower.ends_with("_pass")
        || lower.ends_with("_key")
            && (lower.contains("secret") || lower.contains("private") || lower.contains("api"))
}

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
        Value::Object(map) => {
            let mut changed = false;
            for (k, val) in map.iter_mut() {
                if is_secret_name(k)
                    && matches!(val, Value::String(s) if !s.is_empty() && s != MASK)
                {
                    *val = Value::String(MASK.into());
                    changed = true;
                } else {
                    changed |= redact_value(val);
                }
            }
            changed
        }
        _ => false,
    }
}

/// Redacts secrets in a text; borrows when nothing was found.
///
/// Colour codes glue themselves to the words around them (`ESC[1mghp_…`, `ESC[32mAPI_KEY
/// ESC[0m=…`) and hide tokens and names from the scanner, so a text with escapes is scanned
/// without them; when it holds a secret, the redacted text without colours replaces it.
pub fn redact_str(s: &str) -> Cow<'_, str> {
    if s.contains('\u{1b}') {
        let plain = strip_ansi(s);
        return match redact_plain(&plain) {
            Cow::Owned(r) => Cow::Owned(r),
            Cow::Borrowed(_) => Cow::Borrowed(s),
        };
    }
    redact_plain(s)
}

/// Removes ANSI escape sequences (CSI, OSC and two-byte escapes).
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

fn redact_plain(s: &str) -> Cow<'_, str> {
    if !might_hold_secret(s) {
        return Cow::Borrowed(s);
    }
    let mut text = s.to_owned();
    text = redact_private_keys(&text);
    text = redact_tokens(&text);
    text = redact_assignments(&text);
    if text == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(text)
    }
}

/// A cheap pre-check: text without `=`, `:`, `-`, `_` or a known prefix cannot hold a secret
/// we recognise.
fn might_hold_secret(s: &str) -> bool {
    s.len() >= 8
        && s.bytes()
            .any(|b| matches!(b, b'=' | b':' | b'-' | b'_' | b'.' | b'A'..=b'Z'))
}

fn redact_private_keys(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("-----BEGIN ") {
        let header_end = rest[start..]
            .find("-----\n")
            .or_else(|| rest[start + 11..].find("-----").map(|i| i + 11));
        let is_key = rest[start..]
            .lines()
            .next()
            .is_some_and(|l| l.contains("PRIVATE KEY") || l.contains("OPENSSH"));
        if !is_key || header_end.is_none() {
            out.push_str(&rest[..start + 11]);
            rest = &rest[start + 11..];
            continue;
        }
        out.push_str(&rest[..start]);
        out.push_str("[REDACTED private key]");
        let after = &rest[start..];
        match after.find("-----END ") {
            Some(end) => {
                let tail = &after[end + 9..];
                let close = tail.find("-----").map(|i| i + 5).unwrap_or(tail.len());
                rest = &tail[close..];
            }
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '=')
}

/// Finds token-shaped words and masks those of a known format.
fn redact_tokens(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word_start: Option<usize> = None;
    let mut prev_word_lower = String::new();
    let flush = |out: &mut String, word: &str, prev: &str| {
        if is_known_token(word) || (matches!(prev, "bearer" | "basic" | "token") && word.len() >= 8)
        {
            out.push_str(MASK);
            return;
        }
        // `name=TOKEN` inside one word: mask the part after the first `=`.
        if let Some(eq) = word.find('=')
            && is_known_token(&word[eq + 1..])
        {
            out.push_str(&word[..=eq]);
            out.push_str(MASK);
            return;
        }
        out.push_str(word);
    };
    for (i, c) in s.char_indices() {
        if is_token_char(c) {
            if word_start.is_none() {
                word_start = Some(i);
            }
        } else {
            if let Some(ws) = word_start.take() {
                let word = &s[ws..i];
                flush(&mut out, word, &prev_word_lower);
                prev_word_lower = word.to_ascii_lowercase();
            }
            out.push(c);
        }
    }
    if let Some(ws) = word_start {
        flush(&mut out, &s[ws..], &prev_word_lower);
    }
    out
}

fn count_while(s: &str, f: impl Fn(char) -> bool) -> usize {
    s.chars().take_while(|c| f(*c)).count()
}

fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Returns whether a word is a token of a known format.
pub fn is_known_token(w: &str) -> bool {
    let w = w.trim_end_matches(['.', '=']);
    for p in ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"] {
        if let Some(rest) = w.strip_prefix(p)
            && rest.len() >= 16
            && count_while(rest, |c| c.is_ascii_uppercase() || c.is_ascii_digit()) >= 16
        {
            return true;
        }
    }
    for p in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        if let Some(rest) = w.strip_prefix(p)
            && count_while(rest, alnum) >= 30
        {
            return true;
        }
    }
    if let Some(rest) = w.strip_prefix("github_pat_")
        && count_while(rest, |c| alnum(c) || c == '_') >= 20
    {
        return true;
    }
    if let Some(rest) = w.strip_prefix("glpat-")
        && rest.len() >= 20
    {
        return true;
    }
    for p in [
        "xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-", "xoxo-", "xapp-",
    ] {
        if let Some(rest) = w.strip_prefix(p)
            && rest.len() >= 10
        {
            return true;
        }
    }
    for p in [
        "sk-ant-", "sk-proj-", "sk-live-", "sk_live_", "sk_test_", "rk_live_", "rk_test_",
        "whsec_", "sk-",
    ] {
        if let Some(rest) = w.strip_prefix(p)
            && count_while(rest, |c| alnum(c) || c == '_' || c == '-') >= 16
        {
            return true;
        }
    }
    if let Some(rest) = w.strip_prefix("AIza")
        && count_while(rest, |c| alnum(c) || c == '_' || c == '-') >= 30
    {
        return true;
    }
    if let Some(rest) = w.strip_prefix("npm_")
        && count_while(rest, alnum) >= 30
    {
        return true;
    }
    if w.starts_with("eyJ") {
        let parts: Vec<&str> = w.split('.').collect();
        if parts.len() == 3
            && parts.iter().all(|p| p.len() >= 8 || p.is_empty())
            && parts[1].len() >= 8
        {
            return true;
        }
    }
    if w.contains("hooks.slack.com/services/") {
        return true;
    }
    false
}

/// Masks the value of `NAME=value`, `NAME: value`, `"NAME": "value"` and `user:pass@` in URLs.
fn redact_assignments(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut last = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'=' || b == b':' {
            // Name: identifier characters (and quotes) right before the operator.
            let mut j = i;
            while j > 0 && bytes[j - 1] == b'"' {
                j -= 1;
            }
            let name_end = j;
            while j > 0
                && (bytes[j - 1].is_ascii_alphanumeric()
                    || matches!(bytes[j - 1], b'_' | b'-' | b'.'))
            {
                j -= 1;
            }
            let name = &s[j..name_end];
            // URL credentials: scheme://user:pass@host
            if b == b':'
                && j >= 3
                && s.get(j - 3..j) == Some("://")
                && let Some(at) = s[i + 1..].find('@')
            {
                let pass = &s[i + 1..i + 1 + at];
                if !pass.is_empty() && !pass.contains(['/', ' ', '\n']) && pass != MASK {
                    out.push_str(&s[last..=i]);
                    out.push_str(MASK);
                    i = i + 1 + at;
                    last = i;
                    continue;
                }
            }
            if !name.is_empty() && is_secret_name(name) {
                // Value: skip spaces (for `:`), an opening quote, then up to the closing
                // quote or whitespace.
                let mut k = i + 1;
                while k < bytes.len() && bytes[k] == b' ' && b == b':' {
                    k += 1;
                }
                let quote = bytes.get(k).copied().filter(|q| matches!(q, b'"' | b'\''));
                if quote.is_some() {
                    k += 1;
                }
                let vstart = k;
                while k < bytes.len() {
                    let c = bytes[k];
                    let stop = match quote {
                        Some(q) => c == q,
                        None => {
                            c.is_ascii_whitespace()
                                || matches!(
                                    c,
                                    b'"' | b'\'' | b';' | b'&' | b'|' | b',' | b'}' | b')'
                                )
                        }
                    };
                    if stop {
                        break;
                    }
                    if c == b'\\' && quote.is_some() {
                        k += 1;
                    }
                    k += 1;
                }
                let k = k.min(bytes.len());
                let value = &s[vstart..k];
                if !value.is_empty() && value != MASK && !value.starts_with('$') {
                    out.push_str(&s[last..vstart]);
                    out.push_str(MASK);
                    last = k;
                    i = k;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&s[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coloured_secrets_are_found() {
        let text = "\u{1b}[1mghp_0123456789abcdefghijABCDEFGHIJ012345\u{1b}[0m and \u{1b}[32mPASSWORD\u{1b}[0m=hunter2hunter2";
        let r = redact_str(text);
        assert!(!r.contains("ghp_0123"), "{r:?}");
        assert!(!r.contains("hunter2"), "{r:?}");
        let plain = "\u{1b}[31mbuild failed\u{1b}[0m";
        assert!(
            matches!(redact_str(plain), Cow::Borrowed(_)),
            "no secret: colours kept"
        );
    }

    #[test]
    fn token_formats_are_masked() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"),
            ("ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED]"),
            (
                "Authorization: Bearer abcdef0123456789xyz",
                "Authorization: [REDACTED] [REDACTED]",
            ),
            (
                "curl -H 'Authorization: Bearer abcdef0123456789xyz' x",
                "curl -H 'Authorization: [REDACTED] [REDACTED]' x",
            ),
            (
                "export API_KEY=sk-live-123 && ./deploy",
                "export API_KEY=[REDACTED] && ./deploy",
            ),
            ("PASSWORD=hunter22 mysql", "PASSWORD=[REDACTED] mysql"),
            (
                "https://user:s3cret@example.com/x",
                "https://user:[REDACTED]@example.com/x",
            ),
            (
                "t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "t=[REDACTED]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact_str(input), want, "input: {input}");
        }
    }

    #[test]
    fn private_key_blocks_are_masked() {
        let s = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(redact_str(s), "a\n[REDACTED private key]\nb");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for s in [
            "ls -la",
            "git push --force origin main",
            "cargo test -- --nocapture",
            "key: value",
            "x=1",
        ] {
            assert!(matches!(redact_str(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn multibyte_text_before_a_colon_does_not_panic() {
        for s in ["\u{16f3b}:x=1 password:abc", "é:é@x", "ab€:pass@host"] {
            let _ = redact_str(s);
        }
    }

    #[test]
    fn json_keys_and_values() {
        let mut v = json!({"password": "p", "nested": {"authToken": "zzz"}, "cmd": "TOKEN=abc123 run", "n": 1});
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({"password": MASK, "nested": {"authToken": MASK}, "cmd": "TOKEN=[REDACTED] run", "n": 1})
        );
    }
}
