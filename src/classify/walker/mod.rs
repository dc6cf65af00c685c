//! The walker: every simple command a shell line would run is found (wrappers unwrapped,
//! `bash -c` and `eval` re-parsed, substitutions and here-documents followed), data flowing
//! through pipelines is tracked (a download piped into a shell, credentials piped into the
//! network), and each command is read against its rule pack ([`apply`]) or, for argument
//! languages packs cannot describe, by a handler ([`shells`], [`files`], [`net`]). The
//! worst finding decides.

mod apply;
mod archives;
mod databases;
mod env_args;
mod envconfig;
mod envvars;
mod files;
mod gaps;
mod interpreters;
mod links;
mod net;
mod patch;
mod printing;
mod shells;
mod taint;
mod tar;
mod tasks;

pub(crate) use taint::classify_line;

use std::path::PathBuf;

use crate::shell::{self, RedirectKind, Script, Simple, Word};

use super::effect::{Code, Effect, Unread};
use super::pack::schema::{Act, Carried, PathNote};
use super::paths::{self, Target, Zone};
use super::policy::{self, Said};
use super::rule::{Finding, Findings};
use super::scripts::{self, FileText};
use super::{Classification, Context, Domain, Risk};

/// Classifies a Bash command line.
pub(crate) fn classify_command(cmd: &str, ctx: &Context) -> Classification {
    let mut w = Walker::new(ctx);
    w.line(cmd, 0);
    if w.out.items.is_empty() {
        w.out.push(cmd, harmless("empty", "nothing to run", ctx));
    }
    w.out.into_classification()
}

/// Returns whether a word names a folder to go into, whatever the command does with it: a
/// trailing `/` or `/.` (`rm -rf link/` empties the folder a link names), or a pattern,
/// judged by the folder it lists (`link/*`).
fn goes_into(w: &Word) -> bool {
    let t = w.text.as_str();
    t.ends_with('/') && t.len() > 1
        || t.ends_with("/.")
        || !w.literal && t.contains(['*', '?', '['])
}

/// Returns the finding for what runs nothing (an empty line, assignments only), as the
/// policy judges harmless shell work; its effect is not shown.
fn harmless(id: &str, explain: &str, ctx: &Context) -> Finding {
    let said = Said {
        id,
        explain,
        verb: "",
        safer: None,
    };
    policy::finding(&Effect::Act(Act::ShellHarmless), said, ctx)
}

/// What a command feeds into the next stage of its pipeline.
#[derive(Debug, Clone, Default)]
pub(crate) struct Flow {
    /// Content downloaded from the network.
    pub download: bool,
    /// Decoded or unpacked content (base64 -d, xxd -r …).
    pub decode: bool,
    /// Credentials or the environment.
    pub secret: bool,
    /// Literal text (echo/printf of literal words).
    pub text: Option<String>,
}

impl Flow {
    fn merge(&mut self, o: &Flow) {
        self.download |= o.download;
        self.decode |= o.decode;
        self.secret |= o.secret;
    }

    fn add(&mut self, c: Carried) {
        match c {
            Carried::Download => self.download = true,
            Carried::Decode => self.decode = true,
            Carried::Secret => self.secret = true,
        }
    }

    /// Returns what the flow carries, as pack conditions name it.
    fn carried(&self) -> Vec<Carried> {
        let mut v = Vec::new();
        if self.download {
            v.push(Carried::Download);
        }
        if self.decode {
            v.push(Carried::Decode);
        }
        if self.secret {
            v.push(Carried::Secret);
        }
        v
    }
}

/// What one simple command turned out to be, for pipeline-level checks.
#[derive(Debug, Clone, Default)]
pub(crate) struct Leaf {
    produces: Flow,
    /// A shell or interpreter reading commands from stdin.
    shell_stdin: bool,
    /// A raw network tool (nc, socat, telnet).
    net_tool: bool,
}

impl Leaf {
    /// Adds what another reading of the same command found.
    fn merge(&mut self, o: &Leaf) {
        self.produces.merge(&o.produces);
        if self.produces.text.is_none() {
            self.produces.text.clone_from(&o.produces.text);
        }
        self.shell_stdin |= o.shell_stdin;
        self.net_tool |= o.net_tool;
    }
}

/// How a command runs a script file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunAs<'a> {
    /// A shell runs it (`bash f`, `BASH_ENV=f`).
    Shell,
    /// This shell reads it (`source f`, `. f`): its `cd` moves the rest of the line.
    Source,
    /// An interpreter of this language runs it (`python f`).
    Code(&'a str),
    /// It is executed itself (`./f`): its shebang says what runs it.
    Executed,
}

/// Modifiers inherited from wrappers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mods {
    /// Run through sudo, doas, su.
    pub elevated: bool,
    /// Arguments appended at run time (xargs, parallel).
    pub dynamic_args: bool,
    /// Run by `find -exec`: file operations apply to the whole tree.
    pub under_find: bool,
}

/// The walker's state for one line.
pub(crate) struct Walker<'a> {
    pub ctx: &'a Context,
    pub cwd: Option<PathBuf>,
    pub out: Findings,
    downloaded: Vec<PathBuf>,
    saw_dev_tcp: bool,
    saw_shell: bool,
    /// Paths this line writes, as far as it has been walked, in order, with what they
    /// then hold when the line says it (`cat > f <<EOF`, `echo … > f`): a script written
    /// on the line is not the one on disk.
    written: std::cell::RefCell<Vec<(PathBuf, Option<String>)>>,
    /// The scripts whose commands are being judged, outermost first, as messages name them.
    scripts: Vec<(PathBuf, String)>,
    /// Script files read for this call, and their bytes.
    scripts_read: (usize, usize),
    /// `cd NAME` searches folders oath does not know (`CDPATH` set in the environment or on
    /// the line, bash's `cdable_vars`).
    pub(crate) cd_searches: bool,
    /// Paths already looked up for links, and where they lead when elsewhere.
    links_seen: std::cell::RefCell<std::collections::HashMap<std::ffi::OsString, Option<PathBuf>>>,
    /// The paths the walker read a word as (an effect judged it, a handler looked at it, the
    /// working directory moved there), for the net over a handler's words that name a
    /// protected path ([`gaps`]).
    judged: std::cell::RefCell<Vec<PathBuf>>,
}

/// Build tools' wrapper scripts a project carries (`./mvnw`, `./gradlew`): run from the
/// project, they are the tool their pack describes.
const PROJECT_WRAPPERS: &[&str] = &["mvnw", "gradlew"];

/// Directories whose programs are named by their file name alone (`/usr/bin/rm` is `rm`).
const BIN_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/run/current-system/sw/bin",
];

impl<'a> Walker<'a> {
    /// Returns a finding of the walker itself (not of a pack rule), with the effect it
    /// judged.
    fn own(&self, effect: &Effect, id: &str, explain: &str, verb: &str) -> Finding {
        if let Effect::Write(t, _) = effect
            && let Some(p) = &t.path
        {
            self.written.borrow_mut().push((p.clone(), None));
        }
        self.judged(effect);
        let mut f = policy::finding(
            effect,
            Said {
                id,
                explain,
                verb,
                safer: None,
            },
            self.ctx,
        );
        if self.ctx.details() {
            f.effect = Some(effect.to_string());
        }
        f
    }

    /// Records the path an effect judges.
    fn judged(&self, effect: &Effect) {
        if let Some(p) = effect.target().and_then(|t| t.path.clone()) {
            self.judged.borrow_mut().push(p);
        }
    }

    pub(crate) fn new(ctx: &'a Context) -> Self {
        Self {
            ctx,
            cwd: Some(ctx.cwd().to_path_buf()),
            out: Findings::default(),
            downloaded: Vec::new(),
            saw_dev_tcp: false,
            saw_shell: false,
            written: std::cell::RefCell::new(Vec::new()),
            scripts: Vec::new(),
            scripts_read: (0, 0),
            links_seen: std::cell::RefCell::new(std::collections::HashMap::new()),
            judged: std::cell::RefCell::new(Vec::new()),
            cd_searches: ctx.cd_path(),
        }
    }

    /// Parses and classifies a line found `depth` re-parses deep.
    pub(crate) fn line(&mut self, text: &str, depth: usize) {
        let script = shell::parse_nested(text, depth);
        self.script(&script, depth, text);
        if depth == 0 && self.saw_dev_tcp && self.saw_shell {
            self.push(
                text,
                self.own(
                    &Effect::ReverseShell,
                    "reverse-shell",
                    "connects a shell to a network socket (/dev/tcp): a reverse shell",
                    "",
                ),
            );
        }
    }

    fn push(&mut self, text: &str, mut f: Finding) {
        // What a script runs is named by the script, so the person sees where it is.
        match self.scripts.last() {
            Some((_, shown)) if f.rule != "run-script-read" => {
                let cmd: String = text.chars().take(80).collect();
                f.reason = format!("{shown} runs `{cmd}`: {}", f.reason);
                self.out.push(&format!("{shown}: {text}"), f);
            }
            _ => self.out.push(text, f),
        }
    }

    fn script(&mut self, s: &Script, depth: usize, text: &str) {
        if let Some(p) = &s.problem {
            let rule = match p {
                shell::Problem::TooLong(_) => "too-long",
                shell::Problem::TooDeep => "too-deep",
                shell::Problem::Syntax(_) => "unparseable",
                shell::Problem::ParserPanic => "parser-failure",
                shell::Problem::TooSlow => "parser-timeout",
                shell::Problem::TooLarge => "too-large",
            };
            let shown: String = text.chars().take(200).collect();
            self.push(
                &shown,
                self.own(
                    &Effect::NotUnderstood,
                    rule,
                    &format!("{p}: what cannot be understood is never auto-approved"),
                    "",
                ),
            );
        }
        for pl in &s.pipelines {
            let mut flow = Flow::default();
            let (mut shell_stdin, mut net_tool) = (false, false);
            let multi = pl.stages.len() > 1;
            for (i, stage) in pl.stages.iter().enumerate() {
                let mut produced = Flow::default();
                let mut text = None;
                for simple in stage {
                    let stdin = (i > 0).then_some(&flow);
                    let leaf = self.simple(simple, depth, stdin);
                    produced.merge(&leaf.produces);
                    if stage.len() == 1 {
                        text = leaf.produces.text.clone();
                    }
                    shell_stdin |= leaf.shell_stdin;
                    net_tool |= leaf.net_tool;
                }
                flow.merge(&produced);
                flow.text = text;
            }
            if multi && shell_stdin && net_tool {
                let shown = pl
                    .stages
                    .iter()
                    .flatten()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ");
                self.push(
                    &shown,
                    self.own(
                        &Effect::ReverseShell,
                        "reverse-shell",
                        "pipes a shell through a network tool: a reverse shell",
                        "",
                    ),
                );
            }
        }
    }

    /// Resolves a word to the path it names (`$HOME` is the home the context knows; other
    /// variables are computed); a copy of credentials made on the line, or a link to them,
    /// holds credentials.
    pub(crate) fn target(&self, w: &Word) -> Target {
        let t = self.resolved(w);
        if let Some(p) = &t.path {
            self.judged.borrow_mut().push(p.clone());
        }
        t
    }

    /// Resolves a word as [`Self::target`] does, without taking the word as read (a handler
    /// only looking whether it names credentials).
    pub(crate) fn resolved(&self, w: &Word) -> Target {
        let t = taint::resolve_word(w, self.cwd.as_deref(), self.ctx);
        self.marked(t, goes_into(w))
    }

    /// Returns the folder a word names as a command goes into it (`cd`, `env -C`): links
    /// followed, the last name's too; None when computed.
    pub(crate) fn folder(&self, w: &Word) -> Option<PathBuf> {
        let t = taint::resolve_word(w, self.cwd.as_deref(), self.ctx);
        let p = self.marked(t, true).path;
        if let Some(p) = &p {
            self.judged.borrow_mut().push(p.clone());
        }
        p
    }

    /// Returns the working directory as a target.
    fn cwd_target(&self) -> Target {
        paths::target(self.cwd.clone(), self.ctx)
    }

    fn words_read_secrets(&self, words: &[Word]) -> bool {
        let mut found = false;
        for w in words {
            for sub in &w.subs {
                sub.script.for_each_simple(&mut |s: &Simple| {
                    if s.words
                        .first()
                        .is_some_and(|n| n.text == "env" || n.text == "printenv")
                        && s.words.len() == 1
                    {
                        found = true;
                    }
                    for a in s
                        .words
                        .iter()
                        .skip(1)
                        .chain(s.redirects.iter().map(|r| &r.target))
                    {
                        if a.literal && self.target(a).credential {
                            found = true;
                        }
                    }
                });
            }
        }
        found
    }

    fn simple(&mut self, s: &Simple, depth: usize, stdin: Option<&Flow>) -> Leaf {
        let before = self.out.items.len();
        if self.ctx.expanded_commands() && !s.words.is_empty() {
            let words: Vec<&str> = s.words.iter().map(|w| w.text.as_str()).collect();
            let words = words.join(" ");
            if words != s.text {
                self.out.commands.push(words);
            }
        }
        for w in s.all_words() {
            for sub in &w.subs {
                self.script(&sub.script, depth + 1, &s.text);
            }
        }
        for (name, value) in &s.assigns {
            self.assignment(s, name, value, depth);
        }
        let mut leaf = Leaf::default();
        for r in &s.redirects {
            if r.kind == RedirectKind::Duplicate {
                continue;
            }
            let t = self.target(&r.target);
            if t.zone == Zone::Network {
                self.saw_dev_tcp = true;
                leaf.net_tool = true;
            }
            if r.kind.writes() {
                if t.zone != Zone::Harmless {
                    // `>`, `>|`, `&>` truncate the file first: what it held is gone. `>>`
                    // adds to it and `<>` opens it without truncating.
                    let (verb, note) = match r.kind {
                        RedirectKind::Append => ("appends to", None),
                        RedirectKind::Write if t.zone != Zone::Network => {
                            ("writes", Some(PathNote::Overwrites))
                        }
                        _ => ("writes", None),
                    };
                    self.push(
                        &s.text,
                        self.own(&Effect::Write(t, note), "redirect", "", verb),
                    );
                }
            } else if t.zone == Zone::Network {
                self.push(
                    &s.text,
                    self.own(&Effect::Write(t, None), "redirect", "", "reads from"),
                );
            } else if t.credential {
                leaf.produces.secret = true;
                self.push(&s.text, self.own(&Effect::Read(t), "redirect", "", "reads"));
            }
        }
        if s.words.is_empty() {
            if self.out.items.len() == before {
                let f = if s.assigns.is_empty() {
                    harmless("no-command", "runs nothing", self.ctx)
                } else {
                    harmless("assignment", "sets shell variables", self.ctx)
                };
                self.push(&s.text, f);
            }
            return leaf;
        }
        let inner = self.command(s, &s.words, depth, stdin, Mods::default());
        // `cat > f <<EOF … EOF`, `echo … > f`: what the file then holds is on the line.
        let content = inner.produces.text.clone().or_else(|| {
            (s.words[0].text == "cat" && s.words.len() == 1)
                .then(|| {
                    s.stdin_text
                        .as_ref()
                        .filter(|w| w.literal)
                        .map(|w| w.text.clone())
                })
                .flatten()
        });
        if let Some(text) = content {
            for r in s.redirects.iter().filter(|r| r.kind == RedirectKind::Write) {
                if let Some(p) = self.target(&r.target).path {
                    let mut written = self.written.borrow_mut();
                    if let Some(last) = written.iter_mut().rev().find(|(w, _)| *w == p) {
                        last.1 = Some(text.clone());
                    }
                }
            }
        }
        if inner.produces.download {
            // `curl URL > x.sh`: the file holds the download, as with `curl -o x.sh`.
            for r in s.redirects.iter().filter(|r| r.kind.writes()) {
                if let Some(p) = self.target(&r.target).path {
                    self.downloaded.push(p);
                }
            }
        }
        leaf.produces.merge(&inner.produces);
        leaf.produces.text = inner.produces.text;
        leaf.shell_stdin |= inner.shell_stdin;
        leaf.net_tool |= inner.net_tool;
        if leaf.shell_stdin
            && s.redirects
                .iter()
                .any(|r| self.target(&r.target).zone == Zone::Network)
        {
            self.push(
                &s.text,
                self.own(
                    &Effect::ReverseShell,
                    "reverse-shell",
                    "connects a shell's input and output to a network socket: a reverse shell",
                    "",
                ),
            );
        }
        leaf
    }

    /// Classifies one command: its name is looked up in the packs.
    pub(crate) fn command(
        &mut self,
        s: &Simple,
        argv: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
    ) -> Leaf {
        let Some(first) = argv.first() else {
            self.push(&s.text, harmless("no-command", "runs nothing", self.ctx));
            return Leaf::default();
        };
        if !first.literal
            || first.text.is_empty()
            || first
                .text
                .chars()
                .any(|c| c.is_control() || c.is_whitespace())
        {
            let why = format!(
                "the command name `{}` is computed at run time (variable, substitution, glob or odd characters): oath cannot tell what runs",
                first.text.chars().take(60).collect::<String>()
            );
            self.push(
                &s.text,
                self.own(&Effect::NotUnderstood, "unknown-command", &why, ""),
            );
            return Leaf::default();
        }
        let full = first.text.as_str();
        let name = match full.rfind('/') {
            None => full,
            Some(i) => {
                let dir = &full[..i];
                let base = &full[i + 1..];
                // oath's own binary named by its path is oath, judged by its subcommand.
                if BIN_DIRS.contains(&dir)
                    || dir.is_empty()
                    || PROJECT_WRAPPERS.contains(&base) && self.target(first).in_project()
                    || base == "oath" && self.target(first).protected
                {
                    base
                } else {
                    let f = self.run_script(s, first, "runs", RunAs::Executed, depth);
                    self.push(&s.text, f);
                    self.framework_script(s, first, &argv[1..], depth, stdin);
                    return Leaf::default();
                }
            }
        };
        if matches!(
            name,
            "export" | "declare" | "typeset" | "local" | "readonly"
        ) {
            self.assignment_words(s, &argv[1..], depth);
        }
        if matches!(
            name,
            "set" | "export" | "declare" | "typeset" | "local" | "readonly"
        ) {
            self.printed_variables(s, name, &argv[1..]);
        }
        // bash's `cdable_vars`: `cd NAME` goes to the folder a variable of that name holds.
        if name == "shopt" && argv[1..].iter().any(|w| w.text.contains("cdable_vars")) {
            self.cd_searches = true;
        }
        let both = super::pack::lookup_both(self.ctx.user_packs(), name);
        match (both.builtin, both.user) {
            (Some(b), Some(u)) => self.apply_both(s, name, b, u, &argv[1..], depth, stdin, mods),
            (Some(found), None) | (None, Some(found)) => {
                self.apply(s, name, found, &argv[1..], depth, stdin, mods)
            }
            (None, None) => {
                let why = format!("runs `{name}`, a program no pack describes");
                let run: Vec<&str> = argv[1..].iter().map(|w| w.text.as_str()).collect();
                let words = if run.is_empty() {
                    Vec::new()
                } else {
                    vec![gaps::shown(name, &run.join(" "))]
                };
                let f = self.own(&Effect::Unexplained(words), "unknown-program", &why, "");
                self.push(&s.text, f);
                for w in &argv[1..] {
                    self.check_word(s, w, &why, depth);
                }
                Leaf::default()
            }
        }
    }

    /// Classifies a command both a built-in pack and a user's pack describe: a user pack adds
    /// knowledge and never removes protection. Every effect either states is kept (the worst
    /// decides), except that where one side accounts for every word and the other does not,
    /// the other's reversible guesses give way; the command is partly understood only when
    /// neither accounts for all its words (the words one could not place are still checked).
    #[allow(clippy::too_many_arguments)]
    fn apply_both(
        &mut self,
        s: &Simple,
        name: &str,
        builtin: super::pack::Found,
        user: super::pack::Found,
        args: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
    ) -> Leaf {
        let start = self.out.items.len();
        let cwd = self.cwd.clone();
        let mut leaf = self.apply(s, name, builtin, args, depth, stdin, mods);
        let mid = self.out.items.len();
        let cwd_after = std::mem::replace(&mut self.cwd, cwd);
        let other = self.apply(s, name, user, args, depth, stdin, mods);
        if cwd_after != self.cwd {
            // A `cd` one of them saw and the other did not: where the line goes is unknown.
            self.cwd = None;
        }
        leaf.merge(&other);
        let partly = |f: &Finding| f.kind == super::Kind::PartlyUnderstood;
        let in_builtin = self.out.items[start..mid].iter().any(|(_, f)| partly(f));
        let in_user = self.out.items[mid..].iter().any(|(_, f)| partly(f));
        if in_builtin != in_user {
            let (from, to) = if in_builtin {
                (start, mid)
            } else {
                (mid, self.out.items.len())
            };
            // The side that understands only part of the command guessed the rest: its
            // reversible findings give way to the other side's reading; what it holds (a
            // catastrophic, irreversible or not understood finding) is kept.
            let guess = |f: &Finding| partly(f) || f.kind == super::Kind::Reversible;
            let mut i = from;
            let mut end = to;
            while i < end {
                if guess(&self.out.items[i].1) {
                    self.out.items.remove(i);
                    end -= 1;
                } else {
                    i += 1;
                }
            }
        }
        leaf
    }

    /// Pushes the finding for reading some paths: the worst of them, or a plain read.
    fn read_paths(&mut self, t: &str, files: &[Target], verb: &str, leaf: &mut Leaf) {
        if files.iter().any(|tg| tg.credential) {
            leaf.produces.secret = true;
        }
        self.judged
            .borrow_mut()
            .extend(files.iter().filter_map(|t| t.path.clone()));
        let (mut f, deciding) = policy::reads(files, verb);
        if self.ctx.details() {
            f.effect = Some(match deciding {
                Some(i) => Effect::Read(files[i].clone()).to_string(),
                None => {
                    let labels: Vec<String> = files.iter().map(Target::label).collect();
                    format!("read({})", labels.join(", "))
                }
            });
        }
        self.push(t, f);
    }

    /// Returns whether a word's substitutions download something.
    fn subs_download(&self, words: &[Word]) -> bool {
        let mut found = false;
        for w in words {
            for sub in &w.subs {
                sub.script.for_each_simple(&mut |s: &Simple| {
                    if let Some(n) = s.words.first() {
                        let base = n.text.rsplit('/').next().unwrap_or("");
                        if matches!(
                            base,
                            "curl"
                                | "wget"
                                | "fetch"
                                | "http"
                                | "xh"
                                | "nc"
                                | "ncat"
                                | "aria2c"
                                | "lwp-request"
                                | "base64"
                                | "xxd"
                        ) {
                            found = true;
                        }
                    }
                });
            }
        }
        found
    }

    /// Returns the finding for a file being executed or sourced.
    fn run_file(&mut self, w: &Word, verb: &str) -> Finding {
        let code = if !w.literal {
            if self.subs_download(std::slice::from_ref(w)) {
                Code::Downloaded
            } else {
                Code::File(paths::target(None, self.ctx))
            }
        } else if w.text.contains("://") && !super::url::is_loopback_url(&w.text) {
            Code::Downloaded
        } else {
            let tg = self.target(w);
            match &tg.path {
                Some(p) if self.downloaded.iter().any(|d| d == p) => Code::DownloadedFile(tg),
                _ => Code::File(tg),
            }
        };
        self.own(&Effect::Run(code), "run", "", verb)
    }

    /// Returns the finding for a script a command runs (`bash f`, `python f`, `./f`,
    /// `source f`), having judged its commands as if they were on the line when the
    /// context can read it. What it cannot read (too large, unreadable, in a language oath
    /// does not read, written earlier on this line) is not understood.
    pub(super) fn run_script(
        &mut self,
        s: &Simple,
        w: &Word,
        verb: &str,
        how: RunAs<'_>,
        depth: usize,
    ) -> Finding {
        let f = self.run_file(w, verb);
        let tg = self.target(w);
        let path = match &tg.path {
            Some(p) if w.literal && !tg.protected && !w.text.contains("://") => p.clone(),
            _ => return f,
        };
        if self.downloaded.contains(&path) {
            return f;
        }
        let on_line = self
            .written
            .borrow()
            .iter()
            .rev()
            .find(|(p, _)| *p == path)
            .map(|(_, text)| text.clone());
        let text = match on_line {
            Some(None) => return self.unread(tg, Unread::WrittenOnLine, verb),
            Some(Some(text)) => Some(text),
            None => None,
        };
        if self.scripts.iter().any(|(p, _)| *p == path) {
            // A script that runs itself: its commands are being judged already.
            return self.own(&Effect::Run(Code::Read(tg)), "run", "", verb);
        }
        if self.scripts_read.0 >= scripts::MAX_SCRIPTS
            || self.scripts_read.1 >= scripts::MAX_SCRIPTS_BYTES
        {
            return self.unread(tg, Unread::TooMany, verb);
        }
        let read = match text {
            Some(text) => Some(FileText::Text(text)),
            None => self.ctx.read_file(&path, scripts::MAX_SCRIPT_BYTES),
        };
        let text = match read {
            None | Some(FileText::Missing | FileText::Binary) => return f,
            Some(FileText::TooLarge) => return self.unread(tg, Unread::TooLarge, verb),
            Some(FileText::Unreadable) => return self.unread(tg, Unread::Unreadable, verb),
            Some(FileText::Text(t)) => t,
        };
        self.scripts_read.0 += 1;
        self.scripts_read.1 += text.len();
        let lang = match how {
            RunAs::Shell | RunAs::Source => scripts::Lang::Shell,
            RunAs::Code("other") => scripts::Lang::Other,
            RunAs::Code(lang) => scripts::Lang::Code(lang),
            RunAs::Executed => scripts::executed_as(&text),
        };
        self.scripts.push((path, tg.shown().to_string()));
        match lang {
            scripts::Lang::Shell => {
                // A script runs in a shell of its own: its `cd` does not move this one.
                let cwd = self.cwd.clone();
                self.line(&text, depth + 1);
                if how != RunAs::Source {
                    self.cwd = cwd;
                }
            }
            scripts::Lang::Code(lang) => self.code(s, &Word::lit(text), lang, depth),
            scripts::Lang::Other => {
                self.scripts.pop();
                return self.unread(tg, Unread::Language, verb);
            }
        }
        self.scripts.pop();
        self.own(&Effect::Run(Code::Read(tg)), "run", "", verb)
    }

    /// Returns the finding for a script oath could not read.
    fn unread(&self, tg: paths::Target, why: Unread, verb: &str) -> Finding {
        self.own(&Effect::Run(Code::Unread(tg, why)), "run", "", verb)
    }

    /// Classifies shell text handed to a shell (`bash -c`, `su -c`, `eval`).
    fn shell_text(&mut self, s: &Simple, words: &[Word], depth: usize, what: &str) {
        if words.iter().all(|w| w.literal) {
            let text = words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            self.line(&text, depth + 1);
        } else if self.subs_download(words) {
            self.push(
                &s.text,
                self.own(&Effect::Run(Code::Downloaded), "run", "", what),
            );
        } else {
            self.push(
                &s.text,
                self.own(&Effect::Run(Code::Computed), "run", "", what),
            );
        }
    }
}
