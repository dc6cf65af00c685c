//! Parsing a large payload without copying its largest string.
//!
//! serde_json's `Value` owns every string, so a 1 MB Write's content is copied out of the
//! payload into a fresh megabyte: 256 first-touched pages, a copy and an `munmap`, on top of
//! the megabyte already read. Here the value is built by the same rules as `Value`'s own
//! `Deserialize`, except that the first string of at least [`ADOPT_MIN_BYTES`] that serde_json
//! hands over borrowed (it holds no escape) is left empty and noted; afterwards the payload's
//! own buffer is cut down to that string and put in its place. A string with escapes is
//! unescaped and copied as before.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::input::{InputError, payload_text};

/// Strings shorter than this are copied: adopting only pays for large ones.
pub const ADOPT_MIN_BYTES: usize = 64 * 1024;

/// The string chosen to take over the buffer: its place in the value (pre-order index) and
/// its bytes in the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    index: usize,
    start: usize,
    end: usize,
}

/// What the builder notes while it runs.
struct State {
    /// Address of the payload text: a borrowed string's offset is its address minus this.
    base: usize,
    len: usize,
    /// Pre-order index of the next value.
    next: Cell<usize>,
    found: Cell<Option<Found>>,
    /// A repeated key replaced a value: the pre-order indices may no longer match the tree.
    replaced: Cell<bool>,
}

/// What [`parse`] made of a payload.
#[derive(Debug)]
pub enum Parsed {
    /// The payload's object, its first large unescaped string (if any) in the read buffer.
    Object(Map<String, Value>),
    /// The place of the large string is uncertain (a repeated key replaced a value): parse
    /// these bytes the copying way.
    Copy(Vec<u8>),
}

/// Parses a payload into its object; the first large unescaped string takes over `bytes`.
/// The errors are [`HookInput::parse`](super::HookInput::parse)'s, with the bytes handed back.
pub fn parse(bytes: Vec<u8>) -> Result<Parsed, (InputError, Vec<u8>)> {
    let text = match payload_text(&bytes) {
        Ok(t) => t,
        Err(e) => return Err((e, bytes)),
    };
    let state = State {
        base: text.as_ptr() as usize,
        len: text.len(),
        next: Cell::new(0),
        found: Cell::new(None),
        replaced: Cell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let built = Build { state: &state }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    let mut map = match built {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err((InputError::NotObject, bytes)),
        Err(e) => return Err((InputError::NotJson(e.to_string()), bytes)),
    };
    let Some(found) = state.found.get() else {
        return Ok(Parsed::Object(map));
    };
    if state.replaced.get() {
        return Ok(Parsed::Copy(bytes));
    }
    // Index 0 is the object itself, never a string.
    let mut n = found.index.saturating_sub(1);
    match map.values_mut().find_map(|v| nth_mut(v, &mut n)) {
        Some(slot @ Value::String(_)) if slot.as_str() == Some("") => {
            let mut buf = bytes;
            buf.truncate(found.end);
            buf.drain(..found.start);
            // The read left spare capacity (up to the payload's size again): give it back.
            buf.shrink_to_fit();
            // The range was a `&str` of the text, so this holds; `lossy` keeps every byte
            // even if it did not.
            *slot = Value::String(match String::from_utf8(buf) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            });
            Ok(Parsed::Object(map))
        }
        _ => Ok(Parsed::Copy(bytes)),
    }
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

/// Builds one value (and, through nested seeds, everything inside it).
#[derive(Clone, Copy)]
struct Build<'s> {
    state: &'s State,
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let index = self.state.next.get();
        self.state.next.set(index + 1);
        d.deserialize_any(Visit {
            state: self.state,
            index,
        })
    }
}

/// Visits one value, knowing its pre-order index.
struct Visit<'s> {
    state: &'s State,
    index: usize,
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

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Value, E> {
        let s = self.state;
        let start = (v.as_ptr() as usize).wrapping_sub(s.base);
        let inside = start <= s.len && v.len() <= s.len - start;
        if v.len() >= ADOPT_MIN_BYTES && inside && s.found.get().is_none() {
            s.found.set(Some(Found {
                index: self.index,
                start,
                end: start + v.len(),
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
        while let Some(item) = seq.next_element_seed(Build { state: self.state })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Build { state: self.state })?;
            if out.insert(key, value).is_some() {
                self.state.replaced.set(true);
            }
        }
        Ok(Value::Object(out))
    }
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

    proptest! {
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
