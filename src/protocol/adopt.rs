//! Parsing a large payload without copying its largest string.
//!
//! serde_json's `Value` owns every string, so a 1 MB Write's content is copied out of the
//! payload into a fresh megabyte, and a content with escapes (every line of source code
//! ends in `\n`) is first unescaped into a growing scratch buffer: two or three fresh
//! megabytes on top of the one read, ~550 more first-touched pages. Here the value is built
//! by the same rules as `Value`'s own `Deserialize`, except that each value inside the
//! payload object is first taken as its raw JSON text (`RawValue`, a scan that copies
//! nothing): a small one is parsed as usual, a large object or array is entered the same
//! way, and the first string of at least [`ADOPT_MIN_BYTES`] is left empty and noted.
//! Afterwards that string is unescaped in place, in the payload's own buffer, which is cut
//! down to it and put in its place. A large string sits inside the payload at some depth
//! and is scanned once per level (twice for a Write's content), each scan far cheaper than
//! the pages it saves.

use std::cell::Cell;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use super::input::{InputError, payload_text};

/// Strings shorter than this are copied: adopting only pays for large ones.
pub const ADOPT_MIN_BYTES: usize = 64 * 1024;

/// The string chosen to take over the buffer: its place in the value (pre-order index), the
/// bytes between its quotes in the payload, and whether they hold escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    index: usize,
    start: usize,
    end: usize,
    escaped: bool,
}

/// What the builder notes while it runs.
struct State {
    /// Address of the payload text: a borrowed text's offset is its address minus this.
    base: usize,
    /// Pre-order index of the next value.
    next: Cell<usize>,
    found: Cell<Option<Found>>,
    /// A repeated key replaced a value (the pre-order indices may no longer match the tree),
    /// or a value inside failed to parse (its error would not name its place in the whole
    /// payload): the copying parse decides.
    copy: Cell<bool>,
}

/// What [`parse`] made of a payload.
#[derive(Debug)]
pub enum Parsed {
    /// The payload's object, its first large string (if any) in the read buffer.
    Object(Map<String, Value>),
    /// The place of the large string is uncertain, or the payload is broken inside a value:
    /// parse these bytes the copying way (which also gives the error the plain parse gives).
    Copy(Vec<u8>),
}

/// Parses a payload into its object; the first large string takes over `bytes`. The errors
/// are [`HookInput::parse`](super::HookInput::parse)'s, with the bytes handed back.
pub fn parse(bytes: Vec<u8>) -> Result<Parsed, (InputError, Vec<u8>)> {
    let text = match payload_text(&bytes) {
        Ok(t) => t,
        Err(e) => return Err((e, bytes)),
    };
    let state = State {
        base: text.as_ptr() as usize,
        next: Cell::new(1),
        found: Cell::new(None),
        copy: Cell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let root = Visit {
        state: &state,
        index: 0,
        raw_values: false,
    };
    let built = de.deserialize_any(root).and_then(|v| de.end().map(|()| v));
    if state.copy.get() {
        return Ok(Parsed::Copy(bytes));
    }
    let mut map = match built {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err((InputError::NotObject, bytes)),
        Err(e) => return Err((InputError::NotJson(e.to_string()), bytes)),
    };
    let Some(found) = state.found.get() else {
        return Ok(Parsed::Object(map));
    };
    let mut buf = bytes;
    if found.escaped && !unescapes(&buf[found.start..found.end]) {
        // A lone surrogate: serde_json refuses the payload, in its own words.
        return Ok(Parsed::Copy(buf));
    }
    // Index 0 is the object itself, never a string.
    let mut n = found.index.saturating_sub(1);
    let Some(slot @ Value::String(_)) = map.values_mut().find_map(|v| nth_mut(v, &mut n)) else {
        return Ok(Parsed::Copy(buf));
    };
    let len = if found.escaped {
        unescape_in_place(&mut buf[found.start..found.end])
    } else {
        found.end - found.start
    };
    buf.truncate(found.start + len);
    buf.drain(..found.start);
    // The read left spare capacity (up to the payload's size again): give it back.
    buf.shrink_to_fit();
    // The bytes came from a `&str`, unescaped by JSON's rules, so this holds; `lossy` keeps
    // every byte even if it did not.
    *slot = Value::String(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    });
    Ok(Parsed::Object(map))
}

/// Returns the value at pre-order index `*n` (0 is `v` itself; arrays and objects are
/// entered in order). Objects keep their keys in parse order only because serde_json is
/// built with `preserve_order` (a test below fails without it): in key order, the index
/// could land on another value.
fn nth_mut<'v>(v: &'v mut Value, n: &mut usize) -> Option<&'v mut Value> {
    if *n == 0 {
        return Some(v);
    }
    *n -= 1;
    match v {
        Value::Array(items) => items.iter_mut().find_map(|i| nth_mut(i, n)),
        Value::Object(map) => map.values_mut().find_map(|i| nth_mut(i, n)),
        _ => None,
    }
}

/// Returns how many values `v` holds, itself included (its share of the pre-order indices).
fn count_values(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(map) => map.values().map(count_values).sum(),
        _ => 0,
    }
}

/// Builds one value of the payload. The payload object and the objects and arrays right in
/// it (`tool_input`, `tool_response`) are entered as serde_json reads them; the values inside
/// those are taken as raw text first (`raw`), so that a large string among them is found
/// before serde_json unescapes it into a buffer of its own.
#[derive(Clone, Copy)]
struct Build<'s> {
    state: &'s State,
    raw: bool,
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let s = self.state;
        let index = s.next.get();
        s.next.set(index + 1);
        if !self.raw {
            return d.deserialize_any(Visit {
                state: s,
                index,
                raw_values: true,
            });
        }
        let raw = <&'de RawValue>::deserialize(d)?.get();
        let large = raw.len() >= ADOPT_MIN_BYTES;
        let value = match raw.as_bytes().first() {
            Some(b'"') if large && s.found.get().is_none() => {
                let start = (raw.as_ptr() as usize).wrapping_sub(s.base) + 1;
                let body = &raw[1..raw.len() - 1];
                s.found.set(Some(Found {
                    index,
                    start,
                    end: start + body.len(),
                    escaped: memchr::memchr(b'\\', body.as_bytes()).is_some(),
                }));
                return Ok(Value::String(String::new()));
            }
            Some(b'{' | b'[') if large => {
                let mut inner = serde_json::Deserializer::from_str(raw);
                inner.deserialize_any(Visit {
                    state: s,
                    index,
                    raw_values: true,
                })
            }
            _ => serde_json::from_str::<Value>(raw).inspect(|v| {
                s.next.set(s.next.get() + count_values(v) - 1);
            }),
        };
        value.map_err(|e| {
            s.copy.set(true);
            D::Error::custom(e)
        })
    }
}

/// Visits one value (its pre-order index known); the values of an object or array are built
/// by [`Build`], raw or not.
struct Visit<'s> {
    state: &'s State,
    index: usize,
    raw_values: bool,
}

impl<'de> Visitor<'de> for Visit<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    /// A string without escapes, right in the payload object (a large `prompt`): taken over
    /// as is.
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Value, E> {
        let s = self.state;
        if v.len() >= ADOPT_MIN_BYTES && s.found.get().is_none() {
            let start = (v.as_ptr() as usize).wrapping_sub(s.base);
            s.found.set(Some(Found {
                index: self.index,
                start,
                end: start + v.len(),
                escaped: false,
            }));
            return Ok(Value::String(String::new()));
        }
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let build = Build {
            state: self.state,
            raw: self.raw_values,
        };
        while let Some(item) = seq.next_element_seed(build)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Build {
                state: self.state,
                raw: self.raw_values,
            })?;
            if out.insert(key, value).is_some() {
                self.state.copy.set(true);
            }
        }
        Ok(Value::Object(out))
    }
}

/// Decodes the escape at the start of `esc` (a backslash, as serde_json has checked):
/// the character and the bytes it took, or `None` where serde_json refuses it (a lone
/// surrogate, which JSON's `\u` escapes can spell but a string cannot hold).
fn decode_escape(esc: &[u8]) -> Option<(char, usize)> {
    let hex4 = |at: usize| {
        let digits = esc.get(at..at + 4)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let e = *esc.get(1)?;
    if e != b'u' {
        return match SIMPLE_ESCAPES[usize::from(e)] {
            0 => None,
            b => Some((char::from(b), 2)),
        };
    }
    let high = hex4(2)?;
    if !(0xD800..0xDC00).contains(&high) {
        // `from_u32` refuses a trailing surrogate alone.
        return Some((char::from_u32(high)?, 6));
    }
    if esc.get(6..8)? != b"\\u" {
        return None;
    }
    let low = hex4(8)?;
    if !(0xDC00..0xE000).contains(&low) {
        return None;
    }
    let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
    Some((c, 12))
}

/// The byte each one-character escape stands for (`\n` → newline), by the byte after the
/// backslash; 0 for the others (`\u` and the invalid ones).
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t
};

/// Whether every escape in a string's raw text decodes (see [`decode_escape`]). Only `\u`
/// escapes can fail, and source code rarely holds one: without, no pass is needed.
fn unescapes(raw: &[u8]) -> bool {
    if memchr::memmem::find(raw, b"\\u").is_none() {
        return true;
    }
    let mut at = 0;
    while let Some(n) = memchr::memchr(b'\\', &raw[at..]) {
        match decode_escape(&raw[at + n..]) {
            Some((_, used)) => at += n + used,
            None => return false,
        }
    }
    true
}

/// Unescapes a string's raw text where it lies (the text never grows: an escape takes at
/// least as many bytes as the character it spells) and returns its new length. The escapes
/// decode ([`unescapes`]); one that did not would be kept as written. Eight bytes at a time
/// while they hold no backslash: source code has an escape every ~15 bytes, and a call to
/// find each one cost more than the copying.
fn unescape_in_place(buf: &mut [u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    let (mut read, mut write) = (0, 0);
    while read < buf.len() {
        if let Some(word) = buf
            .get(read..read + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            // A high bit per byte of `word` that is a backslash (exact up to the first one).
            let x = u64::from_le_bytes(word) ^ BACKSLASHES;
            let found = x.wrapping_sub(ONES) & !x & HIGHS;
            // The bytes before the first backslash, all eight without one.
            let plain = if found == 0 {
                8
            } else {
                found.trailing_zeros() as usize / 8
            };
            if write == read || read - write >= 8 {
                // One store: the bytes it writes past `plain` are then the same or already
                // read (a shorter copy is a call).
                buf[write..write + 8].copy_from_slice(&word);
            } else {
                buf[write..write + plain].copy_from_slice(&word[..plain]);
            }
            read += plain;
            write += plain;
            if found == 0 {
                continue;
            }
        } else if buf[read] != b'\\' {
            buf[write] = buf[read];
            read += 1;
            write += 1;
            continue;
        }
        if let Some(&b) = buf
            .get(read + 1)
            .and_then(|&e| SIMPLE_ESCAPES.get(usize::from(e)))
            && b != 0
        {
            buf[write] = b;
            read += 2;
            write += 1;
            continue;
        }
        let (c, used) = decode_escape(&buf[read..]).unwrap_or(('\\', 1));
        read += used;
        let n = c.len_utf8();
        c.encode_utf8(&mut buf[write..write + n]);
        write += n;
    }
    write
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The object, parsed the copying way when [`parse`] asks for it.
    fn object(p: Parsed) -> Map<String, Value> {
        match p {
            Parsed::Object(map) => map,
            Parsed::Copy(bytes) => match serde_json::from_slice(&bytes) {
                Ok(Value::Object(map)) => map,
                other => panic!("not an object: {other:?}"),
            },
        }
    }

    fn big(c: char) -> String {
        std::iter::repeat_n(c, ADOPT_MIN_BYTES + 3).collect()
    }

    /// Parses an object both ways and compares.
    fn both(text: &str) {
        let want: Value = serde_json::from_str(text).unwrap();
        let got = Value::Object(object(parse(text.as_bytes().to_vec()).unwrap()));
        assert_eq!(got, want, "{}", &text[..text.len().min(200)]);
    }

    #[test]
    fn adopted_values_equal_plain_ones() {
        let a = big('a');
        let b = big('b');
        for v in [
            json!({"tool_input": {"file_path": "/x", "content": a}}),
            json!({"x": [1, 2.5, -3, null, true, {"y": [a, b]}], "z": "é"}),
            json!({"first": a, "second": b, "third": "small"}),
            json!({"escaped": format!("{a}\n\"{b}"), "plain": b}),
            json!({"n": 18446744073709551615u64, "f": 1e300, "neg": -9223372036854775808i64}),
        ] {
            both(&v.to_string());
        }
        // A repeated key: the place of the large string is uncertain, the copying parse
        // builds it.
        for text in [
            format!(r#"{{"k":"{a}","k":1,"after":"{b}"}}"#),
            format!(r#"{{"k":1,"k":"{a}"}}"#),
        ] {
            assert!(matches!(
                parse(text.clone().into_bytes()),
                Ok(Parsed::Copy(_))
            ));
            both(&text);
        }
    }

    /// [`nth_mut`] walks objects in parse order: with keys sorted instead, the large string
    /// below would land on `"a"`.
    #[test]
    fn objects_keep_parse_order() {
        let a = big('a');
        let text = format!(r#"{{"b":"{a}","a":""}}"#);
        let map = object(parse(text.into_bytes()).unwrap());
        assert_eq!(map.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(map["b"].as_str().map(str::len), Some(a.len()));
        assert_eq!(map["a"], "");
    }

    #[test]
    fn errors_are_the_plain_parses() {
        let a = big('a');
        for text in [
            "{".to_owned(),
            format!("[\"{a}\",]"),
            format!("{{\"a\":\"{a}\"}} x"),
            " ".repeat(ADOPT_MIN_BYTES),
            json!([{"hook_event_name": "PreToolUse", "x": a}]).to_string(),
            json!(a).to_string(),
        ] {
            let want = super::super::HookInput::parse(text.as_bytes(), None).unwrap_err();
            let (got, back) = parse(text.clone().into_bytes()).unwrap_err();
            assert_eq!(got, want);
            assert_eq!(back, text.as_bytes());
        }
    }

    /// Source code's escapes, and every other kind, are undone where the string lies: the
    /// string is adopted, not copied, and equals serde_json's.
    #[test]
    fn escaped_strings_are_unescaped_in_place() {
        let a = big('a');
        for body in [
            format!("fn main() {{\\n\\t\\\"{a}\\\"\\n}}\\n"),
            format!("\\n{a}\\\\"),
            format!("\\/\\b\\f\\r\\t{a}\\u00e9\\u20AC\\ud83d\\ude00\\uD83D\\uDE00"),
            format!("C:\\\\users\\\\u{a}"),
            format!("{a}\\u0041"),
        ] {
            let text = format!(r#"{{"tool_input":{{"file_path":"/x","content":"{body}"}},"n":1}}"#);
            let want: Value = serde_json::from_str(&text).unwrap();
            let Ok(Parsed::Object(map)) = parse(text.clone().into_bytes()) else {
                panic!("not adopted: {}", &body[..40]);
            };
            assert_eq!(Value::Object(map), want, "{}", &body[..40]);
        }
    }

    /// What serde_json refuses in a large string (a lone surrogate) goes to the copying
    /// parse, which refuses it in its own words.
    #[test]
    fn lone_surrogates_are_refused_as_serde_json_refuses_them() {
        let a = big('a');
        for tail in [
            "\\ud800",
            "\\ud800x",
            "\\ud800\\n",
            "\\ud800\\u0041",
            "\\udc00",
            "\\ud800\\ud800",
        ] {
            let text = format!(r#"{{"tool_input":{{"content":"{a}{tail}"}}}}"#);
            assert!(serde_json::from_str::<Value>(&text).is_err());
            assert!(
                matches!(parse(text.clone().into_bytes()), Ok(Parsed::Copy(ref b)) if *b == text.as_bytes()),
                "{tail}"
            );
        }
    }

    proptest! {
        /// Large strings of any characters and escapes, valid or not, parse as `Value`
        /// parses them, or go to the copying parse where it fails.
        #[test]
        fn escapes_match_serde_json(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("x"), Just("é"), Just("\\n"), Just("\\\""), Just("\\\\"),
                    Just("\\u00e9"), Just("\\ud83d"), Just("\\ude00"), Just("\\u0041"),
                    Just("\\\\u0041"), Just("\\t"),
                ],
                0..12,
            ),
            at_end in any::<bool>(),
        ) {
            let a = big('a');
            let body: String = pieces.concat();
            let body = if at_end { format!("{a}{body}") } else { format!("{body}{a}") };
            let text = format!(r#"{{"k":["{body}",1]}}"#);
            match serde_json::from_str::<Value>(&text) {
                Ok(want) => {
                    let got = parse(text.into_bytes()).map_err(|(e, _)| e).unwrap();
                    prop_assert!(matches!(got, Parsed::Object(_)));
                    prop_assert_eq!(Value::Object(object(got)), want);
                }
                Err(_) => {
                    let got = parse(text.clone().into_bytes()).map_err(|(e, _)| e).unwrap();
                    prop_assert!(matches!(got, Parsed::Copy(ref b) if *b == text.as_bytes()));
                }
            }
        }

        /// Any value, with large strings among small ones, parses to what `Value` parses.
        #[test]
        fn matches_serde_json_value(
            items in proptest::collection::vec(
                prop_oneof![
                    Just(Value::Null),
                    any::<i64>().prop_map(Value::from),
                    "[a-z\"\\\\é\n]{0,6}".prop_map(Value::from),
                    (0usize..3, any::<bool>()).prop_map(|(k, esc)| {
                        let mut s = "x".repeat(ADOPT_MIN_BYTES - 1 + k);
                        if esc { s.push('"'); }
                        Value::from(s)
                    }),
                ],
                0..6,
            ),
            keys in proptest::collection::vec("[ab]", 0..6),
        ) {
            let mut map = Map::new();
            for (k, v) in keys.iter().zip(items.iter()) {
                map.insert(k.clone(), v.clone());
            }
            let text = json!({"list": items, "map": map, "tail": "end"}).to_string();
            let want: Value = serde_json::from_str(&text).unwrap();
            let got = Value::Object(object(parse(text.into_bytes()).map_err(|(e, _)| e).unwrap()));
            prop_assert_eq!(got, want);
        }
    }
}
