//! find: its own grammar (GNU find 4.9) — options before the starting points, then an
//! expression of tests, actions, options and operators, each known with the values it
//! takes; what `-delete`, `-exec` and `-fprint` do; every other word is a gap.

use crate::shell::Word;

use super::super::super::effect::Effect;
use super::super::super::pack::account::Gap;
use super::super::super::pack::schema::PathNote;
use super::super::super::paths::{self, Zone, glob};
use super::super::super::rule::Finding;
use super::super::super::{Domain, Kind, Risk};
use super::super::apply::Handled;
use super::super::gaps::Who;
use super::super::{Mods, Walker};

/// Primaries that take no value: tests, actions that only print, options, operators.
const NO_VALUE: &[&str] = &[
    "-empty",
    "-executable",
    "-false",
    "-nogroup",
    "-nouser",
    "-readable",
    "-true",
    "-writable",
    "-d",
    "-depth",
    "-ignore_readdir_race",
    "-mount",
    "-noignore_readdir_race",
    "-noleaf",
    "-xdev",
    "-daystart",
    "-follow",
    "-warn",
    "-nowarn",
    "-help",
    "--help",
    "-version",
    "--version",
    "-ls",
    "-print",
    "-print0",
    "-prune",
    "-quit",
    "!",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "(",
    ")",
    ",",
];

/// Primaries that take one value (a pattern, a number, a name, a reference file, a format).
const ONE_VALUE: &[&str] = &[
    "-amin",
    "-anewer",
    "-atime",
    "-cmin",
    "-cnewer",
    "-ctime",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-iname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-mmin",
    "-mtime",
    "-name",
    "-newer",
    "-path",
    "-perm",
    "-regex",
    "-samefile",
    "-size",
    "-type",
    "-uid",
    "-used",
    "-user",
    "-wholename",
    "-xtype",
    "-context",
    "-maxdepth",
    "-mindepth",
    "-regextype",
    "-printf",
];

/// Returns whether a word is `-newerXY` (X one of `aBcm`, Y one of `aBcmt`).
fn newer_xy(t: &str) -> bool {
    let Some(xy) = t.strip_prefix("-newer") else {
        return false;
    };
    let b = xy.as_bytes();
    b.len() == 2 && b"aBcm".contains(&b[0]) && b"aBcmt".contains(&b[1])
}

impl Walker<'_> {
    /// find: what `-delete`, `-exec` and `-fprint` do to the starting points; a listing
    /// otherwise. Words of no primary it knows are gaps.
    pub(in super::super) fn h_find(&mut self, c: &Handled<'_, '_, '_>) {
        let from = self.out.items.len();
        let args = c.args();
        let mut gaps: Vec<usize> = Vec::new();
        let mut starts: Vec<Word> = Vec::new();
        let mut i = 0;
        // Options before the starting points: -H, -L, -P, -D LIST, -O LEVEL.
        while i < args.len() {
            let a = &args[i];
            let t = a.text.as_str();
            if !a.literal && t.starts_with('-') {
                gaps.push(i);
                i += 1;
            } else if matches!(t, "-H" | "-L" | "-P")
                || t.starts_with("-O") && t[2..].bytes().all(|b| b.is_ascii_digit())
            {
                i += 1;
            } else if t == "-D" {
                i += 2;
            } else {
                break;
            }
        }
        while i < args.len() {
            let t = args[i].text.as_str();
            if args[i].literal && (t.starts_with('-') || matches!(t, "(" | "!" | ")" | ",")) {
                break;
            }
            // A starting point computed at run time from its first character on can be a
            // primary (`find . $X` with X=-delete).
            let w = &args[i];
            let bare = w.text.starts_with(['$', '`', '-'])
                && !w.text.starts_with("$HOME")
                && !w.text.starts_with("${HOME}")
                && !w.text.starts_with("$PWD");
            if !w.literal && bare {
                gaps.push(i);
            }
            starts.push(w.clone());
            i += 1;
        }
        let mut acted = false;
        let mut listed_from = None;
        let mut tests = Tests::default();
        while i < args.len() {
            let w = &args[i];
            let a = w.text.as_str();
            if !w.literal {
                // A primary computed at run time can be any (`-delete`, `-exec`).
                gaps.push(i);
                i += 1;
                continue;
            }
            match a {
                "-delete" => {
                    acted = true;
                    tests.deletes = true;
                    for st in &starts {
                        let tg = self.target(st);
                        self.found(
                            c,
                            Effect::Delete {
                                target: tg,
                                recursive: true,
                                note: None,
                            },
                            "find-delete",
                            "",
                            "find -delete deletes everything matched under",
                        );
                    }
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    acted = true;
                    let end = args[i + 1..]
                        .iter()
                        .position(|w| w.literal && (w.text == ";" || w.text == "+"))
                        .map(|p| i + 1 + p);
                    let Some(end) = end else {
                        // No `;` or `+`: find refuses it, and oath cannot tell its end.
                        gaps.push(i);
                        break;
                    };
                    tests.execs.push(args[i + 1..end].to_vec());
                    // `-execdir` runs the command in the folder holding each match: a
                    // starting point's own folder (`find ~/.ssh -execdir rm -rf .ssh`
                    // runs in `~`), or one inside it. Its other words are judged from the
                    // starting points' folder (unknown when they differ), `{}` as the
                    // match.
                    let in_dir = matches!(a, "-execdir" | "-okdir");
                    let given = if starts.is_empty() {
                        vec![Word::lit(".")]
                    } else {
                        starts.clone()
                    };
                    let placed: Vec<Word> = given
                        .iter()
                        .map(|st| match self.target(st).path {
                            Some(p) if in_dir && st.literal => Word {
                                text: p.display().to_string(),
                                ..st.clone()
                            },
                            _ => st.clone(),
                        })
                        .collect();
                    let mut cmd: Vec<Word> = Vec::new();
                    for w in &args[i + 1..end] {
                        if w.text.contains("{}") {
                            for st in &placed {
                                let mut nw = st.clone();
                                nw.text = w.text.replace("{}", &st.text);
                                nw.literal &= w.literal;
                                cmd.push(nw);
                            }
                        } else {
                            cmd.push(w.clone());
                        }
                    }
                    if cmd.is_empty() {
                        gaps.push(i);
                    } else {
                        let mods = Mods {
                            under_find: true,
                            ..Mods::default()
                        };
                        let cwd = self.cwd.clone();
                        if in_dir {
                            let dirs: Vec<Option<std::path::PathBuf>> =
                                given.iter().map(|st| self.match_folder(st)).collect();
                            self.cwd = match dirs.split_first() {
                                Some((first, rest)) if rest.iter().all(|d| d == first) => {
                                    first.clone()
                                }
                                _ => None,
                            };
                        }
                        let _ = self.command(c.s, &cmd, c.depth, None, mods);
                        // The command ran in a process of its own: the line goes on where
                        // it was.
                        self.cwd = cwd;
                    }
                    i = end;
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    acted = true;
                    match args.get(i + 1) {
                        Some(f) => {
                            // The file is written anew.
                            let tg = self.target(f);
                            let note = Some(PathNote::Overwrites);
                            self.found(c, Effect::Write(tg, note), "write", "", "find writes");
                        }
                        None => gaps.push(i),
                    }
                    i += if a == "-fprintf" { 2 } else { 1 };
                    if i >= args.len() {
                        gaps.push(args.len() - 1);
                    }
                }
                "-files0-from" => match args.get(i + 1) {
                    Some(f) => {
                        listed_from = Some(f.clone());
                        i += 1;
                    }
                    None => gaps.push(i),
                },
                _ if NO_VALUE.contains(&a) => tests.primary(a),
                _ if ONE_VALUE.contains(&a) || newer_xy(a) => {
                    if i + 1 >= args.len() {
                        gaps.push(i);
                    }
                    if let Some(v) = args.get(i + 1) {
                        tests.add(a, v);
                        // A name test's pattern is read here, as what it selects.
                        if matches!(a, "-path" | "-ipath" | "-wholename" | "-iwholename") {
                            let _ = self.target(v);
                        }
                    }
                    i += 1;
                }
                _ => gaps.push(i),
            }
            i += 1;
        }
        // `-files0-from FILE`: the starting points are the names in FILE, read at run time
        // (and printed where they are no file: its content).
        if let Some(f) = &listed_from {
            let tg = self.target(f);
            self.found(c, Effect::Read(tg), "read", "", "find reads the names in");
            starts = vec![Word {
                text: format!("$(cat {})", f.text),
                literal: false,
                ..Word::default()
            }];
            if acted {
                self.found(
                    c,
                    Effect::NotUnderstood,
                    "find-files-from",
                    "find acts on the names it reads from a file at run time: oath cannot tell which",
                    "",
                );
            }
        }
        if starts.is_empty() {
            starts.push(Word::lit("."));
        }
        if acted {
            self.find_protected(c, &starts, &tests);
        }
        if !acted {
            let device = starts
                .iter()
                .rev()
                .map(|w| self.target(w))
                .find(|tg| tg.zone == Zone::Device);
            match device {
                Some(tg) => self.found(c, Effect::Read(tg), "read", "", "find lists"),
                None => {
                    let mut f = Finding::new(Domain::FileRead, Risk::Low, "read", "lists files");
                    f.effect = Some("read()".into());
                    self.push(c.t(), f);
                }
            }
        }
        gaps.sort_unstable();
        gaps.dedup();
        let gaps: Vec<Gap> = gaps
            .into_iter()
            .map(|index| Gap {
                index,
                option: true,
            })
            .collect();
        let who = Who {
            name: "find",
            pack: c.place.found.pack,
        };
        self.unaccounted(c.s, who, args, &gaps, from, c.depth);
    }
}

/// What find's expression selects by name, for the protected paths under its starting
/// points, and what it does to them.
#[derive(Default)]
struct Tests {
    /// The alternatives (`-o`) of the expression, each the name tests all of which must hold
    /// (parentheses are read through: `\( -name a -o -name b \)` is two alternatives).
    groups: Vec<Group>,
    /// A negation, a list (`,`) or a regular expression: what it selects is not known.
    open: bool,
    /// `-delete`.
    deletes: bool,
    /// The commands of `-exec` and its kin, `{}` not yet filled.
    execs: Vec<Vec<Word>>,
}

/// One alternative of find's expression.
#[derive(Default)]
struct Group {
    /// `-name` and `-iname` patterns, matched against a file's name.
    names: Vec<String>,
    /// `-path`, `-wholename` (and `-i…`) patterns, matched against the path as find prints it.
    paths: Vec<String>,
    /// It ends in `-prune`: what it selects is not descended into.
    prune: bool,
}

impl Group {
    fn named(&self) -> bool {
        !self.names.is_empty() || !self.paths.is_empty()
    }

    fn select(&self, printed: &str, name: &str) -> bool {
        self.names.iter().all(|p| glob(p, name, true))
            && self.paths.iter().all(|p| glob(p, printed, false))
    }
}

impl Tests {
    fn group(&mut self) -> &mut Group {
        if self.groups.is_empty() {
            self.groups.push(Group::default());
        }
        let last = self.groups.len() - 1;
        &mut self.groups[last]
    }

    fn primary(&mut self, a: &str) {
        match a {
            "-o" | "-or" => self.groups.push(Group::default()),
            "!" | "-not" | "," => self.open = true,
            "-prune" => self.group().prune = true,
            _ => {}
        }
    }

    fn add(&mut self, primary: &str, value: &Word) {
        let v = value.text.clone();
        match primary {
            _ if !value.literal => self.open = true,
            "-name" | "-iname" => self.group().names.push(v),
            "-path" | "-ipath" | "-wholename" | "-iwholename" => self.group().paths.push(v),
            "-regex" | "-iregex" => self.open = true,
            _ => {}
        }
    }

    /// Returns whether any name test is given (without one, find acts on the whole tree).
    fn named(&self) -> bool {
        self.open || self.groups.iter().any(Group::named)
    }

    /// Returns whether the expression prunes the path find prints as `printed`.
    fn prunes(&self, printed: &str, name: &str) -> bool {
        !self.open
            && self
                .groups
                .iter()
                .any(|g| g.prune && g.named() && g.select(printed, name))
    }

    /// Returns whether the expression can select the path find prints as `printed`.
    fn select(&self, printed: &str, name: &str) -> bool {
        self.open
            || self
                .groups
                .iter()
                .any(|g| !g.prune && g.select(printed, name))
    }
}

/// At most this many protected paths (and folders of them) are judged for one find.
const MAX_CANDIDATES: usize = 16;

impl Walker<'_> {
    /// Judges what find's `-delete` and `-exec` do to the protected paths under its starting
    /// points that its name tests can select (`find . -name settings.json -delete`): what
    /// certainly reaches one is judged as done to it; what may (a negation, an alternative,
    /// a regular expression) is asked when it would be held. Without a name test the
    /// starting points' own judgement stands (the whole project is project work).
    fn find_protected(&mut self, c: &Handled<'_, '_, '_>, starts: &[Word], tests: &Tests) {
        if !tests.named() {
            return;
        }
        let mut candidates: Vec<(String, std::path::PathBuf)> = Vec::new();
        for st in starts.iter().filter(|w| w.literal) {
            let tg = self.target(st);
            let Some(base) = tg.path.clone() else {
                continue;
            };
            if tg.protected || tg.holds_protected {
                continue;
            }
            // What is not there is not found (one `stat` per protected path below).
            for q in self.ctx.protected() {
                let Ok(rel) = q.strip_prefix(&base) else {
                    continue;
                };
                if !self.ctx.may_exist(q) {
                    continue;
                }
                let mut a = base.clone();
                let mut printed = st.text.trim_end_matches('/').to_owned();
                for comp in rel.components() {
                    a.push(comp);
                    let name = comp.as_os_str().to_string_lossy();
                    printed = format!("{printed}/{name}");
                    if tests.prunes(&printed, &name) {
                        break;
                    }
                    if tests.select(&printed, &name) && !candidates.iter().any(|(_, p)| *p == a) {
                        candidates.push((printed.clone(), a.clone()));
                    }
                }
            }
        }
        for (_, path) in candidates.into_iter().take(MAX_CANDIDATES) {
            let shown = path.display().to_string();
            if tests.deletes {
                let tg = paths::target(Some(path.clone()), self.ctx);
                if tests.open {
                    let why = format!(
                        "find -delete may select {} (its tests negate, combine or use a regular expression)",
                        tg.shown()
                    );
                    self.found(
                        c,
                        Effect::NotUnderstood,
                        "find-may-reach-settings",
                        &why,
                        "",
                    );
                } else {
                    let effect = Effect::Delete {
                        target: tg,
                        recursive: true,
                        note: None,
                    };
                    self.found(c, effect, "find-delete", "", "find -delete deletes");
                }
            }
            for template in &tests.execs {
                let cmd: Vec<Word> = template
                    .iter()
                    .map(|w| Word {
                        text: w.text.replace("{}", &shown),
                        ..w.clone()
                    })
                    .collect();
                let mods = Mods {
                    under_find: true,
                    ..Mods::default()
                };
                if !tests.open {
                    let _ = self.command(c.s, &cmd, c.depth, None, mods);
                    continue;
                }
                let mut inner = Walker::new(self.ctx);
                inner.cwd.clone_from(&self.cwd);
                let _ = inner.command(c.s, &cmd, c.depth, None, mods);
                let held = inner.out.into_classification();
                if held.kind >= Kind::NotUnderstood {
                    let why = format!(
                        "find -exec may run on {shown} (its tests negate, combine or use a regular expression), where it {}",
                        held.reason
                    );
                    self.found(
                        c,
                        Effect::NotUnderstood,
                        "find-may-reach-settings",
                        &why,
                        "",
                    );
                }
            }
        }
    }
}

impl Walker<'_> {
    /// Returns the folder `find -execdir` runs in for a starting point itself: the folder
    /// holding it as find names it (`a/b` in `a`, `a`, `.` and `..` in the working
    /// directory, `/x/y` in `/x`), links followed; None when computed.
    fn match_folder(&self, st: &Word) -> Option<std::path::PathBuf> {
        if !st.literal {
            return None;
        }
        let text = st.text.trim_end_matches('/');
        // The shell expands `~` before find sees it: the folder is the home's.
        if text.starts_with('~') || text.is_empty() {
            let p = self.target(st).path?;
            return Some(p.parent().map_or(p.clone(), std::path::Path::to_path_buf));
        }
        match text.rfind('/') {
            None => self.cwd.clone(),
            Some(0) => Some("/".into()),
            Some(i) => self.folder(&Word::lit(&text[..i])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_takes_two_time_letters() {
        assert!(newer_xy("-newermt"));
        assert!(newer_xy("-neweraB"));
        assert!(!newer_xy("-newerXY"));
        assert!(!newer_xy("-newert"));
        assert!(!newer_xy("-newermtt"));
    }
}
