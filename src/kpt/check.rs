//! Checking a YAML document against a JSON Schema, with every problem's field path and line.
//!
//! The YAML is read once into a [`Node`] tree that keeps each node's line (serde-saphyr's
//! `Spanned`), then walked against the schema that schemars derives from the Rust types, so
//! the types stay the single source of the schema. All problems are collected, not just the
//! first. The subset of JSON Schema supported is what schemars emits for these types:
//! `$ref`/`$defs`, `type`, `properties`/`required`/`additionalProperties`, `items`,
//! `enum`/`const`/`oneOf`/`anyOf`, `minimum`/`maximum`, `minItems`, `minLength`, `pattern`
//! (anchored literals, `[0-9]` and `{n}`) and `format: date-time`.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::clock::Timestamp;

/// One problem in a document: where (field path and line) and what.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Issue {
    /// 1-based line in the YAML (0 when unknown).
    pub line: u64,
    /// Field path such as `problem[0].category` (empty for the document).
    pub path: String,
    /// What is wrong, lowercase.
    pub message: String,
}

impl Issue {
    /// Returns an issue.
    pub fn new(line: u64, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            line,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(document)"
        } else {
            &self.path
        };
        write!(f, "line {}: {path}: {}", self.line, self.message)
    }
}

/// A YAML node with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// 1-based line.
    pub line: u64,
    /// The value.
    pub kind: Kind,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `~`, `null` or nothing.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping: key, line of the key, value.
    Map(Vec<(String, u64, Node)>),
}

impl Kind {
    /// Returns a short name of the kind, for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Null => "nothing",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) => "an integer",
            Kind::Float(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a mapping",
        }
    }
}

impl Node {
    /// Returns the value of a key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }

    /// Returns the line of a key of a mapping.
    pub fn key_line(&self, key: &str) -> Option<u64> {
        match &self.kind {
            Kind::Map(entries) => entries
                .iter()
                .find(|(k, _, _)| k == key)
                .map(|(_, l, _)| *l),
            _ => None,
        }
    }

    /// Returns the string value.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Returns the items of a sequence (empty for anything else).
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Seq(items) => items,
            _ => &[],
        }
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Int(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Kind, E> {
        Ok(Kind::Int(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Kind, E> {
        Ok(Kind::Int(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Kind, E> {
        Ok(Kind::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(KindVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Kind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<KeyText>>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key.value.0, key.referenced.line(), value));
        }
        Ok(Kind::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KindVisitor)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<Kind>::deserialize(d)?;
        Ok(Node {
            line: s.referenced.line(),
            kind: s.value,
        })
    }
}

/// A mapping key read as text whatever its scalar type.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Kind::deserialize(d)? {
            Kind::Str(s) => Ok(KeyText(s)),
            Kind::Int(i) => Ok(KeyText(i.to_string())),
            Kind::Bool(b) => Ok(KeyText(b.to_string())),
            Kind::Float(f) => Ok(KeyText(f.to_string())),
            Kind::Null => Ok(KeyText("null".into())),
            other => Err(de::Error::custom(format!(
                "a mapping key must be a scalar, not {}",
                other.describe()
            ))),
        }
    }
}

/// Parses YAML text into a node tree; a syntax error becomes one issue with its line.
pub fn parse(text: &str) -> Result<Node, Issue> {
    if text.trim().is_empty() {
        return Err(Issue::new(1, "", "the document is empty"));
    }
    serde_saphyr::from_str::<Node>(text).map_err(|e| {
        let line = e.location().map(|l| l.line()).unwrap_or(0);
        let msg = e.to_string();
        let first = msg.lines().next().unwrap_or("invalid YAML").to_owned();
        Issue::new(line, "", format!("invalid YAML: {first}"))
    })
}

/// Checks a node tree against a JSON Schema (schemars output) and collects every issue.
pub fn check(schema: &Value, node: &Node) -> Vec<Issue> {
    let mut issues = Vec::new();
    Checker { root: schema }.walk(schema, node, "", &mut issues);
    issues.sort();
    issues
}

struct Checker<'a> {
    root: &'a Value,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Returns the string constants a schema allows when it is a pure string enumeration (after
/// [`resolve`]).
pub fn string_choices(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
    }
    if let Some(c) = schema.get("const").and_then(Value::as_str) {
        return Some(vec![c.to_owned()]);
    }
    let alts = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut out = Vec::new();
    for a in alts {
        out.extend(string_choices(a)?);
    }
    Some(out)
}

fn type_matches(t: &str, kind: &Kind) -> bool {
    match (t, kind) {
        ("null", Kind::Null) => true,
        ("boolean", Kind::Bool(_)) => true,
        ("integer", Kind::Int(_)) => true,
        ("integer", Kind::Float(f)) => f.fract() == 0.0,
        ("number", Kind::Int(_) | Kind::Float(_)) => true,
        ("string", Kind::Str(_)) => true,
        ("array", Kind::Seq(_)) => true,
        ("object", Kind::Map(_)) => true,
        _ => false,
    }
}

fn type_name(t: &str) -> &str {
    match t {
        "null" => "nothing",
        "boolean" => "a boolean (true or false)",
        "integer" => "a whole number",
        "number" => "a number",
        "string" => "a string",
        "array" => "a list",
        "object" => "a mapping",
        other => other,
    }
}

fn number(kind: &Kind) -> Option<f64> {
    match kind {
        Kind::Int(i) => Some(*i as f64),
        Kind::Float(f) => Some(*f),
        _ => None,
    }
}

/// Follows a schema's local `$ref`s (`#/$defs/…` of `root`) to the schema they name.
pub fn resolve<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let Some(ptr) = r.strip_prefix('#') else {
                    return s;
                };
                match root.pointer(ptr) {
                    Some(t) => s = t,
                    None => return s,
                }
            }
            None => return s,
        }
    }
    s
}

impl Checker<'_> {
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        resolve(self.root, schema)
    }

    fn walk(&self, schema: &Value, node: &Node, path: &str, out: &mut Vec<Issue>) {
        let schema = self.resolve(schema);
        if let Some(choices) = string_choices(schema) {
            match &node.kind {
                Kind::Str(s) if choices.iter().any(|c| c == s) => {}
                Kind::Str(s) => out.push(Issue::new(
                    node.line,
                    path,
                    format!("`{s}` is not one of {}", choices.join(", ")),
                )),
                other => out.push(Issue::new(
                    node.line,
                    path,
                    format!(
                        "expected one of {}, found {}",
                        choices.join(", "),
                        other.describe()
                    ),
                )),
            }
            return;
        }
        if let Some(alts) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            let is_null = |a: &Value| a.get("type").and_then(Value::as_str) == Some("null");
            if node.kind == Kind::Null && alts.iter().any(is_null) {
                return;
            }
            let rest: Vec<&Value> = alts.iter().filter(|a| !is_null(a)).collect();
            if rest.len() == 1 {
                self.walk(rest[0], node, path, out);
                return;
            }
            let mut best: Option<Vec<Issue>> = None;
            for a in rest {
                let mut tmp = Vec::new();
                self.walk(a, node, path, &mut tmp);
                if tmp.is_empty() {
                    return;
                }
                if best.as_ref().is_none_or(|b| tmp.len() < b.len()) {
                    best = Some(tmp);
                }
            }
            out.extend(best.unwrap_or_default());
            return;
        }
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !types.is_empty() && !types.iter().any(|t| type_matches(t, &node.kind)) {
                let wanted: Vec<&str> = types
                    .iter()
                    .filter(|t| **t != "null")
                    .map(|t| type_name(t))
                    .collect();
                let msg = if node.kind == Kind::Null {
                    format!("expected {}, found nothing", wanted.join(" or "))
                } else {
                    format!(
                        "expected {}, found {}",
                        wanted.join(" or "),
                        node.kind.describe()
                    )
                };
                out.push(Issue::new(node.line, path, msg));
                return;
            }
        }
        match &node.kind {
            Kind::Str(s) => self.string(schema, s, node.line, path, out),
            Kind::Int(_) | Kind::Float(_) => {
                let v = number(&node.kind).unwrap_or(0.0);
                if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                    && v < min
                {
                    out.push(Issue::new(
                        node.line,
                        path,
                        format!("{v} is below the minimum {min}"),
                    ));
                }
                if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                    && v > max
                {
                    out.push(Issue::new(
                        node.line,
                        path,
                        format!("{v} is above the maximum {max}"),
                    ));
                }
            }
            Kind::Seq(items) => {
                if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                    && (items.len() as u64) < min
                {
                    out.push(Issue::new(
                        node.line,
                        path,
                        format!("needs at least {min} item(s)"),
                    ));
                }
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        self.walk(item_schema, item, &format!("{path}[{i}]"), out);
                    }
                }
            }
            Kind::Map(entries) => self.object(schema, node, entries, path, out),
            Kind::Null | Kind::Bool(_) => {}
        }
    }

    fn string(&self, schema: &Value, s: &str, line: u64, path: &str, out: &mut Vec<Issue>) {
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && (s.chars().count() as u64) < min
        {
            out.push(Issue::new(line, path, "must not be empty"));
        }
        if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
            match pattern_matches(p, s) {
                Some(true) => {}
                Some(false) => out.push(Issue::new(
                    line,
                    path,
                    format!("`{s}` does not match the pattern {p}"),
                )),
                None => out.push(Issue::new(
                    line,
                    path,
                    format!("internal: unsupported pattern {p}"),
                )),
            }
        }
        if schema.get("format").and_then(Value::as_str) == Some("date-time")
            && Timestamp::parse(s).is_none()
        {
            out.push(Issue::new(
                line,
                path,
                format!("`{s}` is not an ISO 8601 date-time such as 2026-02-08T15:00:00Z"),
            ));
        }
    }

    fn object(
        &self,
        schema: &Value,
        node: &Node,
        entries: &[(String, u64, Node)],
        path: &str,
        out: &mut Vec<Issue>,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        let mut seen: Vec<&str> = Vec::new();
        for (key, key_line, value) in entries {
            let p = join(path, key);
            if seen.contains(&key.as_str()) {
                out.push(Issue::new(*key_line, &p, "duplicate key"));
                continue;
            }
            seen.push(key);
            match props.and_then(|m| m.get(key)) {
                Some(s) => self.walk(s, value, &p, out),
                None => {
                    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                        let known: Vec<&str> = props
                            .map(|m| m.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let hint = suggest(key, &known)
                            .map(|s| format!(" (did you mean `{s}`?)"))
                            .unwrap_or_default();
                        out.push(Issue::new(
                            *key_line,
                            &p,
                            format!("unknown field{hint}; known fields: {}", known.join(", ")),
                        ));
                    }
                }
            }
        }
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !entries.iter().any(|(k, _, _)| k == req) {
                out.push(Issue::new(
                    node.line,
                    join(path, req),
                    "required field is missing",
                ));
            }
        }
    }
}

/// Returns the closest known name when it is close enough to be a typo.
fn suggest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    crate::suggest::closest(word, known.iter().copied())
}

/// Matches an anchored pattern made of literal characters, `[0-9]` (or `\d`) and `{n}`
/// repetitions. Returns `None` for a pattern outside that subset.
pub fn pattern_matches(pattern: &str, s: &str) -> Option<bool> {
    let p = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut atoms: Vec<(Option<char>, usize)> = Vec::new(); // None = digit
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let atom = match chars[i] {
            '[' => {
                let class: String = chars[i..].iter().take(5).collect();
                if class != "[0-9]" {
                    return None;
                }
                i += 5;
                None
            }
            '\\' => {
                if chars.get(i + 1) != Some(&'d') {
                    return None;
                }
                i += 2;
                None
            }
            c if c.is_alphanumeric() || c == '-' || c == '_' => {
                i += 1;
                Some(c)
            }
            _ => return None,
        };
        let mut count = 1;
        if chars.get(i) == Some(&'{') {
            let end = chars[i..].iter().position(|c| *c == '}')? + i;
            count = chars[i + 1..end].iter().collect::<String>().parse().ok()?;
            i = end + 1;
        }
        atoms.push((atom, count));
    }
    let mut it = s.chars();
    for (atom, count) in atoms {
        for _ in 0..count {
            let Some(c) = it.next() else {
                return Some(false);
            };
            let ok = match atom {
                None => c.is_ascii_digit(),
                Some(l) => c == l,
            };
            if !ok {
                return Some(false);
            }
        }
    }
    Some(it.next().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let p = "^kpt-[0-9]{8}-[0-9]{3}$";
        assert_eq!(pattern_matches(p, "kpt-20260208-001"), Some(true));
        assert_eq!(pattern_matches(p, "kpt-2026028-001"), Some(false));
        assert_eq!(pattern_matches(p, "kpt-20260208-0011"), Some(false));
        assert_eq!(pattern_matches("^keep-\\d{3}$", "keep-012"), Some(true));
        assert_eq!(pattern_matches("^a+$", "aa"), None);
    }

    #[test]
    fn tree_keeps_lines_of_keys_and_items() {
        let n = parse("a: 1\nlist:\n  - x: y\n  - z\nempty:\n").unwrap();
        assert_eq!(n.key_line("list"), Some(2));
        let list = n.get("list").unwrap();
        assert_eq!(list.items()[0].line, 3);
        assert_eq!(list.items()[1].line, 4);
        assert_eq!(list.items()[0].key_line("x"), Some(3));
        assert_eq!(n.get("empty").unwrap().kind, Kind::Null);
        assert_eq!(n.get("a").unwrap().kind, Kind::Int(1));
        let err = parse("a: [1\n").unwrap_err();
        assert!(err.line >= 1, "{err}");
    }
}
