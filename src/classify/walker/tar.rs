//! tar's command line read as GNU tar and bsdtar read it: the operation, the archive file and
//! the folder, from old-style letters (`tar cf out.tar dir`), short clusters whose option with
//! a value takes the rest of the cluster or the next word (`-cf.claude/settings.json`,
//! `-C dir`), and long options (`--create`, `--file=out.tar`). A pure reading of words; the
//! handler (`files.rs`) judges it.

use crate::shell::Word;

/// What a tar command line does.
#[derive(Debug, Default)]
pub(super) struct Tar {
    /// Its operation.
    pub op: Op,
    /// The archive (`-f`), when named.
    pub file: Option<Word>,
    /// The folder it works in (`-C`).
    pub dir: Option<Word>,
    /// An option that runs a program given on the command line (`--to-command`,
    /// `--checkpoint-action=exec=…`, `--use-compress-program`, `-I`, `-F`, `--rsh-command`):
    /// its name.
    pub runs: Option<String>,
    /// Words that are not options or their values: the files archived, or extracted.
    pub files: Vec<Word>,
    /// Other files it writes: `--index-file`, `--volno-file`, `-g` (a snapshot).
    pub writes: Vec<Word>,
    /// Whether extracted names can land anywhere: `-P` (absolute names), `--transform`, or
    /// `-C` given more than once (each relative to the last).
    pub anywhere: bool,
    /// How many `-C` it has.
    dirs: usize,
}

/// tar's operations.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
pub(super) enum Op {
    /// None named (tar refuses to run).
    #[default]
    None,
    /// `-t`: lists the archive.
    List,
    /// `-d`: compares the archive with the files.
    Diff,
    /// `-x`: extracts.
    Extract,
    /// `-c`: creates the archive.
    Create,
    /// `-r`, `-u`, `-A`, `--delete`: changes an existing archive.
    Change,
}

/// Short options that take a value (GNU tar and bsdtar).
const SHORT_VALUED: &str = "fCIFTXKNbgHLV";

/// Long options that take a value when it is not glued with `=`.
const LONG_VALUED: &[&str] = &[
    "--file",
    "--directory",
    "--use-compress-program",
    "--to-command",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
    "--files-from",
    "--exclude-from",
    "--exclude",
    "--starting-file",
    "--newer",
    "--after-date",
    "--newer-mtime",
    "--blocking-factor",
    "--listed-incremental",
    "--format",
    "--label",
    "--tape-length",
    "--owner",
    "--group",
    "--index-file",
    "--volno-file",
    "--suffix",
    "--transform",
    "--xform",
    "--mode",
    "--mtime",
    "--owner-map",
    "--group-map",
    "--strip-components",
    "--exclude-tag",
    "--exclude-tag-all",
    "--exclude-tag-under",
    "--exclude-ignore",
    "--exclude-ignore-recursive",
    "--record-size",
    "--sparse-version",
    "--quoting-style",
    "--quote-chars",
    "--no-quote-chars",
    "--pax-option",
    "--warning",
    "--xattrs-include",
    "--xattrs-exclude",
    "--sort",
    "--hole-detection",
    "--level",
];

/// Long options that run a program named by their value.
const LONG_RUNS: [&str; 7] = [
    "--use-compress-program",
    "--to-command",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
    "--checkpoint-action",
];

/// Reads a tar command line (the words after `tar`).
pub(super) fn parse(args: &[Word]) -> Tar {
    let mut t = Tar::default();
    let mut op = |t: &mut Tar, o: Op| {
        // The strongest operation named wins: a change over a listing.
        if rank(o) > rank(t.op) {
            t.op = o;
        }
    };
    let mut i = 0;
    let mut values_of_old_style: Vec<char> = Vec::new();
    let mut only_files = false;
    while i < args.len() {
        let w = &args[i];
        let text = w.text.as_str();
        i += 1;
        if only_files || !text.starts_with('-') || text == "-" {
            if i == 1 && !only_files && !text.is_empty() && text != "-" {
                // Old style: `tar cvf out.tar dir`, letters whose values follow in order.
                for ch in text.chars() {
                    letter(&mut t, &mut op, ch);
                    if SHORT_VALUED.contains(ch) {
                        values_of_old_style.push(ch);
                    }
                }
                continue;
            }
            if let Some(ch) =
                (!values_of_old_style.is_empty()).then(|| values_of_old_style.remove(0))
            {
                value(&mut t, ch, w.clone());
                continue;
            }
            t.files.push(w.clone());
            continue;
        }
        if text == "--" {
            only_files = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (given, glued) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_owned())),
                None => (text.to_owned(), None),
            };
            // GNU tar takes any unambiguous beginning of a long option (`--extr`): a
            // beginning is read as the option it starts, the strongest when several.
            let name = full_name(&given);
            match name.as_str() {
                "--list" => op(&mut t, Op::List),
                "--diff" | "--compare" => op(&mut t, Op::Diff),
                "--extract" | "--get" => op(&mut t, Op::Extract),
                "--create" => op(&mut t, Op::Create),
                "--append" | "--update" | "--catenate" | "--concatenate" | "--delete" => {
                    op(&mut t, Op::Change)
                }
                _ => {}
            }
            if LONG_RUNS.contains(&name.as_str())
                && (name != "--checkpoint-action"
                    || glued.as_deref().is_none_or(|v| v.starts_with("exec")))
            {
                t.runs = Some(name.clone());
            }
            let valued = LONG_VALUED.contains(&name.as_str());
            if matches!(
                name.as_str(),
                "--transform" | "--xform" | "--absolute-names"
            ) {
                t.anywhere = true;
            }
            let v = match glued {
                Some(v) => Some(Word {
                    text: v,
                    ..w.clone()
                }),
                None if valued => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
                None => None,
            };
            if let Some(v) = v {
                match name.as_str() {
                    "--file" => t.file = Some(v),
                    "--directory" => value(&mut t, 'C', v),
                    "--index-file" | "--volno-file" | "--listed-incremental" => t.writes.push(v),
                    _ => {}
                }
            }
            continue;
        }
        // A short cluster: `-xvf a.tar`, `-cf.claude/settings.json`, `-C dir`.
        let body = &text[1..];
        for (k, ch) in body.char_indices() {
            letter(&mut t, &mut op, ch);
            if SHORT_VALUED.contains(ch) {
                if let Some(v) = cluster_value(args, &mut i, w, &body[k + ch.len_utf8()..]) {
                    value(&mut t, ch, v);
                }
                break;
            }
        }
    }
    t
}

/// The long options that name an operation, strongest first.
const LONG_OPS: [&str; 11] = [
    "--delete",
    "--append",
    "--update",
    "--catenate",
    "--concatenate",
    "--extract",
    "--get",
    "--create",
    "--diff",
    "--compare",
    "--list",
];

/// The long option a given name spells in full or begins (the first it begins of the
/// operations, then the options with values and those that run programs; the name itself
/// when it begins none).
fn full_name(given: &str) -> String {
    let mut names = LONG_OPS.iter().chain(LONG_VALUED).chain(&LONG_RUNS);
    if given.len() < 4 || names.clone().any(|n| *n == given) {
        return given.to_owned();
    }
    names
        .find(|n| n.starts_with(given))
        .map_or_else(|| given.to_owned(), |n| (*n).to_owned())
}

/// The value of a short option ending a cluster's letters: the rest of the cluster, or (when
/// none is left) the next word, which `next` then moves past.
pub(super) fn cluster_value(args: &[Word], next: &mut usize, w: &Word, rest: &str) -> Option<Word> {
    if rest.is_empty() {
        *next += 1;
        args.get(*next - 1).cloned()
    } else {
        Some(Word {
            text: rest.to_owned(),
            ..w.clone()
        })
    }
}

/// The order in which operations win over each other.
fn rank(o: Op) -> u8 {
    match o {
        Op::None => 0,
        Op::List => 1,
        Op::Diff => 2,
        Op::Create => 3,
        Op::Extract => 4,
        Op::Change => 5,
    }
}

/// A letter of a cluster or of the old-style first word.
fn letter(t: &mut Tar, op: &mut impl FnMut(&mut Tar, Op), ch: char) {
    match ch {
        't' => op(t, Op::List),
        'd' => op(t, Op::Diff),
        'x' => op(t, Op::Extract),
        'c' => op(t, Op::Create),
        'r' | 'u' | 'A' => op(t, Op::Change),
        'I' | 'F' => t.runs = Some(format!("-{ch}")),
        'P' => t.anywhere = true,
        _ => {}
    }
}

/// The value of a short option.
fn value(t: &mut Tar, ch: char, v: Word) {
    match ch {
        'f' => t.file = Some(v),
        'C' => {
            t.dirs += 1;
            t.anywhere |= t.dirs > 1;
            t.dir = Some(v);
        }
        'g' => t.writes.push(v),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Tar {
        let words: Vec<Word> = line.split_whitespace().map(Word::lit).collect();
        parse(&words)
    }

    fn file(t: &Tar) -> Option<&str> {
        t.file.as_ref().map(|w| w.text.as_str())
    }

    #[test]
    fn operations_and_archives_in_every_spelling() {
        for (line, op, archive) in [
            ("cf out.tar dir", Op::Create, Some("out.tar")),
            ("cvfz out.tgz dir", Op::Create, Some("out.tgz")),
            ("-cf out.tar dir", Op::Create, Some("out.tar")),
            (
                "-cf.claude/settings.json x",
                Op::Create,
                Some(".claude/settings.json"),
            ),
            ("-c -f out.tar x", Op::Create, Some("out.tar")),
            ("--create --file=out.tar x", Op::Create, Some("out.tar")),
            ("--create --file out.tar x", Op::Create, Some("out.tar")),
            ("-rf a.tar x", Op::Change, Some("a.tar")),
            ("--append --file=a.tar x", Op::Change, Some("a.tar")),
            ("--delete -f a.tar x", Op::Change, Some("a.tar")),
            ("tf a.tar", Op::List, Some("a.tar")),
            ("-tvf a.tar", Op::List, Some("a.tar")),
            ("--list --file=a.tar", Op::List, Some("a.tar")),
            ("xf a.tar", Op::Extract, Some("a.tar")),
            ("-xzf a.tgz -C out", Op::Extract, Some("a.tgz")),
            ("-tf a.tar -x", Op::Extract, Some("a.tar")),
            ("-dvf a.tar", Op::Diff, Some("a.tar")),
            ("--version", Op::None, None),
            ("--extr -fdata.tar", Op::Extract, Some("data.tar")),
            ("--cre --fi=out.tar x", Op::Create, Some("out.tar")),
            (
                "-r -Hustar -f .claude/settings.json x",
                Op::Change,
                Some(".claude/settings.json"),
            ),
        ] {
            let t = read(line);
            assert_eq!((t.op, file(&t)), (op, archive), "{line}");
        }
    }

    #[test]
    fn values_are_not_read_as_letters() {
        // The `t` and `x` of a file name or folder are no operation.
        let t = read("-cf.claude/settings.json x");
        assert_eq!(t.op, Op::Create);
        let t = read("-c -C text -f out.tar x");
        assert_eq!(
            (t.op, t.dir.map(|w| w.text)),
            (Op::Create, Some("text".into()))
        );
        let t = read("cfC out.tar xdir files");
        assert_eq!(file(&t), Some("out.tar"));
        assert_eq!(t.dir.map(|w| w.text), Some("xdir".into()));
        assert_eq!(t.files.len(), 1);
    }

    #[test]
    fn files_written_beside_the_archive_and_names_placed_anywhere() {
        for line in [
            "-tvf a.tar --index-file=.claude/settings.json",
            "-tf a.tar --volno-file=x",
            "-c -g snap -f /dev/null x",
            "-cf /dev/null --listed-incremental snap x",
        ] {
            assert_eq!(read(line).writes.len(), 1, "{line}");
        }
        for line in [
            "-xPf a.tar",
            "-xf a.tar --absolute-names",
            "-xf a.tar --transform=s,^,/x/,",
            "-xf a.tar -C .claude -C src",
        ] {
            assert!(read(line).anywhere, "{line}");
        }
        let t = read("-x --suffix -C/tmp/o -f a.tar");
        assert_eq!(
            (t.dir, t.anywhere),
            (None, false),
            "--suffix takes -C/tmp/o"
        );
    }

    #[test]
    fn options_that_run_programs_are_named() {
        for line in [
            "-tf a.tar --checkpoint=1 --checkpoint-action=exec=sh",
            "-xf a.tar --to-command=sh",
            "-xf a.tar --to-command sh",
            "cf - . --use-compress-program=evil",
            "-tf a.tar -I evil",
            "-tIevil -f a.tar",
            "-cf a.tar -F script x",
            "-cf host:a.tar --rsh-command=evil x",
            "-tf a.tar --to-com=sh",
            "-tf a.tar --checkpoint-act=exec=sh",
        ] {
            assert!(read(line).runs.is_some(), "{line}");
        }
        for line in [
            "-tf a.tar --checkpoint=1 --checkpoint-action=dot",
            "-czf a.tgz x",
        ] {
            assert_eq!(read(line).runs, None, "{line}");
        }
    }
}
