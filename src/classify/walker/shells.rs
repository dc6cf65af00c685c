//! Handlers for shells and what they run: `-c` code, scripts, stdin, `env`, `alias`,
//! `(( … ))`, `cd`, fzf's bound commands and PowerShell text.

use std::path::Path;

use crate::shell::{RedirectKind, Word};

use super::super::effect::{Code, Effect};
use super::super::pack::account::Gap;
use super::super::pack::schema::Act;
use super::apply::Handled;
use super::env_args;
use super::gaps::Who;
use super::printing::prints_to_agent;
use super::{Flow, Leaf, RunAs, Walker};

impl Walker<'_> {
    /// `env`: options ([`env_args::read`]: `-C` directories in any spelling, `-S` split
    /// strings), assignments, then a command, run in the folder `-C` names.
    pub(super) fn h_env(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let from = self.out.items.len();
        let args = c.args();
        let read = env_args::read(args);
        if !read.gaps.is_empty() {
            let gaps: Vec<Gap> = read
                .gaps
                .iter()
                .map(|&index| Gap {
                    index,
                    option: true,
                })
                .collect();
            let who = Who {
                name: "env",
                pack: c.place.found.pack,
            };
            self.unaccounted(c.s, who, args, &gaps, from, c.depth);
        }
        if let Some((value, next)) = &read.split {
            // The split words take the place of `-S TEXT`: options, assignments, a command
            // (after what the options before it did).
            let mut text = String::from("env");
            if read.empties {
                text.push_str(" -i");
            }
            if let Some(d) = &read.chdir {
                text.push_str(" -C ");
                text.push_str(&d.text);
            }
            for w in std::iter::once(value).chain(&args[*next..]) {
                text.push(' ');
                text.push_str(&w.text);
            }
            self.line(&text, c.depth + 1);
            return;
        }
        let mut i = read.rest;
        while i < args.len() {
            let a = args[i].text.as_str();
            if a.contains('=')
                && !a.starts_with('=')
                && a.split('=').next().is_some_and(|n| !n.contains('$'))
            {
                self.assignment_words(c.s, std::slice::from_ref(&args[i]), c.depth);
                i += 1;
            } else {
                break;
            }
        }
        if i >= args.len() {
            // Without `-i`, what it prints is every variable: secrets (tokens, keys) with them.
            if read.empties {
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
        // The command runs in the folder `-C` names (followed through links); the line
        // goes on where it was.
        let cwd = self.cwd.clone();
        if let Some(d) = &read.chdir {
            self.cwd = self.folder(d);
        }
        let got = self.command(c.s, &args[i..], c.depth, c.stdin, c.mods);
        self.cwd = cwd;
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
            let f = self.run_script(s, w, "runs", RunAs::Shell, depth);
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
            let f = self.run_script(s, &target, "runs", RunAs::Shell, depth);
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
    pub(super) fn piped_code(&mut self, c: &Handled<'_, '_, '_>, flow: &Flow, lang: Option<&str>) {
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

    /// `cd`, `pushd`, `popd`: the working directory of the commands after it, links
    /// followed. Where `CDPATH` is set (on the line or in the environment), or
    /// `cdable_vars` on, a name that does not start with `/`, `.` or `..` may lead to any
    /// folder of it: unknown.
    pub(super) fn h_cd(&mut self, c: &Handled<'_, '_, '_>) {
        let dest = c
            .args()
            .iter()
            .find(|a| !a.text.starts_with('-') || a.text == "-");
        let searched = |w: &Word| {
            let t = w.text.as_str();
            !(t.starts_with('/')
                || t.starts_with('~') && w.literal
                || matches!(t, "." | "..")
                || t.starts_with("./")
                || t.starts_with("../"))
        };
        self.cwd = match (c.name, dest) {
            ("popd", _) => None,
            (_, None) => self.ctx.home().map(Path::to_path_buf),
            (_, Some(w)) if w.text == "-" => None,
            (_, Some(w)) if self.cd_searches && searched(w) => None,
            (_, Some(w)) => self.folder(w),
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
