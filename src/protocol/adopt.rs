//! Parsing a large payload without copying its largest string.
//!
//! serde_json's `Value` owns every string, so a 1 MB Write's content is copied out of the
//! payload into a fresh megabyte, and a content with escapes (every line of source code
//! ends in `\n`) is first unescaped into a scratch buffer that grows by doubling: two or
//! three fresh megabytes on top of the one read. Here the first string of at least
//! [`ADOPT_MIN_BYTES`] that is the value of an object key is found and checked by JSON's
//! string rules in one pass ([`large_value`]); if it is most of the payload, serde_json
//! parses the rest, with an empty string in its place (the skeleton), by the same rules as
//! `Value`'s own `Deserialize`; then the string is unescaped where it lies, at the start of
//! the payload's own buffer, which is cut down to it and put in the empty string's place.
//! serde_json never reads the megabyte: its check of source code cost as much as the
//! unescaping. Whatever is uncertain or broken (a repeated key, a string JSON refuses, a
//! syntax error) goes to the copying parse, which decides in its own words.
//!
//! The payload is JSON if and only if the skeleton and the string are: up to the string's
//! opening quote they are the same text, and JSON tells a string's quotes from the rest by
//! the quotes and backslashes alone, so where serde_json accepts that text it sees the
//! string open where [`large_value`] did.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use wide::u8x16;

use super::input::{InputError, payload_text};

/// Strings shorter than this are copied: adopting only pays for large ones.
pub const ADOPT_MIN_BYTES: usize = 64 * 1024;

/// The string chosen to take over the buffer: the bytes between its quotes in the payload,
/// and whether they hold escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    start: usize,
    end: usize,
    escaped: bool,
}

/// What the builder notes while it parses the skeleton.
struct State<'t> {
    /// The skeleton; a borrowed key's offset is its address minus the text's.
    text: &'t str,
    /// Offset in the skeleton of the empty string standing for the large one.
    target: usize,
    /// Pre-order index of the next value.
    next: Cell<usize>,
    /// Pre-order index of the value at `target`, once met.
    index: Cell<Option<usize>>,
    /// A repeated key replaced a value: the pre-order indices may no longer match the tree.
    replaced: Cell<bool>,
}

/// What [`parse`] made of a payload.
#[derive(Debug)]
pub enum Parsed {
    /// The payload's object, its first large value of a key in the read buffer.
    Object(Map<String, Value>),
    /// Parse these bytes the copying way: there is no large string, its place is uncertain,
    /// or the payload is broken (the copying parse then gives the error the plain parse
    /// gives).
    Copy(Vec<u8>),
}

/// Parses a payload into its object; the first large string takes over `bytes`. The errors
/// of [`HookInput::parse`](super::HookInput::parse) that come before JSON (size, UTF-8,
/// blank) are returned with the bytes; JSON's own are left to the copying parse.
pub fn parse(bytes: Vec<u8>) -> Result<Parsed, (InputError, Vec<u8>)> {
    let text = match payload_text(&bytes) {
        Ok(t) => t,
        Err(e) => return Err((e, bytes)),
    };
    let Some(found) = large_value(text) else {
        return Ok(Parsed::Copy(bytes));
    };
    let len = found.end - found.start;
    if text.len() - len > len {
        // Most of the payload is elsewhere: the skeleton would copy more than adopting saves.
        return Ok(Parsed::Copy(bytes));
    }
    let skeleton = [&text[..found.start], &text[found.end..]].concat();
    let state = State {
        text: &skeleton,
        target: found.start - 1,
        next: Cell::new(0),
        index: Cell::new(None),
        replaced: Cell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(&skeleton);
    let built = Build { state: &state }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    let (Ok(Value::Object(mut map)), false, Some(index)) =
        (built, state.replaced.get(), state.index.get())
    else {
        return Ok(Parsed::Copy(bytes));
    };
    // Index 0 is the object itself, never a string.
    let mut n = index.saturating_sub(1);
    let Some(slot @ Value::String(_)) = map.values_mut().find_map(|v| nth_mut(v, &mut n)) else {
        return Ok(Parsed::Copy(bytes));
    };
    let mut buf = bytes;
    let len = if found.escaped {
        unescape_to_front(&mut buf, found.start, found.end)
    } else {
        buf.copy_within(found.start..found.end, 0);
        found.end - found.start
    };
    buf.truncate(len);
    // The buffer was sized for the whole payload: give the rest back.
    buf.shrink_to_fit();
    // The bytes came from a `&str`, unescaped by JSON's rules, so they are UTF-8; were they
    // not, `from_utf8_lossy` would mark the bad bytes rather than fail the hook.
    *slot = Value::String(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    });
    Ok(Parsed::Object(map))
}

/// The first string of at least [`ADOPT_MIN_BYTES`] that is the value of an object key
/// (a colon before its opening quote), if it and every string before it hold to JSON's
/// rules ([`string_end`]). Outside strings JSON has no quotes, so the next quote opens the
/// next string; the text between strings is left to serde_json.
fn large_value(text: &str) -> Option<Found> {
    let b = text.as_bytes();
    let mut at = 0;
    loop {
        let open = at + memchr::memchr(b'"', b.get(at..)?)?;
        let start = open + 1;
        let (end, escaped) = string_end(b, start)?;
        let after_colon = b[..open].iter().rev().find(|&&c| !is_json_space(c)) == Some(&b':');
        if end - start >= ADOPT_MIN_BYTES && after_colon {
            return Some(Found {
                start,
                end,
                escaped,
            });
        }
        at = end + 1;
    }
}

/// JSON's whitespace (not `u8::is_ascii_whitespace`, which adds the form feed).
fn is_json_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The offset of the quote that closes the string whose text starts at `start` (just past
/// its opening quote), and whether the string holds escapes; `None` where JSON refuses it:
/// a control character, an escape JSON lacks, a lone surrogate (serde_json's rules), or no
/// closing quote. The text is valid UTF-8 already. A block of [`BLOCK`] bytes at a time: its
/// [`Stops`] say where the bytes to look at are, and the scan goes from one to the next
/// without looking at the plain bytes between (source code has an escape every ~15 bytes).
fn string_end(b: &[u8], start: usize) -> Option<(usize, bool)> {
    let (mut i, mut escaped) = (start, false);
    'blocks: while let Some(block) = b.get(i..i + BLOCK) {
        let mut stops = Stops::of(block).any;
        let base = i;
        while stops != 0 {
            let at = base + stops.trailing_zeros() as usize;
            match b[at] {
                b'"' => return Some((at, escaped)),
                b'\\' => {
                    let next = at + escape_len(&b[at..])?;
                    escaped = true;
                    if next >= base + BLOCK {
                        i = next;
                        continue 'blocks;
                    }
                    stops &= u64::MAX << (next - base);
                }
                _ => return None,
            }
        }
        i = base + BLOCK;
    }
    // The last bytes, fewer than a block.
    loop {
        match *b.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                i += escape_len(&b[i..])?;
                escaped = true;
            }
            0..0x20 => return None,
            _ => i += 1,
        }
    }
}

/// Bytes a scan classifies at once: four 16-byte vectors.
pub(super) const BLOCK: usize = 64;

/// Where a block's bytes that a string's scan stops at are: bit `i` stands for byte `i`.
pub(super) struct Stops {
    /// Backslashes.
    pub(super) backslash: u64,
    /// Backslashes, quotes and control characters.
    pub(super) any: u64,
    /// Bytes that are not ASCII.
    pub(super) high: u64,
}

impl Stops {
    /// Classifies the first [`BLOCK`] bytes of `block` (which has at least that many) with
    /// 16-byte vector compares (SSE2 on x86-64, NEON on AArch64, plain code elsewhere).
    #[inline(always)]
    pub(super) fn of(block: &[u8]) -> Self {
        let (mut backslash, mut any, mut high) = (0, 0, 0);
        for (k, chunk) in block[..BLOCK].chunks_exact(16).enumerate() {
            let mut bytes = [0u8; 16];
            bytes.copy_from_slice(chunk);
            let v = u8x16::new(bytes);
            let bits = |m: u8x16| u64::from(m.to_bitmask()) << (16 * k);
            let b = bits(v.simd_eq(u8x16::splat(b'\\')));
            let quote = bits(v.simd_eq(u8x16::splat(b'"')));
            // At most 0x1f: a control character.
            let control = bits(v.max(u8x16::splat(0x1f)).simd_eq(u8x16::splat(0x1f)));
            backslash |= b;
            any |= b | quote | control;
            high |= bits(v);
        }
        Self {
            backslash,
            any,
            high,
        }
    }
}

/// The bytes the escape at the start of `esc` (a backslash) takes, `None` where serde_json
/// refuses it ([`decode_escape`], without its call for the one-character escapes).
fn escape_len(esc: &[u8]) -> Option<usize> {
    if SIMPLE_ESCAPES[usize::from(*esc.get(1)?)] != 0 {
        return Some(2);
    }
    decode_escape(esc).map(|(_, used)| used)
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

    /// Whether the value of a key starts at the target: `after` is the offset just past the
    /// key's closing quote.
    fn value_at_target(&self, after: usize) -> bool {
        let bytes = self.text.as_bytes();
        let skip_space = |mut i: usize| {
            while bytes.get(i).is_some_and(|&c| is_json_space(c)) {
                i += 1;
            }
            i
        };
        let colon = skip_space(after);
        bytes.get(colon) == Some(&b':') && skip_space(colon + 1) == self.target
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
            if key.after.is_some_and(|after| s.value_at_target(after)) {
                s.index.set(Some(s.next.get()));
            }
            let value = map.next_value_seed(Build { state: s })?;
            if out.insert(key.name, value).is_some() {
                s.replaced.set(true);
            }
        }
        Ok(Value::Object(out))
    }
}

/// Decodes the escape at the start of `esc` (a backslash): the character and the bytes it
/// took, or `None` where serde_json refuses it: an escape JSON lacks, `\u` without four hex
/// digits, a lone surrogate (which JSON's `\u` escapes can spell but a string cannot hold).
pub(super) fn decode_escape(esc: &[u8]) -> Option<(char, usize)> {
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
pub(super) const SIMPLE_ESCAPES: [u8; 256] = {
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

/// Unescapes a string's raw text, `buf[start..end]`, to the front of `buf` and returns its
/// length. Writing never overtakes reading: it starts behind, and an escape takes at least
/// as many bytes as the character it spells. The escapes decode ([`string_end`]); one that
/// did not would be kept as written.
///
/// A block at a time, read into a copy first (with 16 bytes past it), so that writes into the
/// block cannot change what is read: the plain run before each backslash is written with
/// 16-byte stores once writing is 16 bytes or more behind reading (the bytes a store writes
/// past the run are then still to be overwritten), and with a copy of its exact length before.
fn unescape_to_front(buf: &mut [u8], start: usize, end: usize) -> usize {
    let buf = &mut buf[..end];
    let (mut read, mut write) = (start, 0);
    while read + BLOCK + 16 <= buf.len() {
        let mut block = [0u8; BLOCK + 16];
        block.copy_from_slice(&buf[read..read + BLOCK + 16]);
        let mut backslashes = Stops::of(&block).backslash;
        // Offset in `block` of the next byte to read.
        let mut at = 0;
        loop {
            let stop = if backslashes == 0 {
                BLOCK
            } else {
                backslashes.trailing_zeros() as usize
            };
            let run = stop - at;
            if read + at - write >= 16 {
                for k in (0..run).step_by(16) {
                    buf[write + k..write + k + 16].copy_from_slice(&block[at + k..at + k + 16]);
                }
            } else {
                buf[write..write + run].copy_from_slice(&block[at..stop]);
            }
            write += run;
            if backslashes == 0 {
                at = BLOCK;
                break;
            }
            // The escape's bytes are in the copy: it ends at most 12 bytes past the block.
            match SIMPLE_ESCAPES[usize::from(block[stop + 1])] {
                0 => {
                    let (c, used) = decode_escape(&block[stop..]).unwrap_or(('\\', 1));
                    write += c.encode_utf8(&mut buf[write..write + c.len_utf8()]).len();
                    at = stop + used;
                }
                b => {
                    buf[write] = b;
                    write += 1;
                    at = stop + 2;
                }
            }
            if at >= BLOCK {
                break;
            }
            backslashes &= u64::MAX << at;
        }
        read += at;
    }
    // The last bytes, fewer than a block and its margin.
    while read < buf.len() {
        if buf[read] != b'\\' {
            buf[write] = buf[read];
            read += 1;
            write += 1;
            continue;
        }
        let (c, used) = decode_escape(&buf[read..]).unwrap_or(('\\', 1));
        read += used;
        write += c.encode_utf8(&mut buf[write..write + c.len_utf8()]).len();
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

    /// A large key or array element is passed over: the first large value of a key is
    /// taken over.
    #[test]
    fn only_values_of_keys_are_taken_over() {
        let a = big('a');
        // Most of the payload, or it would not be taken over (below).
        let b = "b".repeat(3 * ADOPT_MIN_BYTES);
        for text in [
            format!(r#"{{"x":["{a}"],"c":"{b}"}}"#),
            format!(r#"{{"{a}":1,"c" : "{b}"}}"#),
            format!(r#"{{"x":["s", "{a}" ,{{"c":"{b}"}}]}}"#),
        ] {
            let want: Value = serde_json::from_str(&text).unwrap();
            let Ok(Parsed::Object(map)) = parse(text.clone().into_bytes()) else {
                panic!("not adopted: {}", &text[..20]);
            };
            assert_eq!(Value::Object(map), want);
        }
    }

    /// A large string that is not most of the payload is copied: adopting it would copy the
    /// rest into the skeleton.
    #[test]
    fn strings_that_are_not_most_of_the_payload_are_copied() {
        let a = big('a');
        let rest = "r".repeat(ADOPT_MIN_BYTES + 10);
        for (text, adopted) in [
            (format!(r#"{{"c":"{a}","rest":["{rest}"]}}"#), false),
            (format!(r#"{{"c":"{a}{a}","rest":["{rest}"]}}"#), true),
        ] {
            let got = parse(text.clone().into_bytes()).unwrap();
            assert_eq!(matches!(got, Parsed::Object(_)), adopted);
            assert_eq!(
                Value::Object(object(got)),
                serde_json::from_str::<Value>(&text).unwrap()
            );
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
        let Ok(Parsed::Object(map)) = parse(text.into_bytes()) else {
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

    /// A string read from its opening quote by serde_json: where it ends and whether it
    /// has escapes, or `None` where serde_json refuses it.
    fn serde_string_end(text: &str) -> Option<(usize, bool)> {
        let mut items = serde_json::Deserializer::from_str(text).into_iter::<String>();
        items.next()?.ok()?;
        let end = items.byte_offset() - 1;
        Some((end, text[..end].contains('\\')))
    }

    #[test]
    fn string_ends_as_serde_json_reads_it() {
        let long = "x".repeat(70);
        for body in [
            "\"",
            "abc\"",
            "\\\\\"",
            "a\\\"b\"",
            "\\u00e9\\ud83d\\ude00\"",
            "\\ud83d\"",
            "\\u12\"",
            "\\u12G4\"",
            "\\x\"",
            "a\tb\"",
            "\u{1f}\"",
            "\u{7f}é\"",
            "no end",
            "no end\\",
            &format!("{long}\u{1}{long}\""),
            &format!("{long}\\n{long}\""),
            &format!("{long}{long}\""),
        ] {
            let text = format!("\"{body}");
            assert_eq!(
                string_end(text.as_bytes(), 1),
                serde_string_end(&text),
                "{body:?}"
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
                    let got = parse(text.into_bytes()).map_err(|(e, _)| e).unwrap();
                    let Parsed::Object(map) = got else {
                        return Err(TestCaseError::fail("not adopted"));
                    };
                    prop_assert_eq!(Value::Object(map), want);
                }
                Err(_) => {
                    let got = parse(text.clone().into_bytes()).map_err(|(e, _)| e).unwrap();
                    prop_assert!(matches!(got, Parsed::Copy(ref b) if *b == text.as_bytes()));
                }
            }
        }

        /// Plain runs of every length between the bytes a scan must stop at, wherever
        /// they fall in the 64-byte blocks.
        #[test]
        fn string_end_matches_serde_json(
            pieces in proptest::collection::vec(
                (0usize..80, prop_oneof![
                    Just("\""), Just("\\n"), Just("\\\""), Just("\\u00e9"), Just("\\ud800"),
                    Just("\\q"), Just("\u{1}"), Just("\n"), Just("\u{1f}"), Just("é"),
                    Just("\u{7f}"), Just(" "),
                ]),
                0..8,
            ),
        ) {
            let body: String = pieces.iter().map(|(n, s)| format!("{}{s}", "y".repeat(*n))).collect();
            let text = format!("\"{body}");
            prop_assert_eq!(string_end(text.as_bytes(), 1), serde_string_end(&text));
        }

        /// Escapes at every distance from each other and from the blocks' edges, with
        /// writing less and more than 16 bytes behind reading, unescape as serde_json
        /// unescapes them.
        #[test]
        fn unescaping_matches_serde_json(
            pieces in proptest::collection::vec(
                (0usize..40, prop_oneof![
                    Just("\\n"), Just("\\\""), Just("\\\\"), Just("\\/"), Just("\\u00e9"),
                    Just("\\ud83d\\ude00"), Just("\\u0041"), Just("é"), Just("😀"),
                ]),
                0..60,
            ),
        ) {
            let body: String = pieces.iter().map(|(n, s)| format!("{}{s}", "y".repeat(*n))).collect();
            let text = format!("\"{body}\"");
            let want: String = serde_json::from_str(&text).unwrap();
            let mut buf = text.into_bytes();
            let (end, _) = string_end(&buf, 1).unwrap();
            let len = unescape_to_front(&mut buf, 1, end);
            prop_assert_eq!(&buf[..len], want.as_bytes());
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
