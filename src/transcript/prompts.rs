//! Human prompts: which user lines and queued commands are a person's turn, the session's
//! first prompt (its goal) and corrections.
//!
//! A person's turn is a typed prompt (a main-chain `user` line of text, not `isMeta`, not a
//! compact summary, not an injected envelope or marker, not from another agent or a task
//! notification by its `origin`), a slash command given arguments (`/orchestrator create a
//! TODO app`: the command and its arguments are the prompt), or a prompt typed while the agent
//! worked and handed to it mid-turn (an `attachment` of type `queued_command` whose
//! `commandMode` is `prompt`). A slash command without arguments (`/clear`, `/compact`), its
//! output (`<local-command-stdout>`), caveats and `queue-operation` bookkeeping lines are not
//! turns: a queued prompt that waits for the turn to end arrives as its own `user` line.

use serde_json::Value;

use super::tally::Tally;
use super::{Fact, FactKind, correction_score, excerpt};

/// Envelopes that mark injected text, not a person's prompt.
const ENVELOPES: &[&str] = &[
    "<local-command-",
    "<system-reminder>",
    "Caveat:",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<user-prompt-submit-hook>",
];

/// `origin.kind` values of a person (absent `origin`: a person too, on older clients).
const PERSON_ORIGINS: &[&str] = &["human", "person", "composer", "voice-call", "cli"];

/// Returns the text between `<tag>` and `</tag>`.
fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(&text[start..end])
}

/// What a user line's text is.
enum Said {
    /// Not a person's prompt.
    Nothing,
    /// An interrupt marker.
    Interrupt,
    /// A person's prompt, as it should be quoted.
    Prompt(String),
}

fn said(text: &str) -> Said {
    let t = text.trim_start();
    if t.starts_with("[Request interrupted") {
        return Said::Interrupt;
    }
    if t.starts_with("<command-name>") || t.starts_with("<command-message>") {
        // A slash command: a prompt when it was given arguments.
        let args = tag(t, "command-args").map(str::trim).unwrap_or("");
        if args.is_empty() {
            return Said::Nothing;
        }
        let name = tag(t, "command-name").map(str::trim).unwrap_or("");
        return Said::Prompt(format!("{name} {args}").trim().to_owned());
    }
    if t.is_empty() || ENVELOPES.iter().any(|p| t.starts_with(p)) {
        return Said::Nothing;
    }
    Said::Prompt(t.to_owned())
}

/// Returns whether a line's or attachment's `origin` is a person.
fn from_person(origin: Option<&Value>) -> bool {
    match origin.and_then(|o| o.get("kind")).and_then(Value::as_str) {
        None => true,
        Some(kind) => PERSON_ORIGINS.contains(&kind),
    }
}

/// Returns the text of a string or of text blocks.
fn text_of(content: Option<&Value>) -> Option<String> {
    match content {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(blocks)) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

impl Tally {
    pub(super) fn user_line(
        &mut self,
        v: &serde_json::Map<String, Value>,
        n: u64,
        ts: Option<String>,
        sidechain: bool,
    ) {
        let content = v.get("message").and_then(|m| m.get("content"));
        let results: Vec<&Value> = match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .collect(),
            _ => Vec::new(),
        };
        if !results.is_empty() {
            for r in results {
                self.tool_result(v, r, n, ts.clone());
            }
            return;
        }
        let Some(text) = text_of(content) else {
            return;
        };
        let is_meta = v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
        match said(&text) {
            Said::Interrupt if !sidechain => {
                if !self.last_was_refusal {
                    self.counts.interrupt_count += 1;
                    let mut f = Fact::new(FactKind::Interrupt, n, ts);
                    f.detail = excerpt(text.trim(), 120);
                    self.push_fact(f);
                    self.trouble_for_all(n, 1, "the user interrupted");
                }
                self.last_was_refusal = true;
            }
            Said::Prompt(p) if !sidechain && !is_meta && from_person(v.get("origin")) => {
                self.prompt(&p, n, ts);
            }
            _ => {}
        }
    }

    /// A prompt typed while the agent worked and handed to it mid-turn.
    pub(super) fn queued_command(
        &mut self,
        v: &serde_json::Map<String, Value>,
        a: &Value,
        n: u64,
        ts: Option<String>,
        sidechain: bool,
    ) {
        let mode = a.get("commandMode").and_then(Value::as_str);
        let meta = a.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isMeta").and_then(Value::as_bool) == Some(true);
        if sidechain || meta || mode.is_some_and(|m| m != "prompt") || !from_person(a.get("origin"))
        {
            return;
        }
        let Some(text) = text_of(a.get("prompt")) else {
            return;
        };
        if let Said::Prompt(p) = said(&text) {
            self.prompt(&p, n, ts);
        }
    }

    /// Counts a person's prompt: the first is the session's goal; a later one may correct.
    fn prompt(&mut self, text: &str, n: u64, ts: Option<String>) {
        self.counts.user_turns += 1;
        if self.first_prompt.is_none() {
            self.first_prompt = Some(excerpt(text, 200));
        } else if self.assistant_since_prompt {
            let score = correction_score(text, self.last_was_refusal);
            if score >= 3 {
                self.counts.correction_count += 1;
                let mut f = Fact::new(FactKind::Correction, n, ts);
                f.detail = excerpt(text, 160);
                self.push_fact(f);
                let what = format!("the user corrected the agent (line {n})");
                self.trouble_for_all(n, 1, &what);
            }
        }
        self.assistant_since_prompt = false;
        self.last_was_refusal = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_commands_with_arguments_are_prompts() {
        let orchestrator = "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>";
        assert!(
            matches!(said(orchestrator), Said::Prompt(p) if p == "/orchestrator create TODO app")
        );
        let clear = "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>";
        assert!(matches!(said(clear), Said::Nothing));
        assert!(matches!(
            said("<local-command-stdout>Compacted</local-command-stdout>"),
            Said::Nothing
        ));
        assert!(matches!(
            said("[Request interrupted by user for tool use]"),
            Said::Interrupt
        ));
    }

    #[test]
    fn queued_prompts_count_and_agent_or_meta_ones_do_not() {
        let lines = [
            r#"{"type":"user","uuid":"1","message":{"role":"user","content":"Build the parser"}}"#,
            r#"{"type":"assistant","uuid":"2","message":{"id":"m1","content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"attachment","uuid":"3","attachment":{"type":"queued_command","prompt":"also add tests","commandMode":"prompt"}}"#,
            r#"{"type":"attachment","uuid":"4","attachment":{"type":"queued_command","prompt":[{"type":"image"},{"type":"text","text":"and this screenshot"}]}}"#,
            r#"{"type":"attachment","uuid":"5","attachment":{"type":"queued_command","prompt":"<task-notification>done</task-notification>","commandMode":"task-notification"}}"#,
            r#"{"type":"attachment","uuid":"6","attachment":{"type":"queued_command","prompt":"from a peer","origin":{"kind":"peer"}}}"#,
            r#"{"type":"attachment","uuid":"7","attachment":{"type":"queued_command","prompt":"forwarded","isMeta":true}}"#,
            r#"{"type":"queue-operation","operation":"enqueue","content":"typed ahead"}"#,
            r#"{"type":"user","uuid":"8","origin":{"kind":"task-notification"},"message":{"role":"user","content":"a task finished"}}"#,
        ];
        let t = Tally::from_text(&lines.join("\n"), false);
        assert_eq!(t.counts.user_turns, 3);
        assert_eq!(t.first_prompt.as_deref(), Some("Build the parser"));
    }
}
