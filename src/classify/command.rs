//! Classification of a shell command line: every simple command the line would run is
//! classified (wrappers unwrapped, `bash -c` and `eval` re-parsed, substitutions and
//! here-documents followed), data flowing through pipelines is tracked (a download piped
//! into a shell, credentials piped into the network), and the worst part decides.

use std::path::{Path, PathBuf};

use crate::shell::{self, RedirectKind, Script, Simple, Word};

use super::args::scan;
use super::code;
use super::paths::{self, Target, Zone};
use super::rule::{Finding, Findings};
use super::{Classification, Context, Domain, Risk};

/// Classifies a Bash command line.
pub(crate) fn classify_command(cmd: &str, ctx: &Context) -> Classification {
    let mut w = Walker::new(ctx);
    w.line(cmd, 0);
    if w.out.items.is_empty() {
        w.out.push(
            cmd,
            Finding::new(Domain::ShellExec, Risk::Low, "empty", "nothing to run"),
        );
    }
    w.out.into_classification()
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
}

/// What one simple command turned out to be, for pipeline-level checks.
#[derive(Debug, Clone, Default)]
struct Leaf {
    produces: Flow,
    /// A shell or interpreter reading commands from stdin.
    shell_stdin: bool,
    /// A raw network tool (nc, socat, telnet).
    net_tool: bool,
}

/// Modifiers inherited from wrappers.
#[derive(Debug, Clone, Copy, Default)]
struct Mods {
    /// Run through sudo, doas, su.
    elevated: bool,
    /// Arguments appended at run time (xargs, parallel).
    dynamic_args: bool,
    /// Run by `find -exec`: file operations apply to the whole tree.
    under_find: bool,
}

pub(crate) struct Walker<'a> {
    pub ctx: &'a Context,
    pub cwd: Option<PathBuf>,
    pub out: Findings,
    downloaded: Vec<PathBuf>,
    saw_dev_tcp: bool,
    saw_shell: bool,
}

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

const SHELLS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh",
    "rbash",
];

fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

fn is_interpreter(name: &str) -> bool {
    matches!(
        name,
        "python"
            | "python2"
            | "python3"
            | "pypy"
            | "pypy3"
            | "node"
            | "nodejs"
            | "perl"
            | "ruby"
            | "php"
            | "lua"
            | "luajit"
            | "osascript"
            | "Rscript"
            | "tclsh"
            | "wish"
            | "irb"
            | "jshell"
            | "groovy"
            | "awk"
            | "gawk"
            | "mawk"
            | "nawk"
    ) || name.starts_with("python3.")
        || name.starts_with("python2.")
}

impl<'a> Walker<'a> {
    pub(crate) fn new(ctx: &'a Context) -> Self {
        Self {
            ctx,
            cwd: Some(ctx.cwd().to_path_buf()),
            out: Findings::default(),
            downloaded: Vec::new(),
            saw_dev_tcp: false,
            saw_shell: false,
        }
    }

    /// Parses and classifies a line found `depth` re-parses deep.
    pub(crate) fn line(&mut self, text: &str, depth: usize) {
        let script = shell::parse_nested(text, depth);
        self.script(&script, depth, text);
        if depth == 0 && self.saw_dev_tcp && self.saw_shell {
            self.out.push(
                text,
                Finding::new(
                    Domain::Network,
                    Risk::Critical,
                    "reverse-shell",
                    "connects a shell to a network socket (/dev/tcp): a reverse shell",
                ),
            );
        }
    }

    fn push(&mut self, text: &str, f: Finding) {
        self.out.push(text, f);
    }

    fn script(&mut self, s: &Script, depth: usize, text: &str) {
        if let Some(p) = &s.problem {
            let rule = match p {
                shell::Problem::TooLong(_) => "too-long",
                shell::Problem::TooDeep => "too-deep",
                shell::Problem::Syntax(_) => "unparseable",
                shell::Problem::ParserPanic => "parser-failure",
                shell::Problem::TooSlow => "parser-timeout",
            };
            let shown: String = text.chars().take(200).collect();
            self.push(
                &shown,
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    rule,
                    format!("{p}: what cannot be understood is never auto-approved"),
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
                    Finding::new(
                        Domain::Network,
                        Risk::Critical,
                        "reverse-shell",
                        "pipes a shell through a network tool: a reverse shell",
                    ),
                );
            }
        }
    }

    pub(crate) fn target(&self, w: &Word) -> Target {
        if !w.literal
            && (w.text.contains('$')
                || w.text.contains('`')
                || !w.subs.is_empty()
                || w.text.starts_with('{'))
        {
            return paths::target(None, self.ctx);
        }
        paths::target(
            paths::resolve(&w.text, !w.literal, self.cwd.as_deref(), self.ctx),
            self.ctx,
        )
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
                    let verb = if r.kind == RedirectKind::Append {
                        "appends to"
                    } else {
                        "writes"
                    };
                    self.push(&s.text, paths::write_finding(&t, verb));
                }
            } else if t.zone == Zone::Network {
                self.push(&s.text, paths::write_finding(&t, "reads from"));
            } else if t.credential {
                leaf.produces.secret = true;
                self.push(&s.text, paths::read_finding(&t, "reads"));
            }
        }
        if s.words.is_empty() {
            if self.out.items.len() == before {
                let f = if s.assigns.is_empty() {
                    Finding::new(Domain::ShellExec, Risk::Low, "no-command", "runs nothing")
                } else {
                    Finding::new(
                        Domain::ShellExec,
                        Risk::Low,
                        "assignment",
                        "sets shell variables",
                    )
                };
                self.push(&s.text, f);
            }
            return leaf;
        }
        let inner = self.argv(s, &s.words, depth, stdin, Mods::default());
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
                Finding::new(
                    Domain::Network,
                    Risk::Critical,
                    "reverse-shell",
                    "connects a shell's input and output to a network socket: a reverse shell",
                ),
            );
        }
        leaf
    }

    fn argv(
        &mut self,
        s: &Simple,
        argv: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
    ) -> Leaf {
        let mut leaf = Leaf::default();
        let Some(first) = argv.first() else {
            self.push(
                &s.text,
                Finding::new(Domain::ShellExec, Risk::Low, "no-command", "runs nothing"),
            );
            return leaf;
        };
        if !first.literal
            || first.text.is_empty()
            || first
                .text
                .chars()
                .any(|c| c.is_control() || c.is_whitespace())
        {
            self.push(
                &s.text,
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "unknown-command",
                    format!(
                        "the command name `{}` is computed at run time (variable, substitution, glob or odd characters): oath cannot tell what runs",
                        first.text.chars().take(60).collect::<String>()
                    ),
                ),
            );
            return leaf;
        }
        let full = first.text.as_str();
        let name = match full.rfind('/') {
            None => full,
            Some(i) => {
                let dir = &full[..i];
                if BIN_DIRS.contains(&dir) || dir.is_empty() {
                    &full[i + 1..]
                } else {
                    let f = self.run_file(first, "runs");
                    self.push(&s.text, f);
                    return leaf;
                }
            }
        };
        let args = &argv[1..];
        let t = s.text.as_str();
        macro_rules! f {
            ($d:ident, $r:ident, $rule:expr, $reason:expr) => {
                Finding::new(Domain::$d, Risk::$r, $rule, $reason)
            };
        }
        match name {
            // ---- wrappers ----
            "sudo" | "doas" | "pkexec" | "run0" | "sudoedit" => {
                let sc = scan(
                    args,
                    &[
                        "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-R", "--user",
                        "--group", "--chdir",
                    ],
                    true,
                );
                if name == "sudoedit" || sc.has(&["-e", "--edit"]) {
                    for p in &sc.pos {
                        let tg = self.target(p);
                        let fd = paths::write_finding(&tg, "edits as root").at_least(Risk::High);
                        self.push(t, fd);
                    }
                    return leaf;
                }
                let rest_start = sc.pos_index.first().copied();
                match rest_start {
                    Some(i) => {
                        let inner = Mods {
                            elevated: true,
                            ..mods
                        };
                        leaf = self.argv(s, &args[i..], depth, stdin, inner);
                        self.push(
                            t,
                            f!(
                                ShellExec,
                                High,
                                "elevated-privileges",
                                format!("runs `{}` as root through {name}", args[i].text)
                            ),
                        );
                    }
                    None => {
                        let r = if sc.has(&["-i", "-s", "--login", "--shell"]) {
                            f!(
                                ShellExec,
                                High,
                                "root-shell",
                                format!("opens a root shell through {name}")
                            )
                        } else {
                            f!(
                                ShellExec,
                                Medium,
                                "sudo-admin",
                                format!("{name} without a command (credential cache or listing)")
                            )
                        };
                        self.push(t, r);
                    }
                }
                leaf
            }
            "su" | "runuser" => {
                let sc = scan(
                    args,
                    &["-c", "--command", "-s", "--shell", "-g", "-G", "-u"],
                    false,
                );
                if let Some(cmd) = sc.value(&["-c", "--command"]).cloned() {
                    self.shell_text(s, &cmd, depth, "su -c");
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "elevated-privileges",
                            format!("runs a command as another user through {name}")
                        ),
                    );
                } else {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "root-shell",
                            format!("opens a shell as another user through {name}")
                        ),
                    );
                }
                leaf
            }
            "env" => {
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
                        self.line(&text, depth + 1);
                        return leaf;
                    } else if a.starts_with('-') && a != "-"
                        || a.contains('=')
                            && !a.starts_with('=')
                            && a.split('=').next().is_some_and(|n| !n.contains('$'))
                    {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if i >= args.len() {
                    leaf.produces.secret = true;
                    self.push(t, f!(ShellExec, Low, "print-env", "prints the environment"));
                    return leaf;
                }
                self.argv(s, &args[i..], depth, stdin, mods)
            }
            "command" | "builtin" | "exec" | "nohup" | "setsid" | "unbuffer" | "caffeinate"
            | "nice" | "ionice" | "stdbuf" | "time" | "timeout" | "taskset" | "chrt" | "strace"
            | "ltrace" | "flock" | "catchsegv" | "proxychains" | "proxychains4" | "torsocks"
            | "firejail" | "sem" => {
                if name == "command" && args.iter().any(|a| matches!(a.text.as_str(), "-v" | "-V"))
                {
                    self.push(t, f!(ShellExec, Low, "lookup", "looks up a command"));
                    return leaf;
                }
                let valued: &[&str] = match name {
                    "nice" => &["-n", "--adjustment"],
                    "ionice" => &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
                    "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
                    "time" => &["-f", "-o", "--format", "--output"],
                    "timeout" => &["-s", "-k", "--signal", "--kill-after"],
                    "exec" => &["-a"],
                    "strace" | "ltrace" => &[
                        "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-O", "-S", "-P", "-I", "-b",
                        "-X",
                    ],
                    "flock" => &["-w", "-E", "--timeout", "--conflict-exit-code"],
                    _ => &[],
                };
                let sc = scan(args, valued, true);
                let mut start = match sc.pos_index.first() {
                    Some(i) => *i,
                    None => {
                        self.push(
                            t,
                            f!(
                                ShellExec,
                                Low,
                                "wrapper",
                                format!("{name} without a command")
                            ),
                        );
                        return leaf;
                    }
                };
                let skip_first = match name {
                    "timeout" => true,
                    "taskset" | "chrt" => !sc.has(&["-p", "--pid"]),
                    "flock" => true,
                    _ => false,
                };
                if skip_first {
                    start += 1;
                }
                if name == "flock" {
                    if let Some(c) = sc.value(&["-c", "--command"]).cloned() {
                        self.shell_text(s, &c, depth, "flock -c");
                        return leaf;
                    }
                    if args.get(start).is_some_and(|a| a.text == "-c") {
                        if let Some(c) = args.get(start + 1).cloned() {
                            self.shell_text(s, &c, depth, "flock -c");
                        }
                        return leaf;
                    }
                }
                if start >= args.len() {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            Low,
                            "wrapper",
                            format!("{name} without a command")
                        ),
                    );
                    return leaf;
                }
                if matches!(name, "proxychains" | "proxychains4" | "torsocks") {
                    self.push(
                        t,
                        f!(
                            Network,
                            High,
                            "proxy-wrapper",
                            format!("routes a command through {name}")
                        ),
                    );
                }
                self.argv(s, &args[start..], depth, stdin, mods)
            }
            "xargs" | "parallel" => {
                let sc = scan(
                    args,
                    &[
                        "-I",
                        "-L",
                        "-n",
                        "-P",
                        "-s",
                        "-d",
                        "-E",
                        "-a",
                        "-e",
                        "--max-args",
                        "--max-lines",
                        "--max-procs",
                        "--delimiter",
                        "--arg-file",
                        "--eof",
                        "-j",
                        "--jobs",
                        "-S",
                        "--sshlogin",
                    ],
                    true,
                );
                let inner = Mods {
                    dynamic_args: true,
                    ..mods
                };
                if name == "parallel" && sc.has(&["-S", "--sshlogin"]) {
                    self.push(
                        t,
                        f!(Network, High, "remote-run", "runs commands on remote hosts"),
                    );
                }
                match sc.pos_index.first() {
                    Some(&i) => {
                        let end = args[i..]
                            .iter()
                            .position(|a| a.text == ":::" || a.text == "::::")
                            .map_or(args.len(), |p| i + p);
                        let mut v: Vec<Word> = args[i..end].to_vec();
                        v.push(Word {
                            text: "{input}".into(),
                            literal: false,
                            ..Word::default()
                        });
                        self.argv(s, &v, depth, stdin, inner)
                    }
                    None => {
                        self.push(t, f!(ShellExec, Low, "print", "echoes its input"));
                        leaf
                    }
                }
            }
            "watch" => {
                let sc = scan(args, &["-n", "--interval", "-q", "--equexit"], true);
                match sc.pos_index.first() {
                    Some(&i) if sc.has(&["-x", "--exec"]) => {
                        self.argv(s, &args[i..], depth, stdin, mods)
                    }
                    Some(&i) => {
                        let text = args[i..]
                            .iter()
                            .map(|w| w.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" ");
                        if args[i..].iter().all(|w| w.literal) {
                            self.line(&text, depth + 1);
                        } else {
                            self.push(
                                t,
                                f!(
                                    ShellExec,
                                    High,
                                    "unknown-code",
                                    "watch runs a command computed at run time"
                                ),
                            );
                        }
                        leaf
                    }
                    None => {
                        self.push(t, f!(ShellExec, Low, "wrapper", "watch without a command"));
                        leaf
                    }
                }
            }
            "busybox" | "toybox" if !args.is_empty() => self.argv(s, args, depth, stdin, mods),
            "chroot" | "systemd-run" | "nsenter" | "unshare" => {
                self.push(
                    t,
                    f!(
                        ShellExec,
                        High,
                        "namespace-run",
                        format!("runs a command through {name} (other root, namespace or service)")
                    ),
                );
                leaf
            }
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "conda" | "mamba"
            | "pixi" | "direnv" | "dotenv" => {
                let sub = args.first().map(|w| w.text.as_str()).unwrap_or("");
                match (name, sub) {
                    (_, "run") | ("bundle", "exec") | ("direnv", "exec") => {
                        let valued = [
                            "--with",
                            "--python",
                            "-p",
                            "--package",
                            "--env-file",
                            "--directory",
                            "--project",
                            "--extra",
                            "--group",
                            "--index",
                            "-n",
                            "--name",
                            "--from",
                            "-e",
                            "--environment",
                        ];
                        let mut i = 1;
                        while i < args.len() {
                            let a = args[i].text.as_str();
                            if valued.contains(&a) {
                                i += 2;
                            } else if a.starts_with('-') {
                                i += 1;
                            } else {
                                break;
                            }
                        }
                        if name == "direnv" {
                            i += 1;
                        }
                        if i >= args.len() {
                            self.push(
                                t,
                                f!(
                                    ShellExec,
                                    Medium,
                                    "run-script",
                                    format!("{name} {sub} without a command")
                                ),
                            );
                            return leaf;
                        }
                        self.argv(s, &args[i..], depth, stdin, mods)
                    }
                    ("uv", "pip") => self.package(
                        t,
                        args.get(1).map(|w| w.text.as_str()).unwrap_or(""),
                        &args[1..],
                        mods,
                        "uv pip",
                    ),
                    _ => self.package(t, sub, args, mods, name),
                }
            }
            "npx" | "bunx" | "pnpx" | "uvx" | "pipx"
                if name != "pipx" || args.first().is_some_and(|a| a.text == "run") =>
            {
                let skip = if name == "pipx" { 1 } else { 0 };
                let mut i = skip;
                while i < args.len() {
                    let a = args[i].text.as_str();
                    if matches!(a, "-p" | "--package" | "--from" | "--with" | "--python") {
                        i += 2;
                    } else if a.starts_with('-') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                match args.get(i) {
                    Some(w) if is_test_runner(&w.text, &args[i + 1..]) => {
                        self.push(t, test_finding(&w.text));
                    }
                    Some(w) => {
                        self.push(
                            t,
                            f!(
                                Package,
                                Medium,
                                "run-registry-package",
                                format!(
                                    "{name} fetches and runs the registry package `{}`",
                                    w.text
                                )
                            ),
                        );
                    }
                    None => self.push(
                        t,
                        f!(
                            Package,
                            Medium,
                            "run-registry-package",
                            format!("{name} without a package")
                        ),
                    ),
                }
                leaf
            }
            // ---- shells and code ----
            _ if is_shell(name) => self.shell(s, name, args, depth, stdin),
            "eval" => {
                if args.iter().all(|w| w.literal) {
                    let text = args
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.line(&text, depth + 1);
                } else if self.subs_download(args) {
                    self.push(t, run_downloaded("evaluates downloaded text as shell code"));
                } else {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "unknown-code",
                            "evaluates text computed at run time as shell code"
                        ),
                    );
                }
                leaf
            }
            "source" | "." => {
                match args.first() {
                    Some(w) => {
                        let f = self.run_file(w, "sources");
                        self.push(t, f);
                    }
                    None => self.push(t, f!(ShellExec, Low, "no-command", "source without a file")),
                }
                leaf
            }
            "alias" => {
                let mut any = false;
                for a in args {
                    if let Some((_, v)) = a.text.split_once('=') {
                        any = true;
                        if a.literal {
                            self.line(v, depth + 1);
                        } else {
                            self.push(
                                t,
                                f!(
                                    ShellExec,
                                    High,
                                    "unknown-code",
                                    "defines an alias computed at run time"
                                ),
                            );
                        }
                    }
                }
                if !any {
                    self.push(t, f!(ShellExec, Low, "alias", "lists aliases"));
                } else {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            Low,
                            "alias",
                            "defines an alias (its body is classified as if it ran)"
                        ),
                    );
                }
                leaf
            }
            "trap" => {
                match args.iter().find(|a| !a.text.starts_with('-')) {
                    Some(w) if w.literal => self.line(&w.text.clone(), depth + 1),
                    Some(_) => self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "unknown-code",
                            "sets a trap computed at run time"
                        ),
                    ),
                    None => {}
                }
                self.push(
                    t,
                    f!(
                        ShellExec,
                        Low,
                        "trap",
                        "sets a signal handler (its body is classified as if it ran)"
                    ),
                );
                leaf
            }
            "deno" => {
                let sub = args.first().map(|w| w.text.as_str()).unwrap_or("");
                match sub {
                    "test" => self.push(t, test_finding("deno test")),
                    "eval" => {
                        let code = args.get(1).cloned().unwrap_or_default();
                        self.code(s, &code, "js", depth);
                    }
                    "run" | "" => {
                        let target = args.iter().skip(1).find(|w| !w.text.starts_with('-'));
                        match target {
                            Some(w) if w.text.contains("://") && !is_loopback_url(&w.text) => {
                                self.push(t, run_downloaded("runs a script straight from a URL"))
                            }
                            Some(w) => {
                                let f = self.run_file(w, "runs");
                                self.push(t, f);
                            }
                            None => {
                                self.push(t, f!(ShellExec, Medium, "interpreter", "starts deno"))
                            }
                        }
                    }
                    "install" | "add" | "remove" | "uninstall" => self.push(
                        t,
                        f!(
                            Package,
                            Medium,
                            "package-install",
                            format!("deno {sub} changes dependencies")
                        ),
                    ),
                    "fmt" | "lint" | "check" | "doc" | "info" | "--version" => {
                        self.push(t, f!(ShellExec, Medium, "build", format!("deno {sub}")))
                    }
                    _ => self.push(
                        t,
                        f!(ShellExec, Medium, "interpreter", format!("deno {sub}")),
                    ),
                }
                leaf
            }
            "bun"
                if args.first().is_some_and(|a| {
                    matches!(a.text.as_str(), "-e" | "--eval" | "-p" | "--print")
                }) =>
            {
                let code = args.get(1).cloned().unwrap_or_default();
                self.code(s, &code, "js", depth);
                leaf
            }
            _ if is_interpreter(name) => self.interpreter(s, name, args, depth, stdin),
            "pwsh" | "powershell" | "powershell.exe" | "pwsh.exe" => {
                let text = args
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let f = super::tools::powershell_finding(&text);
                self.push(t, f);
                leaf
            }
            // ---- files ----
            "find" | "fd" | "fdfind" => self.find(s, name, args, depth),
            "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" => {
                let sc = scan(
                    args,
                    &["-n", "--iterations", "-s", "--size", "--random-source"],
                    false,
                );
                let recursive = mods.under_find
                    || sc.has(&["-r", "-R", "--recursive"])
                    || name == "srm" && sc.has(&["-r"]);
                let verb = match name {
                    "shred" | "srm" | "wipe" => "shreds",
                    _ if recursive => "deletes",
                    _ => "deletes",
                };
                let mut targets: Vec<&Word> = sc.pos.clone();
                let dynamic = Word {
                    text: "{input}".into(),
                    literal: false,
                    ..Word::default()
                };
                if mods.dynamic_args && targets.is_empty() {
                    targets.push(&dynamic);
                }
                if targets.is_empty() {
                    self.push(
                        t,
                        f!(
                            FileWrite,
                            Low,
                            "delete-nothing",
                            format!("{name} without paths")
                        ),
                    );
                }
                for w in targets {
                    let tg = self.target(w);
                    let mut fd = paths::delete_finding(&tg, verb, recursive);
                    if matches!(name, "shred" | "srm" | "wipe") && tg.in_project() {
                        fd = fd.at_least(Risk::High);
                    }
                    if tg
                        .path
                        .as_deref()
                        .is_some_and(|p| p == self.ctx.project_root())
                        && recursive
                    {
                        fd = Finding::new(
                            Domain::FileWrite,
                            Risk::High,
                            "delete-project",
                            "deletes the whole project recursively",
                        )
                        .alt("delete specific paths inside the project");
                    }
                    self.push(t, fd);
                }
                leaf
            }
            "trash" | "trash-put" | "gio" | "kioclient5" => {
                self.push(
                    t,
                    f!(
                        FileWrite,
                        Medium,
                        "trash",
                        "moves files to the trash (recoverable)"
                    ),
                );
                leaf
            }
            "cp" | "mv" | "ln" | "install" | "rsync" | "scp" | "sftp" | "rcp" | "rclone" => {
                self.copy(s, name, args, mods);
                leaf
            }
            "touch" | "mkdir" | "tee" | "truncate" | "mkfifo" | "mknod" | "split" | "csplit" => {
                let valued: &[&str] = match name {
                    "truncate" => &["-s", "--size", "-r", "--reference"],
                    "mkdir" | "mkfifo" | "mknod" => &["-m", "--mode", "-Z", "--context"],
                    "touch" => &["-d", "-t", "-r", "--date", "--reference"],
                    "split" => &[
                        "-b",
                        "-l",
                        "-n",
                        "-a",
                        "-C",
                        "--bytes",
                        "--lines",
                        "--number",
                        "--suffix-length",
                        "--additional-suffix",
                        "-t",
                    ],
                    _ => &[],
                };
                let sc = scan(args, valued, false);
                let append = name == "tee" && sc.has(&["-a", "--append"]);
                let verb = match name {
                    "mkdir" => "creates the directory",
                    "tee" if append => "appends to",
                    "truncate" => "truncates",
                    "touch" => "touches",
                    _ => "writes",
                };
                let targets: Vec<&Word> = if matches!(name, "split" | "csplit") {
                    sc.pos.get(1).copied().into_iter().collect()
                } else {
                    sc.pos.clone()
                };
                if targets.is_empty() && name != "tee" {
                    self.push(
                        t,
                        f!(
                            FileWrite,
                            Medium,
                            "write-unknown-path",
                            format!("{name} with targets computed at run time")
                        ),
                    );
                }
                for w in targets {
                    let tg = self.target(w);
                    let mut fd = paths::write_finding(&tg, verb);
                    if name == "mkdir"
                        && fd.risk == Risk::Medium
                        && (tg.in_project() || tg.zone == Zone::Temp)
                    {
                        fd.risk = Risk::Low;
                        fd.rule = "mkdir";
                    }
                    self.push(t, fd);
                }
                if name == "tee" {
                    leaf.produces = stdin.cloned().unwrap_or_default();
                    if self.out.items.last().is_none_or(|(tx, _)| tx != t) {
                        self.push(t, f!(ShellExec, Low, "print", "copies its input to stdout"));
                    }
                }
                leaf
            }
            "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" | "chcon" => {
                let sc = scan(
                    args,
                    &["--reference", "-m", "-x", "-M", "-X", "--from"],
                    false,
                );
                let recursive = sc.has(&["-R", "--recursive"]) || mods.under_find;
                let targets: Vec<&Word> = sc
                    .pos
                    .iter()
                    .skip(if name == "setfacl" { 0 } else { 1 })
                    .copied()
                    .collect();
                let mode = sc.pos.first().map(|w| w.text.as_str()).unwrap_or("");
                for w in targets {
                    let tg = self.target(w);
                    self.push(t, perm_finding(name, mode, &tg, recursive, self.ctx.home()));
                }
                if sc.pos.len() < 2 && name != "setfacl" {
                    let risk = if args.iter().all(|a| a.literal) {
                        Risk::Medium
                    } else {
                        Risk::High
                    };
                    self.push(
                        t,
                        Finding::new(
                            Domain::FileWrite,
                            risk,
                            "change-permissions",
                            format!("{name} with targets computed at run time"),
                        ),
                    );
                }
                leaf
            }
            "sed" | "gsed" => {
                let sc = scan(
                    args,
                    &["-e", "--expression", "-f", "--file", "-l", "--line-length"],
                    false,
                );
                let in_place = sc.has(&["-i", "--in-place"])
                    || args
                        .iter()
                        .any(|a| a.text.starts_with("-i") || a.text.starts_with("--in-place"));
                let has_script_opt = sc.has(&["-e", "--expression", "-f", "--file"]);
                let script = if has_script_opt {
                    sc.value(&["-e", "--expression"])
                        .map(|w| w.text.clone())
                        .unwrap_or_default()
                } else {
                    sc.pos.first().map(|w| w.text.clone()).unwrap_or_default()
                };
                let files: Vec<&Word> = sc
                    .pos
                    .iter()
                    .skip(if has_script_opt { 0 } else { 1 })
                    .copied()
                    .collect();
                if sed_executes(&script) {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "sed-exec",
                            "the sed script runs shell commands (e flag or command)"
                        ),
                    );
                }
                if in_place {
                    for w in &files {
                        let tg = self.target(w);
                        self.push(t, paths::write_finding(&tg, "edits in place"));
                    }
                    if files.is_empty() {
                        self.push(
                            t,
                            f!(
                                FileWrite,
                                High,
                                "write-unknown-path",
                                "edits files in place that are computed at run time"
                            ),
                        );
                    }
                } else {
                    self.read_paths(t, &files, "reads");
                }
                leaf
            }
            "dd" => {
                let mut any = false;
                for a in args {
                    if let Some(v) = a.text.strip_prefix("of=") {
                        any = true;
                        let w = Word {
                            text: v.to_owned(),
                            ..a.clone()
                        };
                        let tg = self.target(&w);
                        let fd = if tg.zone == Zone::Device {
                            Finding::new(
                                Domain::ShellExec,
                                Risk::Critical,
                                "disk-tool",
                                format!(
                                    "dd writes the device {}: destroys what is on it",
                                    tg.shown()
                                ),
                            )
                            .alt("work on an image file inside the project")
                        } else {
                            paths::write_finding(&tg, "dd writes")
                        };
                        self.push(t, fd);
                    } else if let Some(v) = a.text.strip_prefix("if=") {
                        let w = Word {
                            text: v.to_owned(),
                            ..a.clone()
                        };
                        let tg = self.target(&w);
                        if tg.zone == Zone::Device || tg.credential {
                            self.push(t, paths::read_finding(&tg, "dd reads"));
                            leaf.produces.secret |= tg.credential;
                        }
                    }
                }
                if !any {
                    self.push(t, f!(ShellExec, Medium, "dd", "dd copies data to stdout"));
                }
                leaf
            }
            _ if is_disk_tool(name) => {
                let devices: Vec<Target> = args
                    .iter()
                    .filter(|a| !a.text.starts_with('-'))
                    .map(|a| self.target(a))
                    .filter(|tg| tg.zone == Zone::Device)
                    .collect();
                if devices.is_empty() {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            High,
                            "disk-tool",
                            format!("{name} formats, partitions or erases storage")
                        ),
                    );
                } else {
                    for tg in devices {
                        self.push(
                            t,
                            Finding::new(
                                Domain::ShellExec,
                                Risk::Critical,
                                "disk-tool",
                                format!(
                                    "{name} on the device {}: destroys what is on it",
                                    tg.shown()
                                ),
                            )
                            .alt("work on an image file inside the project"),
                        );
                    }
                }
                leaf
            }
            "tar" | "bsdtar" | "unzip" | "zip" | "7z" | "7za" | "unrar" | "gzip" | "gunzip"
            | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4" | "cpio" => {
                self.archive(s, name, args, &mut leaf);
                leaf
            }
            "patch" => {
                let sc = scan(
                    args,
                    &[
                        "-p",
                        "-i",
                        "-o",
                        "-d",
                        "-r",
                        "-B",
                        "--input",
                        "--output",
                        "--directory",
                    ],
                    false,
                );
                let tg = match sc.value(&["-o", "--output"]).or(sc.pos.first().copied()) {
                    Some(w) => self.target(w),
                    None => paths::target(self.cwd.clone(), self.ctx),
                };
                self.push(t, paths::write_finding(&tg, "patches"));
                leaf
            }
            // ---- git and hosting ----
            "git" => {
                self.push(t, super::git::git_finding(args, self));
                leaf
            }
            "gh" | "glab" | "hub" => {
                let f = super::git::gh_finding(name, args);
                if f.rule == "read-credentials" {
                    leaf.produces.secret = true;
                }
                self.push(t, f);
                leaf
            }
            // ---- network ----
            "curl" | "wget" | "http" | "https" | "xh" | "xhs" | "httpie" | "aria2c"
            | "lwp-request" | "fetch" => {
                self.fetch(s, name, args, stdin, &mut leaf);
                leaf
            }
            "nc" | "ncat" | "netcat" | "socat" | "telnet" | "cryptcat" | "pwncat" => {
                leaf.net_tool = true;
                leaf.produces.download = true;
                let joined: String = args
                    .iter()
                    .map(|a| a.text.to_ascii_lowercase())
                    .collect::<Vec<_>>()
                    .join(" ");
                let secret_in = stdin.is_some_and(|f| f.secret)
                    || s.redirects
                        .iter()
                        .any(|r| r.kind == RedirectKind::Read && self.target(&r.target).credential);
                let f = if args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"
                    )
                }) || (name == "socat"
                    && (joined.contains("exec:") || joined.contains("system:")))
                {
                    f!(
                        Network,
                        Critical,
                        "reverse-shell",
                        format!("{name} hands a shell to a network peer: a reverse or bind shell")
                    )
                } else if secret_in {
                    f!(
                        Network,
                        Critical,
                        "exfiltration",
                        format!("sends credentials over the network with {name}")
                    )
                } else if args
                    .iter()
                    .any(|a| a.text == "-l" || a.text.starts_with("-l") && name != "socat")
                {
                    f!(
                        Network,
                        High,
                        "network-listen",
                        format!("{name} listens for network connections")
                    )
                } else {
                    f!(
                        Network,
                        High,
                        "raw-network",
                        format!("{name} opens a raw network connection")
                    )
                };
                self.push(t, f);
                leaf
            }
            "ssh" | "mosh" | "autossh" => {
                let secret_in = stdin.is_some_and(|f| f.secret);
                let f = if secret_in {
                    f!(
                        Network,
                        Critical,
                        "exfiltration",
                        "pipes credentials to a remote host over ssh"
                    )
                } else {
                    f!(
                        Network,
                        High,
                        "remote-shell",
                        format!("{name} runs commands on a remote host")
                    )
                };
                leaf.net_tool = true;
                self.push(t, f);
                leaf
            }
            "ftp" | "lftp" | "tftp" | "smbclient" | "ncftp" | "rdesktop" | "xfreerdp"
            | "vncviewer" => {
                self.push(
                    t,
                    f!(
                        Network,
                        High,
                        "remote-transfer",
                        format!("{name} talks to a remote host")
                    ),
                );
                leaf
            }
            "mail" | "mailx" | "sendmail" | "mutt" | "msmtp" | "swaks" | "ssmtp" => {
                let secret = stdin.is_some_and(|f| f.secret)
                    || s.redirects
                        .iter()
                        .any(|r| r.kind == RedirectKind::Read && self.target(&r.target).credential)
                    || args.iter().any(|a| a.literal && self.target(a).credential);
                let f = if secret {
                    f!(
                        Network,
                        Critical,
                        "exfiltration",
                        "mails credentials off the machine"
                    )
                } else {
                    f!(Network, High, "send-mail", format!("{name} sends mail"))
                };
                self.push(t, f);
                leaf
            }
            "openssl" => {
                let sub = args.first().map(|w| w.text.as_str()).unwrap_or("");
                match sub {
                    "s_client" | "s_server" => {
                        leaf.net_tool = true;
                        leaf.produces.download = true;
                        self.push(
                            t,
                            f!(
                                Network,
                                High,
                                "raw-network",
                                format!("openssl {sub} opens a network connection")
                            ),
                        );
                    }
                    "enc" | "base64" | "aes-256-cbc" if args.iter().any(|a| a.text == "-d") => {
                        leaf.produces.decode = true;
                        self.push(t, f!(ShellExec, Low, "decode", "decodes data"));
                    }
                    _ => self.push(
                        t,
                        f!(ShellExec, Medium, "openssl", format!("openssl {sub}")),
                    ),
                }
                leaf
            }
            // ---- packages, builds, tests ----
            "apt" | "apt-get" | "aptitude" | "yum" | "dnf" | "zypper" | "pacman" | "apk"
            | "brew" | "port" | "snap" | "flatpak" | "emerge" | "nix-env" | "pkg" | "dpkg"
            | "rpm" | "yay" | "paru" | "choco" | "winget" | "scoop" => {
                let sub = args
                    .iter()
                    .find(|a| !a.text.starts_with('-'))
                    .map(|w| w.text.as_str())
                    .unwrap_or("");
                let read = matches!(
                    sub,
                    "search"
                        | "show"
                        | "list"
                        | "info"
                        | "policy"
                        | "depends"
                        | "rdepends"
                        | "-Q"
                        | "query"
                        | "madison"
                        | "outdated"
                        | "doctor"
                        | "--version"
                        | "config"
                        | "leaves"
                        | "deps"
                        | "desc"
                ) || matches!(name, "dpkg" | "rpm")
                    && args.iter().any(|a| {
                        matches!(
                            a.text.as_str(),
                            "-l" | "-L" | "-s" | "-q" | "-qa" | "-S" | "--list" | "--status"
                        )
                    })
                    || name == "pacman"
                        && args
                            .iter()
                            .any(|a| a.text.starts_with("-Q") || a.text.starts_with("-Ss"));
                let f = if read {
                    f!(
                        Package,
                        Low,
                        "package-query",
                        format!("{name} {sub} only queries packages")
                    )
                } else {
                    f!(Package, High, "system-package", format!("{name} {sub} changes system-wide packages")).alt("install dependencies inside the project (a virtualenv, node_modules, a lockfile)")
                };
                self.push(t, f);
                leaf
            }
            "pip" | "pip3" | "pip2" | "npm" | "pnpm" | "yarn" | "bun" | "gem" | "composer"
            | "cpan" | "cpanm" | "go" | "cargo" | "mix" | "dotnet" | "gradle" | "gradlew"
            | "mvn" | "mvnw" | "swift" | "zig" | "stack" | "cabal" | "opam" | "rake" | "sbt"
            | "lein" | "flutter" | "dart" | "nuget" | "vcpkg" | "conan" | "pub" | "rustup"
            | "nvm" | "pyenv" | "rbenv" | "asdf" | "mise" | "sdk" => {
                let sub = args
                    .iter()
                    .find(|a| !a.text.starts_with('-'))
                    .map(|w| w.text.as_str())
                    .unwrap_or("");
                if is_test_runner(name, args) {
                    self.push(t, test_finding(&format!("{name} {sub}")));
                    return leaf;
                }
                self.package(t, sub, args, mods, name)
            }
            "make" | "gmake" | "just" | "task" | "ninja" | "cmake" | "meson" | "bazel"
            | "bazelisk" | "buck" | "scons" | "invoke" | "nx" | "turbo" | "lerna" | "tox"
            | "nox" => {
                if is_test_runner(name, args) {
                    self.push(
                        t,
                        test_finding(&format!(
                            "{name} {}",
                            args.first().map(|w| w.text.as_str()).unwrap_or("")
                        )),
                    );
                } else {
                    self.push(
                        t,
                        f!(
                            ShellExec,
                            Medium,
                            "build",
                            format!("{name} runs the project's build recipes")
                        ),
                    );
                }
                leaf
            }
            _ if is_test_runner(name, args) => {
                self.push(t, test_finding(name));
                leaf
            }
            "rustc" | "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" | "javac" | "tsc"
            | "go-build" | "esbuild" | "vite" | "webpack" | "rollup" | "prettier" | "eslint"
            | "black" | "ruff" | "isort" | "rustfmt" | "gofmt" | "clippy-driver" | "mypy"
            | "pyright" | "flake8" | "pylint" | "shellcheck" | "hadolint" | "biome"
            | "stylelint" | "clang-format" | "clang-tidy" | "golangci-lint" | "rubocop"
            | "terraform-fmt" => {
                let writes = args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "--write" | "-w" | "--fix" | "-i" | "--in-place" | "format"
                    )
                }) || matches!(name, "black" | "isort" | "rustfmt" | "gofmt" if !args.iter().any(|a| a.text == "--check" || a.text == "-l" || a.text == "--diff"));
                let f = if matches!(
                    name,
                    "shellcheck"
                        | "mypy"
                        | "pyright"
                        | "flake8"
                        | "pylint"
                        | "hadolint"
                        | "golangci-lint"
                        | "clang-tidy"
                ) && !writes
                {
                    f!(ShellExec, Low, "lint", format!("{name} checks code"))
                } else {
                    f!(
                        ShellExec,
                        Medium,
                        "build",
                        format!("{name} compiles, formats or lints the project")
                    )
                };
                self.push(t, f);
                leaf
            }
            // ---- system ----
            "systemctl" | "service" | "launchctl" | "rc-service" | "initctl" | "sv" => {
                let sub = args
                    .iter()
                    .find(|a| !a.text.starts_with('-'))
                    .map(|w| w.text.as_str())
                    .unwrap_or("");
                let f = if matches!(
                    sub,
                    "status"
                        | "list-units"
                        | "list-unit-files"
                        | "show"
                        | "is-active"
                        | "is-enabled"
                        | "cat"
                        | "list"
                        | "print"
                        | "list-timers"
                ) {
                    f!(
                        ShellExec,
                        Low,
                        "service-query",
                        format!("{name} {sub} only queries services")
                    )
                } else {
                    f!(
                        ShellExec,
                        High,
                        "system-service",
                        format!("{name} {sub} changes system services")
                    )
                };
                self.push(t, f);
                leaf
            }
            "reboot" | "shutdown" | "halt" | "poweroff" | "init" | "telinit" | "kexec" => {
                self.push(
                    t,
                    f!(
                        ShellExec,
                        High,
                        "power",
                        format!("{name} stops or restarts the machine")
                    ),
                );
                leaf
            }
            "kill" | "killall" | "pkill" | "skill" | "xkill" => {
                let f = if args.iter().any(|a| a.text == "1" || a.text == "-1")
                    || name == "killall" && args.iter().any(|a| a.text == "-u")
                {
                    f!(
                        ShellExec,
                        High,
                        "kill-all",
                        format!("{name} targets init or every process")
                    )
                } else {
                    f!(ShellExec, Medium, "kill", format!("{name} stops processes"))
                };
                self.push(t, f);
                leaf
            }
            "crontab" | "at" | "batch" => {
                let f = if args.iter().any(|a| a.text == "-l") {
                    f!(ShellExec, Low, "schedule-query", "lists scheduled jobs")
                } else if args.iter().any(|a| a.text == "-r") {
                    f!(ShellExec, High, "schedule", "removes every scheduled job")
                } else {
                    f!(
                        ShellExec,
                        High,
                        "schedule",
                        format!("{name} schedules commands to run later (persistence)")
                    )
                };
                self.push(t, f);
                leaf
            }
            "useradd" | "userdel" | "usermod" | "adduser" | "deluser" | "passwd" | "chpasswd"
            | "groupadd" | "groupdel" | "visudo" | "vipw" | "chsh" | "dscl" | "sysadminctl" => {
                self.push(
                    t,
                    f!(
                        ShellExec,
                        High,
                        "account-admin",
                        format!("{name} changes system accounts")
                    ),
                );
                leaf
            }
            "mount"
            | "umount"
            | "swapon"
            | "swapoff"
            | "losetup"
            | "iptables"
            | "ip6tables"
            | "nft"
            | "ufw"
            | "firewall-cmd"
            | "sysctl"
            | "modprobe"
            | "insmod"
            | "rmmod"
            | "setenforce"
            | "csrutil"
            | "spctl"
            | "defaults"
            | "update-alternatives"
            | "ldconfig"
            | "grub-install"
            | "update-grub"
            | "efibootmgr"
            | "ip"
            | "ifconfig"
            | "route"
            | "hostnamectl"
            | "timedatectl"
            | "scutil"
            | "nvram" => {
                let read = args.is_empty()
                    && matches!(name, "mount" | "ip" | "ifconfig" | "route" | "sysctl")
                    || args.iter().all(|a| {
                        matches!(
                            a.text.as_str(),
                            "-a" | "addr"
                                | "a"
                                | "show"
                                | "list"
                                | "-l"
                                | "-L"
                                | "-n"
                                | "route"
                                | "link"
                                | "status"
                                | "read"
                                | "-s"
                        )
                    });
                let f = if read {
                    f!(
                        ShellExec,
                        Low,
                        "system-query",
                        format!("{name} shows system settings")
                    )
                } else {
                    f!(
                        ShellExec,
                        High,
                        "system-admin",
                        format!("{name} changes system configuration")
                    )
                };
                self.push(t, f);
                leaf
            }
            "docker" | "podman" | "nerdctl" | "kubectl" | "k" | "oc" | "helm" | "terraform"
            | "tofu" | "pulumi" | "aws" | "gcloud" | "az" | "gsutil" | "doctl" | "flyctl"
            | "fly" | "heroku" | "vercel" | "netlify" | "firebase" | "wrangler" | "ansible"
            | "ansible-playbook" | "vagrant" | "docker-compose" | "minikube" | "kind"
            | "eksctl" | "s3cmd" => {
                self.push(t, infra_finding(name, args));
                leaf
            }
            "psql" | "mysql" | "mariadb" | "sqlite3" | "mongo" | "mongosh" | "redis-cli"
            | "sqlcmd" | "cqlsh" | "clickhouse-client" | "duckdb" => {
                let joined = args
                    .iter()
                    .map(|a| a.text.to_ascii_lowercase())
                    .collect::<Vec<_>>()
                    .join(" ")
                    + &s.stdin_text
                        .as_ref()
                        .map(|w| w.text.to_ascii_lowercase())
                        .unwrap_or_default();
                let f = if [
                    "drop ",
                    "truncate ",
                    "delete from",
                    "flushall",
                    "flushdb",
                    "dropdatabase",
                    "drop(",
                ]
                .iter()
                .any(|k| joined.contains(k))
                {
                    f!(
                        ShellExec,
                        High,
                        "database-destructive",
                        format!("{name} drops, truncates or deletes data")
                    )
                } else {
                    f!(
                        ShellExec,
                        Medium,
                        "database",
                        format!("{name} talks to a database")
                    )
                };
                self.push(t, f);
                leaf
            }
            "oath" => {
                self.push(t, oath_finding(args));
                leaf
            }
            "claude" => {
                let sub = args.first().map(|w| w.text.as_str()).unwrap_or("");
                let f = if matches!(sub, "--version" | "-v" | "--help" | "doctor") {
                    f!(Global, Low, "claude-query", "asks Claude Code about itself")
                } else {
                    f!(
                        Subagent,
                        High,
                        "nested-agent",
                        "starts another Claude Code agent (its permissions are its own)"
                    )
                };
                self.push(t, f);
                leaf
            }
            "vim" | "vi" | "nvim" | "nano" | "emacs" | "code" | "subl" | "micro" | "ed" | "ex"
            | "pico" | "joe" | "kak" | "hx" => {
                self.push(
                    t,
                    f!(
                        FileWrite,
                        Medium,
                        "editor",
                        format!("{name} edits files interactively")
                    ),
                );
                leaf
            }
            "open" | "xdg-open" | "start" | "explorer" | "wslview" => {
                self.push(
                    t,
                    f!(
                        ShellExec,
                        Medium,
                        "open",
                        format!("{name} opens a file or URL with another program")
                    ),
                );
                leaf
            }
            "((" => {
                let expr = args.first().map(|w| w.text.as_str()).unwrap_or("");
                let f = if arithmetic_looks_valid(expr) {
                    f!(ShellExec, Low, "arithmetic", "evaluates arithmetic")
                } else {
                    // bash may read `((cmd))` as nested subshells: judge the text as commands too.
                    let expr = expr.to_owned();
                    self.line(&expr, depth + 1);
                    f!(
                        ShellExec,
                        High,
                        "unparseable",
                        "`(( … ))` holds text that is not arithmetic"
                    )
                };
                self.push(t, f);
                leaf
            }
            // ---- navigation and harmless builtins ----
            "cd" | "pushd" | "popd" => {
                let dest = args
                    .iter()
                    .find(|a| !a.text.starts_with('-') || a.text == "-");
                self.cwd = match (name, dest) {
                    ("popd", _) => None,
                    (_, None) => self.ctx.home().map(Path::to_path_buf),
                    (_, Some(w)) if w.text == "-" => None,
                    (_, Some(w)) => self.target(w).path,
                };
                self.push(
                    t,
                    f!(
                        ShellExec,
                        Low,
                        "change-directory",
                        "changes the working directory"
                    ),
                );
                leaf
            }
            "echo" | "printf" | "print" => {
                let literal = args.iter().all(|a| a.literal);
                if literal {
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
                        {
                            leaf.produces.decode = true;
                        }
                        if joined.contains('%') {
                            leaf.produces.decode = true;
                        }
                        leaf.produces.text = Some(shell::decode_ansi_c(&joined));
                    } else {
                        leaf.produces.text = Some(joined);
                    }
                } else {
                    leaf.produces.decode = true;
                }
                self.push(
                    t,
                    f!(ShellExec, Low, "print", format!("{name} prints text")),
                );
                leaf
            }
            "base64" | "base32" | "basenc" | "xxd" | "uudecode" | "rev" | "zcat" | "gzcat"
            | "bzcat" | "xzcat" | "zstdcat" => {
                let decodes = matches!(
                    name,
                    "uudecode" | "rev" | "zcat" | "gzcat" | "bzcat" | "xzcat" | "zstdcat"
                ) || args.iter().any(|a| {
                    matches!(a.text.as_str(), "-d" | "-D" | "--decode" | "-r" | "-revert")
                });
                leaf.produces.decode = decodes;
                let files: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
                self.read_paths(t, &files, if decodes { "decodes" } else { "encodes" });
                if files.iter().any(|w| self.target(w).credential) {
                    leaf.produces.secret = true;
                }
                leaf
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.interpreter(s, name, args, depth, stdin),
            _ if is_read_command(name) => {
                let skip_pattern = matches!(
                    name,
                    "grep"
                        | "egrep"
                        | "fgrep"
                        | "rg"
                        | "ag"
                        | "ack"
                        | "zgrep"
                        | "git-grep"
                        | "look"
                ) && !args
                    .iter()
                    .any(|a| a.text == "-e" || a.text == "-f" || a.text.starts_with("--regexp"));
                let valued: &[&str] = match name {
                    "grep" | "egrep" | "fgrep" | "zgrep" => &[
                        "-e",
                        "-f",
                        "-m",
                        "-A",
                        "-B",
                        "-C",
                        "--include",
                        "--exclude",
                        "--exclude-dir",
                        "--color",
                        "--regexp",
                        "--file",
                        "--max-count",
                        "--context",
                        "--label",
                    ],
                    "rg" => &[
                        "-e",
                        "-f",
                        "-g",
                        "-t",
                        "-T",
                        "-m",
                        "-A",
                        "-B",
                        "-C",
                        "--glob",
                        "--type",
                        "--type-not",
                        "--max-count",
                        "--regexp",
                        "--file",
                        "-j",
                        "--threads",
                        "-M",
                        "--max-columns",
                        "--sort",
                        "--sortr",
                    ],
                    "head" | "tail" => &["-n", "-c", "--lines", "--bytes"],
                    "sort" => &[
                        "-o",
                        "-k",
                        "-t",
                        "-S",
                        "-T",
                        "--output",
                        "--key",
                        "--field-separator",
                        "--buffer-size",
                    ],
                    "cut" => &["-d", "-f", "-c", "-b", "--delimiter", "--fields"],
                    "jq" | "yq" => &[
                        "--arg",
                        "--argjson",
                        "--slurpfile",
                        "--rawfile",
                        "-f",
                        "--from-file",
                        "--indent",
                    ],
                    "ls" | "tree" => &[
                        "-I",
                        "-L",
                        "--ignore",
                        "--hide",
                        "--color",
                        "--sort",
                        "--format",
                        "--time-style",
                    ],
                    "du" | "df" => &["-d", "--max-depth", "-t", "--exclude", "-B", "--block-size"],
                    "diff" => &["-U", "-C", "--label", "-x", "--exclude", "-I"],
                    "xargs" => &[],
                    "wc" | "stat" => &["-c", "--format", "--printf", "--files0-from"],
                    _ => &[],
                };
                let sc = scan(args, valued, false);
                let mut files: Vec<&Word> = sc
                    .pos
                    .iter()
                    .skip(usize::from(skip_pattern))
                    .copied()
                    .collect();
                if name == "jq" || name == "yq" {
                    files = sc.pos.iter().skip(1).copied().collect();
                }
                if name == "sort"
                    && let Some(o) = sc.value(&["-o", "--output"])
                {
                    let tg = self.target(o);
                    self.push(t, paths::write_finding(&tg, "sort writes"));
                }
                if files.iter().any(|w| self.target(w).credential) {
                    leaf.produces.secret = true;
                }
                if let Some(text) = stdin.and_then(|f| f.text.clone()) {
                    leaf.produces.text = Some(text);
                }
                if stdin.is_some_and(|f| f.download) {
                    leaf.produces.download = true;
                }
                self.read_paths(
                    t,
                    &files,
                    match name {
                        "ls" | "tree" | "du" | "stat" | "file" | "exa" | "eza" | "lsd" => "lists",
                        _ => "reads",
                    },
                );
                leaf
            }
            _ if is_harmless(name) => {
                if matches!(name, "printenv" | "set" | "declare" | "export" | "typeset")
                    && args.is_empty()
                {
                    leaf.produces.secret = true;
                }
                if let Some(text) = stdin.and_then(|f| f.text.clone()) {
                    leaf.produces.text = Some(text);
                }
                self.push(
                    t,
                    f!(
                        ShellExec,
                        Low,
                        "harmless",
                        format!("{name} only reads state or prints")
                    ),
                );
                leaf
            }
            _ => {
                let f = if mods.elevated {
                    f!(
                        ShellExec,
                        High,
                        "unknown-program",
                        format!("runs `{name}`, a program oath has no rule for")
                    )
                } else {
                    f!(
                        ShellExec,
                        Medium,
                        "unknown-program",
                        format!("runs `{name}`, a program oath has no rule for")
                    )
                };
                self.push(t, f);
                leaf
            }
        }
    }

    fn read_paths(&mut self, t: &str, files: &[&Word], verb: &str) {
        let mut worst: Option<Finding> = None;
        for w in files {
            let tg = self.target(w);
            let f = paths::read_finding(&tg, verb);
            if worst.as_ref().is_none_or(|b| f.risk > b.risk) {
                worst = Some(f);
            }
        }
        let f = worst.unwrap_or_else(|| {
            Finding::new(Domain::FileRead, Risk::Low, "read", format!("{verb} files"))
        });
        let f = if f.rule == "read" {
            Finding::new(Domain::FileRead, Risk::Low, "read", format!("{verb} files"))
        } else {
            f
        };
        self.push(t, f);
    }

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
                        ) || base == "base64"
                            || base == "xxd"
                        {
                            found = true;
                        }
                    }
                });
            }
        }
        found
    }

    /// Classifies a file being executed or sourced.
    fn run_file(&mut self, w: &Word, verb: &str) -> Finding {
        if !w.literal {
            if self.subs_download(std::slice::from_ref(w)) {
                return run_downloaded(&format!("{verb} code fetched from the network"));
            }
            return Finding::new(
                Domain::ShellExec,
                Risk::High,
                "run-generated-code",
                format!("{verb} a script whose name or content is computed at run time"),
            );
        }
        let tg = self.target(w);
        if let Some(p) = &tg.path
            && self.downloaded.iter().any(|d| d == p)
        {
            return run_downloaded(&format!(
                "{verb} {}, downloaded earlier on this line",
                tg.shown()
            ));
        }
        if tg.protected {
            return Finding::new(
                Domain::Global,
                Risk::High,
                "oath-cli",
                format!("{verb} oath's own files"),
            );
        }
        if tg.in_project() {
            Finding::new(
                Domain::ShellExec,
                Risk::Medium,
                "run-script",
                format!("{verb} {}, a script in the project", tg.shown()),
            )
        } else {
            Finding::new(
                Domain::ShellExec,
                Risk::High,
                "run-script-outside",
                format!("{verb} {}, a program outside the project", tg.shown()),
            )
        }
    }

    /// Classifies shell text handed to a shell (`bash -c`, `su -c`).
    fn shell_text(&mut self, s: &Simple, w: &Word, depth: usize, what: &str) {
        if w.literal {
            self.line(&w.text, depth + 1);
        } else if self.subs_download(std::slice::from_ref(w)) {
            self.push(
                &s.text,
                run_downloaded(&format!("{what} runs downloaded text")),
            );
        } else {
            self.push(
                &s.text,
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "unknown-code",
                    format!("{what} runs shell code computed at run time"),
                ),
            );
        }
    }

    fn shell(
        &mut self,
        s: &Simple,
        name: &str,
        args: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
    ) -> Leaf {
        let mut leaf = Leaf::default();
        let t = s.text.as_str();
        let mut i = 0;
        let mut has_c = false;
        let mut has_s = false;
        while i < args.len() {
            let a = args[i].text.as_str();
            if a == "--" || a == "-" {
                i += 1;
                break;
            }
            if matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
                i += 2;
                continue;
            }
            if a.starts_with("--") {
                i += 1;
                continue;
            }
            if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
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
        if has_c {
            match first {
                Some(w) => self.shell_text(s, w, depth, &format!("{name} -c")),
                None => self.push(
                    t,
                    Finding::new(
                        Domain::ShellExec,
                        Risk::High,
                        "unparseable",
                        format!("{name} -c without a command"),
                    ),
                ),
            }
            return leaf;
        }
        if let Some(w) = first {
            let f = self.run_file(w, "runs");
            self.push(t, f);
            return leaf;
        }
        leaf.shell_stdin = true;
        self.saw_shell = true;
        if let Some(text) = &s.stdin_text {
            self.shell_text(s, text, depth, &format!("{name} <<"));
            return leaf;
        }
        if let Some(flow) = stdin {
            let f = if flow.download {
                run_downloaded("pipes a download into a shell")
            } else if flow.decode {
                Finding::new(
                    Domain::ShellExec,
                    Risk::Critical,
                    "run-hidden-code",
                    "pipes decoded or generated text into a shell: the code that runs is hidden",
                )
                .alt("write the commands out literally")
            } else if let Some(text) = &flow.text {
                let text = text.clone();
                self.line(&text, depth + 1);
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "pipe-to-shell",
                    "pipes text into a shell (the text is classified too)",
                )
            } else if flow.secret {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "pipe-to-shell",
                    "pipes text into a shell",
                )
            } else {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "pipe-to-shell",
                    "runs whatever the previous command prints as shell code",
                )
            };
            self.push(t, f);
            return leaf;
        }
        if let Some(r) = s.redirects.iter().find(|r| r.kind == RedirectKind::Read) {
            let target = r.target.clone();
            let f = self.run_file(&target, "runs");
            self.push(t, f);
            return leaf;
        }
        self.push(
            t,
            Finding::new(
                Domain::ShellExec,
                Risk::High,
                "interactive-shell",
                format!("starts an interactive {name}"),
            ),
        );
        leaf
    }

    fn interpreter(
        &mut self,
        s: &Simple,
        name: &str,
        args: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
    ) -> Leaf {
        let mut leaf = Leaf::default();
        let t = s.text.as_str();
        let lang = match name {
            n if n.starts_with("python") || n.starts_with("pypy") => "python",
            "node" | "nodejs" => "js",
            "perl" => "perl",
            "ruby" | "irb" => "ruby",
            "php" => "php",
            "awk" | "gawk" | "mawk" | "nawk" => "awk",
            _ => "other",
        };
        if lang == "awk" {
            let sc = scan(
                args,
                &["-F", "-v", "-f", "--field-separator", "--assign", "--file"],
                false,
            );
            let prog = if sc.has(&["-f", "--file"]) {
                None
            } else {
                sc.pos.first().copied()
            };
            let files: Vec<&Word> = sc
                .pos
                .iter()
                .skip(usize::from(prog.is_some()))
                .copied()
                .collect();
            if let Some(p) = prog {
                let c = &p.text;
                if c.contains("system(")
                    || c.contains("| getline")
                    || c.contains("|getline")
                    || c.contains("print |")
                    || c.contains("printf |")
                    || c.contains("|&")
                {
                    self.push(
                        t,
                        Finding::new(
                            Domain::ShellExec,
                            Risk::High,
                            "interpreter-spawn",
                            format!("the {name} program runs shell commands"),
                        ),
                    );
                    for lit in code::string_literals(c) {
                        if code::looks_like_shell(&lit) {
                            self.line(&lit, depth + 1);
                        }
                    }
                    return leaf;
                }
                if c.contains("print >") || c.contains("printf >") || c.contains("print>") {
                    self.push(
                        t,
                        Finding::new(
                            Domain::FileWrite,
                            Risk::Medium,
                            "interpreter-write",
                            format!("the {name} program writes files"),
                        ),
                    );
                    return leaf;
                }
            } else {
                self.push(
                    t,
                    Finding::new(
                        Domain::ShellExec,
                        Risk::Medium,
                        "interpreter",
                        format!("{name} runs a program file"),
                    ),
                );
                return leaf;
            }
            self.read_paths(t, &files, "reads");
            return leaf;
        }
        // Find inline code, a module, or a script.
        let mut i = 0;
        let mut code: Option<Word> = None;
        let mut module: Option<&Word> = None;
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
                module = args.get(i + 1);
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
            let rest = &args[(i + 2).min(args.len())..];
            let f = match m.text.as_str() {
                "pytest" | "unittest" | "nose2" | "doctest" => {
                    test_finding(&format!("{name} -m {}", m.text))
                }
                "pip" => {
                    let sub = rest
                        .iter()
                        .find(|a| !a.text.starts_with('-'))
                        .map(|w| w.text.as_str())
                        .unwrap_or("");
                    let pf = self.package(t, sub, rest, Mods::default(), "pip");
                    return Leaf { ..pf };
                }
                "http.server" | "SimpleHTTPServer" | "smtpd" => Finding::new(
                    Domain::Network,
                    Risk::High,
                    "network-listen",
                    "serves files over the network",
                ),
                "venv" | "virtualenv" | "json.tool" | "compileall" | "py_compile" | "black"
                | "ruff" | "mypy" | "isort" | "flake8" | "pylint" | "build" | "tabnanny"
                | "timeit" | "cProfile" | "pdb" => Finding::new(
                    Domain::ShellExec,
                    Risk::Medium,
                    "run-module",
                    format!("runs the Python module {}", m.text),
                ),
                _ => Finding::new(
                    Domain::ShellExec,
                    Risk::Medium,
                    "run-module",
                    format!("runs the Python module {}", m.text),
                ),
            };
            self.push(t, f);
            return leaf;
        }
        if let Some(c) = code {
            self.code(s, &c, lang, depth);
            if in_place {
                // A substitution script edited in place is judged by the files it edits.
                self.out.pop_if("interpreter-code");
                for w in args[i.min(args.len())..]
                    .iter()
                    .filter(|a| !a.text.starts_with('-'))
                {
                    let tg = self.target(w);
                    self.push(t, paths::write_finding(&tg, "edits in place"));
                }
            }
            return leaf;
        }
        if let Some(w) = args.get(i).filter(|w| w.text != "-") {
            let f = self.run_file(w, "runs");
            self.push(t, f);
            return leaf;
        }
        leaf.shell_stdin = true;
        if let Some(text) = &s.stdin_text {
            let text = text.clone();
            self.code(s, &text, lang, depth);
            return leaf;
        }
        if let Some(flow) = stdin {
            let f = if flow.download {
                run_downloaded(&format!("pipes a download into {name}"))
            } else if flow.decode {
                Finding::new(
                    Domain::ShellExec,
                    Risk::Critical,
                    "run-hidden-code",
                    format!(
                        "pipes decoded or generated text into {name}: the code that runs is hidden"
                    ),
                )
            } else if let Some(text) = &flow.text {
                let w = Word::lit(text.clone());
                self.code(s, &w, lang, depth);
                return leaf;
            } else {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "pipe-to-interpreter",
                    format!("runs whatever the previous command prints as {name} code"),
                )
            };
            self.push(t, f);
            return leaf;
        }
        self.push(
            t,
            Finding::new(
                Domain::ShellExec,
                Risk::Medium,
                "interactive-interpreter",
                format!("starts an interactive {name}"),
            ),
        );
        leaf
    }

    /// Classifies inline interpreter code.
    fn code(&mut self, s: &Simple, w: &Word, lang: &str, depth: usize) {
        let t = s.text.as_str();
        if !w.literal {
            if self.subs_download(std::slice::from_ref(w)) {
                self.push(t, run_downloaded("runs downloaded code in an interpreter"));
            } else {
                self.push(
                    t,
                    Finding::new(
                        Domain::ShellExec,
                        Risk::High,
                        "unknown-code",
                        "runs interpreter code computed at run time",
                    ),
                );
            }
            return;
        }
        let findings = code::analyze(&w.text, lang, self.ctx, self.cwd.as_deref());
        for lit in findings.shell_strings {
            self.line(&lit, depth + 1);
        }
        self.push(t, findings.finding);
    }

    fn find(&mut self, s: &Simple, name: &str, args: &[Word], depth: usize) -> Leaf {
        let leaf = Leaf::default();
        let t = s.text.as_str();
        if name != "find" {
            // fd: `-x/--exec CMD`, `-X/--exec-batch CMD`.
            if let Some(i) = args
                .iter()
                .position(|a| matches!(a.text.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
            {
                let cmd: Vec<Word> = args[i + 1..].to_vec();
                let mods = Mods {
                    under_find: true,
                    dynamic_args: true,
                    ..Mods::default()
                };
                return self.argv(s, &cmd, depth, None, mods);
            }
            self.push(
                t,
                Finding::new(Domain::FileRead, Risk::Low, "read", "lists files"),
            );
            return leaf;
        }
        let mut starts: Vec<&Word> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].text.as_str();
            if matches!(a, "-H" | "-L" | "-P") || a.starts_with("-O") || a == "-D" {
                i += if a == "-D" { 2 } else { 1 };
                continue;
            }
            if a.starts_with('-') || a == "(" || a == "!" || a == "\\(" {
                break;
            }
            starts.push(&args[i]);
            i += 1;
        }
        let dot = Word::lit(".");
        if starts.is_empty() {
            starts.push(&dot);
        }
        let mut acted = false;
        while i < args.len() {
            let a = args[i].text.as_str();
            match a {
                "-delete" => {
                    acted = true;
                    for w in &starts {
                        let tg = self.target(w);
                        let f = paths::delete_finding(
                            &tg,
                            "find -delete deletes everything matched under",
                            true,
                        );
                        self.push(t, f);
                    }
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    acted = true;
                    let end = args[i + 1..]
                        .iter()
                        .position(|w| w.text == ";" || w.text == "+")
                        .map_or(args.len(), |p| i + 1 + p);
                    let mut cmd: Vec<Word> = Vec::new();
                    for w in &args[i + 1..end] {
                        if w.text.contains("{}") {
                            for st in &starts {
                                let mut nw = (*st).clone();
                                nw.text = w.text.replace("{}", &st.text);
                                cmd.push(nw);
                            }
                        } else {
                            cmd.push(w.clone());
                        }
                    }
                    let mods = Mods {
                        under_find: true,
                        ..Mods::default()
                    };
                    let _ = self.argv(s, &cmd, depth, None, mods);
                    i = end;
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    acted = true;
                    if let Some(w) = args.get(i + 1) {
                        let tg = self.target(w);
                        self.push(t, paths::write_finding(&tg, "find writes"));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if !acted {
            let mut worst = Finding::new(Domain::FileRead, Risk::Low, "read", "lists files");
            for w in &starts {
                let tg = self.target(w);
                if tg.zone == Zone::Device {
                    worst = paths::read_finding(&tg, "find lists");
                }
            }
            self.push(t, worst);
        }
        leaf
    }

    fn copy(&mut self, s: &Simple, name: &str, args: &[Word], mods: Mods) {
        let t = s.text.as_str();
        let valued: &[&str] = match name {
            "cp" | "mv" | "ln" | "install" => &[
                "-t",
                "--target-directory",
                "-S",
                "--suffix",
                "-m",
                "--mode",
                "-o",
                "--owner",
                "-g",
                "--group",
            ],
            "rsync" => &[
                "-e",
                "--rsh",
                "--exclude",
                "--include",
                "--filter",
                "-f",
                "--exclude-from",
                "--include-from",
                "--files-from",
                "--rsync-path",
                "--log-file",
                "--password-file",
                "--chmod",
                "--backup-dir",
                "-T",
                "--temp-dir",
                "--port",
            ],
            "scp" | "sftp" => &["-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-b"],
            _ => &[],
        };
        let sc = scan(args, valued, false);
        let is_remote = |w: &Word| {
            let x = w.text.as_str();
            let host_colon = match x.find(':') {
                Some(i) => {
                    let host = &x[..i];
                    !host.is_empty() && !host.contains('/') && !x.starts_with('/')
                }
                None => false,
            };
            host_colon
                || x.starts_with("rsync://")
                || x.starts_with("s3://")
                || x.starts_with("gs://")
        };
        let mut pos: Vec<&Word> = sc.pos.clone();
        let dest = match sc.value(&["-t", "--target-directory"]) {
            Some(d) => Some(d.clone()),
            None if pos.len() >= 2 => pos.pop().cloned(),
            None if mods.dynamic_args => Some(Word {
                text: "{input}".into(),
                literal: false,
                ..Word::default()
            }),
            None => None,
        };
        let sources = pos;
        let remote_any = sources.iter().any(|w| is_remote(w))
            || dest.as_ref().is_some_and(is_remote)
            || name == "sftp"
            || name == "rclone";
        if remote_any {
            let secret = sources
                .iter()
                .any(|w| !is_remote(w) && self.target(w).credential);
            let upload = dest.as_ref().is_some_and(is_remote);
            let f = if secret && upload {
                Finding::new(
                    Domain::Network,
                    Risk::Critical,
                    "exfiltration",
                    format!("{name} copies credentials to a remote host"),
                )
            } else if upload {
                Finding::new(
                    Domain::Network,
                    Risk::High,
                    "remote-copy",
                    format!("{name} copies files to a remote host"),
                )
            } else {
                Finding::new(
                    Domain::Network,
                    Risk::High,
                    "remote-copy",
                    format!("{name} copies files from a remote host"),
                )
            };
            self.push(t, f);
            if !upload && let Some(d) = &dest {
                let tg = self.target(d);
                self.push(t, paths::write_finding(&tg, "copies into"));
            }
            return;
        }
        if name == "mv" || name == "rsync" && sc.has(&["--remove-source-files"]) {
            for w in &sources {
                let tg = self.target(w);
                if tg.protected || tg.holds_protected {
                    self.push(t, paths::self_protect("moves", &tg));
                } else if !tg.in_project() && tg.path.is_some() {
                    let f = paths::delete_finding(&tg, "moves away", true);
                    if f.risk >= Risk::High {
                        self.push(t, f);
                    }
                }
            }
        }
        if name == "rsync"
            && sc.has(&[
                "--delete",
                "--delete-before",
                "--delete-after",
                "--delete-during",
                "--delete-excluded",
                "--del",
            ])
            && let Some(d) = &dest
        {
            let tg = self.target(d);
            self.push(
                t,
                paths::delete_finding(&tg, "rsync --delete removes extra files in", true),
            );
        }
        for w in &sources {
            let tg = self.target(w);
            if tg.credential && dest.as_ref().is_some_and(|d| !self.target(d).in_project()) {
                self.push(t, paths::read_finding(&tg, "copies"));
            }
        }
        match &dest {
            Some(d) => {
                let tg = self.target(d);
                let verb = match name {
                    "mv" => "moves files into",
                    "ln" => "links into",
                    _ => "copies into",
                };
                self.push(t, paths::write_finding(&tg, verb));
            }
            None => self.push(
                t,
                Finding::new(
                    Domain::FileWrite,
                    Risk::Medium,
                    "write-unknown-path",
                    format!("{name} without a destination"),
                ),
            ),
        }
    }

    fn archive(&mut self, s: &Simple, name: &str, args: &[Word], leaf: &mut Leaf) {
        let t = s.text.as_str();
        let first = args.first().map(|w| w.text.as_str()).unwrap_or("");
        let cluster = |c: char| {
            args.iter()
                .any(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains(c))
                || !first.starts_with('-') && first.contains(c)
        };
        match name {
            "tar" | "bsdtar" => {
                let extract = cluster('x')
                    || args
                        .iter()
                        .any(|a| a.text == "--extract" || a.text == "--get");
                let list = cluster('t') || args.iter().any(|a| a.text == "--list");
                let create = cluster('c') || args.iter().any(|a| a.text == "--create");
                let dir = args
                    .iter()
                    .position(|a| a.text == "-C" || a.text == "--directory")
                    .and_then(|i| args.get(i + 1))
                    .cloned()
                    .or_else(|| {
                        args.iter().find_map(|a| {
                            a.text.strip_prefix("--directory=").map(|v| Word {
                                text: v.into(),
                                ..a.clone()
                            })
                        })
                    });
                let files: Vec<&Word> = args
                    .iter()
                    .skip(1)
                    .filter(|a| !a.text.starts_with('-'))
                    .collect();
                if files.iter().any(|w| self.target(w).credential) {
                    leaf.produces.secret = true;
                }
                if extract {
                    let tg = match &dir {
                        Some(d) => self.target(d),
                        None => paths::target(self.cwd.clone(), self.ctx),
                    };
                    self.push(t, paths::write_finding(&tg, "extracts an archive into"));
                } else if list {
                    self.push(
                        t,
                        Finding::new(Domain::FileRead, Risk::Low, "read", "lists an archive"),
                    );
                } else if create {
                    let out = args
                        .iter()
                        .position(|a| a.text == "-f" || a.text == "--file")
                        .and_then(|i| args.get(i + 1))
                        .or_else(|| {
                            if !first.starts_with('-') && first.contains('f') {
                                args.get(1)
                            } else {
                                None
                            }
                        })
                        .or_else(|| {
                            args.iter()
                                .find(|a| {
                                    a.text.starts_with('-')
                                        && !a.text.starts_with("--")
                                        && a.text.ends_with('f')
                                })
                                .and_then(|a| {
                                    let i = args.iter().position(|b| std::ptr::eq(a, b))?;
                                    args.get(i + 1)
                                })
                        });
                    match out {
                        Some(o) if o.text != "-" => {
                            let tg = self.target(o);
                            self.push(t, paths::write_finding(&tg, "writes the archive"));
                        }
                        _ => self.push(
                            t,
                            Finding::new(
                                Domain::FileRead,
                                Risk::Low,
                                "read",
                                "archives files to stdout",
                            ),
                        ),
                    }
                    let secrets: Vec<&Word> = files
                        .iter()
                        .copied()
                        .filter(|w| self.target(w).credential)
                        .collect();
                    if !secrets.is_empty() {
                        self.read_paths(t, &secrets, "archives");
                    }
                } else {
                    self.push(
                        t,
                        Finding::new(Domain::FileWrite, Risk::Medium, "archive", "tar"),
                    );
                }
            }
            "unzip" | "7z" | "7za" | "unrar" => {
                if args
                    .iter()
                    .any(|a| a.text == "-l" || a.text == "l" || a.text == "-t")
                {
                    self.push(
                        t,
                        Finding::new(Domain::FileRead, Risk::Low, "read", "lists an archive"),
                    );
                    return;
                }
                let dir = args
                    .iter()
                    .position(|a| a.text == "-d")
                    .and_then(|i| args.get(i + 1))
                    .cloned()
                    .or_else(|| {
                        args.iter().find_map(|a| {
                            a.text
                                .strip_prefix("-o")
                                .filter(|v| !v.is_empty())
                                .map(|v| Word {
                                    text: v.into(),
                                    ..a.clone()
                                })
                        })
                    });
                let tg = match &dir {
                    Some(d) => self.target(d),
                    None => paths::target(self.cwd.clone(), self.ctx),
                };
                self.push(t, paths::write_finding(&tg, "extracts an archive into"));
            }
            _ => {
                let to_stdout = args.iter().any(|a| {
                    a.text == "-c"
                        || a.text == "--stdout"
                        || a.text == "-l"
                        || a.text == "--list"
                        || a.text == "-t"
                });
                if matches!(name, "gunzip" | "bunzip2" | "unxz" | "unzstd")
                    || args
                        .iter()
                        .any(|a| a.text == "-d" || a.text == "--decompress")
                {
                    leaf.produces.decode = true;
                }
                if to_stdout {
                    self.push(
                        t,
                        Finding::new(
                            Domain::FileRead,
                            Risk::Low,
                            "read",
                            format!("{name} to stdout"),
                        ),
                    );
                    return;
                }
                let files: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
                if files.is_empty() {
                    self.push(
                        t,
                        Finding::new(
                            Domain::ShellExec,
                            Risk::Low,
                            "filter",
                            format!("{name} filters stdin"),
                        ),
                    );
                }
                for w in files {
                    let tg = self.target(w);
                    self.push(t, paths::write_finding(&tg, "compresses or replaces"));
                }
            }
        }
    }

    fn fetch(
        &mut self,
        s: &Simple,
        name: &str,
        args: &[Word],
        stdin: Option<&Flow>,
        leaf: &mut Leaf,
    ) {
        let t = s.text.as_str();
        let curl_valued = [
            "-o",
            "--output",
            "-d",
            "--data",
            "--data-binary",
            "--data-raw",
            "--data-urlencode",
            "--data-ascii",
            "--json",
            "-F",
            "--form",
            "--form-string",
            "-T",
            "--upload-file",
            "-X",
            "--request",
            "-H",
            "--header",
            "-u",
            "--user",
            "-A",
            "--user-agent",
            "-e",
            "--referer",
            "-b",
            "--cookie",
            "-c",
            "--cookie-jar",
            "-K",
            "--config",
            "-w",
            "--write-out",
            "-m",
            "--max-time",
            "--connect-timeout",
            "-x",
            "--proxy",
            "--url",
            "-r",
            "--range",
            "-C",
            "--continue-at",
            "--retry",
            "--cacert",
            "--cert",
            "-E",
            "--key",
            "--resolve",
            "--limit-rate",
            "--output-dir",
            "-U",
            "--proxy-user",
            "-Y",
            "-y",
            "-z",
            "--time-cond",
            "--max-filesize",
            "--interface",
            "--dns-servers",
            "-Q",
            "--quote",
            "--mail-from",
            "--mail-rcpt",
            "--unix-socket",
        ];
        let wget_valued = [
            "-O",
            "--output-document",
            "-P",
            "--directory-prefix",
            "--post-data",
            "--post-file",
            "--body-data",
            "--body-file",
            "--method",
            "-i",
            "--input-file",
            "--header",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
            "-U",
            "--user-agent",
            "--user",
            "--password",
            "-e",
            "--execute",
            "-T",
            "--timeout",
            "-t",
            "--tries",
            "-w",
            "--wait",
            "-l",
            "--level",
            "-A",
            "-R",
            "--accept",
            "--reject",
            "-D",
            "--domains",
            "--load-cookies",
            "--save-cookies",
        ];
        let is_wget = name == "wget";
        let is_curl = name == "curl";
        let sc = if is_curl {
            scan(args, &curl_valued, false)
        } else if is_wget {
            scan(args, &wget_valued, false)
        } else {
            scan(
                args,
                &["-o", "--output", "-a", "--auth", "-d", "--dir"],
                false,
            )
        };
        let mut urls: Vec<String> = sc.pos.iter().map(|w| w.text.clone()).collect();
        if !(is_curl || is_wget) {
            // httpie: `http [METHOD] URL [items]`
            urls.retain(|u| {
                u.contains('.')
                    || u.contains("://")
                    || u.starts_with(':')
                    || u.starts_with("localhost")
            });
            urls.truncate(1);
        }
        urls.extend(sc.values(&["--url"]).map(|w| w.text.clone()));
        let method = sc
            .value(&["-X", "--request", "--method"])
            .map(|w| w.text.to_ascii_uppercase())
            .or_else(|| {
                if !(is_curl || is_wget) {
                    sc.pos
                        .first()
                        .map(|w| w.text.to_ascii_uppercase())
                        .filter(|m| {
                            matches!(
                                m.as_str(),
                                "POST" | "PUT" | "PATCH" | "DELETE" | "GET" | "HEAD"
                            )
                        })
                } else {
                    None
                }
            });
        let data_vals: Vec<&Word> = sc
            .values(&[
                "-d",
                "--data",
                "--data-binary",
                "--data-raw",
                "--data-urlencode",
                "--data-ascii",
                "--json",
                "-F",
                "--form",
                "--post-data",
                "--body-data",
            ])
            .collect();
        let mut upload_files: Vec<Word> = Vec::new();
        for v in sc.values(&["-T", "--upload-file", "--post-file", "--body-file"]) {
            upload_files.push(v.clone());
        }
        for v in &data_vals {
            let x = v.text.as_str();
            let file = if let Some(f) = x.strip_prefix('@') {
                Some(f)
            } else if let Some(i) = x.find("=@") {
                Some(&x[i + 2..])
            } else {
                x.find("=<").map(|i| &x[i + 2..])
            };
            if let Some(f) = file {
                let f = f.split(';').next().unwrap_or(f);
                upload_files.push(Word {
                    text: f.to_owned(),
                    ..(*v).clone()
                });
            }
        }
        let sends_data = !data_vals.is_empty() || !upload_files.is_empty();
        // An order whose body buys or sells is a trade.
        let trade_body = data_vals.iter().any(|v| {
            let l = v.text.to_ascii_lowercase();
            l.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| matches!(w, "buy" | "sell" | "bid" | "ask"))
        });
        let payment = match urls.iter().filter_map(|u| payment_url(u)).max() {
            Some(false) if trade_body => Some(true),
            p => p,
        };
        let method = method.unwrap_or_else(|| {
            if sends_data {
                "POST".into()
            } else {
                "GET".into()
            }
        });
        let secret_upload = upload_files.iter().any(|w| {
            if w.text == "-" {
                stdin.is_some_and(|f| f.secret)
            } else {
                self.target(w).credential
            }
        }) || self.words_read_secrets(args)
            || stdin.is_some_and(|f| f.secret) && upload_files.iter().any(|w| w.text == "-");
        let loopback = !urls.is_empty() && urls.iter().all(|u| is_loopback_url(u));
        // Where the download goes.
        let out_file = if is_curl {
            sc.value(&["-o", "--output"]).cloned().or_else(|| {
                sc.has(&["-O", "--remote-name", "--remote-name-all"])
                    .then(|| Word::lit(urls.first().map(|u| url_file_name(u)).unwrap_or_default()))
            })
        } else if is_wget {
            match sc.value(&["-O", "--output-document"]) {
                Some(w) if w.text == "-" => None,
                Some(w) => Some(w.clone()),
                None => urls.first().map(|u| Word::lit(url_file_name(u))),
            }
        } else {
            sc.value(&["-o", "--output"]).cloned()
        };
        let wget_execute = is_wget && sc.has(&["-e", "--execute"]);
        let f = if secret_upload {
            Finding::new(
                Domain::Network,
                Risk::Critical,
                "exfiltration",
                format!("{name} sends credentials off the machine"),
            )
        } else if payment == Some(true) && method != "GET" && method != "HEAD" {
            Finding::new(
                Domain::Network,
                Risk::Critical,
                "payment-request",
                format!(
                    "{name} sends a {method} to a payment, order or trading URL: it may move money"
                ),
            )
        } else if payment == Some(false) && method != "GET" && method != "HEAD" {
            Finding::new(
                Domain::Network,
                Risk::High,
                "order-request",
                format!("{name} sends a {method} to an order URL"),
            )
        } else if wget_execute {
            Finding::new(
                Domain::Network,
                Risk::High,
                "download",
                "wget runs wgetrc commands given on the command line",
            )
        } else if loopback {
            Finding::new(
                Domain::ShellExec,
                if method == "DELETE" {
                    Risk::Medium
                } else {
                    Risk::Low
                },
                "loopback",
                format!("{name} talks to a service on this machine"),
            )
        } else if !upload_files.is_empty() {
            Finding::new(
                Domain::Network,
                Risk::High,
                "upload-file",
                format!("{name} uploads local files"),
            )
        } else if method == "DELETE" {
            Finding::new(
                Domain::Network,
                Risk::High,
                "network-delete",
                format!("{name} sends a DELETE request"),
            )
        } else if method != "GET" && method != "HEAD" {
            Finding::new(
                Domain::Network,
                Risk::Medium,
                "network-send",
                format!("{name} sends a {method} request"),
            )
        } else if urls.is_empty() && !args.iter().all(|a| a.literal) {
            Finding::new(
                Domain::Network,
                Risk::Medium,
                "download",
                format!("{name} fetches a URL computed at run time"),
            )
        } else {
            Finding::new(
                Domain::Network,
                Risk::Medium,
                "download",
                format!(
                    "{name} downloads {}",
                    urls.first().map(String::as_str).unwrap_or("a URL")
                ),
            )
        };
        self.push(t, f);
        match out_file {
            Some(w) if !w.text.is_empty() && w.text != "-" => {
                let tg = self.target(&w);
                if let Some(p) = &tg.path {
                    self.downloaded.push(p.clone());
                }
                if tg.zone != Zone::Harmless {
                    self.push(t, paths::write_finding(&tg, "saves a download to"));
                }
            }
            _ => {
                if !loopback {
                    leaf.produces.download = true;
                }
            }
        }
        for dir in sc.values(&["-P", "--directory-prefix", "--output-dir"]) {
            let tg = self.target(dir);
            self.push(t, paths::write_finding(&tg, "saves downloads into"));
        }
    }

    fn package(&mut self, t: &str, sub: &str, args: &[Word], mods: Mods, name: &str) -> Leaf {
        let leaf = Leaf::default();
        let global = args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-g" | "--global" | "--system" | "--break-system-packages" | "--root"
            )
        }) || mods.elevated;
        let f = match sub {
            "install" | "i" | "add" | "ci" | "update" | "upgrade" | "up" | "remove" | "rm"
            | "uninstall" | "un" | "r" | "sync" | "lock" | "get" | "require" | "link"
            | "unlink" | "prune" | "dedupe" | "audit"
                if sub != "audit" || args.iter().any(|a| a.text == "fix") =>
            {
                if global {
                    Finding::new(
                        Domain::Package,
                        Risk::High,
                        "global-package",
                        format!("{name} {sub} changes packages outside the project"),
                    )
                    .alt("install into the project (without -g / --user / sudo)")
                } else if sub == "audit" {
                    Finding::new(
                        Domain::Package,
                        Risk::Medium,
                        "package-install",
                        format!("{name} audit fix changes dependencies"),
                    )
                } else if name == "go" && sub == "get" || name == "cargo" && sub == "update" {
                    Finding::new(
                        Domain::Package,
                        Risk::Medium,
                        "package-install",
                        format!("{name} {sub} changes dependencies"),
                    )
                } else {
                    Finding::new(
                        Domain::Package,
                        Risk::Medium,
                        "package-install",
                        format!("{name} {sub} installs or removes packages"),
                    )
                }
            }
            "publish" | "push" | "release" | "deploy" | "yank" | "owner" | "login" | "adduser"
            | "token" | "unpublish" | "deprecate" | "dist-tag" => Finding::new(
                Domain::Network,
                Risk::High,
                "package-publish",
                format!("{name} {sub} publishes or changes a registry account"),
            ),
            "list" | "ls" | "show" | "info" | "view" | "freeze" | "search" | "outdated" | "why"
            | "explain" | "tree" | "metadata" | "version" | "--version" | "-v" | "-V" | "help"
            | "--help" | "check" | "config" | "env" | "doctor" | "pkgid" | "locate-project"
            | "verify-project" | "bin" | "prefix" | "root" | "cache" | "fund" | "licenses"
            | "vet" | "fmt" | "mod" | "clippy" | "doc" | "build" | "b" | "run" | "exec" | "x"
            | "start" | "dev" | "serve" | "compile" | "lint" | "format" | "generate" | "bench"
            | "clean" | "new" | "init" | "create" | "setup" | "fix" | "tidy" | "work" | "where"
            | "which" | "rustc" | "expand" | "miri" | "llvm-cov" | "tarpaulin" | "audit"
            | "deny" | "machete" | "semver-checks" => {
                let read_only = matches!(
                    sub,
                    "list"
                        | "ls"
                        | "show"
                        | "info"
                        | "view"
                        | "freeze"
                        | "search"
                        | "outdated"
                        | "why"
                        | "explain"
                        | "tree"
                        | "metadata"
                        | "version"
                        | "--version"
                        | "-v"
                        | "-V"
                        | "help"
                        | "--help"
                        | "config"
                        | "env"
                        | "doctor"
                        | "pkgid"
                        | "locate-project"
                        | "verify-project"
                        | "bin"
                        | "prefix"
                        | "root"
                        | "fund"
                        | "licenses"
                        | "where"
                        | "which"
                        | "audit"
                        | "deny"
                        | "machete"
                ) && !(sub == "config" && args.iter().any(|a| a.text == "set"));
                if read_only {
                    Finding::new(
                        Domain::Package,
                        Risk::Low,
                        "package-query",
                        format!("{name} {sub} only reads package information"),
                    )
                } else if matches!(sub, "run" | "exec" | "x" | "start" | "dev" | "serve") {
                    let script = args
                        .iter()
                        .skip(1)
                        .find(|a| !a.text.starts_with('-'))
                        .map(|w| w.text.as_str())
                        .unwrap_or("");
                    if matches!(name, "npm" | "pnpm" | "yarn" | "bun")
                        && (script == "test" || script.starts_with("test:"))
                    {
                        test_finding(&format!("{name} run {script}"))
                    } else {
                        Finding::new(
                            Domain::ShellExec,
                            Risk::Medium,
                            "run-script",
                            format!("{name} {sub} runs project code"),
                        )
                    }
                } else {
                    Finding::new(
                        Domain::ShellExec,
                        Risk::Medium,
                        "build",
                        format!("{name} {sub} builds or changes the project"),
                    )
                }
            }
            _ => {
                if matches!(name, "yarn" | "pnpm" | "bun") && !sub.is_empty() {
                    if sub == "test" || sub.starts_with("test:") {
                        test_finding(&format!("{name} {sub}"))
                    } else {
                        Finding::new(
                            Domain::ShellExec,
                            Risk::Medium,
                            "run-script",
                            format!("{name} {sub} runs a project script"),
                        )
                    }
                } else if matches!(
                    name,
                    "npm" | "yarn" | "pnpm" | "bun" | "composer" | "bundle"
                ) && sub.is_empty()
                {
                    Finding::new(
                        Domain::Package,
                        Risk::Medium,
                        "package-install",
                        format!("{name} installs the project's dependencies"),
                    )
                } else {
                    Finding::new(
                        Domain::ShellExec,
                        Risk::Medium,
                        "build",
                        format!("{name} {sub}"),
                    )
                }
            }
        };
        let f = if mods.elevated {
            f.at_least(Risk::High)
        } else {
            f
        };
        self.push(t, f);
        leaf
    }
}

fn run_downloaded(why: &str) -> Finding {
    Finding::new(
        Domain::Network,
        Risk::Critical,
        "run-downloaded-code",
        format!("{why}: runs code nobody has read"),
    )
    .alt("download to a file and read it before running it")
}

fn test_finding(what: &str) -> Finding {
    Finding::new(
        Domain::TestRun,
        Risk::Low,
        "test-runner",
        format!("{} runs the project's tests", what.trim()),
    )
}

/// Returns whether `name args…` runs tests.
fn is_test_runner(name: &str, args: &[Word]) -> bool {
    let sub = args
        .iter()
        .find(|a| !a.text.starts_with('-') && !a.text.starts_with('+'))
        .map(|w| w.text.as_str())
        .unwrap_or("");
    match name {
        "pytest" | "py.test" | "jest" | "vitest" | "mocha" | "ava" | "tap" | "rspec"
        | "phpunit" | "bats" | "ctest" | "karma" | "jasmine" | "nextest" | "cucumber"
        | "behave" | "ward" | "trial" | "busted" | "prove" | "tox" | "nox" | "pest"
        | "codecept" | "testem" => true,
        "cargo" => matches!(sub, "test" | "nextest" | "t"),
        "go" | "deno" | "bun" | "mix" | "swift" | "dotnet" | "flutter" | "dart" | "zig"
        | "stack" | "cabal" | "lein" | "sbt" | "rake" | "gradle" | "gradlew" | "mvn" | "mvnw" => {
            matches!(sub, "test" | "spec" | "check" | "verify")
        }
        "npm" | "pnpm" | "yarn" => {
            sub == "test"
                || sub == "t"
                || sub.starts_with("test:")
                || sub == "run"
                    && args
                        .iter()
                        .skip(1)
                        .find(|a| !a.text.starts_with('-'))
                        .is_some_and(|w| w.text == "test" || w.text.starts_with("test:"))
        }
        "make" | "gmake" | "just" | "task" | "ninja" => {
            matches!(
                sub,
                "test" | "tests" | "check" | "unittest" | "test-all" | "spec"
            )
        }
        "cypress" => sub == "run",
        "playwright" => sub == "test",
        _ => false,
    }
}

fn is_disk_tool(name: &str) -> bool {
    name.starts_with("mkfs")
        || matches!(
            name,
            "mke2fs"
                | "mkswap"
                | "wipefs"
                | "fdisk"
                | "sfdisk"
                | "cfdisk"
                | "parted"
                | "gdisk"
                | "sgdisk"
                | "cryptsetup"
                | "blkdiscard"
                | "hdparm"
                | "badblocks"
                | "mkdosfs"
                | "diskutil"
                | "format"
                | "zpool"
                | "mdadm"
                | "pvcreate"
                | "vgremove"
                | "lvremove"
                | "nvme"
                | "sg_format"
                | "flashrom"
        )
}

fn is_read_command(name: &str) -> bool {
    matches!(
        name,
        "ls" | "cat"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "wc"
            | "file"
            | "stat"
            | "du"
            | "df"
            | "tree"
            | "grep"
            | "egrep"
            | "fgrep"
            | "zgrep"
            | "rg"
            | "ag"
            | "ack"
            | "diff"
            | "cmp"
            | "comm"
            | "sort"
            | "uniq"
            | "cut"
            | "tr"
            | "nl"
            | "tac"
            | "od"
            | "hexdump"
            | "strings"
            | "md5sum"
            | "sha1sum"
            | "sha256sum"
            | "sha512sum"
            | "sha224sum"
            | "sha384sum"
            | "cksum"
            | "b2sum"
            | "md5"
            | "shasum"
            | "jq"
            | "yq"
            | "column"
            | "fold"
            | "paste"
            | "join"
            | "fmt"
            | "expand"
            | "unexpand"
            | "look"
            | "realpath"
            | "readlink"
            | "basename"
            | "dirname"
            | "bat"
            | "batcat"
            | "exa"
            | "eza"
            | "lsd"
            | "tokei"
            | "cloc"
            | "scc"
            | "pr"
            | "iconv"
            | "xmllint"
            | "csvlook"
            | "mlr"
            | "colordiff"
            | "delta"
            | "difft"
            | "view"
            | "zless"
            | "zmore"
            | "lsattr"
            | "getfacl"
            | "namei"
            | "tput"
            | "hd"
            | "numfmt"
            | "shuf"
            | "wdiff"
            | "locate"
            | "mdfind"
            | "pdftotext"
            | "identify"
            | "exiftool"
            | "ldd"
            | "nm"
            | "objdump"
            | "readelf"
            | "size"
            | "otool"
            | "sum"
            | "tsort"
            | "ptx"
            | "git-grep"
    )
}

fn is_harmless(name: &str) -> bool {
    matches!(
        name,
        "true"
            | "false"
            | ":"
            | "test"
            | "["
            | "[["
            | "(("
            | "for"
            | "case"
            | "sleep"
            | "date"
            | "whoami"
            | "id"
            | "groups"
            | "uname"
            | "hostname"
            | "uptime"
            | "printenv"
            | "seq"
            | "expr"
            | "bc"
            | "dc"
            | "cal"
            | "nproc"
            | "arch"
            | "tty"
            | "locale"
            | "clear"
            | "history"
            | "unalias"
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "unset"
            | "shopt"
            | "set"
            | "read"
            | "wait"
            | "jobs"
            | "exit"
            | "return"
            | "break"
            | "continue"
            | "shift"
            | "getopts"
            | "umask"
            | "ulimit"
            | "hash"
            | "help"
            | "man"
            | "info"
            | "ps"
            | "pgrep"
            | "pidof"
            | "top"
            | "htop"
            | "btop"
            | "free"
            | "vmstat"
            | "iostat"
            | "lscpu"
            | "lsblk"
            | "lsusb"
            | "lspci"
            | "lsmod"
            | "who"
            | "w"
            | "last"
            | "which"
            | "whereis"
            | "type"
            | "whence"
            | "command_not_found_handle"
            | "yes"
            | "env_parallel"
            | "sw_vers"
            | "system_profiler"
            | "getconf"
            | "logname"
            | "users"
            | "dirs"
            | "fc"
            | "disown"
            | "bg"
            | "fg"
            | "let"
            | "enable"
            | "compgen"
            | "complete"
            | "bind"
            | "mapfile"
            | "readarray"
            | "times"
            | "caller"
            | "suspend"
            | "logout"
            | "tmux"
            | "screen"
            | "script"
            | "ping"
            | "dig"
            | "nslookup"
            | "host"
            | "whois"
            | "traceroute"
            | "tracepath"
            | "mtr"
            | "ss"
            | "netstat"
            | "lsof"
            | "dmesg"
            | "journalctl"
            | "nvidia-smi"
            | "watchman"
            | "direnv-status"
            | "say"
            | "notify-send"
            | "osascript-noop"
            | "neofetch"
            | "fastfetch"
            | "cowsay"
            | "figlet"
            | "lolcat"
            | "pbcopy"
            | "pbpaste"
            | "xclip"
            | "xsel"
            | "wl-copy"
            | "wl-paste"
            | "mktemp"
            | "tsc-version"
            | "pwd"
            | "dirname-noop"
    )
}

/// Returns whether `(( … ))` text looks like arithmetic: no two words in a row
/// (`rm -rf ~` is a command someone hid in arithmetic brackets).
fn arithmetic_looks_valid(expr: &str) -> bool {
    let mut prev_word = false;
    for tok in expr.split_whitespace() {
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

fn sed_executes(script: &str) -> bool {
    // GNU sed: the `e` command, the `e` flag of `s///`, and `w`/`W` writing files.
    let trimmed = script.trim();
    trimmed.starts_with('e') || trimmed.contains(";e ") || trimmed.contains("\ne ") || {
        // s/x/y/e or s|x|y|ge
        let b = trimmed.as_bytes();
        if b.len() > 3 && b[0] == b's' {
            let d = b[1];
            let parts: Vec<&[u8]> = b[2..].split(|c| *c == d).collect();
            parts.len() >= 3 && parts[2].contains(&b'e')
        } else {
            false
        }
    }
}

fn perm_finding(
    name: &str,
    mode: &str,
    t: &Target,
    recursive: bool,
    home: Option<&std::path::Path>,
) -> Finding {
    let shown = t.shown();
    if t.protected
        || t.holds_protected && recursive && !matches!(t.zone, Zone::Root | Zone::HomeTop)
    {
        return paths::self_protect(&format!("{name} changes"), t);
    }
    let setuid = name == "chmod"
        && (mode.contains('s') || mode.len() == 4 && mode.starts_with(['4', '2', '6']));
    let alt = "change permissions of specific files inside the project";
    let whole_home = t.zone == Zone::HomeTop && t.path.as_deref() == home;
    if recursive
        && (whole_home
            || matches!(
                t.zone,
                Zone::Root | Zone::System | Zone::OtherHome | Zone::Device
            ))
    {
        return Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "recursive-permissions-outside",
            format!("{name} -R on {shown}: changes permissions of a whole system, home or other user's tree"),
        )
        .alt(alt);
    }
    if t.path.is_none() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions",
            format!("{name} on a path computed at run time"),
        );
    }
    if !t.in_project() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions-outside",
            format!("{name} changes {shown}, outside the project"),
        )
        .alt(alt);
    }
    if recursive
        || setuid
        || name != "chmod"
        || mode.contains("777")
        || mode.contains("o+w")
        || mode.contains("a+w")
    {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions",
            format!(
                "{name} {mode} on {shown}{}",
                if recursive { " recursively" } else { "" }
            ),
        );
    }
    Finding::new(
        Domain::FileWrite,
        Risk::Medium,
        "change-permissions",
        format!("{name} {mode} on {shown}"),
    )
}

fn infra_finding(name: &str, args: &[Word]) -> Finding {
    let words: Vec<&str> = args
        .iter()
        .map(|a| a.text.as_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    let joined = words.join(" ").to_ascii_lowercase();
    let has = |v: &[&str]| words.iter().any(|w| v.contains(w));
    let destructive = has(&[
        "rm",
        "rmi",
        "delete",
        "destroy",
        "prune",
        "kill",
        "uninstall",
        "terminate-instances",
        "drain",
        "remove",
        "purge",
        "rb",
        "down",
        "stop-instances",
        "delete-stack",
        "delete-bucket",
        "delete-cluster",
        "taint",
        "cordon",
    ]) || joined.contains("terminate")
        || args.iter().any(|a| {
            matches!(a.text.as_str(), "--force" | "-f" | "--recursive") && has(&["rm", "delete"])
        })
        || name == "terraform" && has(&["apply"]) && args.iter().any(|a| a.text == "-destroy")
        || has(&["apply", "up"])
            && args.iter().any(|a| {
                a.text == "-auto-approve" || a.text == "--auto-approve" || a.text == "--yes"
            });
    let privileged = args.iter().any(|a| {
        a.text == "--privileged"
            || a.text.starts_with("/:/")
            || a.text == "--pid=host"
            || a.text.contains("docker.sock")
    }) || args
        .windows(2)
        .any(|w| (w[0].text == "-v" || w[0].text == "--volume") && w[1].text.starts_with("/:"));
    let read = has(&[
        "ps",
        "images",
        "logs",
        "inspect",
        "version",
        "info",
        "get",
        "describe",
        "list",
        "ls",
        "show",
        "status",
        "plan",
        "validate",
        "explain",
        "top",
        "stats",
        "history",
        "diff",
        "config",
        "whoami",
        "output",
        "state",
        "search",
        "view",
        "events",
        "port",
        "cluster-info",
        "api-resources",
        "api-versions",
        "can-i",
        "current-context",
        "get-contexts",
        "fmt",
        "graph",
        "providers",
        "sts",
        "get-caller-identity",
        "context",
    ]) && !has(&[
        "apply", "create", "set", "run", "exec", "cp", "edit", "patch", "scale", "import", "push",
        "deploy", "install", "upgrade",
    ]);
    if privileged {
        return Finding::new(
            Domain::ShellExec,
            Risk::High,
            "container-privileged",
            format!("{name} gives a container the host (privileged, host root or docker socket)"),
        );
    }
    if destructive {
        return Finding::new(
            Domain::ShellExec,
            Risk::High,
            "infra-destructive",
            format!("{name} deletes, stops or destroys resources"),
        );
    }
    if read {
        return Finding::new(
            Domain::ShellExec,
            Risk::Low,
            "infra-query",
            format!("{name} only reads resources"),
        );
    }
    if name == "terraform" && has(&["apply", "import"])
        || matches!(name, "kubectl" | "k" | "oc" | "helm")
            && has(&[
                "apply", "create", "replace", "patch", "install", "upgrade", "rollout", "scale",
                "set", "edit",
            ])
    {
        return Finding::new(
            Domain::ShellExec,
            Risk::High,
            "infra-change",
            format!("{name} changes live infrastructure"),
        );
    }
    Finding::new(
        Domain::ShellExec,
        Risk::Medium,
        "infra",
        format!("{name} {}", words.first().unwrap_or(&"")),
    )
}

fn oath_finding(args: &[Word]) -> Finding {
    let words: Vec<&str> = args
        .iter()
        .map(|a| a.text.as_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    let sub = words.first().copied().unwrap_or("");
    let second = words.get(1).copied().unwrap_or("");
    let changes = match sub {
        "install" | "uninstall" => true,
        "errors" => matches!(second, "reset" | "resolve" | "clear"),
        "phase" => matches!(second, "set"),
        "config" => !matches!(second, "" | "show" | "validate" | "schema" | "path" | "get"),
        "kpt" => matches!(second, "apply"),
        _ => false,
    };
    if changes {
        Finding::new(
            Domain::Global,
            Risk::High,
            "oath-cli",
            format!(
                "`oath {sub} {second}` changes oath's own setup; people run this through the `oath` CLI, not the agent"
            ),
        )
    } else {
        Finding::new(
            Domain::Global,
            Risk::Low,
            "oath-query",
            format!("`oath {sub}` only reads"),
        )
    }
}

/// Returns whether a URL points at this machine.
pub(crate) fn is_loopback_url(u: &str) -> bool {
    let host = url_host(u);
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "[::1]"
        || host == "0.0.0.0"
}

/// Returns the host of a URL (or of `host/path` without a scheme), lowercase.
pub(crate) fn url_host(u: &str) -> String {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let hostport = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = hostport.rsplit('@').next().unwrap_or(hostport);
    let host = if hostport.starts_with('[') {
        hostport
            .split(']')
            .next()
            .map(|h| format!("{h}]"))
            .unwrap_or_default()
    } else {
        hostport.split(':').next().unwrap_or("").to_owned()
    };
    host.to_ascii_lowercase()
}

/// Returns whether a URL's path names payments, orders or trading.
pub(crate) fn is_payment_url(u: &str) -> bool {
    payment_url(u).is_some()
}

/// Classifies a URL's path: `Some(true)` when it names moving money (payments, checkout,
/// transfers, trading), `Some(false)` when it names orders (a common REST resource).
pub(crate) fn payment_url(u: &str) -> Option<bool> {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => "",
    };
    let mut found = None;
    for seg in path
        .to_ascii_lowercase()
        .split(['/', '?', '&', '=', '.', '-', '_'])
    {
        match seg {
            "pay" | "payment" | "payments" | "checkout" | "buy" | "sell" | "trade" | "trades"
            | "trading" | "purchase" | "transfer" | "transfers" | "withdraw" | "withdrawal"
            | "withdrawals" | "charge" | "charges" | "payout" | "payouts" => return Some(true),
            "order" | "orders" => found = Some(false),
            _ => {}
        }
    }
    found
}

fn url_file_name(u: &str) -> String {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    match path.find('/') {
        Some(i) => {
            let name = path[i..].rsplit('/').next().unwrap_or("");
            if name.is_empty() {
                "index.html".into()
            } else {
                name.to_owned()
            }
        }
        None => "index.html".into(),
    }
}
