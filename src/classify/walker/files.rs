//! Handlers for file tools whose arguments are a language of their own: sed scripts, find
//! expressions, copies with sources, destination and remote hosts, dd operands, permission
//! modes (find is in `files/find.rs`, chmod and chown in `files/perm.rs`, archives in
//! `archives.rs`).

mod find;
mod perm;

use crate::shell::Word;

use super::super::args::scan;
use super::super::effect::Effect;
use super::super::pack::schema::{Act, PathNote};
use super::super::paths::{self, Target, Zone};
use super::super::rule::Finding;
use super::super::{Domain, Risk};
use super::apply::Handled;
use super::{Leaf, Mods, Walker};

impl Walker<'_> {
    /// sed: files edited in place or read; files the script writes (`w`); commands it runs
    /// (`e`).
    pub(super) fn h_sed(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let args = c.args();
        let sc = scan(
            args,
            &["-e", "--expression", "-f", "--file", "-l", "--line-length"],
            false,
        );
        // `-i`, `-iSUFFIX`, `--in-place[=SUFFIX]` and any beginning of it (`--in-pl`): getopt
        // takes an unambiguous beginning of a long option.
        let in_place = sc.has(&["-i", "--in-place"])
            || args.iter().any(|a| {
                let name = a.text.split('=').next().unwrap_or("");
                a.text.starts_with("-i") || name.len() >= 3 && "--in-place".starts_with(name)
            });
        let has_script_opt = sc.has(&["-e", "--expression", "-f", "--file"]);
        if sc.has(&["-f", "--file"]) {
            self.found(
                c,
                Effect::NotUnderstood,
                "sed-script-file",
                "sed runs a script file, whose commands can write files or run programs",
                "",
            );
        }
        let scripts: Vec<String> = if has_script_opt {
            sc.values(&["-e", "--expression"])
                .map(|w| w.text.clone())
                .collect()
        } else {
            sc.pos.first().map(|w| w.text.clone()).into_iter().collect()
        };
        let files: Vec<&Word> = sc
            .pos
            .iter()
            .skip(if has_script_opt { 0 } else { 1 })
            .copied()
            .collect();
        for script in &scripts {
            if sed_executes(script) {
                self.act(
                    c,
                    Act::ShellUnknownCode,
                    "sed-exec",
                    "the sed script runs shell commands (e flag or command)",
                );
            }
            // `w FILE` empties the file when sed starts.
            for out in sed_writes(script) {
                let tg = self.target(&Word::lit(out));
                self.found(
                    c,
                    Effect::Write(tg, Some(PathNote::Overwrites)),
                    "sed-script-writes",
                    "",
                    "the sed script writes",
                );
            }
        }
        if in_place {
            for w in &files {
                let tg = self.target(w);
                self.found(c, Effect::Write(tg, None), "write", "", "edits in place");
            }
            if files.is_empty() {
                let tg = paths::target(None, self.ctx);
                self.found(c, Effect::Write(tg, None), "write", "", "edits in place");
            }
        } else {
            let targets: Vec<Target> = files.iter().map(|w| self.target(w)).collect();
            self.read_paths(c.t(), &targets, "reads", leaf);
        }
    }

    /// fd: `-x/--exec CMD` and `-X/--exec-batch CMD` run a command on what it finds.
    pub(super) fn h_fd(&mut self, c: &Handled<'_, '_, '_>) {
        let args = c.args();
        // `-x CMD`, `--exec CMD`, `--exec=CMD`, and a cluster holding `x` (`-Hx CMD`, `-xrm`):
        // the command is what follows (a glued rest first).
        let exec = args.iter().enumerate().find_map(|(i, a)| {
            let t = a.text.as_str();
            if matches!(t, "-x" | "--exec" | "-X" | "--exec-batch") {
                return Some((i, None));
            }
            if let Some(v) = t
                .strip_prefix("--exec=")
                .or_else(|| t.strip_prefix("--exec-batch="))
            {
                return Some((i, Some(v)));
            }
            if t.starts_with('-') && !t.starts_with("--") {
                // Letters up to one that takes a value (`-E`, `-e`, `-t`…: the rest is it).
                for (k, ch) in t[1..].char_indices() {
                    if "eEtdScjoaAg".contains(ch) {
                        return None;
                    }
                    if matches!(ch, 'x' | 'X') {
                        let rest = &t[1 + k + 1..];
                        return Some((i, (!rest.is_empty()).then_some(rest)));
                    }
                }
            }
            None
        });
        if let Some((i, glued)) = exec {
            let first = glued.map(|v| Word {
                text: v.into(),
                ..args[i].clone()
            });
            let cmd: Vec<Word> = first
                .into_iter()
                .chain(args[i + 1..].iter().cloned())
                .collect();
            let mods = Mods {
                under_find: true,
                dynamic_args: true,
                ..Mods::default()
            };
            let _ = self.command(c.s, &cmd, c.depth, None, mods);
            return;
        }
        let mut f = Finding::new(Domain::FileRead, Risk::Low, "read", "lists files");
        f.effect = Some("read()".into());
        self.push(c.t(), f);
    }

    /// cp, mv, ln, install, rsync, scp: sources, destination, remote hosts, deletions.
    pub(super) fn h_copy(&mut self, c: &Handled<'_, '_, '_>) {
        let (name, mods) = (c.name, c.mods);
        let sc = &c.level.own.scan;
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
            // One pattern (`.claude/{x,settings}.json`) is several words: its last is where
            // they go.
            None if pos.len() == 1 && !pos[0].literal => pos.first().copied().cloned(),
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
                .any(|w| !is_remote(w) && self.carries_credentials(&self.target(w)));
            let upload = dest.as_ref().is_some_and(is_remote);
            if secret && upload {
                self.found(
                    c,
                    Effect::Exfiltrate,
                    "exfiltration",
                    &format!("{name} copies credentials to a remote host"),
                    "",
                );
            } else if upload {
                self.act(
                    c,
                    Act::NetRemote,
                    "remote-copy",
                    &format!("{name} copies files onto another host (it overwrites what is there)"),
                );
            } else {
                self.act(
                    c,
                    Act::NetCopy,
                    "remote-copy",
                    &format!("{name} copies files from a remote host"),
                );
            }
            if !upload && let Some(d) = &dest {
                self.copy_dest(c, d, &sources, "copies into");
            }
            if sc.has(&["--remove-source-files"]) {
                for w in sources.iter().filter(|w| !is_remote(w)) {
                    let tg = self.target(w);
                    self.found(
                        c,
                        Effect::Delete {
                            target: tg,
                            recursive: true,
                            note: None,
                        },
                        "move",
                        "",
                        "moves away",
                    );
                }
            }
            return;
        }
        if name == "mv" || name == "rsync" && sc.has(&["--remove-source-files"]) {
            for w in &sources {
                let tg = self.target(w);
                let judged =
                    tg.protected || tg.holds_protected || !tg.in_project() && tg.path.is_some();
                if judged {
                    let effect = Effect::Delete {
                        target: tg,
                        recursive: true,
                        note: Some(PathNote::MovesAway),
                    };
                    let f = self.own(&effect, "move", "", "moves away");
                    if f.risk >= Risk::High {
                        self.found(c, effect, "move", "", "moves away");
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
            self.found(
                c,
                Effect::Delete {
                    target: tg,
                    recursive: true,
                    note: None,
                },
                "rsync-delete",
                "",
                "rsync --delete removes extra files in",
            );
        }
        // Links, and copies made as links (`cp -l`, `cp -s`), write through to what they name.
        if name == "ln" || name == "cp" && sc.has(&["-l", "--link", "-s", "--symbolic-link"]) {
            // A link to oath's or Claude Code's settings is a way to write them (through
            // the link, or the same inode for a hard link).
            for w in &sources {
                let mut tg = self.target(w);
                // (`/` and the home itself hold everything: a link to them is no such way.)
                let everything = tg.zone == Zone::Root || tg.path.as_deref() == self.ctx.home();
                if tg.protected || tg.holds_protected && !everything {
                    tg.protected = true;
                    self.found(c, Effect::Write(tg, None), "write", "", "links to");
                }
            }
        }
        // Copying, moving or linking credentials reads them, wherever the copy goes.
        let copy_verb = match name {
            "mv" => "moves",
            "ln" => "links",
            "install" => "installs",
            _ => "copies",
        };
        let mut copied: Vec<(&Word, Target)> = Vec::new();
        for w in &sources {
            let tg = self.target(w);
            if self.carries_credentials(&tg) {
                let tg = self.as_credentials(tg);
                self.found(c, Effect::Read(tg.clone()), "read", "", copy_verb);
                copied.push((w, tg));
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
                // Into a folder, each source lands at `folder/its name`: that is what a
                // protected file would be replaced by (`mv /tmp/settings.json .claude/`).
                let into_dir = into_folder(sc, d, sources.len(), &tg);
                // `cp -rT DIR dest`: the folder's contents become dest's.
                if sc.has(&["-T", "--no-target-directory"])
                    && (tg.holds_protected || tg.path.as_deref() == Some(self.ctx.project_root()))
                {
                    self.found(
                        c,
                        Effect::NotUnderstood,
                        "write-unknown-path",
                        &format!("{name} -T puts a folder's contents into a folder that holds oath's or Claude Code's settings"),
                        "",
                    );
                }
                if into_dir && d.literal {
                    for w in &sources {
                        // rsync copies a folder named with a trailing slash as its contents.
                        let base = if name == "rsync" && w.text.ends_with('/') {
                            "."
                        } else {
                            w.text
                                .trim_end_matches('/')
                                .rsplit('/')
                                .next()
                                .unwrap_or("")
                        };
                        if !w.literal || base.is_empty() || base == "." || base == ".." {
                            // The project root holds `.claude/` too: a folder's content
                            // copied into it may carry one.
                            if tg.holds_protected
                                || tg.path.as_deref() == Some(self.ctx.project_root())
                            {
                                self.found(
                                    c,
                                    Effect::NotUnderstood,
                                    "write-unknown-path",
                                    &format!("{name} puts files whose names are computed into a folder that holds oath's or Claude Code's settings"),
                                    "",
                                );
                            }
                            continue;
                        }
                        let joined = Word::lit(format!("{}/{base}", d.text.trim_end_matches('/')));
                        let mut inner = self.target(&joined);
                        // A folder landing where settings live replaces them
                        // (`cp -r stage/.claude .`): it writes the protected files.
                        inner.protected |= inner.holds_protected;
                        if inner.protected {
                            self.found(c, Effect::Write(inner, None), "write", "", verb);
                        }
                    }
                }
                self.copy_dest(c, d, &sources, verb);
            }
            None => {
                let mut f = Finding::new(
                    Domain::FileWrite,
                    Risk::Medium,
                    "write-unknown-path",
                    format!("{name} without a destination"),
                );
                f.effect = Some("write(?)".into());
                self.push(c.t(), f);
            }
        }
        // The copies hold the credentials too (`cp ~/.ssh/id_rsa k.txt && curl -T k.txt …`),
        // once written (the write itself is judged as the folder it lands in).
        let dest_into_dir = dest.as_ref().is_some_and(|d| {
            let tg = self.target(d);
            into_folder(sc, d, sources.len(), &tg)
        });
        for (w, tg) in copied {
            let Some(d) = &dest else {
                break;
            };
            let landing = if dest_into_dir {
                let base = if name == "rsync" && w.text.ends_with('/') {
                    ""
                } else {
                    w.text
                        .trim_end_matches('/')
                        .rsplit('/')
                        .next()
                        .unwrap_or("")
                };
                if base.is_empty() || base == "." || base == ".." {
                    d.clone()
                } else {
                    Word {
                        text: format!("{}/{base}", d.text.trim_end_matches('/')),
                        ..d.clone()
                    }
                }
            } else {
                d.clone()
            };
            let dt = self.target(&landing);
            self.taint(&c.s.text, &tg, &dt);
        }
    }

    /// Pushes the write of a copy's destination. What lands on an existing file replaces it
    /// (unless the program is told to keep it: `-n`, `-i`, a backup, `ln` without `-f`);
    /// into a folder each source lands at `folder/its name`, or anywhere in the folder when
    /// its name is not known (a glob, `dir/.`), and such a landing is named beside the
    /// folder only when replacing it loses what writing the folder does not.
    fn copy_dest(&mut self, c: &Handled<'_, '_, '_>, d: &Word, sources: &[&Word], verb: &str) {
        let sc = &c.level.own.scan;
        let tg = self.target(d);
        let replaces = replaces_existing(c.name, sc);
        // A link made at a path is that path: what a link there led to is not written (the
        // folders on the way are followed). Into a folder, the folder's own link is.
        let link =
            c.name == "ln" || c.name == "cp" && sc.has(&["-l", "--link", "-s", "--symbolic-link"]);
        let at_path = |note: Option<PathNote>| match (link, note) {
            (false, n) => n,
            (true, Some(PathNote::Overwrites)) => Some(PathNote::ReplacesWithLink),
            (true, _) => Some(PathNote::MakesLink),
        };
        if !into_folder(sc, d, sources.len(), &tg) {
            let note = at_path(replaces.then_some(PathNote::Overwrites));
            self.found(c, Effect::Write(tg, note), "write", "", verb);
            return;
        }
        let mut landings: Vec<Target> = Vec::new();
        for w in sources.iter().filter(|_| replaces && d.literal) {
            // A remote source (`host:dir/f`) lands under the name after its host.
            let path = match w.text.split_once(':') {
                Some((host, rest)) if !host.is_empty() && !host.contains('/') => rest,
                _ => w.text.as_str(),
            };
            let base = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            // rsync copies a folder named with a trailing slash as its contents.
            let contents = c.name == "rsync" && path.ends_with('/');
            let landing = if !w.literal || contents || matches!(base, "" | "." | "..") {
                tg.clone()
            } else {
                self.target(&Word::lit(format!(
                    "{}/{base}",
                    d.text.trim_end_matches('/')
                )))
            };
            if !landings.iter().any(|l| l.path == landing.path) {
                landings.push(landing);
            }
        }
        // Only contents land (`rsync -a src/ dst/`, `cp -r src/. dst`): they go over the
        // folder's own files.
        if landings.len() == 1 && landings[0].path == tg.path {
            let effect = Effect::Write(tg, at_path(Some(PathNote::Overwrites)));
            self.found(c, effect, "write", "", verb);
            return;
        }
        let folder = self.own(&Effect::Write(tg.clone(), None), "write", "", verb);
        self.found(c, Effect::Write(tg, None), "write", "", verb);
        // A protected landing is judged above; outside the project git keeps nothing to ask.
        let judged = |l: &Target| !l.in_project() || l.protected || l.holds_protected;
        for landing in landings.into_iter().filter(|l| !judged(l)) {
            let effect = Effect::Write(landing, at_path(Some(PathNote::Overwrites)));
            let f = self.own(&effect, "write", "", verb);
            if f.kind > folder.kind {
                self.found(c, effect, "write", "", verb);
            }
        }
    }

    /// dd: `of=` is written (a device is destroyed), `if=` read when it is a device or a
    /// credential.
    pub(super) fn h_dd(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let mut any = false;
        let mut read_secret: Option<Target> = None;
        // dd truncates what it writes unless told to append (`oflag=append conv=notrunc`);
        // `conv=notrunc` alone still writes over what the file held.
        let has = |key: &str, flag: &str| {
            c.args().iter().any(|a| {
                a.text
                    .strip_prefix(key)
                    .is_some_and(|v| v.split(',').any(|f| f == flag))
            })
        };
        let appends = has("oflag=", "append") && has("conv=", "notrunc");
        for a in c.args() {
            if let Some(v) = a.text.strip_prefix("of=") {
                any = true;
                let tg = self.target(&Word {
                    text: v.to_owned(),
                    ..a.clone()
                });
                if tg.zone == Zone::Device {
                    self.found(c, Effect::Wipe(tg), "disk-tool", "dd writes the device", "");
                } else {
                    let note = (!appends).then_some(PathNote::Overwrites);
                    self.found(c, Effect::Write(tg, note), "write", "", "dd writes");
                }
            } else if let Some(v) = a.text.strip_prefix("if=") {
                let tg = self.target(&Word {
                    text: v.to_owned(),
                    ..a.clone()
                });
                if tg.zone == Zone::Device || tg.credential {
                    leaf.produces.secret |= tg.credential;
                    if tg.credential {
                        read_secret = Some(tg.clone());
                    }
                    self.found(c, Effect::Read(tg), "read", "", "dd reads");
                }
            }
        }
        // `dd if=KEY of=f`: f is a copy of the credentials.
        if let Some(from) = read_secret {
            for a in c.args() {
                if let Some(v) = a.text.strip_prefix("of=") {
                    let dest = self.target(&Word {
                        text: v.to_owned(),
                        ..a.clone()
                    });
                    self.taint(&c.s.text, &from, &dest);
                }
            }
        }
        if !any {
            self.act(c, Act::ToolRun, "dd", "dd copies data to stdout");
        }
    }
}

/// Returns whether a copy, move or link replaces a file already at its destination: `ln`
/// only with `-f`; none of them when told not to (`-n`, `-i` with no one to answer, a
/// backup of what was there, rsync's `--ignore-existing` or a dry run).
fn replaces_existing(name: &str, sc: &super::super::args::Scan<'_>) -> bool {
    let keeps: &[&str] = match name {
        "ln" if !sc.has(&["-f", "--force"]) => return false,
        "ln" | "install" => &["-i", "--interactive", "-b", "--backup"],
        "cp" | "mv" => &[
            "-n",
            "--no-clobber",
            "-i",
            "--interactive",
            "-b",
            "--backup",
            "--attributes-only",
        ],
        "rsync" => &[
            "-n",
            "--dry-run",
            "--list-only",
            "--ignore-existing",
            "-b",
            "--backup",
            "--append",
            "--append-verify",
        ],
        _ => &[],
    };
    !sc.has(keeps)
}

/// Returns whether a copy puts its sources into the folder `d` (each at `d/its name`)
/// rather than making `d` the copy.
fn into_folder(sc: &super::super::args::Scan<'_>, d: &Word, sources: usize, tg: &Target) -> bool {
    !sc.has(&["-T", "--no-target-directory"])
        && (sc.has(&["-t", "--target-directory"])
            || d.text.ends_with('/')
            || matches!(d.text.as_str(), "." | "..")
            || sources > 1
            || tg.path.as_deref().is_some_and(std::path::Path::is_dir))
}

/// Returns whether a sed script runs shell commands: GNU sed's `e` command and the `e` flag
/// of `s///`.
fn sed_executes(script: &str) -> bool {
    let trimmed = script.trim();
    sed_parse(script).executes
        || trimmed.starts_with('e')
        || trimmed.contains(";e ")
        || trimmed.contains("\ne ")
        || {
            // s/x/y/e or s|x|y|ge
            let b = trimmed.as_bytes();
            if b.len() > 3 && b[0] == b's' {
                let d = b[1];
                let parts: Vec<&[u8]> = b[2..].split(|ch| *ch == d).collect();
                parts.len() >= 3 && parts[2].contains(&b'e')
            } else {
                false
            }
        }
}

/// Returns the files a sed script writes: the `w`/`W` commands and the `w` flag of `s///`,
/// whose file name runs to the end of the line.
fn sed_writes(script: &str) -> Vec<String> {
    sed_parse(script).writes
}

/// What a sed script's commands do, read after their addresses.
#[derive(Debug, Default)]
struct SedScript {
    /// Files written (`w`, `W`, the `w` flag of `s///`).
    writes: Vec<String>,
    /// Whether it runs shell commands (`e`, the `e` flag of `s///`).
    executes: bool,
}

fn sed_parse(script: &str) -> SedScript {
    let mut parsed = SedScript::default();
    let out = &mut parsed.writes;
    for line in script.lines() {
        let mut rest = line;
        loop {
            const SEPS: [char; 6] = [' ', '\t', ';', '{', '}', '!'];
            rest = skip_address(rest.trim_start_matches(SEPS)).trim_start_matches(SEPS);
            let mut chars = rest.chars();
            let Some(cmd) = chars.next() else { break };
            match cmd {
                'e' => {
                    parsed.executes = true;
                    break;
                }
                'w' | 'W' => {
                    let file = chars.as_str().trim();
                    if !file.is_empty() {
                        out.push(file.to_owned());
                    }
                    break;
                }
                's' | 'y' => {
                    let Some(d) = chars.next() else { break };
                    // Two delimited parts, escapes skipped; the flags follow.
                    let flags = after_delimited(after_delimited(chars.as_str(), d), d);
                    let stop = flags.find([';', '}']).unwrap_or(flags.len());
                    if cmd == 's'
                        && flags[..stop]
                            .split('w')
                            .next()
                            .is_some_and(|f| f.contains('e'))
                    {
                        parsed.executes = true;
                    }
                    if cmd == 's'
                        && let Some(w) = flags[..stop].find('w')
                    {
                        let file = flags[w + 1..].trim();
                        if !file.is_empty() {
                            out.push(file.to_owned());
                        }
                        break;
                    }
                    rest = &flags[stop..];
                }
                _ => match rest.find(';') {
                    Some(i) => rest = &rest[i + 1..],
                    None => break,
                },
            }
            if rest.is_empty() {
                break;
            }
        }
    }
    parsed
}

/// Skips a sed address (`12`, `$`, `/re/`, `\%re%`, `/re/I`, ranges, `+N`, steps, `!`) before
/// a command.
fn skip_address(s: &str) -> &str {
    let mut rest = s;
    loop {
        let t = rest.trim_start();
        let regex = if let Some(r) = t.strip_prefix('/') {
            Some(after_delimited(r, '/'))
        } else if let Some(r) = t.strip_prefix('\\') {
            let mut cs = r.chars();
            Some(cs.next().map_or("", |d| after_delimited(cs.as_str(), d)))
        } else {
            None
        };
        if let Some(r) = regex {
            // The regex's flags: `I` (any case), `M` (multi-line).
            rest = r.trim_start_matches(['I', 'M']);
        } else if t.starts_with(|ch: char| ch.is_ascii_digit() || matches!(ch, '$' | '~' | '+')) {
            rest = t.trim_start_matches(|ch: char| {
                ch.is_ascii_digit() || matches!(ch, '$' | '~' | '+')
            });
        } else if let Some(r) = t.strip_prefix([',', '!']) {
            rest = r;
        } else {
            return t;
        }
    }
}

/// The text after a delimited part (`re/` of `/re/`), escapes skipped; empty when unclosed.
fn after_delimited(s: &str, d: char) -> &str {
    let mut escaped = false;
    for (i, ch) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == d {
            return &s[i + ch.len_utf8()..];
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_write_files() {
        for (script, files) in [
            ("w .claude/settings.json", vec![".claude/settings.json"]),
            ("1,3w out.txt", vec!["out.txt"]),
            ("/x/w a b", vec!["a b"]),
            ("s/a/b/w out", vec!["out"]),
            ("s/a\\/w/b/gw o2", vec!["o2"]),
            ("p;w f1\ns/x/y/", vec!["f1"]),
            ("s/a/b/g", vec![]),
            ("s/w/W/", vec![]),
            ("y/abc/xyz/", vec![]),
            ("$!N;P;D", vec![]),
            ("1!w .claude/settings.json", vec![".claude/settings.json"]),
            (
                "1{w .claude/settings.json\n}",
                vec![".claude/settings.json"],
            ),
            ("$!{s/a/b/w out\n}", vec!["out"]),
            ("/x/Iw out", vec!["out"]),
            ("1,+3w out", vec!["out"]),
            ("\\%x%w out", vec!["out"]),
            ("/a\\/w/w out", vec!["out"]),
        ] {
            assert_eq!(sed_writes(script), files, "{script}");
        }
    }

    #[test]
    fn sed_scripts_that_run_commands() {
        assert!(sed_executes("e ls"));
        assert!(sed_executes("s/x/y/e"));
        assert!(!sed_executes("s/e/x/"));
        assert!(sed_executes("1e touch x"));
        assert!(sed_executes("1{e cmd\n}"));
        assert!(sed_executes("1s/x/cmd/e"));
        assert!(sed_executes("/x/!e date"));
        assert!(!sed_executes("1s/x/y/w e.txt"));
    }
}
