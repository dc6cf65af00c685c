//! Symbolic links: the ones a line makes (`ln -s ~ h`: `h` leads to the home for the whole
//! line, [`made`]) and the ones on the file system (through the context's
//! [`super::super::Links`]) are followed where a word is resolved: the place a path
//! reaches through the links of its folders is the one judged (`h/.ssh` is `~/.ssh`), the
//! last name's link too for a folder gone into or listed (`cd h`, `h/`, `h/*`). What a
//! change through a link to the last name reaches is the policy's to follow
//! ([`super::super::paths::followed`]).

use std::path::{Path, PathBuf};

use crate::shell::Word;

use super::super::Context;
use super::super::paths::{self, Target};
use super::Walker;
use super::taint::resolve_word;

/// Most paths one line remembers the links of (each costs one look at the file system).
const MAX_LINKS_SEEN: usize = 4096;

/// How `ln` (or `cp -s`, `cp -l`) makes its links.
#[derive(Clone, Copy, Default)]
struct How {
    /// Symbolic links (`-s`); hard ones otherwise.
    symbolic: bool,
    /// A symbolic link's target is made relative to it (`ln -r`): written from here.
    relative: bool,
}

/// Returns the links `ln` (or `cp -s`, `cp -l`) makes, each path and where it leads:
/// `ln -s TARGET LINK` (LINK, and LINK/TARGET's name in case LINK is a folder), `ln TARGET`
/// (its name here), `ln TARGET… DIR` and `-t DIR` (DIR/each name). A symbolic link's
/// relative target is read from the link's folder (from here with `-r`), a hard link's
/// from here. `args` are the words after the program's name.
pub(super) fn made(
    name: &str,
    args: &[Word],
    cwd: Option<&Path>,
    ctx: &Context,
) -> Vec<(PathBuf, PathBuf)> {
    let mut how = How::default();
    let mut hard = name == "ln";
    let mut no_dir = false;
    let mut into: Option<Word> = None;
    let mut pos: Vec<&Word> = Vec::new();
    let mut only_pos = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if only_pos || !t.starts_with('-') || t == "-" {
            pos.push(w);
            continue;
        }
        let (opt, glued) = match t.split_once('=') {
            Some((o, v)) if t.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        let cut = |text: &str| Word {
            text: text.to_owned(),
            ..w.clone()
        };
        match opt {
            "--" => only_pos = true,
            "--symbolic" | "--symbolic-link" => how.symbolic = true,
            "--link" => hard = true,
            "--relative" => how.relative = true,
            "--no-target-directory" => no_dir = true,
            "--target-directory" | "--suffix" => {
                let v = match glued {
                    Some(v) => Some(cut(v)),
                    None => {
                        i += 1;
                        args.get(i - 1).cloned()
                    }
                };
                if opt == "--target-directory" {
                    into = v;
                }
            }
            _ if opt.starts_with("--") => {}
            _ => {
                // A cluster of letters; `-t DIR` and `-S SUFFIX` take a value.
                for (k, c) in opt[1..].char_indices() {
                    match c {
                        's' => how.symbolic = true,
                        'l' if name == "cp" => hard = true,
                        'r' if name == "ln" => how.relative = true,
                        'T' => no_dir = true,
                        't' | 'S' => {
                            let rest = &opt[1 + k + 1..];
                            let v = if rest.is_empty() {
                                i += 1;
                                args.get(i - 1).cloned()
                            } else {
                                Some(cut(rest))
                            };
                            if c == 't' {
                                into = v;
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    // cp makes links only with -s or -l.
    if !how.symbolic && !hard {
        return out;
    }
    let mut add = |at: &Word, to: &Word| {
        if let Some(l) = link(at, to, how, cwd, ctx)
            && !out.iter().any(|(p, _)| *p == l.0)
        {
            out.push(l);
        }
    };
    if let Some(dir) = &into {
        for t in &pos {
            if let Some(at) = inside(dir, t, ctx) {
                add(&at, t);
            }
        }
        return out;
    }
    match pos.as_slice() {
        [] => {}
        [one] => {
            if let Some(at) = inside(&Word::lit("."), one, ctx) {
                add(&at, one);
            }
        }
        [sources @ .., last] => {
            if let [one] = sources {
                add(last, one);
            }
            if !no_dir {
                for t in sources {
                    if let Some(at) = inside(last, t, ctx) {
                        add(&at, t);
                    }
                }
            }
        }
    }
    out
}

/// Returns `DIR/name`, where a link to `target` lands in the folder `dir` (`~` is the
/// home's name: the shell expands it before `ln` sees it).
fn inside(dir: &Word, target: &Word, ctx: &Context) -> Option<Word> {
    let expanded;
    let text = if target.text.starts_with('~') {
        expanded = resolve_word(target, None, ctx).path?;
        expanded.to_str()?
    } else {
        target.text.as_str()
    };
    let name = text.trim_end_matches('/').rsplit('/').next()?;
    if name.is_empty() || matches!(name, "." | "..") {
        return None;
    }
    Some(Word {
        text: format!("{}/{name}", dir.text.trim_end_matches('/')),
        ..dir.clone()
    })
}

/// Returns the path `at` names and where it leads once it is a link to `to`.
fn link(
    at: &Word,
    to: &Word,
    how: How,
    cwd: Option<&Path>,
    ctx: &Context,
) -> Option<(PathBuf, PathBuf)> {
    if !at.literal || !to.literal {
        return None;
    }
    let path = resolve_word(at, cwd, ctx).path?;
    // A symbolic link's relative target is read from the link's own folder.
    let from = if how.symbolic && !how.relative && !to.text.starts_with(['/', '~']) {
        path.parent().map(Path::to_path_buf)
    } else {
        cwd.map(Path::to_path_buf)
    };
    let leads = resolve_word(to, from.as_deref(), ctx).path?;
    (leads != path).then_some((path, leads))
}

impl Walker<'_> {
    /// Returns `t` as the place it reaches through the links of its folders (and of its
    /// last name with `last`), marked as credentials when its last link leads to them
    /// (reading follows every link).
    pub(super) fn through_links(&self, t: Target, last: bool) -> Target {
        let Some(p) = t.path.clone() else {
            return t;
        };
        // No link anywhere in the path: nothing to follow (one look, cached).
        let Some(full) = self.reached(&p) else {
            return t;
        };
        let to = if last {
            Some(full.clone())
        } else {
            match (p.parent(), p.file_name()) {
                (Some(dir), Some(name)) => self.reached(dir).map(|d| d.join(name)),
                _ => None,
            }
        };
        let t = match to {
            Some(to) if to != p => paths::as_reached(&t, paths::target(Some(to), self.ctx)),
            _ => t,
        };
        if t.credential || t.protected {
            return t;
        }
        let real = paths::target(Some(full), self.ctx);
        if real.credential {
            let shown = real.shown();
            paths::as_link_to(t, &shown)
        } else {
            t
        }
    }

    /// Returns where a path reaches through links, when elsewhere ([`Context::reached`]),
    /// looked up once per path of the line.
    fn reached(&self, p: &Path) -> Option<PathBuf> {
        // Paths are normalised: their bytes compare (a `Path`'s `==` parses components).
        if let Some(to) = self.links_seen.borrow().get(p.as_os_str()) {
            return to.clone();
        }
        let to = self.ctx.reached(p);
        let mut seen = self.links_seen.borrow_mut();
        if seen.len() < MAX_LINKS_SEEN {
            seen.insert(p.as_os_str().to_owned(), to.clone());
        }
        to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made_by(line: &str) -> Vec<(String, String)> {
        let ctx =
            Context::for_project(Path::new("/home/dev/project"), Some(Path::new("/home/dev")));
        let words: Vec<Word> = line.split(' ').skip(1).map(Word::lit).collect();
        let name = line.split(' ').next().unwrap();
        made(name, &words, Some(ctx.cwd()), &ctx)
            .into_iter()
            .map(|(p, to)| (p.display().to_string(), to.display().to_string()))
            .collect()
    }

    #[test]
    fn the_links_a_line_makes_lead_where_ln_points_them() {
        let p = |s: &str| format!("/home/dev/project/{s}");
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        assert_eq!(
            made_by("ln -s ~ h"),
            [pair(&p("h"), "/home/dev"), pair(&p("h/dev"), "/home/dev")]
        );
        // In a folder `d/h`, the link `d/h/x` holds `../x`: `d/x`.
        assert_eq!(
            made_by("ln -sfn ../x d/h"),
            [pair(&p("d/h"), &p("x")), pair(&p("d/h/x"), &p("d/x"))]
        );
        assert_eq!(made_by("ln -sT ../x d/h"), [pair(&p("d/h"), &p("x"))]);
        assert_eq!(made_by("ln -sr x d/h")[0], pair(&p("d/h"), &p("x")));
        assert_eq!(
            made_by("ln /etc/passwd pw")[0],
            pair(&p("pw"), "/etc/passwd")
        );
        assert_eq!(made_by("ln -s /etc"), [pair(&p("etc"), "/etc")]);
        assert_eq!(
            made_by("ln -st bin ../a ../b"),
            [pair(&p("bin/a"), &p("a")), pair(&p("bin/b"), &p("b"))]
        );
        assert_eq!(
            made_by("ln -s --target-directory=bin /usr/bin/env"),
            [pair(&p("bin/env"), "/usr/bin/env")]
        );
        assert_eq!(
            made_by("cp -s /etc/hosts h")[0],
            pair(&p("h"), "/etc/hosts")
        );
        assert!(made_by("cp -r a b").is_empty());
    }
}

#[cfg(test)]
mod on_disk {
    use std::sync::Arc;

    use serde_json::json;

    use super::super::super::{Classification, Kind, Links, classify};
    use super::*;

    /// Links on a pretend file system: each path and where it leads.
    struct Fake(Vec<(&'static str, &'static str)>);

    impl Links for Fake {
        fn real(&self, path: &Path) -> Option<PathBuf> {
            self.0.iter().find_map(|(link, to)| {
                let rest = path.strip_prefix(link).ok()?;
                Some(if rest.as_os_str().is_empty() {
                    PathBuf::from(to)
                } else {
                    Path::new(to).join(rest)
                })
            })
        }
    }

    fn ctx(links: Vec<(&'static str, &'static str)>) -> Context {
        let root = Path::new("/home/dev/project");
        Context::new(root, root, Some(Path::new("/home/dev")), []).with_links(Arc::new(Fake(links)))
    }

    fn bash(cmd: &str, ctx: &Context) -> Classification {
        classify("Bash", &json!({ "command": cmd }), ctx)
    }

    #[test]
    fn a_link_to_the_home_in_the_project_is_the_home() {
        let ctx = ctx(vec![("/home/dev/project/hl", "/home/dev")]);
        for cmd in [
            "rm -rf hl/.ssh",
            "cd hl && rm -rf .ssh",
            "rm -rf hl/",
            "rm -rf hl/*",
        ] {
            assert_eq!(bash(cmd, &ctx).kind, Kind::Catastrophic, "{cmd}");
        }
        for cmd in [
            "echo x > hl/.bashrc",
            "cat hl/.ssh/id_rsa",
            "cp x hl/.bashrc",
        ] {
            assert_eq!(bash(cmd, &ctx).kind, Kind::Irreversible, "{cmd}");
        }
        let write = json!({"file_path": "/home/dev/project/hl/.bashrc", "content": "x"});
        let c = classify("Write", &write, &ctx);
        assert_eq!(c.kind, Kind::Irreversible, "{}", c.reason);
        assert!(c.reason.contains("a link to ~/.bashrc"), "{}", c.reason);
        // The link itself goes, not what it leads to.
        let c = bash("rm hl", &ctx);
        assert_ne!(c.kind, Kind::Catastrophic, "{}", c.reason);
    }

    #[test]
    fn a_project_or_home_reached_through_a_link_is_still_itself() {
        let ctx = ctx(vec![
            ("/home/dev", "/data/home/dev"),
            ("/data/home/dev/project/out", "/data/home/dev/project/build"),
        ]);
        for cmd in [
            "echo x >> src/a.rs",
            "cat README.md",
            "cd src && touch a.rs",
        ] {
            let c = bash(cmd, &ctx);
            assert_eq!(c.kind, Kind::Reversible, "{cmd}: {}", c.reason);
        }
        let write = json!({"file_path": "/home/dev/project/src/a.rs", "content": "x"});
        assert_eq!(classify("Write", &write, &ctx).kind, Kind::Reversible);
        // A link inside the project to the project: still the project.
        let c = bash("echo x >> out/report.txt", &ctx);
        assert_eq!(c.kind, Kind::Reversible, "{}", c.reason);
        assert_eq!(bash("rm -rf ~/.ssh", &ctx).kind, Kind::Catastrophic);
    }
}
