//! Overwriting is deleting: a write that replaces what a file held asks the project's git
//! what that loses, as deleting the file does; appends, edits and files with nothing to lose
//! stay as they were.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;

use super::super::super::{
    Classification, Context, Differs, Kind, Links, Loses, Worktree, classify,
};

/// A git in which the listed paths (and folders holding them) hold work.
struct Git(Vec<PathBuf>);

impl Worktree for Git {
    fn loses(&self, path: &Path) -> Loses {
        if self
            .0
            .iter()
            .any(|w| w.starts_with(path) || path.starts_with(w))
        {
            Loses::Work
        } else {
            Loses::Nothing
        }
    }

    fn changes(&self) -> Loses {
        Loses::Work
    }

    fn differs(&self, _revisions: &[String], _paths: &[PathBuf]) -> Differs {
        Differs::No
    }
}

/// One symbolic link: `link.md` leads to `notes.md`.
struct Link;

impl Links for Link {
    fn real(&self, path: &Path) -> Option<PathBuf> {
        (path == Path::new("/home/dev/project/link.md"))
            .then(|| PathBuf::from("/home/dev/project/notes.md"))
    }
}

fn ctx() -> Context {
    let root = PathBuf::from("/home/dev/project");
    Context::new(
        &root,
        &root,
        Some(Path::new("/home/dev")),
        [root.join(".claude/settings.json")],
    )
    .with_worktree(Arc::new(Git(vec![
        root.join("notes.md"),
        root.join("src/lib.rs"),
    ])))
    .with_links(Arc::new(Link))
    .with_details()
}

fn bash(cmd: &str) -> Classification {
    classify("Bash", &json!({ "command": cmd }), &ctx())
}

#[test]
fn replacing_a_file_with_work_is_irreversible() {
    for cmd in [
        "> notes.md",
        ": > notes.md",
        "echo x >| notes.md",
        "make &> notes.md",
        "{ echo a; } > notes.md",
        "cp /dev/null notes.md",
        "cp README.md notes.md",
        "cp lib.rs src/",
        "mv README.md notes.md",
        "install README.md notes.md",
        "ln -sf README.md notes.md",
        "rsync README.md notes.md",
        "truncate -s 0 notes.md",
        "echo x | tee notes.md",
        "dd if=/dev/zero of=notes.md count=1",
        "sed -n 'w notes.md' README.md",
        "curl -o notes.md https://example.com/x",
        "wget -O notes.md https://example.com/x",
        "tar -cf notes.md src",
        "find . -fprint notes.md",
        "patch -o notes.md a.c",
        "awk '{print > \"notes.md\"}' README.md",
        "> link.md",
    ] {
        let c = bash(cmd);
        assert_eq!(c.kind, Kind::Irreversible, "{cmd}: {c:?}");
        assert!(
            c.reason.contains("replacing what it holds"),
            "{cmd}: {}",
            c.reason
        );
        assert!(
            c.parts.iter().any(|p| p
                .effect
                .as_deref()
                .is_some_and(|e| e.ends_with(", overwrite)"))),
            "{cmd}: {:?}",
            c.parts
        );
    }
}

#[test]
fn what_keeps_the_file_or_has_nothing_to_lose_stays_reversible() {
    for cmd in [
        // Appending, editing in place, refusing or backing up what is there.
        "echo x >> notes.md",
        "echo x | tee -a notes.md",
        "sed -i s/a/b/ notes.md",
        "cp -n README.md notes.md",
        "cp -b README.md notes.md",
        "mv -i README.md notes.md",
        "ln -s README.md notes.md",
        "ln -sfb README.md notes.md",
        "rsync --ignore-existing README.md notes.md",
        "rsync -n README.md notes.md",
        "dd if=a of=notes.md oflag=append conv=notrunc",
        "truncate -s +1K notes.md",
        "awk '{print >> \"notes.md\"}' README.md",
        "wget https://example.com/notes.md",
        // Files git brings back, or that are not there.
        "echo x > README.md",
        "echo x > new.txt",
        "cp README.md src/",
        "cp -r assets dist",
        // Nothing a file keeps.
        "echo x > /dev/null",
        "echo x >&2",
        "echo x > /dev/stdout",
    ] {
        let c = bash(cmd);
        assert_eq!(c.kind, Kind::Reversible, "{cmd}: {c:?}");
    }
}

#[test]
fn an_overwrite_is_judged_as_the_write_it_is_first() {
    // Outside the project and in protected places, the write's own judgement stands.
    assert_eq!(bash("echo x > /tmp/x").rule, "write-temp");
    assert_eq!(bash("echo x > ~/.bashrc").rule, "write-shell-startup");
    assert_eq!(
        bash("echo x > .claude/settings.json").rule,
        "oath-self-protect"
    );
    // Inside, the rule stays the write's: only its kind and reason say what git loses.
    let c = bash("echo x > notes.md");
    assert_eq!(c.rule, "write-project-file");
    assert_eq!(
        c.alternative.as_deref(),
        Some("commit or stash the work first, or write to a new file")
    );
}

#[test]
fn the_client_file_tools_are_not_asked_over_uncommitted_work() {
    // Claude Code's checkpoint holds what its own tools replace (`/rewind`).
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": "/home/dev/project/notes.md", "content": "x"}),
        ),
        (
            "Edit",
            json!({"file_path": "/home/dev/project/notes.md", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let c = classify(tool, &input, &ctx());
        assert_eq!(c.kind, Kind::Reversible, "{tool}: {c:?}");
    }
}
