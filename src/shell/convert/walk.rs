//! The walk over brush-parser's AST: lists, pipelines, compound commands, simple commands
//! and redirections, flattened into [`Script`] pipelines.

use brush_parser::ParserOptions;
use brush_parser::ast;
use brush_parser::word;

use super::prescan::MAX_NEST;
use super::words::Builder;
use crate::shell::{Pipeline, Problem, Redirect, RedirectKind, Script, Simple, Sub, SubKind, Word};

/// The text of a simple command: brush's rendering (its words as written, one space apart,
/// which user rules match against), built without the formatting machinery when it holds only
/// words and assignments.
pub(in crate::shell) fn simple_text(s: &ast::SimpleCommand) -> String {
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

/// Converts one parsed line, carrying what the walk has learnt so far.
pub(super) struct Conv {
    /// Re-parses already entered.
    pub(super) depth: usize,
    /// Variables assigned a literal value earlier on the line.
    pub(super) vars: Vec<(String, String)>,
    /// Options the word parser runs with.
    pub(super) opts: ParserOptions,
    /// Why (part of) the line could not be understood, if so.
    pub(super) problem: Option<Problem>,
    /// Process substitutions entered.
    pub(super) procsub_level: usize,
    /// Bytes variables expanded to so far (bounded by [`crate::shell::MAX_EXPANSION`]).
    pub(super) expanded: usize,
}

impl Conv {
    /// The values known on the line of the variables an arithmetic expression names that
    /// hold a command substitution: arithmetic evaluates a value in turn, and a substitution
    /// in an array subscript there runs (`v='a[$(cmd)]'; (( v ))`).
    pub(super) fn arithmetic_code(&self, text: &str) -> Vec<String> {
        let names: Vec<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        self.vars
            .iter()
            .filter(|(name, value)| {
                (value.contains("$(") || value.contains('`')) && names.contains(&name.as_str())
            })
            .map(|(_, value)| value.clone())
            .collect()
    }

    pub(super) fn nested(&mut self, text: &str) -> Script {
        crate::shell::parse_nested(text, self.depth + 1)
    }

    fn list(&mut self, l: &ast::CompoundList, out: &mut Vec<Pipeline>) {
        for item in &l.0 {
            self.and_or(&item.0, out);
        }
    }

    pub(super) fn and_or(&mut self, a: &ast::AndOrList, out: &mut Vec<Pipeline>) {
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
            // The operators are words too: `-eq` evaluates its operands as arithmetic (a
            // subscript in them runs commands), `==` does not.
            E::UnaryTest(op, w) => {
                words.push(Word::lit(op.to_string()));
                self.word(&w.value, words);
            }
            E::BinaryTest(op, a, b) => {
                self.word(&a.value, words);
                words.push(Word::lit(op.to_string()));
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
        let mut words = vec![Word::lit("(("), expr];
        // Arithmetic evaluates a variable's value as arithmetic in turn, and a command
        // substitution in an array subscript there runs (`v='a[$(cmd)]'; (( v ))`): such a
        // value known on the line is judged with the expression.
        words.extend(self.arithmetic_code(text).into_iter().map(Word::lit));
        out.push(Pipeline {
            stages: vec![vec![Simple {
                text: format!("(( {text} ))"),
                words,
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
                // An element's subscript is expanded and evaluated when the assignment runs
                // (`a[$(cmd)]=1` runs cmd): its substitutions are the word's, and a word with
                // one is not literal.
                let (name, subscript) = match &a.name {
                    ast::AssignmentName::VariableName(n) => (n.clone(), None),
                    ast::AssignmentName::ArrayElementName(n, i) => {
                        (n.clone(), Some(self.word_joined(i)))
                    }
                };
                let mut value = match &a.value {
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
                let mut written = name.clone();
                if let Some(i) = subscript {
                    written = format!("{name}[{}]", i.text);
                    value.literal &= i.literal;
                    value.subs.extend(i.subs);
                }
                let known = (value.literal && !a.append).then(|| value.text.clone());
                assigned.push((name.clone(), known));
                if prefix {
                    simple.assigns.push((name, value));
                } else {
                    let text = format!("{written}={}", value.text);
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
}
