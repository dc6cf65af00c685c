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

/// Strings of an action at least this long are known by their audit form (head, size, digest).
const LONG_STRING_BYTES: usize = 32 * 1024;

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

/// Words after a number that make it a count or a measure (`3 passed`, `12 ms`, `2 previous
/// errors`): the number is an instance detail.
const MEASURE_WORDS: &[&str] = &[
    "ms",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hours",
    "us",
    "ns",
    "b",
    "bytes",
    "kb",
    "kib",
    "mb",
    "mib",
    "gb",
    "gib",
    "passed",
    "failed",
    "failing",
    "failures",
    "failure",
    "errors",
    "error",
    "warnings",
    "warning",
    "tests",
    "test",
    "ignored",
    "skipped",
    "deselected",
    "measured",
    "filtered",
    "pending",
    "suites",
    "suite",
    "previous",
    "more",
    "other",
    "others",
    "total",
    "files",
    "file",
    "lines",
    "items",
    "packages",
    "characters",
    "chars",
    "vulnerabilities",
    "retries",
    "attempts",
    "snapshots",
];

/// Words before a number that make it an instance detail (`pid 4242`, `line 12`).
const POSITION_WORDS: &[&str] = &[
    "pid", "process", "line", "lines", "ln", "column", "col", "offset", "byte", "position", "pos",
    "attempt", "after", "in", "took", "elapsed", "duration", "at", "char",
];

/// Returns the length of a date or clock time at the start of `s` (`2026-01-05T10:00:00.1Z`,
/// `10:00:01`, `2026-01-05`), if it starts with one.
fn time_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| {
        b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
    };
    let mut i;
    if digits(0, 4)
        && b.get(4) == Some(&b'-')
        && digits(5, 2)
        && b.get(7) == Some(&b'-')
        && digits(8, 2)
    {
        i = 10;
        if matches!(b.get(i), Some(b'T' | b' ')) && digits(i + 1, 2) && b.get(i + 3) == Some(&b':')
        {
            i += 1;
        } else {
            return Some(i);
        }
    } else {
        i = 0;
    }
    // hh:mm[:ss[.fff]][Z|±hh:mm]; after a date also `hh_mm_ss_fff` (file names).
    let dated = i > 0;
    let sep = |c: Option<&u8>| c == Some(&b':') || (dated && c == Some(&b'_'));
    let h = if digits(i, 2) {
        2
    } else if digits(i, 1) {
        1
    } else {
        return None;
    };
    if !sep(b.get(i + h)) || !digits(i + h + 1, 2) {
        return (i > 0).then_some(i);
    }
    i += h + 3;
    if sep(b.get(i)) && digits(i + 1, 2) {
        i += 3;
        if matches!(b.get(i), Some(b'.' | b',' | b'_')) && digits(i + 1, 1) {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    } else if i == h + 3 {
        // `12:34` alone is more likely a line and column than a time: not taken here.
        return None;
    }
    if b.get(i) == Some(&b'Z') {
        i += 1;
    } else if matches!(b.get(i), Some(b'+' | b'-')) && digits(i + 1, 2) {
        i += 3;
        if b.get(i) == Some(&b':') && digits(i + 1, 2) {
            i += 3;
        } else if digits(i, 2) {
            i += 2;
        }
    }
    if b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    Some(i)
}

/// Replaces one word (a run of ASCII letters and digits, with the decimals of a number) by
/// its placeholder when it is an instance value rather than part of the message. `before`
/// is the previous word (lower case) and `glued` whether a `:` joins it to this one
/// (`a.rs:12`); `after` the next word (lower case).
fn normalize_word(
    w: &str,
    before: &str,
    glued: bool,
    after_colon: bool,
    after: &str,
    out: &mut String,
) {
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
    if has_letter && ((lower_hex && w.len() >= 7) || (upper_hex && w.len() >= 8)) {
        out.push('H');
        return;
    }
    if w.as_bytes()[0].is_ascii_alphabetic() {
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
        } else {
            // E0308, TS2322, node18, test_api_v2, get2: the digits name something. Kept.
            out.push_str(w);
        }
        return;
    }
    // Starts with a digit: a number, with a unit glued on (`15ms`, `0.5s`) or not.
    let number_len = w
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (number, unit) = w.split_at(number_len);
    let unit_lower = unit.to_ascii_lowercase();
    let is_measure = |word: &str| MEASURE_WORDS.contains(&word);
    let instance = if !unit.is_empty() {
        is_measure(&unit_lower) || unit.bytes().any(|b| b.is_ascii_digit())
    } else {
        // Five digits and more: an id, a size or a count, but a port after a colon
        // (`:::39000`, `localhost:15432`) names the service.
        (number.len() >= 5 && !number.contains('.') && !after_colon)
            || number.contains('.') && !number.ends_with('.') && number.matches('.').count() == 1
            || (glued && !is_host(before))
            || is_measure(after)
            || POSITION_WORDS.contains(&before)
    };
    if instance {
        out.push('N');
        out.push_str(if unit.bytes().any(|b| b.is_ascii_digit()) {
            ""
        } else {
            unit
        });
    } else {
        out.push_str(w);
    }
}

/// Returns whether a word names a host (`localhost`, `127.0.0.1`): a number glued to it by
/// a colon is a port, not a line.
fn is_host(word: &str) -> bool {
    word == "localhost"
        || (word.matches('.').count() == 3 && word.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Returns the next word of `s` (lower case, letters only) after spaces, for context.
fn next_word(s: &str) -> String {
    s.trim_start_matches([' ', '\t'])
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .map(|b| b.to_ascii_lowercase() as char)
        .collect()
}

/// Returns the normalised form of one line (see the module documentation).
fn normalize_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // A source excerpt's line number in the gutter (`12 |`, `16 │`) moves with every edit.
    let mut i = gutter_len(text).map_or(0, |n| {
        out.push_str("N ");
        n
    });
    let mut prev: Option<char> = None;
    let mut pending_space = false;
    let mut before = String::new();
    let mut glued = false;
    while i < text.len() {
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            i += c.len_utf8();
            prev = Some(c);
            glued = false;
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
            if after_word
                && c.is_ascii_digit()
                && prev != Some(':')
                && let Some(len) = time_len(rest)
            {
                out.push_str("<time>");
                i += len;
                prev = Some('>');
                continue;
            }
            // A word; a number keeps its decimals (`0.52s`, `1.2.3`).
            let mut len = rest
                .find(|ch: char| !ch.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            if c.is_ascii_digit() {
                while rest[len..].starts_with('.')
                    && rest[len + 1..].starts_with(|ch: char| ch.is_ascii_digit())
                {
                    len += 1 + rest[len + 1..]
                        .find(|ch: char| !ch.is_ascii_alphanumeric())
                        .unwrap_or(rest.len() - len - 1);
                }
            }
            let word = &rest[..len];
            let after = next_word(&rest[len..]);
            normalize_word(
                word,
                &before,
                glued && after_word,
                prev == Some(':'),
                &after,
                &mut out,
            );
            before = word.to_ascii_lowercase();
            prev = word.chars().last();
            glued = false;
            i += len;
            continue;
        }
        // `a.rs:12:5`, `(pid:42)`: a number right after a colon glued to a word.
        glued = c == ':' && prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == ')');
        if !matches!(c, '#' | '=' | ':' | '(') {
            before.clear();
        }
        out.push(c);
        prev = Some(c);
        i += c.len_utf8();
    }
    // `error: could not compile x due to N previous errors; N warning emitted`: warnings
    // come and go with the edits around the error.
    for tail in ["; N warning emitted", "; N warnings emitted"] {
        if let Some(at) = out.find(tail) {
            out.replace_range(at..at + tail.len(), "");
        }
    }
    out
}

/// Returns the length of a line-number gutter at the start of a line (`  12 | `), if any.
fn gutter_len(line: &str) -> Option<usize> {
    let start = line.len() - line.trim_start().len();
    let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = &line[start + digits..];
    let spaces = rest.len() - rest.trim_start_matches(' ').len();
    let bar = rest[spaces..]
        .chars()
        .next()
        .filter(|c| matches!(c, '|' | '│'))?;
    (spaces > 0).then_some(start + digits + spaces + bar.len_utf8())
}

/// Returns whether a line starts a warning or a notice, which comes and goes around an error
/// (`warning: unused variable`, `npm WARN deprecated …`).
fn is_warning_start(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    [
        "warning",
        "warn ",
        "npm warn",
        "npm notice",
        "deprecationwarning",
        "(node:",
    ]
    .iter()
    .any(|p| l.starts_with(p))
        || l.contains("deprecationwarning")
}

/// Returns whether a line starts an error block.
fn is_error_start(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    ["error", "fatal", "npm err", "panic", "traceback", "fail"]
        .iter()
        .any(|p| l.starts_with(p))
}

/// Returns whether a line is progress that says nothing about the error.
fn is_progress(line: &str) -> bool {
    let l = line.trim_start();
    [
        "Compiling ",
        "Checking ",
        "Downloading ",
        "Downloaded ",
        "Finished ",
        "Running ",
        "Updating ",
        "Blocking waiting",
        "Fresh ",
        "Locking ",
        "Adding ",
        "Installing ",
        "Collecting ",
        "Requirement already satisfied",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

/// Returns the lines of an error text that may say what went wrong: not blank, not progress
/// (`Compiling …`), not in a warning block (from a warning's first line to a blank line or
/// the start of an error).
fn error_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut in_warning = false;
    text.lines().filter(move |raw| {
        if raw.trim().is_empty() {
            in_warning = false;
            return false;
        }
        if is_warning_start(raw) {
            in_warning = true;
            return false;
        }
        if is_error_start(raw) {
            in_warning = false;
        }
        !in_warning && !is_progress(raw)
    })
}

/// Returns the normalised form of an error text (see the module documentation): each line
/// normalised, warnings and progress lines dropped, the rest sorted and deduplicated so the
/// same failures printed in another order are one error.
pub fn normalize_error(error: &str) -> String {
    let text = strip_ansi(error);
    let mut kept: Vec<String> = error_lines(&text).map(normalize_line).collect();
    if kept.is_empty() {
        // Only warnings: they are the message.
        kept = text
            .lines()
            .map(normalize_line)
            .filter(|l| !l.is_empty())
            .collect();
    }
    kept.sort_unstable();
    kept.dedup();
    kept.join("\n")
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
        // A string this long (a Write's content) is known by its audit form: its size and
        // digest tell it apart, and the key stays short.
        Value::String(s) if s.len() >= LONG_STRING_BYTES => {
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

/// Words of a line that says what went wrong, strongest first: a line with a word of the
/// first group is the headline before one with a word of the second.
const SIGNAL_WORDS: [&[&str]; 2] = [
    &[
        "error",
        "err!",
        "fail",
        "panic",
        "exception",
        "fatal",
        "traceback",
        "denied",
        "not found",
        "no such",
        "does not exist",
        "refused",
        "timed out",
        "segmentation",
        "killed",
        "abort",
    ],
    &[
        "cannot",
        "can't",
        "unable",
        "invalid",
        "missing",
        "unknown",
        "undefined",
        "unexpected",
        "assert",
    ],
];

/// Returns whether an error text is a cascade: Claude Code cancelled the call because
/// another call of its parallel batch failed (not an error of this call).
pub fn is_cascade(error: &str) -> bool {
    let t = error.trim_start();
    let t = t.strip_prefix("<tool_use_error>").unwrap_or(t).trim_start();
    t.starts_with("Sibling tool call errored")
        || t.starts_with("Cancelled: parallel tool call")
        || t.starts_with("Canceled: parallel tool call")
}

/// Returns the line of an error that says what went wrong, with the exit code when there is
/// one (`Exit code 1: npm ERR! missing script: tset`): the first line with a strong signal
/// word, else the first with a weaker one, else the first line; warnings and notices
/// (`npm WARN deprecated …`) are passed over.
pub fn headline(error: &str) -> String {
    let text = strip_ansi(error);
    let mut exit_code: Option<&str> = None;
    let mut first: Option<&str> = None;
    let mut signal: [Option<&str>; 2] = [None, None];
    for raw in error_lines(&text) {
        let line = raw.trim();
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
        for (tier, words) in SIGNAL_WORDS.iter().enumerate() {
            if signal[tier].is_none() && words.iter().any(|w| lower.contains(w)) {
                signal[tier] = Some(line);
            }
        }
        if signal[0].is_some() {
            break;
        }
    }
    let first = first.or_else(|| {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && Some(*l) != exit_code)
    });
    let line = signal[0].or(signal[1]).or(first);
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
mod tests;
