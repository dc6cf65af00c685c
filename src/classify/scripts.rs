//! Files a command runs: what oath reads of them (through a [`Files`] oracle, I/O at the
//! edge), and the language their text is judged in. A script, a sourced file or a program
//! with a shebang is judged by its commands, as if they were on the line.

use std::fmt;
use std::path::Path;

/// Largest script oath reads (the shell parser's own limit): a larger one is not understood.
pub const MAX_SCRIPT_BYTES: usize = crate::shell::MAX_INPUT;
/// Most bytes of scripts read for one call (scripts that run scripts included).
pub const MAX_SCRIPTS_BYTES: usize = 1024 * 1024;
/// Most script files read for one call.
pub const MAX_SCRIPTS: usize = 32;

/// What a file holds, read when the call is decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileText {
    /// Its text (bytes that are not UTF-8 replaced).
    Text(String),
    /// Nothing is there: running it fails.
    Missing,
    /// A compiled program (ELF, Mach-O): the kernel runs it, no shell reads it.
    Binary,
    /// Larger than oath reads.
    TooLarge,
    /// Not a file oath could read (a folder, no permission).
    Unreadable,
}

/// Reads files a command runs. The gate provides one (I/O at the edge); without one, a
/// script is judged by where it lies, as before oath read them.
pub trait Files: Send + Sync {
    /// Returns what `path` holds, read up to `limit` bytes (past it, [`FileText::TooLarge`]).
    fn read(&self, path: &Path, limit: usize) -> FileText;
}

/// A shared [`Files`].
#[derive(Clone)]
pub struct FilesRef(pub std::sync::Arc<dyn Files>);

impl fmt::Debug for FilesRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Files")
    }
}

/// The language a file's text is judged in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang<'a> {
    /// Shell commands.
    Shell,
    /// Code of an interpreter oath reads by its words (`python`, `js`, `perl` …).
    Code(&'a str),
    /// A program oath does not read (`#!/usr/bin/awk -f`, `#!/usr/bin/make -f`).
    Other,
}

/// Returns the language a file runs in when it is executed itself (`./f`): its shebang's
/// program, or the shell for text without one (the kernel refuses it and the shell runs it).
pub(crate) fn executed_as(text: &str) -> Lang<'static> {
    let Some(line) = text.strip_prefix("#!") else {
        return Lang::Shell;
    };
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let Some(prog) = words.next() else {
        return Lang::Shell;
    };
    let mut name = prog.rsplit('/').next().unwrap_or(prog);
    if name == "env" {
        // `#!/usr/bin/env bash`, `#!/usr/bin/env -S python3 -u`.
        match words.find(|w| !w.starts_with('-') && !w.contains('=')) {
            Some(w) => name = w,
            None => return Lang::Other,
        }
    }
    interpreter_lang(name)
}

/// Returns the language of an interpreter by its program name (`python3.12`, `bash`).
pub(crate) fn interpreter_lang(name: &str) -> Lang<'static> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match base {
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "yash" | "posh" | "rbash" => {
            Lang::Shell
        }
        "python" | "pypy" => Lang::Code("python"),
        "node" | "nodejs" | "deno" | "bun" => Lang::Code("js"),
        "perl" => Lang::Code("perl"),
        "ruby" => Lang::Code("ruby"),
        "php" => Lang::Code("php"),
        _ => Lang::Other,
    }
}

/// Returns whether bytes are a compiled program the kernel runs itself (ELF, Mach-O), not
/// a script: its magic number, and a NUL byte in its first line, which makes a shell refuse
/// it when the kernel does too. Nothing else counts: a shell runs text with NUL bytes past
/// its first line, and a "program" whose first line has none.
pub fn is_binary(head: &[u8]) -> bool {
    const MAGIC: [&[u8]; 5] = [
        b"\x7fELF",
        b"\xcf\xfa\xed\xfe",
        b"\xce\xfa\xed\xfe",
        b"\xfe\xed\xfa\xcf",
        b"\xca\xfe\xba\xbe",
    ];
    MAGIC.iter().any(|m| head.starts_with(m))
        && head
            .iter()
            .take(80)
            .take_while(|b| **b != b'\n')
            .any(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebangs_name_the_language() {
        for (text, want) in [
            ("#!/bin/sh\nrm x", Lang::Shell),
            ("#!/usr/bin/env bash\n", Lang::Shell),
            ("#! /bin/bash -e\n", Lang::Shell),
            ("#!/usr/bin/env -S python3 -u\n", Lang::Code("python")),
            ("#!/usr/bin/python3.12\n", Lang::Code("python")),
            ("#!/usr/bin/env node\n", Lang::Code("js")),
            ("#!/usr/bin/perl -w\n", Lang::Code("perl")),
            ("#!/usr/bin/awk -f\n", Lang::Other),
            ("#!/usr/bin/make -f\n", Lang::Other),
            ("#!/usr/bin/env\n", Lang::Other),
            ("#!\n", Lang::Shell),
            ("rm -rf ~\n", Lang::Shell),
            ("", Lang::Shell),
        ] {
            assert_eq!(executed_as(text), want, "{text:?}");
        }
    }

    #[test]
    fn compiled_programs_are_not_scripts() {
        assert!(is_binary(b"\x7fELF\x02\x01\x01\0\0"));
        assert!(
            !is_binary(b"\x7fELF\nrm -rf ~"),
            "the kernel refuses it, a shell runs it"
        );
        assert!(!is_binary(b"rm -rf ~\n\0"), "a shell runs it");
        assert!(!is_binary(b"MZ=1 rm -rf ~"));
        assert!(!is_binary(b"#!/bin/sh\necho hi\n"));
        assert!(!is_binary("echo héllo".as_bytes()));
    }

    /// Files held in memory, as the gate's oracle reads them from disk.
    struct Held(Vec<(&'static str, FileText)>);

    impl Files for Held {
        fn read(&self, path: &Path, limit: usize) -> FileText {
            match self.0.iter().find(|(p, _)| Path::new(p) == path) {
                Some((_, FileText::Text(t))) if t.len() > limit => FileText::TooLarge,
                Some((_, t)) => t.clone(),
                None => FileText::Missing,
            }
        }
    }

    fn judged(cmd: &str) -> crate::classify::Classification {
        let text = |t: &str| FileText::Text(t.to_owned());
        let files = Held(vec![
            ("/p/wipe.sh", text("set -e\nrm -rf \"$HOME\"\n")),
            ("/p/ok.sh", text("#!/bin/sh\necho hi\nls -la\n")),
            ("/p/calls.sh", text("bash wipe.sh\n")),
            ("/p/self.sh", text("echo again\nbash self.sh\n")),
            (
                "/p/gen.py",
                text("import shutil\nshutil.rmtree('/home/dev')\n"),
            ),
            ("/p/tool", text("#!/usr/bin/awk -f\n{ print }\n")),
            (
                "/p/big.sh",
                text(&"echo hi\n".repeat(MAX_SCRIPT_BYTES / 8 + 1)),
            ),
            ("/p/locked.sh", FileText::Unreadable),
            ("/p/app", FileText::Binary),
            ("/p/cd.sh", text("cd /\n")),
        ]);
        let ctx =
            crate::classify::Context::for_project(Path::new("/p"), Some(Path::new("/home/dev")))
                .with_files(std::sync::Arc::new(files));
        crate::classify::classify("Bash", &serde_json::json!({ "command": cmd }), &ctx)
    }

    #[test]
    fn a_script_is_judged_by_its_commands() {
        use crate::classify::{Kind, Risk};
        for (cmd, kind, rule) in [
            ("bash wipe.sh", Kind::Catastrophic, "delete-home"),
            ("sh ./wipe.sh", Kind::Catastrophic, "delete-home"),
            ("source wipe.sh", Kind::Catastrophic, "delete-home"),
            (". ./wipe.sh", Kind::Catastrophic, "delete-home"),
            ("bash < wipe.sh", Kind::Catastrophic, "delete-home"),
            ("./wipe.sh", Kind::Catastrophic, "delete-home"),
            ("bash calls.sh", Kind::Catastrophic, "delete-home"),
            ("BASH_ENV=wipe.sh make", Kind::Catastrophic, "delete-home"),
            (
                "python3 gen.py",
                Kind::Catastrophic,
                "interpreter-delete-outside",
            ),
            ("./gen.py", Kind::NotUnderstood, "unparseable"),
            ("./tool", Kind::NotUnderstood, "run-script-unread"),
            ("bash big.sh", Kind::NotUnderstood, "run-script-unread"),
            ("bash locked.sh", Kind::NotUnderstood, "run-script-unread"),
            (
                "echo 'rm -rf ~' > ok.sh; bash ok.sh",
                Kind::Catastrophic,
                "delete-home",
            ),
            (
                "cat > ok.sh <<'E'\nrm -rf ~\nE\nbash ok.sh",
                Kind::Catastrophic,
                "delete-home",
            ),
            (
                "echo ls >> ok.sh; bash ok.sh",
                Kind::NotUnderstood,
                "run-script-unread",
            ),
            (
                "cp wipe.sh /tmp/n.sh; bash /tmp/n.sh",
                Kind::NotUnderstood,
                "run-script-unread",
            ),
        ] {
            let c = judged(cmd);
            assert_eq!(
                (c.kind, c.rule.as_str()),
                (kind, rule),
                "{cmd}: {}",
                c.reason
            );
        }
        // What is understood is judged as its commands are: no worse for being in a file.
        for cmd in ["bash ok.sh", "./ok.sh", "bash self.sh"] {
            let c = judged(cmd);
            assert_eq!(
                (c.kind, c.risk),
                (Kind::Reversible, Risk::Low),
                "{cmd}: {}",
                c.reason
            );
        }
        // A script's reason names the script; a compiled program and a missing file are
        // judged by where they lie, as before.
        assert!(
            judged("bash wipe.sh")
                .reason
                .starts_with("wipe.sh runs `rm -rf \"$HOME\"`")
        );
        assert_eq!(judged("./app").rule, "run-script");
        assert_eq!(judged("bash none.sh").rule, "run-script");
        // A script's `cd` stays in its own shell; a sourced file's moves this one.
        assert_eq!(
            judged("bash cd.sh; rm -rf etc").rule,
            "delete-recursive-project"
        );
        assert_ne!(
            judged("source cd.sh; rm -rf etc").rule,
            "delete-recursive-project"
        );
    }
}
