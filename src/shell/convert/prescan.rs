//! Cheap pre-scans of a line before brush-parser sees it: how deeply it nests, and the
//! here-document shapes that would send the parser into an endless loop.

/// Deepest estimated nesting of brackets and compound commands oath follows.
pub(super) const MAX_NEST: usize = 40;
/// Most openers (brackets, compound keywords, backquotes) in one line: a bound on the real
/// nesting whatever quoting hides. 1 000 levels fit [`BIG_STACK`](super::BIG_STACK) in a debug build.
const MAX_OPENERS: usize = 1000;
/// Up to this many openers the line is parsed on the caller's stack (40 levels fit a 2 MiB
/// stack in a debug build); beyond, on a thread with [`BIG_STACK`](super::BIG_STACK).
const INLINE_OPENERS: usize = 40;

/// How deeply a line nests, as far as a cheap scan can tell.
pub(in crate::shell) struct Nesting {
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

/// Scans the nesting of brackets and compound commands (`if`…`fi`, `while`…`done` …).
/// Brackets count anywhere (quote-blind); keywords count where a command may start (after a
/// separator, a bracket or a keyword that takes a command), a superset of where bash reads
/// them, so `echo if` adds nothing and prose in a here-document rarely does.
pub(in crate::shell) fn nesting(src: &str) -> Nesting {
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

/// Returns whether a line holds a here-document operator (`<<`, `<<-`; not the here-string
/// `<<<`), wherever it stands (inside quotes too: the callers only take care).
pub(in crate::shell) fn has_heredoc_operator(src: &str) -> bool {
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
pub(in crate::shell) fn open_substitution_with_heredoc(src: &str) -> bool {
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
pub(in crate::shell) fn heredoc_spacing(src: &str) -> std::borrow::Cow<'_, str> {
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
