//! Variables that hold secrets, told by their names (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
//! `DATABASE_URL`), and the variables a word's text expands (`$X`, `${X}`, `${X:-d}`).
//! Printing one puts the secret in the agent's context.

/// Names that look like secrets but are not (a directory, a socket, a terminal).
const NOT_SECRETS: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_TTY",
    "GPG_AGENT_INFO",
    "GNUPGHOME",
    "PASSWORD_STORE_DIR",
];

/// Connection strings, which carry a password (`postgres://user:pw@host/db`).
const CONNECTION_STRINGS: &[&str] = &[
    "DATABASE_URL",
    "DATABASE_URI",
    "DB_URL",
    "DB_URI",
    "REDIS_URL",
    "MONGO_URL",
    "MONGO_URI",
    "MONGODB_URL",
    "MONGODB_URI",
    "AMQP_URL",
    "RABBITMQ_URL",
    "BROKER_URL",
    "CONNECTION_STRING",
    "CONN_STR",
    "CONNSTR",
];

/// Endings of names that hold something about a secret, not the secret: its id, file,
/// folder, address, size or switch (`AWS_ACCESS_KEY_ID`, `TOKEN_FILE`, `MAX_TOKEN_LIMIT`).
const ABOUT_SECRETS: &[&str] = &[
    "_KEY_ID",
    "_FILE",
    "_PATH",
    "_PATHS",
    "_DIR",
    "_URL",
    "_URI",
    "_ENDPOINT",
    "_HOST",
    "_PORT",
    "_REGION",
    "_NAME",
    "_TYPE",
    "_ENABLED",
    "_TTL",
    "_LENGTH",
    "_SIZE",
    "_LIMIT",
    "_COUNT",
    "_TIMEOUT",
    "_VERSION",
    "_MODE",
    "_FORMAT",
    "_EXPIRY",
    "_EXPIRES",
    "_EXPIRATION",
];

/// Parts of a name that say it holds a secret.
const SECRET_PARTS: &[&str] = &[
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDS",
    "COOKIE",
    "WEBHOOK",
    "APIKEY",
    "API_KEY",
    "PRIVATE_KEY",
    "PRIVATEKEY",
    "PRIVKEY",
    "ACCESS_KEY",
    "ACCESSKEY",
    "SECRET_KEY",
    "SIGNING_KEY",
    "MASTER_KEY",
    "ENCRYPTION_KEY",
    "AUTHORIZATION",
    "AUTH_TOKEN",
];

/// Returns whether a variable's name says it holds a secret (compared in any case):
/// tokens, secrets, passwords, API, private and access keys (not their ids), credentials,
/// `*_AUTH`, connection strings (`DATABASE_URL`, `*_DSN`), cookies, session keys, webhooks.
pub(crate) fn is_secret_variable(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    let n = n.as_str();
    if n.is_empty() || NOT_SECRETS.contains(&n) || n.starts_with("KEYBOARD") {
        return false;
    }
    if CONNECTION_STRINGS
        .iter()
        .any(|c| n == *c || n.ends_with(&format!("_{c}")))
        || n.ends_with("_DSN")
        || n == "DSN"
    {
        return true;
    }
    if n.contains("WEBHOOK") {
        return true;
    }
    if ABOUT_SECRETS.iter().any(|s| n.ends_with(s)) {
        return false;
    }
    let words: Vec<&str> = n.split('_').filter(|w| !w.is_empty()).collect();
    if words
        .iter()
        .any(|w| matches!(*w, "PUBLIC" | "PUBLISHABLE" | "PUB"))
    {
        return false;
    }
    words.iter().any(|w| w.ends_with("TOKEN"))
        || SECRET_PARTS.iter().any(|p| n.contains(p))
        || n.ends_with("_KEY")
        || n.ends_with("_AUTH")
        || n == "AUTH"
        || words
            .iter()
            .any(|w| matches!(*w, "PASS" | "PWD" | "SSHPASS" | "DBPASS" | "PGPASS"))
        || n.contains("SESSION") && n.contains("KEY")
}

/// Returns the names of the variables whose values a word's text expands: `$X`, `${X}`,
/// `${X:-d}`, `${X:0:4}` (a part of the value is the value too). Not `${#X}` (its length),
/// `${X:+w}` (only `w`), `${!X}` (another variable, computed), nor special parameters.
pub(crate) fn expanded_variables(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        i += 1;
        let braced = b.get(i) == Some(&b'{');
        if braced {
            i += 1;
        }
        let start = i;
        while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
            i += 1;
        }
        let name = &text[start..i];
        let is_name = name
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
        if !is_name {
            continue;
        }
        if braced {
            let rest = &text[i..];
            if rest.starts_with(":+") || rest.starts_with('+') {
                continue;
            }
        }
        out.push(name);
    }
    out
}

/// Returns the first variable a word's text expands whose name says it holds a secret.
pub(crate) fn secret_in(text: &str) -> Option<&str> {
    expanded_variables(text)
        .into_iter()
        .find(|v| is_secret_variable(v))
}

/// Returns the secret variable a word hands to another program or system as `NAME=VALUE`
/// or `NAME` (`docker run -e`): one its value expands, or, for a bare name, the variable of
/// that name this shell passes on.
pub(crate) fn handed(text: &str, literal: bool) -> Option<&str> {
    if !literal {
        return secret_in(text);
    }
    let name = text.split_once('=').map_or(text, |(n, _)| n);
    (!text.contains('=') && is_secret_variable(name)).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_handed_on_by_name_or_value() {
        assert_eq!(handed("GITHUB_TOKEN", true), Some("GITHUB_TOKEN"));
        assert_eq!(
            handed("AWS_SECRET_ACCESS_KEY", true),
            Some("AWS_SECRET_ACCESS_KEY")
        );
        assert_eq!(handed("X=$GITHUB_TOKEN", false), Some("GITHUB_TOKEN"));
        assert_eq!(handed("T=${NPM_TOKEN}", false), Some("NPM_TOKEN"));
        // A value written on the line is the person's to see; other names hold no secret.
        assert_eq!(handed("GITHUB_TOKEN=abc", true), None);
        assert_eq!(handed("DEBUG", true), None);
        assert_eq!(handed("PATH=$PATH", false), None);
    }

    #[test]
    fn names_that_hold_secrets() {
        for n in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "HF_TOKEN",
            "NPM_TOKEN",
            "CI_JOB_TOKEN",
            "VAULT_TOKEN",
            "AWS_SESSION_TOKEN",
            "ACCESSTOKEN",
            "github_token",
            "SECRET",
            "CLIENT_SECRET",
            "AWS_SECRET_ACCESS_KEY",
            "JWT_SECRET",
            "SECRETS",
            "PASSWORD",
            "DB_PASSWORD",
            "PGPASSWORD",
            "MYSQL_PWD",
            "DB_PASS",
            "SSHPASS",
            "SUDO_PASSWD",
            "GPG_PASSPHRASE",
            "API_KEY",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GOOGLE_APIKEY",
            "STRIPE_KEY",
            "SSH_PRIVATE_KEY",
            "AWS_ACCESS_KEY",
            "DJANGO_SECRET_KEY",
            "ENCRYPTION_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "DOCKER_CREDS",
            "NPM_CONFIG__AUTH",
            "BASIC_AUTH",
            "GITLAB_AUTH_TOKEN",
            "HTTP_AUTHORIZATION",
            "SENTRY_DSN",
            "DSN",
            "DATABASE_URL",
            "PROD_DATABASE_URL",
            "REDIS_URL",
            "MONGODB_URI",
            "SESSION_COOKIE",
            "COOKIE",
            "SESSION_KEY",
            "FLASK_SESSION_SIGNING_KEY",
            "SLACK_WEBHOOK_URL",
            "password",
        ] {
            assert!(is_secret_variable(n), "{n}");
        }
        for n in [
            "PWD",
            "OLDPWD",
            "SSH_AUTH_SOCK",
            "GPG_TTY",
            "KEYBOARD_LAYOUT",
            "KEYBOARD",
            "AWS_ACCESS_KEY_ID",
            "GPG_KEY_ID",
            "HOME",
            "PATH",
            "USER",
            "SHELL",
            "TERM",
            "LANG",
            "EDITOR",
            "RUST_LOG",
            "CI",
            "NODE_ENV",
            "TOKENIZERS_PARALLELISM",
            "MAX_TOKENS",
            "TOKEN_LIMIT",
            "GITHUB_TOKEN_FILE",
            "SSL_KEY_PATH",
            "PASSWORD_MIN_LENGTH",
            "AUTH_URL",
            "OAUTH_TOKEN_ENDPOINT",
            "SECRET_NAME",
            "STRIPE_PUBLISHABLE_KEY",
            "SSH_PUBLIC_KEY",
            "KEY",
            "MONKEY",
            "BYPASS",
            "SESSION_TIMEOUT",
            "GNUPGHOME",
            "",
        ] {
            assert!(!is_secret_variable(n), "{n}");
        }
    }

    #[test]
    fn variables_a_word_expands() {
        for (text, vars) in [
            ("$GITHUB_TOKEN", vec!["GITHUB_TOKEN"]),
            ("${GITHUB_TOKEN}", vec!["GITHUB_TOKEN"]),
            ("Bearer ${TOKEN:-x}/$USER", vec!["TOKEN", "USER"]),
            ("${TOKEN:0:4}", vec!["TOKEN"]),
            ("${#TOKEN}", vec![]),
            ("${TOKEN:+set}", vec![]),
            ("${TOKEN+set}", vec![]),
            ("${!TOKEN}", vec![]),
            ("$1 $@ $? $$", vec![]),
            ("a$", vec![]),
            ("$A$B", vec!["A", "B"]),
        ] {
            assert_eq!(expanded_variables(text), vars, "{text}");
        }
        assert_eq!(secret_in("x $HOME ${API_KEY}"), Some("API_KEY"));
        assert_eq!(secret_in("$HOME"), None);
    }
}
