//! What the project's git says would be lost by a deletion or a discard: the I/O behind
//! [`crate::classify::Worktree`], asked only when a command deletes inside the project or
//! throws away the working tree's changes (`git status`, bounded in time; an answer oath
//! cannot get counts as work lost).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::classify::{Loses, Worktree};

/// Longest a `git status` may take before its answer counts as "work would be lost".
const GIT_BUDGET: Duration = Duration::from_millis(1500);

/// The project's git, asked through `git status`.
#[derive(Debug)]
pub struct GitWorktree {
    root: PathBuf,
    cache: Mutex<HashMap<PathBuf, Loses>>,
}

impl GitWorktree {
    /// Returns the oracle for a project root.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `git status --porcelain` with the given extra arguments: `Nothing` when it prints
    /// nothing, `Work` when it prints an entry, fails, is not a repository or takes too long.
    fn status(&self, extra: &[&std::ffi::OsStr]) -> Loses {
        let mut cmd = Command::new("git");
        cmd.arg("-C")
            .arg(&self.root)
            .args(["status", "--porcelain=v1", "-z", "--ignored=no"])
            .args(extra)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        crate::watchdog::uncap(&mut cmd);
        let Ok(mut child) = cmd.spawn() else {
            return Loses::Work;
        };
        let started = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    if !status.success() {
                        return Loses::Work;
                    }
                    let mut out = Vec::new();
                    if let Some(mut stdout) = child.stdout.take() {
                        let _ = std::io::Read::read_to_end(&mut stdout, &mut out);
                    }
                    return if out.is_empty() {
                        Loses::Nothing
                    } else {
                        Loses::Work
                    };
                }
                Ok(None) if started.elapsed() < GIT_BUDGET => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Loses::Work;
                }
            }
        }
    }
}

impl Worktree for GitWorktree {
    fn loses(&self, path: &Path) -> Loses {
        if let Ok(cache) = self.cache.lock()
            && let Some(l) = cache.get(path)
        {
            return *l;
        }
        // What is not there cannot be lost; a symbolic link is itself what is deleted.
        let answer = if std::fs::symlink_metadata(path).is_err() {
            Loses::Nothing
        } else {
            self.status(&[
                std::ffi::OsStr::new("--untracked-files=all"),
                std::ffi::OsStr::new("--"),
                path.as_os_str(),
            ])
        };
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(path.to_path_buf(), answer);
        }
        answer
    }

    fn changes(&self) -> Loses {
        self.status(&[std::ffi::OsStr::new("--untracked-files=normal")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn git_says_what_a_deletion_or_a_discard_would_lose() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("target/debug/x"), "x").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "one"]);
        let w = GitWorktree::new(root);
        assert_eq!(w.changes(), Loses::Nothing, "a clean tree");
        assert_eq!(w.loses(&root.join("src/a.rs")), Loses::Nothing, "tracked");
        assert_eq!(w.loses(&root.join("src")), Loses::Nothing, "tracked tree");
        assert_eq!(w.loses(&root.join("target")), Loses::Nothing, "ignored");
        assert_eq!(w.loses(&root.join("nope")), Loses::Nothing, "absent");
        std::fs::write(root.join("src/new.rs"), "n").unwrap();
        let w = GitWorktree::new(root);
        assert_eq!(w.loses(&root.join("src/new.rs")), Loses::Work, "untracked");
        assert_eq!(
            w.loses(&root.join("src")),
            Loses::Work,
            "a tree with new work"
        );
        assert_eq!(w.changes(), Loses::Work);
        std::fs::write(root.join("src/a.rs"), "changed").unwrap();
        assert_eq!(
            GitWorktree::new(root).loses(&root.join("src/a.rs")),
            Loses::Work,
            "modified"
        );
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("f"), "f").unwrap();
        assert_eq!(
            GitWorktree::new(plain.path()).loses(&plain.path().join("f")),
            Loses::Work,
            "no repository keeps it"
        );
    }
}
