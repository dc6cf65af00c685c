//! A loopback stand-in for the OpenAI Responses API as Codex CLI 0.169.0 uses it: every model
//! turn is `POST /v1/responses` with `stream: true`, answered as server-sent events
//! `response.created`, one `response.output_item.done` per output item (a `function_call`
//! named `exec_command` with `{"cmd": …}`, a `custom_tool_call` named `apply_patch`, or an
//! assistant `message`), then `response.completed` (shapes from
//! `shared/fixtures/codex-0.169.0/README.md`).
//!
//! The scripted turn is chosen from the number of tool outputs (`function_call_output`,
//! `custom_tool_call_output`) already in the request's `input`, so a call a hook refused
//! (which comes back as an output too) moves the script on.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::agent_script::{Call, Script, Turn, add_file_patch};
use crate::loopback::{Loopback, Recorded, Reply};

/// Item types that carry a tool's result back to the model.
const OUTPUT_TYPES: [&str; 2] = ["function_call_output", "custom_tool_call_output"];

struct Shared {
    script: Script,
    /// Call ids are unique per server (oath remembers applied outcomes by id).
    prefix: String,
}

/// The running mock; stops when dropped.
pub struct CodexMock {
    http: Loopback,
}

static SERVERS: AtomicU64 = AtomicU64::new(0);

impl CodexMock {
    /// Starts a mock on a free loopback port playing `script`.
    pub fn start(script: Script) -> Self {
        let n = SERVERS.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Shared {
            script,
            prefix: format!("call_e2e{}x{n}", std::process::id()),
        });
        let http = Loopback::start(Box::new(move |method, path, body| {
            respond(&shared, method, path, body)
        }));
        Self { http }
    }

    /// Returns the provider `base_url` (`http://127.0.0.1:<port>/v1`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.http.base_url())
    }

    /// Returns every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.http.requests()
    }
}

/// Returns whether a request is a model turn.
pub fn is_turn(r: &Recorded) -> bool {
    r.method == "POST" && r.path.starts_with("/v1/responses")
}

/// Returns the `input` items of a request body.
pub fn input_items(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("input")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// Returns the tool outputs of a request body, in order (`function_call_output` and
/// `custom_tool_call_output` items).
pub fn outputs(body: &Value) -> Vec<&Value> {
    input_items(body)
        .filter(|i| OUTPUT_TYPES.iter().any(|t| i["type"] == *t))
        .collect()
}

/// Returns the text of an output item's `output` (a string, or content items joined).
pub fn output_text(item: &Value) -> String {
    match &item["output"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

fn respond(shared: &Shared, method: &str, path: &str, body: &Value) -> Reply {
    match method {
        "POST" if path.starts_with("/v1/responses") => {
            let results = outputs(body).len();
            let turn = shared.script.turn_for(results);
            let sse = sse(&shared.prefix, results, &turn);
            (200, "text/event-stream", sse.into_bytes())
        }
        "GET" if path.starts_with("/v1/models") => (
            200,
            "application/json",
            json!({"object": "list", "data": [], "models": []})
                .to_string()
                .into_bytes(),
        ),
        _ => (
            404,
            "application/json",
            json!({"error": {"type": "not_found", "message": "not scripted"}})
                .to_string()
                .into_bytes(),
        ),
    }
}

/// Returns the output items of a turn; call ids are `<prefix>_<results>_<index>`, so a
/// retried request gets the same ids.
fn items(prefix: &str, results: usize, turn: &Turn) -> Vec<Value> {
    match turn {
        Turn::Text(text) => vec![json!({
            "type": "message", "role": "assistant", "id": format!("msg_{results}"),
            "content": [{"type": "output_text", "text": text}]
        })],
        Turn::Calls(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let call_id = format!("{prefix}_{results}_{i}");
                match call {
                    Call::Shell(cmd) => json!({
                        "type": "function_call", "id": format!("fc_{results}_{i}"),
                        "call_id": call_id, "name": "exec_command",
                        "arguments": json!({"cmd": cmd}).to_string()
                    }),
                    Call::Write { path, content } => json!({
                        "type": "custom_tool_call", "id": format!("ctc_{results}_{i}"),
                        "call_id": call_id, "name": "apply_patch",
                        "input": add_file_patch(path, content)
                    }),
                    Call::Raw { name, args } => json!({
                        "type": "function_call", "id": format!("fc_{results}_{i}"),
                        "call_id": call_id, "name": name, "arguments": args.to_string()
                    }),
                }
            })
            .collect(),
    }
}

/// Renders a turn as the Responses API's event stream.
fn sse(prefix: &str, results: usize, turn: &Turn) -> String {
    let id = format!("resp_{prefix}_{results}");
    let mut out = String::new();
    let mut event = |data: Value| {
        let name = data["type"].as_str().unwrap_or_default().to_owned();
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(json!({"type": "response.created", "response": {"id": id}}));
    for (index, item) in items(prefix, results, turn).into_iter().enumerate() {
        event(json!({"type": "response.output_item.done", "output_index": index, "item": item}));
    }
    event(
        json!({"type": "response.completed", "response": {"id": id, "usage": {
            "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
            "output_tokens_details": null, "total_tokens": 15
        }}}),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_script::{shell, write_file};
    use crate::loopback::client::Conn;

    fn data_lines(sse: &str) -> Vec<Value> {
        sse.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    #[test]
    fn turns_follow_the_tool_outputs() {
        let script = Script::new()
            .call(shell("echo hi"))
            .call(write_file("a.txt", "x"))
            .say("end");
        let mock = CodexMock::start(script);
        let mut conn = Conn::open(mock.http.addr());
        let user = json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "go"}]});
        let (status, first) = conn.post(
            "/v1/responses",
            &json!({"stream": true, "input": [user]}),
            false,
        );
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        let events = data_lines(&first);
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.output_item.done",
                "response.completed"
            ]
        );
        let call = &events[1]["item"];
        assert_eq!(call["name"], "exec_command");
        let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"cmd": "echo hi"}));
        let out =
            json!({"type": "function_call_output", "call_id": call["call_id"], "output": "hi"});
        let (_, second) = conn.post(
            "/v1/responses",
            &json!({"stream": true, "input": [user, call, out]}),
            true,
        );
        let patch = &data_lines(&second)[1]["item"];
        assert_eq!(patch["type"], "custom_tool_call");
        assert_eq!(patch["name"], "apply_patch");
        assert_eq!(
            patch["input"],
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"
        );
        let out2 =
            json!({"type": "custom_tool_call_output", "call_id": patch["call_id"], "output": "ok"});
        let body = json!({"stream": true, "input": [user, call, out, patch, out2]});
        let (_, third) = conn.post("/v1/responses", &body, false);
        let message = &data_lines(&third)[1]["item"];
        assert_eq!(message["content"][0]["text"], "end");
        assert_eq!(outputs(&body).len(), 2);
        assert_eq!(output_text(outputs(&body)[1]), "ok");
        assert_eq!(mock.requests().iter().filter(|r| is_turn(r)).count(), 3);
    }
}
