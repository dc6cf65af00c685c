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
/// kubeconfig under `.kube`), a process's environment (`/proc/*/environ`) or a container's
/// secrets (`/run/secrets`).
pub(super) fn credential_place(pb: &[u8], name: &str) -> bool {
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
pub(super) fn taint_note(t: &Taint, pb: &[u8]) -> String {
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
}
