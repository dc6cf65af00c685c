//! Handlers for interpreters: inline code, modules and scripts of Python, Node, Perl, Ruby
//! and PHP, and awk programs.

use crate::shell::{Simple, Word};

use super::super::args::scan;
use super::super::code;
use super::super::effect::{Code, Effect};
use super::super::pack::schema::{Act, PathNote};
use super::super::paths;
use super::apply::Handled;
use super::{Leaf, RunAs, Walker};

impl Walker<'_> {
    /// Interpreters: inline code, a module (`python -m`), a script, stdin or a session.
    pub(super) fn h_interpreter(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (s, name, args, lang) = (c.s, c.name, c.args(), c.lang);
        let mut i = 0;
        let mut code: Option<Word> = None;
        let mut module: Option<usize> = None;
        let mut in_place = false;
        while i < args.len() {
            let a = args[i].text.as_str();
            if !a.starts_with('-') || a == "-" {
                break;
            }
            let takes_code = match lang {
                "python" => a == "-c" || a.len() > 2 && !a.starts_with("--") && a.ends_with('c'),
                "js" => matches!(a, "-e" | "--eval" | "-p" | "--print" | "-pe"),
                "perl" => !a.starts_with("--") && (a.ends_with('e') || a.ends_with('E')),
                "ruby" => a == "-e" || !a.starts_with("--") && a.ends_with('e'),
                "php" => a == "-r",
                _ => a == "-e",
            };
            if (lang == "perl" || lang == "ruby")
                && !a.starts_with("--")
                && a[1..].contains('i')
                && !a.starts_with("-I")
            {
                in_place = true;
            }
            if takes_code {
                code = args.get(i + 1).cloned();
                i += 2;
                if lang != "perl" && lang != "ruby" {
                    break;
                }
                continue;
            }
            if lang == "python" && a == "-m" {
                module = Some(i + 1);
                break;
            }
            let valued = match lang {
                "python" => matches!(a, "-W" | "-X" | "-Q"),
                "js" => matches!(
                    a,
                    "-r" | "--require"
                        | "--import"
                        | "--loader"
                        | "--input-type"
                        | "--env-file"
                        | "-C"
                        | "--conditions"
                ),
                "perl" => matches!(a, "-I" | "-M" | "-m" | "-x"),
                "ruby" => matches!(a, "-I" | "-r" | "-C" | "-E"),
                "php" => matches!(a, "-c" | "-d" | "-z"),
                _ => false,
            };
            i += if valued { 2 } else { 1 };
        }
        if let Some(m) = module {
            // `python -m X ARGS` runs X as its own pack describes it, when one does.
            match args.get(m) {
                Some(w)
                    if w.literal
                        && super::super::pack::lookup(self.ctx.user_packs(), &w.text)
                            .is_some_and(|f| f.entry.name.first() != "*") =>
                {
                    let got = self.command(s, &args[m..], c.depth, c.stdin, c.mods);
                    leaf.produces.merge(&got.produces);
                }
                Some(w) => self.act(
                    c,
                    Act::ToolRun,
                    "run-module",
                    &format!("runs the Python module {}", w.text),
                ),
                None => self.act(c, Act::ToolRun, "run-module", "python -m without a module"),
            }
            return;
        }
        if let Some(code) = code {
            self.code(s, &code, lang, c.depth);
            if in_place {
                // A substitution script edited in place is judged by the files it edits.
                self.out.pop_if("interpreter-code");
                for w in args[i.min(args.len())..]
                    .iter()
                    .filter(|a| !a.text.starts_with('-'))
                {
                    let tg = self.target(w);
                    self.found(c, Effect::Write(tg, None), "write", "", "edits in place");
                }
            }
            return;
        }
        if let Some(w) = args.get(i).filter(|w| w.text != "-") {
            let f = self.run_script(s, w, "runs", RunAs::Code(lang), c.depth);
            self.push(&s.text, f);
            self.framework_script(s, w, &args[i + 1..], c.depth, c.stdin);
            return;
        }
        leaf.shell_stdin = true;
        if let Some(text) = &s.stdin_text {
            let text = text.clone();
            self.code(s, &text, lang, c.depth);
            return;
        }
        if let Some(flow) = c.stdin {
            self.piped_code(c, flow, Some(lang));
            return;
        }
        if !self.entry_rules(c, leaf) {
            self.act(
                c,
                Act::ToolRun,
                "interactive-interpreter",
                &format!("starts an interactive {name}"),
            );
        }
    }

    /// Classifies inline interpreter code.
    pub(super) fn code(&mut self, s: &Simple, w: &Word, lang: &str, depth: usize) {
        let t = s.text.as_str();
        if !w.literal {
            let code = if self.subs_download(std::slice::from_ref(w)) {
                Code::Downloaded
            } else {
                Code::Computed
            };
            self.push(
                t,
                self.own(&Effect::Run(code), "run", "", "runs interpreter code:"),
            );
            return;
        }
        let findings = code::analyze(&w.text, lang, self.ctx, self.cwd.as_deref());
        for lit in findings.shell_strings {
            self.line(&lit, depth + 1);
        }
        let mut f = findings.finding;
        // What code analysis finds high is a guess from words: not understood, asked.
        if f.kind == super::super::Kind::Reversible
            && (f.risk >= super::Risk::High || calls_a_destroying_method(&w.text))
        {
            f = f
                .at_least(super::Risk::High)
                .kind(super::super::Kind::NotUnderstood);
            if f.rule == "interpreter-code" {
                f.rule = "interpreter-destroys".into();
                f.reason = format!("the {lang} code calls a method that deletes or drops");
            }
        }
        if self.ctx.details() {
            f.effect.get_or_insert_with(|| format!("run(code {lang})"));
        }
        self.push(t, f);
    }

    /// awk programs: shell commands and files written from the program, else reads.
    pub(super) fn h_awk(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let name = c.name;
        let sc = scan(
            c.args(),
            &[
                "-F",
                "-v",
                "-f",
                "--field-separator",
                "--assign",
                "--file",
                "-i",
                "--include",
                "-l",
                "--load",
                "-E",
                "--exec",
            ],
            false,
        );
        // gawk's `-i inplace` rewrites the files it reads; another `-i`, `-l` or `-E` loads
        // awk source or a compiled extension.
        let includes: Vec<&str> = sc
            .values(&["-i", "--include"])
            .map(|w| w.text.as_str())
            .collect();
        let inplace = includes
            .iter()
            .any(|i| *i == "inplace" || *i == "inplace.awk");
        if includes
            .iter()
            .any(|i| *i != "inplace" && *i != "inplace.awk")
            || sc.has(&["-l", "--load"])
        {
            self.act(
                c,
                Act::ShellUnknownCode,
                "interpreter-code",
                &format!("{name} loads awk code or an extension from a file"),
            );
        }
        if sc.has(&["-f", "--file", "-E", "--exec"]) {
            self.act(
                c,
                Act::ToolRun,
                "interpreter",
                &format!("{name} runs a program file"),
            );
            return;
        }
        let Some(prog) = sc.pos.first().copied() else {
            self.act(
                c,
                Act::ToolRun,
                "interpreter",
                &format!("{name} without a program"),
            );
            return;
        };
        let files: Vec<paths::Target> = sc.pos[1..].iter().map(|w| self.target(w)).collect();
        if inplace {
            for tg in &files {
                self.found(
                    c,
                    Effect::Write(tg.clone(), None),
                    "write",
                    "",
                    &format!("{name} -i inplace rewrites"),
                );
            }
        }
        let p = &prog.text;
        if p.contains("system(")
            || p.contains("| getline")
            || p.contains("|getline")
            || p.contains("print |")
            || p.contains("printf |")
            || p.contains("|&")
        {
            self.act(
                c,
                Act::ShellUnknownCode,
                "interpreter-spawn",
                &format!("the {name} program runs shell commands"),
            );
            for lit in code::string_literals(p) {
                if code::looks_like_shell(&lit) {
                    self.line(&lit, c.depth + 1);
                }
            }
            return;
        }
        // `print … > "file"`: each literal target is a write; others are unknown paths.
        let redirected = awk_print_targets(p);
        for (f, appends) in &redirected {
            let tg = self.target(&Word::lit(f));
            let note = (!appends).then_some(PathNote::Overwrites);
            self.found(
                c,
                Effect::Write(tg, note),
                "write",
                "",
                &format!("the {name} program writes"),
            );
        }
        if p.contains("print >") || p.contains("printf >") || p.contains("print>") {
            let mut f = super::Finding::new(
                super::Domain::FileWrite,
                super::Risk::Medium,
                "interpreter-write",
                format!("the {name} program writes files"),
            );
            f.effect = Some("write(?)".into());
            self.push(c.t(), f);
            return;
        }
        self.read_paths(c.t(), &files, "reads", leaf);
    }
}

/// Returns whether code calls a method whose name deletes, drops or clears
/// (`client.deleteIndex(…)`, `db.dropCollection(…)`, `algolia.clearObjects(…)`).
fn calls_a_destroying_method(code: &str) -> bool {
    let b = code.as_bytes();
    let mut i = 0;
    while let Some(p) = code[i..].find('.') {
        let start = i + p + 1;
        let end = b[start..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(b.len(), |n| start + n);
        // A call, with its parentheses or (Ruby) without: at the end of a statement.
        let called = end < b.len() && b[end] == b'('
            || end > start
                && b.get(end)
                    .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\n' | b';' | b')' | b'}'));
        if called {
            let name = code[start..end].to_ascii_lowercase();
            if [
                "delete", "destroy", "drop", "purge", "truncate", "clear", "wipe", "erase",
            ]
            .iter()
            .any(|w| name.starts_with(w))
            {
                return true;
            }
        }
        i = end.max(start);
    }
    false
}

/// The quoted file names awk `print`/`printf` statements write to, each with whether it
/// appends (`print $0 > "out"`, `printf "x" >> "log"`).
fn awk_print_targets(prog: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut rest = prog;
    while let Some(i) = rest.find("print") {
        let stmt = &rest[i..];
        let end = stmt.find([';', '}', '\n']).unwrap_or(stmt.len());
        let stmt = &stmt[..end];
        if let Some(j) = stmt.find('>') {
            // `>` empties the file when the program first writes it; `>>` appends.
            let appends = stmt[j + 1..].starts_with('>');
            let target = stmt[j + 1..].trim_start_matches('>').trim_start();
            if let Some(q) = target.strip_prefix('"')
                && let Some((name, _)) = q.split_once('"')
            {
                out.push((name.to_owned(), appends));
            }
        }
        rest = &rest[i + 5..];
    }
    out
}
