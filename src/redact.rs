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

use std::borrow::Cow;

use serde_json::{Map, Value};

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Name suffixes that describe a secret without holding one (`max_tokens`, `TOKEN_FILE`).
const NOT_SECRET_SUFFIXES: &[&str] = &[
    "tokens", "count", "type", "file", "files", "path", "dir", "url", "uri", "_id", "-id", "ids",
    "name", "length", "len", "size", "limit", "ttl", "expiry", "expires", "_at", "arn", "version",
    "kind", "mode", "format", "endpoint", "policy", "reset", "manager", "store", "helper",
];

/// Words that make a name secret wherever they appear in it.
const SECRET_WORDS: &[&str] = &[
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
    "accountkey",
    "private_key",
    "privatekey",
    "private-key",
    "credential",
    "auth_key",
    "session_key",
    "signing_key",
    "encryption_key",
    "master_key",
];

/// Returns whether a key, variable or flag name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.trim_start_matches('-');
    if name.is_empty() || name.len() > 128 {
        return false;
    }
    let mut buf = [0u8; 128];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    // Lowercasing ASCII keeps the text valid UTF-8.
    let lower = std::str::from_utf8(lower).unwrap_or_default();
    if matches!(
        lower,
        "authorization"
            | "proxy-authorization"
            | "auth"
            | "cookie"
            | "set-cookie"
            | "x-api-key"
            | "pass"
            | "sig"
            | "passwd"
            | "pwd_hash"
    ) {
        return true;
    }
    // Every rule below needs one of these stems: most names have none, and are done here.
    if !has_secret_stem(lower.as_bytes()) {
        return false;
    }
    if NOT_SECRET_SUFFIXES.iter().any(|s| lower.ends_with(s)) || lower.contains("tokeniz") {
        return false;
    }
    if SECRET_WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    if lower.ends_with("_pass") || lower.ends_with("-pass") || lower.ends_with("_pwd") {
        return true;
    }
    // `STRIPE_KEY`, `OPENAI_KEY`: an environment-variable style name ending in `_KEY`.
    let env_style = name
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    (env_style && lower.ends_with("_key") && lower.len() > 4)
        || (lower.ends_with("_key") || lower.ends_with("-key"))
            && [
                "secret", "private", "api", "auth", "signing", "encrypt", "master",
            ]
            .iter()
            .any(|w| lower.contains(w))
}

/// Whether a lowercased name holds `pass`, `secret`, `token`, `key`, `credential` or `_pwd`,
/// one of which is in every secret word and suffix [`is_secret_name`] knows.
fn has_secret_stem(lower: &[u8]) -> bool {
    (0..lower.len()).any(|i| {
        let rest = &lower[i..];
        match rest[0] {
            b'p' => rest.starts_with(b"pass"),
            b's' => rest.starts_with(b"secret"),
            b't' => rest.starts_with(b"token"),
            b'k' => rest.starts_with(b"key"),
            b'c' => rest.starts_with(b"credential"),
            b'_' => rest.starts_with(b"_pwd"),
            _ => false,
        }
    })
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

fn redact_plain(s: &str) -> Cow<'_, str> {
    if !might_hold_secret(s) {
        return Cow::Borrowed(s);
    }
    // Each pass returns a new text only when it masked something. The last two mask values
    // named by a secret-looking name (or a URL's or `-u`'s password): a text holding no
    // such name skips them.
    let named = may_name_secret(s);
    let passes: [fn(&str) -> Option<String>; 4] = [
        redact_private_keys,
        redact_tokens,
        redact_flag_values,
        redact_assignments,
    ];
    let mut text = Cow::Borrowed(s);
    for pass in &passes[..if named { 4 } else { 2 }] {
        if let Some(t) = pass(&text) {
            text = Cow::Owned(t);
        }
    }
    match text {
        Cow::Owned(t) if t == s => Cow::Borrowed(s),
        other => other,
    }
}

/// Output built only once a pass masks something: the text up to `last` is copied then.
struct Masked<'a> {
    src: &'a str,
    out: Option<String>,
    last: usize,
}

impl<'a> Masked<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            src,
            out: None,
            last: 0,
        }
    }

    /// Keeps the text up to `from`, writes `with` instead of `from..to`, and goes on at `to`.
    fn replace(&mut self, from: usize, to: usize, with: &str) {
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.src.len()));
        out.push_str(&self.src[self.last..from]);
        out.push_str(with);
        self.last = to;
    }

    fn finish(self) -> Option<String> {
        let mut out = self.out?;
        out.push_str(&self.src[self.last..]);
        Some(out)
    }
}

/// A cheap pre-check: text without `=`, `:`, `-`, `_`, `.` or an uppercase letter cannot hold
/// a secret we recognise.
fn might_hold_secret(s: &str) -> bool {
    s.len() >= 8
        && s.bytes()
            .any(|b| matches!(b, b'=' | b':' | b'-' | b'_' | b'.' | b'A'..=b'Z'))
}

/// Whether a text may hold what [`redact_flag_values`] and [`redact_assignments`] mask: a
/// name [`is_secret_name`] accepts (each holds, in any case, `pass`, `pwd`, `secret`, `sig`,
/// `token`, `key`, `credential`, `cookie` or `auth`), a `-u` flag, or a URL (`://`). One
/// pass over the bytes; the masking passes cost several. A property test holds the two
/// passes to it.
fn may_name_secret(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).any(|i| {
        let starts = |stem: &[u8]| {
            b.len() - i >= stem.len() && b[i..i + stem.len()].eq_ignore_ascii_case(stem)
        };
        match b[i].to_ascii_lowercase() {
            b'p' => starts(b"pass") || starts(b"pwd"),
            b's' => starts(b"secret") || starts(b"sig"),
            b't' => starts(b"token"),
            b'k' => starts(b"key"),
            b'c' => starts(b"credential") || starts(b"cookie"),
            b'a' => starts(b"auth"),
            b'-' => starts(b"-u"),
            b':' => starts(b"://"),
            _ => false,
        }
    })
}

/// Returns the first index of `needle` in `hay[from..from + limit]` (bounded search).
fn find_within(hay: &str, from: usize, limit: usize, needle: &str) -> Option<usize> {
    let bytes = hay.as_bytes();
    let end = (from + limit + needle.len()).min(bytes.len());
    bytes
        .get(from..end)?
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .map(|p| from + p)
}

/// Masks `-----BEGIN … PRIVATE KEY-----` blocks (RSA, EC, DSA, OPENSSH, PGP, PKCS#8) up to
/// their END line, or to the end of the text when it has none.
fn redact_private_keys(s: &str) -> Option<String> {
    const BEGIN: &str = "-----BEGIN ";
    if !s.contains(BEGIN) {
        return None;
    }
    let mut out = Masked::new(s);
    let mut at = 0;
    while let Some(found) = s[at..].find(BEGIN) {
        let start = at + found;
        // The header is short: look for its closing dashes within 80 bytes only.
        let label_from = start + BEGIN.len();
        let header_close = find_within(s, label_from, 80, "-----");
        // A real block: the label names a private key and a line break (or an escaped one)
        // follows the header, unlike prose that mentions `-----BEGIN … PRIVATE KEY-----`.
        let is_key = header_close.is_some_and(|close| {
            let label = &s[label_from..close];
            let next = s.as_bytes().get(close + 5).copied();
            (label.contains("PRIVATE KEY") || label.contains("OPENSSH"))
                && matches!(next, None | Some(b'\n' | b'\r' | b'\\' | b' ' | b'"'))
        });
        if !is_key {
            at = label_from;
            continue;
        }
        let end = match s[label_from..].find("-----END ") {
            Some(end) => {
                let tail = label_from + end + 9;
                tail + find_within(s, tail, 80, "-----").map_or(0, |i| i - tail + 5)
            }
            None => s.len(),
        };
        out.replace(start, end, "[REDACTED private key]");
        at = end;
    }
    out.finish()
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'=')
}

/// Returns whether a word looks machine-generated: long, with letters and digits.
fn looks_random(w: &str) -> bool {
    w.len() >= 16
        && w.bytes().any(|b| b.is_ascii_digit())
        && w.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Finds token-shaped words and masks those of a known format, and credentials following
/// `Bearer`, `Basic` or `token`.
fn redact_tokens(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Masked::new(s);
    let mut prev = "";
    let mut i = 0;
    while i < bytes.len() {
        if !is_token_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let ws = i;
        while i < bytes.len() && is_token_byte(bytes[i]) {
            i += 1;
        }
        let word = &s[ws..i];
        let is = |name: &str| prev.eq_ignore_ascii_case(name);
        let after_scheme = if is("bearer") || is("basic") {
            word.len() >= 8
        } else if is("token") || is("bot") {
            looks_random(word)
        } else {
            false
        };
        let from = if after_scheme || is_known_token(word) {
            Some(ws)
        } else {
            // A token inside a longer word: `name=TOKEN`, `path/TOKEN`, or glued to what an
            // escape sequence left before it (`1mghp_…`, `Bghp_…`). Short words only: a
            // token is, and a long blob must not cost a scan per position.
            word.bytes()
                .enumerate()
                .skip(1)
                .filter(|&(k, b)| {
                    matches!(b, b'=' | b'/')
                        || (13..=512).contains(&word.len()) && starts_token_format(&word[k..])
                })
                .map(|(k, b)| if matches!(b, b'=' | b'/') { k + 1 } else { k })
                .find(|&k| is_known_token(&word[k..]))
                .map(|k| ws + k)
        };
        if let Some(from) = from {
            out.replace(from, i, MASK);
        }
        prev = if word.len() <= 16 { word } else { "" };
    }
    out.finish()
}

fn count_while(s: &str, f: impl Fn(u8) -> bool) -> usize {
    s.bytes().take_while(|c| f(*c)).count()
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

fn upper_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// A token format with a fixed prefix: (prefix, characters allowed after it, least count).
type Prefixed = (&'static str, fn(u8) -> bool, usize);

/// Token formats with a fixed prefix.
const PREFIXED: &[Prefixed] = &[
    // AWS access key ids.
    ("AKIA", upper_digit, 16),
    ("ASIA", upper_digit, 16),
    ("AGPA", upper_digit, 16),
    ("AIDA", upper_digit, 16),
    ("AROA", upper_digit, 16),
    ("ANPA", upper_digit, 16),
    ("ANVA", upper_digit, 16),
    ("AIPA", upper_digit, 16),
    // GitHub.
    ("ghp_", alnum, 30),
    ("gho_", alnum, 30),
    ("ghu_", alnum, 30),
    ("ghs_", alnum, 30),
    ("ghr_", alnum, 30),
    ("github_pat_", alnum_dash, 20),
    // GitLab.
    ("glpat-", alnum_dash, 20),
    ("gldt-", alnum_dash, 20),
    ("glrt-", alnum_dash, 20),
    ("glptt-", alnum_dash, 20),
    ("glcbt-", alnum_dash, 20),
    ("glft-", alnum_dash, 20),
    ("glsoat-", alnum_dash, 20),
    ("gloas-", alnum_dash, 20),
    // Slack.
    ("xoxb-", alnum_dash, 10),
    ("xoxa-", alnum_dash, 10),
    ("xoxp-", alnum_dash, 10),
    ("xoxr-", alnum_dash, 10),
    ("xoxs-", alnum_dash, 10),
    ("xoxo-", alnum_dash, 10),
    ("xoxe-", alnum_dash, 10),
    ("xoxe.", alnum_dash, 10),
    ("xapp-", alnum_dash, 10),
    // Anthropic, OpenAI, Stripe.
    ("sk-ant-", alnum_dash, 16),
    ("sk-proj-", alnum_dash, 16),
    ("sk-svcacct-", alnum_dash, 16),
    ("sk-admin-", alnum_dash, 16),
    ("sk-live-", alnum_dash, 16),
    ("sk_live_", alnum_dash, 16),
    ("sk_test_", alnum_dash, 16),
    ("rk_live_", alnum_dash, 16),
    ("rk_test_", alnum_dash, 16),
    ("whsec_", alnum_dash, 16),
    // Google.
    ("AIza", alnum_dash, 30),
    ("ya29.", alnum_dash, 20),
    ("GOCSPX-", alnum_dash, 20),
    // Registries and other services.
    ("npm_", alnum, 30),
    ("pypi-AgE", alnum_dash, 50),
    ("hf_", alnum, 30),
    ("dckr_pat_", alnum_dash, 20),
    ("shpat_", hex, 32),
    ("shpss_", hex, 32),
    ("shpca_", hex, 32),
    ("shppa_", hex, 32),
    ("dop_v1_", hex, 64),
    ("doo_v1_", hex, 64),
    ("dapi", hex, 32),
    ("hvs.", alnum_dash, 24),
    ("glc_", alnum_dash, 30),
    ("key-", hex, 32),
    ("SK", hex, 32),
    ("AGE-SECRET-KEY-1", upper_digit, 50),
];

/// Every prefix a token format starts with: those of [`PREFIXED`] (same indices), then the
/// formats checked apart in [`is_known_token`].
const STARTS: [&str; PREFIXED.len() + 3] = {
    let mut out = [""; PREFIXED.len() + 3];
    let mut i = 0;
    while i < PREFIXED.len() {
        out[i] = PREFIXED[i].0;
        i += 1;
    }
    out[i] = "sk-";
    out[i + 1] = "SG.";
    out[i + 2] = "eyJ";
    out
};

/// For each byte, the prefixes of [`STARTS`] beginning with it (bit `i` stands for
/// `STARTS[i]`): a word is compared only with the few prefixes its first byte allows.
const STARTS_BY_FIRST: [u128; 256] = {
    assert!(STARTS.len() <= 128);
    let mut table = [0u128; 256];
    let mut i = 0;
    while i < STARTS.len() {
        table[STARTS[i].as_bytes()[0] as usize] |= 1 << i;
        i += 1;
    }
    table
};

/// Returns the indices in [`STARTS`] of the prefixes `w` starts with.
fn starts_of(w: &str) -> impl Iterator<Item = usize> + '_ {
    let mut mask = w
        .as_bytes()
        .first()
        .map_or(0, |&b| STARTS_BY_FIRST[usize::from(b)]);
    std::iter::from_fn(move || {
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if w.starts_with(STARTS[i]) {
                return Some(i);
            }
        }
        None
    })
}

/// Returns whether a text starts like a token of a known format (a cheap pre-check: it runs
/// at every position of a long word).
fn starts_token_format(w: &str) -> bool {
    starts_of(w).next().is_some()
}

/// Returns whether a word is a token of a known format.
pub fn is_known_token(w: &str) -> bool {
    let w = w.trim_end_matches(['.', '=']);
    if w.len() < 12 {
        return false;
    }
    for i in starts_of(w) {
        if let Some((prefix, allowed, least)) = PREFIXED.get(i)
            && count_while(&w[prefix.len()..], allowed) >= *least
        {
            return true;
        }
    }
    // OpenAI's older keys: `sk-` and 20+ random characters.
    if let Some(rest) = w.strip_prefix("sk-") {
        let n = count_while(rest, alnum_dash);
        if n >= 20 && looks_random(&rest[..n]) {
            return true;
        }
    }
    // SendGrid: SG.<22>.<43>
    if let Some(rest) = w.strip_prefix("SG.")
        && rest.len() >= 60
        && rest.contains('.')
    {
        return true;
    }
    // JWT (three parts) and JWE (five parts), base64url each.
    if w.starts_with("eyJ") {
        let parts: Vec<&str> = w.split('.').collect();
        if (parts.len() == 3 || parts.len() == 5)
            && parts[1].len() >= 8
            && parts
                .iter()
                .all(|p| p.bytes().all(|b| alnum(b) || b == b'_' || b == b'-'))
        {
            return true;
        }
    }
    // Every webhook host below holds `hook`: one search rules out almost every path and URL.
    w.contains('/')
        && w.contains("hook")
        && [
            "hooks.slack.com/services/",
            "hooks.slack.com/workflows/",
            "discord.com/api/webhooks/",
            "discordapp.com/api/webhooks/",
            "webhook.office.com/webhookb2/",
        ]
        .iter()
        .any(|h| w.find(h).is_some_and(|at| w.len() >= at + h.len() + 8))
}

/// Returns the end of a value starting at `start`: the closing quote when it opens with one,
/// else the first whitespace or shell/JSON separator. Returns (value start, value end, resume).
fn value_span(bytes: &[u8], start: usize, stops: &[u8]) -> (usize, usize, usize) {
    let quote = bytes
        .get(start)
        .copied()
        .filter(|q| matches!(q, b'"' | b'\''));
    let vstart = if quote.is_some() { start + 1 } else { start };
    let mut k = vstart;
    while k < bytes.len() {
        let c = bytes[k];
        match quote {
            Some(q) if c == q => break,
            Some(_) if c == b'\\' => k += 1,
            Some(_) => {}
            None if c.is_ascii_whitespace() || stops.contains(&c) => break,
            None => {}
        }
        k += 1;
    }
    let k = k.min(bytes.len());
    (vstart, k, k)
}

/// Whether a value should be masked (not empty, not a variable, not already masked).
fn maskable(value: &str) -> bool {
    !value.is_empty() && value != MASK && !value.starts_with('$') && !value.starts_with(MASK)
}

/// Masks the value after a secret flag given with a space (`--password hunter2`,
/// `--token 'x y'`), curl's `-u user:pass`, and `aws_secret_access_key VALUE` when VALUE is
/// random-looking.
fn redact_flag_values(s: &str) -> Option<String> {
    const STOPS: &[u8] = b"\"'`;&|)";
    let bytes = s.as_bytes();
    let mut out = Masked::new(s);
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'"' | b'\'');
        if !at_word_start || !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-') {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len()
            && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'_' | b'-'))
        {
            j += 1;
        }
        let name = &s[i..j];
        let mut k = j;
        while k < bytes.len() && matches!(bytes[k], b' ' | b'\t') {
            k += 1;
        }
        if k == j || k >= bytes.len() {
            i = j.max(i + 1);
            continue;
        }
        let is_flag = name.starts_with('-') && name.len() >= 3;
        let (vstart, vend, resume) = value_span(bytes, k, STOPS);
        let value = &s[vstart..vend];
        let mask = if name == "-u" || name == "--user" {
            // curl -u user:password
            match value.find(':') {
                Some(colon)
                    if colon > 0
                        && value[..colon]
                            .bytes()
                            .all(|b| alnum(b) || matches!(b, b'.' | b'_' | b'-' | b'@'))
                        && !value[colon + 1..].bytes().all(|b| b.is_ascii_digit())
                        && maskable(&value[colon + 1..]) =>
                {
                    Some(vstart + colon + 1)
                }
                _ => None,
            }
        } else {
            let secret_flag =
                is_flag && is_secret_name(name) && maskable(value) && !value.starts_with('-');
            let secret_word =
                !is_flag && name.contains('_') && is_secret_name(name) && looks_random(value);
            (secret_flag || secret_word).then_some(vstart)
        };
        match mask {
            Some(from) => {
                out.replace(from, vend, MASK);
                i = resume.max(i + 1);
            }
            None => i = j.max(i + 1),
        }
    }
    out.finish()
}

/// Masks the value of `NAME=value`, `NAME = value`, `NAME: value`, `"NAME": "value"` and the
/// password of `scheme://user:pass@host`.
fn redact_assignments(s: &str) -> Option<String> {
    const STOPS: &[u8] = b"\"'`;&|,})";
    let bytes = s.as_bytes();
    let mut out = Masked::new(s);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'=' && b != b':' {
            i += 1;
            continue;
        }
        // Comparisons and arrows are not assignments: `==`, `!=`, `<=`, `>=`, `=~`, `=>`.
        if b == b'='
            && (matches!(bytes.get(i + 1), Some(b'=' | b'~' | b'>'))
                || (i > 0 && matches!(bytes[i - 1], b'=' | b'!' | b'<' | b'>')))
        {
            i += 1;
            continue;
        }
        // URL credentials: scheme://user:pass@host
        if b == b':' {
            let mut u = i;
            while u > 0 && !matches!(bytes[u - 1], b'/' | b' ' | b'\n' | b'@' | b'"' | b'\'') {
                u -= 1;
            }
            if bytes[..u].ends_with(b"://")
                && let Some(at) = s[i + 1..]
                    .bytes()
                    .take(256)
                    .take_while(|c| !matches!(c, b'/' | b' ' | b'\n' | b'"' | b'\''))
                    .position(|c| c == b'@')
            {
                let pass = &s[i + 1..i + 1 + at];
                if maskable(pass) {
                    out.replace(i + 1, i + 1 + at, MASK);
                    i = i + 1 + at;
                    continue;
                }
            }
        }
        // Name: identifier characters (after optional quotes and spaces) right before `=`/`:`.
        let mut j = i;
        while j > 0 && matches!(bytes[j - 1], b' ' | b'\t') && i - j < 4 {
            j -= 1;
        }
        let spaced = j < i;
        while j > 0 && matches!(bytes[j - 1], b'"' | b'\'') && i - j < 8 {
            j -= 1;
        }
        let name_end = j;
        while j > 0
            && name_end - j < 128
            && (bytes[j - 1].is_ascii_alphanumeric() || matches!(bytes[j - 1], b'_' | b'-' | b'.'))
        {
            j -= 1;
        }
        let name = &s[j..name_end];
        if !name.is_empty() && is_secret_name(name) {
            let mut k = i + 1;
            if b == b':' || spaced {
                while k < bytes.len() && matches!(bytes[k], b' ' | b'\t') {
                    k += 1;
                }
            }
            let (vstart, vend, resume) = value_span(bytes, k, STOPS);
            let value = &s[vstart..vend];
            // `secret = compute(x)` in code is not a secret; `password = hunter2` in an ini
            // file is: a spaced, unquoted value must not look like an expression.
            let expression = spaced
                && b == b'='
                && vstart == k
                && value
                    .bytes()
                    .any(|c| matches!(c, b'(' | b'[' | b'{' | b'<'));
            if maskable(value) && !expression {
                out.replace(vstart, vend, MASK);
                i = resume.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_prefix_is_found_by_its_first_byte() {
        for (i, p) in STARTS.iter().enumerate() {
            let word = format!("{p}0123456789");
            assert!(starts_of(&word).any(|k| k == i), "{p}");
        }
        for word in ["", "/tmp/proj/t.jsonl", "echo", "target/debug", "ghx_", "s"] {
            assert!(!starts_token_format(word), "{word}");
        }
    }

    #[test]
    fn every_secret_word_and_suffix_has_a_stem() {
        // `is_secret_name` returns early for names without a stem.
        for w in SECRET_WORDS
            .iter()
            .chain(&["_pass", "-pass", "_pwd", "_key", "-key"])
        {
            assert!(has_secret_stem(w.as_bytes()), "{w}");
        }
        assert!(!has_secret_stem(b"--bin"));
    }
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
    fn every_token_format_starts_with_a_listed_letter() {
        for (p, _, _) in PREFIXED {
            assert!(starts_token_format(&format!("{p}x")), "{p}");
        }
        for p in ["sk-", "SG.", "eyJ"] {
            assert!(starts_token_format(p), "{p}");
        }
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
                "`export API_KEY=abc123`, x",
                "`export API_KEY=[REDACTED]`, x",
            ),
            (
                "https://user:s3cret@example.com/x",
                "https://user:[REDACTED]@example.com/x",
            ),
            (
                "t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "t=[REDACTED]",
            ),
            (
                "mysql --password hunter2 -u root",
                "mysql --password [REDACTED] -u root",
            ),
            ("login --token 'a b c' x", "login --token '[REDACTED]' x"),
            (
                "curl -u admin:pa55word https://x",
                "curl -u admin:[REDACTED] https://x",
            ),
            (
                "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws configure set aws_secret_access_key [REDACTED]",
            ),
            ("db_password = 'x y z'", "db_password = '[REDACTED]'"),
            (
                "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc/def+ghi==;EndpointSuffix=core.windows.net",
                "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=[REDACTED];EndpointSuffix=core.windows.net",
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
        let s = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n";
        assert_eq!(redact_str(s), "[REDACTED private key]");
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(redact_str(cert), cert);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for s in [
            "ls -la",
            "git push --force origin main",
            "cargo test -- --nocapture",
            "key: value",
            "x=1",
            "grep -rn token src/ | head",
            "git show 3f786850e387550fdab836ed7e6dc881de23001b",
            "id 123e4567-e89b-12d3-a456-426614174000",
            "echo aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBzZWNyZXQ= | base64 -d",
            "docker run -p 8080:80 -u 1000:1000 img",
            "max_tokens=4096 token_type=Bearer",
            "if [ \"$token\" == \"$expected\" ]; then",
            "export GITHUB_TOKEN=$(gh auth token)",
            "cd $PWD && make",
            "pip install scikit-learn",
            "ssh user@host.example.com",
            "https://example.com:8443/path@v1",
            "date -u +%Y-%m-%dT%H:%M:%SZ",
            "let secret_key = is_secret_name(k);",
            "/// Masks `-----BEGIN … PRIVATE KEY-----` blocks up to their END line",
            "const HOOKS: &str = \"hooks.slack.com/services/\";",
        ] {
            assert_eq!(redact_str(s), s, "{s}");
        }
    }

    #[test]
    fn any_text_is_safe_to_slice() {
        for s in [
            "éé:abcdefgh@x",
            "ééé://é:é@é",
            "€€=€€€€ password=€",
            "a-----BEGIN é",
        ] {
            let _ = redact_str(s);
        }
    }

    #[test]
    fn multibyte_text_before_a_colon_does_not_panic() {
        for s in ["\u{16f3b}:x=1 password:abc", "é:é@x", "ab€:pass@host"] {
            let _ = redact_str(s);
        }
    }

    #[test]
    fn escapes_never_hide_a_token() {
        let t = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        for text in [
            format!("A\u{1b} {t}"),
            format!("x \u{1b}] {t}"),
            format!("\u{1b}[1m{t}\u{1b}[0m"),
            // Between two tokens, or after a charset selection.
            format!("\u{1b}{t}\u{1b}[1m{t}"),
            format!("x\u{1b}(B\u{1b}[m{t}"),
            format!("\u{1b}(B{t} and \u{1b})0{t}"),
        ] {
            let out = redact_str(&text);
            assert!(!out.contains("0123456789abcdefghij"), "{text:?} -> {out:?}");
        }
    }

    #[test]
    fn json_keys_and_values() {
        let mut v = json!({"password": "p", "nested": {"authToken": "zzz", "pin_secret": 1234}, "cmd": "TOKEN=abc123 run", "n": 1, "max_tokens": 5});
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({"password": MASK, "nested": {"authToken": MASK, "pin_secret": MASK}, "cmd": "TOKEN=[REDACTED] run", "n": 1, "max_tokens": 5})
        );
        let mut k = json!({"ghp_0123456789abcdefghijABCDEFGHIJ012345": 1});
        assert!(redact_value(&mut k));
        assert_eq!(k, json!({MASK: 1}));
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_and_keeps_no_known_token(
            parts in proptest::collection::vec(
                prop_oneof![
                    "[ -~]{0,12}",
                    "[=:@/\"' é€-]{0,4}",
                    Just(" ghp_0123456789abcdefghijABCDEFGHIJ012345".to_owned()),
                    Just("password=".to_owned()),
                    Just("https://u:".to_owned()),
                    Just("-----BEGIN RSA PRIVATE KEY-----".to_owned()),
                    Just("--token ".to_owned()),
                    ".{0,6}",
                ],
                0..12,
            )
        ) {
            let s = parts.concat();
            let out = redact_str(&s);
            prop_assert!(!out.contains("ghp_0123456789abcdefghijABCDEFGHIJ012345"));
        }

    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// The pre-check that lets a text skip the name-based passes never skips a text they
        /// would mask: names with and without a stem, next to values, flags and URLs.
        #[test]
        fn texts_without_a_secret_name_need_no_name_based_pass(
            parts in proptest::collection::vec(
                prop_oneof![
                    3 => "(|[A-Za-z]{1,3}[_-])(PASS|pass|Pwd|SECRET|sig|TOKEN|KEY|key|credential|cookie|auth|AUTHORIZATION|pas|tokn|ke|au|cred)(|word|wd|phrase|[_-][A-Za-z]{1,3})",
                    3 => "(=|: |=\"| | -|\": \")[a-zA-Z0-9_:]{6,20}",
                    2 => "[ -~]{0,8}",
                    1 => "(-u |--user |https://|-p|x@y)",
                ],
                1..6,
            )
        ) {
            let s = parts.concat();
            if !may_name_secret(&s) {
                prop_assert_eq!(redact_flag_values(&s), None, "{}", s);
                prop_assert_eq!(redact_assignments(&s), None, "{}", s);
            }
        }
    }

    /// One text per kind of name the name-based passes mask: each is masked by them, and
    /// the pre-check lets each through.
    #[test]
    fn the_name_pre_check_finds_every_name_rule() {
        for text in [
            "DB_PASSWORD=hunter22",
            "pass: hunter22",
            "export MY_PWD=x1",
            "pwd_hash=abc",
            "aws_secret_access_key AKIA0123456789ABCDEF0",
            "--sig abcdefgh",
            "GITHUB_TOKEN=abc",
            "STRIPE_KEY=abc",
            "credentials: x",
            "set-cookie: a=b",
            "Authorization: Basic x",
            "auth=abc",
            "curl -u user:pw",
            "https://user:pw@host",
        ] {
            assert!(
                redact_flag_values(text).is_some() || redact_assignments(text).is_some(),
                "not masked by the name-based passes: {text}"
            );
            assert!(may_name_secret(text), "{text}");
        }
        for text in [
            "cargo build --release",
            "ls -la src",
            "git log --oneline -5",
        ] {
            assert!(!may_name_secret(text), "{text}");
        }
    }
}
