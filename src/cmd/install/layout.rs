//! Rewriting a settings file without reformatting what oath did not change.
//!
//! The original text is scanned into a tree of spans (where each value, key and member lies),
//! and the new value is written against it: a value equal to the original one at the same
//! place is copied as its original text, byte for byte (`1e10`, `-0`, `1.50`, `"\u00e9"`,
//! a compact nested object); only the objects and arrays oath changed are written anew, in
//! the pretty layout of `serde_json` with the file's indentation, and their unchanged
//! members are again copied. So `"hooks"` may be rewritten while every other key keeps its
//! text.
//!
//! Only install and uninstall use this: the hook's own parsing keeps `serde_json`'s compact
//! numbers (its `arbitrary_precision` feature would change `Number` for the whole binary).

use serde_json::Value;

/// Where a value lies in the original text, and its parts.
#[derive(Debug)]
struct Node {
    /// Byte offset of its first character.
    start: usize,
    /// Byte offset just past its last character.
    end: usize,
    /// What it holds.
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// A string, number, `true`, `false` or `null`.
    Scalar,
    /// An array's elements.
    Array(Vec<Node>),
    /// An object's members in order.
    Object(Vec<Member>),
}

/// One member of an object.
#[derive(Debug)]
struct Member {
    /// The key, unescaped.
    key: String,
    /// Where the key (with its quotes) lies.
    key_span: (usize, usize),
    /// The value.
    value: Node,
}

/// Renders `new` as an edit of `text` (a JSON document `new` was derived from): unchanged
/// values keep their original text, changed containers are written pretty with `indent` per
/// level. `None` when `text` cannot be scanned (it is then rendered from scratch).
pub fn render(text: &str, new: &Value, indent: &str) -> Option<String> {
    let root = scan(text)?;
    let mut out = String::with_capacity(text.len() + 1024);
    Writer { text, indent }.value(&mut out, new, Some(&root), 0);
    Some(out)
}

/// Scans a whole JSON document; `None` unless it is exactly one value with blanks around.
fn scan(text: &str) -> Option<Node> {
    let b = text.as_bytes();
    let mut i = 0;
    let root = value(b, &mut i, 0)?;
    skip_blanks(b, &mut i);
    (i == b.len()).then_some(root)
}

/// Deeper than `serde_json` reads (128), so anything it parsed can be scanned.
const MAX_DEPTH: usize = 256;

fn skip_blanks(b: &[u8], i: &mut usize) {
    while b
        .get(*i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        *i += 1;
    }
}

fn value(b: &[u8], i: &mut usize, depth: usize) -> Option<Node> {
    if depth > MAX_DEPTH {
        return None;
    }
    skip_blanks(b, i);
    let start = *i;
    let kind = match *b.get(*i)? {
        b'{' => {
            *i += 1;
            let mut members = Vec::new();
            skip_blanks(b, i);
            if b.get(*i) == Some(&b'}') {
                *i += 1;
            } else {
                loop {
                    skip_blanks(b, i);
                    let key_start = *i;
                    string(b, i)?;
                    let key_span = (key_start, *i);
                    let key = serde_json::from_slice(&b[key_start..*i]).ok()?;
                    skip_blanks(b, i);
                    if b.get(*i) != Some(&b':') {
                        return None;
                    }
                    *i += 1;
                    let value = value(b, i, depth + 1)?;
                    members.push(Member {
                        key,
                        key_span,
                        value,
                    });
                    if !list_goes_on(b, i, b'}')? {
                        break;
                    }
                }
            }
            Kind::Object(members)
        }
        b'[' => {
            *i += 1;
            let mut elements = Vec::new();
            skip_blanks(b, i);
            if b.get(*i) == Some(&b']') {
                *i += 1;
            } else {
                loop {
                    elements.push(value(b, i, depth + 1)?);
                    if !list_goes_on(b, i, b']')? {
                        break;
                    }
                }
            }
            Kind::Array(elements)
        }
        b'"' => {
            string(b, i)?;
            Kind::Scalar
        }
        _ => {
            while b
                .get(*i)
                .is_some_and(|c| !matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                *i += 1;
            }
            if *i == start {
                return None;
            }
            Kind::Scalar
        }
    };
    Some(Node {
        start,
        end: *i,
        kind,
    })
}

/// After a member or element: `Some(true)` past a comma, `Some(false)` past `close`.
fn list_goes_on(b: &[u8], i: &mut usize, close: u8) -> Option<bool> {
    skip_blanks(b, i);
    let c = *b.get(*i)?;
    *i += 1;
    match c {
        b',' => Some(true),
        c if c == close => Some(false),
        _ => None,
    }
}

/// Moves past a string starting at `i` (its escapes included).
fn string(b: &[u8], i: &mut usize) -> Option<()> {
    if b.get(*i) != Some(&b'"') {
        return None;
    }
    *i += 1;
    loop {
        match *b.get(*i)? {
            b'\\' => *i += 2,
            b'"' => {
                *i += 1;
                return Some(());
            }
            _ => *i += 1,
        }
    }
}

struct Writer<'a> {
    text: &'a str,
    indent: &'a str,
}

impl Writer<'_> {
    fn slice(&self, start: usize, end: usize) -> &str {
        &self.text[start..end]
    }

    /// Whether the original value at `node` equals `new`.
    fn same(&self, node: &Node, new: &Value) -> bool {
        serde_json::from_str::<Value>(self.slice(node.start, node.end)).is_ok_and(|v| v == *new)
    }

    fn newline(&self, out: &mut String, depth: usize) {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(self.indent);
        }
    }

    fn value(&self, out: &mut String, new: &Value, orig: Option<&Node>, depth: usize) {
        if let Some(node) = orig
            && self.same(node, new)
        {
            out.push_str(self.slice(node.start, node.end));
            return;
        }
        match new {
            Value::Object(map) if !map.is_empty() => {
                let members = match orig.map(|n| &n.kind) {
                    Some(Kind::Object(m)) => m.as_slice(),
                    _ => &[],
                };
                out.push('{');
                for (k, (key, v)) in map.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    self.newline(out, depth + 1);
                    // With duplicate keys serde_json keeps the last value.
                    let old = members.iter().rev().find(|m| m.key == *key);
                    match old {
                        Some(m) => out.push_str(self.slice(m.key_span.0, m.key_span.1)),
                        None => out.push_str(&Value::String(key.clone()).to_string()),
                    }
                    out.push_str(": ");
                    self.value(out, v, old.map(|m| &m.value), depth + 1);
                }
                self.newline(out, depth);
                out.push('}');
            }
            Value::Array(items) if !items.is_empty() => {
                let elements = match orig.map(|n| &n.kind) {
                    Some(Kind::Array(e)) => e.as_slice(),
                    _ => &[],
                };
                let mut used = vec![false; elements.len()];
                out.push('[');
                for (k, v) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    self.newline(out, depth + 1);
                    // An element kept as it was (it may have moved: oath removed one before
                    // it), else the one at the same place, whose unchanged parts are kept.
                    let equal =
                        (0..elements.len()).find(|&j| !used[j] && self.same(&elements[j], v));
                    let old = match equal {
                        Some(j) => {
                            used[j] = true;
                            Some(&elements[j])
                        }
                        None => elements.get(k),
                    };
                    self.value(out, v, old, depth + 1);
                }
                self.newline(out, depth);
                out.push(']');
            }
            _ => out.push_str(&new.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn an_unchanged_document_is_its_own_text() {
        for text in [
            r#"{"a":1e10,"b":-0,"c":1.50,"d":"\u00e9\ud83d\ude80","e":{"f":[1,2,{}]}}"#,
            "{\n    \"x\" :  12345678901234567890 ,\"y\":[ ]\n}",
            "[1.0, 2E-3]",
            r#""\"quoted\\""#,
        ] {
            assert_eq!(render(text, &parse(text), "  ").unwrap(), text);
        }
    }

    #[test]
    fn only_changed_containers_are_rewritten() {
        let text = r#"{"n": 1e10, "z": -0, "keep": {"a":1.50,"u":"\u00e9"}, "hooks": {"Mine": [{"x":2E1}]}}"#;
        let mut v = parse(text);
        v["hooks"]["Stop"] = json!([{"hooks": [{"type": "command", "timeout": 30}]}]);
        let out = render(text, &v, "  ").unwrap();
        assert_eq!(
            out,
            r#"{
  "n": 1e10,
  "z": -0,
  "keep": {"a":1.50,"u":"\u00e9"},
  "hooks": {
    "Mine": [{"x":2E1}],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "timeout": 30
          }
        ]
      }
    ]
  }
}"#
        );
        assert_eq!(parse(&out), v);
    }

    #[test]
    fn elements_keep_their_text_when_one_before_them_goes() {
        let text = "[\n  {\"oath\": 1},\n  {\"mine\": 1.0e0},\n  5.00\n]";
        let mut v = parse(text);
        v.as_array_mut().unwrap().remove(0);
        assert_eq!(
            render(text, &v, "  ").unwrap(),
            "[\n  {\"mine\": 1.0e0},\n  5.00\n]"
        );
        // A changed element keeps the text of its unchanged parts.
        let mut v = parse(text);
        v[1]["new"] = json!(true);
        assert_eq!(
            render(text, &v, "  ").unwrap(),
            "[\n  {\"oath\": 1},\n  {\n    \"mine\": 1.0e0,\n    \"new\": true\n  },\n  5.00\n]"
        );
    }

    #[test]
    fn escaped_keys_keep_their_spelling_and_new_keys_are_escaped() {
        let text = r#"{"caf\u00e9": 1, "q": 0}"#;
        let mut v = parse(text);
        v["q"] = json!(2);
        v["new \"one\""] = json!("é");
        assert_eq!(
            render(text, &v, "\t").unwrap(),
            "{\n\t\"caf\\u00e9\": 1,\n\t\"q\": 2,\n\t\"new \\\"one\\\"\": \"é\"\n}"
        );
    }

    #[test]
    fn what_is_not_one_json_value_is_not_scanned() {
        for text in ["", "{", "{} {}", "[1,]x", "{\"a\" 1}", "\"open"] {
            assert!(scan(text).is_none(), "{text:?}");
        }
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, json};

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
            "[ -~é\\u{1F680}\"\\\\]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-d]{1,2}", inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// A number below `n` drawn from `seed` (a linear congruential step).
    fn roll(seed: &mut u64, n: u64) -> u64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 33) % n
    }

    /// Changes `v` as the seed says: members and elements kept, dropped, replaced or added.
    fn edit(v: &Value, seed: &mut u64) -> Value {
        match v {
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    match roll(seed, 6) {
                        0 => {}
                        1 => {
                            out.insert(k.clone(), json!({"new": [1, k]}));
                        }
                        2 | 3 => {
                            out.insert(k.clone(), edit(x, seed));
                        }
                        _ => {
                            out.insert(k.clone(), x.clone());
                        }
                    }
                }
                if roll(seed, 4) == 0 {
                    out.insert("added".into(), json!([{"hooks": []}]));
                }
                Value::Object(out)
            }
            Value::Array(a) => {
                let mut out = Vec::new();
                for x in a {
                    match roll(seed, 6) {
                        0 => {}
                        1 | 2 => out.push(edit(x, seed)),
                        _ => out.push(x.clone()),
                    }
                }
                if roll(seed, 4) == 0 {
                    out.push(json!({"added": true}));
                }
                Value::Array(out)
            }
            other => other.clone(),
        }
    }

    proptest! {
        /// Whatever the edit, the text written reads back as the new value; with no edit it
        /// is the original text.
        #[test]
        fn the_rendering_reads_back_as_the_new_value(
            generated in arb_value(),
            pretty in any::<bool>(),
            mut seed in any::<u64>(),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&generated).unwrap()
            } else {
                generated.to_string()
            };
            // As install reads it (a float may read back one ulp off what was written).
            let orig: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(render(&text, &orig, "  ").unwrap(), text.clone());
            let new = edit(&orig, &mut seed);
            let out = render(&text, &new, "  ").unwrap();
            let back: Value = serde_json::from_str(&out).unwrap();
            prop_assert_eq!(back, new);
        }
    }
}
