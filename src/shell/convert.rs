//! Conversion of brush-parser's AST into [`super::Script`], with static word expansion.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use brush_parser::ast;
use brush_parser::word::{
    self, Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource,
};
use brush_parser::{Parser, ParserOptions};

use super::{Pipeline, Problem, Redirect, RedirectKind, Script, Simple, Sub, SubKind, Word};

/// Deepest estimated nesting of brackets and compound commands oath follows.
const MAX_NEST: usize = 40;
/// Most openers (brackets, compound keywords, backquotes) in one line: a bound on the real
/// nesting whatever quoting hides. 1 000 levels fit [`BIG_STACK`] in a debug build.
const MAX_OPENERS: usize = 1000;
/// Up to this many openers the line is parsed on the caller's stack (40 levels fit a 2 MiB
/// stack in a debug build); beyond, on a thread with [`BIG_STACK`].
const INLINE_OPENERS: usize = 40;
/// Stack of the parsing thread for lines with many openers (reserved, committed as used).
const BIG_STACK: usize = 256 * 1024 * 1024;

/// Scans the nesting of brackets and compound commands (`if`…`fi`, `while`…`done` …).
/// Brackets count anywhere (quote-blind); keywords count where a command may start (after a
/// separator, a bracket or a keyword that takes a command), a superset of where bash reads
/// them, so `echo if` adds nothing and prose in a here-document rarely does.
/// How deeply a line nests, as far as a cheap scan can tell.
pub(super) struct Nesting {
    /// Estimated depth (closers in quotes can lower it).
    pub depth: usize,
    /// Openers in total (an upper bound on the real depth).
    pub openers: usize,
}

impl Nesting {
    /// Returns whether the parser may see the line.
    pub fn ok(&self) -> bool {
        self.depth <= MAX_NEST && self.openers <= MAX_OPENERS
    }

    /// Returns whether the line needs the big-stack thread.
    pub fn needs_big_stack(&self) -> bool {
        self.openers > INLINE_OPENERS
    }
}

pub(super) fn nesting(src: &str) -> Nesting {
    let (mut depth, mut max, mut openers) = (0usize, 0usize, 0usize);
    let mut word = String::new();
    let mut cmd_pos = true;
    let close_word = |w: &mut String,
                      depth: &mut usize,
                      max: &mut usize,
                      openers: &mut usize,
                      cmd_pos: &mut bool| {
        if w.is_empty() {
            return;
        }
        if *cmd_pos {
            match w.as_str() {
                "if" | "while" | "until" | "for" | "case" | "select" => {
                    *depth += 1;
                    *openers += 1;
                    *max = (*max).max(*depth);
                }
                "fi" | "done" | "esac" => *depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        *cmd_pos = matches!(
            w.as_str(),
            "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "time" | "coproc"
        );
        w.clear();
    };
    for c in src.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        close_word(&mut word, &mut depth, &mut max, &mut openers, &mut cmd_pos);
        match c {
            '(' | '{' => {
                depth += 1;
                openers += 1;
                max = max.max(depth);
                cmd_pos = true;
            }
            ')' | '}' => {
                depth = depth.saturating_sub(1);
                cmd_pos = true;
            }
            '`' => {
                openers += 1;
                cmd_pos = true;
            }
            ';' | '&' | '|' | '\n' | '!' => cmd_pos = true,
            ' ' | '\t' => {}
            _ => cmd_pos = false,
        }
        if max > MAX_NEST || openers > MAX_OPENERS {
            break;
        }
    }
    close_word(&mut word, &mut depth, &mut max, &mut openers, &mut cmd_pos);
    Nesting {
        depth: max,
        openers,
    }
}

thread_local! {
    /// Whether this thread is a parse worker started by [`parse_watched`].
    static PARSE_WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Returns whether the current thread is a watched parse worker.
pub(super) fn in_parse_worker() -> bool {
    PARSE_WORKER.with(std::cell::Cell::get)
}

/// Stack of a parse worker for lines that fit the inline nesting bound (the main thread's).
const WORKER_STACK: usize = 8 * 1024 * 1024;

/// Parses on a worker thread and waits at most `budget`. A parse still running then is
/// abandoned (the thread is detached; the hook process exits soon after) and the line is
/// [`Problem::TooSlow`]; a failure to start the thread counts as too deep.
pub(super) fn parse_watched(
    src: &str,
    depth: usize,
    big_stack: bool,
    budget: std::time::Duration,
) -> Script {
    let owned = src.to_owned();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let started = std::thread::Builder::new()
        .name("oath-parse".into())
        .stack_size(if big_stack { BIG_STACK } else { WORKER_STACK })
        .spawn(move || {
            PARSE_WORKER.with(|w| w.set(true));
            let _ = tx.send(parse_guarded(&owned, depth));
        });
    if started.is_err() {
        return Script::problem(Problem::TooDeep);
    }
    match rx.recv_timeout(budget) {
        Ok(script) => script,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Script::problem(Problem::TooSlow),
        // The worker died without answering (a panic outside the parser's guard).
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Script::problem(Problem::ParserPanic)
        }
    }
}

/// Returns whether a line holds a here-document operator (`<<`, `<<-`; not the here-string
/// `<<<`), wherever it stands (inside quotes too: the callers only take care).
pub(super) fn has_heredoc_operator(src: &str) -> bool {
    let bytes = src.as_bytes();
    bytes.windows(2).enumerate().any(|(i, w)| {
        w == b"<<" && bytes.get(i + 2) != Some(&b'<') && (i == 0 || bytes[i - 1] != b'<')
    })
}

/// Returns whether a line holds a here-document operator and leaves a `(` (of `$(` or a
/// subshell) or a backquote open at its end: bash rejects it, and brush-parser 0.4 loops
/// forever on several such lines (`$(<< >x \`), so it is not given them. Single quotes and
/// backslash escapes are honoured; a `(` inside double quotes counts, which can only make a
/// valid line look open (judged unparseable, never approved).
pub(super) fn open_substitution_with_heredoc(src: &str) -> bool {
    if !has_heredoc_operator(src) {
        return false;
    }
    let bytes = src.as_bytes();
    let (mut parens, mut backquote, mut single, mut double) = (0usize, false, false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if single {
            single = b != b'\'';
        } else if b == b'\\' {
            i += 1;
        } else if b == b'\'' && !double {
            single = true;
        } else if b == b'"' {
            double = !double;
        } else if b == b'`' {
            backquote = !backquote;
        } else if b == b'(' {
            parens += 1;
        } else if b == b')' {
            parens = parens.saturating_sub(1);
        }
        i += 1;
    }
    parens > 0 || backquote
}

/// Writes one space between a here-document operator (`<<`, `<<-`) and its delimiter where
/// the line has several: the same shell meaning, and it keeps brush-parser 0.4 out of the
/// endless loop that `$(<<  h ` (two blanks) sends it into. Borrows when there is nothing to
/// change.
pub(super) fn heredoc_spacing(src: &str) -> std::borrow::Cow<'_, str> {
    let bytes = src.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i..].starts_with(b"<<<") {
            // A here-string, not a here-document.
            i += 3;
        } else if bytes[i] == b'<' && bytes[i + 1] == b'<' {
            let mut j = i + 2;
            if bytes.get(j) == Some(&b'-') {
                j += 1;
            }
            let blanks = bytes[j..]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
            if blanks > 1 {
                let o = out.get_or_insert_with(|| String::with_capacity(src.len()));
                o.push_str(&src[last..j]);
                o.push(' ');
                last = j + blanks;
            }
            i = j + blanks;
        } else {
            i += 1;
        }
    }
    match out {
        Some(mut o) => {
            o.push_str(&src[last..]);
            std::borrow::Cow::Owned(o)
        }
        None => std::borrow::Cow::Borrowed(src),
    }
}

/// Parses on a thread with a large stack (for lines whose real nesting the scan cannot
/// bound tightly); a failure to start the thread counts as too deep.
pub(super) fn parse_on_big_stack(src: &str, depth: usize) -> Script {
    let owned = src.to_owned();
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(move || parse_guarded(&owned, depth))
        .ok()
        .and_then(|h| h.join().ok())
        .unwrap_or_else(|| Script::problem(Problem::TooDeep))
}

/// Parses under `catch_unwind`: a parser panic becomes a [`Problem`].
pub(super) fn parse_guarded(src: &str, depth: usize) -> Script {
    match panic::catch_unwind(AssertUnwindSafe(|| parse_unguarded(src, depth))) {
        Ok(s) => s,
        Err(_) => Script::problem(Problem::ParserPanic),
    }
}

fn options() -> ParserOptions {
    ParserOptions::default()
}

fn parse_unguarded(src: &str, depth: usize) -> Script {
    if src.contains('\0') {
        return Script::problem(Problem::Syntax("NUL byte in command".into()));
    }
    let opts = options();
    let mut parser = Parser::new(std::io::Cursor::new(src.as_bytes()), &opts);
    let program = match parser.parse_program() {
        Ok(p) => p,
        Err(e) => return Script::problem(Problem::Syntax(e.to_string())),
    };
    let mut conv = Conv {
        depth,
        vars: Vec::new(),
        opts,
        problem: None,
        procsub_level: 0,
    };
    let mut pipelines = Vec::new();
    // The tree is left to the process's exit when it fits the budget; otherwise each and-or
    // list's nodes are freed once converted, so a long line's tree and its conversion do not
    // grow side by side (fewer fresh pages touched).
    let leave = leave_to_exit(src.len());
    for cc in program.complete_commands {
        for item in cc.0 {
            conv.and_or(&item.0, &mut pipelines);
            if leave {
                std::mem::forget(item);
            }
        }
    }
    Script {
        pipelines,
        problem: conv.problem,
    }
}

/// Source bytes per process whose brush-parser trees are left to the process's exit instead of
/// freed once converted. A hook parses one line and exits: freeing the tree of a 2 KB line
/// took 6 % of its PreToolUse's instructions (~0.08 ms of 1.4 here), leaving it cost 7 more
/// pages touched. The budget bounds what a long-lived process (tests, a retrospective over a
/// transcript) leaves this way: a tree takes ~100 bytes per byte of source, so ~2 MiB at most.
const LEAVE_TO_EXIT_BYTES: usize = 16 * 1024;

/// Whether the trees of `len` more source bytes fit in [`LEAVE_TO_EXIT_BYTES`] (taking them
/// if so: a line too long to fit leaves the budget to shorter ones).
fn leave_to_exit(len: usize) -> bool {
    static TAKEN: AtomicUsize = AtomicUsize::new(0);
    take_within(&TAKEN, len, LEAVE_TO_EXIT_BYTES)
}

/// Adds `len` to `taken` when the sum stays within `budget`; returns whether it did.
fn take_within(taken: &AtomicUsize, len: usize, budget: usize) -> bool {
    taken
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
            t.checked_add(len).filter(|&sum| sum <= budget)
        })
        .is_ok()
}

/// The text of a simple command: brush's rendering (its words as written, one space apart,
/// which user rules match against), built without the formatting machinery when it holds only
/// words and assignments.
pub(super) fn simple_text(s: &ast::SimpleCommand) -> String {
    use ast::CommandPrefixOrSuffixItem as I;
    fn word(i: &I) -> Option<&str> {
        match i {
            I::Word(w) | I::AssignmentWord(_, w) => Some(w.value.as_str()),
            I::IoRedirect(_) | I::ProcessSubstitution(..) => None,
        }
    }
    let prefix = s.prefix.as_ref().map_or(&[][..], |p| &p.0);
    let suffix = s.suffix.as_ref().map_or(&[][..], |p| &p.0);
    let words: Option<Vec<&str>> = prefix
        .iter()
        .map(word)
        .chain(s.word_or_name.as_ref().map(|w| Some(w.value.as_str())))
        .chain(suffix.iter().map(word))
        .collect();
    // brush writes a space for an empty prefix or suffix too.
    let empty_part = s.prefix.as_ref().is_some_and(|p| p.0.is_empty())
        || s.suffix.as_ref().is_some_and(|p| p.0.is_empty());
    match words {
        Some(words) if !empty_part => words.join(" "),
        _ => s.to_string(),
    }
}

struct Conv {
    depth: usize,
    /// Variables assigned a literal value earlier on the line.
    vars: Vec<(String, String)>,
    opts: ParserOptions,
    problem: Option<Problem>,
    /// Process substitutions entered.
    procsub_level: usize,
}

impl Conv {
    fn nested(&mut self, text: &str) -> Script {
        super::parse_nested(text, self.depth + 1)
    }

    fn list(&mut self, l: &ast::CompoundList, out: &mut Vec<Pipeline>) {
        for item in &l.0 {
            self.and_or(&item.0, out);
        }
    }

    fn and_or(&mut self, a: &ast::AndOrList, out: &mut Vec<Pipeline>) {
        self.pipeline(&a.first, out);
        for next in &a.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p, out),
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, out: &mut Vec<Pipeline>) {
        if p.seq.len() == 1 {
            let mut stage = Vec::new();
            self.command(&p.seq[0], &mut stage, out);
            if !stage.is_empty() {
                out.push(Pipeline {
                    stages: vec![stage],
                });
            }
            return;
        }
        let mut stages = Vec::with_capacity(p.seq.len());
        for cmd in &p.seq {
            let mut stage = Vec::new();
            let mut inner = Vec::new();
            self.command(cmd, &mut stage, &mut inner);
            stage.extend(inner.into_iter().flat_map(|p| p.stages).flatten());
            stages.push(stage);
        }
        out.push(Pipeline { stages });
    }

    /// Converts one command: a simple command lands in `stage`; a compound one adds its
    /// pipelines to `out` (and its redirections as a word-less command in `stage`).
    fn command(&mut self, c: &ast::Command, stage: &mut Vec<Simple>, out: &mut Vec<Pipeline>) {
        match c {
            ast::Command::Simple(s) => {
                let simple = self.simple(s);
                // Most stages hold this one command: room for one, not `Vec`'s first four.
                stage.reserve_exact(1);
                stage.push(simple);
            }
            ast::Command::Compound(cc, redirects) => {
                self.compound(cc, out);
                if let Some(r) = redirects {
                    stage.push(self.redirect_only(r, format!("{c}")));
                }
            }
            ast::Command::Function(f) => {
                self.compound(&f.body.0, out);
                if let Some(r) = &f.body.1 {
                    stage.push(self.redirect_only(r, format!("{c}")));
                }
            }
            ast::Command::ExtendedTest(t, redirects) => {
                let mut words = vec![Word::lit("[[")];
                self.test_words(&t.expr, &mut words);
                let mut simple = Simple {
                    text: format!("{c}"),
                    words,
                    ..Simple::default()
                };
                if let Some(r) = redirects {
                    for r in &r.0 {
                        self.redirect(r, &mut simple);
                    }
                }
                stage.push(simple);
            }
        }
    }

    fn redirect_only(&mut self, r: &ast::RedirectList, text: String) -> Simple {
        let mut simple = Simple {
            text,
            ..Simple::default()
        };
        for r in &r.0 {
            self.redirect(r, &mut simple);
        }
        simple
    }

    fn test_words(&mut self, e: &ast::ExtendedTestExpr, words: &mut Vec<Word>) {
        use ast::ExtendedTestExpr as E;
        match e {
            E::And(a, b) | E::Or(a, b) => {
                self.test_words(a, words);
                self.test_words(b, words);
            }
            E::Not(a) | E::Parenthesized(a) => self.test_words(a, words),
            E::UnaryTest(_, w) => self.word(&w.value, words),
            E::BinaryTest(_, a, b) => {
                self.word(&a.value, words);
                self.word(&b.value, words);
            }
        }
    }

    fn arith(&mut self, text: &str, out: &mut Vec<Pipeline>) {
        let mut expr = if text.contains("$(") || text.contains('`') {
            self.word_joined(text)
        } else {
            Word::lit(text)
        };
        expr.text = text.to_owned();
        out.push(Pipeline {
            stages: vec![vec![Simple {
                text: format!("(( {text} ))"),
                words: vec![Word::lit("(("), expr],
                ..Simple::default()
            }]],
        });
    }

    fn compound(&mut self, cc: &ast::CompoundCommand, out: &mut Vec<Pipeline>) {
        use ast::CompoundCommand as C;
        match cc {
            C::Arithmetic(a) => self.arith(&a.expr.value, out),
            C::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arith(&e.value, out);
                }
                self.list(&f.body.list, out);
            }
            C::BraceGroup(b) => self.list(&b.list, out),
            C::Subshell(s) => self.list(&s.list, out),
            C::ForClause(f) => {
                if let Some(values) = &f.values {
                    let mut words = vec![Word::lit("for")];
                    for v in values {
                        self.word(&v.value, &mut words);
                    }
                    if words.iter().any(|w| !w.subs.is_empty()) {
                        out.push(Pipeline {
                            stages: vec![vec![Simple {
                                text: format!("for {} in …", f.variable_name),
                                words,
                                ..Simple::default()
                            }]],
                        });
                    }
                }
                self.vars.retain(|(n, _)| *n != f.variable_name);
                self.list(&f.body.list, out);
            }
            C::CaseClause(c) => {
                let mut words = Vec::new();
                self.word(&c.value.value, &mut words);
                if words.iter().any(|w| !w.subs.is_empty()) {
                    out.push(Pipeline {
                        stages: vec![vec![Simple {
                            text: format!("case {} in …", c.value.value),
                            words: std::iter::once(Word::lit("case")).chain(words).collect(),
                            ..Simple::default()
                        }]],
                    });
                }
                for item in &c.cases {
                    if let Some(body) = &item.cmd {
                        self.list(body, out);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&i.condition, out);
                self.list(&i.then, out);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, out);
                    }
                    self.list(&e.body, out);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, out);
                self.list(&w.1.list, out);
            }
            C::Coprocess(c) => {
                let mut stage = Vec::new();
                self.command(&c.body, &mut stage, out);
                if !stage.is_empty() {
                    out.push(Pipeline {
                        stages: vec![stage],
                    });
                }
            }
        }
    }

    fn simple(&mut self, s: &ast::SimpleCommand) -> Simple {
        let mut simple = Simple {
            text: simple_text(s),
            ..Simple::default()
        };
        let mut assigned: Vec<(String, Option<String>)> = Vec::new();
        if let Some(prefix) = &s.prefix {
            for item in &prefix.0 {
                self.item(item, &mut simple, true, &mut assigned);
            }
        }
        if let Some(w) = &s.word_or_name {
            self.word(&w.value, &mut simple.words);
        }
        if let Some(suffix) = &s.suffix {
            for item in &suffix.0 {
                self.item(item, &mut simple, false, &mut assigned);
            }
        }
        // Assignments persist when nothing runs (`x=rm`) or through declaration builtins.
        let persists = match simple.words.first() {
            None => true,
            Some(w) => matches!(
                w.text.as_str(),
                "export" | "declare" | "typeset" | "local" | "readonly"
            ),
        };
        if persists {
            for (name, value) in assigned {
                self.vars.retain(|(n, _)| *n != name);
                if let Some(v) = value {
                    self.vars.push((name, v));
                }
            }
        }
        simple
    }

    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        simple: &mut Simple,
        prefix: bool,
        assigned: &mut Vec<(String, Option<String>)>,
    ) {
        use ast::CommandPrefixOrSuffixItem as I;
        match item {
            I::IoRedirect(r) => self.redirect(r, simple),
            I::Word(w) => {
                self.word(&w.value, &mut simple.words);
            }
            I::AssignmentWord(a, w) => {
                let name = match &a.name {
                    ast::AssignmentName::VariableName(n) => n.clone(),
                    ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
                };
                let value = match &a.value {
                    ast::AssignmentValue::Scalar(v) => self.word_joined(&v.value),
                    ast::AssignmentValue::Array(items) => {
                        let mut joined = Word::default();
                        for (k, v) in items {
                            if let Some(k) = k {
                                let kw = self.word_joined(&k.value);
                                joined.subs.extend(kw.subs);
                            }
                            let vw = self.word_joined(&v.value);
                            joined.subs.extend(vw.subs);
                        }
                        joined.text = format!("{}", a.value);
                        joined
                    }
                };
                let known = (value.literal && !a.append).then(|| value.text.clone());
                assigned.push((name.clone(), known));
                if prefix {
                    simple.assigns.push((name, value));
                } else {
                    let text = format!("{name}={}", value.text);
                    simple.words.push(Word {
                        text,
                        literal: value.literal,
                        quoted: value.quoted,
                        subs: value.subs,
                    });
                    let _ = w;
                }
            }
            I::ProcessSubstitution(kind, sub) => {
                simple.words.push(self.process_sub(kind, sub));
            }
        }
    }

    fn process_sub(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
    ) -> Word {
        let mut pipelines = Vec::new();
        // Process substitutions nest as values: bound them like re-parses.
        if self.procsub_level >= MAX_NEST {
            self.problem = Some(Problem::TooDeep);
            return Word::default();
        }
        self.procsub_level += 1;
        let saved = std::mem::take(&mut self.vars);
        self.list(&sub.list, &mut pipelines);
        self.vars = saved;
        self.procsub_level -= 1;
        let (kind, text) = match kind {
            ast::ProcessSubstitutionKind::Read => (SubKind::ProcessRead, "<(…)"),
            ast::ProcessSubstitutionKind::Write => (SubKind::ProcessWrite, ">(…)"),
        };
        Word {
            text: text.into(),
            literal: false,
            quoted: false,
            subs: vec![Sub {
                kind,
                script: Script {
                    pipelines,
                    problem: None,
                },
            }],
        }
    }

    fn redirect(&mut self, r: &ast::IoRedirect, simple: &mut Simple) {
        match r {
            ast::IoRedirect::File(fd, kind, target) => {
                let kind = match kind {
                    ast::IoFileRedirectKind::Read => RedirectKind::Read,
                    ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => {
                        RedirectKind::Write
                    }
                    ast::IoFileRedirectKind::Append => RedirectKind::Append,
                    ast::IoFileRedirectKind::ReadAndWrite => RedirectKind::ReadWrite,
                    ast::IoFileRedirectKind::DuplicateInput
                    | ast::IoFileRedirectKind::DuplicateOutput => RedirectKind::Duplicate,
                };
                let target = match target {
                    ast::IoFileRedirectTarget::Filename(w) => self.word_joined(&w.value),
                    ast::IoFileRedirectTarget::Fd(n) => Word::lit(n.to_string()),
                    ast::IoFileRedirectTarget::Duplicate(w) => self.word_joined(&w.value),
                    ast::IoFileRedirectTarget::ProcessSubstitution(k, sub) => {
                        self.process_sub(k, sub)
                    }
                };
                // `>& file` (not a number or `-`) writes the file.
                let kind = if kind == RedirectKind::Duplicate
                    && !target
                        .text
                        .trim_end_matches('-')
                        .chars()
                        .all(|c| c.is_ascii_digit())
                {
                    RedirectKind::Write
                } else {
                    kind
                };
                simple.redirects.push(Redirect {
                    fd: *fd,
                    kind,
                    target,
                });
            }
            ast::IoRedirect::OutputAndError(w, append) => {
                let target = self.word_joined(&w.value);
                simple.redirects.push(Redirect {
                    fd: None,
                    kind: if *append {
                        RedirectKind::Append
                    } else {
                        RedirectKind::Write
                    },
                    target,
                });
            }
            ast::IoRedirect::HereString(_, w) => {
                simple.stdin_text = Some(self.word_joined(&w.value));
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                let w = if doc.requires_expansion {
                    match word::parse_heredoc(&doc.doc.value, &self.opts) {
                        Ok(pieces) => {
                            let mut b = Builder::new(true);
                            self.pieces(&doc.doc.value, &pieces, &mut b, true);
                            b.finish_joined()
                        }
                        Err(_) => Word {
                            text: doc.doc.value.clone(),
                            literal: false,
                            quoted: true,
                            subs: Vec::new(),
                        },
                    }
                } else {
                    Word {
                        text: doc.doc.value.clone(),
                        literal: true,
                        quoted: true,
                        subs: Vec::new(),
                    }
                };
                simple.stdin_text = Some(w);
            }
        }
    }

    /// Expands a word where no field splitting happens (assignments, redirections).
    fn word_joined(&mut self, raw: &str) -> Word {
        literal(raw).unwrap_or_else(|| self.word_joined_parsed(raw))
    }

    /// [`Conv::word_joined`] through brush-parser's word parser.
    fn word_joined_parsed(&mut self, raw: &str) -> Word {
        match word::parse(raw, &self.opts) {
            Ok(pieces) => {
                let mut b = Builder::new(true);
                self.pieces(raw, &pieces, &mut b, true);
                b.finish_joined()
            }
            Err(_) => unknown(raw),
        }
    }

    /// Expands a word into fields, appended to `out`.
    fn word(&mut self, raw: &str, out: &mut Vec<Word>) {
        match literal(raw) {
            Some(w) => out.push(w),
            None => self.word_parsed(raw, out),
        }
    }

    /// [`Conv::word`] through brush-parser's word parser.
    fn word_parsed(&mut self, raw: &str, out: &mut Vec<Word>) {
        match word::parse(raw, &self.opts) {
            Ok(pieces) => {
                let mut b = Builder::new(false);
                self.pieces(raw, &pieces, &mut b, false);
                b.finish_into(out);
            }
            Err(_) => out.push(unknown(raw)),
        }
    }

    fn pieces(&mut self, raw: &str, pieces: &[WordPieceWithSource], b: &mut Builder, dq: bool) {
        for p in pieces {
            let src = raw.get(p.start_index..p.end_index).unwrap_or("$?");
            match &p.piece {
                WordPiece::Text(s) => {
                    if !dq
                        && (s.contains(['*', '?'])
                            || s.contains('[') && s.contains(']')
                            || is_brace_expansion(s))
                    {
                        b.cur.literal = false;
                    }
                    b.push_str(s);
                }
                WordPiece::SingleQuotedText(s) => {
                    b.cur.quoted = true;
                    b.push_str(s);
                }
                WordPiece::AnsiCQuotedText(s) => {
                    b.cur.quoted = true;
                    let decoded = decode_ansi_c(s);
                    b.push_str(&decoded);
                }
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    b.cur.quoted = true;
                    b.started = true;
                    self.pieces(raw, inner, b, true);
                }
                WordPiece::TildeExpansion(t) => match t {
                    TildeExpr::Home => b.push_str("~"),
                    TildeExpr::UserHome(u) => {
                        b.push_str("~");
                        b.push_str(u);
                    }
                    _ => b.push_unknown(src),
                },
                WordPiece::ParameterExpansion(expr) => self.parameter(expr, src, b, dq),
                WordPiece::CommandSubstitution(s) => {
                    let script = self.nested(s);
                    b.cur.subs.push(Sub {
                        kind: SubKind::Command,
                        script,
                    });
                    b.push_unknown(src);
                }
                WordPiece::BackquotedCommandSubstitution(s) => {
                    let script = self.nested(&unescape_backquoted(s));
                    b.cur.subs.push(Sub {
                        kind: SubKind::Command,
                        script,
                    });
                    b.push_unknown(src);
                }
                WordPiece::EscapeSequence(s) => {
                    b.cur.quoted = true;
                    let mut chars = s.chars();
                    let _backslash = chars.next();
                    let rest: String = chars.collect();
                    if rest == "\n" {
                        continue;
                    }
                    if dq && !matches!(rest.as_str(), "$" | "`" | "\"" | "\\") {
                        b.push_str(s);
                    } else {
                        b.push_str(&rest);
                    }
                }
                WordPiece::ArithmeticExpression(e) => {
                    if e.value.contains("$(") || e.value.contains('`') {
                        let inner = self.word_joined(&e.value);
                        b.cur.subs.extend(inner.subs);
                    }
                    b.push_unknown(src);
                }
            }
        }
    }

    fn parameter(&mut self, expr: &ParameterExpr, src: &str, b: &mut Builder, dq: bool) {
        if let ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        } = expr
        {
            if name == "IFS" {
                if dq {
                    b.push_str(" ");
                } else {
                    b.split();
                }
                return;
            }
            if name == "HOME" && b.cur.text.is_empty() {
                b.push_str("~");
                return;
            }
            if let Some((_, v)) = self.vars.iter().rev().find(|(n, _)| n == name) {
                let v = v.clone();
                if dq {
                    b.push_str(&v);
                } else {
                    let mut first = true;
                    for (i, field) in v.split([' ', '\t', '\n']).enumerate() {
                        if i > 0 {
                            b.split();
                        }
                        if !field.is_empty() || first {
                            b.push_str(field);
                        }
                        first = false;
                    }
                }
                return;
            }
        }
        b.push_unknown(src);
    }
}

/// Accumulates fields while walking word pieces.
struct Builder {
    joined: bool,
    cur: Word,
    started: bool,
    fields: Vec<Word>,
}

impl Builder {
    fn new(joined: bool) -> Self {
        Self {
            joined,
            cur: Word {
                literal: true,
                ..Word::default()
            },
            started: false,
            fields: Vec::new(),
        }
    }

    fn push_str(&mut self, s: &str) {
        self.cur.text.push_str(s);
        self.started = true;
    }

    fn push_unknown(&mut self, src: &str) {
        self.cur.text.push_str(src);
        self.cur.literal = false;
        self.started = true;
    }

    fn split(&mut self) {
        if self.joined {
            self.push_str(" ");
            return;
        }
        if self.started {
            let next = Word {
                literal: true,
                ..Word::default()
            };
            self.fields.push(std::mem::replace(&mut self.cur, next));
            self.started = false;
        }
    }

    fn finish_into(mut self, out: &mut Vec<Word>) {
        if self.started || self.fields.is_empty() && !self.cur.subs.is_empty() {
            self.fields.push(self.cur);
        } else if let Some(last) = self.fields.last_mut() {
            last.subs.extend(self.cur.subs);
        }
        out.append(&mut self.fields);
    }

    fn finish_joined(self) -> Word {
        self.cur
    }
}

/// Returns the word as a literal when it has nothing to expand: plain characters and quotes
/// with nothing to expand inside (`'…'`, or `"…"` without `$`, backquote or backslash), the
/// quotes removed. Anything else (an expansion, an escape, an unquoted glob, brace or tilde,
/// an unclosed quote) is left to brush-parser's word parser, which takes ~9 000 instructions
/// for a word as short as `"TODO"`; the result is the same (a property test below checks).
fn literal(raw: &str) -> Option<Word> {
    let bytes = raw.as_bytes();
    if bytes.is_empty() {
        // No field at all, not an empty one (brush never hands over an empty word).
        return None;
    }
    let mut text = String::with_capacity(raw.len());
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() {
        // Every cut below is at an ASCII byte, so on a character boundary.
        let (close, stops): (u8, &[u8]) = match bytes[i] {
            b'\'' => (b'\'', b"'"),
            b'"' => (b'"', b"\"$`\\"),
            _ => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| is_special_unquoted(b))
                    .map_or(bytes.len(), |n| i + n);
                if end == i {
                    return None;
                }
                text.push_str(&raw[i..end]);
                i = end;
                continue;
            }
        };
        let len = bytes[i + 1..].iter().position(|b| stops.contains(b))?;
        let end = i + 1 + len;
        if bytes[end] != close {
            return None;
        }
        text.push_str(&raw[i + 1..end]);
        quoted = true;
        i = end + 1;
    }
    Some(Word {
        text,
        literal: true,
        quoted,
        subs: Vec::new(),
    })
}

/// Bytes that, outside quotes, start a quote, an expansion, an escape or a pattern.
fn is_special_unquoted(b: u8) -> bool {
    matches!(
        b,
        b'$' | b'`' | b'\'' | b'"' | b'\\' | b'~' | b'*' | b'?' | b'[' | b'{'
    )
}

fn unknown(raw: &str) -> Word {
    Word {
        text: raw.to_owned(),
        literal: false,
        quoted: false,
        subs: Vec::new(),
    }
}

fn is_brace_expansion(s: &str) -> bool {
    match (s.find('{'), s.rfind('}')) {
        (Some(a), Some(b)) if a < b => {
            let inner = &s[a + 1..b];
            inner.contains(',') || inner.contains("..")
        }
        _ => false,
    }
}

/// Undoes the backslash escaping bash applies inside backquotes.
fn unescape_backquoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '\\' | '`' | '$')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// Decodes backslash escapes as in `$'…'` (also used for `printf`/`echo -e` text).
pub fn decode_ansi_c(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    let hex = |slice: &[char], max: usize| -> (u32, usize) {
        let mut v = 0u32;
        let mut n = 0;
        while n < max && n < slice.len() {
            match slice[n].to_digit(16) {
                Some(d) => v = v * 16 + d,
                None => break,
            }
            n += 1;
        }
        (v, n)
    };
    while i < b.len() {
        if b[i] != '\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(c),
            'x' => {
                let (v, n) = hex(&b[i..], 2);
                i += n;
                if n == 0 {
                    out.push_str("\\x");
                } else if let Some(ch) = char::from_u32(v) {
                    out.push(ch);
                }
            }
            'u' | 'U' => {
                let (v, n) = hex(&b[i..], if c == 'u' { 4 } else { 8 });
                i += n;
                match char::from_u32(v) {
                    Some(ch) if n > 0 => out.push(ch),
                    _ => out.push('\u{FFFD}'),
                }
            }
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                let mut n = 0;
                while n < 2 && i < b.len() {
                    match b[i].to_digit(8) {
                        Some(d) => {
                            v = v * 8 + d;
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                if let Some(ch) = char::from_u32(v) {
                    out.push(ch);
                }
            }
            'c' => {
                // Control character: `\cx`.
                if i < b.len() {
                    out.push(char::from_u32((b[i] as u32) & 0x1f).unwrap_or('?'));
                    i += 1;
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn conv() -> Conv {
        Conv {
            depth: 0,
            vars: vec![("v".into(), "known".into())],
            opts: options(),
            problem: None,
            procsub_level: 0,
        }
    }

    #[test]
    fn quoted_literals_are_unquoted_without_the_word_parser() {
        for (raw, text, quoted) in [
            ("ls", "ls", false),
            ("''", "", true),
            ("\"\"", "", true),
            ("\"pattern3\"", "pattern3", true),
            ("a'b c'\"d*e\"f", "ab cd*ef", true),
            ("'$HOME'", "$HOME", true),
            ("\"{a,b}\"", "{a,b}", true),
            ("é\"ü\"", "éü", true),
        ] {
            let w = literal(raw).unwrap_or_else(|| panic!("{raw:?} is a literal"));
            assert_eq!((w.text.as_str(), w.quoted, w.literal), (text, quoted, true));
        }
        for raw in [
            "",
            "\"$HOME\"",
            "\"a\\\"b\"",
            "\"`x`\"",
            "'open",
            "\"open",
            "a*",
            "~/x",
            "{a,b}",
            "\\n",
            "$'x'",
        ] {
            assert_eq!(literal(raw), None, "{raw:?}");
        }
    }

    #[test]
    fn trees_left_to_exit_stay_within_the_budget() {
        let taken = AtomicUsize::new(0);
        assert!(take_within(&taken, 600, 1000));
        // Too long to fit: refused, and the budget is left to shorter lines.
        assert!(!take_within(&taken, 401, 1000));
        assert!(!take_within(&taken, usize::MAX, 1000));
        assert!(take_within(&taken, 400, 1000));
        assert!(!take_within(&taken, 1, 1000));
        assert_eq!(taken.into_inner(), 1000);
        // The process-wide budget: a line over it is never left.
        assert!(!leave_to_exit(LEAVE_TO_EXIT_BYTES + 1));
    }

    proptest! {
        /// Whatever the shortcut accepts, brush-parser's word parser expands the same way,
        /// split into fields or joined.
        #[test]
        fn the_literal_shortcut_agrees_with_the_word_parser(
            raw in "[a=/.é ()!@#%^&+,:;<>|}\\]'\"$`\\\\*?\\[{~\n-]{0,12}"
        ) {
            if let Some(fast) = literal(&raw) {
                let mut fields = Vec::new();
                conv().word_parsed(&raw, &mut fields);
                prop_assert_eq!(&fields, &vec![fast.clone()], "{:?}", raw);
                prop_assert_eq!(conv().word_joined_parsed(&raw), fast, "{:?}", raw);
            }
        }
    }
}
