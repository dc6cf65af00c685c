//! Where a path points: resolution against cwd and home (lexical, no I/O) and the zone it
//! falls in, with the risk of writing, deleting or reading there.

use std::path::{Path, PathBuf};

use super::{Context, Taint};

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

/// Lexically normalises a path: `.` and repeated or trailing slashes removed, `..` applied
/// (at the root of an absolute path it stays at the root). The result's bytes are canonical,
/// so [`is_under`] can compare them without parsing components.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    // Most paths (the project root, HOME, protected paths) already are: a copy, not a rebuild.
    if cfg!(unix) && is_normalized(bytes(p)) {
        return p.to_path_buf();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(normalize_bytes(bytes(p))))
    }
    #[cfg(not(unix))]
    normalize_components(p)
}

/// `normalize_components` on the bytes of a Unix path, without parsing components (a
/// property test holds the two to the same answers).
#[cfg(unix)]
fn normalize_bytes(p: &[u8]) -> Vec<u8> {
    let absolute = p.first() == Some(&b'/');
    let mut out = Vec::with_capacity(p.len());
    if absolute {
        out.push(b'/');
    }
    // Segments other than `..` in `out`: only those can be removed by a later `..`.
    let mut normals = 0usize;
    for seg in p.split(|&b| b == b'/') {
        match seg {
            b"" | b"." => {}
            b".." if normals > 0 => {
                let cut = out.iter().rposition(|&b| b == b'/').unwrap_or(0);
                out.truncate(if absolute { cut.max(1) } else { cut });
                normals -= 1;
            }
            b".." if absolute => {}
            seg => {
                if !out.is_empty() && out.last() != Some(&b'/') {
                    out.push(b'/');
                }
                out.extend_from_slice(seg);
                normals += usize::from(seg != b"..");
            }
        }
    }
    out
}

/// [`normalize`] the long way, component by component (on Unix, the reference the bytes
/// version is tested against).
#[cfg(any(not(unix), test))]
fn normalize_components(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    let mut normals = 0usize;
    for c in p.components() {
        match c {
            Component::ParentDir if normals > 0 => {
                out.pop();
                normals -= 1;
            }
            Component::ParentDir => {
                if !p.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(n) => {
                out.push(n);
                normals += 1;
            }
            Component::RootDir => out.push("/"),
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::CurDir => {}
        }
    }
    out
}

/// Returns `p` normalised, taken from `base` when relative.
pub(crate) fn absolute(base: &Path, p: &Path) -> PathBuf {
    if p.has_root() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    }
}

/// Returns the bytes of a path.
fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// Returns whether normalised `p` is `base` or inside it (what `Path::starts_with` answers,
/// without parsing components: both paths are normalised, so bytes decide).
fn is_under(p: &[u8], base: &[u8]) -> bool {
    match p.strip_prefix(base) {
        Some(rest) => !base.is_empty() && (rest.is_empty() || rest[0] == b'/' || base == b"/"),
        None => false,
    }
}

/// [`is_under`], ASCII letters compared in any case.
fn is_under_any_case(p: &[u8], base: &[u8]) -> bool {
    p.len() >= base.len()
        && p[..base.len()].eq_ignore_ascii_case(base)
        && !base.is_empty()
        && (p.len() == base.len() || p[base.len()] == b'/' || base == b"/")
}

/// Returns whether a path is already normalised (absolute paths from [`resolve`] are).
fn is_normalized(p: &[u8]) -> bool {
    if p == b"/" {
        return true;
    }
    !p.ends_with(b"/")
        && !p.windows(2).any(|w| w == b"//")
        && !p
            .split(|&b| b == b'/')
            .any(|seg| seg == b"." || seg == b"..")
}

/// Returns the last component of a normalised path ("" for `/`).
fn file_name(p: &[u8]) -> &[u8] {
    match p.iter().rposition(|&b| b == b'/') {
        Some(i) => &p[i + 1..],
        None => p,
    }
}

/// Returns the parent of a normalised absolute path (None for `/`).
fn parent(p: &[u8]) -> Option<&[u8]> {
    match p.iter().rposition(|&b| b == b'/') {
        Some(0) if p.len() > 1 => Some(b"/"),
        Some(0) | None => None,
        Some(i) => Some(&p[..i]),
    }
}

/// Returns the extension of a file name as `Path::extension` does (none for dot files).
fn extension(name: &[u8]) -> &[u8] {
    if name == b".." {
        return b"";
    }
    match name.iter().rposition(|&b| b == b'.') {
        Some(0) | None => b"",
        Some(i) => &name[i + 1..],
    }
}

fn home_of(ctx: &Context) -> PathBuf {
    ctx.home()
        .map_or_else(|| PathBuf::from("/~"), Path::to_path_buf)
}

/// Resolves a path as written (`~`, `~user`, relative) against `cwd`. With `glob`, the
/// text is a shell pattern cut at its first wild component, so `/*` resolves to `/`.
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
        text.find(['*', '?', '['])
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
/// Folders whose every file holds credentials (as any component of a path).
const CREDENTIAL_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".password-store",
    ".docker",
    "gcloud",
    ".vault-token",
    ".terraform.d",
    ".age",
];
/// Files that hold credentials by their exact name (compared in lower case).
const CREDENTIAL_FILES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".htpasswd",
    ".my.cnf",
    ".mylogin.cnf",
    ".boto",
    ".s3cfg",
    ".dockercfg",
    ".terraformrc",
    "terraform.rc",
    "shadow",
    "gshadow",
    "master.key",
    "key3.db",
    "key4.db",
    "login data",
];
/// Extensions of key stores, private keys and state files that carry secrets.
const KEY_EXTS: &[&str] = &[
    "pem",
    "key",
    "ppk",
    "p12",
    "p8",
    "pfx",
    "pkcs12",
    "jks",
    "jceks",
    "keystore",
    "kdbx",
    "kdb",
    "tfstate",
    "keychain",
    "keychain-db",
    "token",
];
/// Extensions of data files: a name that says it holds secrets is a secret with one of
/// these (or none); with another (`secrets.rs`, `passwords.md`) it is code or prose.
const DATA_EXTS: &[&str] = &[
    "json",
    "yaml",
    "yml",
    "toml",
    "ini",
    "env",
    "txt",
    "cfg",
    "conf",
    "config",
    "xml",
    "properties",
    "plist",
    "db",
    "dat",
    "pickle",
    "pkl",
    "csv",
];
/// Suffixes of backups and copies: `credentials.json.bak` is what `credentials.json` is.
const BACKUP_EXTS: &[&str] = &[
    ".bak", ".backup", ".old", ".orig", ".save", ".copy", ".tmp", ".swp", "~",
];
/// Words that make a secret-looking name a template, not a secret.
const TEMPLATE_WORDS: &[&str] = &["example", "sample", "template", "tmpl", "schema"];
/// Parts of a name that say the file holds secrets.
const SECRET_PARTS: &[&str] = &[
    "credential",
    "creds",
    "secret",
    "password",
    "passwd",
    "private_key",
    "private-key",
    "privatekey",
    "privkey",
    "apikey",
    "api_key",
    "api-key",
    "service_account",
    "service-account",
    "serviceaccount",
    "kubeconfig",
    "vault_pass",
    "vault-pass",
];
/// Words (between `.`, `_`, `-`) of a name that say the file holds secrets.
const SECRET_WORDS: &[&str] = &["token", "key", "pass"];
/// Key algorithms in the names ssh-keygen gives private keys (`id_ed25519`, `deploy_rsa`).
const KEY_ALGOS: &[&str] = &[
    "rsa",
    "dsa",
    "ecdsa",
    "ed25519",
    "ecdsa_sk",
    "ed25519_sk",
    "xmss",
];
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

/// Returns whether a file name names credentials: by its exact name (`.netrc`), as a key
/// store or private key (`*.pem`, `id_ed25519`, `deploy_rsa`), or by its shape: a data file
/// (or one without an extension) whose name says it holds credentials, secrets, passwords,
/// tokens or keys (`credentials`, `.credentials.json`, `client_secret.json`, `.vault-token`,
/// `sa-key.json`). Source files and prose of such names (`secrets.rs`, `passwords.md`),
/// templates (`secrets.example.yml`) and public keys (`*.pub`) are ordinary.
pub(crate) fn credential_name(name: &str) -> bool {
    if name == ".env" || name.ends_with(".env") && name.len() > 4 {
        return true;
    }
    if let Some(rest) = name.strip_prefix(".env.") {
        return !matches!(
            rest,
            "example" | "sample" | "template" | "dist" | "defaults" | "schema" | "tmpl"
        );
    }
    let lower = name.to_ascii_lowercase();
    let mut n = lower.as_str();
    while let Some(rest) = BACKUP_EXTS
        .iter()
        .find_map(|b| n.strip_suffix(b).filter(|r| !r.is_empty()))
    {
        n = rest;
    }
    if n.ends_with(".pub") || n == "passwd" {
        return false;
    }
    if CREDENTIAL_FILES.contains(&n) {
        return true;
    }
    let ext = std::str::from_utf8(extension(n.as_bytes())).unwrap_or("");
    let stem = &n[..n.len() - if ext.is_empty() { 0 } else { ext.len() + 1 }];
    if KEY_EXTS.contains(&ext) {
        return true;
    }
    let words: Vec<&str> = stem
        .split(['.', '_', '-', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    // ssh-keygen's names: `id_<algo>` (any suffix, a copy `id_rsa.old` too), `id_<name>`
    // without an extension, `<name>_<algo>`, `ssh_host_<algo>_key`.
    let keyish_ext = ext.is_empty() || KEY_EXTS.contains(&ext);
    if let Some(rest) = n.strip_prefix("id_")
        && (KEY_ALGOS.iter().any(|a| rest.starts_with(a)) || ext.is_empty())
    {
        return true;
    }
    if keyish_ext
        && KEY_ALGOS
            .iter()
            .any(|a| stem.ends_with(&format!("_{a}")) || stem.ends_with(&format!("-{a}")))
    {
        return true;
    }
    let data = ext.is_empty() || DATA_EXTS.contains(&ext);
    if !data || TEMPLATE_WORDS.iter().any(|t| n.contains(t)) {
        return false;
    }
    SECRET_PARTS.iter().any(|p| stem.contains(p)) || words.iter().any(|w| SECRET_WORDS.contains(w))
}

/// Returns whether a normalised path holds credentials by where it lies: in a folder of
/// credentials (`~/.ssh`, `~/.aws`, `.docker`, `gcloud` …), or one of the files of
/// credentials of a known program (`gh/hosts.yml`, `.codex/auth.json`, age keys, a
/// kubeconfig under `.kube`), a process's environment (`/proc/*/environ`) or a container's
/// secrets (`/run/secrets`).
fn credential_place(pb: &[u8], name: &str) -> bool {
    let segs: Vec<&[u8]> = pb.split(|&b| b == b'/').collect();
    let seg_is = |s: &[u8], want: &str| s.eq_ignore_ascii_case(want.as_bytes());
    let lower = name.to_ascii_lowercase();
    if segs
        .iter()
        .any(|seg| std::str::from_utf8(seg).is_ok_and(|s| CREDENTIAL_DIRS.contains(&s)))
        && !lower.ends_with(".pub")
        && lower != "known_hosts"
    {
        return true;
    }
    let parent_is = |want: &str| segs.len() >= 2 && seg_is(segs[segs.len() - 2], want);
    // `…/.config/<dir>/…`: the folder of credentials of a command-line tool.
    let config_dir = segs.windows(2).any(|w| {
        seg_is(w[0], ".config")
            && ["gh", "hub", "op", "gcloud", "doctl", "heroku"]
                .iter()
                .any(|d| seg_is(w[1], d))
    });
    let sops_age = segs
        .windows(2)
        .any(|w| seg_is(w[0], "sops") && seg_is(w[1], "age"));
    let keyrings = segs
        .windows(3)
        .any(|w| seg_is(w[0], ".local") && seg_is(w[1], "share") && seg_is(w[2], "keyrings"));
    config_dir
        || sops_age
        || keyrings
        || parent_is("gh") && matches!(lower.as_str(), "hosts.yml" | "hosts.yaml")
        || parent_is(".codex") && lower == "auth.json"
        || parent_is(".gemini")
            && matches!(lower.as_str(), "oauth_creds.json" | "google_accounts.json")
        || parent_is(".claude") && lower == ".credentials.json"
        || lower == "kubeconfig"
        || lower.ends_with(".kubeconfig")
        || is_under(pb, b"/run/secrets")
        || is_under(pb, b"/var/run/secrets")
        || segs.first() == Some(&&b""[..])
            && segs.get(1) == Some(&&b"proc"[..])
            && lower == "environ"
}

/// Says where a tainted path came from: `a copy of ~/.ssh/id_rsa made by `cp …``, or for a
/// path inside a copied folder, `inside a copy of ~/.ssh …`.
fn taint_note(t: &Taint, pb: &[u8]) -> String {
    let inside = if bytes(&t.path) == pb { "" } else { "inside " };
    format!("{inside}a copy of {} made by {}", t.from, t.by)
}

/// Returns where a path leads, as messages show it, when a symbolic link in it leads to
/// credentials (`ln -s ~/.ssh/id_rsa k.txt`: `k.txt` leads to `~/.ssh/id_rsa`). Costs one
/// look at the file system through the context's [`super::Links`] (none without one).
pub(crate) fn link_to_credential(p: &Path, ctx: &Context) -> Option<String> {
    let real = ctx.real_path(p)?;
    let r = target(Some(real), ctx);
    r.credential.then_some(r.shown)
}

/// Returns `t` marked as credentials, as a link to `real`.
pub(crate) fn as_link_to(t: Target, real: &str) -> Target {
    Target {
        credential: true,
        shown: format!("{} (a link to {real})", t.shown),
        ..t
    }
}

/// Returns `t` marked as credentials when a symbolic link in its path leads to credentials
/// (`ln -s ~/.ssh/id_rsa k.txt; cat k.txt`), with the place named; `t` itself otherwise.
pub(crate) fn through_read_links(t: Target, ctx: &Context) -> Target {
    if t.credential || t.protected {
        return t;
    }
    match t.path.as_deref().and_then(|p| link_to_credential(p, ctx)) {
        Some(real) => as_link_to(t, &real),
        None => t,
    }
}

/// Returns `t` (where a shell pattern starts) marked as credentials because what the
/// pattern matches holds them, shown as the pattern.
pub(crate) fn as_pattern(t: Target, matched: &Target) -> Target {
    Target {
        credential: true,
        shown: matched.shown.clone(),
        ..t
    }
}

/// Returns `t` marked as credentials because of a copy this line made (`cp KEY k.txt` before
/// `curl -T k.txt`), named in its messages.
pub(crate) fn tainted_by(t: Target, taint: &Taint) -> Target {
    let note = match t.path.as_deref() {
        Some(p) => taint_note(taint, bytes(p)),
        None => return t,
    };
    Target {
        credential: true,
        shown: format!("{} ({note})", t.shown),
        ..t
    }
}

/// Returns whether `t` is, lies inside or holds a path of `list` (an archive or copy of a
/// folder that holds a tainted copy carries it).
pub(crate) fn touches(t: &Target, list: &[Taint]) -> Option<usize> {
    let p = bytes(t.path.as_deref()?);
    list.iter()
        .position(|x| is_under(p, bytes(&x.path)) || is_under(bytes(&x.path), p))
}

/// Returns whether `p` is `base` or inside it (both normalised).
pub(crate) fn path_is_under(p: &Path, base: &Path) -> bool {
    is_under(bytes(p), bytes(base))
}

/// Returns the place a change of `t` really reaches when a symbolic link (in `t`, or in the
/// path of something oath protects) makes it one oath protects; None otherwise.
pub(crate) fn followed(t: &Target, ctx: &Context) -> Option<Target> {
    if t.protected || t.holds_protected {
        return None;
    }
    let p = t.path.as_deref()?;
    let real = ctx.real_path(p);
    if let Some(r) = &real {
        let tg = target(Some(r.clone()), ctx);
        if tg.protected || tg.holds_protected {
            return Some(Target {
                shown: format!("{} (a link to {})", t.shown, tg.shown),
                ..tg
            });
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
    let credential = credential_name(&name) || credential_place(pb, &name) || taint.is_some();
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
    use proptest::prelude::*;

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

    #[test]
    fn credentials_by_shape_and_place() {
        let ctx =
            Context::for_project(Path::new("/home/dev/project"), Some(Path::new("/home/dev")));
        let cred = |p: &str| {
            let full = if p.starts_with('/') {
                PathBuf::from(p)
            } else {
                Path::new("/home/dev/project").join(p)
            };
            target(Some(full), &ctx).credential
        };
        for p in [
            "/home/dev/.claude/.credentials.json",
            "/home/dev/.codex/auth.json",
            "/home/dev/.gemini/oauth_creds.json",
            "/home/dev/.config/gh/hosts.yml",
            "/home/dev/.config/gcloud/application_default_credentials.json",
            "/home/dev/.config/gcloud/access_tokens.db",
            "/home/dev/.config/sops/age/keys.txt",
            "/home/dev/.age/key.txt",
            "/home/dev/.docker/config.json",
            "/home/dev/.kube/config",
            "/home/dev/.ssh/id_rsa",
            "/home/dev/.ssh/config",
            "/home/dev/.aws/credentials",
            "/home/dev/.netrc",
            "/home/dev/.pgpass",
            "/home/dev/.my.cnf",
            "/home/dev/.vault-token",
            "/home/dev/.boto",
            "/home/dev/.s3cfg",
            "/home/dev/.git-credentials",
            "/home/dev/.cargo/credentials.toml",
            "/home/dev/.gem/credentials",
            "/etc/ssh/ssh_host_ed25519_key",
            "/proc/self/environ",
            "/proc/1/environ",
            "/run/secrets/db_password",
            "/var/run/secrets/kubernetes.io/serviceaccount/token",
            "credentials",
            "credentials.json",
            "Credentials.JSON",
            "aws_credentials.ini",
            "client_secret.json",
            "secrets.yml",
            "secrets.env",
            ".secrets",
            "app/secret.txt",
            "db_password.txt",
            "passwords.csv",
            ".htpasswd",
            "token.json",
            "token",
            ".token",
            "github.token",
            "gh_token.txt",
            "deploy_key",
            "sa-key.json",
            "service-account.json",
            "id_work",
            "id_ed25519_sk",
            "id_rsa.old",
            "deploy_rsa",
            "server.pem",
            "tls.key",
            "putty.ppk",
            "cert.p12",
            "AuthKey_ABC123.p8",
            "keystore.jks",
            "vault.kdbx",
            "terraform.tfstate",
            "terraform.tfstate.backup",
            "kubeconfig",
            "prod.kubeconfig",
            ".env",
            ".env.production",
            "credentials.json.bak",
        ] {
            assert!(cred(p), "{p} holds credentials");
        }
        for p in [
            "src/secret_scanner.rs",
            "src/secrets.rs",
            "tests/secret_test.py",
            "tokenizer.py",
            "src/token.rs",
            "docs/passwords.md",
            "docs/credentials.md",
            "src/credentials.go",
            "password_reset.html",
            "api_key_validator.ts",
            "secrets.example.yml",
            "credentials.sample.json",
            "config/secrets.template.yaml",
            ".env.example",
            "tokens.css",
            "tokens.json",
            "keyboard.json",
            "monkey.txt",
            "README.md",
            "hosts.yml",
            "inventory/hosts.yaml",
            "auth.json",
            "/home/dev/.ssh/id_rsa.pub",
            "/home/dev/.ssh/known_hosts",
            "id_rsa.pub",
            "/etc/passwd",
            "/proc/self/status",
            "Cargo.toml",
            "src/main.rs",
            "bypass.txt",
        ] {
            assert!(!cred(p), "{p} is ordinary");
        }
    }

    #[test]
    fn copies_the_session_made_hold_credentials() {
        let ctx = Context::for_project(Path::new("/p"), Some(Path::new("/h"))).with_tainted([
            Taint {
                path: PathBuf::from("/p/notes/k.txt"),
                from: "~/.ssh/id_rsa".into(),
                by: "`cp ~/.ssh/id_rsa notes/k.txt`".into(),
            },
            Taint {
                path: PathBuf::from("/p/keys"),
                from: "~/.ssh".into(),
                by: "`cp -r ~/.ssh keys`".into(),
            },
        ]);
        let t = target(Some(PathBuf::from("/p/notes/k.txt")), &ctx);
        assert!(t.credential);
        assert_eq!(
            t.shown(),
            "notes/k.txt (a copy of ~/.ssh/id_rsa made by `cp ~/.ssh/id_rsa notes/k.txt`)"
        );
        assert!(target(Some(PathBuf::from("/p/keys/config")), &ctx).credential);
        assert!(!target(Some(PathBuf::from("/p/notes")), &ctx).credential);
        assert!(!target(Some(PathBuf::from("/p/notes/k.txt2")), &ctx).credential);
    }

    #[test]
    fn normalize_table() {
        for (input, want) in [
            ("/a/b", "/a/b"),
            ("/a//b/", "/a/b"),
            ("/a/./b/../c", "/a/c"),
            ("/../..", "/"),
            ("/", "/"),
            ("a/../../b", "../b"),
            ("./a/", "a"),
            ("", ""),
        ] {
            assert_eq!(normalize(Path::new(input)), PathBuf::from(want), "{input}");
        }
    }

    #[test]
    fn byte_helpers_table() {
        assert!(is_normalized(b"/a/b") && is_normalized(b"/") && is_normalized(b"a"));
        for bad in [&b"/a//b"[..], b"/a/", b"/a/./b", b"/a/..", b"./a"] {
            assert!(!is_normalized(bad), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parent(b"/a/b"), Some(&b"/a"[..]));
        assert_eq!(parent(b"/a"), Some(&b"/"[..]));
        assert_eq!(parent(b"/"), None);
        assert_eq!(file_name(b"/a/b.rs"), b"b.rs");
        assert_eq!(file_name(b"/"), b"");
        for (name, ext) in [
            ("b.rs", "rs"),
            (".bashrc", ""),
            ("a.tar.gz", "gz"),
            ("a.", ""),
            ("..", ""),
            ("x", ""),
        ] {
            assert_eq!(extension(name.as_bytes()), ext.as_bytes(), "{name}");
            assert_eq!(
                Path::new(name)
                    .extension()
                    .map_or("", |e| e.to_str().unwrap()),
                ext,
                "std agrees on {name}"
            );
        }
        assert!(!is_under(b"/a", b""), "an empty base holds nothing");
        assert_eq!(
            absolute(Path::new("/p"), Path::new("")),
            PathBuf::from("/p")
        );
        assert_eq!(
            absolute(Path::new("/p"), Path::new("../..")),
            PathBuf::from("/")
        );
        assert_eq!(
            absolute(Path::new("/"), Path::new("a/./b")),
            PathBuf::from("/a/b")
        );
    }

    proptest! {
        /// On normalised paths the byte comparison answers what `Path::starts_with` answers.
        #[test]
        fn is_under_matches_path_starts_with(
            a in prop::collection::vec(prop::sample::select(vec!["a", "b", "ab", ".x", "..", "."]), 0..5),
            b in prop::collection::vec(prop::sample::select(vec!["a", "b", "ab", ".x", "..", "."]), 0..5),
        ) {
            let p = normalize(&PathBuf::from(format!("/{}", a.join("/"))));
            let q = normalize(&PathBuf::from(format!("/{}", b.join("/"))));
            prop_assert!(is_normalized(bytes(&p)) && is_normalized(bytes(&q)));
            prop_assert_eq!(is_under(bytes(&p), bytes(&q)), p.starts_with(&q), "{:?} under {:?}", p, q);
        }

        /// Normalising the bytes answers what normalising the components does.
        #[test]
        fn normalize_bytes_matches_the_components(
            absolute in any::<bool>(),
            segments in prop::collection::vec(prop::sample::select(vec!["a", "", "..", ".", "b.c", "..."]), 0..7),
            trailing in any::<bool>(),
        ) {
            let p = PathBuf::from(format!(
                "{}{}{}",
                if absolute { "/" } else { "" },
                segments.join("/"),
                if trailing { "/" } else { "" },
            ));
            let bytes_way = PathBuf::from(String::from_utf8(normalize_bytes(bytes(&p))).unwrap());
            prop_assert_eq!(bytes_way, normalize_components(&p), "{:?}", p);
        }

        /// The shortcut for paths already normalised changes no answer.
        #[test]
        fn normalize_shortcut_matches_the_long_way(
            parts in prop::collection::vec(prop::sample::select(vec!["a", "", "..", ".", "b.c", "/"]), 0..6),
        ) {
            let p = PathBuf::from(parts.concat());
            prop_assert_eq!(normalize(&p), normalize_components(&p), "{:?}", p);
        }
    }
}
