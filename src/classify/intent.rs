//! The intent of a tool call: what the agent is trying to do, coarser than the call itself.
//!
//! Two calls have the same intent when they use the same tool on the same target (any edit of
//! one file, whether by Edit, MultiEdit or Write; a read of one file; a fetch of one page), or
//! run the same program and subcommand (`git push` and `git push --set-upstream origin x`;
//! `cargo test` and `cd . && cargo test -q`). The subcommand comes from the program's rule
//! pack, so `git -C dir push` is `git push` and `kubectl -n prod get pods` is `kubectl get`.
//!
//! The 3-strike protocol counts repeated errors per intent and, once escalated, asks for any
//! call of that intent; retrospective drafts call a failure resolved when a later call of the
//! same intent succeeded.

use serde_json::Value;

use super::pack::{self, matcher::descend};
use crate::shell::{self, Simple, Word};

/// Commands that prepare the shell rather than do the work (`cd x && make`).
const SETUP: &[&str] = &[
    "cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true", ":", "alias", "shopt",
    "ulimit", "umask", "trap", "sleep", "clear",
];

/// Programs that pass data along or print it: not the work of a pipeline that has more.
const FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "rg", "sort", "uniq", "wc", "less", "more", "tee",
    "cut", "tr", "column", "nl", "cat", "echo", "printf", "fold", "fmt",
];

/// Shells whose `-c` code is the command.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

/// Commands that run the rest of their words as the command (`sudo make install`).
const WRAPPERS: &[&str] = &[
    "sudo",
    "env",
    "time",
    "nice",
    "nohup",
    "command",
    "exec",
    "timeout",
    "stdbuf",
    "ionice",
    "doas",
    "chronic",
    "caffeinate",
];

/// Subcommands that run a named script or task (`npm run build`, `uv run pytest`).
const RUNNERS: &[&str] = &["run", "run-script", "exec", "x", "dlx", "task"];

/// Programs whose first word names a target or task (`make test`, `just lint`).
const TASK_RUNNERS: &[&str] = &[
    "make", "gmake", "just", "task", "ninja", "rake", "gradle", "gradlew", "mvn", "mvnw", "invoke",
    "nox", "tox", "bazel", "bazelisk", "ant", "sbt", "lein", "mix",
];

/// Returns the intent of a call as a short text (`edit src/main.rs`, `bash cargo test`).
/// Words that look machine-made (a key, a token, a hash: long, with letters and digits) are
/// written `<id>`: an intent names what is done, and is kept in files.
pub fn intent(tool: &str, input: &Value) -> String {
    let raw = raw_intent(tool, input);
    raw.split(' ').map(mask_ids).collect::<Vec<_>>().join(" ")
}

/// Returns a word with its machine-made parts (between `/`, `=`, `:` and `@`) as `<id>`.
fn mask_ids(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut part = String::new();
    let flush = |part: &mut String, out: &mut String| {
        let digits = part.bytes().filter(u8::is_ascii_digit).count();
        let letters = part.bytes().filter(u8::is_ascii_alphabetic).count();
        if part.len() > 40 || (part.len() >= 16 && digits >= 2 && letters >= 2) {
            out.push_str("<id>");
        } else {
            out.push_str(part);
        }
        part.clear();
    };
    for c in word.chars() {
        if matches!(c, '/' | '=' | ':' | '@' | '?' | '&') {
            flush(&mut part, &mut out);
            out.push(c);
        } else {
            part.push(c);
        }
    }
    flush(&mut part, &mut out);
    out
}

fn raw_intent(tool: &str, input: &Value) -> String {
    let field = |k: &str| input.get(k).and_then(Value::as_str).map(str::trim);
    match tool {
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            let path = field("file_path").or_else(|| field("notebook_path"));
            format!("edit {}", clean_path(path.unwrap_or("")))
        }
        "Read" => format!("read {}", clean_path(field("file_path").unwrap_or(""))),
        "WebFetch" => format!("fetch {}", page(field("url").unwrap_or(""))),
        "Bash" | "PowerShell" => match field("command") {
            Some(cmd) => format!("{} {}", tool.to_ascii_lowercase(), command_intent(cmd)),
            None => tool.to_ascii_lowercase(),
        },
        "Task" | "Agent" => format!(
            "task {}",
            field("subagent_type").unwrap_or("general-purpose")
        ),
        "Skill" => format!(
            "skill {}",
            field("skill").or(field("command")).unwrap_or("")
        ),
        // Searches, MCP tools and the rest: the tool and its main target when it names one.
        _ => match field("path").or_else(|| field("file_path")) {
            Some(p) => format!("{tool} {}", clean_path(p)),
            None => tool.to_owned(),
        },
    }
}

/// Drops `./` and trailing slashes so `./a/b/` and `a/b` are one target, and the random
/// part of a temp path (`/tmp/tmpXy12/out.txt` is `/tmp/<tmp>/out.txt`).
fn clean_path(p: &str) -> String {
    let mut p = p.trim_end_matches('/');
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    if p.is_empty() {
        return ".".into();
    }
    for prefix in ["/tmp/", "/var/tmp/", "/private/tmp/", "/dev/shm/"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            return match rest.split_once('/') {
                Some((_, tail)) => format!("{prefix}<tmp>/{tail}"),
                None => format!("{prefix}<tmp>"),
            };
        }
    }
    p.to_owned()
}

/// A URL without its query and fragment (the page, not the parameters).
fn page(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].trim_end_matches('/')
}

/// Returns the program and subcommand of each command that does the work in a line: the
/// first stage of every pipeline (later stages filter its output), without setup commands,
/// joined by ` && `. A line that cannot be parsed is its first two words.
pub fn command_intent(cmd: &str) -> String {
    command_intent_at(cmd, 0)
}

fn command_intent_at(cmd: &str, depth: usize) -> String {
    let script = shell::parse(cmd);
    if script.problem.is_some() || script.pipelines.is_empty() {
        return cmd.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    }
    let mut parts: Vec<String> = Vec::new();
    let mut setup: Vec<String> = Vec::new();
    for p in &script.pipelines {
        // The stages that do the work: all but sources and filters (`head x | python3 -c …`
        // is python's work, `cargo test | tail` cargo's); a pipeline of filters only is its
        // first stage.
        let stages: Vec<Vec<String>> = p
            .stages
            .iter()
            .map(|stage| {
                stage
                    .iter()
                    .filter_map(|s| simple_intent(s, depth))
                    .collect()
            })
            .collect();
        let is_filter = |part: &String| FILTERS.contains(&part.split(' ').next().unwrap_or(""));
        let working: Vec<&String> = stages.iter().flatten().filter(|p| !is_filter(p)).collect();
        let chosen: Vec<&String> = if working.is_empty() {
            stages
                .first()
                .map(|s| s.iter().collect())
                .unwrap_or_default()
        } else {
            working
        };
        for part in chosen {
            let program = part.split(' ').next().unwrap_or("");
            let list = if SETUP.contains(&program) {
                &mut setup
            } else {
                &mut parts
            };
            if !list.contains(part) {
                list.push(part.clone());
            }
        }
    }
    if parts.is_empty() {
        parts = setup;
    }
    parts.join(" && ")
}

/// The program and subcommand of one simple command, past wrappers like `sudo` and `env`.
fn simple_intent(simple: &Simple, depth: usize) -> Option<String> {
    let mut words: &[Word] = &simple.words;
    loop {
        let first = words.first()?;
        let name = program_name(&first.text);
        if !WRAPPERS.contains(&name) || words.len() == 1 {
            break;
        }
        // Skip the wrapper, its options, `NAME=value` words and a duration (`timeout 30`).
        let mut i = 1;
        while let Some(w) = words.get(i) {
            let t = w.text.as_str();
            let skip = t.starts_with('-')
                || (t.contains('=') && !t.starts_with('='))
                || (name == "timeout" && i == 1 && t.starts_with(|c: char| c.is_ascii_digit()));
            if !skip {
                break;
            }
            // `-u user`, `-n 10`: a short option before a plain word takes it as a value.
            let takes_value = matches!(name, "sudo" | "nice" | "ionice" | "doas" | "stdbuf")
                && t.len() == 2
                && t.starts_with('-');
            i += if takes_value { 2 } else { 1 };
        }
        if i >= words.len() {
            break;
        }
        words = &words[i..];
    }
    let first = words.first()?;
    if !first.literal {
        return Some(first.text.clone());
    }
    let name = program_name(&first.text);
    let args = &words[1..];
    // `bash -c 'cargo test'` is cargo's work.
    if SHELLS.contains(&name)
        && depth < 2
        && let Some(i) = args.iter().position(|w| w.text == "-c")
        && let Some(code) = args.get(i + 1)
    {
        return Some(command_intent_at(&code.text, depth + 1));
    }
    let mut out = name.to_owned();
    let found = pack::lookup(&[], name).filter(|f| f.entry.name.first() != "*");
    let descent = found.map(|f| descend(f.entry, args));
    let sub = descent.as_ref().map(|d| d.sub.as_str()).unwrap_or("");
    if !sub.is_empty() {
        out.push(' ');
        out.push_str(sub);
        // `npm run build` and `npm run test` are different work: a runner's script counts.
        let last = sub.rsplit(' ').next().unwrap_or(sub);
        if RUNNERS.contains(&last)
            && let Some(script) = descent
                .as_ref()
                .and_then(|d| d.levels.last())
                .and_then(|l| l.own.scan.pos.first())
        {
            out.push(' ');
            out.push_str(&script.text);
        }
    } else if let Some(target) = script_target(name, args) {
        out.push(' ');
        out.push_str(&clean_path(target));
    }
    Some(out)
}

/// The script an interpreter runs (`python x.py`, `node server.js`, `python -m pytest`), or
/// the file a program without subcommands is pointed at first when it looks like one.
fn script_target<'a>(name: &str, args: &'a [Word]) -> Option<&'a str> {
    if TASK_RUNNERS.contains(&name) {
        return args
            .iter()
            .map(|w| w.text.as_str())
            .find(|t| !t.starts_with('-') && !t.contains('='));
    }
    let mut it = args.iter().map(|w| w.text.as_str());
    while let Some(t) = it.next() {
        if t == "-m" || t == "-c" && name.starts_with("python") {
            return if t == "-m" { it.next() } else { None };
        }
        if t.starts_with('-') {
            continue;
        }
        if t.contains("://") {
            // A URL is what a client fetches, not a script it runs.
            return None;
        }
        let looks_like_file = t.contains('/')
            || t.rsplit_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && (1..=4).contains(&b.len())
                    && b.bytes().all(|c| c.is_ascii_alphanumeric())
            });
        return looks_like_file.then_some(t);
    }
    None
}

/// The name a program is looked up by: the last path component (`/usr/bin/git` → `git`).
fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(c: &str) -> String {
        intent("Bash", &json!({ "command": c }))
    }

    #[test]
    fn same_program_and_subcommand_is_one_intent() {
        let same = [
            ("git push", "git push --set-upstream origin feature"),
            ("git push", "git -C . push"),
            ("cargo test", "cd . && cargo test -q"),
            ("cargo test", "cargo test --workspace 2>&1 | tail -20"),
            ("npm run build", "npm run build -- --verbose"),
            ("kubectl get pods", "kubectl -n prod get deployments"),
            ("python -m pytest", "python -m pytest -x tests/"),
            ("python app.py", "python -u app.py --port 3000"),
            ("make", "sudo make"),
            ("make test", "make -j8 test"),
            ("pytest", "timeout 60 pytest -q"),
            ("go test ./...", "GOFLAGS=-count=1 go test ./pkg/..."),
            ("python3 -c 'x'", "head -c 500 f.jsonl | python3 -c 'y'"),
            ("cargo test", "bash -c 'cargo test -q'"),
            ("ls src", "ls src | head"),
        ];
        for (a, b) in same {
            assert_eq!(bash(a), bash(b), "{a} vs {b}");
        }
    }

    #[test]
    fn different_programs_or_subcommands_are_different_intents() {
        let different = [
            ("git push", "git pull"),
            ("cargo test", "cargo build"),
            ("npm run build", "npm run test"),
            ("python a.py", "python b.py"),
            ("cargo test", "cargo test && cargo clippy"),
            ("ls", "rm -rf build"),
            ("make test", "make lint"),
        ];
        for (a, b) in different {
            assert_ne!(bash(a), bash(b), "{a} vs {b}");
        }
    }

    #[test]
    fn edits_of_one_file_are_one_intent_whatever_the_tool() {
        let e = intent(
            "Edit",
            &json!({"file_path": "src/a.rs", "old_string": "x", "new_string": "y"}),
        );
        let m = intent(
            "MultiEdit",
            &json!({"file_path": "./src/a.rs", "edits": []}),
        );
        let w = intent("Write", &json!({"file_path": "src/a.rs", "content": "z"}));
        assert_eq!(e, m);
        assert_eq!(e, w);
        assert_ne!(e, intent("Edit", &json!({"file_path": "src/b.rs"})));
        assert_ne!(e, intent("Read", &json!({"file_path": "src/a.rs"})));
    }

    #[test]
    fn fetches_of_one_page_are_one_intent() {
        let a = intent(
            "WebFetch",
            &json!({"url": "https://x.dev/docs?page=2", "prompt": "a"}),
        );
        let b = intent(
            "WebFetch",
            &json!({"url": "https://x.dev/docs/", "prompt": "b"}),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn machine_made_words_are_not_kept() {
        let i = bash("python3 MHcCAQEEIBYuDkXQw9Zx8iQk1JfQp0VQ7ZyXkHcL0aBcDeFgHiJk/x.py");
        assert_eq!(i, "bash python3 <id>/x.py");
        assert_eq!(bash("node src/server.js"), "bash node src/server.js");
    }

    #[test]
    fn setup_only_lines_keep_their_commands() {
        assert_eq!(bash("cd build"), "bash cd");
        assert_eq!(bash("cd build && make"), "bash make");
    }
}
