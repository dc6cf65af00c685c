//! A loopback stand-in for the Anthropic Messages API: serves scripted model turns as SSE
//! streams and records every request it receives.
//!
//! HTTP/1.1 over `std::net` (`loopback.rs`, shared with the Codex and Gemini mocks). The scripted turn
//! is chosen from the number of `tool_result` blocks already in the request, so a turn
//! follows the results of every tool the turns before it asked for (including calls a hook
//! or the permission flow refused, which also come back as `tool_result`s).

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

pub use crate::loopback::Recorded;
use crate::loopback::{Loopback, Reply};

/// The model name put in every response.
pub const MODEL: &str = "claude-e2e-mock";

/// One tool call the scripted model makes.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// Tool name (`Bash`, `Read`, ...).
    pub name: String,
    /// Tool input object.
    pub input: Value,
}

/// Shorthand for a tool call.
pub fn tool(name: &str, input: Value) -> ToolCall {
    ToolCall {
        name: name.to_owned(),
        input,
    }
}

/// Shorthand for a Bash call.
pub fn bash(command: &str) -> ToolCall {
    tool(
        "Bash",
        json!({"command": command, "description": "scripted e2e step"}),
    )
}

/// One scripted assistant turn.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Calls these tools in one message (stop reason `tool_use`).
    Tools(Vec<ToolCall>),
    /// Answers with text and ends the turn (stop reason `end_turn`).
    Text(String),
}

/// The turns of one session, in order; after the last one the model says "Done.".
#[derive(Debug, Clone, Default)]
pub struct Script {
    turns: Vec<Turn>,
}

impl Script {
    /// Returns an empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a turn calling one tool.
    pub fn call(mut self, call: ToolCall) -> Self {
        self.turns.push(Turn::Tools(vec![call]));
        self
    }

    /// Adds a turn calling several tools at once.
    pub fn calls(mut self, calls: Vec<ToolCall>) -> Self {
        self.turns.push(Turn::Tools(calls));
        self
    }

    /// Adds a text turn that ends the session.
    pub fn say(mut self, text: &str) -> Self {
        self.turns.push(Turn::Text(text.to_owned()));
        self
    }

    /// Returns the turn to play when the request already holds `results` tool results.
    fn turn_for(&self, results: usize) -> Turn {
        let mut seen = 0;
        for turn in &self.turns {
            if seen == results {
                return turn.clone();
            }
            match turn {
                Turn::Tools(calls) => seen += calls.len(),
                Turn::Text(_) => break,
            }
        }
        Turn::Text("Done.".into())
    }
}

impl Recorded {
    /// Returns whether this is a model turn of the main loop (a Messages call offering tools).
    pub fn is_main_turn(&self) -> bool {
        self.method == "POST"
            && self.path.starts_with("/v1/messages")
            && !self.path.contains("count_tokens")
            && self.body.get("tools").is_some()
    }
}

/// A tool use the server sent, with the id it gave it.
#[derive(Debug, Clone)]
pub struct SentToolUse {
    /// The `tool_use_id`.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Tool input.
    pub input: Value,
}

struct Shared {
    script: Script,
    /// Tool uses sent, keyed by the number of results that selected their turn, so a
    /// retried request gets the same ids.
    sent: Mutex<Vec<(usize, Vec<SentToolUse>)>>,
    prefix: String,
    counter: AtomicU64,
}

/// The running server; stops when dropped.
pub struct MockServer {
    http: Loopback,
    shared: Arc<Shared>,
}

static SERVERS: AtomicU64 = AtomicU64::new(0);

impl MockServer {
    /// Starts a server on a free loopback port playing `script`.
    pub fn start(script: Script) -> Self {
        // Tool-use ids must be unique across sessions of one project: oath remembers applied
        // outcomes by id.
        let n = SERVERS.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let shared = Arc::new(Shared {
            script,
            sent: Mutex::new(Vec::new()),
            prefix: format!("toolu_e2e{}x{n}x{nanos:x}", std::process::id()),
            counter: AtomicU64::new(0),
        });
        let s = Arc::clone(&shared);
        let http = Loopback::start(Box::new(move |method, path, body| {
            respond(&s, method, path, body)
        }));
        Self { http, shared }
    }

    /// Returns the base URL for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.http.base_url()
    }

    /// Returns every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.http.requests()
    }

    /// Returns every tool use sent so far, in script order.
    pub fn sent_tool_uses(&self) -> Vec<SentToolUse> {
        let mut sent = self.shared.sent.lock().expect("sent lock").clone();
        sent.sort_by_key(|(k, _)| *k);
        sent.into_iter().flat_map(|(_, v)| v).collect()
    }
}

/// Returns status, content type and body for one request.
fn respond(shared: &Shared, method: &str, path: &str, body: &Value) -> Reply {
    let json_ok = |v: Value| (200, "application/json", v.to_string().into_bytes());
    match method {
        "HEAD" | "GET" | "OPTIONS" => json_ok(json!({})),
        "POST" if path.contains("count_tokens") => json_ok(json!({"input_tokens": 42})),
        "POST" if path.starts_with("/v1/messages") => {
            let (results, turn) = if body.get("tools").is_some() {
                let results = count_tool_results(body);
                (results, shared.script.turn_for(results))
            } else {
                // A side call (titles, summaries): a short answer, no tools.
                (usize::MAX, Turn::Text("ok".into()))
            };
            let streaming = body.get("stream").and_then(Value::as_bool) == Some(true);
            let blocks = content_blocks(shared, results, &turn);
            let stop = match turn {
                Turn::Tools(_) => "tool_use",
                Turn::Text(_) => "end_turn",
            };
            let id = format!(
                "msg_e2e_{}",
                shared.counter.fetch_add(1, Ordering::Relaxed)
            );
            if streaming {
                (200, "text/event-stream", sse(&id, &blocks, stop).into_bytes())
            } else {
                json_ok(json!({
                    "id": id, "type": "message", "role": "assistant", "model": MODEL,
                    "content": blocks, "stop_reason": stop, "stop_sequence": null,
                    "usage": {"input_tokens": 10, "output_tokens": 5}
                }))
            }
        }
        _ => (
            404,
            "application/json",
            json!({"type": "error", "error": {"type": "not_found_error", "message": "not scripted"}})
                .to_string()
                .into_bytes(),
        ),
    }
}

/// Counts the `tool_result` blocks in a request's messages.
pub fn count_tool_results(body: &Value) -> usize {
    messages_blocks(body)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .count()
}

/// Iterates over every content block of every message of a request body.
pub fn messages_blocks(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
}

/// Builds the content blocks of a turn, giving tool uses stable ids.
fn content_blocks(shared: &Shared, results: usize, turn: &Turn) -> Vec<Value> {
    match turn {
        Turn::Text(t) => vec![json!({"type": "text", "text": t})],
        Turn::Tools(calls) => {
            let mut sent = shared.sent.lock().expect("sent lock");
            let uses = match sent.iter().find(|(k, _)| *k == results) {
                Some((_, uses)) => uses.clone(),
                None => {
                    let uses: Vec<SentToolUse> = calls
                        .iter()
                        .enumerate()
                        .map(|(i, c)| SentToolUse {
                            id: format!("{}_{results}_{i}", shared.prefix),
                            name: c.name.clone(),
                            input: c.input.clone(),
                        })
                        .collect();
                    sent.push((results, uses.clone()));
                    uses
                }
            };
            uses.iter()
                .map(|u| json!({"type": "tool_use", "id": u.id, "name": u.name, "input": u.input}))
                .collect()
        }
    }
}

/// Renders a message as the SSE event sequence of the streaming Messages API.
fn sse(id: &str, blocks: &[Value], stop: &str) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": MODEL, "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}
        }}),
    );
    for (index, block) in blocks.iter().enumerate() {
        match block["type"].as_str() {
            Some("tool_use") => {
                event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index, "content_block": {
                        "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}
                    }}),
                );
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": index, "delta": {
                        "type": "input_json_delta", "partial_json": block["input"].to_string()
                    }}),
                );
            }
            _ => {
                event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}),
                );
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": block["text"]}}),
                );
            }
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loopback::client::Conn;

    fn tool_result(id: &str) -> Value {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "x"}]})
    }

    #[test]
    fn turns_follow_the_tool_results_and_ids_stay_stable() {
        let script = Script::new()
            .calls(vec![bash("a"), bash("b")])
            .call(bash("c"))
            .say("end");
        let server = MockServer::start(script);
        let mut conn = Conn::open(server.http.addr());
        let mut post =
            |body: Value, chunked: bool| conn.post("/v1/messages?beta=true", &body, chunked);
        let first =
            json!({"stream": true, "tools": [], "messages": [{"role": "user", "content": "go"}]});
        let (status, sse1) = post(first.clone(), false);
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        assert!(sse1.contains("\"stop_reason\":\"tool_use\""), "{sse1}");
        assert_eq!(sse1.matches("input_json_delta").count(), 2, "{sse1}");
        // The same request again (a retry) gets the same ids, on the same connection, chunked.
        let (_, again) = post(first, true);
        let ids = server.sent_tool_uses();
        assert_eq!(ids.len(), 2);
        assert!(again.contains(&ids[0].id) && again.contains(&ids[1].id));
        let two =
            json!({"stream": true, "tools": [], "messages": [tool_result("x"), tool_result("y")]});
        let (_, sse2) = post(two, false);
        assert!(sse2.contains("\\\"command\\\":\\\"c\\\""), "{sse2}");
        let three = json!({"stream": true, "tools": [],
            "messages": [tool_result("x"), tool_result("y"), tool_result("z")]});
        let (_, sse3) = post(three, false);
        assert!(
            sse3.contains("\"text\":\"end\"") && sse3.contains("end_turn"),
            "{sse3}"
        );
        // A side call without tools gets text, never a tool use.
        let (_, side) = post(json!({"stream": true, "messages": []}), false);
        assert!(
            !side.contains("tool_use\"") && side.contains("end_turn"),
            "{side}"
        );
        let recorded = server.requests();
        assert_eq!(recorded.len(), 5);
        assert_eq!(recorded.iter().filter(|r| r.is_main_turn()).count(), 4);
        assert_eq!(count_tool_results(&recorded[3].body), 3);
    }
}
