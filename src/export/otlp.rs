//! An audit record as an OpenTelemetry log record, and a batch of them as an OTLP/HTTP
//! request body, in JSON (the OTLP/JSON encoding) or protobuf. Pure.
//!
//! The conventions join with Claude Code's own records (its `claude_code.tool_decision`,
//! ...): the event name `oath.<kind>` is the record's `eventName`, its body and its
//! `event.name` attribute; the join keys keep Claude Code's spelling (`session.id`,
//! `prompt.id`, `tool_use_id`, `tool_name`, strings); every other field of the record is an
//! attribute `oath.<field>`; the record's time is the audit timestamp.

use serde_json::{Map, Value, json};

use crate::redact;

/// The instrumentation scope's name.
pub const SCOPE: &str = "oath";

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyValue {
    /// `stringValue`.
    Str(String),
    /// `intValue`.
    Int(i64),
    /// `doubleValue`.
    Double(f64),
    /// `boolValue`.
    Bool(bool),
}

/// An attribute.
pub type KeyValue = (String, AnyValue);

/// One log record.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// The audit timestamp in nanoseconds since the epoch (0 when the record has none).
    pub time_unix_nano: u64,
    /// `INFO` (9), or `WARN` (13) for a deny and a failed call.
    pub severity: (i32, &'static str),
    /// `oath.<kind>`: also the body and the `event.name` attribute.
    pub event_name: String,
    /// The attributes.
    pub attributes: Vec<KeyValue>,
}

/// Fields of a record named as Claude Code names them in its telemetry.
const JOIN_KEYS: [(&str, &str); 4] = [
    ("session_id", "session.id"),
    ("prompt_id", "prompt.id"),
    ("tool_use_id", "tool_use_id"),
    ("tool_name", "tool_name"),
];

/// Fields whose values are fractions: always `doubleValue`, even when a value is whole.
const DOUBLES: [&str; 5] = [
    "trust_score_before",
    "trust_score_after",
    "autonomy_score",
    "complexity",
    "risk_weight",
];

/// Fields sent only with tool details on (they quote what the agent ran or wrote, or what
/// a command printed): the input, each file of a multi-file edit, observer outputs.
const DETAILS: [&str; 5] = ["tool_input", "updated_input", "effects", "stdout", "stderr"];

/// Where a record came from, for its id and attributes.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The project's folder under the state root (`<name>-<hash>`).
    pub project: &'a str,
    /// The audit file's name.
    pub file: &'a str,
    /// The record's byte offset in the file.
    pub offset: u64,
}

/// The record's stable id: BLAKE3 over the project, the file, the offset and the line, so
/// the same record sent again has the same id and a backend can drop the copy.
pub fn record_id(origin: Origin<'_>, line: &[u8]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(origin.project.as_bytes());
    h.update(&[0]);
    h.update(origin.file.as_bytes());
    h.update(&[0]);
    h.update(&origin.offset.to_le_bytes());
    h.update(line);
    h.finalize().to_hex()[..32].to_owned()
}

/// Maps one audit record (a JSON object) to a log record. `time_millis` is its timestamp.
pub fn map_record(
    record: &Map<String, Value>,
    time_millis: Option<i128>,
    id: String,
    origin: Origin<'_>,
    tool_details: bool,
) -> LogRecord {
    let kind = record
        .get("kind")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
        .unwrap_or("record");
    let event_name = format!("oath.{kind}");
    let mut attributes: Vec<KeyValue> =
        vec![("event.name".into(), AnyValue::Str(event_name.clone()))];
    for (field, name) in JOIN_KEYS {
        if let Some(Value::String(s)) = record.get(field) {
            attributes.push((name.into(), AnyValue::Str(s.clone())));
        }
    }
    attributes.push(("oath.record_id".into(), AnyValue::Str(id)));
    attributes.push(("oath.project".into(), AnyValue::Str(origin.project.into())));
    for (field, value) in record {
        if matches!(field.as_str(), "kind" | "timestamp" | "v")
            || JOIN_KEYS.iter().any(|(f, _)| f == field)
            || (!tool_details && DETAILS.contains(&field.as_str()))
        {
            continue;
        }
        if let Some(v) = any_value(field, value) {
            attributes.push((format!("oath.{field}"), v));
        }
    }
    let warn = match kind {
        "pre" => record.get("decision").and_then(Value::as_str) == Some("deny"),
        "outcome" => record.get("outcome").and_then(Value::as_str) == Some("failure"),
        _ => false,
    };
    LogRecord {
        time_unix_nano: time_millis
            .and_then(|ms| u64::try_from(ms.checked_mul(1_000_000)?).ok())
            .unwrap_or(0),
        severity: if warn { (13, "WARN") } else { (9, "INFO") },
        event_name,
        attributes,
    }
}

/// A field's value as an attribute value, texts redacted: `None` for null. Objects and arrays
/// are sent as their JSON text.
fn any_value(field: &str, value: &Value) -> Option<AnyValue> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => AnyValue::Bool(*b),
        // Redacted again: a trail written by an earlier oath (whose table knew fewer secret
        // formats) or edited by hand leaves the machine masked by today's table.
        Value::String(s) => AnyValue::Str(redact::redact_str(s).into_owned()),
        Value::Number(n) if DOUBLES.contains(&field) => AnyValue::Double(n.as_f64()?),
        Value::Number(n) => match n.as_i64() {
            Some(i) => AnyValue::Int(i),
            None => AnyValue::Double(n.as_f64()?),
        },
        other => AnyValue::Str(redact::redact_str(&other.to_string()).into_owned()),
    })
}

/// The request's body in the OTLP/JSON encoding: camelCase names, 64-bit integers as
/// strings, enums as numbers.
pub fn to_json(resource: &[(String, String)], records: &[LogRecord]) -> Value {
    let attrs = |list: &[KeyValue]| -> Value {
        list.iter()
            .map(|(k, v)| {
                let value = match v {
                    AnyValue::Str(s) => json!({ "stringValue": s }),
                    AnyValue::Int(i) => json!({ "intValue": i.to_string() }),
                    AnyValue::Double(d) => json!({ "doubleValue": d }),
                    AnyValue::Bool(b) => json!({ "boolValue": b }),
                };
                json!({ "key": k, "value": value })
            })
            .collect()
    };
    let resource: Vec<KeyValue> = resource
        .iter()
        .map(|(k, v)| (k.clone(), AnyValue::Str(v.clone())))
        .collect();
    let records: Vec<Value> = records
        .iter()
        .map(|r| {
            let mut o = Map::new();
            if r.time_unix_nano > 0 {
                o.insert("timeUnixNano".into(), json!(r.time_unix_nano.to_string()));
            }
            o.insert("severityNumber".into(), json!(r.severity.0));
            o.insert("severityText".into(), json!(r.severity.1));
            o.insert("body".into(), json!({ "stringValue": r.event_name }));
            o.insert("attributes".into(), attrs(&r.attributes));
            o.insert("eventName".into(), json!(r.event_name));
            Value::Object(o)
        })
        .collect();
    json!({
        "resourceLogs": [{
            "resource": { "attributes": attrs(&resource) },
            "scopeLogs": [{
                "scope": { "name": SCOPE, "version": env!("CARGO_PKG_VERSION") },
                "logRecords": records,
            }],
        }],
    })
}

/// The request's body as protobuf (`ExportLogsServiceRequest`), written by hand: the few
/// messages and fields oath sends.
pub fn to_protobuf(resource: &[(String, String)], records: &[LogRecord]) -> Vec<u8> {
    let mut resource_msg = Vec::new();
    for (k, v) in resource {
        message(
            &mut resource_msg,
            1,
            &key_value(k, &AnyValue::Str(v.clone())),
        );
    }
    let mut scope = Vec::new();
    string(&mut scope, 1, SCOPE);
    string(&mut scope, 2, env!("CARGO_PKG_VERSION"));
    let mut scope_logs = Vec::new();
    message(&mut scope_logs, 1, &scope);
    for r in records {
        let mut rec = Vec::new();
        if r.time_unix_nano > 0 {
            tag(&mut rec, 1, 1);
            rec.extend_from_slice(&r.time_unix_nano.to_le_bytes());
        }
        tag(&mut rec, 2, 0);
        varint(&mut rec, r.severity.0 as u64);
        string(&mut rec, 3, r.severity.1);
        message(
            &mut rec,
            5,
            &any_value_msg(&AnyValue::Str(r.event_name.clone())),
        );
        for (k, v) in &r.attributes {
            message(&mut rec, 6, &key_value(k, v));
        }
        string(&mut rec, 12, &r.event_name);
        message(&mut scope_logs, 2, &rec);
    }
    let mut resource_logs = Vec::new();
    message(&mut resource_logs, 1, &resource_msg);
    message(&mut resource_logs, 2, &scope_logs);
    let mut out = Vec::new();
    message(&mut out, 1, &resource_logs);
    out
}

fn key_value(k: &str, v: &AnyValue) -> Vec<u8> {
    let mut m = Vec::new();
    string(&mut m, 1, k);
    message(&mut m, 2, &any_value_msg(v));
    m
}

fn any_value_msg(v: &AnyValue) -> Vec<u8> {
    let mut m = Vec::new();
    match v {
        AnyValue::Str(s) => string(&mut m, 1, s),
        AnyValue::Bool(b) => {
            tag(&mut m, 2, 0);
            varint(&mut m, u64::from(*b));
        }
        AnyValue::Int(i) => {
            tag(&mut m, 3, 0);
            // int64: two's complement, as a 64-bit varint.
            varint(&mut m, *i as u64);
        }
        AnyValue::Double(d) => {
            tag(&mut m, 4, 1);
            m.extend_from_slice(&d.to_le_bytes());
        }
    }
    m
}

fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn string(out: &mut Vec<u8>, field: u32, s: &str) {
    message(out, field, s.as_bytes());
}

fn message(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    tag(out, field, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin<'static> {
        Origin {
            project: "proj-9a028a04",
            file: "s1.jsonl",
            offset: 120,
        }
    }

    fn map(v: Value, details: bool) -> LogRecord {
        map_record(
            v.as_object().unwrap(),
            Some(1_795_637_291_665),
            "id".into(),
            origin(),
            details,
        )
    }

    fn attr<'a>(r: &'a LogRecord, k: &str) -> Option<&'a AnyValue> {
        r.attributes.iter().find(|(n, _)| n == k).map(|(_, v)| v)
    }

    #[test]
    fn records_map_to_attributes_by_kind_and_type() {
        let s = |v: &str| Some(AnyValue::Str(v.into()));
        let pre = json!({"v":1,"kind":"pre","timestamp":"2026-11-25T20:08:11.665Z","session_id":"s1",
            "prompt_id":"p1","tool_use_id":"t1","tool_name":"Bash","tool_input":{"command":"ls"},
            "domain":"file_read","risk_category":"low","risk_value":1,"complexity":1,"rule":"read",
            "trust_score_before":0.3,"autonomy_score":0.839,"decision":"deny","reason":"r",
            "outcome":"pending","trust_score_after":null,"phase":null,"agent":"claude"});
        let outcome = json!({"v":1,"kind":"outcome","session_id":"s1","tool_use_id":"t1",
            "outcome":"failure","trust_score_before":0.3,"trust_score_after":0.255,
            "trust_applied":true,"duration_ms":12,"hook":"PostToolUseFailure","error":"e"});
        type Case<'a> = (Value, &'a str, Vec<(&'a str, Option<AnyValue>)>, i32);
        let cases: Vec<Case> = vec![
            (
                pre.clone(),
                "oath.pre",
                vec![
                    ("event.name", s("oath.pre")),
                    ("session.id", s("s1")),
                    ("prompt.id", s("p1")),
                    ("tool_use_id", s("t1")),
                    ("tool_name", s("Bash")),
                    ("oath.record_id", s("id")),
                    ("oath.project", s("proj-9a028a04")),
                    ("oath.decision", s("deny")),
                    ("oath.domain", s("file_read")),
                    ("oath.risk_value", Some(AnyValue::Int(1))),
                    ("oath.complexity", Some(AnyValue::Double(1.0))),
                    ("oath.trust_score_before", Some(AnyValue::Double(0.3))),
                    ("oath.autonomy_score", Some(AnyValue::Double(0.839))),
                    ("oath.trust_score_after", None),
                    ("oath.phase", None),
                    ("oath.tool_input", None),
                    ("oath.session_id", None),
                    ("oath.kind", None),
                    ("oath.timestamp", None),
                    ("oath.v", None),
                ],
                13,
            ),
            (
                outcome,
                "oath.outcome",
                vec![
                    ("prompt.id", None),
                    ("oath.outcome", s("failure")),
                    ("oath.trust_score_after", Some(AnyValue::Double(0.255))),
                    ("oath.trust_applied", Some(AnyValue::Bool(true))),
                    ("oath.duration_ms", Some(AnyValue::Int(12))),
                ],
                13,
            ),
            (
                json!({"kind":"event","hook_event_name":"Stop","session_id":"s1"}),
                "oath.event",
                vec![("oath.hook_event_name", s("Stop"))],
                9,
            ),
            (
                json!({"session_id":5}),
                "oath.record",
                vec![("session.id", None), ("oath.session_id", None)],
                9,
            ),
        ];
        for (record, name, expected, severity) in cases {
            let r = map(record.clone(), false);
            assert_eq!(r.event_name, name, "{record}");
            assert_eq!(r.severity.0, severity, "{record}");
            assert_eq!(r.time_unix_nano, 1_795_637_291_665_000_000);
            for (k, v) in expected {
                assert_eq!(attr(&r, k), v.as_ref(), "{name} {k}");
            }
        }
        let r = map(pre, true);
        assert_eq!(
            attr(&r, "oath.tool_input"),
            s(r#"{"command":"ls"}"#).as_ref()
        );
    }

    #[test]
    fn ids_are_stable_and_differ_by_place_and_content() {
        let a = record_id(origin(), b"{}");
        assert_eq!(a, record_id(origin(), b"{}"));
        assert_eq!(a.len(), 32);
        let moved = Origin {
            offset: 121,
            ..origin()
        };
        assert_ne!(a, record_id(moved, b"{}"));
        assert_ne!(a, record_id(origin(), b"{ }"));
        let other = Origin {
            file: "s2.jsonl",
            ..origin()
        };
        assert_ne!(a, record_id(other, b"{}"));
    }

    #[test]
    fn json_encoding_uses_otlp_json_types() {
        let r = map(
            json!({"kind":"pre","risk_value":-3,"decision":"allow"}),
            false,
        );
        let body = to_json(&[("service.name".into(), "oath".into())], &[r]);
        let rec = &body["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
        assert_eq!(rec["timeUnixNano"], "1795637291665000000");
        assert_eq!(rec["body"]["stringValue"], "oath.pre");
        assert_eq!(rec["eventName"], "oath.pre");
        let risk = rec["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["key"] == "oath.risk_value")
            .unwrap();
        assert_eq!(risk["value"], json!({"intValue": "-3"}));
    }

    #[test]
    fn varints_are_protobufs() {
        let mut v = Vec::new();
        varint(&mut v, 300);
        assert_eq!(v, [0xac, 0x02]);
        let mut v = Vec::new();
        varint(&mut v, -1i64 as u64);
        assert_eq!(v.len(), 10);
    }
}
