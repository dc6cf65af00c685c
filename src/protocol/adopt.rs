//! Parsing a large payload without copying its largest string.
//!
//! serde_json's `Value` owns every string, so a 1 MB Write's content is copied out of the
//! payload into a fresh megabyte, and a content with escapes (every line of source code
//! ends in `\n`) is first unescaped into a scratch buffer that grows by doubling: two or
//! three fresh megabytes on top of the one read, ~550 more first-touched pages. Here the
//! value is built by the same rules as `Value`'s own `Deserialize`, except for the first
//! string of at least [`ADOPT_MIN_BYTES`] that is the value of an object key: the key tells
//! where in the text the value starts, so the string's extent is found there and serde_json
//! only checks it (`IgnoredAny`, which copies nothing). Afterwards the string is unescaped
//! where it lies, at the start of the payload's own buffer, which is cut down to it and put
//! in its place. Whatever is uncertain or broken (a repeated key, an escape a string cannot
//! hold, a syntax error) goes to the copying parse, which decides in its own words.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
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
struct State<'t> {
    /// The payload text; a borrowed key's offset is its address minus the text's.
    text: &'t str,
    /// Pre-order index of the next value.
    next: Cell<usize>,
    found: Cell<Option<Found>>,
    /// A repeated key replaced a value: the pre-order indices may no longer match the tree.
    replaced: Cell<bool>,
}

/// What [`parse`] made of a payload.
#[derive(Debug)]
pub enum Parsed {
    /// The payload's object, its first large string (if any) in the read buffer.
    Object(Map<String, Value>),
    /// Parse these bytes the copying way: the place of the large string is uncertain, or the
    /// payload is broken (the copying parse then gives the error the plain parse gives).
    Copy(Vec<u8>),
}

/// Parses a payload into its object; the first large string takes over `bytes`. The errors
/// of [`HookInput::parse`](super::HookInput::parse) that come before JSON (size, UTF-8,
/// blank) are returned with the bytes; JSON's own are left to the copying parse.
pub fn parse(bytes: Vec<u8>) -> Result<Parsed, (InputError, Vec<u8>)> {
    parse_adopting(bytes).map(|(parsed, _)| parsed)
}

/// [`parse`], and whether a large string took over the buffer.
fn parse_adopting(bytes: Vec<u8>) -> Result<(Parsed, bool), (InputError, Vec<u8>)> {
    let text = match payload_text(&bytes) {
        Ok(t) => t,
        Err(e) => return Err((e, bytes)),
    };
    let state = State {
        text,
        next: Cell::new(0),
        found: Cell::new(None),
        replaced: Cell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let built = Build { state: &state }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    let (Ok(Value::Object(mut map)), false) = (built, state.replaced.get()) else {
        return Ok((Parsed::Copy(bytes), false));
    };
    let Some(found) = state.found.get() else {
        return Ok((Parsed::Object(map), false));
    };
    let mut buf = bytes;
    if found.escaped && !unescapes(&buf[found.start..found.end]) {
        // A lone surrogate: serde_json refuses the payload, in its own words.
        return Ok((Parsed::Copy(buf), false));
    }
    // Index 0 is the object itself, never a string.
    let mut n = found.index.saturating_sub(1);
    let Some(slot @ Value::String(_)) = map.values_mut().find_map(|v| nth_mut(v, &mut n)) else {
        return Ok((Parsed::Copy(buf), false));
    };
    let len = if found.escaped {
        unescape_to_front(&mut buf, found.start, found.end)
    } else {
        buf.copy_within(found.start..found.end, 0);
        found.end - found.start
    };
    buf.truncate(len);
    // The buffer was sized for the whole payload: give the rest back.
    buf.shrink_to_fit();
    // The bytes came from a `&str`, unescaped by JSON's rules, so this holds; `lossy` keeps
    // every byte even if it did not.
    *slot = Value::String(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    });
    Ok((Parsed::Object(map), true))
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

impl State<'_> {
    /// Takes the next pre-order index.
    fn index(&self) -> usize {
        let index = self.next.get();
        self.next.set(index + 1);
        index
    }

    /// Where a key's value is a string of [`ADOPT_MIN_BYTES`] or more, and the first such:
    /// its extent between the quotes, found from `after`, the offset just past the key's
    /// closing quote. serde_json checks the same bytes right after (a string it refuses
    /// fails the parse), so for the strings this accepts, every backslash starts a
    /// two-byte escape or a `\uXXXX` whose digits hold no quote, and the first unescaped
    /// quote ends the string.
    fn large_string_after(&self, after: usize) -> Option<(usize, usize, bool)> {
        if self.found.get().is_some() {
            return None;
        }
        let bytes = self.text.as_bytes();
        let skip_space = |mut i: usize| {
            while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                i += 1;
            }
            i
        };
        let colon = skip_space(after);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        let quote = skip_space(colon + 1);
        if bytes.get(quote) != Some(&b'"') {
            return None;
        }
        let start = quote + 1;
        let mut at = start;
        // The first quote after an even run of backslashes (none, or escaped backslashes).
        let end = loop {
            let i = at + memchr::memchr(b'"', bytes.get(at..)?)?;
            let run = bytes[start..i].iter().rev().take_while(|&&b| b == b'\\');
            if run.count() % 2 == 0 {
                break i;
            }
            at = i + 1;
        };
        (end - start >= ADOPT_MIN_BYTES).then(|| {
            (
                start,
                end,
                memchr::memchr(b'\\', &bytes[start..end]).is_some(),
            )
        })
    }
}

/// Builds one value (and, through nested seeds, everything inside it).
#[derive(Clone, Copy)]
struct Build<'s, 't> {
    state: &'s State<'t>,
}

impl<'de> DeserializeSeed<'de> for Build<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.state.index();
        d.deserialize_any(Visit { state: self.state })
    }
}

/// An object key, and the offset just past its closing quote when serde_json lends it
/// from the text (it has no escape).
struct Key {
    name: String,
    after: Option<usize>,
}

/// Reads an object key.
struct KeySeed<'s, 't> {
    state: &'s State<'t>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(Key {
            name: v.to_owned(),
            after: None,
        })
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key, E> {
        let text = self.state.text;
        let start = (v.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        let inside = start <= text.len() && v.len() < text.len() - start;
        Ok(Key {
            name: v.to_owned(),
            after: inside.then_some(start + v.len() + 1),
        })
    }
}

/// Visits one value.
struct Visit<'s, 't> {
    state: &'s State<'t>,
}

impl<'de> Visitor<'de> for Visit<'_, '_> {
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
        while let Some(item) = seq.next_element_seed(Build { state: self.state })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let s = self.state;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed { state: s })? {
            let large = key.after.and_then(|after| s.large_string_after(after));
            let value = match large {
                Some((start, end, escaped)) => {
                    let index = s.index();
                    map.next_value::<IgnoredAny>()?;
                    s.found.set(Some(Found {
                        index,
                        start,
                        end,
                        escaped,
                    }));
                    Value::String(String::new())
                }
                None => map.next_value_seed(Build { state: s })?,
            };
            if out.insert(key.name, value).is_some() {
                s.replaced.set(true);
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

/// The high bit of each byte of `word` (eight bytes, little-endian) that is a backslash:
/// exact up to the first one, which is all its callers use (past it, a borrow can raise a
/// false one).
fn backslashes_in(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = word ^ (ONES * u64::from(b'\\'));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Unescapes a string's raw text, `buf[start..end]`, to the front of `buf` and returns its
/// length. Writing never overtakes reading: it starts behind, and an escape takes at least
/// as many bytes as the character it spells. The escapes decode ([`unescapes`]); one that
/// did not would be kept as written. Eight bytes at a time while they hold no backslash:
/// source code has an escape every ~15 bytes, and a call to find each one cost more than the
/// copying.
fn unescape_to_front(buf: &mut [u8], start: usize, end: usize) -> usize {
    let buf = &mut buf[..end];
    let (mut read, mut write) = (start, 0);
    while read < buf.len() {
        if let Some(word) = buf
            .get(read..read + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let found = backslashes_in(u64::from_le_bytes(word));
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
        // A one-character escape without the call (4 % of a 1 MB Write of source code).
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
        use super::super::HookInput;
        let head = |t: &str| t.chars().take(60).collect::<String>();
        let a = big('a');
        let p = big('p');
        let deep = |n: usize| {
            format!(
                r#"{{"tool_input":{{"x":{}"{a}"{}}}}}"#,
                r#"{"k":"#.repeat(n),
                "}".repeat(n)
            )
        };
        for text in [
            "{".to_owned(),
            format!("[\"{a}\",]"),
            format!("{{\"a\":\"{a}\"}} x"),
            " ".repeat(ADOPT_MIN_BYTES),
            json!([{"hook_event_name": "PreToolUse", "x": a}]).to_string(),
            json!(a).to_string(),
            // Broken inside an object inside the payload, after a large string.
            format!(r#"{{"pad":"{p}","tool_input":{{"x":[1,]}}}}"#),
            format!(r#"{{"pad":"{p}","tool_input":{{"x":{{"a":1,}}}}}}"#),
            format!("{{\"pad\":\"{p}\",\"tool_input\":{{\"x\":\"a\tb\"}}}}"),
            format!("{{\"pad\":\"{p}\",\"tool_input\":{{\"x\":\"a\nb\"}}}}"),
            format!(r#"{{"pad":"{p}","tool_input":{{"x":1."#),
            format!(r#"{{"pad":"{p}","tool_input":{{"x":{{"a":1,"#),
            // The large string itself broken, or unterminated.
            format!("{{\"tool_input\":{{\"content\":\"{a}\x01\"}}}}"),
            format!(r#"{{"tool_input":{{"content":"{a}\q"}}}}"#),
            format!(r#"{{"tool_input":{{"content":"{a}"#),
            // Nested past serde_json's recursion limit around a large string.
            deep(127),
            deep(20_000),
        ] {
            let want = HookInput::parse(text.as_bytes(), None).unwrap_err();
            let got = match parse(text.clone().into_bytes()) {
                Ok(Parsed::Copy(back)) => {
                    assert_eq!(back, text.as_bytes());
                    HookInput::parse(&back, None).unwrap_err()
                }
                Ok(Parsed::Object(_)) => panic!("accepted: {}", head(&text)),
                Err((e, back)) => {
                    assert_eq!(back, text.as_bytes());
                    e
                }
            };
            assert_eq!(got, want, "{}", head(&text));
            let owned = HookInput::parse_owned(text.clone().into_bytes(), None).unwrap_err();
            assert_eq!(owned, (want, text.into_bytes()));
        }
        // Nested within the limit, the large string is still taken over.
        let text = deep(100);
        let want: Value = serde_json::from_str(&text).unwrap();
        let Ok((Parsed::Object(map), true)) = parse_adopting(text.into_bytes()) else {
            panic!("not adopted");
        };
        assert_eq!(Value::Object(map), want);
    }

    /// A key serde_json gives a meaning of its own when built with `raw_value` (oath is not)
    /// is an ordinary key here, as in the plain parse.
    #[test]
    fn no_key_is_special() {
        let a = big('a');
        let text = format!(
            r#"{{"tool_input":{{"$serde_json::private::RawValue":"{{\"command\":\"ls\"}}","content":"{a}"}}}}"#
        );
        both(&text);
        let map = object(parse(text.into_bytes()).unwrap());
        assert!(
            map["tool_input"]
                .get("$serde_json::private::RawValue")
                .is_some()
        );
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
            let Ok((Parsed::Object(map), true)) = parse_adopting(text.clone().into_bytes()) else {
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
            let text = format!(r#"{{"k":{{"c":"{body}"}},"n":[1]}}"#);
            match serde_json::from_str::<Value>(&text) {
                Ok(want) => {
                    let (got, adopted) = parse_adopting(text.into_bytes()).map_err(|(e, _)| e).unwrap();
                    prop_assert!(adopted);
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
