//! The redaction engine: the pre-checks and the passes that mask private-key blocks, tokens,
//! command-line passwords, secret flag values and assignments, and random values assigned to
//! any name, each building its output only once it masks something.

use std::borrow::Cow;

use super::MASK;
use super::names::{is_jwk_private_member, is_secret_name};
use super::options::redact_options;
use super::random::is_random_value;
use super::tokens::{alnum, is_token_byte, looks_random, starts_token_format_at, token_at};

/// Redacts a text the escape handling of [`super::redact_str`] has prepared; borrows when
/// nothing was found.
pub(super) fn redact_plain(s: &str) -> Cow<'_, str> {
    if !might_hold_secret(s) {
        return Cow::Borrowed(s);
    }
    // Each pass returns a new text only when it masked something. The name-based passes mask
    // values named by a secret-looking name (or a URL's or `-u`'s password): a text holding no
    // such name skips them.
    let named = may_name_secret(s);
    let mut text = Cow::Borrowed(s);
    let mut run = |pass: fn(&str) -> Option<String>| {
        if let Some(t) = pass(&text) {
            text = Cow::Owned(t);
        }
    };
    run(redact_private_keys);
    run(redact_tokens);
    if s.contains(" -") {
        run(redact_options);
    }
    if named {
        run(redact_flag_values);
        run(redact_assignments);
    }
    run(redact_random_values);
    match text {
        Cow::Owned(t) if t == s => Cow::Borrowed(s),
        other => other,
    }
}

/// Output built only once a pass masks something: the text up to `last` is copied then.
pub(super) struct Masked<'a> {
    src: &'a str,
    out: Option<String>,
    last: usize,
}

impl<'a> Masked<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        Self {
            src,
            out: None,
            last: 0,
        }
    }

    /// Keeps the text up to `from`, writes `with` instead of `from..to`, and goes on at `to`.
    /// A span that starts inside one already replaced is ignored.
    pub(super) fn replace(&mut self, from: usize, to: usize, with: &str) {
        if from < self.last {
            return;
        }
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.src.len()));
        out.push_str(&self.src[self.last..from]);
        out.push_str(with);
        self.last = to;
    }

    pub(super) fn finish(self) -> Option<String> {
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
/// `token`, `key`, `credential`, `cookie` or `auth`), a JWK (`kty`), a `-u` flag, or a URL
/// (`://`). One
/// pass over the bytes; the masking passes cost several. A property test holds the two
/// passes to it.
pub(super) fn may_name_secret(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).any(|i| {
        let starts = |stem: &[u8]| {
            b.len() - i >= stem.len() && b[i..i + stem.len()].eq_ignore_ascii_case(stem)
        };
        match b[i].to_ascii_lowercase() {
            b'p' => starts(b"pass") || starts(b"pwd"),
            b's' => starts(b"secret") || starts(b"sig"),
            b't' => starts(b"token"),
            b'k' => starts(b"key") || starts(b"kty"),
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

/// Finds token-shaped words and masks those of a known format (from where the token starts to
/// the end of the word, or of the token when it goes on past the word, as a Telegram token's
/// colon does), and credentials following `Bearer`, `Basic`, `token` or `bot`.
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
        let found = if after_scheme {
            Some((ws, i))
        } else if let Some((n, _)) = token_at(&s[ws..]) {
            Some((ws, ws + n))
        } else {
            // A token inside a longer word: `name=TOKEN`, `path/TOKEN`, or glued to what an
            // escape sequence left before it (`1mghp_…`, `Bghp_…`, `bot123:AA…`). Short words
            // only: a token is, and a long blob must not cost a scan per position.
            word.bytes()
                .enumerate()
                .skip(1)
                .filter(|&(k, b)| {
                    matches!(b, b'=' | b'/')
                        || (13..=512).contains(&word.len()) && starts_token_format_at(word, k)
                })
                .map(|(k, b)| if matches!(b, b'=' | b'/') { k + 1 } else { k })
                .find_map(|k| token_at(&s[ws + k..]).map(|(n, _)| (ws + k, ws + k + n)))
        };
        if let Some((from, end)) = found {
            // The rest of the word goes with the token (a longer variant of its format is still
            // a secret), but not a sentence's closing period.
            let word_end = ws + word.trim_end_matches('.').len();
            let end = end.max(word_end);
            out.replace(from, end, MASK);
            i = i.max(end);
            prev = "";
            continue;
        }
        prev = if word.len() <= 16 { word } else { "" };
    }
    out.finish()
}

/// Returns the end of a value starting at `start`: the closing quote when it opens with one
/// (or with an escaped one, `\"`, in JSON text), else the first whitespace, shell/JSON
/// separator or escape sequence that ends a line or a string (`\n`, `\"`). Returns (value
/// start, value end, resume).
fn value_span(bytes: &[u8], start: usize, stops: &[u8]) -> (usize, usize, usize) {
    let escaped_quote = bytes.get(start) == Some(&b'\\') && bytes.get(start + 1) == Some(&b'"');
    let quote = if escaped_quote {
        Some(b'"')
    } else {
        bytes
            .get(start)
            .copied()
            .filter(|q| matches!(q, b'"' | b'\''))
    };
    let vstart = start + usize::from(quote.is_some()) + usize::from(escaped_quote);
    let mut k = vstart;
    while k < bytes.len() {
        let c = bytes[k];
        match quote {
            Some(q) if escaped_quote && c == b'\\' && bytes.get(k + 1) == Some(&q) => break,
            Some(q) if !escaped_quote && c == q => break,
            Some(_) if c == b'\\' => k += 1,
            Some(_) => {}
            None if c.is_ascii_whitespace() || stops.contains(&c) => break,
            None if c == b'\\' => {
                // JSON text: `\n`, `\"`, `\t` end the value; `\\` and `\u…` are part of it.
                if matches!(bytes.get(k + 1), Some(b'n' | b'r' | b't' | b'"' | b'\'')) {
                    break;
                }
                k += 1;
            }
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

/// An assignment found at a `=` or `:`: its name and value.
struct Assignment<'a> {
    name: &'a str,
    /// Whether the name was in quotes (`"d": …`).
    quoted: bool,
    vstart: usize,
    vend: usize,
    resume: usize,
    /// A spaced, unquoted value that looks like an expression (`secret = compute(x)`).
    expression: bool,
}

/// Returns whether the `=` at `i` is a comparison or an arrow (`==`, `!=`, `<=`, `>=`, `=~`,
/// `=>`), not an assignment.
fn is_comparison(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'='
        && (matches!(bytes.get(i + 1), Some(b'=' | b'~' | b'>'))
            || (i > 0 && matches!(bytes[i - 1], b'=' | b'!' | b'<' | b'>')))
}

/// Reads the assignment whose `=` or `:` is at `i`: the name is the identifier characters
/// (after optional quotes, escaped quotes and spaces) right before it, the value what follows
/// (after spaces, for `:` and spaced `=`). `None` when no name stands there.
fn assignment_at(s: &str, i: usize) -> Option<Assignment<'_>> {
    const STOPS: &[u8] = b"\"'`;&|,})";
    let bytes = s.as_bytes();
    let b = bytes[i];
    let mut j = i;
    while j > 0 && matches!(bytes[j - 1], b' ' | b'\t') && i - j < 4 {
        j -= 1;
    }
    let spaced = j < i;
    let before_quotes = j;
    while j > 0 && matches!(bytes[j - 1], b'"' | b'\'' | b'\\') && i - j < 8 {
        j -= 1;
    }
    let quoted = j < before_quotes;
    let name_end = j;
    while j > 0
        && name_end - j < 128
        && (bytes[j - 1].is_ascii_alphanumeric() || matches!(bytes[j - 1], b'_' | b'-' | b'.'))
    {
        j -= 1;
    }
    if j == name_end {
        return None;
    }
    let mut k = i + 1;
    if b == b':' || spaced {
        while k < bytes.len() && matches!(bytes[k], b' ' | b'\t') {
            k += 1;
        }
    }
    let (vstart, vend, resume) = value_span(bytes, k, STOPS);
    // `secret = compute(x)` in code is not a secret; `password = hunter2` in an ini file is: a
    // spaced, unquoted value must not look like an expression.
    let expression = spaced
        && b == b'='
        && vstart == k
        && bytes[vstart..vend]
            .iter()
            .any(|c| matches!(c, b'(' | b'[' | b'{' | b'<'));
    Some(Assignment {
        name: &s[j..name_end],
        quoted,
        vstart,
        vend,
        resume,
        expression,
    })
}

/// Masks the value of `NAME=value`, `NAME = value`, `NAME: value`, `"NAME": "value"` (also
/// JSON escaped in a string, `\"NAME\":\"value\"`), the private members of a JWK (`"d"`, `"p"`,
/// … in a text holding `kty`) and the password of `scheme://user:pass@host`.
fn redact_assignments(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let jwk = s.contains("kty");
    let mut out = Masked::new(s);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b != b'=' && b != b':') || is_comparison(bytes, i) {
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
        if let Some(a) = assignment_at(s, i)
            && (is_secret_name(a.name) || (jwk && a.quoted && is_jwk_private_member(a.name)))
            && maskable(&s[a.vstart..a.vend])
            && !a.expression
        {
            out.replace(a.vstart, a.vend, MASK);
            i = a.resume.max(i + 1);
            continue;
        }
        i += 1;
    }
    out.finish()
}

/// Masks random-looking values assigned to any name (`FOO=9f8Kq…`, `"x": "…"`): long, of
/// base64 bytes, with letters and digits, high entropy; not hex digests, UUIDs, paths, ids or
/// integrity hashes (see [`is_random_value`]).
fn redact_random_values(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Masked::new(s);
    let mut i = 0;
    while i < bytes.len() {
        let Some(found) = memchr::memchr2(b'=', b':', &bytes[i..]) else {
            break;
        };
        i += found;
        if is_comparison(bytes, i) {
            i += 1;
            continue;
        }
        if let Some(a) = assignment_at(s, i) {
            let value = &s[a.vstart..a.vend];
            if maskable(value) && !a.expression && is_random_value(a.name, value) {
                out.replace(a.vstart, a.vend, MASK);
                i = a.resume.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
    out.finish()
}

#[cfg(test)]
mod proptests {
    use super::super::redact_str;
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
