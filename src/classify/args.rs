//! Option scanning for command arguments: short clusters (`-rf`), long options
//! (`--force`, `--output=x`), options that take a value, and positionals after `--`.

use crate::shell::Word;

/// An option's name, borrowed from the argument it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name<'w> {
    /// A long option with its dashes, without `=value` (`--output`).
    Long(&'w str),
    /// One letter of a short cluster (`r` of `-rf`).
    Short(char),
}

/// One option as written, with its value when it takes one.
#[derive(Debug, Clone)]
pub(crate) struct Opt<'w> {
    name: Name<'w>,
    /// Its value.
    pub value: Option<Word>,
    /// Index in the argument slice of the word it was written in.
    pub index: usize,
    /// Index of its value when that is the next word (`-o FILE`, not `-oFILE`).
    pub value_index: Option<usize>,
}

impl Opt<'_> {
    /// Returns whether it is one of `names` (a long option written shorter counts where
    /// the program allows abbreviations).
    pub fn is_any<S: AsRef<str>>(&self, names: &[S], abbrev: bool) -> bool {
        names.iter().any(|n| self.name.matches(n.as_ref(), abbrev))
    }
}

impl Name<'_> {
    fn is(self, name: &str) -> bool {
        self.matches(name, false)
    }

    /// Like [`Name::is`]; with `abbrev`, a long option written shorter (`--forc`) is the
    /// option it begins (`--force`), as git's option parser takes any unique prefix.
    fn matches(self, name: &str, abbrev: bool) -> bool {
        match self {
            Name::Long(long) => {
                long == name
                    || abbrev
                        && long.len() > 2
                        && long.starts_with("--")
                        && name.len() > long.len()
                        && name.starts_with(long)
            }
            Name::Short(c) => {
                let mut rest = name.chars();
                rest.next() == Some('-')
                    && rest.next() == Some(c)
                    && rest.next().is_none()
                    && c != '-'
            }
        }
    }
}

/// Scanned arguments.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan<'w> {
    /// Options in order.
    pub opts: Vec<Opt<'w>>,
    /// Positional arguments in order.
    pub pos: Vec<&'w Word>,
    /// Index in the argument slice of each positional.
    pub pos_index: Vec<usize>,
    /// Long options may be written as any prefix of their name.
    pub abbrev: bool,
    /// The long options the program knows by their whole name: one written so is that
    /// option, not an abbreviation of a longer one (`--prune` is not `--prune-tags`).
    known: Vec<&'static str>,
    /// Index in the argument slice of each `--` that ended the options.
    pub dashdash: Vec<usize>,
}

impl Scan<'_> {
    /// Returns whether any of the named options is present.
    pub fn has<S: AsRef<str>>(&self, names: &[S]) -> bool {
        self.opts.iter().any(|o| {
            let abbrev = self.abbrev_of(o);
            names.iter().any(|n| o.name.matches(n.as_ref(), abbrev))
        })
    }

    /// Returns whether an option may stand for a longer one it begins: where the program
    /// allows abbreviations and it is not itself an option the program knows.
    fn abbrev_of(&self, o: &Opt<'_>) -> bool {
        self.abbrev && !matches!(o.name, Name::Long(l) if self.known.contains(&l))
    }

    /// Returns the values of the named options.
    pub fn values<'a, S: AsRef<str>>(
        &'a self,
        names: &'a [S],
    ) -> impl Iterator<Item = &'a Word> + 'a {
        self.opts
            .iter()
            .filter(move |o| {
                let abbrev = self.abbrev_of(o);
                names.iter().any(|n| o.name.matches(n.as_ref(), abbrev))
            })
            .filter_map(|o| o.value.as_ref())
    }

    /// Returns the first value of the named options.
    pub fn value<'a, S: AsRef<str>>(&'a self, names: &'a [S]) -> Option<&'a Word> {
        self.values(names).next()
    }
}

/// Scans `args`. `valued` lists options taking a value (`-o`, `--output`); with
/// `stop_at_first_positional`, everything from the first positional on is positional
/// (commands that take a sub-command or a wrapped command).
pub(crate) fn scan<'w>(
    args: &'w [Word],
    valued: &[&'static str],
    stop_at_first_positional: bool,
) -> Scan<'w> {
    scan_with(args, valued, &[], stop_at_first_positional, false)
}

/// [`scan`], where with `abbrev` a long option may be written as a prefix of its name
/// (`--forc`, `--mess TEXT`), as programs using git's option parser allow.
/// `flags` are the options known to take no value: where they are named the option takes
/// none, whatever a value-taking option of the same beginning would (`--stat` is not
/// `--stat-width`).
pub(crate) fn scan_with<'w>(
    args: &'w [Word],
    valued: &[&'static str],
    flags: &[&'static str],
    stop_at_first_positional: bool,
    abbrev: bool,
) -> Scan<'w> {
    let mut s = Scan {
        abbrev,
        known: if abbrev {
            valued
                .iter()
                .chain(flags)
                .filter(|n| n.starts_with("--"))
                .copied()
                .collect()
        } else {
            Vec::new()
        },
        ..Scan::default()
    };
    let mut i = 0;
    let mut only_pos = false;
    while i < args.len() {
        let a = &args[i];
        let t = a.text.as_str();
        if only_pos || !t.starts_with('-') || t == "-" || !a.literal && !t.starts_with('-') {
            s.pos.push(a);
            s.pos_index.push(i);
            if stop_at_first_positional {
                only_pos = true;
            }
            i += 1;
            continue;
        }
        if t == "--" {
            only_pos = true;
            s.dashdash.push(i);
            i += 1;
            continue;
        }
        // A one-dash option of several letters that takes a value (`-out FILE`, `-jar X`).
        if !t.starts_with("--") && t.len() > 2 && valued.contains(&t) {
            let index = i;
            i += 1;
            s.opts.push(Opt {
                name: Name::Long(t),
                value: args.get(i).cloned(),
                index,
                value_index: (i < args.len()).then_some(i),
            });
            i += 1;
            continue;
        }
        // The text of `a` with its flags: a value cut out of it keeps them.
        let part = |text: &str| Word {
            text: text.to_owned(),
            literal: a.literal,
            quoted: a.quoted,
            subs: a.subs.clone(),
        };
        // A one-dash option of several letters that takes a value, glued by `=` (`-out=FILE`,
        // terraform's `-var-file=x`).
        // A one-dash flag of several letters, named whole (`-MD`, `-print`): one option, not
        // a cluster of letters one of which could take the next word.
        if !t.starts_with("--") && t.len() > 2 && flags.contains(&t) {
            s.opts.push(Opt {
                name: Name::Long(t),
                value: None,
                index: i,
                value_index: None,
            });
            i += 1;
            continue;
        }
        if !t.starts_with("--")
            && let Some((n, v)) = t.split_once('=')
            && n.len() > 2
            && (valued.contains(&n) || flags.contains(&n))
        {
            s.opts.push(Opt {
                name: Name::Long(n),
                value: Some(part(v)),
                index: i,
                value_index: None,
            });
            i += 1;
            continue;
        }
        if t.starts_with("--") {
            let index = i;
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (t, None),
            };
            let mut value_index = None;
            let value = if let Some(v) = inline {
                Some(part(v))
            } else if valued.contains(&name)
                || abbrev
                    && name.len() > 3
                    && !flags.contains(&name)
                    && valued
                        .iter()
                        .any(|v| v.starts_with("--") && v.starts_with(name))
            {
                i += 1;
                value_index = (i < args.len()).then_some(i);
                args.get(i).cloned()
            } else {
                None
            };
            s.opts.push(Opt {
                name: Name::Long(name),
                value,
                index,
                value_index,
            });
            i += 1;
            continue;
        }
        // A short cluster: `-rf`, `-ofile`, `-o file`.
        let cluster = &t[1..];
        let index = i;
        for (k, c) in cluster.char_indices() {
            let name = Name::Short(c);
            if valued.iter().any(|v| name.is(v)) {
                let rest = &cluster[k + c.len_utf8()..];
                let mut value_index = None;
                let value = if rest.is_empty() {
                    i += 1;
                    value_index = (i < args.len()).then_some(i);
                    args.get(i).cloned()
                } else {
                    // `-o=/tmp/app`: Go's and other flag parsers take what follows the `=`.
                    Some(part(
                        rest.strip_prefix('=')
                            .filter(|r| !r.is_empty())
                            .unwrap_or(rest),
                    ))
                };
                s.opts.push(Opt {
                    name,
                    value,
                    index,
                    value_index,
                });
                break;
            }
            // `-p*` among the flags: the value, if any, is glued (mysql's `-pPASSWORD`; a
            // bare `-p` asks for it).
            let rest = &cluster[k + c.len_utf8()..];
            let glued = !rest.is_empty()
                && flags
                    .iter()
                    .any(|f| f.strip_suffix('*').is_some_and(|f| name.is(f)));
            s.opts.push(Opt {
                name,
                value: glued.then(|| part(rest)),
                index,
                value_index: None,
            });
            if glued {
                break;
            }
        }
        i += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split(' ').map(Word::lit).collect()
    }

    #[test]
    fn a_flag_with_a_glued_value_takes_only_what_is_glued() {
        let args = words("-u app -pS3cret db -p");
        let sc = scan_with(&args, &["-u"], &["-p", "-p*"], false, false);
        let p: Vec<_> = sc
            .opts
            .iter()
            .filter(|o| o.name.is("-p"))
            .map(|o| o.value.as_ref().map(|v| v.text.clone()))
            .collect();
        assert_eq!(p, [Some("S3cret".to_owned()), None]);
        assert_eq!(
            sc.pos.iter().map(|w| w.text.as_str()).collect::<Vec<_>>(),
            ["db"]
        );
    }

    #[test]
    fn options_values_and_positionals() {
        let args = words("-rf -ofile -e x --out=a.txt --force --level 3 -- -p pos");
        let sc = scan(&args, &["-o", "-e", "--level", "-p"], false);
        for name in ["-r", "-f", "-o", "-e", "--out", "--force", "--level"] {
            assert!(sc.has(&[name]), "{name}");
        }
        for name in ["-p", "--", "-", "--o", "-rf", "--out=a.txt", "r", "--forc"] {
            assert!(!sc.has(&[name]), "{name}");
        }
        let value = |n: &str| sc.value(&[n]).map(|w| w.text.clone());
        assert_eq!(value("-o").as_deref(), Some("file"));
        assert_eq!(value("-e").as_deref(), Some("x"));
        assert_eq!(value("--out").as_deref(), Some("a.txt"));
        assert_eq!(value("--level").as_deref(), Some("3"));
        assert_eq!(value("-r"), None);
        let pos: Vec<&str> = sc.pos.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(pos, ["-p", "pos"]);
        assert_eq!(sc.pos_index, [9, 10]);
    }

    #[test]
    fn abbreviated_long_options_match_where_the_program_allows_them() {
        let args = words("--forc --mess hello --del x");
        let sc = scan_with(&args, &["--message"], &[], false, true);
        for name in ["--force", "--message", "--delete"] {
            assert!(sc.has(&[name]), "{name}");
        }
        assert!(!sc.has(&["--dry-run", "--fo"]));
        assert_eq!(
            sc.value(&["--message"]).map(|w| w.text.as_str()),
            Some("hello")
        );
        let pos: Vec<&str> = sc.pos.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(pos, ["x"]);
        let exact = scan(&args, &["--message"], false);
        assert!(!exact.has(&["--force"]));
    }

    #[test]
    fn a_value_cut_from_a_word_keeps_its_flags_and_multibyte_letters_are_options() {
        let mut quoted = Word::lit("-o$x");
        quoted.literal = false;
        quoted.quoted = true;
        let args = vec![Word::lit("-é"), quoted];
        let sc = scan(&args, &["-o"], false);
        assert!(sc.has(&["-é"]));
        let v = sc.value(&["-o"]).unwrap();
        assert_eq!((v.text.as_str(), v.literal, v.quoted), ("$x", false, true));
    }
}
