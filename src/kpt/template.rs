//! The draft as a template to fill: the YAML `oath kpt new` writes.
//!
//! Every required field is present. What oath measured is filled in; what takes judgement is a
//! `TODO(judgement)` placeholder, including one `keep` item and, when the report has a problem
//! or omission to address, one `try` item. A comment above each top-level field says whether
//! it is required, what it holds and its allowed values, and above each list the shape of its
//! items, field by field. Comments and placeholder items are generated from the report's JSON
//! Schema, the one validation checks against, so they cannot drift from it.
//!
//! The untouched template does not validate: a placeholder in a field with allowed values
//! (`category`, `scope`) or in `try.addresses` is not a valid value, and `--complete` names every
//! placeholder. Replacing the placeholders, and nothing else, gives a valid report.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::check::{self, resolve, string_choices};
use super::report::{JUDGEMENT, Report};

/// Header written above a draft.
pub const HEADER: &str = "\
# KPT retrospective draft written by `oath kpt new`: a template to fill.
# metrics, oath and the evidence of each problem and omission were computed from the
# transcript and oath's audit trail: do not edit them. Replace every TODO(judgement)
# placeholder; the comment above each field says what it takes and which values are allowed.
# outcome, impact, category and risk_level are oath's suggestions: review them. Add items
# in the shape the comments show; remove a placeholder item you leave unused.
# `oath kpt validate --complete FILE` names every placeholder or mistake left, with its line.
";

/// What is said of the fields oath writes itself.
const WRITTEN_BY_OATH: &[(&str, &str)] = &[
    ("id", "set by oath"),
    ("created_at", "set by oath"),
    ("session_id", "set by oath"),
    (
        "metrics",
        "computed by oath from the transcript: do not edit",
    ),
    ("oath", "computed by oath from its audit trail: do not edit"),
    ("feedback_integration", "set by `oath kpt feedback`"),
];

/// The report's schema, read for comments and placeholders.
struct Doc {
    root: Value,
}

/// Returns the first type a schema names other than `null`.
fn kind(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

/// Returns a property's description without its final period, or nothing when it only
/// repeats the field's name (`Category.`).
fn phrase(property: &Value, name: &str) -> Option<String> {
    let d = property.get("description").and_then(Value::as_str)?.trim();
    let d = d.strip_suffix('.').unwrap_or(d);
    if d.is_empty() || d.eq_ignore_ascii_case(&name.replace('_', " ")) {
        return None;
    }
    Some(d.to_owned())
}

/// Returns the first id a pattern of the checker's subset (`^keep-[0-9]{3}$`) allows with `n`
/// in its last run of digits (`keep-001`).
pub fn id_from_pattern(pattern: &str, n: usize) -> Option<String> {
    let p = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut parts: Vec<(Option<char>, usize)> = Vec::new(); // None = digit
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let atom = if chars[i..].starts_with(&['[', '0', '-', '9', ']']) {
            i += 5;
            None
        } else if chars[i].is_alphanumeric() || chars[i] == '-' || chars[i] == '_' {
            i += 1;
            Some(chars[i - 1])
        } else {
            return None;
        };
        let mut count = 1;
        if chars.get(i) == Some(&'{') {
            let end = chars[i..].iter().position(|c| *c == '}')? + i;
            count = chars[i + 1..end].iter().collect::<String>().parse().ok()?;
            i = end + 1;
        }
        match (atom, parts.last_mut()) {
            (None, Some((None, c))) => *c += count,
            _ => parts.push((atom, count)),
        }
    }
    let last_digits = parts.iter().rposition(|(a, _)| a.is_none())?;
    let mut out = String::new();
    for (i, (atom, count)) in parts.iter().enumerate() {
        match atom {
            Some(c) => out.extend(std::iter::repeat_n(*c, *count)),
            None if i == last_digits => {
                let digits = format!("{n:0count$}");
                if digits.len() > *count {
                    return None;
                }
                out.push_str(&digits);
            }
            None => out.extend(std::iter::repeat_n('0', *count)),
        }
    }
    Some(out)
}

impl Doc {
    fn new() -> Self {
        Self {
            root: Report::schema(),
        }
    }

    /// The schema of a value: `$ref`s followed, an optional's `null` alternative set aside.
    fn value<'s>(&'s self, schema: &'s Value) -> &'s Value {
        let s = resolve(&self.root, schema);
        if let Some(alts) = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array)
        {
            let rest: Vec<&Value> = alts
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if let [one] = rest[..] {
                return self.value(one);
            }
        }
        s
    }

    /// The values a field allows when it is a choice.
    fn choices(&self, property: &Value) -> Option<Vec<String>> {
        string_choices(self.value(property))
    }

    /// The object schema of a list's items, when they are objects.
    fn item_object<'s>(&'s self, list: &'s Value) -> Option<&'s Value> {
        let list = self.value(list);
        let item = self.value(list.get("items")?);
        item.get("properties").and_then(Value::as_object)?;
        Some(item)
    }

    fn properties<'s>(&'s self, object: &'s Value) -> Vec<(&'s str, &'s Value, bool)> {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        object
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.as_str(), v, required.contains(&k.as_str())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `required: a | b (what it is)`: what a comment says of a field.
    fn note(&self, property: &Value, name: &str, required: bool) -> String {
        let need = if required { "required" } else { "optional" };
        let what = phrase(property, name);
        let min_items = self
            .value(property)
            .get("minItems")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0);
        let need = match min_items {
            Some(n) => format!("{need}, at least {n} item{}", if n == 1 { "" } else { "s" }),
            None => need.to_owned(),
        };
        match (self.choices(property), what) {
            (Some(c), Some(w)) => format!("{need}: {} ({w})", c.join(" | ")),
            (Some(c), None) => format!("{need}: {}", c.join(" | ")),
            (None, Some(w)) => format!("{need}: {w}"),
            (None, None) => need,
        }
    }

    /// An example value of a field, for the shape of items.
    fn example(&self, property: &Value) -> String {
        if let Some(c) = self.choices(property) {
            return c.first().cloned().unwrap_or_default();
        }
        let s = self.value(property);
        if let Some(id) = s
            .get("pattern")
            .and_then(Value::as_str)
            .and_then(|p| id_from_pattern(p, 1))
        {
            return id;
        }
        match kind(s) {
            Some("array") => match s.get("items").and_then(|i| self.choices(i)) {
                Some(c) => format!("[{}]", c.first().cloned().unwrap_or_default()),
                None => "[...]".into(),
            },
            Some("object") => String::new(),
            Some("integer" | "number") => "0".into(),
            Some("boolean") => "false".into(),
            _ => "...".into(),
        }
    }

    /// The shape of an object, one `(yaml, note)` line per field, nested objects indented.
    fn shape(&self, object: &Value, indent: usize, dash: bool, out: &mut Vec<(String, String)>) {
        for (i, (name, property, required)) in self.properties(object).into_iter().enumerate() {
            let lead = if dash && i == 0 {
                format!("{}- ", " ".repeat(indent))
            } else {
                " ".repeat(indent + if dash { 2 } else { 0 })
            };
            let example = self.example(property);
            let yaml = if example.is_empty() {
                format!("{lead}{name}:")
            } else {
                format!("{lead}{name}: {example}")
            };
            out.push((yaml, self.note(property, name, required)));
            let inner = self.value(property);
            if kind(inner) == Some("object") && inner.get("properties").is_some() {
                self.shape(inner, indent + if dash { 4 } else { 2 }, false, out);
            }
        }
    }

    /// A placeholder for a required field: an id from its pattern, `TODO(judgement)` for a
    /// choice, `TODO(judgement): what it is` for a text, one placeholder item for a list.
    fn placeholder(&self, property: &Value, name: &str, n: usize) -> Value {
        if self.choices(property).is_some() {
            return Value::String(JUDGEMENT.into());
        }
        let s = self.value(property);
        if let Some(id) = s
            .get("pattern")
            .and_then(Value::as_str)
            .and_then(|p| id_from_pattern(p, n))
        {
            return Value::String(id);
        }
        let text = match phrase(property, name) {
            Some(w) => format!("{JUDGEMENT}: {w}"),
            None => JUDGEMENT.to_owned(),
        };
        match kind(s) {
            Some("array") => {
                let item = s.get("items").map(|i| self.value(i));
                Value::Array(vec![match item {
                    Some(i) if self.choices(i).is_some() => Value::String(JUDGEMENT.into()),
                    Some(i) if kind(i) == Some("object") => self.item(i, 1),
                    _ => Value::String(text),
                }])
            }
            Some("object") => self.item(s, n),
            _ => Value::String(text),
        }
    }

    /// An item with a placeholder in each required field.
    fn item(&self, object: &Value, n: usize) -> Value {
        let mut m = Map::new();
        for (name, property, required) in self.properties(object) {
            if required {
                m.insert(name.to_owned(), self.placeholder(property, name, n));
            }
        }
        Value::Object(m)
    }

    /// The comment above a top-level field.
    fn comment(&self, key: &str, property: &Value, required: bool, ids: &[String]) -> Vec<String> {
        let mut first = format!("# {key}, {}", self.note(property, key, required));
        if let Some((_, said)) = WRITTEN_BY_OATH.iter().find(|(k, _)| *k == key) {
            first.push_str(&format!("; {said}"));
        }
        let Some(item) = self.item_object(property) else {
            return vec![first];
        };
        first.push_str(". Each item:");
        let mut shape = Vec::new();
        self.shape(item, 0, true, &mut shape);
        let width = shape
            .iter()
            .map(|(y, _)| y.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = vec![first];
        for (yaml, note) in shape {
            let pad = width - yaml.chars().count();
            out.push(format!("#   {yaml}{}  # {note}", " ".repeat(pad)));
        }
        if key == "try" {
            out.push(if ids.is_empty() {
                "#   no problem or omission to address yet: a try answers one (its id in addresses)"
                    .to_owned()
            } else {
                format!("#   ids addresses can name: {}", ids.join(", "))
            });
        }
        out
    }
}

/// Writes a report as a template to fill: [`HEADER`], the report with placeholder `keep` and
/// `try` items where they are empty, and a comment above each top-level field.
pub fn render(report: &Report) -> Result<String, String> {
    let doc = Doc::new();
    let mut value =
        serde_json::to_value(report).map_err(|e| format!("cannot write the draft: {e}"))?;
    let ids: Vec<String> = report
        .problem
        .iter()
        .map(|p| p.id.clone())
        .chain(report.omission.iter().map(|o| o.id.clone()))
        .collect();
    let top = doc.properties(&doc.root);
    let top_property = |key: &str| top.iter().find(|(k, _, _)| *k == key).map(|(_, p, _)| *p);
    for (key, wanted) in [("keep", true), ("try", !ids.is_empty())] {
        let Some(list) = value.get_mut(key).and_then(Value::as_array_mut) else {
            continue;
        };
        if let (true, true, Some(item)) = (
            wanted,
            list.is_empty(),
            top_property(key).and_then(|p| doc.item_object(p)),
        ) {
            list.push(doc.item(item, 1));
        }
    }
    let yaml = super::to_yaml(&value)?;
    let tree = check::parse(&yaml).map_err(|e| format!("cannot write the draft: {e}"))?;
    let mut comments: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    if let check::Kind::Map(entries) = &tree.kind {
        for (key, line, _) in entries {
            if let Some((_, property, required)) = top.iter().find(|(k, _, _)| k == key) {
                comments.insert(*line, doc.comment(key, property, *required, &ids));
            }
        }
    }
    let mut out = String::from(HEADER);
    for (i, line) in yaml.lines().enumerate() {
        if let Some(c) = comments.get(&(i as u64 + 1)) {
            out.push('\n');
            for l in c {
                out.push_str(l);
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpt::report::{self, Outcome, Problem, ProblemCategory};

    fn report(problems: usize) -> Report {
        Report {
            id: "kpt-20260208-001".into(),
            created_at: "2026-02-08T15:00:00Z".into(),
            session_id: Some("s".into()),
            session_summary: format!("{JUDGEMENT}: summarize the session"),
            task_goals: vec![format!("{JUDGEMENT}: state the goals")],
            outcome: Outcome::Success,
            keep: Vec::new(),
            problem: (1..=problems)
                .map(|i| Problem {
                    id: format!("prob-{i:03}"),
                    description: "`cargo test` failed".into(),
                    impact: report::Level::Medium,
                    evidence: "transcript line 7".into(),
                    category: ProblemCategory::Error,
                    root_cause: Some(format!("{JUDGEMENT}: why did this happen?")),
                    turn_range: None,
                })
                .collect(),
            tries: Vec::new(),
            omission: Vec::new(),
            metrics: Some(report::Metrics::default()),
            oath: Some(report::OathFacts::default()),
            feedback_integration: Some(report::FeedbackIntegration {
                enabled: false,
                generated_feedback_id: None,
            }),
        }
    }

    /// The comment block right above a top-level key.
    fn comment_above(text: &str, key: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("{key}:")))
            .unwrap_or_else(|| panic!("no {key}: in\n{text}"));
        let mut block: Vec<String> = lines[..at]
            .iter()
            .rev()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.to_string())
            .collect();
        block.reverse();
        block
    }

    #[test]
    fn ids_come_from_the_schema_patterns() {
        for (pattern, n, id) in [
            ("^keep-[0-9]{3}$", 1, "keep-001"),
            ("^try-[0-9]{3}$", 12, "try-012"),
            ("^kpt-[0-9]{8}-[0-9]{3}$", 2, "kpt-00000000-002"),
        ] {
            let got = id_from_pattern(pattern, n).unwrap();
            assert_eq!(got, id);
            assert_eq!(check::pattern_matches(pattern, &got), Some(true));
        }
        assert_eq!(id_from_pattern("^keep-[0-9]{3}$", 1000), None);
        assert_eq!(id_from_pattern("^a+$", 1), None);
    }

    /// Every field of every item type, nested ones included, is in the comment above its list,
    /// marked required or optional as the schema says, with every value it allows.
    #[test]
    fn comments_name_each_field_its_need_and_every_allowed_value_from_the_schema() {
        let text = render(&report(1)).unwrap();
        let doc = Doc::new();
        let mut checked = 0;
        for (key, property, _) in doc.properties(&doc.root) {
            let block = comment_above(&text, key).join("\n");
            let Some(item) = doc.item_object(property) else {
                assert!(!block.is_empty(), "{key} has no comment");
                if let Some(c) = doc.choices(property) {
                    assert!(block.contains(&c.join(" | ")), "{key}: {block}");
                }
                continue;
            };
            let mut objects = vec![item];
            while let Some(object) = objects.pop() {
                for (name, p, required) in doc.properties(object) {
                    let need = if required { "required" } else { "optional" };
                    let line = block
                        .lines()
                        .find(|l| {
                            l.trim_start_matches(['#', ' ', '-'])
                                .starts_with(&format!("{name}:"))
                        })
                        .unwrap_or_else(|| panic!("{key}.{name} missing from\n{block}"));
                    assert!(line.contains(&format!("# {need}")), "{key}.{name}: {line}");
                    if let Some(c) = doc.choices(p) {
                        assert!(line.contains(&c.join(" | ")), "{key}.{name}: {line}");
                    }
                    let inner = doc.value(p);
                    if inner.get("properties").is_some() {
                        objects.push(inner);
                    }
                    checked += 1;
                }
            }
        }
        // keep 5, problem 7, try 5 + persistence_target 3, omission 6.
        assert_eq!(checked, 26);
    }

    /// The keep and try placeholder items hold exactly the required fields of their type.
    #[test]
    fn placeholder_items_hold_every_required_field() {
        let text = render(&report(2)).unwrap();
        let tree = check::parse(&text).unwrap();
        let doc = Doc::new();
        for key in ["keep", "try"] {
            let property = &doc.root["properties"][key];
            let item = doc.item_object(property).unwrap();
            let required: Vec<&str> = doc
                .properties(item)
                .into_iter()
                .filter(|(_, _, r)| *r)
                .map(|(n, _, _)| n)
                .collect();
            let items = tree.get(key).unwrap().items();
            assert_eq!(items.len(), 1, "{key}");
            let check::Kind::Map(entries) = &items[0].kind else {
                panic!("{key}[0] is not a mapping")
            };
            let got: Vec<&str> = entries.iter().map(|(k, _, _)| k.as_str()).collect();
            assert_eq!(got, required, "{key}");
        }
        assert!(text.contains("#   ids addresses can name: prob-001, prob-002\n"));
        // Every placeholder is one validation points at, and nothing else is wrong.
        assert!(report::validate(&text, Some("kpt-20260208-001")).is_err());
        assert_eq!(
            report::issues_beyond_placeholders(&text, Some("kpt-20260208-001")),
            Vec::new()
        );
    }

    /// With nothing to address, no try placeholder (it could not be filled validly).
    #[test]
    fn without_a_problem_or_omission_try_stays_empty_with_a_note() {
        let text = render(&report(0)).unwrap();
        let tree = check::parse(&text).unwrap();
        assert!(tree.get("try").unwrap().items().is_empty());
        assert_eq!(tree.get("keep").unwrap().items().len(), 1);
        assert!(
            comment_above(&text, "try")
                .last()
                .unwrap()
                .contains("no problem or omission to address yet")
        );
    }

    /// Fields oath fills say so; a report given keep and try items gets no placeholder.
    #[test]
    fn written_fields_say_who_writes_them_and_items_are_kept() {
        let mut r = report(1);
        let text = render(&r).unwrap();
        assert_eq!(
            comment_above(&text, "outcome"),
            ["# outcome, required: success | partial | failure (How it ended)"]
        );
        assert!(comment_above(&text, "id")[0].ends_with("; set by oath"));
        r.keep.push(report::Keep {
            id: "keep-001".into(),
            description: "small commits".into(),
            evidence: "transcript line 3".into(),
            category: report::KeepCategory::Approach,
            reusability: None,
        });
        r.tries.push(report::Try {
            id: "try-001".into(),
            description: "run the tests first".into(),
            addresses: vec!["prob-001".into()],
            scope: report::TryScope::Session,
            persistence_target: None,
        });
        let text = render(&r).unwrap();
        assert!(!text.contains(&format!("category: {JUDGEMENT}")));
        let body: String = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert!(!body.contains("scope: TODO"), "{text}");
        report::validate(&text, Some("kpt-20260208-001")).unwrap();
    }
}
