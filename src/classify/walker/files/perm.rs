//! chmod, chown and chgrp read by their own grammar (GNU coreutils): options, a mode written
//! as an option (`chmod -x FILE`: `-x` is the mode), symbolic and octal modes, owner specs
//! (`user:group`, `:group`), `--reference`, `--from`; every other word is a gap. chattr,
//! setfacl and chcon keep the pack's option lists.

use crate::shell::Word;

use super::super::super::effect::Effect;
use super::super::super::pack;
use super::super::super::pack::account::Gap;
use super::super::super::rule::Finding;
use super::super::super::{Domain, Kind, Risk};
use super::super::Walker;
use super::super::apply::Handled;
use super::super::gaps::Who;

/// The letters a chmod option word may begin a mode with (GNU chmod takes `-w`, `-rwx`,
/// `-x,g+w` for modes).
const MODE_LETTERS: &str = "rwxXstugoa,+=01234567";

/// Returns whether a word is a chmod mode: symbolic clauses (`u+x,g-w,o=`, `a+rwX`,
/// `-x`, `g=u`) or an octal number (`755`, `0755`, `4755`).
pub(super) fn chmod_mode(m: &str) -> bool {
    if !m.is_empty() && m.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return u32::from_str_radix(m, 8).is_ok_and(|v| v <= 0o7777);
    }
    !m.is_empty()
        && m.split(',').all(|clause| {
            let ops = clause.trim_start_matches(['u', 'g', 'o', 'a']);
            if ops.is_empty() || !ops.starts_with(['+', '-', '=']) {
                return false;
            }
            // Each operator is followed by permission letters, or by one of u, g, o.
            ops.split(['+', '-', '=']).skip(1).all(|perms| {
                perms.chars().all(|c| "rwxXst".contains(c)) || matches!(perms, "u" | "g" | "o")
            })
        })
}

/// Returns how the policy is to see an octal mode: four digits, and the set-user and
/// set-group bits named (`7755` has them as much as `4755`).
fn shown_mode(m: &str) -> String {
    match u32::from_str_radix(m, 8) {
        Ok(v) if m.bytes().all(|b| b.is_ascii_digit()) => {
            let digits = format!("{v:04o}");
            if v & 0o6000 != 0 && !digits.starts_with(['4', '2', '6']) {
                format!("{digits} (setuid or setgid)")
            } else {
                digits
            }
        }
        _ => m.to_owned(),
    }
}

/// Returns whether a word is an owner spec of chown (`user`, `user:group`, `user:`,
/// `:group`, `user.group`, numeric ids) or a group of chgrp.
fn owner_spec(s: &str, chgrp: bool) -> bool {
    let name = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '$' | '@'))
            && !n.starts_with('-')
    };
    if chgrp {
        return name(s);
    }
    match s.split_once(':') {
        Some((u, g)) => (u.is_empty() || name(u)) && (g.is_empty() || name(g)) && s != ":",
        None => name(s),
    }
}

/// A chmod, chown or chgrp command line, read.
#[derive(Debug, Default)]
struct Line {
    /// The mode or owner (`None` when `--reference` gives it).
    spec: Option<Word>,
    /// The files.
    files: Vec<Word>,
    recursive: bool,
    reference: bool,
    gaps: Vec<usize>,
}

/// Reads the arguments of chmod (`mode`), chown or chgrp.
fn read(args: &[Word], program: &str) -> Line {
    let chmod = program == "chmod";
    let mut l = Line::default();
    let mut pos: Vec<(usize, &Word)> = Vec::new();
    let mut mode_opts: Vec<String> = Vec::new();
    let mut only_pos = false;
    let mut i = 0;
    let long_flags: &[&str] = &[
        "--changes",
        "--silent",
        "--quiet",
        "--verbose",
        "--no-preserve-root",
        "--preserve-root",
        "--recursive",
        "--dereference",
        "--no-dereference",
        "--help",
        "--version",
    ];
    while i < args.len() {
        let a = &args[i];
        let t = a.text.as_str();
        if only_pos || !t.starts_with('-') || t == "-" {
            pos.push((i, a));
        } else if !a.literal {
            l.gaps.push(i);
        } else if t == "--" {
            only_pos = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let (n, v) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            let n = format!("--{n}");
            match n.as_str() {
                "--reference" | "--from" => {
                    let has = v.is_some() || i + 1 < args.len();
                    if v.is_none() {
                        i += 1;
                    }
                    if !has || n == "--from" && chmod {
                        l.gaps.push(i.min(args.len() - 1));
                    }
                    l.reference |= n == "--reference";
                }
                f if long_flags.contains(&f) && v.is_none() => {
                    l.recursive |= f == "--recursive";
                }
                _ => l.gaps.push(i),
            }
        } else if chmod && t[1..].starts_with(|c: char| MODE_LETTERS.contains(c)) {
            // `chmod -x FILE`: the word is a mode.
            mode_opts.push(t.to_owned());
        } else if t[1..].chars().all(|c| "cfvRHLPh".contains(c)) {
            l.recursive |= t.contains('R');
        } else {
            l.gaps.push(i);
        }
        i += 1;
    }
    let mut pos = pos.into_iter();
    if !mode_opts.is_empty() {
        let m = mode_opts.join(",");
        if !chmod_mode(&m) {
            l.gaps.extend(
                args.iter()
                    .enumerate()
                    .filter(|(_, w)| mode_opts.contains(&w.text))
                    .map(|(i, _)| i),
            );
        }
        l.spec = Some(Word::lit(m));
    } else if !l.reference
        && let Some((i, w)) = pos.next()
    {
        let ok = !w.literal
            || if chmod {
                chmod_mode(&w.text)
            } else {
                owner_spec(&w.text, program == "chgrp")
            };
        if !ok {
            l.gaps.push(i);
        }
        l.spec = Some(w.clone());
    }
    l.files = pos.map(|(_, w)| w.clone()).collect();
    l
}

impl Walker<'_> {
    /// chmod, chown, chgrp, chattr, setfacl, chcon: the mode and the targets.
    pub(in super::super) fn h_perm(&mut self, c: &Handled<'_, '_, '_>) {
        let from = self.out.items.len();
        let name = c.name;
        let args = c.args();
        let own = matches!(name, "chmod" | "chown" | "chgrp");
        let (mode, files, recursive, gaps) = if own {
            let l = read(args, name);
            let mode = match &l.spec {
                Some(w) if w.literal && name == "chmod" => shown_mode(&w.text),
                Some(w) if w.literal => w.text.clone(),
                // A mode computed at run time or copied from a file is not known.
                _ => String::new(),
            };
            let gaps: Vec<Gap> = l
                .gaps
                .iter()
                .map(|&index| Gap {
                    index,
                    option: args.get(index).is_some_and(|w| w.text.starts_with('-')),
                })
                .collect();
            (mode, l.files, l.recursive, gaps)
        } else {
            let sc = &c.level.own.scan;
            let skip = usize::from(name != "setfacl");
            let mode = sc.pos.first().map(|w| w.text.clone()).unwrap_or_default();
            let files = sc.pos.iter().skip(skip).map(|w| (*w).clone()).collect();
            let recursive = sc.has(&["-R", "--recursive"]);
            let chain: Vec<_> = c.place.d.levels.iter().map(|l| l.entry).collect();
            let gaps = pack::account::unknown_options(&chain, &c.level.own);
            (mode, files, recursive, gaps)
        };
        let recursive = recursive || c.mods.under_find;
        for w in &files {
            let tg = self.target(w);
            self.found(
                c,
                Effect::Chmod {
                    target: tg,
                    program: name.to_owned(),
                    mode: mode.clone(),
                    recursive,
                },
                "change-permissions",
                "",
                "changes",
            );
        }
        if files.is_empty() && name != "setfacl" {
            let risk = if args.iter().all(|a| a.literal) {
                Risk::Medium
            } else {
                Risk::High
            };
            let mut f = Finding::new(
                Domain::FileWrite,
                risk,
                "change-permissions",
                format!("{name} with targets computed at run time"),
            );
            if risk == Risk::High {
                f = f.kind(Kind::NotUnderstood);
            }
            f.effect = Some("chmod(?)".into());
            self.push(c.t(), f);
        }
        let who = Who {
            name,
            pack: c.place.found.pack,
        };
        self.unaccounted(c.s, who, args, &gaps, from, c.depth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::lit).collect()
    }

    #[test]
    fn modes_symbolic_octal_and_written_as_options() {
        for m in [
            "u+x,g-w,o=",
            "a+rwX",
            "0755",
            "4755",
            "+x",
            "-x",
            "g=u",
            "u=rw,go=r",
            "-rwx",
        ] {
            assert!(chmod_mode(m), "{m}");
        }
        for m in ["", "x", "u+q", "99", "17777", "u+x;rm", "ugo"] {
            assert!(!chmod_mode(m), "{m}");
        }
        assert_eq!(shown_mode("0755"), "0755");
        assert_eq!(shown_mode("04755"), "4755");
        assert_eq!(shown_mode("7755"), "7755 (setuid or setgid)");
        assert_eq!(shown_mode("755"), "0755");
        assert_eq!(shown_mode("u+s"), "u+s");
    }

    #[test]
    fn the_file_is_the_target_and_the_mode_is_no_file() {
        type Case<'a> = (
            &'a str,
            &'a str,
            Option<&'a str>,
            &'a [&'a str],
            bool,
            &'a [usize],
        );
        let cases: &[Case<'_>] = &[
            ("chmod", "-x run.sh", Some("-x"), &["run.sh"], false, &[]),
            (
                "chmod",
                "-R -w,u+x a b",
                Some("-w,u+x"),
                &["a", "b"],
                true,
                &[],
            ),
            ("chmod", "-v 0755 -- -f", Some("0755"), &["-f"], false, &[]),
            ("chmod", "--reference=ref a", None, &["a"], false, &[]),
            ("chmod", "--reference ref a", None, &["a"], false, &[]),
            ("chmod", "u+q a", Some("u+q"), &["a"], false, &[0]),
            ("chmod", "--frob 755 a", Some("755"), &["a"], false, &[0]),
            ("chmod", "-Rz 755 a", Some("755"), &["a"], false, &[0]),
            (
                "chown",
                "-hR user:group a",
                Some("user:group"),
                &["a"],
                true,
                &[],
            ),
            ("chown", ":staff a", Some(":staff"), &["a"], false, &[]),
            (
                "chown",
                "--from=root:root me a",
                Some("me"),
                &["a"],
                false,
                &[],
            ),
            ("chown", "-x me a", Some("me"), &["a"], false, &[0]),
            ("chgrp", "-R staff dir", Some("staff"), &["dir"], true, &[]),
        ];
        for (prog, line, spec, files, rec, gaps) in cases {
            let l = read(&words(line), prog);
            assert_eq!(
                l.spec.as_ref().map(|w| w.text.as_str()),
                *spec,
                "{prog} {line}"
            );
            let f: Vec<&str> = l.files.iter().map(|w| w.text.as_str()).collect();
            assert_eq!(f, *files, "{prog} {line}");
            assert_eq!(l.recursive, *rec, "{prog} {line}");
            assert_eq!(l.gaps, *gaps, "{prog} {line}");
        }
    }
}
