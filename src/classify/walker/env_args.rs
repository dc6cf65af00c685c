//! `env`'s own grammar (GNU coreutils 9, with BSD's letters): its options as getopt reads
//! them — short letters in clusters with glued values (`-iC/`), long options by any unique
//! prefix (`--ch=/` is `--chdir=/`), `-` as `-i` — then assignments and the command.

use crate::shell::Word;

/// What an option of env takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// Nothing.
    Nothing,
    /// A value: glued, after `=`, or the next word.
    Value,
    /// A value only when glued by `=` (`--ignore-signal=INT`).
    Optional,
}

/// What an option does that the walker needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Does {
    /// Nothing the walker follows (names, signals, output format).
    Nothing,
    /// Empties the environment.
    Empties,
    /// Changes the directory the command runs in.
    Chdir,
    /// Splits its value into arguments (`-S`).
    Splits,
}

/// The long options, by their whole name.
const LONG: &[(&str, Takes, Does)] = &[
    ("argv0", Takes::Value, Does::Nothing),
    ("ignore-environment", Takes::Nothing, Does::Empties),
    ("null", Takes::Nothing, Does::Nothing),
    ("unset", Takes::Value, Does::Nothing),
    ("chdir", Takes::Value, Does::Chdir),
    ("split-string", Takes::Value, Does::Splits),
    ("block-signal", Takes::Optional, Does::Nothing),
    ("default-signal", Takes::Optional, Does::Nothing),
    ("ignore-signal", Takes::Optional, Does::Nothing),
    ("list-signal-handling", Takes::Nothing, Does::Nothing),
    ("debug", Takes::Nothing, Does::Nothing),
    ("help", Takes::Nothing, Does::Nothing),
    ("version", Takes::Nothing, Does::Nothing),
];

/// The short options.
const SHORT: &[(char, Takes, Does)] = &[
    ('a', Takes::Value, Does::Nothing),
    ('i', Takes::Nothing, Does::Empties),
    ('0', Takes::Nothing, Does::Nothing),
    ('u', Takes::Value, Does::Nothing),
    ('C', Takes::Value, Does::Chdir),
    ('S', Takes::Value, Does::Splits),
    ('v', Takes::Nothing, Does::Nothing),
];

/// env's words, read.
#[derive(Debug, Default)]
pub(super) struct EnvArgs {
    /// The folder the command runs in (`-C DIR`; the last one given).
    pub chdir: Option<Word>,
    /// The text `-S` splits, with the index of the word after it.
    pub split: Option<(Word, usize)>,
    /// The environment is emptied (`-i`, `-`).
    pub empties: bool,
    /// Indices of options env does not know (it refuses them) or that are ambiguous.
    pub gaps: Vec<usize>,
    /// Index of the first word after the options (an assignment or the command).
    pub rest: usize,
}

/// Returns the long option a name written after `--` is: itself, or the only one it begins
/// (getopt_long takes any unique prefix).
fn long(name: &str) -> Option<(Takes, Does)> {
    if let Some(&(_, t, d)) = LONG.iter().find(|(n, ..)| *n == name) {
        return Some((t, d));
    }
    let mut found = LONG.iter().filter(|(n, ..)| n.starts_with(name));
    match (found.next(), found.next()) {
        (Some(&(_, t, d)), None) if !name.is_empty() => Some((t, d)),
        _ => None,
    }
}

/// Records what an option does; `next` is the index of the word after it.
fn act(out: &mut EnvArgs, does: Does, value: Option<Word>, next: usize) {
    match (does, value) {
        (Does::Empties, _) => out.empties = true,
        (Does::Chdir, Some(v)) => out.chdir = Some(v),
        (Does::Splits, Some(v)) => out.split = Some((v, next)),
        _ => {}
    }
}

/// Reads env's options from `args` (the words after `env`).
pub(super) fn read(args: &[Word]) -> EnvArgs {
    let mut out = EnvArgs::default();
    let value_of = |w: &Word, text: &str| Word {
        text: text.to_owned(),
        ..w.clone()
    };
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let a = w.text.as_str();
        if a == "-" {
            out.empties = true;
            i += 1;
            continue;
        }
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        if !w.literal {
            // An option computed at run time can be any, `-C DIR` too: where the command
            // runs is unknown.
            out.gaps.push(i);
            out.chdir = Some(w.clone());
            i += 1;
            continue;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, glued) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            match long(name) {
                Some((Takes::Value, does)) => {
                    let value = match glued {
                        Some(v) => Some(value_of(w, v)),
                        None => {
                            i += 1;
                            args.get(i).cloned()
                        }
                    };
                    if value.is_none() {
                        out.gaps.push(i.min(args.len() - 1));
                    }
                    act(&mut out, does, value, i + 1);
                }
                Some((Takes::Optional, _)) => {}
                Some((Takes::Nothing, does)) => {
                    if glued.is_some() {
                        out.gaps.push(i);
                    }
                    act(&mut out, does, None, i + 1);
                }
                None => out.gaps.push(i),
            }
            i += 1;
            if out.split.is_some() {
                break;
            }
            continue;
        }
        // A cluster of letters: one that takes a value takes the rest of the word, or the
        // next word.
        let cluster = &a[1..];
        for (k, c) in cluster.char_indices() {
            match SHORT.iter().find(|(l, ..)| *l == c) {
                Some(&(_, Takes::Value, does)) => {
                    let rest = &cluster[k + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i).cloned()
                    } else {
                        Some(value_of(w, rest))
                    };
                    if value.is_none() {
                        out.gaps.push(i.min(args.len() - 1));
                    }
                    act(&mut out, does, value, i + 1);
                    break;
                }
                Some(&(_, _, does)) => act(&mut out, does, None, i + 1),
                None => {
                    out.gaps.push(i);
                    break;
                }
            }
        }
        i += 1;
        if out.split.is_some() {
            break;
        }
    }
    out.rest = i.min(args.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split(' ').map(Word::lit).collect()
    }

    fn chdir(line: &str) -> (Option<String>, usize, Vec<usize>) {
        let args = words(line);
        let e = read(&args);
        (e.chdir.map(|w| w.text), e.rest, e.gaps)
    }

    #[test]
    fn every_spelling_of_chdir_is_read() {
        for line in [
            "-C / rm",
            "-C/ rm",
            "--chdir / rm",
            "--chdir=/ rm",
            "--ch=/ rm",
            "--c / rm",
            "--chd=/ rm",
            "-iC/ rm",
            "-iC / rm",
            "-0vC/ rm",
            "-u X -C / rm",
            "--unset=X --chdir=/ rm",
            "--un X --chdir=/ rm",
            "- -C / rm",
            "--ignore-signal=INT -C / rm",
        ] {
            let (dir, rest, gaps) = chdir(line);
            assert_eq!(dir.as_deref(), Some("/"), "{line}");
            assert!(gaps.is_empty(), "{line}: {gaps:?}");
            assert_eq!(words(line)[rest].text, "rm", "{line}");
        }
    }

    #[test]
    fn unknown_and_ambiguous_options_are_gaps_and_values_are_not_commands() {
        // `--d` is --debug or --default-signal; `--i` --ignore-environment or --ignore-signal.
        for (line, gap) in [
            ("--d rm", 0),
            ("--i rm", 0),
            ("-x rm", 0),
            ("--bogus rm", 0),
        ] {
            let (_, rest, gaps) = chdir(line);
            assert_eq!(gaps, [gap], "{line}");
            assert_eq!(rest, 1, "{line}");
        }
        let args = words("-u PATH -a name ls");
        assert_eq!(read(&args).rest, 4);
        let args = words("-S rm -rf x");
        let e = read(&args);
        assert_eq!(e.split.map(|(w, i)| (w.text, i)), Some(("rm".into(), 2)));
        let args = words("-i A=1 ls");
        let e = read(&args);
        assert!(e.empties);
        assert_eq!(e.rest, 1);
    }
}
