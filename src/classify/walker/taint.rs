//! Copies of credentials: a file copied, linked, archived or written from credentials holds
//! them too, for the rest of the line and of the session ([`super::super::Taint`]).
//!
//! Handlers that know a program's arguments (cp, tar, dd …) taint the files it makes
//! ([`Walker::taint`]); what flows through a pipeline into a file (`cat KEY > f`,
//! `base64 KEY | tee f`, `echo $TOKEN > f`) is found by [`line_facts`] before the line is
//! walked, whatever program passes it on. Words are resolved here too: `$HOME` and
//! `${HOME}` are the home the context knows; a symbolic link that leads to credentials is
//! one ([`Walker::marked`]).

use std::path::{Path, PathBuf};

use crate::shell::{self, RedirectKind, Script, Simple, Word};

use super::super::paths::{self, Target, Zone};
use super::super::secret_vars;
use super::super::{Classification, Context, Taint};
use super::{Walker, links};

/// Most copies of credentials one line records.
const MAX_TAINTS: usize = 256;

/// Returns `w` with `$HOME` and `${HOME}` replaced by the home folder the context knows,
/// when nothing else in it is computed (`@$HOME/.aws/credentials` is the home's file).
pub(super) fn home_expanded(w: &Word, ctx: &Context) -> Option<Word> {
    if w.literal || !w.subs.is_empty() || w.text.contains('`') || !w.text.contains("HOME") {
        return None;
    }
    let home = ctx.home()?.to_str()?;
    let mut out = String::with_capacity(w.text.len() + home.len());
    let mut rest = w.text.as_str();
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(r) = after.strip_prefix("{HOME}") {
            rest = r;
        } else if let Some(r) = after
            .strip_prefix("HOME")
            .filter(|r| !r.starts_with(|c: char| c == '_' || c.is_ascii_alphanumeric()))
        {
            rest = r;
        } else {
            return None;
        }
        out.push_str(home);
    }
    out.push_str(rest);
    if out.contains('{') {
        return None;
    }
    let glob = out.contains(['*', '?', '[']);
    Some(Word {
        text: out,
        literal: !glob,
        ..w.clone()
    })
}

/// Resolves a word to the path it names against `cwd` (None when it is computed at run
/// time, `$HOME` excepted).
pub(super) fn resolve_word(w: &Word, cwd: Option<&Path>, ctx: &Context) -> Target {
    let expanded = home_expanded(w, ctx);
    let w = expanded.as_ref().unwrap_or(w);
    if !w.literal
        && (w.text.contains('$')
            || w.text.contains('`')
            || !w.subs.is_empty()
            || w.text.starts_with('{'))
    {
        // Computed, but shaped like credentials whatever the computed parts turn out to be
        // (`/proc/$$/environ`, `/proc/$(pgrep node)/environ`, `~/.aws/$F`): those.
        let unknown = paths::target(None, ctx);
        return match computed_shape(&w.text, ctx) {
            Some(shape) => {
                let matched = paths::target(paths::resolve(&shape, false, cwd, ctx), ctx);
                if matched.credential {
                    paths::as_pattern(unknown, &matched)
                } else {
                    unknown
                }
            }
            None => unknown,
        };
    }
    let t = paths::target(paths::resolve(&w.text, !w.literal, cwd, ctx), ctx);
    if w.literal || t.credential {
        return t;
    }
    // A pattern that can match a protected path (`rm -rf .c*`) reaches it.
    let t = paths::through_pattern(t, &w.text, cwd, ctx);
    // A pattern judged by the folder it starts in (`/proc/*/environ` is `/proc`) holds
    // credentials when what it matches does (`~/.ssh/*`, `*.pem`, `/proc/*/environ`).
    let matched = paths::target(paths::resolve(&w.text, false, cwd, ctx), ctx);
    if matched.credential {
        paths::as_pattern(t, &matched)
    } else {
        t
    }
}

/// Returns the text of a computed word with each part computed at run time (`$X`, `${X}`,
/// `$$`, `$(…)`, `` `…` ``) replaced by `*`, and `$HOME` by the home the context knows: the
/// shape of every path it can turn out to be. None when a part does not end.
fn computed_shape(text: &str, ctx: &Context) -> Option<String> {
    let home = ctx.home().and_then(Path::to_str);
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        let start = i;
        let end = match b[i] {
            b'`' => i + 1 + text[i + 1..].find('`')? + 1,
            b'$' if b.get(i + 1) == Some(&b'(') => {
                let mut level = 0usize;
                let mut j = i + 1;
                loop {
                    match b.get(j)? {
                        // Quoted text inside is skipped (`$(pgrep -f 'a)')`).
                        q @ (b'\'' | b'"') => j += text[j + 1..].find(char::from(*q))? + 1,
                        b'(' => level += 1,
                        b')' => {
                            level -= 1;
                            if level == 0 {
                                break j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            b'$' if b.get(i + 1) == Some(&b'{') => i + 1 + text[i + 1..].find('}')? + 1,
            b'$' => {
                let rest = &b[i + 1..];
                let n = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                if n > 0 {
                    i + 1 + n
                } else if rest
                    .first()
                    .is_some_and(|c| b"$!?#@*-0123456789".contains(c))
                {
                    i + 2
                } else {
                    i + 1
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&text[last..start]);
        let part = &text[start..end];
        match home {
            Some(h) if matches!(part, "$HOME" | "${HOME}") => out.push_str(h),
            _ => out.push('*'),
        }
        i = end;
        last = end;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Returns a command's text for messages: its first 120 characters, in backquotes.
fn shown_command(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(120)
        .collect();
    let cut = if text.chars().count() > 120 {
        "…"
    } else {
        ""
    };
    format!("`{}{cut}`", one_line.trim())
}

/// Adds a taint to `list` (once per path, at most [`MAX_TAINTS`]).
fn add_taint(list: &mut Vec<Taint>, dest: &Target, from: &str, by: &str) {
    let Some(p) = dest.path.clone() else {
        return;
    };
    if matches!(dest.zone, Zone::Harmless | Zone::Network | Zone::Device)
        || dest.protected
        || list.len() >= MAX_TAINTS
        || list.iter().any(|t| t.path == p)
    {
        return;
    }
    let from: String = from.chars().take(200).collect();
    list.push(Taint {
        path: p,
        from,
        by: shown_command(by),
    });
}

impl Walker<'_> {
    /// Returns a resolved target marked as credentials when a copy this line made holds it
    /// (or it lies inside one), or when a symbolic link in its path leads to credentials.
    /// Links in its folders (on the file system, or made earlier on the line) are followed:
    /// the target is the place reached (`h/.ssh` with `h` a link to the home is `~/.ssh`);
    /// the last name too with `last` (a folder gone into or listed: `h/`, `h/*`, `cd h`).
    /// What a change through a link to the last name reaches is the policy's to follow.
    pub(super) fn marked(&self, t: Target, last: bool) -> Target {
        if t.protected {
            return t;
        }
        let Some(p) = t.path.clone() else {
            return t;
        };
        let t = self.through_links(t, last);
        if t.credential {
            return t;
        }
        match self
            .out
            .tainted
            .iter()
            .find(|x| paths::path_is_under(&p, &x.path))
        {
            Some(x) => paths::tainted_by(t, x),
            None => t,
        }
    }

    /// Returns whether a source of a copy or an archive carries credentials: it holds them,
    /// or a copy of them made on this line or earlier in the session lies in it.
    pub(super) fn carries_credentials(&self, t: &Target) -> bool {
        t.credential
            || paths::touches(t, &self.out.tainted).is_some()
            || paths::touches(t, self.ctx.tainted()).is_some()
    }

    /// Returns `t` marked as credentials (a folder holding a copy of them is read as them).
    pub(super) fn as_credentials(&self, mut t: Target) -> Target {
        t.credential = true;
        t
    }

    /// Records that the command `by` made `dest` from the credentials `from`: for the rest
    /// of the line, and (through [`Classification::tainted`]) of the session, `dest` and
    /// whatever lies inside it hold credentials.
    pub(super) fn taint(&mut self, by: &str, from: &Target, dest: &Target) {
        add_taint(&mut self.out.tainted, dest, &from.shown(), by);
    }
}

/// Classifies a shell line, copies of credentials included: what flows from credentials
/// into files ([`line_facts`]) is known before the line is walked, so a later command of
/// the line that reads, sends or copies such a file is judged as handling credentials;
/// every file the line makes from credentials is in [`Classification::tainted`].
pub(crate) fn classify_line(cmd: &str, ctx: &Context) -> Classification {
    let (streams, links) = line_facts(cmd, ctx);
    if streams.is_empty() && links.is_empty() {
        return super::classify_command(cmd, ctx);
    }
    let with = ctx
        .clone()
        .with_tainted(streams.clone())
        .with_made_links(links);
    let mut c = super::classify_command(cmd, &with);
    let mut all = streams;
    for t in c.tainted.drain(..) {
        if !all.iter().any(|x| x.path == t.path) && all.len() < MAX_TAINTS {
            all.push(t);
        }
    }
    c.tainted = all;
    c
}

/// Programs that use credentials to reach another system: what they print is the
/// system's answer, not the credentials (`curl --key k.pem https://x > out.json`).
const CREDENTIAL_USERS: &[&str] = &[
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "curl",
    "wget",
    "http",
    "https",
    "xh",
    "xhs",
    "httpie",
    "git",
    "gh",
    "glab",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "aws",
    "gcloud",
    "gsutil",
    "az",
    "terraform",
    "tofu",
    "ansible",
    "ansible-playbook",
    "psql",
    "mysql",
    "mongosh",
    "redis-cli",
    "ssh-keygen",
    "ssh-add",
];

/// Commands that run another one given after their options.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout",
    "stdbuf", "ionice", "chrt", "setsid", "unbuffer", "xargs",
];

/// Commands that print the whole environment without arguments.
const ENVIRONMENT_DUMPS: &[&str] = &["env", "printenv", "set", "export", "declare", "typeset"];

/// Programs that print their arguments.
const PRINTERS: &[&str] = &["echo", "printf", "print"];

/// Programs that print names or facts about files, not what is in them: their output names
/// credentials (for `cpio`, which archives what it is named) but holds none.
const NAMES_ONLY: &[&str] = &[
    "echo",
    "printf",
    "print",
    "ls",
    "find",
    "fd",
    "stat",
    "du",
    "wc",
    "file",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "tree",
    "exa",
    "eza",
    "test",
    "[",
];

/// Returns the base name of a simple command's program (wrappers and their options skipped)
/// and the index of its word.
fn program(s: &Simple) -> Option<(&str, usize)> {
    let mut i = 0;
    let mut wrapper = None;
    while let Some(w) = s.words.get(i) {
        let base = w.text.rsplit('/').next().unwrap_or("");
        if wrapper.is_some()
            && (w.text.starts_with('-')
                || w.text.contains('=') && !w.text.starts_with('=')
                || w.text.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        {
            i += 1;
            continue;
        }
        if WRAPPERS.contains(&base) {
            wrapper = Some((base, i));
            i += 1;
            continue;
        }
        return Some((base, i));
    }
    wrapper
}

/// What a pipeline carries from credentials so far.
#[derive(Default, Clone)]
struct Carried {
    /// Their content: what made it, as messages show it.
    content: Option<String>,
    /// Their names only (`find ~/.ssh`, `echo ~/.ssh/id_rsa`): `cpio` archives them.
    names: Option<String>,
}

/// The stream pass: one line's commands in order, with the working directory they run in.
struct Streams<'c> {
    ctx: &'c Context,
    cwd: Option<PathBuf>,
    out: Vec<Taint>,
    /// The links the line makes: each path and where it leads.
    links: Vec<(PathBuf, PathBuf)>,
}

/// Most links one line records.
const MAX_LINKS: usize = 64;

/// Returns the files a line writes from what flows out of credentials (a command that
/// reads a credential file, prints a secret variable or the environment, whose output, or a
/// later stage's in its pipeline, goes to a file: `>`, `>>`, `tee FILE`, `cpio -O FILE`;
/// programs that only use credentials to reach another system are not followed), and the
/// symbolic and hard links it makes (`ln -s ~ h`: `h` leads to the home for the whole line, so
/// `rm -rf h/.ssh` after it is judged as deleting `~/.ssh`).
fn line_facts(cmd: &str, ctx: &Context) -> (Vec<Taint>, Vec<(PathBuf, PathBuf)>) {
    // Nothing goes to a file without one of these, and no link is made without `ln` or
    // `cp` (`cp -s`, `cp -l`).
    let streams = cmd.contains('>') || cmd.contains("tee") || cmd.contains("cpio");
    let links = cmd.contains("ln") || cmd.contains("cp");
    if !streams && !links {
        return (Vec::new(), Vec::new());
    }
    let script = shell::parse(cmd);
    let mut st = Streams {
        ctx,
        cwd: Some(ctx.cwd().to_path_buf()),
        out: Vec::new(),
        links: Vec::new(),
    };
    // A line not understood is held whatever it writes.
    if script.problem.is_none() {
        st.script(&script, 0);
    }
    // The walk reads the same line next: it takes this parse.
    shell::keep_parsed(cmd, script);
    (st.out, st.links)
}

impl Streams<'_> {
    fn target(&self, w: &Word) -> Target {
        let t = resolve_word(w, self.cwd.as_deref(), self.ctx);
        if t.credential {
            return t;
        }
        let found = t
            .path
            .as_deref()
            .and_then(|p| self.out.iter().find(|x| paths::path_is_under(p, &x.path)))
            .cloned();
        match found {
            Some(x) => paths::tainted_by(t, &x),
            None => t,
        }
    }

    fn script(&mut self, script: &Script, depth: usize) {
        if depth > 4 {
            return;
        }
        for pl in &script.pipelines {
            let single = pl.stages.len() == 1 && pl.stages[0].len() == 1;
            let mut carried = Carried::default();
            for stage in &pl.stages {
                for s in stage {
                    for w in s.all_words() {
                        for sub in &w.subs {
                            self.script(&sub.script, depth + 1);
                        }
                    }
                    let name = program(s);
                    if let Some((n, i)) = name {
                        self.nested(s, n, i, depth);
                        if matches!(n, "ln" | "cp") {
                            let made =
                                links::made(n, &s.words[i + 1..], self.cwd.as_deref(), self.ctx);
                            for (p, to) in made {
                                if self.links.len() < MAX_LINKS
                                    && !self.links.iter().any(|(q, _)| *q == p)
                                {
                                    self.links.push((p, to));
                                }
                            }
                        }
                        if single && matches!(n, "cd" | "pushd") {
                            self.cwd = match s.words.get(i + 1) {
                                Some(d) => self.target(d).path,
                                None => self.ctx.home().map(Path::to_path_buf),
                            };
                        }
                    }
                    let now = self.mentions(s, name, 0);
                    if carried.content.is_none() {
                        carried.content = now.content;
                    }
                    if carried.names.is_none() {
                        carried.names = now.names;
                    }
                    self.writes_out(s, name, &carried);
                }
            }
        }
    }

    /// Follows the text of `bash -c` and `eval`.
    fn nested(&mut self, s: &Simple, name: &str, i: usize, depth: usize) {
        let rest = &s.words[i + 1..];
        let text = match name {
            "eval" if rest.iter().all(|w| w.literal) => rest
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            "bash" | "sh" | "zsh" | "dash" | "ksh" => {
                match rest
                    .iter()
                    .position(|w| w.text.starts_with('-') && w.text.contains('c'))
                {
                    Some(k) => match rest.get(k + 1) {
                        Some(w) if w.literal => w.text.clone(),
                        _ => return,
                    },
                    None => return,
                }
            }
            _ => return,
        };
        let script = shell::parse_nested(&text, depth + 1);
        if script.problem.is_none() {
            self.script(&script, depth + 1);
        }
    }

    /// Returns the credential file among a command's words (or read through `<`, or read
    /// by a command substitution in them), as messages show it.
    fn credential_word(&self, s: &Simple, args: &[Word]) -> Option<String> {
        for r in &s.redirects {
            if r.kind == RedirectKind::Read {
                let t = self.target(&r.target);
                if t.credential {
                    return Some(t.shown());
                }
            }
        }
        for w in args {
            // `if=KEY`, `--in=KEY`, `@KEY`: the value is the path.
            let candidates = [
                Some(w.text.as_str()),
                w.text.split_once('=').map(|(_, v)| v),
                w.text.strip_prefix('@'),
            ];
            for c in candidates.into_iter().flatten() {
                if c.is_empty() {
                    continue;
                }
                let t = self.target(&Word {
                    text: c.to_owned(),
                    ..w.clone()
                });
                if t.credential {
                    return Some(t.shown());
                }
            }
        }
        None
    }

    /// Returns what a command's output carries from credentials: a credential file it reads
    /// (its content, or only its name for programs that print names), a secret variable or
    /// the environment it prints, what a command substitution in its words read.
    fn mentions(&self, s: &Simple, name: Option<(&str, usize)>, depth: usize) -> Carried {
        let mut out = Carried::default();
        let Some((n, i)) = name else {
            return out;
        };
        if CREDENTIAL_USERS.contains(&n) {
            return out;
        }
        let args = &s.words[i + 1..];
        if PRINTERS.contains(&n) || n == "printenv" {
            for w in args.iter().chain(s.stdin_text.iter()) {
                if !w.literal
                    && let Some(v) = secret_vars::secret_in(&w.text)
                {
                    out.content = Some(format!("${v}"));
                    return out;
                }
                if n == "printenv" && secret_vars::is_secret_variable(&w.text) {
                    out.content = Some(format!("${}", w.text));
                    return out;
                }
            }
        }
        if ENVIRONMENT_DUMPS.contains(&n)
            && args
                .iter()
                .all(|a| matches!(a.text.as_str(), "-p" | "-x" | "-0" | "--null"))
        {
            out.content = Some("the environment".into());
            return out;
        }
        if let Some(v) = s
            .stdin_text
            .as_ref()
            .filter(|w| !w.literal)
            .and_then(|w| secret_vars::secret_in(&w.text))
        {
            out.content = Some(format!("${v}"));
            return out;
        }
        // A here-document names what `cpio` archives.
        if n == "cpio"
            && let Some(w) = s.stdin_text.as_ref().filter(|w| w.literal)
        {
            let names: Vec<Word> = w.text.split_whitespace().map(Word::lit).collect();
            if let Some(shown) = self.credential_word(s, &names) {
                out.names = Some(shown);
            }
        }
        if let Some(shown) = self.credential_word(s, args) {
            if NAMES_ONLY.contains(&n) {
                out.names = Some(shown);
            } else {
                out.content = Some(shown);
                return out;
            }
        }
        // What a command substitution in its words reads (four levels deep at most).
        if depth < 4 {
            for sub in args.iter().flat_map(|w| &w.subs) {
                for inner in sub
                    .script
                    .pipelines
                    .iter()
                    .flat_map(|p| p.stages.iter().flatten())
                {
                    if out.content.is_none() {
                        out.content = self.mentions(inner, program(inner), depth + 1).content;
                    }
                }
            }
        }
        out
    }

    /// Taints the files a command writes what it carries: its output redirected to a file,
    /// `tee`'s files, `cpio`'s archive or pass-through folder (which archive the names).
    fn writes_out(&mut self, s: &Simple, name: Option<(&str, usize)>, carried: &Carried) {
        if let Some(from) = &carried.content {
            for r in &s.redirects {
                if matches!(r.kind, RedirectKind::Write | RedirectKind::Append)
                    && matches!(r.fd, None | Some(1))
                {
                    let t = self.target(&r.target);
                    add_taint(&mut self.out, &t, from, &s.text);
                }
            }
        }
        let Some((n, i)) = name else {
            return;
        };
        let args = &s.words[i + 1..];
        let mut dests: Vec<Word> = Vec::new();
        let from = match n {
            "tee" => {
                dests.extend(args.iter().filter(|a| !a.text.starts_with('-')).cloned());
                carried.content.as_ref()
            }
            "cpio" => {
                let pass = args.iter().any(|a| {
                    a.text == "--pass-through"
                        || a.text.starts_with('-')
                            && !a.text.starts_with("--")
                            && a.text.contains('p')
                });
                let mut it = args.iter();
                while let Some(a) = it.next() {
                    let t = a.text.as_str();
                    if matches!(t, "-F" | "-O" | "--file") {
                        dests.extend(it.next().cloned());
                    } else if let Some(v) = t
                        .strip_prefix("--file=")
                        .or_else(|| t.strip_prefix("-F").filter(|v| !v.is_empty()))
                        .or_else(|| t.strip_prefix("-O").filter(|v| !v.is_empty()))
                    {
                        dests.push(Word {
                            text: v.to_owned(),
                            ..a.clone()
                        });
                    } else if pass && !t.starts_with('-') {
                        dests.push(a.clone());
                    }
                }
                // cpio archives the files it is named: their names are enough; its output
                // (`cpio -o > k.cpio`) holds them.
                let from = carried.names.as_ref().or(carried.content.as_ref());
                if let Some(f) = from {
                    for r in &s.redirects {
                        if matches!(r.kind, RedirectKind::Write | RedirectKind::Append)
                            && matches!(r.fd, None | Some(1))
                        {
                            let t = self.target(&r.target);
                            add_taint(&mut self.out, &t, f, &s.text);
                        }
                    }
                }
                from
            }
            _ => None,
        };
        let Some(from) = from.cloned() else {
            return;
        };
        for w in &dests {
            let t = self.target(w);
            add_taint(&mut self.out, &t, &from, &s.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context::for_project(Path::new("/home/dev/project"), Some(Path::new("/home/dev")))
    }

    fn tainted(cmd: &str) -> Vec<String> {
        let c = classify_line(cmd, &ctx());
        c.tainted
            .iter()
            .map(|t| t.path.display().to_string())
            .collect()
    }

    #[test]
    fn home_is_known_in_words() {
        let ctx = ctx();
        for (text, want) in [
            ("$HOME/.ssh/id_rsa", Some("/home/dev/.ssh/id_rsa")),
            (
                "${HOME}/.aws/credentials",
                Some("/home/dev/.aws/credentials"),
            ),
            ("@$HOME/x", Some("@/home/dev/x")),
            ("$HOMEDIR/x", None),
            ("$HOME/$X", None),
            ("$HOME_X", None),
        ] {
            let w = Word {
                text: text.into(),
                literal: false,
                ..Word::default()
            };
            assert_eq!(
                home_expanded(&w, &ctx).map(|w| w.text),
                want.map(str::to_owned),
                "{text}"
            );
        }
    }

    #[test]
    fn computed_words_shaped_like_credentials_hold_them() {
        let ctx = ctx();
        for (text, shape) in [
            ("/proc/$$/environ", Some("/proc/*/environ")),
            ("/proc/$PPID/environ", Some("/proc/*/environ")),
            ("/proc/${PID}/environ", Some("/proc/*/environ")),
            ("/proc/$(pgrep -f 'a)b')/environ", Some("/proc/*/environ")),
            ("/proc/`pgrep node`/environ", Some("/proc/*/environ")),
            ("$HOME/.aws/$F", Some("/home/dev/.aws/*")),
            ("$X", Some("*")),
            ("/proc/$(x/environ", None),
        ] {
            assert_eq!(computed_shape(text, &ctx).as_deref(), shape, "{text}");
        }
        for (text, credential) in [
            ("/proc/$$/environ", true),
            ("/proc/$(pgrep claude)/environ", true),
            ("$HOME/.aws/$F", true),
            ("$DIR/.ssh/id_ed25519", true),
            ("/proc/$$/status", false),
            ("$OUT/report.txt", false),
            ("$X", false),
        ] {
            let w = Word {
                text: text.into(),
                literal: false,
                ..Word::default()
            };
            let t = resolve_word(&w, Some(ctx.cwd()), &ctx);
            assert_eq!(t.credential, credential, "{text}");
            assert!(t.path.is_none(), "{text} stays computed");
        }
    }

    #[test]
    fn streams_from_credentials_taint_their_files() {
        for (cmd, want) in [
            ("cat ~/.ssh/id_rsa > k.txt", vec!["/home/dev/project/k.txt"]),
            (
                "base64 ~/.aws/credentials >> notes/c.b64",
                vec!["/home/dev/project/notes/c.b64"],
            ),
            (
                "cat ~/.ssh/id_rsa | base64 | tee a.txt b.txt",
                vec!["/home/dev/project/a.txt", "/home/dev/project/b.txt"],
            ),
            ("tee k.txt < ~/.ssh/id_rsa", vec!["/home/dev/project/k.txt"]),
            (
                "echo $GITHUB_TOKEN > t.txt",
                vec!["/home/dev/project/t.txt"],
            ),
            (
                "printenv AWS_SECRET_ACCESS_KEY > t.txt",
                vec!["/home/dev/project/t.txt"],
            ),
            ("env > e.txt", vec!["/home/dev/project/e.txt"]),
            (
                "cd notes && cat ~/.netrc > n",
                vec!["/home/dev/project/notes/n"],
            ),
            (
                "sudo cat /root/.ssh/id_ed25519 > k",
                vec!["/home/dev/project/k"],
            ),
            (
                "bash -c 'cat ~/.ssh/id_rsa > k'",
                vec!["/home/dev/project/k"],
            ),
            (
                "echo \"$(cat ~/.ssh/id_rsa)\" > k",
                vec!["/home/dev/project/k"],
            ),
            (
                "cat ~/.ssh/id_rsa > a; cat a > b",
                vec!["/home/dev/project/a", "/home/dev/project/b"],
            ),
            (
                "echo ~/.ssh/id_rsa | cpio -o -O k.cpio",
                vec!["/home/dev/project/k.cpio"],
            ),
            ("cat ~/.ssh/id_rsa > /dev/null", vec![]),
            ("cat README.md > k.txt", vec![]),
            ("curl --key key.pem https://example.com > out.json", vec![]),
            ("echo $HOME > h.txt", vec![]),
            ("ls", vec![]),
        ] {
            assert_eq!(tainted(cmd), want, "{cmd}");
        }
    }
}
