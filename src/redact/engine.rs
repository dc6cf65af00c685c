//! The redaction engine: the pre-checks and the passes that mask private-key blocks, tokens,
//! secret flag values and assignments, each building its output only once it masks something.

use std::borrow::Cow;

use super::MASK;
use super::names::is_secret_name;
use super::tokens::{alnum, is_known_token, is_token_byte, looks_random, starts_token_format};

/// Redacts a text the escape handling of [`super::redact_str`] has prepared; borrows when
/// nothing was found.
pub(super) fn redact_plain(s: &str) -> Cow<'_, str> {
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
