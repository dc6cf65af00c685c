//! Where a path points: resolution against cwd and home (lexical, no I/O) and the zone it
//! falls in, with the risk of writing, deleting or reading there.
//!
//! Paths are compared lexically (`lexical`); what holds credentials is `credentials`.

mod credentials;
mod lexical;
mod pattern;

use std::path::{Path, PathBuf};

use super::Context;

pub(crate) use credentials::{
    as_holding, as_link_to, as_pattern, credential_name, tainted_by, through_read_links, touches,
    tree_credentials,
};
use credentials::{credential_place, taint_note};
pub(crate) use lexical::{absolute, normalize};
use lexical::{bytes, extension, file_name, is_normalized, is_under, is_under_any_case, parent};
pub(crate) use pattern::glob;
use pattern::{Reach, reaches_protected};

/// Where a resolved path lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zone {
    /// Inside the project: source code.
    ProjectSrc,
    /// Inside the project: documentation.
    ProjectDocs,
    /// Inside the project: `.git/hooks` or `.git/config` (run or configure code).
    ProjectGitExec,
    /// Inside the project: anything else.
    Project,
    /// Temporary directories.
    Temp,
    /// Inside the user's home, outside the project.
    Home,
    /// The home directory itself or one of its direct children.
    HomeTop,
    /// Another user's home (or root's).
    OtherHome,
    /// System directories (`/etc`, `/usr`, …).
    System,
    /// `/` or an ancestor of the home directory.
    Root,
    /// A block or character device other than the harmless ones.
    Device,
    /// `/dev/null`, `/dev/stdout` and friends.
    Harmless,
    /// `/dev/tcp/…`, `/dev/udp/…` (bash network redirections).
    Network,
    /// Anywhere else.
    Elsewhere,
}

/// A path argument as the classifier sees it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The resolved path (None when not known statically).
    pub path: Option<PathBuf>,
    /// The zone.
    pub zone: Zone,
    /// It is, or is inside, a protected path.
    pub protected: bool,
    /// It is an ancestor of a protected path (deleting it deletes them).
    pub holds_protected: bool,
    /// It holds credentials.
    pub credential: bool,
    /// It is a shell start-up file.
    pub shell_rc: bool,
    /// It is a system account database (`/etc/passwd`, `/etc/sudoers` …).
    pub account_db: bool,
    /// It is the user's home directory itself.
    pub home_itself: bool,
    /// It is CI configuration in the project (runs code with the repository's secrets).
    pub ci_config: bool,
    /// It is test set-up that runs as code (`conftest.py`).
    pub exec_config: bool,
    /// A file that runs code outside the session (direnv, commit hooks, editor tasks,
    /// Claude Code's MCP servers and hook scripts).
    pub persistent_config: bool,
    /// The path as shown in messages.
    shown: String,
}

impl Target {
    fn unknown() -> Self {
        Self {
            path: None,
            zone: Zone::Elsewhere,
            protected: false,
            holds_protected: false,
            credential: false,
            shell_rc: false,
            account_db: false,
            home_itself: false,
            ci_config: false,
            exec_config: false,
            persistent_config: false,
            shown: String::new(),
        }
    }

    /// Returns whether the target is inside the project.
    pub fn in_project(&self) -> bool {
        matches!(
            self.zone,
            Zone::ProjectSrc | Zone::ProjectDocs | Zone::ProjectGitExec | Zone::Project
        )
    }

    /// Returns whether the target is the user's home directory itself.
    pub fn is_home(&self) -> bool {
        self.home_itself
    }

    /// Returns the path for effects (`oath explain`, golden files): as [`Self::shown`], `?`
    /// when computed at run time.
    pub fn label(&self) -> String {
        match &self.path {
            Some(_) => self.shown.clone(),
            None => "?".into(),
        }
    }

    /// Returns the path for messages: relative inside the project, `~/…` in the home.
    pub fn shown(&self) -> String {
        match &self.path {
            Some(_) => self.shown.clone(),
            None => "a path computed at run time".into(),
        }
    }
}

fn home_of(ctx: &Context) -> PathBuf {
    ctx.home()
        .map_or_else(|| PathBuf::from("/~"), Path::to_path_buf)
}

/// Resolves a path as written (`~`, `~user`, relative) against `cwd`. With `glob`, the
/// text is a shell pattern (or brace expansion) cut at its first wild component, so `/*`
/// resolves to `/` and `.claude/{a,settings}.json` to `.claude`.
/// Returns None when the text is empty or computed, or the cwd is unknown.
pub(crate) fn resolve(
    text: &str,
    glob: bool,
    cwd: Option<&Path>,
    ctx: &Context,
) -> Option<PathBuf> {
    if text.is_empty() || glob && (text.contains('$') || text.contains('`')) {
        return None;
    }
    let wild = if glob {
        text.find(['*', '?', '[', '{'])
    } else {
        None
    };
    let cut = match wild {
        Some(i) => match text[..i].rfind('/') {
            Some(j) => &text[..=j],
            None => "",
        },
        None => text,
    };
    let cut = if cut.is_empty() { "." } else { cut };
    let joined = if let Some(rest) = cut.strip_prefix('~') {
        let (user, tail) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let base = if user.is_empty() {
            home_of(ctx)
        } else if user == "root" {
            PathBuf::from("/root")
        } else {
            PathBuf::from("/home").join(user)
        };
        base.join(tail)
    } else if cut.starts_with('/') {
        PathBuf::from(cut)
    } else {
        cwd?.join(cut)
    };
    proc_alias(normalize(&joined), cwd)
}

/// Returns `t` (where a shell pattern starts) marked as a protected path, or as a folder
/// that holds one, when what the pattern `text` can match reaches one (`.c*` matches
/// `.claude`); `t` itself otherwise.
pub(crate) fn through_pattern(t: Target, text: &str, cwd: Option<&Path>, ctx: &Context) -> Target {
    if t.protected || t.holds_protected {
        return t;
    }
    let Some(p) = resolve(text, false, cwd, ctx) else {
        return t;
    };
    let Some((q, reach)) = reaches_protected(&p, ctx) else {
        return t;
    };
    let named = target(Some(q.to_path_buf()), ctx);
    Target {
        protected: reach == Reach::Inside,
        holds_protected: reach == Reach::Holds,
        shown: format!("{text} (which matches {})", named.shown),
        ..t
    }
}

/// Follows `/proc/self/cwd` and `/proc/self/root` (the shell's own working directory and
/// root) to what they name; another process's are unknown (None).
fn proc_alias(p: PathBuf, cwd: Option<&Path>) -> Option<PathBuf> {
    let Ok(rest) = p.strip_prefix("/proc") else {
        return Some(p);
    };
    let mut parts = rest.components();
    let (Some(who), Some(link)) = (parts.next(), parts.next()) else {
        return Some(p);
    };
    let tail = parts.as_path();
    match (who.as_os_str().to_str(), link.as_os_str().to_str()) {
        (Some("self" | "thread-self"), Some("cwd")) => Some(normalize(&cwd?.join(tail))),
        (Some("self" | "thread-self"), Some("root")) => Some(normalize(&Path::new("/").join(tail))),
        (_, Some("cwd" | "root")) => None,
        _ => Some(p),
    }
}

const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/boot",
    "/var",
    "/opt",
    "/srv",
    "/sys",
    "/proc",
    "/snap",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/nix",
    "/run",
];
const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm", "/private/tmp"];
const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
];
const DOC_EXTS: &[&str] = &["md", "markdown", "rst", "adoc", "txt", "org"];
const SRC_EXTS: &[&str] = &[
    "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "c", "h", "cc",
    "cpp", "hpp", "cs", "rb", "php", "swift", "m", "scala", "sh", "bash", "zsh", "lua", "pl", "ex",
    "exs", "erl", "hs", "ml", "clj", "dart", "vue", "svelte", "sql", "zig", "nim", "r", "jl",
    "css", "scss", "html", "proto",
];
const SHELL_RC: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".mkshrc",
    ".xprofile",
    ".xinitrc",
    "config.fish",
    "bash.bashrc",
    "zshrc",
    "zprofile",
    "profile",
];

/// The system's account and sign-in databases.
const ACCOUNT_DBS: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/pam.d",
    "/etc/security",
    "/etc/crontab",
    "/etc/cron.d",
    "/etc/cron.daily",
    "/etc/cron.hourly",
    "/etc/ssh",
    "/etc/ld.so.preload",
    "/etc/systemd",
    "/etc/init.d",
    "/etc/rc.local",
];

/// Returns whether `p` is `base` or inside it (both normalised).
pub(crate) fn path_is_under(p: &Path, base: &Path) -> bool {
    is_under(bytes(p), bytes(base))
}

/// Returns `real` (where `t` leads through links), shown as `t` and where it leads.
pub(crate) fn as_reached(t: &Target, real: Target) -> Target {
    Target {
        shown: format!("{} (a link to {})", t.shown, real.shown),
        credential: real.credential || t.credential,
        ..real
    }
}

/// Returns the place a change of `t` really reaches through symbolic links (on the file
/// system, or made earlier on the line), when that is another place than `t`: one oath
/// protects, or another zone (`hl/.bashrc` with `hl` a link to the home is `~/.bashrc`).
/// A write follows every link (`last`); a deletion, or a link made at the path, those of
/// its folders only (the last name, if a link, is what goes or is made). A path that is
/// the same place as something oath protects (a protected file that is a link to it) is
/// protected too. None when it reaches `t` itself.
pub(crate) fn followed(t: &Target, last: bool, ctx: &Context) -> Option<Target> {
    if t.protected || t.holds_protected {
        return None;
    }
    let p = t.path.as_deref()?;
    // Where the change lands as the file system names it, when a link is on the way.
    let real = ctx.real_path(p).and_then(|full| {
        if last {
            Some(full)
        } else {
            Some(ctx.real_path(p.parent()?)?.join(p.file_name()?))
        }
    });
    if let Some(r) = &real {
        let lands = ctx.lexical(r);
        if lands != p {
            return Some(as_reached(t, target(Some(lands), ctx)));
        }
    }
    let real = real.unwrap_or_else(|| p.to_path_buf());
    let rb = bytes(&real);
    let protected = ctx.protected_real().iter().any(|q| is_under(rb, bytes(q)));
    let root = ctx.project_root();
    let root_real = ctx.real_path(root).unwrap_or_else(|| root.to_path_buf());
    let holds = !protected
        && rb != bytes(&root_real)
        && ctx.protected_real().iter().any(|q| is_under(bytes(q), rb));
    (protected || holds).then(|| Target {
        protected,
        holds_protected: holds,
        shown: format!("{} (the same place as a protected path)", t.shown),
        ..t.clone()
    })
}

/// Returns whether anything oath protects lies inside `t` (the project root included: an
/// archive or a diff applied there can reach `.claude/settings.json`).
pub(crate) fn contains_protected(t: &Target, ctx: &Context) -> bool {
    t.protected
        || t.path
            .as_deref()
            .is_some_and(|p| ctx.protected().iter().any(|q| is_under(bytes(q), bytes(p))))
}

/// Classifies a resolved path.
pub(crate) fn target(path: Option<PathBuf>, ctx: &Context) -> Target {
    let Some(mut p) = path else {
        return Target::unknown();
    };
    if !is_normalized(bytes(&p)) {
        p = normalize(&p);
    }
    let pb = bytes(&p);
    let home_buf = home_of(ctx);
    let home = bytes(&home_buf);
    let root = bytes(ctx.project_root());
    // In any letter case: macOS and Windows file systems ignore it (`.CLAUDE/Settings.json`
    // is the settings file there).
    let protected = ctx
        .protected()
        .iter()
        .any(|q| is_under_any_case(pb, bytes(q)));
    // Deleting the whole project is judged as project work, not as an attack on oath.
    let holds_protected = pb != root
        && ctx
            .protected()
            .iter()
            .any(|q| is_under_any_case(bytes(q), pb));
    let name_b = file_name(pb);
    let name = String::from_utf8_lossy(name_b);
    // A copy of credentials the session made (or this line makes) is one too, and so is
    // what lies inside a copied folder.
    let taint = ctx.tainted().iter().find(|t| is_under(pb, bytes(&t.path)));
    let credential = credential_name(&name) || credential_place(pb, &name, home) || taint.is_some();
    let shell_rc = SHELL_RC.contains(&&*name)
        && (parent(pb) == Some(home)
            || is_under(pb, b"/etc")
            || is_under(pb, b"/home")
            || is_under(pb, b"/root")
            || pb.ends_with(b"/.config/fish/config.fish"))
        || is_under(pb, b"/etc/profile.d");
    let account_db = ACCOUNT_DBS.iter().any(|a| is_under(pb, a.as_bytes()));
    // A "project" at the home folder or above it (Claude Code started in `~` or `/`) is no
    // boundary: start-up files, git's and Claude Code's settings and other users' files live
    // there, so nothing counts as inside it.
    let in_root = is_under(pb, root) && !is_under(home, root);
    // The part after `base/` of a path inside `base` ("" for `base` itself).
    let rel_of = |base: &[u8]| -> String {
        let rest = &pb[base.len()..];
        String::from_utf8_lossy(rest.strip_prefix(b"/").unwrap_or(rest)).into_owned()
    };
    let shown = if in_root {
        let rel = rel_of(root);
        if rel.is_empty() {
            "the project root".to_owned()
        } else {
            rel
        }
    } else if is_under(pb, home) {
        let rel = rel_of(home);
        if rel.is_empty() {
            "~".to_owned()
        } else {
            format!("~/{rel}")
        }
    } else {
        p.display().to_string()
    };
    let shown = match taint {
        Some(t) => format!("{shown} ({})", taint_note(t, pb)),
        None => shown,
    };
    let zone = if in_root {
        let rel_s = rel_of(root);
        let ext = std::str::from_utf8(extension(name_b)).unwrap_or("");
        // Any `.git` folder (a nested repository, a submodule's, any case): its config,
        // hooks and refs decide what git runs and holds.
        if rel_s.split('/').any(|seg| seg.eq_ignore_ascii_case(".git")) {
            Zone::ProjectGitExec
        } else if rel_s.starts_with("docs/")
            || rel_s.starts_with("doc/")
            || rel_s == "docs"
            || DOC_EXTS.contains(&ext) && !rel_s.starts_with("src/")
        {
            Zone::ProjectDocs
        } else if rel_s.starts_with("src/")
            || rel_s.starts_with("lib/")
            || rel_s.starts_with("tests/")
            || rel_s.starts_with("test/")
            || SRC_EXTS.contains(&ext)
        {
            Zone::ProjectSrc
        } else {
            Zone::Project
        }
    } else if HARMLESS_DEVICES.iter().any(|d| pb == d.as_bytes()) || is_under(pb, b"/dev/fd") {
        Zone::Harmless
    } else if is_under(pb, b"/dev/tcp") || is_under(pb, b"/dev/udp") {
        Zone::Network
    } else if is_under(pb, b"/dev") {
        Zone::Device
    } else if pb == b"/" || is_under(home, pb) && pb != home {
        Zone::Root
    } else if pb == home || parent(pb) == Some(home) {
        Zone::HomeTop
    } else if is_under(pb, home) {
        Zone::Home
    } else if TEMP_DIRS.iter().any(|t| is_under(pb, t.as_bytes())) {
        Zone::Temp
    } else if is_under(pb, b"/home") || is_under(pb, b"/root") || is_under(pb, b"/Users") {
        Zone::OtherHome
    } else if SYSTEM_DIRS.iter().any(|s| is_under(pb, s.as_bytes())) {
        Zone::System
    } else {
        Zone::Elsewhere
    };
    let home_itself = pb == home;
    let rel = if in_root { rel_of(root) } else { String::new() };
    let ci_config = in_root
        && (rel.starts_with(".github/workflows/")
            || rel.starts_with(".github/actions/")
            || rel.starts_with(".circleci/")
            || rel.starts_with(".buildkite/")
            || rel.starts_with(".gitlab/ci")
            || matches!(
                rel.as_str(),
                ".gitlab-ci.yml"
                    | "Jenkinsfile"
                    | "azure-pipelines.yml"
                    | ".drone.yml"
                    | "bitbucket-pipelines.yml"
                    | ".travis.yml"
            ));
    let exec_config = in_root && name == "conftest.py";
    // Files that run code outside this session: on `cd` (direnv), on the person's commits,
    // when the folder opens, when Claude Code starts or runs its hooks.
    let persistent_config = in_root
        && (rel.starts_with(".husky/")
            || rel.starts_with(".githooks/")
            || rel.starts_with(".devcontainer/")
            || rel.starts_with(".claude/hooks/")
            || matches!(
                rel.as_str(),
                ".pre-commit-config.yaml"
                    | ".envrc"
                    | ".vscode/tasks.json"
                    | ".lefthook.yml"
                    | ".lefthook.yaml"
                    | "lefthook.yml"
                    | "lefthook.yaml"
                    | ".mcp.json"
            ));
    Target {
        path: Some(p),
        zone,
        protected,
        holds_protected,
        credential,
        shell_rc,
        account_db,
        home_itself,
        ci_config,
        exec_config,
        persistent_config,
        shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_at_the_home_folder_does_not_make_the_home_files_project_files() {
        let home = Path::new("/home/dev");
        for root in ["/home/dev", "/home", "/"] {
            let ctx = Context::for_project(Path::new(root), Some(home));
            for (path, zone) in [
                ("/home/dev/.bashrc", Zone::HomeTop),
                ("/home/dev/.gitconfig", Zone::HomeTop),
                ("/home/dev/.config/fish/conf.d/x.fish", Zone::Home),
                ("/home/dev/work/a.rs", Zone::Home),
                ("/etc/passwd", Zone::System),
            ] {
                let t = target(Some(PathBuf::from(path)), &ctx);
                assert_eq!(t.zone, zone, "{path} with the project at {root}");
                assert!(!t.in_project(), "{path} with the project at {root}");
            }
        }
        let ctx = Context::for_project(Path::new("/home/dev/project"), Some(home));
        let t = target(Some(PathBuf::from("/home/dev/project/src/a.rs")), &ctx);
        assert!(t.in_project());
        let t = target(
            Some(PathBuf::from("/home/dev/project/sub/.GIT/hooks/x")),
            &ctx,
        );
        assert_eq!(t.zone, Zone::ProjectGitExec);
    }
}
