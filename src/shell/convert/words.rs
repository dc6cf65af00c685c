//! Static word expansion: quotes removed, `$'…'` decoded, `${IFS}` split and variables
//! assigned earlier on the line substituted; substitutions parsed into nested scripts.

use brush_parser::word::{
    self, Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource,
};

use super::walk::Conv;
use crate::shell::{Sub, SubKind, Word};

impl Conv {
    /// Expands a word where no field splitting happens (assignments, redirections).
    pub(super) fn word_joined(&mut self, raw: &str) -> Word {
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
    pub(super) fn word(&mut self, raw: &str, out: &mut Vec<Word>) {
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

    pub(super) fn pieces(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        b: &mut Builder,
        dq: bool,
    ) {
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
                    for code in self.arithmetic_code(&e.value) {
                        let inner = self.word_joined(&code);
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
                let grown = self.expanded.saturating_add(v.len());
                if grown > crate::shell::MAX_EXPANSION {
                    self.problem.get_or_insert(crate::shell::Problem::TooLarge);
                    b.push_unknown(src);
                    return;
                }
                self.expanded = grown;
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
pub(super) struct Builder {
    joined: bool,
    cur: Word,
    started: bool,
    fields: Vec<Word>,
}

impl Builder {
    pub(super) fn new(joined: bool) -> Self {
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

    pub(super) fn finish_joined(self) -> Word {
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
            opts: super::super::options(),
            problem: None,
            procsub_level: 0,
            expanded: 0,
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
