//! Handlers for archivers, each reading its options as the program does: tar (its words read
//! by `tar.rs`), unzip, 7z and unrar, the gzip family, zip and cpio. Extraction writes its
//! folder (asked over a folder holding oath's or Claude Code's settings), creation its archive;
//! listings read; an option that runs a program or deletes the files archived is asked.

use super::tar::Op;
use crate::shell::Word;

use super::super::effect::Effect;
use super::super::pack::schema::{Act, PathNote};
use super::super::paths::{self, Target};
use super::super::rule::Finding;
use super::super::{Domain, Risk};
use super::apply::Handled;
use super::{Leaf, Walker};

impl Walker<'_> {
    /// tar: extraction writes the directory, creation and changes the archive; listings read;
    /// an option that runs a program given to tar is not followed.
    pub(super) fn h_tar(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let t = super::tar::parse(c.args());
        if t.files
            .iter()
            .any(|w| self.carries_credentials(&self.target(w)))
        {
            leaf.produces.secret = true;
        }
        // Options read from the environment: `TAR_OPTIONS` (any option, one that runs a
        // program included) and `TAPE` (the archive when no `-f` names it).
        if let Some((name, _)) =
            c.s.assigns
                .iter()
                .find(|(n, _)| n == "TAR_OPTIONS" || n == "TAPE" && t.file.is_none())
        {
            self.found(
                c,
                Effect::NotUnderstood,
                "tar-runs-program",
                &format!("tar reads {name} from its environment, options oath does not follow"),
                "",
            );
        }
        for w in &t.writes {
            self.writes_file(c, w, "writes", None);
        }
        if t.anywhere && t.op == Op::Extract {
            self.found(
                c,
                Effect::NotUnderstood,
                "extract-anywhere",
                "tar extracts names oath cannot place (-P, --transform, or -C given again)",
                "",
            );
        }
        if let Some(option) = &t.runs {
            self.found(
                c,
                Effect::NotUnderstood,
                "tar-runs-program",
                &format!("tar {option} runs a program given on the command line"),
                "",
            );
        }
        match t.op {
            Op::Extract => self.extract_into(c, t.dir.as_ref()),
            Op::List | Op::Diff => self.read_paths(c.t(), &[], "lists an archive:", leaf),
            Op::Create | Op::Change => {
                match t.file.as_ref().filter(|o| o.text != "-") {
                    Some(o) => {
                        // A new archive replaces what the file held; a change adds to it.
                        if t.op == Op::Create {
                            let note = Some(PathNote::Overwrites);
                            self.writes_file(c, o, "writes the archive", note);
                        } else {
                            self.writes_file(c, o, "changes the archive", None);
                        }
                    }
                    None if t.op == Op::Create => {
                        self.read_paths(c.t(), &[], "archives files to stdout:", leaf)
                    }
                    None => self.unknown_archive_write(c),
                }
                let secrets: Vec<Target> = t
                    .files
                    .iter()
                    .map(|w| self.target(w))
                    .filter(|t| self.carries_credentials(t))
                    .map(|t| self.as_credentials(t))
                    .collect();
                if !secrets.is_empty() {
                    self.read_paths(c.t(), &secrets, "archives", leaf);
                    // The archive holds them too.
                    if let Some(o) = t.file.as_ref().filter(|o| o.text != "-") {
                        let dest = self.target(o);
                        self.taint(&c.s.text, &secrets[0], &dest);
                    }
                }
            }
            Op::None => self.unknown_archive_write(c),
        }
    }

    /// The files an archive is made from: credentials among them are read, and the
    /// archive holds them too.
    fn archived(&mut self, c: &Handled<'_, '_, '_>, archive: &Word, files: &[&Word]) {
        let secrets: Vec<Target> = files
            .iter()
            .map(|w| self.target(w))
            .filter(|t| self.carries_credentials(t))
            .map(|t| self.as_credentials(t))
            .collect();
        if secrets.is_empty() {
            return;
        }
        let mut leaf = Leaf::default();
        self.read_paths(c.t(), &secrets, "archives", &mut leaf);
        if archive.text != "-" {
            let dest = self.target(archive);
            self.taint(&c.s.text, &secrets[0], &dest);
        }
    }

    /// Writing a file: an archive, or one a compressor replaces.
    fn writes_file(
        &mut self,
        c: &Handled<'_, '_, '_>,
        file: &Word,
        verb: &str,
        note: Option<PathNote>,
    ) {
        let tg = self.target(file);
        self.found(c, Effect::Write(tg, note), "write", "", verb);
    }

    /// A tar whose archive or operation is not known: it may write anything.
    fn unknown_archive_write(&mut self, c: &Handled<'_, '_, '_>) {
        let mut f = Finding::new(Domain::FileWrite, Risk::Medium, "archive", "tar");
        f.effect = Some("write(?)".into());
        self.push(c.t(), f);
    }

    /// unzip, 7z, unrar: listings (and help) read; extraction writes its directory.
    pub(super) fn h_unzip(&mut self, c: &Handled<'_, '_, '_>) {
        let args = c.args();
        let first = args
            .iter()
            .find(|a| !a.text.starts_with('-'))
            .map(|a| a.text.as_str());
        // The walker names a program by its base name (`/usr/bin/unzip` is `unzip`).
        let program = c.name;
        // Alone, these print help (with another word, they are not trusted to).
        let help = matches!(args, [only] if matches!(only.text.as_str(), "--help" | "-h" | "-hh"));
        let listing = args.is_empty()
            || help
            || if program.starts_with("7z") || program == "unrar" {
                // `7z l a.7z`, `unrar lb a.rar`: the first word is the command (their
                // options are not unzip's: `-p` gives a password, `-t` a type).
                matches!(
                    first,
                    Some(
                        "l" | "t"
                            | "h"
                            | "i"
                            | "b"
                            | "lt"
                            | "lta"
                            | "lb"
                            | "v"
                            | "vt"
                            | "vta"
                            | "vb"
                    )
                )
            } else {
                // unzip's first word is the archive (`unzip -o t` extracts `t.zip`): only
                // its options before it list (`-l`, `-v`, `-t`, `-Z`), print (`-p`, `-c`) or
                // show the comment (`-z`); after it, words are members (`-x -l` excludes a
                // member named `-l`).
                args.iter()
                    .take_while(|a| a.text.starts_with('-'))
                    .any(|a| {
                        let t = a.text.as_str();
                        t.starts_with('-')
                            && !t.starts_with("--")
                            && t.len() > 1
                            && t[1..].chars().all(|ch| "ltvZpcq1z".contains(ch))
                            && t[1..].chars().any(|ch| "ltvZpcz".contains(ch))
                    })
            };
        if listing {
            let mut f = Finding::new(
                Domain::FileRead,
                Risk::Low,
                "read",
                "lists or tests an archive, or prints help",
            );
            f.effect = Some("read()".into());
            self.push(c.t(), f);
            return;
        }
        let glued = |a: &Word, v: &str| Word {
            text: v.into(),
            ..a.clone()
        };
        // `7z a ARCHIVE FILES…` (and `u`, update): credentials among the files are read, and
        // the archive holds them (what else it does is judged below, as before).
        if program.starts_with("7z") && matches!(first, Some("a" | "u")) {
            let pos: Vec<&Word> = args
                .iter()
                .filter(|a| !a.text.starts_with('-'))
                .skip(1)
                .collect();
            if let Some(archive) = pos.first() {
                self.archived(c, archive, &pos[1..]);
            }
        }
        let dir = if program.starts_with("7z") {
            // 7z: `-oDIR`.
            args.iter().find_map(|a| {
                a.text
                    .strip_prefix("-o")
                    .filter(|v| !v.is_empty())
                    .map(|v| glued(a, v))
            })
        } else if program == "unrar" {
            // unrar: a last word ending in a separator (`unrar x a.rar out/`); `-o+` is
            // overwriting, not a folder.
            args.iter()
                .skip(1)
                .rfind(|a| !a.text.starts_with('-') && a.text.ends_with('/'))
                .cloned()
        } else {
            // unzip: `-d DIR`, `-dDIR`, or a cluster ending in `d` (`-od DIR`); a `-P`
            // before it takes the rest as its password (`-Pd/x` names no folder).
            args.iter().enumerate().find_map(|(i, a)| {
                let t = a.text.as_str();
                if !t.starts_with('-') || t.starts_with("--") {
                    return None;
                }
                for (k, ch) in t[1..].char_indices() {
                    match ch {
                        'P' => return None,
                        'd' => {
                            let rest = &t[1 + k + 1..];
                            return if rest.is_empty() {
                                args.get(i + 1).cloned()
                            } else {
                                Some(glued(a, rest))
                            };
                        }
                        _ => {}
                    }
                }
                None
            })
        };
        self.extract_into(c, dir.as_ref());
    }

    /// Pushes extracting an archive into `dir` (or the working directory). Its entries are
    /// unknown: into a folder that holds oath's or Claude Code's settings, it could replace
    /// them.
    fn extract_into(&mut self, c: &Handled<'_, '_, '_>, dir: Option<&Word>) {
        let tg = match dir {
            Some(d) => self.target(d),
            None => self.cwd_target(),
        };
        if paths::contains_protected(&tg, self.ctx) {
            self.found(
                c,
                Effect::NotUnderstood,
                "extract-over-settings",
                &format!(
                    "extracts an archive oath cannot see into {}, which holds oath's or Claude Code's settings",
                    tg.shown()
                ),
                "",
            );
        }
        self.found(
            c,
            Effect::Write(tg, None),
            "write",
            "",
            "extracts an archive into",
        );
    }

    /// gzip, xz, zstd …: to stdout they filter; on files they replace them.
    pub(super) fn h_compress(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (name, args) = (c.name, c.args());
        match name {
            "cpio" => return self.h_cpio(c, leaf),
            "zip" => return self.h_zip(c),
            _ => {}
        }
        // The gzip family: `-c` writes to stdout, `-l` lists, `-t` tests (lz4's `-l` is its
        // legacy format, and it then writes its output file).
        let to_stdout = args.iter().any(|a| {
            matches!(a.text.as_str(), "-c" | "--stdout" | "-t" | "--test")
                || name != "lz4" && matches!(a.text.as_str(), "-l" | "--list")
        });
        let decompress = matches!(name, "gunzip" | "bunzip2" | "unxz" | "unzstd")
            || args.iter().any(|a| {
                a.text == "--decompress"
                    || a.text.strip_prefix('-').is_some_and(|l| {
                        !l.starts_with('-')
                            && l.chars().all(|c| c.is_ascii_alphanumeric())
                            && l.contains('d')
                    })
            });
        // `-r` replaces every file of a folder: the names are not on the line. lz4 and
        // brotli take the output's name as their second file.
        let recursive = args
            .iter()
            .any(|a| a.text == "-r" || a.text == "--recursive");
        let force = args.iter().any(|a| {
            a.text == "--force"
                || a.text.strip_prefix('-').is_some_and(|l| {
                    !l.starts_with('-')
                        && l.chars().all(|c| c.is_ascii_alphanumeric())
                        && l.contains('f')
                })
        });
        if decompress {
            leaf.produces.decode = true;
        }
        // `-S SUFFIX` (gzip, xz, zstd …): the suffix it adds or strips instead of its own.
        let mut custom: Option<&str> = None;
        let mut skip = None;
        for (i, a) in args.iter().enumerate() {
            let t = a.text.as_str();
            if let Some(v) = t.strip_prefix("--suffix=") {
                custom = Some(v);
            } else if t == "-S" || t == "--suffix" {
                custom = args.get(i + 1).map(|v| v.text.as_str());
                skip = Some(i + 1);
            } else if let Some(v) = t.strip_prefix("-S").filter(|v| !v.is_empty()) {
                custom = Some(v);
            }
        }
        if to_stdout {
            let mut f = Finding::new(
                Domain::FileRead,
                Risk::Low,
                "read",
                format!("{name} to stdout"),
            );
            f.effect = Some("read()".into());
            self.push(c.t(), f);
            return;
        }
        let files: Vec<&Word> = args
            .iter()
            .enumerate()
            .filter(|(i, a)| !a.text.starts_with('-') && Some(*i) != skip)
            .map(|(_, a)| a)
            .collect();
        if files.is_empty() {
            self.act(
                c,
                Act::ShellHarmless,
                "filter",
                &format!("{name} filters stdin"),
            );
        }
        let suffix = match name {
            "gzip" | "pigz" => Some(".gz"),
            "bzip2" | "pbzip2" => Some(".bz2"),
            "xz" | "lzma" => Some(if name == "xz" { ".xz" } else { ".lzma" }),
            "zstd" => Some(".zst"),
            "lz4" => Some(".lz4"),
            "brotli" => Some(".br"),
            "compress" => Some(".Z"),
            _ => None,
        };
        let suffix = custom.or(suffix);
        let named_output = matches!(name, "lz4" | "brotli") && files.len() > 1;
        for w in files {
            self.writes_file(c, w, "compresses or replaces", None);
            // It leaves its output beside: the name with the suffix added, or stripped (over
            // a file already there only when forced).
            if w.literal
                && !recursive
                && !named_output
                && let Some(out) = partner(&w.text, decompress, suffix)
            {
                let note = force.then_some(PathNote::Overwrites);
                self.writes_file(c, &Word::lit(out), "writes", note);
            }
            // `gzip KEY` leaves `KEY.gz`, which holds the credentials.
            let tg = self.target(w);
            if let Some(sfx) = suffix
                && tg.credential
                && w.literal
            {
                let dest = self.target(&Word::lit(format!("{}{sfx}", w.text)));
                self.taint(&c.s.text, &tg, &dest);
            }
        }
    }

    /// cpio: `-t` lists, `-i` extracts into the working directory (or `-D`), `-p` copies
    /// files into a folder, `-o` writes an archive (to stdout, or to `-F`/`-O`).
    fn h_cpio(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let args = c.args();
        let (mut letters, mut file, mut dir, mut pos) = (String::new(), None, None, Vec::new());
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            i += 1;
            let t = a.text.as_str();
            if let Some(long) = t.strip_prefix("--") {
                let (n, v) = long
                    .split_once('=')
                    .map_or((long, None), |(n, v)| (n, Some(v)));
                let value = || Word {
                    text: v.unwrap_or_default().into(),
                    ..a.clone()
                };
                match n {
                    "extract" => letters.push('i'),
                    "create" => letters.push('o'),
                    "pass-through" => letters.push('p'),
                    "list" => letters.push('t'),
                    "file" if v.is_some() => file = Some(value()),
                    "directory" if v.is_some() => dir = Some(value()),
                    _ => {}
                }
                continue;
            }
            if !t.starts_with('-') || t == "-" {
                pos.push(a.clone());
                continue;
            }
            // A cluster: its option with a value takes the rest, or the next word.
            for (k, ch) in t[1..].char_indices() {
                if "CDEFHIMOR".contains(ch) {
                    let v = super::tar::cluster_value(args, &mut i, a, &t[1 + k + ch.len_utf8()..]);
                    match ch {
                        'F' | 'O' => file = v,
                        'D' => dir = v,
                        _ => {}
                    }
                    break;
                }
                letters.push(ch);
            }
        }
        if letters.contains('t') {
            self.read_paths(c.t(), &[], "lists an archive:", leaf);
        } else if letters.contains('i') {
            self.extract_into(c, dir.as_ref());
        } else if letters.contains('p') {
            self.extract_into(c, pos.first());
        } else if letters.contains('o') {
            match &file {
                Some(f) => {
                    let note = Some(PathNote::Overwrites);
                    self.writes_file(c, f, "writes the archive", note);
                }
                None => self.act(c, Act::ShellHarmless, "filter", "cpio archives to stdout"),
            }
            // The names it archives, when the line shows them (a here-document, or what
            // `echo` or `printf` pipes in).
            let names: Vec<Word> =
                c.s.stdin_text
                    .as_ref()
                    .filter(|w| w.literal)
                    .map(|w| w.text.clone())
                    .or_else(|| c.stdin.and_then(|f| f.text.clone()))
                    .map(|t| t.split_whitespace().map(Word::lit).collect())
                    .unwrap_or_default();
            let named: Vec<&Word> = names.iter().collect();
            let dest = file.unwrap_or_else(|| Word::lit("-"));
            self.archived(c, &dest, &named);
        } else {
            self.unknown_archive_write(c);
        }
    }

    /// zip: writes its archive (the first word that is no option's value); `-m` deletes the
    /// files it archives and `-TT` runs a command, which are not followed.
    fn h_zip(&mut self, c: &Handled<'_, '_, '_>) {
        let args = c.args();
        let runs = args
            .iter()
            .any(|a| a.text.starts_with("-TT") || a.text.starts_with("--unzip-command"));
        let moves = args.iter().any(|a| {
            a.text == "--move"
                || a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('m')
        });
        if runs || moves {
            let why = if runs {
                "zip -TT runs a command given on the command line"
            } else {
                "zip -m deletes the files it archives"
            };
            self.found(c, Effect::NotUnderstood, "zip-runs-or-deletes", why, "");
            return;
        }
        const VALUED: [&str; 9] = [
            "-t",
            "-tt",
            "-b",
            "-n",
            "-P",
            "-O",
            "--output-file",
            "-Z",
            "-s",
        ];
        let mut archive = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let t = a.text.as_str();
            if VALUED.contains(&t) {
                it.next();
            } else if t == "-x" || t == "-i" {
                break;
            } else if t == "-" || !t.starts_with('-') {
                archive = Some(a);
                break;
            }
        }
        let out = args
            .iter()
            .position(|a| a.text == "-O" || a.text == "--output-file")
            .and_then(|i| args.get(i + 1));
        // An archive that exists is updated; `-O` writes a new one.
        let written = archive
            .map(|a| (a, None))
            .into_iter()
            .chain(out.map(|o| (o, Some(PathNote::Overwrites))));
        for (w, note) in written {
            if w.text == "-" {
                self.act(c, Act::ShellHarmless, "filter", "zip archives to stdout");
                continue;
            }
            self.writes_file(c, w, "writes the archive", note);
        }
        // The files archived: the words after the archive (options and their values aside).
        if let Some(a) = archive {
            let from = args
                .iter()
                .position(|w| std::ptr::eq(w, a))
                .map_or(args.len(), |i| i + 1);
            let mut files: Vec<&Word> = Vec::new();
            let mut it = args[from..].iter();
            while let Some(w) = it.next() {
                if VALUED.contains(&w.text.as_str()) {
                    it.next();
                } else if w.text == "-x" || w.text == "-i" {
                    break;
                } else if !w.text.starts_with('-') {
                    files.push(w);
                }
            }
            let dest = out.unwrap_or(a);
            self.archived(c, dest, &files);
        }
        if archive.is_none() && out.is_none() {
            self.unknown_archive_write(c);
        }
    }
}

/// Returns the file a compressor leaves beside `file`: with `suffix` added, or (decompressing)
/// with it, or any last extension, stripped (`x.tgz` gives `x.tar`).
fn partner(file: &str, decompress: bool, suffix: Option<&str>) -> Option<String> {
    let name = file.rsplit('/').next().unwrap_or(file);
    if matches!(name, "" | "." | "..") {
        return None;
    }
    if !decompress {
        return suffix.map(|sfx| format!("{file}{sfx}"));
    }
    if let Some(stem) = suffix.and_then(|sfx| file.strip_suffix(sfx))
        && !stem.is_empty()
    {
        return Some(stem.to_owned());
    }
    if let Some(stem) = file.strip_suffix(".tgz") {
        return Some(format!("{stem}.tar"));
    }
    let (stem, ext) = file.rsplit_once('.')?;
    (!stem.is_empty() && !stem.ends_with('/') && !ext.contains('/')).then(|| stem.to_owned())
}
