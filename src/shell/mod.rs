//! Shell parsing: brush-parser's AST converted to oath's own command tree. Parser types
//! never leave this module.
//!
//! A [`Script`] is the flat list of every pipeline a line would run, in source order:
//! subshells, brace groups, loops, conditionals and function bodies are flattened into it;
//! command and process substitutions stay attached to the word they expand into, so the
//! classifier can tell `bash <(curl x)` from `cat <(ls)`. Words keep their provenance:
//! a word is *literal* when its value is known without running anything (quotes removed,
//! `$'\x72m'` decoded, `${IFS}` split, variables assigned earlier on the line substituted).
//!
//! Parsing is bounded: inputs over [`MAX_INPUT`] bytes, nesting deeper than the pre-scan
//! allows, and re-parses deeper than [`MAX_DEPTH`] are reported as a [`Problem`] instead of
//! being parsed; the parser runs under `catch_unwind`, and lines with many brackets or
//! compound keywords (whose real depth quoting could hide from the scan) on a thread with a
//! large stack, so no input can overflow the stack.

mod convert;

pub use convert::decode_ansi_c;

use std::fmt;

/// Largest command line parsed, in bytes.
pub const MAX_INPUT: usize = 64 * 1024;
/// Deepest chain of re-parses (`bash -c` inside `$(…)` inside `eval` …).
pub const MAX_DEPTH: usize = 16;
/// Most bytes variables may expand to on one line; past it, values stay unknown and the
/// line is [`Problem::TooLarge`] (`v2=$v1$v1…` doubles at every step).
pub const MAX_EXPANSION: usize = 256 * 1024;

/// A parsed command line: every pipeline it would run, in source order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// The pipelines, flattened out of lists, groups, loops and function bodies.
    pub pipelines: Vec<Pipeline>,
    /// Why (part of) the line could not be understood, if so.
    pub problem: Option<Problem>,
}

/// Why a line could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Longer than [`MAX_INPUT`].
    TooLong(usize),
    /// Nested deeper than oath follows.
    TooDeep,
    /// Not valid shell syntax.
    Syntax(String),
    /// The parser failed internally.
    ParserPanic,
    /// The parser did not finish within [`PARSE_BUDGET`].
    TooSlow,
    /// Its variables expand past [`MAX_EXPANSION`] bytes.
    TooLarge,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong(n) => write!(f, "command is {n} bytes, over the {MAX_INPUT}-byte limit"),
            Self::TooDeep => f.write_str("command is nested deeper than oath follows"),
            Self::Syntax(e) => write!(f, "command does not parse: {e}"),
            Self::ParserPanic => f.write_str("the shell parser failed on this command"),
            Self::TooLarge => write!(
                f,
                "its variables expand to more than {} KiB",
                MAX_EXPANSION / 1024
            ),
            Self::TooSlow => write!(
                f,
                "the shell parser did not finish within {} ms",
                PARSE_BUDGET.as_millis()
            ),
        }
    }
}

/// One pipeline: stages connected by `|`; a compound stage contributes all its commands.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pipeline {
    /// Stages in order; each holds the simple commands of that stage.
    pub stages: Vec<Vec<Simple>>,
}

/// One simple command as the shell would run it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Simple {
    /// The command as written (for display).
    pub text: String,
    /// Leading `NAME=value` assignments.
    pub assigns: Vec<(String, Word)>,
    /// Command name and arguments after static expansion.
    pub words: Vec<Word>,
    /// Redirections.
    pub redirects: Vec<Redirect>,
    /// Text fed on stdin by a here-document or here-string.
    pub stdin_text: Option<Word>,
}

/// A word after the static expansion oath can do without running anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Word {
    /// The value; parts that cannot be known are kept as written (e.g. `$x`).
    pub text: String,
    /// Whether the whole value is known (no expansion left, no unquoted glob or brace).
    pub literal: bool,
    /// Whether any part was quoted or escaped.
    pub quoted: bool,
    /// Command and process substitutions inside the word.
    pub subs: Vec<Sub>,
}

impl Word {
    /// Returns a literal word.
    pub fn lit(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            literal: true,
            quoted: false,
            subs: Vec::new(),
        }
    }
}

/// A command or process substitution.
#[derive(Debug, Clone, PartialEq)]
pub struct Sub {
    /// Its kind.
    pub kind: SubKind,
    /// What it runs.
    pub script: Script,
}

/// Kinds of substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubKind {
    /// `$(…)` or backticks: output becomes text.
    Command,
    /// `<(…)`: output readable as a file.
    ProcessRead,
    /// `>(…)`: input writable as a file.
    ProcessWrite,
}

/// A redirection.
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    /// The file descriptor redirected, if given.
    pub fd: Option<i32>,
    /// The direction.
    pub kind: RedirectKind,
    /// The target file (or fd text for duplications).
    pub target: Word,
}

/// Directions of a redirection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`
    Read,
    /// `>`, `>|`, `&>`
    Write,
    /// `>>`, `&>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `>&n`, `<&n`
    Duplicate,
}

impl RedirectKind {
    /// Returns whether the redirection writes its target.
    pub fn writes(self) -> bool {
        matches!(self, Self::Write | Self::Append | Self::ReadWrite)
    }
}

impl Script {
    /// Returns a script that is only a problem.
    pub fn problem(p: Problem) -> Self {
        Self {
            pipelines: Vec::new(),
            problem: Some(p),
        }
    }

    /// Visits every simple command, substitutions included, depth first in source order.
    pub fn for_each_simple<'a>(&'a self, f: &mut dyn FnMut(&'a Simple)) {
        for p in &self.pipelines {
            for stage in &p.stages {
                for s in stage {
                    f(s);
                    for w in s.all_words() {
                        for sub in &w.subs {
                            sub.script.for_each_simple(f);
                        }
                    }
                }
            }
        }
    }
}

impl Simple {
    /// Returns every word of the command: assignment values, arguments, redirection targets
    /// and here-text.
    pub fn all_words(&self) -> impl Iterator<Item = &Word> {
        self.assigns
            .iter()
            .map(|(_, w)| w)
            .chain(self.words.iter())
            .chain(self.redirects.iter().map(|r| &r.target))
            .chain(self.stdin_text.iter())
    }
}

/// Parses a command line at nesting depth 0.
pub fn parse(src: &str) -> Script {
    parse_nested(src, 0)
}

/// Longest a parse may take. brush-parser 0.4 loops forever, allocating ~1 GB/s, on some
/// unterminated here-documents (`$(<<  h `, `$( << | { #`; both avoided before parsing, see
/// [`parse_nested`]); a line with a here-document parses on a worker thread, and one still
/// running after this budget makes the line [`Problem::TooSlow`] (the worker dies with the
/// hook process). A 64 KiB line ([`MAX_INPUT`]) parses in ~25 ms.
pub const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

thread_local! {
    /// A line parsed at depth 0 and kept for the next parse of the same text
    /// ([`keep_parsed`]): the classifier reads a line twice (what flows into files first,
    /// then every command), and parses it once.
    static KEPT: std::cell::RefCell<Option<(String, Script)>> =
        const { std::cell::RefCell::new(None) };
}

/// Keeps the script of `src` for the next [`parse`] of the same text on this thread (which
/// takes it instead of parsing again).
pub fn keep_parsed(src: &str, script: Script) {
    KEPT.with(|k| *k.borrow_mut() = Some((src.to_owned(), script)));
}

/// Parses a command line found `depth` re-parses deep (the text of `bash -c`, `eval`, a
/// here-string fed to a shell …). A line kept by [`keep_parsed`] is not parsed again.
pub fn parse_nested(src: &str, depth: usize) -> Script {
    if depth == 0
        && let Some(script) = KEPT.with(|k| {
            let mut k = k.borrow_mut();
            match k.take() {
                Some((text, script)) if text == src => Some(script),
                other => {
                    *k = other;
                    None
                }
            }
        })
    {
        return script;
    }
    parse_uncached(src, depth)
}

fn parse_uncached(src: &str, depth: usize) -> Script {
    if depth > MAX_DEPTH {
        return Script::problem(Problem::TooDeep);
    }
    if src.len() > MAX_INPUT {
        return Script::problem(Problem::TooLong(src.len()));
    }
    let nesting = convert::nesting(src);
    if !nesting.ok() {
        return Script::problem(Problem::TooDeep);
    }
    if !convert::has_heredoc_operator(src) {
        return parse_here(src, depth, &nesting);
    }
    if convert::open_substitution_with_heredoc(src) {
        return Script::problem(Problem::Syntax(
            "a here-document inside a `$(`, `(` or backquote that is never closed".into(),
        ));
    }
    let mut src = convert::heredoc_spacing(src);
    if !src.ends_with("\n\n") {
        // A here-document still open at the end of the input sends brush-parser 0.4 into an
        // endless loop inside `$( … )` (`$( << | { #`, `… << )) \`); two final newlines
        // (the second ends a trailing line continuation), which change nothing bash would
        // run, let it report the unterminated document instead.
        src.to_mut().push_str("\n\n");
    }
    // Here-documents are where brush-parser's loops were found: such lines parse on a
    // watched worker. Other lines, and parses inside a watched one (a substitution's body,
    // covered by its budget), parse on this thread: a thread per line would cost more than
    // classifying a typical command.
    if convert::in_parse_worker() {
        return parse_here(&src, depth, &nesting);
    }
    convert::parse_watched(&src, depth, nesting.needs_big_stack(), PARSE_BUDGET)
}

/// Parses on this thread (on a big-stack thread when the nesting asks for one).
fn parse_here(src: &str, depth: usize, nesting: &convert::Nesting) -> Script {
    if nesting.needs_big_stack() {
        return convert::parse_on_big_stack(src, depth);
    }
    convert::parse_guarded(src, depth)
}

#[cfg(test)]
mod tests;
