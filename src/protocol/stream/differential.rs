//! Differential tests of the digesting reader against serde_json's plain parse: every escape
//! form JSON has, read in pieces of every size; payloads mutated anywhere, and in the header
//! where the scan decides; payloads over the cap. The hook must parse what the plain parse
//! gives, with only the allow-listed long strings in their audit form, or refuse what it
//! refuses.

use super::tests::{Trickle, audit_cut};
use super::*;
use crate::protocol::HookInput;
use serde_json::Value;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A raw JSON string text (between quotes) using every escape form JSON has.
fn raw_text(r: &mut Rng, min_unescaped: usize) -> String {
    let mut s = String::new();
    let mut n = 0;
    let chars = [
        'a',
        'é',
        '€',
        '😀',
        '"',
        '\\',
        '/',
        '\u{8}',
        '\u{c}',
        '\n',
        '\r',
        '\t',
        '\u{1}',
        '\u{7f}',
        '\u{ffff}',
        '\u{10ffff}',
    ];
    while n < min_unescaped {
        let c = chars[r.below(chars.len())];
        n += c.len_utf8();
        let cp = c as u32;
        match r.below(4) {
            0 if cp >= 0x10000 => {
                let v = cp - 0x10000;
                let (hi, lo) = (0xD800 + (v >> 10), 0xDC00 + (v & 0x3ff));
                if r.below(2) == 0 {
                    s += &format!("\\u{hi:04x}\\u{lo:04X}")
                } else {
                    s += &format!("\\u{hi:04X}\\u{lo:04x}")
                }
            }
            0 | 1 if cp < 0x10000 => s += &format!("\\u{cp:04x}"),
            _ => match c {
                '"' => s += "\\\"",
                '\\' => s += "\\\\",
                '/' => s += if r.below(2) == 0 { "\\/" } else { "/" },
                '\u{8}' => s += "\\b",
                '\u{c}' => s += "\\f",
                '\n' => s += "\\n",
                '\r' => s += "\\r",
                '\t' => s += "\\t",
                '\u{1}' => s += "\\u0001",
                c => s.push(c),
            },
        }
        // Long plain runs too, so the 64-byte blocks are used.
        if r.below(8) == 0 {
            let k = r.below(200);
            s += &"x".repeat(k);
            n += k;
        }
    }
    s
}

fn payload(text: &str) -> Vec<u8> {
    format!(r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"/p/a","content":"{text}","x":1}},"tool_use_id":"t"}}"#).into_bytes()
}

/// What the hook would parse (after its check that the scan saw the event and tool the
/// payload names), `None` when it refuses; and whether a string was digested.
fn through_stream(bytes: &[u8], step: usize) -> (Option<Value>, bool) {
    let got = read(Trickle { data: bytes, step }, 0).unwrap();
    let digested = got.digested.is_some();
    if got.broken.is_some() {
        return (None, digested);
    }
    let parsed = HookInput::parse(&got.bytes, None)
        .ok()
        .filter(|input| got.digested.is_none_or(|d| d.disagreement(input).is_none()));
    (parsed.map(|input| Value::Object(input.raw)), digested)
}

/// What the plain parse gives, with the strings a PreToolUse digests as the audit cuts them.
fn expected(bytes: &[u8]) -> Option<Value> {
    let input = HookInput::parse(bytes, None).ok()?;
    Some(audit_cut(Value::Object(input.raw)))
}

/// Removes the byte at `at`, replaces it with the first byte of one of `ins`, or inserts one
/// of `ins` there.
fn mutate(r: &mut Rng, bytes: &mut Vec<u8>, at: usize, ins: &[&[u8]]) {
    match r.below(3) {
        0 => {
            bytes.remove(at);
        }
        1 => bytes[at] = ins[r.below(ins.len())][0],
        _ => {
            let s = ins[r.below(ins.len())];
            bytes.splice(at..at, s.iter().copied());
        }
    }
}

/// Reads `bytes` at three piece sizes; each must give what the plain parse gives, cut.
/// Returns how many of the reads digested a string.
fn agree(r: &mut Rng, bytes: &[u8], case: usize) -> usize {
    let want = expected(bytes);
    let mut digested = 0;
    for step in [1 + r.below(100), 4000 + r.below(70_000), usize::MAX] {
        let (got, did) = through_stream(bytes, step);
        digested += usize::from(did);
        assert_eq!(
            got.map(audit_cut),
            want,
            "case {case} step {step}: {:?} ... {:?}",
            String::from_utf8_lossy(&bytes[..200]),
            String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(100)..]),
        );
    }
    digested
}

#[test]
fn every_escape_form_at_every_piece_size() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    for case in 0..60 {
        let m = DIGEST_MIN_BYTES - 200 + r.below(400);
        let text = raw_text(&mut r, m);
        let bytes = payload(&text);
        let want = expected(&bytes).expect("valid");
        let long = HookInput::parse(&bytes, None).expect("valid").tool_input()["content"]
            .as_str()
            .is_some_and(|c| c.len() >= DIGEST_MIN_BYTES);
        for step in [
            1 + r.below(13),
            60 + r.below(200),
            4000 + r.below(70_000),
            usize::MAX,
        ] {
            let (got, digested) = through_stream(&bytes, step);
            assert_eq!(digested, long, "case {case} step {step}");
            assert_eq!(got.as_ref(), Some(&want), "case {case} step {step}");
        }
    }
}

#[test]
fn mutated_payloads_agree_with_the_plain_parse() {
    let mut r = Rng(0xdead_beef_cafe_f00d);
    let ins: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\x01",
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\\ud800",
        b"\\udc00",
        b"\\u12",
        b"}",
        b"{",
        b":",
        b",",
        b" ",
        b"]",
    ];
    let (cases, mut digested) = (500, 0);
    for case in 0..cases {
        let m = DIGEST_MIN_BYTES + r.below(2000);
        let text = raw_text(&mut r, m);
        let mut bytes = payload(&text);
        for _ in 0..1 + r.below(2) {
            let at = if r.below(3) == 0 {
                r.below(200)
            } else {
                r.below(bytes.len())
            };
            mutate(&mut r, &mut bytes, at, ins);
        }
        digested += agree(&mut r, &bytes, case);
    }
    // Mutations in the content mostly break it, but a good share of the payloads is digested.
    assert!(
        digested > cases / 2,
        "only {digested} of {} reads digested",
        3 * cases
    );
}

/// The cap: a payload over it must be refused whatever its shape.
#[test]
fn payloads_over_the_cap_are_refused() {
    let text = "a".repeat(100_000);
    let mut bytes = payload(&text);
    // Valid JSON padded with whitespace to one byte past the cap.
    bytes.resize(MAX_PAYLOAD_BYTES + 1, b' ');
    assert!(
        HookInput::parse(&bytes, None).is_err(),
        "the plain parse refuses it"
    );
    assert!(
        through_stream(&bytes, 65_536).0.is_none(),
        "exactly cap+1 accepted"
    );
    // Valid JSON, then garbage past the cap.
    let mut bytes = payload(&text);
    bytes.resize(MAX_PAYLOAD_BYTES + 1, b' ');
    bytes.extend_from_slice(b"garbage that is not JSON");
    assert!(HookInput::parse(&bytes, None).is_err());
    assert!(
        through_stream(&bytes, 65_536).0.is_none(),
        "garbage past the cap accepted"
    );
}

#[test]
fn header_mutations_agree_with_the_plain_parse() {
    let mut r = Rng(0x0bad_c0de_1234_9876);
    let ins: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\x01",
        b"\xff",
        b"\xc3",
        b"\\ud800",
        b"\\u12",
        b"}",
        b"{",
        b"[",
        b"]",
        b":",
        b",",
        b" ",
        b"1",
        b"\\n",
        b"\"x\":",
        b"\"content\":",
        b"\"hook_event_name\":\"Stop\",",
        b"\"tool_name\":\"Bash\",",
        b"null",
    ];
    let (cases, mut digested) = (1000, 0);
    for case in 0..cases {
        let m = DIGEST_MIN_BYTES + r.below(300);
        let text = raw_text(&mut r, m);
        let short = "ab\\\"c\\u00e9";
        let templates = [
            format!(
                r#"{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"/p/a","content":"{text}"}}}}"#
            ),
            format!(
                r#"{{"hook_event_name" : "PreToolUse" , "a":[{{"b":"c"}},"x",1],"tool_name":"Edit","tool_input":{{"n":{{"old_string":"q"}},"old_string" : "{text}","new_string":"{short}"}}}}"#
            ),
            format!(
                r#"{{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{{"new_string":"{short}","old_string":"{text}"}},"tool_name":"Edit"}}"#
            ),
            format!(
                r#"{{"tool_input":{{"content":"{short}"}},"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{{"new_source":"{text}","cell_id":"c"}}}}"#
            ),
        ];
        let mut bytes = templates[r.below(templates.len())].clone().into_bytes();
        for _ in 0..1 + r.below(3) {
            let len = bytes.len();
            let at = match r.below(3) {
                0 => r.below(180),
                1 => len - 1 - r.below(60),
                _ => r.below(len),
            };
            mutate(&mut r, &mut bytes, at, ins);
        }
        digested += agree(&mut r, &bytes, case);
    }
    assert!(
        digested > cases / 2,
        "only {digested} of {} reads digested",
        3 * cases
    );
}
