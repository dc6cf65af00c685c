//! `patch` and `git apply`: the files a diff changes are read from the diff itself (a file
//! named on the line, or a here-document), so a diff that touches oath's or Claude Code's
//! settings is judged like any other write there. A diff oath cannot read is not understood.

use std::io::Read;

use crate::shell::{RedirectKind, Word};

use super::super::effect::Effect;
use super::super::pack::schema::{Act, PathNote};
use super::Walker;
use super::apply::Handled;

/// Largest diff read at decision time.
const MAX_DIFF: u64 = 4 << 20;

impl Walker<'_> {
    /// Judges a diff applied by `patch` (`-i FILE`, `< FILE`, a here-document, or the
    /// files named with `-o`) or `git apply` (diff files as arguments).
    pub(super) fn h_patch(&mut self, c: &Handled<'_, '_, '_>) {
        let sc = &c.level.own.scan;
        let git = c.name == "git";
        if git && sc.has(&["--check", "--stat", "--numstat", "--summary"]) && !sc.has(&["--apply"])
        {
            self.act(
                c,
                Act::VcsRead,
                "git-read",
                "git apply --check only reads the diff",
            );
            return;
        }
        if !git && let Some(out) = sc.value(&["-o", "--output"]) {
            let tg = self.target(out);
            let note = Some(PathNote::Overwrites);
            self.found(c, Effect::Write(tg, note), "write", "", "patch writes");
            return;
        }
        // `patch FILE [DIFF]`: the file named first is the one patched, whatever the diff
        // names (inside `-d DIR`).
        if !git && let Some(file) = sc.pos.first() {
            let file = match sc.value(&["-d", "--directory"]) {
                Some(d) if !file.text.starts_with('/') => Word {
                    text: format!("{}/{}", d.text.trim_end_matches('/'), file.text),
                    literal: d.literal && file.literal,
                    ..(*file).clone()
                },
                _ => (*file).clone(),
            };
            let tg = self.target(&file);
            self.found(c, Effect::Write(tg, None), "write", "", "patch writes");
            if let Some(diff) = sc.pos.get(1) {
                let tg = self.target(diff);
                self.found(c, Effect::Read(tg), "read", "", "patch reads the diff");
            }
            return;
        }
        let strip: usize = sc
            .value(&["-p", "--strip"])
            .and_then(|w| w.text.parse().ok())
            .unwrap_or(usize::from(git));
        let base = sc
            .value(&["-d", "--directory"])
            .map(|w| w.text.trim_end_matches('/').to_owned());
        // Where the diff comes from.
        let mut sources: Vec<Word> = sc.values(&["-i", "--input"]).cloned().collect();
        if git {
            sources.extend(sc.pos.iter().map(|w| (*w).clone()));
        }
        if sources.is_empty()
            && let Some(r) = c.s.redirects.iter().find(|r| r.kind == RedirectKind::Read)
        {
            sources.push(r.target.clone());
        }
        let mut texts = Vec::new();
        if sources.is_empty() {
            match &c.s.stdin_text {
                Some(t) if t.literal => texts.push(t.text.clone()),
                _ => {}
            }
        }
        let mut unreadable = sources.is_empty() && texts.is_empty();
        for w in &sources {
            match self.read_diff(w) {
                Some(t) => texts.push(t),
                None => unreadable = true,
            }
        }
        for text in &texts {
            // Hunks with no file named: patch asks for one, or takes it from the one line
            // it finds; oath cannot tell which.
            if diff_targets(text, strip).is_empty() && has_hunks(text) {
                unreadable = true;
            }
            for path in diff_targets(text, strip) {
                let path = match &base {
                    Some(b) => format!("{b}/{path}"),
                    None => path,
                };
                let tg = self.target(&Word::lit(path));
                self.found(c, Effect::Write(tg, None), "write", "", "the diff patches");
            }
        }
        if unreadable {
            let what = if git { "git apply" } else { "patch" };
            self.found(
                c,
                Effect::NotUnderstood,
                "patch-unknown",
                &format!(
                    "{what} applies a diff oath cannot read, so it cannot tell which files change"
                ),
                "",
            );
        }
    }

    /// Reads a diff file named on the line (bounded), or None.
    fn read_diff(&self, w: &Word) -> Option<String> {
        if !w.literal {
            return None;
        }
        let path = self.target(w).path?;
        // Only a regular file: a FIFO would block the decision until the deadline.
        if !std::fs::metadata(&path).ok()?.is_file() {
            return None;
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .ok()?
            .take(MAX_DIFF)
            .read_to_string(&mut text)
            .ok()?;
        Some(text)
    }
}

/// The files a unified or git diff changes, with `strip` leading components removed.
pub(super) fn diff_targets(text: &str, strip: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let named = if let Some(rest) = line
            .strip_prefix("+++ ")
            .or_else(|| line.strip_prefix("--- "))
        {
            let name = rest.split('\t').next().unwrap_or("").trim_end();
            strip_components(name, strip)
        } else if let Some(rest) = line.strip_prefix("*** ").filter(|r| {
            !r.starts_with('*') && !r.trim_start().starts_with(|c: char| c.is_ascii_digit())
        }) {
            // A context diff's file line (`*** name\tdate`); `*** 1,3 ****` is a hunk.
            let name = rest.split('\t').next().unwrap_or("").trim_end();
            strip_components(name, strip)
        } else if let Some(rest) = line
            .strip_prefix("Index: ")
            .or_else(|| line.strip_prefix("Index:"))
        {
            // GNU patch takes the file from an `Index:` line when the others name none.
            Some(rest.trim().to_owned())
        } else if let Some(rest) = line
            .strip_prefix("rename to ")
            .or_else(|| line.strip_prefix("copy to "))
        {
            Some(rest.trim_end().to_owned())
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            rest.rsplit_once(" b/")
                .and_then(|(_, b)| strip_components(&format!("b/{b}"), strip))
        } else {
            None
        };
        if let Some(n) = named
            && n != "/dev/null"
            && !n.is_empty()
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    out
}

/// Returns whether a text holds hunks of a diff (unified, context or normal).
fn has_hunks(text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with("@@ ") || l.starts_with("***************") || {
            // A normal diff's command line: `3c3`, `1,2d0`, `5a6,7`.
            let b = l.trim().as_bytes();
            !b.is_empty()
                && b[0].is_ascii_digit()
                && b.iter()
                    .all(|c| c.is_ascii_digit() || matches!(c, b',' | b'a' | b'c' | b'd'))
                && b.iter().any(|c| matches!(c, b'a' | b'c' | b'd'))
        }
    })
}

/// Removes `n` leading path components (`-p1` turns `a/src/x.rs` into `src/x.rs`).
fn strip_components(name: &str, n: usize) -> Option<String> {
    let name = name.trim_matches('"');
    if name == "/dev/null" {
        return None;
    }
    let mut rest = name;
    for _ in 0..n {
        rest = rest.split_once('/').map_or("", |(_, r)| r);
    }
    (!rest.is_empty()).then(|| rest.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_names_the_files_it_changes() {
        let git = "diff --git a/.claude/settings.json b/.claude/settings.json\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-{}\n+{\"disableAllHooks\":true}\n";
        assert_eq!(diff_targets(git, 1), [".claude/settings.json"]);
        let plain = "--- old/src/a.rs\t2026-01-01\n+++ new/src/a.rs\t2026-01-02\n";
        assert_eq!(diff_targets(plain, 1), ["src/a.rs"]);
        assert_eq!(diff_targets(plain, 0), ["old/src/a.rs", "new/src/a.rs"]);
        let created = "--- /dev/null\n+++ b/new.txt\n";
        assert_eq!(diff_targets(created, 1), ["new.txt"]);
        let renamed = "diff --git a/x b/y\nrename from x\nrename to y\n";
        assert_eq!(diff_targets(renamed, 1), ["y"]);
        let index = "Index: .claude/settings.json\n@@ -1 +1 @@\n-{}\n+{\"a\":1}\n";
        assert_eq!(diff_targets(index, 0), [".claude/settings.json"]);
        let context = "*** .claude/settings.json\t2026\n--- .claude/settings.json\t2026\n***************\n*** 1 ****\n";
        assert_eq!(diff_targets(context, 0), [".claude/settings.json"]);
        assert!(has_hunks("@@ -1 +1 @@\n-a\n+b\n"));
        assert!(has_hunks("3c3\n< a\n---\n> b\n"));
        assert!(!has_hunks("just text\n"));
    }
}
