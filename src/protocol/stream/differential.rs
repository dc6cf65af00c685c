//! Differential tests of the digesting reader against serde_json's plain parse: every escape
//! form JSON has, read in pieces of every size; payloads mutated anywhere, and in the header
//! where the scan decides; payloads over the cap. The hook must parse what the plain parse
//! gives, with only the allow-listed long strings in their audit form, or refuse what it
//! refuses.

use super::*;
use crate::protocol::HookInput;
use serde_json::{Value, json};

struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}
impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.data.len().min(buf.len()).min(self.step);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

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

/// What the hook would parse, `None` when it refuses.
fn through_stream(bytes: &[u8], step: usize) -> Option<Value> {
    let got = read(Trickle { data: bytes, step }, 0).unwrap();
    if got.broken.is_some() {
        return None;
    }
    let input = HookInput::parse(&got.bytes, None).ok()?;
    if let Some(d) = &got.digested
        && (input.event.as_str() != d.event || input.tool_name.as_deref() != Some(d.tool.as_str()))
    {
        return None;
    }
    Some(Value::Object(input.raw))
}

fn expected(bytes: &[u8], digest: bool) -> Option<Value> {
    let input = HookInput::parse(bytes, None).ok()?;
    let mut v = Value::Object(input.raw);
    if !digest {
        return Some(v);
    }
    if let Some(ti) = v.get_mut("tool_input").and_then(Value::as_object_mut) {
        for k in ["content"] {
            if let Some(Value::String(s)) = ti.get(k)
                && s.len() >= DIGEST_MIN_BYTES
            {
                let f = audit::truncate_with_digest(s);
                ti.insert(k.into(), json!(f));
            }
        }
    }
    Some(v)
}

#[test]
fn every_escape_form_at_every_piece_size() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    for case in 0..60 {
        let m = DIGEST_MIN_BYTES - 200 + r.below(400);
        let text = raw_text(&mut r, m);
        let bytes = payload(&text);
        let want = expected(&bytes, true).expect("valid");
        for step in [
            1 + r.below(13),
            60 + r.below(200),
            4000 + r.below(70_000),
            usize::MAX,
        ] {
            let got = through_stream(&bytes, step);
            assert_eq!(got.as_ref(), Some(&want), "case {case} step {step}");
        }
    }
}

#[test]
fn mutated_payloads_agree_with_the_plain_parse() {
    let mut r = Rng(0xdead_beef_cafe_f00d);
    let mut digested = 0;
    for case in 0..500 {
        let m = DIGEST_MIN_BYTES + r.below(2000);
        let text = raw_text(&mut r, m);
        let mut bytes = payload(&text);
        let muts = 1 + r.below(2);
        for _ in 0..muts {
            let at = if r.below(3) == 0 {
                r.below(200)
            } else {
                r.below(bytes.len())
            };
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
            match r.below(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => {
                    bytes[at] = ins[r.below(ins.len())][0];
                }
                _ => {
                    let s = ins[r.below(ins.len())];
                    bytes.splice(at..at, s.iter().copied());
                }
            }
        }
        for step in [1 + r.below(100), 4000 + r.below(70_000), usize::MAX] {
            let got = read(Trickle { data: &bytes, step }, 0).unwrap();
            if got.digested.is_some() {
                digested += 1;
            }
            let want = expected(&bytes, got.digested.is_some());
            let got = through_stream(&bytes, step);
            assert_eq!(
                got,
                want,
                "case {case} step {step}: {:?}",
                String::from_utf8_lossy(&bytes[..200])
            );
        }
    }
    eprintln!("digested {digested}");
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
    let got = read(&bytes[..], 0).unwrap();
    eprintln!(
        "broken {:?} digested {:?} len {}",
        got.broken,
        got.digested,
        got.bytes.len()
    );
    assert!(
        through_stream(&bytes, 65_536).is_none(),
        "exactly cap+1 accepted"
    );
    // Valid JSON, then garbage past the cap.
    let mut bytes = payload(&text);
    bytes.resize(MAX_PAYLOAD_BYTES + 1, b' ');
    bytes.extend_from_slice(b"garbage that is not JSON");
    assert!(HookInput::parse(&bytes, None).is_err());
    assert!(
        through_stream(&bytes, 65_536).is_none(),
        "garbage past the cap accepted"
    );
}

fn norm(v: Option<Value>) -> Option<Value> {
    let mut v = v?;
    let tool = v
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Some(ti) = v.get_mut("tool_input").and_then(Value::as_object_mut) {
        for (k, val) in ti.iter_mut() {
            if !DIGESTED.contains(&(tool.as_str(), k.as_str())) {
                continue;
            }
            if let Value::String(s) = val
                && s.len() >= DIGEST_MIN_BYTES
            {
                *val = json!(audit::truncate_with_digest(s));
            }
        }
    }
    Some(v)
}

#[test]
fn header_mutations_agree_with_the_plain_parse() {
    let mut r = Rng(0x0bad_c0de_1234_9876);
    let mut digested = 0;
    for case in 0..1000 {
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
        let muts = 1 + r.below(3);
        for _ in 0..muts {
            let len = bytes.len();
            let at = match r.below(3) {
                0 => r.below(180),
                1 => len - 1 - r.below(60),
                _ => r.below(len),
            };
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
            match r.below(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => {
                    bytes[at] = ins[r.below(ins.len())][0];
                }
                _ => {
                    let s = ins[r.below(ins.len())];
                    bytes.splice(at..at, s.iter().copied());
                }
            }
        }
        let want = norm(
            HookInput::parse(&bytes, None)
                .ok()
                .map(|i| Value::Object(i.raw)),
        );
        for step in [1 + r.below(100), 4000 + r.below(70_000), usize::MAX] {
            let got = read(Trickle { data: &bytes, step }, 0).unwrap();
            if got.digested.is_some() {
                digested += 1;
            }
            let got = norm(through_stream(&bytes, step));
            if got != want {
                panic!(
                    "case {case} step {step}: {:?} ... {:?}\n got {} want {}",
                    String::from_utf8_lossy(&bytes[..200]),
                    String::from_utf8_lossy(&bytes[bytes.len() - 100..]),
                    got.is_some(),
                    want.is_some()
                );
            }
        }
    }
    eprintln!("digested {digested}");
}
