//! Error signatures and action keys: what makes two failures "the same error" and two calls
//! "the same action".
//!
//! An error is normalised before it is hashed: ANSI codes are stripped, whitespace collapsed,
//! temp paths, UUIDs, hex ids, random-looking ids and numbers (so also timestamps, durations,
//! pids, line/column positions and the digits of names such as `worker3`) are replaced by
//! placeholders. Error codes such as `E0308` or `TS2322` (upper-case letters then digits),
//! which name an error rather than an instance of it, are kept. Claude Code's
//! middle-truncation marker `... [N characters truncated] ...` becomes constant once its
//! number is replaced. The hash is the first 8 hex characters of SHA-256 over the tool name
//! and the normalised text.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::redact;

/// Longest error text kept in an attempt; longer texts keep their head and tail.
pub const MAX_ERROR_CHARS: usize = 2000;
/// Longest input summary kept in an attempt.
pub const MAX_SUMMARY_CHARS: usize = 200;
/// Longest headline (the "first line" of an error shown to people and the model).
pub const MAX_HEADLINE_CHARS: usize = 160;

pub use crate::redact::strip_ansi;

/// Temp directory prefixes and how many path components after each are random.
const TEMP_PREFIXES: &[(&str, usize)] = &[
    ("/private/var/folders/", 4),
    ("/var/folders/", 4),
    ("/private/tmp/", 1),
    ("/var/tmp/", 1),
    ("/dev/shm/", 1),
    ("/tmp/", 1),
];

fn ends_path(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '/' | ':' | '"' | '\'' | '`' | ',' | ';' | ')' | ']' | '}' | '>' | '(' | '['
        )
}

fn inside_path(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '~' | '/')
}

/// Returns the byte length of a temp path prefix plus its random components at the start of
/// `s`, if `s` starts with one.
fn temp_path_len(s: &str) -> Option<usize> {
    let (prefix, components) = TEMP_PREFIXES.iter().find(|(p, _)| s.starts_with(p))?;
    let mut i = prefix.len();
    for n in 0..*components {
        let rest = &s[i..];
        let len = rest.find(ends_path).unwrap_or(rest.len());
        i += len;
        if n + 1 < *components && s[i..].starts_with('/') {
            i += 1;
        } else {
            break;
        }
    }
    Some(i)
}

fn is_uuid_at(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 36 {
        return false;
    }
    let ok = b[..36].iter().enumerate().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => *c == b'-',
        _ => c.is_ascii_hexdigit(),
    });
    ok && !b.get(36).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Replaces one word (a run of ASCII letters and digits) by its placeholder when it is an
/// instance value rather than part of the message.
fn normalize_word(w: &str, out: &mut String) {
    let has_digit = w.bytes().any(|b| b.is_ascii_digit());
    if !has_digit {
        out.push_str(w);
        return;
    }
    if w.len() > 2
        && (w.starts_with("0x") || w.starts_with("0X"))
        && w[2..].bytes().all(|b| b.is_ascii_hexdigit())
    {
        out.push_str("0xH");
        return;
    }
    let lower_hex = w
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let upper_hex = w
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b));
    let has_letter = w.bytes().any(|b| b.is_ascii_alphabetic());
    if has_letter && ((lower_hex && w.len() >= 4) || (upper_hex && w.len() >= 8)) {
        out.push('H');
        return;
    }
    let starts_with_letter = w.as_bytes()[0].is_ascii_alphabetic();
    if starts_with_letter {
        let digit_runs = w
            .as_bytes()
            .windows(2)
            .filter(|p| !p[0].is_ascii_digit() && p[1].is_ascii_digit())
            .count();
        let digits = w.bytes().filter(u8::is_ascii_digit).count();
        if w.starts_with("tmp") && w.len() >= 8 {
            out.push_str("<tmp>");
        } else if (digit_runs >= 2 && w.len() >= 6) || (w.len() >= 16 && digits >= 4) {
            out.push_str("<id>");
        } else if is_error_code(w) {
            // An error code such as E0308, TS2322 or SC2086 names the error: kept.
            out.push_str(w);
        } else {
            // worker3, node18, sha256: the number is an instance detail.
            replace_digit_runs(w, out);
        }
        return;
    }
    // Starts with a digit: numbers, durations (`15ms`), timestamp pieces (`01T10`).
    replace_digit_runs(w, out);
}

/// Returns whether a word is an error code: upper-case letters then digits only.
fn is_error_code(w: &str) -> bool {
    let letters = w.bytes().take_while(u8::is_ascii_uppercase).count();
    letters > 0 && letters < w.len() && w.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

/// Writes a word with each run of digits replaced by `N`.
fn replace_digit_runs(w: &str, out: &mut String) {
    let mut in_digits = false;
    for c in w.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
}

/// Returns the normalised form of an error text (see the module documentation).
pub fn normalize_error(error: &str) -> String {
    let text = strip_ansi(error);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut prev: Option<char> = None;
    let mut pending_space = false;
    while i < text.len() {
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            i += c.len_utf8();
            prev = Some(c);
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        let at_boundary = !prev.is_some_and(inside_path);
        if c == '/'
            && at_boundary
            && let Some(len) = temp_path_len(rest)
        {
            out.push_str("<tmp>");
            i += len;
            prev = Some('>');
            continue;
        }
        if c.is_ascii_alphanumeric() {
            let after_word = !prev.is_some_and(|p| p.is_ascii_alphanumeric());
            if after_word && is_uuid_at(rest) {
                out.push_str("<uuid>");
                i += 36;
                prev = Some('>');
                continue;
            }
            let len = rest
                .find(|ch: char| !ch.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            normalize_word(&rest[..len], &mut out);
            prev = rest[..len].chars().last();
            i += len;
            continue;
        }
        out.push(c);
        prev = Some(c);
        i += c.len_utf8();
    }
    out
}

/// Returns the 8-hex-character hash of an error of a tool.
pub fn error_hash(tool: &str, normalized_error: &str) -> String {
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0u8]);
    h.update(normalized_error.as_bytes());
    hex(&h.finalize()[..4])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Collapses runs of whitespace into one space and trims.
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Input fields that describe a call without changing what it does.
const COSMETIC_KEYS: &[&str] = &["description"];

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (n, k) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        // A string this long is known by its audit form: a PreToolUse reads it no other way
        // (`protocol::stream`), and the action key of the call must be the key of its failure.
        Value::String(s) if s.len() >= crate::protocol::stream::DIGEST_MIN_BYTES => {
            out.push_str(&Value::String(crate::audit::truncate_with_digest(s)).to_string());
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Returns the normalised text of an action: for shells the command with whitespace
/// collapsed, for other tools the input with sorted keys and without cosmetic fields.
pub fn action_text(tool: &str, input: &Value) -> String {
    if matches!(tool, "Bash" | "PowerShell")
        && let Some(cmd) = input.get("command").and_then(Value::as_str)
    {
        return collapse_whitespace(cmd);
    }
    let mut out = String::new();
    match input {
        Value::Object(m) => {
            let mut m = m.clone();
            for k in COSMETIC_KEYS {
                m.remove(*k);
            }
            canonical(&Value::Object(m), &mut out);
        }
        other => canonical(other, &mut out),
    }
    out
}

/// Returns the key of an action (tool + normalised input): 16 hex characters of SHA-256.
pub fn action_key(tool: &str, input: &Value) -> String {
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0u8]);
    h.update(action_text(tool, input).as_bytes());
    hex(&h.finalize()[..8])
}

/// Cuts a text to `max` characters, marking the cut with an ellipsis.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Bounds an error text for storage: redacted, ANSI stripped, and when long its head and
/// tail kept around a marker.
pub fn bounded_error(error: &str) -> String {
    let text = strip_ansi(&redact::redact_str(error));
    let n = text.chars().count();
    if n <= MAX_ERROR_CHARS {
        return text;
    }
    let head_len = MAX_ERROR_CHARS * 7 / 10;
    let tail_len = MAX_ERROR_CHARS - head_len - 60;
    let head: String = text.chars().take(head_len).collect();
    let tail: String = text.chars().skip(n - tail_len).collect();
    format!(
        "{head}\n[... {} characters cut by oath ...]\n{tail}",
        n - head_len - tail_len
    )
}

/// Lines that say what went wrong, searched for the headline.
const SIGNAL_WORDS: &[&str] = &[
    "error",
    "fail",
    "panic",
    "exception",
    "not found",
    "no such",
    "denied",
    "cannot",
    "can't",
    "unable",
    "invalid",
    "refused",
    "timed out",
    "fatal",
    "err!",
    "missing",
    "unknown",
    "undefined",
    "unexpected",
    "traceback",
    "assert",
    "abort",
    "killed",
    "segmentation",
];

/// Returns the line of an error that says what went wrong, with the exit code when there is
/// one (`Exit code 1: npm ERR! missing script: tset`).
pub fn headline(error: &str) -> String {
    let text = strip_ansi(error);
    let mut exit_code: Option<&str> = None;
    let mut first: Option<&str> = None;
    let mut signal: Option<&str> = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if exit_code.is_none()
            && first.is_none()
            && line.starts_with("Exit code")
            && line["Exit code".len()..].trim().parse::<i64>().is_ok()
        {
            exit_code = Some(line);
            continue;
        }
        if first.is_none() {
            first = Some(line);
        }
        let lower = line.to_ascii_lowercase();
        if SIGNAL_WORDS.iter().any(|w| lower.contains(w)) {
            signal = Some(line);
            break;
        }
    }
    let line = signal.or(first);
    let text = match (exit_code, line) {
        (Some(code), Some(line)) => format!("{code}: {line}"),
        (Some(code), None) => code.to_owned(),
        (None, Some(line)) => line.to_owned(),
        (None, None) => "(no error text)".to_owned(),
    };
    cut(&collapse_whitespace(&text), MAX_HEADLINE_CHARS)
}

/// Returns a short, redacted summary of a tool input for people (never file contents).
pub fn input_summary(input: &Value, root: &std::path::Path) -> String {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let rel = |p: &str| -> String {
        match std::path::Path::new(p).strip_prefix(root) {
            Ok(r) if !r.as_os_str().is_empty() => r.display().to_string(),
            _ => p.to_owned(),
        }
    };
    let text = if let Some(cmd) = s("command") {
        collapse_whitespace(cmd)
    } else if let Some(path) = s("file_path").or(s("notebook_path")) {
        rel(path)
    } else if let Some(pattern) = s("pattern") {
        match s("path") {
            Some(p) => format!("{pattern} in {}", rel(p)),
            None => pattern.to_owned(),
        }
    } else if let Some(url) = s("url") {
        url.to_owned()
    } else if let Some(d) = s("description") {
        d.to_owned()
    } else {
        let mut out = String::new();
        canonical(input, &mut out);
        out
    };
    cut(&redact::redact_str(&text), MAX_SUMMARY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(a: &str, b: &str) -> bool {
        error_hash("Bash", &normalize_error(a)) == error_hash("Bash", &normalize_error(b))
    }

    #[test]
    fn instance_details_do_not_make_errors_different() {
        let cases = [
            // numbers, durations, pids
            (
                "Exit code 1\nFAILED after 123ms (pid 4242)",
                "Exit code 1\nFAILED after 9ms (pid 17)",
            ),
            // line and column positions
            (
                "src/main.rs:12:5: error: expected `;`",
                "src/main.rs:140:22: error: expected `;`",
            ),
            (
                "  --> src/lib.rs:3:9\nline 3, column 9",
                "  --> src/lib.rs:77:1\nline 77, column 1",
            ),
            // timestamps
            (
                "[2026-01-05T10:00:00.123Z] connection refused",
                "[2026-02-17T23:59:01.9Z] connection refused",
            ),
            ("at 10:00:01 server failed", "at 22:13:59 server failed"),
            // hex ids and addresses
            ("segfault at 0x7ffd1234abcd", "segfault at 0xdeadbeef"),
            ("object a1b2c3d4e5f6 missing", "object 0f9e8d7c6b5a missing"),
            (
                "request 550e8400-e29b-41d4-a716-446655440000 failed",
                "request 123e4567-e89b-12d3-a456-426614174000 failed",
            ),
            // temp paths
            (
                "cannot open /tmp/.tmpAb12Cd/out.txt: No such file",
                "cannot open /tmp/.tmpZz99Qq/out.txt: No such file",
            ),
            (
                "read /var/folders/x1/abc_def123/T/rustc9Xk/lib.rlib: denied",
                "read /var/folders/q7/zzz_yyy987/T/rustcAb3/lib.rlib: denied",
            ),
            ("wrote /tmp/tmp.Xy12AbCdEf", "wrote /tmp/tmp.Qq98ZzYyXx"),
            // whitespace and ANSI colour
            (
                "\u{1b}[31merror\u{1b}[0m: build   failed\r\n",
                "error: build failed",
            ),
            (
                "\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7} broke",
                "link broke",
            ),
            // Claude Code's middle truncation
            (
                "head ... [1234 characters truncated] ... tail",
                "head ... [99 characters truncated] ... tail",
            ),
            // numbers inside names
            ("worker3 died", "worker17 died"),
            // random ids
            ("session Xk3pQ9zL7w expired", "session Ab1cD2eF3g expired"),
        ];
        for (a, b) in cases {
            assert!(
                same(a, b),
                "{a:?} vs {b:?}: {:?} / {:?}",
                normalize_error(a),
                normalize_error(b)
            );
        }
    }

    #[test]
    fn different_errors_stay_different() {
        let cases = [
            (
                "error[E0308]: mismatched types",
                "error[E0425]: cannot find value",
            ),
            (
                "error[E0308]: mismatched types",
                "error[E0382]: mismatched types",
            ),
            (
                "TS2322: Type 'string' is not assignable",
                "TS2345: Type 'string' is not assignable",
            ),
            (
                "npm ERR! missing script: test",
                "npm ERR! missing script: build",
            ),
            ("cannot open /tmp/x/a.txt", "cannot open /home/u/a.txt"),
            ("No such file: src/a.rs", "No such file: src/b.rs"),
        ];
        for (a, b) in cases {
            assert!(
                !same(a, b),
                "{a:?} vs {b:?} normalise alike: {:?}",
                normalize_error(a)
            );
        }
        // The tool is part of the hash.
        let n = normalize_error("failed");
        assert_ne!(error_hash("Bash", &n), error_hash("Edit", &n));
    }

    #[test]
    fn normal_forms_are_readable() {
        let cases = [
            (
                "Exit code 2\nsrc/a.rs:10:4 boom",
                "Exit code N src/a.rs:N:N boom",
            ),
            ("at 0x1F and 7ff3c2a9", "at 0xH and H"),
            ("/tmp/abc/def.rs failed", "<tmp>/def.rs failed"),
            ("took 15ms", "took Nms"),
            ("E0308 TS2322 x86 sha256", "E0308 TS2322 xN shaN"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_error(input), want, "{input:?}");
        }
    }

    #[test]
    fn hash_is_eight_hex_characters_of_sha256() {
        let h = error_hash("Bash", "x");
        assert_eq!(h.len(), 8);
        assert!(
            h.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        let mut d = Sha256::new();
        d.update(b"Bash\0x");
        assert_eq!(h, hex(&d.finalize()[..4]));
    }

    #[test]
    fn action_keys_ignore_whitespace_order_and_descriptions() {
        let a = action_key(
            "Bash",
            &json!({"command": "npm  test\n", "description": "run tests"}),
        );
        let b = action_key("Bash", &json!({"command": "npm test", "timeout": 60000}));
        assert_eq!(a, b);
        assert_ne!(
            a,
            action_key("Bash", &json!({"command": "npm test --watch"}))
        );
        assert_ne!(a, action_key("PowerShell", &json!({"command": "npm test"})));
        let e1 = action_key(
            "Edit",
            &json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
        );
        let e2 = action_key(
            "Edit",
            &json!({"new_string": "y", "old_string": "x", "file_path": "a"}),
        );
        let e3 = action_key(
            "Edit",
            &json!({"file_path": "a", "old_string": "x", "new_string": "z"}),
        );
        assert_eq!(e1, e2);
        assert_ne!(e1, e3);
        assert_eq!(e1.len(), 16);
    }

    /// A string of 32 KiB or more is keyed by its audit form, which is all a PreToolUse keeps
    /// of it; two such strings differing anywhere are two actions.
    #[test]
    fn long_strings_are_keyed_by_their_audit_form() {
        let long = |c: &str| format!("{}{c}", "x".repeat(70_000));
        let key =
            |content: &str| action_key("Write", &json!({"file_path": "a", "content": content}));
        let a = long("a");
        assert_eq!(key(&a), key(&crate::audit::truncate_with_digest(&a)));
        assert_ne!(key(&a), key(&long("b")));
        let short = "y".repeat(30_000);
        assert_ne!(
            key(&short),
            key(&crate::audit::truncate_with_digest(&short))
        );
    }

    #[test]
    fn headlines_name_what_went_wrong() {
        let cases = [
            (
                "Exit code 1\n> app@1.0 test\nnpm ERR! missing script: tset\n",
                "Exit code 1: npm ERR! missing script: tset",
            ),
            (
                "Exit code 127\nbash: foo: command not found",
                "Exit code 127: bash: foo: command not found",
            ),
            (
                "File has not been read yet. Read it first before writing to it.",
                "File has not been read yet. Read it first before writing to it.",
            ),
            ("Exit code 3\nplain output", "Exit code 3: plain output"),
            ("Exit code 3", "Exit code 3"),
            ("", "(no error text)"),
            ("\u{1b}[31mboom\u{1b}[0m", "boom"),
        ];
        for (input, want) in cases {
            assert_eq!(headline(input), want, "{input:?}");
        }
        assert!(headline(&"x".repeat(500)).chars().count() <= MAX_HEADLINE_CHARS);
    }

    #[test]
    fn stored_errors_are_bounded_and_redacted() {
        let long = format!("start {} end", "y".repeat(10_000));
        let b = bounded_error(&long);
        assert!(b.chars().count() <= MAX_ERROR_CHARS + 10, "{}", b.len());
        assert!(b.starts_with("start ") && b.ends_with(" end"));
        assert!(b.contains("characters cut by oath"));
        let secret =
            bounded_error("Exit code 1\nexport API_KEY=sk-live-0123456789abcdefXYZ failed");
        assert!(!secret.contains("0123456789abcdef"), "{secret}");
    }

    #[test]
    fn summaries_are_short_relative_and_never_contents() {
        let root = std::path::Path::new("/r/p");
        assert_eq!(
            input_summary(
                &json!({"file_path": "/r/p/src/a.rs", "content": "secret stuff"}),
                root
            ),
            "src/a.rs"
        );
        assert_eq!(
            input_summary(&json!({"command": "ls   -la"}), root),
            "ls -la"
        );
        assert_eq!(
            input_summary(&json!({"pattern": "fn x", "path": "/r/p/src"}), root),
            "fn x in src"
        );
        assert!(
            input_summary(&json!({"command": "z".repeat(999)}), root)
                .chars()
                .count()
                <= MAX_SUMMARY_CHARS
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_normalises_without_panicking(s in "\\PC{0,200}") {
            let n = normalize_error(&s);
            let _ = headline(&s);
            let _ = bounded_error(&s);
            let has_escape = n.contains('\u{1b}');
            proptest::prop_assert!(!has_escape, "escape left in {:?}", n);
        }

        #[test]
        fn numbers_and_positions_never_change_the_hash(
            a in 0u64..1_000_000, b in 0u32..10_000, c in 0u32..500, addr in 1u64..u64::MAX,
        ) {
            let make = |a: u64, b: u32, c: u32, addr: u64| format!(
                "Exit code 1\nthread 'main' panicked at src/lib.rs:{b}:{c}: index out of bounds \
                 (pid {a}, at 0x{addr:x}, took {c}ms)"
            );
            proptest::prop_assert_eq!(
                error_hash("Bash", &normalize_error(&make(a, b, c, addr))),
                error_hash("Bash", &normalize_error(&make(7, 1, 1, 255)))
            );
        }
    }
}
