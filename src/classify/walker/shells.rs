//! Handlers for shell and code languages: shells (`-c`, scripts, stdin), interpreters
//! (inline code, modules, scripts), awk programs, `env`, `echo`/`printf`, `alias`,
//! `(( … ))`, `cd` and PowerShell text.

use std::path::Path;

use crate::shell::{self, RedirectKind, Simple, Word};

use super::super::args::scan;
use super::super::code;
use super::super::effect::{Code, Effect};
use super::super::pack::schema::Act;
use super::super::paths;
use super::apply::Handled;
use super::{Flow, Leaf, Walker};

impl Walker<'_> {
    /// `env`: assignments and options, `-S` split strings, `-C` directories, then a command.
    pub(super) fn h_env(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let args = c.args();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].text.as_str();
            if matches!(a, "-u" | "--unset" | "-C" | "--chdir") {
                if matches!(a, "-C" | "--chdir")
                    && let Some(d) = args.get(i + 1)
                {
                    self.cwd = self.target(d).path;
                }
                i += 2;
            } else if matches!(a, "-S" | "--split-string")
                || a.starts_with("--split-string=")
                || a.starts_with("-S") && a.len() > 2
            {
                let mut text = if let Some(v) = a.strip_prefix("--split-string=") {
                    v.to_owned()
                } else if a.len() > 2 && a.starts_with("-S") {
                    a[2..].to_owned()
                } else {
                    i += 1;
                    args.get(i).map(|w| w.text.clone()).unwrap_or_default()
                };
                for w in &args[(i + 1).min(args.len())..] {
                    text.push(' ');
                    text.push_str(&w.text);
                }
                self.line(&text, c.depth + 1);
                return;
            } else if a.starts_with('-') && a != "-"
                || a.contains('=')
                    && !a.starts_with('=')
                    && a.split('=').next().is_some_and(|n| !n.contains('$'))
            {
                if !a.starts_with('-') {
                    self.assignment_words(c.s, std::slice::from_ref(&args[i]), c.depth);
                }
                i += 1;
            } else {
                break;
            }
        }
        if i >= args.len() {
            // Without `-i`, what it prints is every variable: secrets (tokens, keys) with them.
            let emptied = args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-i" | "--ignore-environment" | "-"));
            if emptied {
                self.act(
                    c,
                    Act::ShellHarmless,
                    "print-env",
                    "prints the variables it is given",
                );
            } else {
                leaf.produces.secret = true;
                if prints_to_agent(c.s, self) {
                    self.act(
                        c,
                        Act::SecretsRead,
                        "print-env",
                        "prints the whole environment, secrets included",
                    );
                } else {
                    self.act(
                        c,
                        Act::ShellHarmless,
                        "print-env",
                        "prints the environment into a file",
                    );
                }
            }
            return;
        }
        let got = self.command(c.s, &args[i..], c.depth, c.stdin, c.mods);
        *leaf = got;
    }

    /// Shells: `-c` code, a script file, a here-document, stdin, or an interactive shell.
    pub(super) fn h_shell(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (s, name, args, depth) = (c.s, c.name, c.args(), c.depth);
        let mut i = 0;
        let mut has_c = false;
        let mut has_s = false;
        // `-n` (noexec): the shell reads the commands and runs none; interactive shells
        // ignore it.
        let (mut noexec, mut interactive) = (false, false);
        while i < args.len() {
            let a = args[i].text.as_str();
            if a == "--" || a == "-" {
                i += 1;
                break;
            }
            if matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
                // Options apply in order: `+o noexec` or `-o exec` (zsh) turn it off again.
                match (a, args.get(i + 1).map(|w| w.text.as_str())) {
                    ("-o", Some("noexec")) => noexec = true,
                    ("+o", Some("noexec")) | ("-o", Some("exec")) => noexec = false,
                    _ => {}
                }
                i += 2;
                continue;
            }
            if a == "--no-execute" {
                noexec = true;
            }
            if a == "--interactive" {
                interactive = true;
            }
            if a.starts_with("--") {
                i += 1;
                continue;
            }
            if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
                if a.contains('n') {
                    noexec = a.starts_with('-');
                }
                if a.contains('i') {
                    interactive = true;
                }
                if a.contains('c') {
                    has_c = true;
                }
                if a.contains('s') && !a.starts_with('+') {
                    has_s = true;
                }
                i += 1;
                continue;
            }
            break;
        }
        let first = if has_s { None } else { args.get(i) };
        if noexec && !interactive {
            self.act(
                c,
                Act::ShellHarmless,
                "syntax-check",
                &format!("{name} -n only checks the syntax: it runs nothing"),
            );
            return;
        }
        if has_c {
            match first {
                Some(w) => self.shell_text(
                    s,
                    std::slice::from_ref(w),
                    depth,
                    &format!("{name} -c runs"),
                ),
                None => self.found(
                    c,
                    Effect::NotUnderstood,
                    "unparseable",
                    &format!("{name} -c without a command"),
                    "",
                ),
            }
            return;
        }
        if let Some(w) = first {
            let f = self.run_file(w, "runs");
            self.push(&s.text, f);
            return;
        }
        leaf.shell_stdin = true;
        self.saw_shell = true;
        if let Some(text) = &s.stdin_text {
            self.shell_text(
                s,
                std::slice::from_ref(text),
                depth,
                &format!("{name} << runs"),
            );
            return;
        }
        if let Some(flow) = c.stdin {
            self.piped_code(c, flow, None);
            return;
        }
        if let Some(r) = s.redirects.iter().find(|r| r.kind == RedirectKind::Read) {
            let target = r.target.clone();
            let f = self.run_file(&target, "runs");
            self.push(&s.text, f);
            return;
        }
        self.act(
            c,
            Act::ShellInteractive,
            "interactive-shell",
            &format!("starts an interactive {name}"),
        );
    }

    /// Judges what a pipeline feeds into a shell (`lang` none) or an interpreter.
    fn piped_code(&mut self, c: &Handled<'_, '_, '_>, flow: &Flow, lang: Option<&str>) {
        let into = match lang {
            None => "pipes into a shell".to_owned(),
            Some(_) => format!("pipes into {}", c.name),
        };
        if flow.download {
            self.ran(c, Code::Downloaded, &into);
        } else if flow.decode {
            self.ran(c, Code::Hidden, &into);
        } else if let Some(text) = &flow.text {
            let text = text.clone();
            match lang {
                None => {
                    self.line(&text, c.depth + 1);
                    self.found(
                        c,
                        Effect::Run(Code::Piped),
                        "pipe-to-shell",
                        "",
                        "pipes text into a shell (the text is classified too):",
                    );
                }
                Some(lang) => self.code(c.s, &Word::lit(text), lang, c.depth),
            }
        } else {
            self.ran(c, Code::Piped, &into);
        }
    }

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
            let f = self.run_file(w, "runs");
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
        for f in &redirected {
            let tg = self.target(&Word::lit(f));
            self.found(
                c,
                Effect::Write(tg, None),
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

    /// `echo` and `printf`: the text they print flows to the next command.
    pub(super) fn h_print(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (name, args) = (c.name, c.args());
        if name == "printenv" {
            return self.h_variables(c, leaf);
        }
        // A variable whose name says it holds a secret, printed where the agent reads it.
        if let Some(v) = args
            .iter()
            .filter(|a| !a.literal)
            .find_map(|a| super::super::secret_vars::secret_in(&a.text))
        {
            leaf.produces.secret = true;
            if prints_to_agent(c.s, self) {
                let why = format!("{name} prints ${v}, a variable that holds a secret");
                self.act(c, Act::SecretsRead, "print-secret", &why);
                return;
            }
        }
        if name == "printf" && self.printf_to_variable(c) {
            return;
        }
        if args.iter().all(|a| a.literal) {
            let mut texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
            if name == "echo" {
                while texts
                    .first()
                    .is_some_and(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                {
                    texts.remove(0);
                }
            }
            let joined = texts.join(" ");
            if name == "printf" || args.iter().any(|a| a.text == "-e") {
                if joined.contains("\\x")
                    || joined.contains("\\0")
                    || joined.contains("\\u")
                    || joined.contains('%')
                {
                    leaf.produces.decode = true;
                }
                leaf.produces.text = Some(shell::decode_ansi_c(&joined));
            } else {
                leaf.produces.text = Some(joined);
            }
        } else {
            leaf.produces.decode = true;
        }
        self.act(
            c,
            Act::ShellHarmless,
            "print",
            &format!("{name} prints text"),
        );
    }

    /// `printf -v NAME FORMAT [ARGS]`: assigns instead of printing. A name with a subscript
    /// (`a[$(cmd)]`, `arr[$i]`) is evaluated as arithmetic, which runs the command
    /// substitutions in it and in the values of the variables it names; a name computed at
    /// run time can be one. A plain name is an assignment of the formatted text, judged as
    /// one (`printf -v PATH …`). Returns whether it printed nothing.
    fn printf_to_variable(&mut self, c: &Handled<'_, '_, '_>) -> bool {
        let args = c.args();
        let (var, rest) = match args.first().map(|w| w.text.as_str()) {
            Some("-v") => match args.get(1) {
                Some(n) => (n.clone(), &args[2..]),
                None => return false,
            },
            Some(t) if t.starts_with("-v") && args[0].literal => (
                Word {
                    text: t[2..].to_owned(),
                    ..args[0].clone()
                },
                &args[1..],
            ),
            _ => return false,
        };
        let rest = match rest.first() {
            Some(w) if w.text == "--" => &rest[1..],
            _ => rest,
        };
        let plain = !var.text.is_empty()
            && !var.text.starts_with(|ch: char| ch.is_ascii_digit())
            && var
                .text
                .chars()
                .all(|ch| ch == '_' || ch.is_ascii_alphanumeric());
        if !var.literal || !plain {
            let subscript = var.text.find('[').map_or("", |i| &var.text[i..]);
            let why = if !var.literal {
                "printf -v assigns to a name computed at run time (a subscript in it is arithmetic bash evaluates, running the commands in it)"
            } else if subscript.contains(['$', '`']) {
                "printf -v assigns to an array element whose subscript bash evaluates as arithmetic (it runs $(…), backquotes and the values of the variables in it)"
            } else if var.text.ends_with(']')
                && subscript.len() > 2
                && subscript[1..subscript.len() - 1]
                    .chars()
                    .all(|ch| ch.is_ascii_digit())
            {
                // A number is no arithmetic that runs anything.
                ""
            } else if subscript.ends_with(']') {
                "printf -v assigns to an array element whose subscript bash evaluates as arithmetic (a name in it is a variable whose value is evaluated in turn)"
            } else {
                "printf -v assigns to a word that is no variable name"
            };
            if !why.is_empty() {
                // The commands in it are judged as if they ran.
                let inner = subscript
                    .find("$(")
                    .map(|i| &subscript[i + 2..subscript.rfind(')').unwrap_or(subscript.len())])
                    .or_else(|| {
                        let i = subscript.find('`')?;
                        let j = subscript.rfind('`').filter(|j| *j > i)?;
                        Some(&subscript[i + 1..j])
                    });
                if let Some(inner) = inner.filter(|t| !t.trim().is_empty()) {
                    let inner = inner.to_owned();
                    self.line(&inner, c.depth + 1);
                }
                self.found(c, Effect::NotUnderstood, "printf-assign", why, "");
                return true;
            }
        }
        let name = var.text.split('[').next().unwrap_or("").to_owned();
        let value = match rest {
            [format] if !format.text.contains(['%', '\\']) => format.clone(),
            _ => Word {
                text: rest
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                literal: false,
                ..Word::default()
            },
        };
        self.assignment(c.s, &name, &value, c.depth);
        self.act(
            c,
            Act::ShellHarmless,
            "print",
            "printf -v formats text into a variable",
        );
        true
    }

    /// printenv: printing the whole environment, or a variable whose name says it holds a
    /// secret, reads secrets; printing others is harmless.
    fn h_variables(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (name, args) = (c.name, c.args());
        match variables_printed(name, args) {
            Some(what) => {
                leaf.produces.secret = true;
                if prints_to_agent(c.s, self) {
                    self.act(
                        c,
                        Act::SecretsRead,
                        "print-secret",
                        &format!("{name} prints {what}"),
                    );
                } else {
                    self.act(
                        c,
                        Act::ShellHarmless,
                        "harmless",
                        &format!("{name} prints {what} into a file"),
                    );
                }
            }
            None => self.act(
                c,
                Act::ShellHarmless,
                "harmless",
                &format!("{name} only reads state or prints"),
            ),
        }
    }

    /// set, declare, typeset, local, readonly, export: what the pack says of the words is
    /// kept (which set variables, which are computed); this adds that printing the whole
    /// environment, or a variable whose name says it holds a secret, where the agent reads
    /// it, reads secrets (`declare -p DATABASE_URL`, `set | grep KEY`).
    pub(super) fn printed_variables(&mut self, s: &Simple, name: &str, args: &[Word]) {
        let Some(what) = variables_printed(name, args) else {
            return;
        };
        if prints_to_agent(s, self) {
            let f = self.own(
                &Effect::Act(Act::SecretsRead),
                "print-secret",
                &format!("{name} prints {what}"),
                "",
            );
            self.push(&s.text, f);
        }
    }

    /// `alias NAME=BODY`: each body is classified as if it ran.
    pub(super) fn h_alias(&mut self, c: &Handled<'_, '_, '_>) {
        let mut any = false;
        for a in c.args() {
            if let Some((_, v)) = a.text.split_once('=') {
                any = true;
                if a.literal {
                    self.line(v, c.depth + 1);
                } else {
                    self.found(
                        c,
                        Effect::Run(Code::Computed),
                        "unknown-code",
                        "",
                        "defines an alias of",
                    );
                }
            }
        }
        let why = if any {
            "defines an alias (its body is classified as if it ran)"
        } else {
            "lists aliases"
        };
        self.act(c, Act::ShellHarmless, "alias", why);
    }

    /// `(( … ))`: arithmetic, or text bash may run as commands.
    pub(super) fn h_arith(&mut self, c: &Handled<'_, '_, '_>) {
        let joined = c
            .args()
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let expr = joined.as_str();
        // bash runs a command substitution written in an array subscript even from a quoted
        // word (`let 'a[$(cmd)]'`); unquoted ones are already judged as substitutions.
        let hidden = c
            .args()
            .iter()
            .any(|w| w.subs.is_empty() && (w.text.contains("$(") || w.text.contains('`')));
        if hidden {
            let text = expr.to_owned();
            self.line(&text, c.depth + 1);
            self.found(
                c,
                Effect::NotUnderstood,
                "unparseable",
                "arithmetic holding a command substitution, which bash runs",
                "",
            );
            return;
        }
        if arithmetic_looks_valid(expr) {
            self.act(c, Act::ShellHarmless, "arithmetic", "evaluates arithmetic");
        } else {
            // bash may read `((cmd))` as nested subshells: judge the text as commands too.
            let expr = expr.to_owned();
            self.line(&expr, c.depth + 1);
            self.found(
                c,
                Effect::NotUnderstood,
                "unparseable",
                "`(( … ))` holds text that is not arithmetic",
                "",
            );
        }
    }

    /// `cd`, `pushd`, `popd`: the working directory of the commands after it.
    pub(super) fn h_cd(&mut self, c: &Handled<'_, '_, '_>) {
        let dest = c
            .args()
            .iter()
            .find(|a| !a.text.starts_with('-') || a.text == "-");
        self.cwd = match (c.name, dest) {
            ("popd", _) => None,
            (_, None) => self.ctx.home().map(Path::to_path_buf),
            (_, Some(w)) if w.text == "-" => None,
            (_, Some(w)) => self.target(w).path,
        };
        self.act(
            c,
            Act::ShellHarmless,
            "change-directory",
            "changes the working directory",
        );
    }

    /// fzf and its kin: the commands `--preview` and the `--bind` actions run, classified as
    /// shell; `--listen-unsafe` lets other programs run commands through it.
    pub(super) fn h_fzf(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let sc = &c.level.own.scan;
        let mut commands: Vec<String> = sc.values(&["--preview"]).map(|w| w.text.clone()).collect();
        for b in sc.values(&["--bind"]) {
            commands.extend(bind_commands(&b.text));
        }
        if c.args()
            .iter()
            .any(|a| a.text.starts_with("--listen-unsafe"))
        {
            self.act(
                c,
                Act::NetListen,
                "network-listen",
                &format!(
                    "{} --listen-unsafe lets other programs run commands through it",
                    c.name
                ),
            );
        }
        let computed = sc.values(&["--preview", "--bind"]).any(|w| !w.literal);
        if computed {
            self.found(
                c,
                Effect::Run(Code::Computed),
                "unknown-code",
                "",
                "fzf runs",
            );
        }
        for cmd in commands {
            self.line(
                &cmd.replace("{}", "item").replace("{q}", "query"),
                c.depth + 1,
            );
        }
        let _ = leaf;
        self.act(
            c,
            Act::ShellHarmless,
            "harmless",
            &format!("{} lets a person pick from a list", c.name),
        );
    }

    /// PowerShell command text, judged as a whole.
    pub(super) fn h_powershell(&mut self, c: &Handled<'_, '_, '_>) {
        let text = c
            .args()
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let mut f = super::super::powershell::powershell_finding(&text);
        f.effect = Some("run(code powershell)".into());
        self.push(c.t(), f);
    }
}

/// Returns whether `(( … ))` text looks like arithmetic: no two words in a row
/// (`rm -rf ~` is a command someone hid in arithmetic brackets).
fn arithmetic_looks_valid(expr: &str) -> bool {
    // Single quotes never appear in arithmetic (`( ( eval 'cmd' ) )` reaches here as one).
    if expr.contains('\'') {
        return false;
    }
    let mut prev_word = false;
    for tok in expr.split_whitespace() {
        let tok = tok.trim_matches('"');
        let word = tok
            .trim_start_matches(['-', '+', '!', '~', '('])
            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        let operand_like = word || tok.starts_with(|c: char| c.is_ascii_digit() || c == '$');
        if prev_word && operand_like {
            return false;
        }
        prev_word = operand_like
            && !tok.ends_with([
                '+', '-', '*', '/', '%', '=', '<', '>', '&', '|', '^', '?', ':', ',', '(',
            ]);
    }
    true
}

/// Returns the commands of fzf `--bind` actions: `execute(CMD)`, `become:CMD`,
/// `reload(CMD)`, `transform-…(CMD)` and the like, in either of fzf's two forms.
fn bind_commands(spec: &str) -> Vec<String> {
    const RUNS: &[&str] = &[
        "execute",
        "execute-silent",
        "become",
        "reload",
        "reload-sync",
        "preview",
        "change-preview",
        "transform",
        "transform-header",
        "transform-footer",
        "transform-prompt",
        "transform-query",
        "transform-preview-label",
        "transform-border-label",
        "transform-list-label",
        "transform-input-label",
        "transform-header-label",
        "transform-footer-label",
        "transform-ghost",
        "transform-pointer",
        "transform-nth",
        "transform-search",
        "bg-transform",
    ];
    let mut out = Vec::new();
    let b = spec.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &spec[i..];
        let Some((name, after)) = RUNS
            .iter()
            .filter(|n| rest.starts_with(**n))
            .max_by_key(|n| n.len())
            .map(|n| (*n, &rest[n.len()..]))
        else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let at_boundary = i == 0 || matches!(b[i - 1], b':' | b'+' | b',');
        if !at_boundary {
            i += name.len();
            continue;
        }
        let mut chars = after.chars();
        match chars.next() {
            Some(':') => {
                // `action:CMD` runs to the end of the binding.
                out.push(after[1..].to_owned());
                break;
            }
            Some(
                open @ ('(' | '[' | '{' | '<' | '~' | '!' | '@' | '#' | '$' | '%' | '^' | '&' | '*'
                | ';' | '/' | '|'),
            ) => {
                let close = match open {
                    '(' => ')',
                    '[' => ']',
                    '{' => '}',
                    '<' => '>',
                    other => other,
                };
                let body = &after[1..];
                let end = body.find(close).unwrap_or(body.len());
                out.push(body[..end].to_owned());
                i += name.len() + 1 + end + 1;
            }
            _ => i += name.len(),
        }
    }
    out
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

/// The quoted file names awk `print`/`printf` statements write to (`print $0 > "out"`,
/// `printf "x" >> "log"`).
fn awk_print_targets(prog: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prog;
    while let Some(i) = rest.find("print") {
        let stmt = &rest[i..];
        let end = stmt.find([';', '}', '\n']).unwrap_or(stmt.len());
        let stmt = &stmt[..end];
        if let Some(j) = stmt.find('>') {
            let target = stmt[j + 1..].trim_start_matches('>').trim_start();
            if let Some(q) = target.strip_prefix('"')
                && let Some((name, _)) = q.split_once('"')
            {
                out.push(name.to_owned());
            }
        }
        rest = &rest[i + 5..];
    }
    out
}

/// Returns whether what a command prints reaches the agent: its output is not redirected to
/// a file or thrown away (`> /dev/null`). A pipe is the agent's too: oath does not follow
/// what the next command does with it.
fn prints_to_agent(s: &Simple, w: &Walker<'_>) -> bool {
    !s.redirects.iter().any(|r| {
        matches!(r.kind, RedirectKind::Write | RedirectKind::Append)
            && matches!(r.fd, None | Some(1))
            && {
                let t = w.target(&r.target);
                t.zone != paths::Zone::Harmless
                    || t.path.as_deref().is_some_and(|p| {
                        matches!(p.to_str(), Some("/dev/null" | "/dev/zero" | "/dev/full"))
                    })
            }
    })
}

/// Returns what a builtin that prints variables prints of secrets, when it does: the whole
/// environment, or a variable whose name says it holds a secret.
fn variables_printed(name: &str, args: &[Word]) -> Option<String> {
    use super::super::secret_vars::is_secret_variable;
    let flags: String = args
        .iter()
        .filter(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.len() > 1)
        .flat_map(|a| a.text[1..].chars())
        .collect();
    let names: Vec<&Word> = args
        .iter()
        .filter(|a| !a.text.starts_with('-') && !a.text.starts_with('+'))
        .collect();
    let dump = match name {
        // `printenv [-0]`: every variable.
        "printenv" => names.is_empty(),
        // `set` alone prints every variable (with options, it sets them).
        "set" => args.is_empty(),
        // `export`, `export -p`, `readonly`, `readonly -p`.
        "export" | "readonly" => names.is_empty() && flags.chars().all(|f| f == 'p'),
        // `declare`, `declare -p`, `declare -x`: variables and values (not `-f`, `-F`:
        // functions).
        _ => names.is_empty() && !flags.contains(['f', 'F']),
    };
    if dump {
        return Some("the whole environment, secrets included".to_owned());
    }
    let prints = match name {
        "printenv" => true,
        "declare" | "typeset" | "export" | "local" | "readonly" => flags.contains('p'),
        _ => false,
    };
    names
        .iter()
        .map(|w| w.text.split('=').next().unwrap_or(""))
        .find(|n| prints && is_secret_variable(n))
        .map(|n| format!("${n}, a variable that holds a secret"))
}
