//! What the project's git says would be lost by a deletion, an overwrite or a discard: the
//! I/O behind [`crate::classify::Worktree`], asked only when a command deletes or overwrites
//! a file inside the project or throws away the working tree's changes (`git status`,
//! bounded in time; an answer oath cannot get counts as work lost).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::classify::{Differs, Loses, Worktree};

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
        let mut args: Vec<&std::ffi::OsStr> = ["status", "--porcelain=v1", "-z", "--ignored=no"]
            .into_iter()
            .map(std::ffi::OsStr::new)
            .collect();
        args.extend_from_slice(extra);
        match self.git(&args) {
            Some((0, out)) if out.is_empty() => Loses::Nothing,
            _ => Loses::Work,
        }
    }

    /// Returns the commit a version names, as git resolves it (a branch only a remote has
    /// is the remote's, as `git checkout` guesses); None when git knows no such version.
    fn resolve(&self, rev: &str) -> Option<String> {
        // A version that reads as an option is none.
        if rev.is_empty() || rev.starts_with('-') {
            return None;
        }
        let spec = format!("{rev}^{{commit}}");
        let found = |out: Vec<u8>| {
            let text = String::from_utf8(out).ok()?;
            let mut lines = text.lines().filter(|l| !l.is_empty());
            let one = lines.next()?.to_owned();
            lines.next().is_none().then_some(one)
        };
        let verified = [
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            spec.as_str(),
        ]
        .map(std::ffi::OsStr::new);
        if let Some((0, out)) = self.git(&verified) {
            return found(out);
        }
        let pattern = format!("refs/remotes/*/{rev}");
        let guessed = [
            "for-each-ref",
            "--format=%(objectname)",
            "--",
            pattern.as_str(),
        ]
        .map(std::ffi::OsStr::new);
        match self.git(&guessed) {
            Some((0, out)) => found(out),
            _ => None,
        }
    }

    /// Runs git in the project within [`GIT_BUDGET`]: its exit code and output, or None when
    /// it cannot start, dies by a signal or takes too long.
    fn git(&self, args: &[&std::ffi::OsStr]) -> Option<(i32, Vec<u8>)> {
        let mut cmd = Command::new("git");
        // The repository's fsmonitor is a program of its choosing: not run for a decision.
        cmd.arg("-C")
            .arg(&self.root)
            .args(["-c", "core.fsmonitor=false"])
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        crate::watchdog::uncap(&mut cmd);
        let mut child = cmd.spawn().ok()?;
        let started = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    let mut out = Vec::new();
                    if let Some(mut stdout) = child.stdout.take() {
                        let _ = std::io::Read::read_to_end(&mut stdout, &mut out);
                    }
                    return status.code().map(|c| (c, out));
                }
                Ok(None) if started.elapsed() < GIT_BUDGET => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
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

    fn untracked(&self, paths: &[PathBuf], ignored: bool) -> Option<Vec<PathBuf>> {
        let mut args: Vec<&std::ffi::OsStr> = [
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            if ignored {
                "--ignored=matching"
            } else {
                "--ignored=no"
            },
            "--",
        ]
        .into_iter()
        .map(std::ffi::OsStr::new)
        .collect();
        // Each path as it is written, whatever characters it holds.
        let literal: Vec<std::ffi::OsString> = paths
            .iter()
            .map(|p| {
                let mut s = std::ffi::OsString::from(":(literal)");
                s.push(p);
                s
            })
            .collect();
        args.extend(literal.iter().map(std::ffi::OsString::as_os_str));
        // Not a repository, or a git that refuses: the command fails as well, or does what
        // oath cannot tell.
        let (0, out) = self.git(&args)? else {
            return None;
        };
        // Entries are `XY path`, NUL-terminated; a rename's source follows as its own field.
        let mut found = Vec::new();
        let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
        while let Some(f) = fields.next() {
            let (Some(xy), Some(path)) = (f.get(..2), f.get(3..)) else {
                continue;
            };
            if matches!(xy, b"??" | b"!!") {
                found.push(PathBuf::from(String::from_utf8_lossy(path).into_owned()));
            } else if xy.contains(&b'R') || xy.contains(&b'C') {
                fields.next();
            }
        }
        Some(found)
    }

    fn differs(&self, revisions: &[String], paths: &[PathBuf]) -> Differs {
        // Each version as git resolves it; one git cannot resolve is no version (the command
        // fails as well, or names a path).
        let mut resolved = Vec::with_capacity(revisions.len());
        for r in revisions {
            let parts: Vec<Option<String>> = match r.split_once("...") {
                Some((a, b)) => vec![self.resolve(a), self.resolve(b)],
                None => vec![self.resolve(r)],
            };
            let Some(parts) = parts.into_iter().collect::<Option<Vec<String>>>() else {
                return Differs::No;
            };
            resolved.push(parts.join("..."));
        }
        let mut args: Vec<&std::ffi::OsStr> = [
            "diff",
            "--quiet",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
        ]
        .into_iter()
        .map(std::ffi::OsStr::new)
        .collect();
        args.extend(resolved.iter().map(std::ffi::OsStr::new));
        args.push(std::ffi::OsStr::new("--"));
        args.extend(paths.iter().map(|p| p.as_os_str()));
        match self.git(&args) {
            Some((0, _)) => Differs::No,
            Some((1, _)) => Differs::Yes,
            _ => Differs::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::Differs;

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

    #[test]
    fn git_names_the_paths_it_does_not_track() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(".gitignore"), ".claude/settings.local.json\n").unwrap();
        std::fs::write(root.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(root.join(".claude/settings.local.json"), "{}").unwrap();
        std::fs::write(root.join("a.rs"), "a").unwrap();
        git(root, &["add", ".gitignore", "a.rs"]);
        git(root, &["commit", "-q", "-m", "one"]);
        let w = GitWorktree::new(root);
        let paths = [
            PathBuf::from(".claude/settings.json"),
            PathBuf::from(".claude/settings.local.json"),
            PathBuf::from(".oath.yaml"),
            PathBuf::from("a.rs"),
        ];
        assert_eq!(
            w.untracked(&paths, false),
            Some(vec![PathBuf::from(".claude/settings.json")]),
            "untracked, not ignored; absent and tracked files are not named"
        );
        let with_ignored = w.untracked(&paths, true).unwrap();
        assert_eq!(with_ignored.len(), 2, "{with_ignored:?}");
        git(root, &["add", ".claude/settings.json"]);
        assert_eq!(w.untracked(&paths, false), Some(Vec::new()), "now tracked");
        // A path that reads as a pattern is taken as written.
        assert_eq!(w.untracked(&[PathBuf::from("*")], true), Some(Vec::new()));
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(
            GitWorktree::new(plain.path()).untracked(&paths, false),
            None,
            "no repository: git cannot tell"
        );
    }

    #[test]
    fn git_says_whether_a_version_changes_the_settings() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(root.join("a.rs"), "a").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "one"]);
        git(root, &["checkout", "-q", "-b", "code"]);
        std::fs::write(root.join("a.rs"), "b").unwrap();
        git(root, &["commit", "-q", "-am", "code"]);
        git(root, &["checkout", "-q", "-b", "evil", "main"]);
        std::fs::write(
            root.join(".claude/settings.json"),
            "{\"disableAllHooks\":true}",
        )
        .unwrap();
        git(root, &["commit", "-q", "-am", "evil"]);
        git(root, &["checkout", "-q", "main"]);
        let w = GitWorktree::new(root);
        let settings = [PathBuf::from(".claude/settings.json")];
        let rev = |r: &[&str]| r.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(w.differs(&rev(&["HEAD", "code"]), &settings), Differs::No);
        assert_eq!(w.differs(&rev(&["HEAD", "evil"]), &settings), Differs::Yes);
        assert_eq!(w.differs(&rev(&["HEAD...evil"]), &settings), Differs::Yes);
        assert_eq!(w.differs(&rev(&["evil^", "evil"]), &settings), Differs::Yes);
        assert_eq!(w.differs(&rev(&["code^", "code"]), &settings), Differs::No);
        assert_eq!(w.differs(&[], &settings), Differs::No, "index = tree");
        std::fs::write(root.join(".claude/settings.json"), "{\"x\":1}").unwrap();
        assert_eq!(w.differs(&[], &settings), Differs::Yes, "tree != index");
        assert_eq!(w.differs(&rev(&["HEAD"]), &settings), Differs::Yes);
        // A branch only a remote has is the remote's, as git checkout guesses.
        let evil = String::from_utf8(
            Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["rev-parse", "evil"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        git(
            root,
            &["update-ref", "refs/remotes/origin/theirs", evil.trim()],
        );
        assert_eq!(
            w.differs(&rev(&["HEAD", "theirs"]), &settings),
            Differs::Yes
        );
        // No such version, or one that reads as an option: the command fails as well.
        assert_eq!(w.differs(&rev(&["nope"]), &settings), Differs::No);
        assert_eq!(
            w.differs(&rev(&["--output=/tmp/x"]), &settings),
            Differs::No
        );
    }
}
