//! What holds credentials: by a file's name or shape, by where it lies, and through the
//! copies and links the session made of them.

use std::path::Path;

use super::super::{Context, Taint};
use super::{Target, bytes, extension, is_under, target};

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
    // Firefox's cookies and saved passwords of old versions.
    "cookies.sqlite",
    "signons.sqlite",
    // Histories of shells and interactive clients: commands typed, tokens pasted into them.
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".histfile",
    ".sh_history",
    ".ksh_history",
    "fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".mariadb_history",
    ".sqlite_history",
    ".duckdb_history",
    ".node_repl_history",
    ".rediscli_history",
    ".irb_history",
    ".pry_history",
    ".scala_history",
    ".dbshell",
    "mongosh_repl_history",
];
/// Folders of browser profiles built on Chromium (any component, in lower case), on Linux
/// (`~/.config/google-chrome`) and macOS (`~/Library/Application Support/Google/Chrome`).
const CHROMIUM_DIRS: &[&str] = &[
    "google-chrome",
    "google-chrome-beta",
    "google-chrome-unstable",
    "chrome",
    "chromium",
    "bravesoftware",
    "brave-browser",
    "microsoft-edge",
    "microsoft-edge-beta",
    "microsoft edge",
    "vivaldi",
    "opera",
];
/// The files of a Chromium profile that hold cookies, saved passwords and cards.
const CHROMIUM_FILES: &[&str] = &[
    "cookies",
    "login data",
    "login data for account",
    "web data",
];
/// Folders of Firefox and Thunderbird profiles (any component, in lower case).
const MOZILLA_DIRS: &[&str] = &[".mozilla", "firefox", "thunderbird", ".thunderbird"];
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
    // ssh-keygen's names: `id_<algo>` (any suffix, a copy `id_rsa.old` too), `id_<name>`
    // without an extension, `<name>_<algo>`, `ssh_host_<algo>_key`.
    let keyish_ext = ext.is_empty() || KEY_EXTS.contains(&ext);
    if let Some(rest) = n.strip_prefix("id_")
        && (KEY_ALGOS.iter().any(|a| rest.starts_with(a)) || ext.is_empty())
    {
        return true;
    }
    if keyish_ext
        && KEY_ALGOS.iter().any(|a| {
            stem.strip_suffix(a)
                .is_some_and(|r| r.ends_with('_') || r.ends_with('-'))
        })
    {
        return true;
    }
    let data = ext.is_empty() || DATA_EXTS.contains(&ext);
    if !data || TEMPLATE_WORDS.iter().any(|t| n.contains(t)) {
        return false;
    }
    SECRET_PARTS.iter().any(|p| stem.contains(p))
        || stem
            .split(['.', '_', '-', ' '])
            .any(|w| SECRET_WORDS.contains(&w))
}

/// Returns whether a normalised path holds credentials by where it lies: in a folder of
/// credentials (`~/.ssh`, `~/.aws`, `.docker`, `gcloud` …), or one of the files of
/// credentials of a known program (`gh/hosts.yml`, `.codex/auth.json`, age keys, a
/// kubeconfig under `.kube`, Maven's and Gradle's settings, a browser profile's cookies and
/// passwords, a cluster's admin configuration under `/etc`), a process's environment
/// (`/proc/*/environ`) or a container's secrets (`/run/secrets`). `home` is the user's
/// home: some names hold tokens only there (`~/.yarnrc.yml`, `~/.claude.json`).
pub(super) fn credential_place(pb: &[u8], name: &str, home: &[u8]) -> bool {
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
            && ["gh", "hub", "op", "gcloud", "doctl", "heroku", "rclone"]
                .iter()
                .any(|d| seg_is(w[1], d))
    });
    let sops_age = segs
        .windows(2)
        .any(|w| seg_is(w[0], "sops") && seg_is(w[1], "age"));
    let keyrings = segs
        .windows(3)
        .any(|w| seg_is(w[0], ".local") && seg_is(w[1], "share") && seg_is(w[2], "keyrings"));
    let any_seg = |list: &[&str]| {
        segs.iter()
            .any(|seg| list.iter().any(|d| seg.eq_ignore_ascii_case(d.as_bytes())))
    };
    let in_home = pb.len() > home.len()
        && pb.starts_with(home)
        && pb[home.len()] == b'/'
        && !pb[home.len() + 1..].contains(&b'/');
    config_dir
        || sops_age
        || keyrings
        || parent_is(".m2") && matches!(lower.as_str(), "settings.xml" | "settings-security.xml")
        || parent_is(".gradle") && lower == "gradle.properties"
        || in_home && matches!(lower.as_str(), ".yarnrc.yml" | ".yarnrc")
        || (in_home || parent_is(".claude") || parent_is("backups"))
            && lower.starts_with(".claude.json")
        || CHROMIUM_FILES.contains(&lower.as_str()) && any_seg(CHROMIUM_DIRS)
        || matches!(lower.as_str(), "logins.json" | "logins-backup.json") && any_seg(MOZILLA_DIRS)
        || parent_is("kubernetes") && is_under(pb, b"/etc/kubernetes") && lower.ends_with(".conf")
        || is_under(pb, b"/etc/kubernetes/pki")
        || is_under(pb, b"/etc/rancher")
        || (parent_is("gitlab-runner") || parent_is(".gitlab-runner")) && lower == "config.toml"
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

/// Places under the home that hold credentials, where a search through a folder above them
/// finds them (`grep -r KEY ~`).
const HOME_PLACES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".config/gh",
    ".config/gcloud",
    ".config/rclone",
    ".local/share/keyrings",
    ".mozilla",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".bash_history",
    ".zsh_history",
    ".claude.json",
    ".claude/.credentials.json",
    ".codex/auth.json",
    "Library/Keychains",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
];
/// Places of the system that hold credentials (host keys, cluster admin files, processes'
/// environments, containers' secrets).
const SYSTEM_PLACES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/ssh",
    "/etc/kubernetes",
    "/etc/rancher",
    "/etc/gitlab-runner",
    "/proc",
    "/run/secrets",
    "/var/run/secrets",
    "/var/lib/rancher",
];

/// Returns, as messages show it, a place holding credentials that a search through the
/// whole tree of `t` reads (`t` itself when it holds them): one under it, reached without a
/// hidden folder on the way unless `hidden` (`rg` skips them, `grep -r` does not). The
/// homes of other users hold theirs (`/home/alice/.ssh`). None for the project and the
/// folders of work: only the places oath knows are looked for.
pub(crate) fn tree_credentials(t: &Target, hidden: bool, ctx: &Context) -> Option<String> {
    if t.credential {
        return Some(t.shown());
    }
    let p = bytes(t.path.as_deref()?);
    let reached = |place: &[u8]| {
        is_under(place, p) && {
            let rest = &place[p.len()..];
            hidden || !rest.split(|&b| b == b'/').any(|seg| seg.starts_with(b"."))
        }
    };
    if let Some(place) = SYSTEM_PLACES.iter().find(|q| reached(q.as_bytes())) {
        return Some((*place).to_owned());
    }
    if let Some(home) = ctx.home() {
        for rel in HOME_PLACES {
            let place = home.join(rel);
            if reached(bytes(&place)) {
                return Some(target(Some(place), ctx).shown());
            }
        }
    }
    // Another user's home, root's, or the folder of all homes: their `.ssh` and the rest.
    let other_home = matches!(p, b"/root" | b"/home" | b"/Users")
        || super::parent(p).is_some_and(|d| d == b"/home" || d == b"/Users");
    (other_home && hidden).then(|| format!("{}/.ssh", t.shown()))
}

/// Returns `t` marked as credentials because a search through its tree reads `place`.
pub(crate) fn as_holding(t: Target, place: &str) -> Target {
    if t.credential {
        return t;
    }
    let shown = if t.shown == place {
        format!("{place} (which holds credentials)")
    } else {
        format!("{} (which holds {place})", t.shown)
    };
    Target {
        credential: true,
        shown,
        ..t
    }
}

/// Says where a tainted path came from: `a copy of ~/.ssh/id_rsa made by `cp …``, or for a
/// path inside a copied folder, `inside a copy of ~/.ssh …`.
pub(super) fn taint_note(t: &Taint, pb: &[u8]) -> String {
    let inside = if bytes(&t.path) == pb { "" } else { "inside " };
    format!("{inside}a copy of {} made by {}", t.from, t.by)
}

/// Returns where a path leads, as messages show it, when a symbolic link in it leads to
/// credentials (`ln -s ~/.ssh/id_rsa k.txt`: `k.txt` leads to `~/.ssh/id_rsa`). Costs one
/// look at the file system through the context's [`super::Links`] (none without one).
fn link_to_credential(p: &Path, ctx: &Context) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

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
            "/home/dev/.config/gcloud/credentials.db",
            "/home/dev/.config/rclone/rclone.conf",
            "/home/dev/.m2/settings.xml",
            "/home/dev/.m2/settings-security.xml",
            "/home/dev/.gradle/gradle.properties",
            "/home/dev/.yarnrc.yml",
            "/home/dev/.claude.json",
            "/home/dev/.claude.json.backup",
            "/home/dev/.claude/backups/.claude.json.backup.1700000000",
            "/home/dev/.mozilla/firefox/abc.default/logins.json",
            "/home/dev/.mozilla/firefox/abc.default/cookies.sqlite",
            "/home/dev/.config/google-chrome/Default/Cookies",
            "/home/dev/.config/google-chrome/Default/Network/Cookies",
            "/home/dev/.config/chromium/Profile 1/Login Data",
            "/home/dev/.config/BraveSoftware/Brave-Browser/Default/Web Data",
            "/home/dev/Library/Application Support/Google/Chrome/Default/Cookies",
            "/home/dev/Library/Application Support/Microsoft Edge/Default/Login Data",
            "/home/dev/Library/Application Support/Firefox/Profiles/x/logins.json",
            "/etc/kubernetes/admin.conf",
            "/etc/kubernetes/super-admin.conf",
            "/etc/kubernetes/pki/ca.crt",
            "/etc/rancher/k3s/k3s.yaml",
            "/etc/rancher/rke2/rke2.yaml",
            "/etc/gitlab-runner/config.toml",
            "/home/dev/.gitlab-runner/config.toml",
            "/home/dev/.bash_history",
            "/home/dev/.zsh_history",
            "/home/dev/.python_history",
            "/home/dev/.psql_history",
            "/home/dev/.mysql_history",
            "/home/dev/.local/share/fish/fish_history",
            "/root/.bash_history",
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
            ".git/config",
            "/home/dev/project/.yarnrc.yml",
            "/home/dev/project/gradle.properties",
            "/home/dev/project/settings.xml",
            "/home/dev/project/src/cookies.rs",
            "/home/dev/project/docs/history.md",
            "/etc/kubernetes/manifests/kube-apiserver.yaml",
            "/home/dev/.config/google-chrome/Default/Preferences",
            "/home/dev/.mozilla/firefox/abc.default/places.sqlite",
            "/home/dev/.gitlab-ci.yml",
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
}
