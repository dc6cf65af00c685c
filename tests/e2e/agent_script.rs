//! What the scripted model of the Codex and Gemini mocks does, in words both understand: run a
//! shell command, write a file, call a tool by name, or answer with text. Each mock renders a
//! call in its own API's shape (`codex_server.rs`, `gemini_server.rs`).

#![allow(dead_code)]

use serde_json::Value;

/// One tool call the scripted model makes.
#[derive(Debug, Clone)]
pub enum Call {
    /// A shell command (Codex `exec_command` `{"cmd"}`, Gemini `run_shell_command`
    /// `{"command"}`).
    Shell(String),
    /// A new file with this content (Codex `apply_patch` adding the file, Gemini `write_file`).
    Write {
        /// Path relative to the project.
        path: String,
        /// The file's content.
        content: String,
    },
    /// Any tool by its client's name, with its client's arguments.
    Raw {
        /// Tool name.
        name: String,
        /// Arguments object.
        args: Value,
    },
}

/// Shorthand for a shell command.
pub fn shell(command: &str) -> Call {
    Call::Shell(command.to_owned())
}

/// Shorthand for writing a new file.
pub fn write_file(path: &str, content: &str) -> Call {
    Call::Write {
        path: path.to_owned(),
        content: content.to_owned(),
    }
}

/// Returns the `apply_patch` text adding a file (each content line prefixed with `+`).
pub fn add_file_patch(path: &str, content: &str) -> String {
    let mut patch = format!("*** Begin Patch\n*** Add File: {path}\n");
    for line in content.lines() {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    patch.push_str("*** End Patch");
    patch
}

/// One scripted model turn.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Calls these tools in one answer.
    Calls(Vec<Call>),
    /// Answers with text and ends the turn.
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
    pub fn call(mut self, call: Call) -> Self {
        self.turns.push(Turn::Calls(vec![call]));
        self
    }

    /// Adds a turn calling several tools at once.
    pub fn calls(mut self, calls: Vec<Call>) -> Self {
        self.turns.push(Turn::Calls(calls));
        self
    }

    /// Adds a text turn that ends the session.
    pub fn say(mut self, text: &str) -> Self {
        self.turns.push(Turn::Text(text.to_owned()));
        self
    }

    /// Returns the turn to play when the request already holds `results` tool results, so a
    /// refused call (which also comes back as a result) moves the script on like any other.
    pub fn turn_for(&self, results: usize) -> Turn {
        let mut seen = 0;
        for turn in &self.turns {
            if seen == results {
                return turn.clone();
            }
            match turn {
                Turn::Calls(calls) => seen += calls.len(),
                Turn::Text(_) => break,
            }
        }
        Turn::Text("Done.".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_follow_the_results_and_text_ends_the_script() {
        let script = Script::new()
            .calls(vec![shell("a"), shell("b")])
            .call(write_file("f", "x"))
            .say("end")
            .call(shell("never"));
        assert!(matches!(script.turn_for(0), Turn::Calls(c) if c.len() == 2));
        assert!(matches!(script.turn_for(1), Turn::Text(t) if t == "Done."));
        assert!(
            matches!(script.turn_for(2), Turn::Calls(c) if matches!(&c[0], Call::Write { .. }))
        );
        assert!(matches!(script.turn_for(3), Turn::Text(t) if t == "end"));
        assert!(matches!(script.turn_for(4), Turn::Text(t) if t == "Done."));
    }

    #[test]
    fn a_patch_adds_every_line() {
        assert_eq!(
            add_file_patch("a/b.txt", "one\ntwo\n"),
            "*** Begin Patch\n*** Add File: a/b.txt\n+one\n+two\n*** End Patch"
        );
    }
}
