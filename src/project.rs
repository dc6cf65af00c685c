//! Where a project is and where oath keeps its files for it.
//!
//! The project root is `CLAUDE_PROJECT_DIR`, else the git top level of the payload's `cwd`,
//! else that `cwd`. oath's own state lives outside the project, under `$OATH_HOME` or the XDG
//! state dir (`~/.local/state/oath`), in one folder per project named from the root's last
//! component and a hash of its full path. Git is read from `.git` directly (no subprocess).

use std::cell::OnceCell;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::env;

/// Environment values oath depends on, captured once so tests can set them explicitly.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `$OATH_HOME`.
    pub oath_home: Option<PathBuf>,
    /// `$XDG_STATE_HOME`.
    pub xdg_state_home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$CLAUDE_PROJECT_DIR`.
    pub claude_project_dir: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`.
    pub claude_config_dir: Option<PathBuf>,
    /// `$OATH_CONFIG`.
    pub oath_config: Option<PathBuf>,
    /// `$OATH_KPT_DIR`.
    pub oath_kpt_dir: Option<PathBuf>,
    /// `$CODEX_HOME`.
    pub codex_home: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME`.
    pub gemini_cli_home: Option<PathBuf>,
    /// `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`.
    pub gemini_trusted_folders: Option<PathBuf>,
}

impl Env {
    /// Reads the process environment.
    pub fn from_process() -> Self {
        let p = |name| env::var(name).map(PathBuf::from);
        Self {
            oath_home: p(env::OATH_HOME),
            xdg_state_home: p(env::XDG_STATE_HOME),
            xdg_config_home: p(env::XDG_CONFIG_HOME),
            home: p(env::HOME),
            claude_project_dir: p(env::CLAUDE_PROJECT_DIR),
            claude_config_dir: p(env::CLAUDE_CONFIG_DIR),
            oath_config: p(env::OATH_CONFIG),
            oath_kpt_dir: p(env::OATH_KPT_DIR),
            codex_home: p(env::CODEX_HOME),
            gemini_cli_home: p(env::GEMINI_CLI_HOME),
            gemini_trusted_folders: p(env::GEMINI_CLI_TRUSTED_FOLDERS_PATH),
        }
    }

    /// Returns the root of oath's state.
    pub fn state_root(&self) -> PathBuf {
        if let Some(h) = &self.oath_home {
            return h.clone();
        }
        if let Some(x) = &self.xdg_state_home {
            return x.join("oath");
        }
        match &self.home {
            Some(h) => h.join(".local/state/oath"),
            None => std::env::temp_dir().join("oath-state"),
        }
    }

    /// Returns the user config file path.
    pub fn user_config_path(&self) -> Option<PathBuf> {
        if let Some(p) = &self.oath_config {
            return Some(p.clone());
        }
        if let Some(x) = &self.xdg_config_home {
            return Some(x.join("oath/config.yaml"));
        }
        self.home
            .as_ref()
            .map(|h| h.join(".config/oath/config.yaml"))
    }

    /// Returns the directory of the user's rule packs: `packs/` beside the user config file.
    pub fn user_packs_dir(&self) -> Option<PathBuf> {
        self.user_config_path()
            .and_then(|p| p.parent().map(|d| d.join("packs")))
    }

    /// Returns Claude Code's config dir (`$CLAUDE_CONFIG_DIR` or `~/.claude`).
    pub fn claude_dir(&self) -> Option<PathBuf> {
        self.claude_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// Returns Codex CLI's config dir (`$CODEX_HOME` or `~/.codex`).
    pub fn codex_dir(&self) -> Option<PathBuf> {
        self.codex_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".codex")))
    }

    /// Returns Gemini CLI's user config dir (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`).
    pub fn gemini_dir(&self) -> Option<PathBuf> {
        self.gemini_cli_home
            .as_ref()
            .or(self.home.as_ref())
            .map(|h| h.join(".gemini"))
    }
}

/// A project and the paths oath uses for it.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project root.
    pub root: PathBuf,
    /// oath's state folder for this project (outside the project).
    pub state_dir: PathBuf,
    /// The 3-strike folder, once asked for: a hook asks three times, and each answer reads
    /// git's HEAD.
    plan_dir: OnceCell<PathBuf>,
}

impl Project {
    /// Resolves the project for a hook payload's `cwd` (or the process cwd).
    pub fn resolve(env: &Env, cwd: Option<&Path>) -> Self {
        let cwd = cwd
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let root = match &env.claude_project_dir {
            Some(dir) => normalize(dir),
            None => git_toplevel(&cwd).unwrap_or_else(|| normalize(&cwd)),
        };
        Self::at(env, root)
    }

    /// Returns the project rooted at `root`.
    pub fn at(env: &Env, root: PathBuf) -> Self {
        let state_dir = env.state_root().join("projects").join(project_key(&root));
        Self {
            root,
            state_dir,
            plan_dir: OnceCell::new(),
        }
    }

    /// Returns the trust folder: one file per domain ([`crate::state::trust`]).
    pub fn trust_dir(&self) -> PathBuf {
        self.state_dir.join("trust")
    }

    /// Returns the single trust file of earlier versions, read until the first update moves
    /// its domains into [`Project::trust_dir`].
    pub fn legacy_trust_file(&self) -> PathBuf {
        self.state_dir.join("trust-scores.json")
    }

    /// Returns the audit trail folder (one JSONL file per session).
    pub fn audit_dir(&self) -> PathBuf {
        self.state_dir.join("audit")
    }

    /// Returns the audit trail of one session.
    pub fn audit_file(&self, session_id: &str) -> PathBuf {
        self.audit_dir()
            .join(format!("{}.jsonl", file_safe(session_id)))
    }

    /// Returns the folder where per-session facts (metrics recorded at Stop) are kept.
    pub fn sessions_dir(&self) -> PathBuf {
        self.state_dir.join("sessions")
    }

    /// Returns the file of the copies of credentials a session made
    /// ([`crate::state::tainted`]).
    pub fn tainted_file(&self, session_id: &str) -> PathBuf {
        self.state_dir
            .join("tainted")
            .join(format!("{}.json", file_safe(session_id)))
    }

    /// Returns the folder of logs written by post-tool commands.
    pub fn observer_log_dir(&self) -> PathBuf {
        self.state_dir.join("post-tool-use")
    }

    /// Returns the phase file `.claude/current-phase.md` in the project.
    pub fn phase_file(&self) -> PathBuf {
        self.root.join(".claude/current-phase.md")
    }

    /// Returns the project config file `.oath.yaml`.
    pub fn config_file(&self) -> PathBuf {
        self.root.join(".oath.yaml")
    }

    /// Returns the folder of the 3-strike error log for the current branch:
    /// `.plan/{branch}/` in the project. The branch is read once per value: a hook's
    /// lifetime.
    pub fn plan_dir(&self) -> PathBuf {
        self.plan_dir
            .get_or_init(|| {
                self.root
                    .join(".plan")
                    .join(branch_folder(&git_head(&self.root)))
            })
            .clone()
    }
}

/// Returns the folder name of a project under `projects/`: last path component plus a hash.
pub fn project_key(root: &Path) -> String {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into());
    let hash = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hex: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", file_safe(&name))
}

/// Replaces characters unsafe in file names.
pub fn file_safe(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match cleaned.as_str() {
        "" | "." | ".." => "_".into(),
        _ => cleaned,
    }
}

/// Makes a path absolute and removes `.` and `..` components without touching the disk.
pub fn normalize(p: &Path) -> PathBuf {
    let base = if p.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
    };
    let mut out = base;
    for c in p.components() {
        match c {
            Component::Prefix(x) => out.push(x.as_os_str()),
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(x) => out.push(x),
        }
    }
    out
}

/// Returns the nearest ancestor of `start` (inclusive) that holds a `.git` entry.
pub fn git_toplevel(start: &Path) -> Option<PathBuf> {
    let start = normalize(start);
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// What `HEAD` points at in a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// On a branch.
    Branch(String),
    /// Detached at a commit (the id as written in HEAD).
    Detached(String),
    /// Not a git repository, or HEAD unreadable.
    NoGit,
}

/// Reads `HEAD` of the repository at `root` (handles `.git` files of worktrees).
pub fn git_head(root: &Path) -> Head {
    let dot_git = root.join(".git");
    let git_dir = match std::fs::metadata(&dot_git) {
        Ok(m) if m.is_dir() => dot_git,
        Ok(_) => match crate::state::read_text_file(&dot_git, 64 * 1024) {
            Ok(Some(text)) => match text.trim().strip_prefix("gitdir:") {
                Some(d) => {
                    let d = PathBuf::from(d.trim());
                    if d.is_absolute() { d } else { root.join(d) }
                }
                None => return Head::NoGit,
            },
            _ => return Head::NoGit,
        },
        Err(_) => return Head::NoGit,
    };
    match crate::state::read_text_file(&git_dir.join("HEAD"), 64 * 1024) {
        Ok(Some(head)) => {
            let head = head.trim();
            match head.strip_prefix("ref: refs/heads/") {
                Some(branch) => Head::Branch(branch.to_owned()),
                None if !head.is_empty() => Head::Detached(head.to_owned()),
                None => Head::NoGit,
            }
        }
        Ok(None) | Err(_) => Head::NoGit,
    }
}

/// Maps a HEAD to a folder name under `.plan/`, injective over branch names.
///
/// Branch names are percent-encoded (`/` → `%2F`, `%` → `%25`, and any character other than
/// ASCII alphanumerics, `-`, `_` and `.`), so `feat/a-b` and `feat-a/b` stay distinct. A
/// detached HEAD is `@detached-<short id>` and no git is `@no-git`: `@` is encoded in branch
/// names, so these can never collide with a branch.
pub fn branch_folder(head: &Head) -> String {
    match head {
        Head::Branch(b) => {
            let mut out = String::with_capacity(b.len());
            for byte in b.bytes() {
                if byte.is_ascii_alphanumeric()
                    || matches!(byte, b'-' | b'_')
                    || (byte == b'.' && !out.is_empty())
                {
                    out.push(byte as char);
                } else {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            out
        }
        Head::Detached(id) => format!("@detached-{}", id.chars().take(12).collect::<String>()),
        Head::NoGit => "@no-git".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn branch_folders_do_not_collide() {
        let names = [
            "feat/a-b",
            "feat-a/b",
            "feat%2Fa-b",
            "main",
            "@no-git",
            ".hidden",
            "a..b",
        ];
        let folders: std::collections::HashSet<_> = names
            .iter()
            .map(|n| branch_folder(&Head::Branch((*n).into())))
            .collect();
        assert_eq!(folders.len(), names.len());
        assert_eq!(branch_folder(&Head::Branch("feat/x".into())), "feat%2Fx");
        assert_eq!(branch_folder(&Head::Branch(".hidden".into())), "%2Ehidden");
        assert_eq!(branch_folder(&Head::NoGit), "@no-git");
        assert_eq!(
            branch_folder(&Head::Detached("0123456789abcdef".into())),
            "@detached-0123456789ab"
        );
        for f in &folders {
            assert!(!f.contains('/') && f != "." && f != "..");
        }
    }

    #[test]
    fn project_resolution_prefers_claude_project_dir_then_git() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feat/x\n").unwrap();
        fs::create_dir_all(repo.join("sub/deeper")).unwrap();
        let env = Env {
            oath_home: Some(dir.path().join("state")),
            ..Env::default()
        };
        let p = Project::resolve(&env, Some(&repo.join("sub/deeper")));
        assert_eq!(p.root, repo);
        assert!(p.state_dir.starts_with(dir.path().join("state/projects")));
        assert_eq!(p.plan_dir(), repo.join(".plan/feat%2Fx"));
        let env2 = Env {
            claude_project_dir: Some(repo.join("sub")),
            ..env
        };
        assert_eq!(Project::resolve(&env2, Some(&repo)).root, repo.join("sub"));
        let plain = dir.path().join("plain");
        fs::create_dir_all(&plain).unwrap();
        assert_eq!(git_head(&plain), Head::NoGit);
    }

    #[test]
    fn git_head_reads_repositories_and_worktrees() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let gitdir = d.join("main.git");
        fs::create_dir_all(&gitdir).unwrap();
        fs::write(gitdir.join("HEAD"), "ref: refs/heads/wt\n").unwrap();
        let repo = |name: &str, dot_git: Option<&str>, head: Option<&str>| {
            let root = d.join(name);
            fs::create_dir_all(&root).unwrap();
            if let Some(text) = dot_git {
                fs::write(root.join(".git"), text).unwrap();
            }
            if let Some(text) = head {
                fs::create_dir_all(root.join(".git")).unwrap();
                fs::write(root.join(".git/HEAD"), text).unwrap();
            }
            root
        };
        let abs = format!("gitdir: {}\n", gitdir.display());
        for (root, want) in [
            (
                repo("branch", None, Some("ref: refs/heads/main\n")),
                Head::Branch("main".into()),
            ),
            (
                repo("detached", None, Some("0123abcd\n")),
                Head::Detached("0123abcd".into()),
            ),
            (repo("empty-head", None, Some("\n")), Head::NoGit),
            (
                repo("worktree", Some(&abs), None),
                Head::Branch("wt".into()),
            ),
            (
                repo("relative", Some("gitdir: ../main.git"), None),
                Head::Branch("wt".into()),
            ),
            (
                repo("not-gitdir", Some("something else"), None),
                Head::NoGit,
            ),
            (repo("none", None, None), Head::NoGit),
        ] {
            assert_eq!(git_head(&root), want, "{}", root.display());
        }
    }
}
