//! A loopback stand-in for the Gemini API as Gemini CLI 0.61.0 uses it: every model turn is
//! `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, answered with one `data:` line
//! holding a candidate whose parts are `functionCall`s or text, `finishReason: "STOP"`
//! (shapes from `shared/fixtures/gemini-0.61.0/README.md`).
//!
//! The scripted turn is chosen from the number of `functionResponse` parts already in the
//! request's `contents`, so a call a hook refused (which comes back as a response with an
//! `error`) moves the script on. A request without `tools` is a side call and gets text.

#![allow(dead_code)]

use serde_json::{Value, json};

use crate::agent_script::{Call, Script, Turn};
use crate::loopback::{Loopback, Recorded, Reply};

/// The model the harness asks for (`-m`).
pub const MODEL: &str = "gemini-2.5-flash";

/// The running mock; stops when dropped.
pub struct GeminiMock {
    http: Loopback,
}

impl GeminiMock {
    /// Starts a mock on a free loopback port playing `script`.
    pub fn start(script: Script) -> Self {
        let http = Loopback::start(Box::new(move |method, path, body| {
            respond(&script, method, path, body)
        }));
        Self { http }
    }

    /// Returns the base URL for `GOOGLE_GEMINI_BASE_URL` (`http://127.0.0.1:<port>`).
    pub fn base_url(&self) -> String {
        self.http.base_url()
    }

    /// Returns every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.http.requests()
    }
}

/// Returns whether a request is a model turn of the main loop (a generation offering tools).
pub fn is_turn(r: &Recorded) -> bool {
    r.method == "POST" && r.path.contains(":streamGenerateContent") && r.body.get("tools").is_some()
}

/// Iterates over every part of every content of a request body.
pub fn parts(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("parts").and_then(Value::as_array))
        .flatten()
}

/// Returns the `functionResponse`s of a request body, in order.
pub fn function_responses(body: &Value) -> Vec<&Value> {
    parts(body)
        .filter_map(|p| p.get("functionResponse"))
        .collect()
}

/// Returns what a `functionResponse` told the model: its `response.error`, else its
/// `response.output`, else the response as JSON.
pub fn response_text(function_response: &Value) -> String {
    let response = &function_response["response"];
    ["error", "output"]
        .iter()
        .find_map(|k| response[*k].as_str())
        .map_or_else(|| response.to_string(), str::to_owned)
}

fn respond(script: &Script, method: &str, path: &str, body: &Value) -> Reply {
    let json_ok = |v: Value| (200, "application/json", v.to_string().into_bytes());
    match method {
        "POST" if path.contains(":streamGenerateContent") || path.contains(":generateContent") => {
            let turn = if body.get("tools").is_some() {
                script.turn_for(function_responses(body).len())
            } else {
                Turn::Text("ok".into())
            };
            let answer = answer(&turn);
            if path.contains(":stream") {
                let sse = format!("data: {answer}\r\n\r\n");
                (200, "text/event-stream", sse.into_bytes())
            } else {
                json_ok(answer)
            }
        }
        "POST" if path.contains(":countTokens") => json_ok(json!({"totalTokens": 42})),
        _ => (
            404,
            "application/json",
            json!({"error": {"code": 404, "message": "not scripted", "status": "NOT_FOUND"}})
                .to_string()
                .into_bytes(),
        ),
    }
}

/// Returns a `GenerateContentResponse` playing a turn.
fn answer(turn: &Turn) -> Value {
    let parts: Vec<Value> = match turn {
        Turn::Text(text) => vec![json!({"text": text})],
        Turn::Calls(calls) => calls
            .iter()
            .map(|call| {
                let (name, args) = match call {
                    Call::Shell(cmd) => (
                        "run_shell_command".to_owned(),
                        json!({"command": cmd, "description": "scripted e2e step"}),
                    ),
                    Call::Write { path, content } => (
                        "write_file".to_owned(),
                        json!({"file_path": path, "content": content}),
                    ),
                    Call::Raw { name, args } => (name.clone(), args.clone()),
                };
                json!({"functionCall": {"name": name, "args": args}})
            })
            .collect(),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": MODEL
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_script::{shell, write_file};
    use crate::loopback::client::Conn;

    fn data(sse: &str) -> Value {
        let line = sse.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn turns_follow_the_function_responses() {
        let script = Script::new()
            .call(shell("echo hi"))
            .call(write_file("a.txt", "x"))
            .say("end");
        let mock = GeminiMock::start(script);
        let mut conn = Conn::open(mock.http.addr());
        let target = format!("/v1beta/models/{MODEL}:streamGenerateContent?alt=sse");
        let user = json!({"role": "user", "parts": [{"text": "go"}]});
        let (status, first) = conn.post(&target, &json!({"contents": [user], "tools": []}), false);
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        let call = &data(&first)["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(call["name"], "run_shell_command");
        assert_eq!(call["args"]["command"], "echo hi");
        let model = json!({"role": "model", "parts": [{"functionCall": call}]});
        let result = json!({"role": "user", "parts": [{"functionResponse": {
            "name": "run_shell_command", "response": {"error": "Tool execution blocked: no"}}}]});
        let body = json!({"contents": [user, model, result], "tools": []});
        let (_, second) = conn.post(&target, &body, true);
        let call = &data(&second)["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(call["name"], "write_file");
        assert_eq!(call["args"], json!({"file_path": "a.txt", "content": "x"}));
        assert_eq!(
            response_text(function_responses(&body)[0]),
            "Tool execution blocked: no"
        );
        // A side call without tools gets text, never a call.
        let (_, side) = conn.post(&target, &json!({"contents": [user]}), false);
        assert_eq!(
            data(&side)["candidates"][0]["content"]["parts"][0]["text"],
            "ok"
        );
        assert_eq!(mock.requests().iter().filter(|r| is_turn(r)).count(), 2);
    }
}
