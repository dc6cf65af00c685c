//! An OTLP/HTTP receiver on loopback for the export tests (and the real-client test): enough
//! HTTP/1.1 to take POSTs, an answer chosen by the test (200, 500, closing the connection,
//! or never answering), and every logs request decoded strictly with the official
//! definitions (`opentelemetry-proto`): a JSON body must read back as the same JSON (no
//! unknown field, no mistyped value), a protobuf body must encode back to the same bytes.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use prost::Message;
use serde_json::Value;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// 200 with an empty JSON object.
    Ok,
    /// 500.
    Fail,
    /// 400 Bad Request (OTLP: not to be sent again).
    BadRequest,
    /// Closes the connection without answering.
    Close,
    /// Reads the request and never answers.
    Hang,
}

/// One request received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target (`/v1/logs`).
    pub path: String,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// How it was answered.
    pub answered: Mode,
}

impl Request {
    /// Returns a header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Decodes a logs request strictly, by its content type; panics when it does not decode
    /// or does not read back the same.
    pub fn logs(&self) -> ExportLogsServiceRequest {
        match self.header("content-type") {
            Some("application/json") => decode_json(&self.body),
            Some("application/x-protobuf") => decode_protobuf(&self.body),
            other => panic!("unexpected content type {other:?}"),
        }
    }
}

/// Decodes an OTLP/JSON logs request; panics on a field the definitions do not have or a
/// value of the wrong JSON type.
pub fn decode_json(body: &[u8]) -> ExportLogsServiceRequest {
    let sent: Value = serde_json::from_slice(body).expect("the body is JSON");
    let decoded: ExportLogsServiceRequest =
        serde_json::from_slice(body).expect("the body decodes as ExportLogsServiceRequest");
    let back = serde_json::to_value(&decoded).unwrap();
    assert_within(&sent, &back, "$");
    decoded
}

/// Decodes a protobuf logs request; panics when it holds anything the definitions do not
/// (prost skips unknown fields: the bytes must encode back the same).
pub fn decode_protobuf(body: &[u8]) -> ExportLogsServiceRequest {
    let decoded = ExportLogsServiceRequest::decode(body).expect("the body decodes as protobuf");
    assert_eq!(
        decoded.encode_to_vec(),
        body,
        "the protobuf body holds fields or encodings the definitions do not"
    );
    decoded
}

/// Asserts that every field of `sent` is in `back` with the same value (`back` may have
/// more: the defaults the serializer writes).
fn assert_within(sent: &Value, back: &Value, at: &str) {
    match (sent, back) {
        (Value::Object(s), Value::Object(b)) => {
            for (k, v) in s {
                let Some(bv) = b.get(k) else {
                    panic!("{at}.{k}: not a field of the OTLP definitions");
                };
                assert_within(v, bv, &format!("{at}.{k}"));
            }
        }
        (Value::Array(s), Value::Array(b)) => {
            assert_eq!(s.len(), b.len(), "{at}: length");
            for (i, (x, y)) in s.iter().zip(b).enumerate() {
                assert_within(x, y, &format!("{at}[{i}]"));
            }
        }
        (s, b) => assert_eq!(
            s, b,
            "{at}: the value reads back otherwise (wrong JSON type?)"
        ),
    }
}

/// A log record flattened for assertions.
#[derive(Debug, Clone)]
pub struct Flat {
    /// The resource's attributes, as `key -> (type, value)`.
    pub resource: Vec<(String, (&'static str, String))>,
    /// The scope's name.
    pub scope: String,
    /// `timeUnixNano`.
    pub time_unix_nano: u64,
    /// `eventName`.
    pub event_name: String,
    /// The body's string.
    pub body: Option<String>,
    /// The attributes, as `key -> (type, value)`.
    pub attributes: Vec<(String, (&'static str, String))>,
}

impl Flat {
    /// Returns an attribute's type and value.
    pub fn attr(&self, key: &str) -> Option<(&'static str, &str)> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, (t, v))| (*t, v.as_str()))
    }

    /// Returns a string attribute.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.attr(key)
            .and_then(|(t, v)| (t == "stringValue").then_some(v))
    }

    /// Returns a resource attribute's value.
    pub fn resource(&self, key: &str) -> Option<&str> {
        self.resource
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, (_, v))| v.as_str())
    }
}

/// The type (its OTLP/JSON name) and value of an attribute value.
pub fn typed(v: &Option<Any>) -> (&'static str, String) {
    match v {
        Some(Any::StringValue(s)) => ("stringValue", s.clone()),
        Some(Any::BoolValue(b)) => ("boolValue", b.to_string()),
        Some(Any::IntValue(i)) => ("intValue", i.to_string()),
        Some(Any::DoubleValue(d)) => ("doubleValue", d.to_string()),
        Some(Any::ArrayValue(_)) => ("arrayValue", String::new()),
        Some(Any::KvlistValue(_)) => ("kvlistValue", String::new()),
        Some(Any::BytesValue(_)) => ("bytesValue", String::new()),
        Some(Any::StringValueStrindex(_)) => ("stringValueStrindex", String::new()),
        None => ("empty", String::new()),
    }
}

/// Flattens a request's log records.
pub fn flatten(req: &ExportLogsServiceRequest) -> Vec<Flat> {
    let mut out = Vec::new();
    for rl in &req.resource_logs {
        let resource: Vec<_> = rl
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .map(|kv| {
                (
                    kv.key.clone(),
                    typed(&kv.value.as_ref().and_then(|v| v.value.clone())),
                )
            })
            .collect();
        for sl in &rl.scope_logs {
            let scope = sl
                .scope
                .as_ref()
                .map(|s| s.name.clone())
                .unwrap_or_default();
            for r in &sl.log_records {
                out.push(Flat {
                    resource: resource.clone(),
                    scope: scope.clone(),
                    time_unix_nano: r.time_unix_nano,
                    event_name: r.event_name.clone(),
                    body: match r.body.as_ref().and_then(|b| b.value.clone()) {
                        Some(Any::StringValue(s)) => Some(s),
                        _ => None,
                    },
                    attributes: r
                        .attributes
                        .iter()
                        .map(|kv| {
                            (
                                kv.key.clone(),
                                typed(&kv.value.as_ref().and_then(|v| v.value.clone())),
                            )
                        })
                        .collect(),
                });
            }
        }
    }
    out
}

/// The receiver: a listener thread on loopback, left running until the test ends.
pub struct Receiver {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    mode: Arc<Mutex<Mode>>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Receiver {
    /// Starts a receiver answering `mode`.
    pub fn start(mode: Mode) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mode = Arc::new(Mutex::new(mode));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (m, r) = (mode.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (m, r) = (m.clone(), r.clone());
                std::thread::spawn(move || serve(stream, &m, &r));
            }
        });
        Self {
            base,
            mode,
            requests,
        }
    }

    /// Changes how the next requests are answered.
    pub fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The requests to `/v1/logs`.
    pub fn logs(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == "/v1/logs")
            .collect()
    }

    /// The log records of every logs request answered 200, flattened.
    pub fn accepted(&self) -> Vec<Flat> {
        self.logs()
            .iter()
            .filter(|r| r.answered == Mode::Ok)
            .flat_map(|r| flatten(&r.logs()))
            .collect()
    }

    /// Waits (at most `limit`) until `n` requests came.
    pub fn wait_for(&self, n: usize, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.requests.lock().unwrap().len() >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// Returns a loopback URL where nothing listens (connections are refused).
pub fn refused_base() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    drop(l);
    base
}

/// Serves the requests of one connection.
fn serve(stream: TcpStream, mode: &Mutex<Mode>, requests: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let mut out = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let path = first
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            read_chunked(&mut reader)
        } else {
            let len: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            body
        };
        let answered = *mode.lock().unwrap();
        requests.lock().unwrap().push(Request {
            path,
            headers,
            body,
            answered,
        });
        match answered {
            Mode::Ok => {
                let body = "{}";
                let _ = write!(
                    out,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
            Mode::Fail => {
                let body = "collector unavailable";
                let _ = write!(
                    out,
                    "HTTP/1.1 500 Internal Server Error\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
            Mode::BadRequest => {
                let body = "record too old";
                let _ = write!(
                    out,
                    "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
            Mode::Close => return,
            Mode::Hang => {
                std::thread::sleep(Duration::from_secs(60));
                return;
            }
        }
    }
}

fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            return body;
        }
        let n =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        let mut chunk = vec![0; n + 2];
        if reader.read_exact(&mut chunk).is_err() {
            return body;
        }
        if n == 0 {
            return body;
        }
        body.extend_from_slice(&chunk[..n]);
    }
}
