//! Secret-looking names: keys, variables and flags whose values are masked, and the cheap
//! stem check that rules out most names at once.

/// Name suffixes that describe a secret without holding one (`max_tokens`, `TOKEN_FILE`).
const NOT_SECRET_SUFFIXES: &[&str] = &[
    "tokens", "count", "type", "file", "files", "path", "dir", "url", "uri", "_id", "-id", "ids",
    "name", "length", "len", "size", "limit", "ttl", "expiry", "expires", "_at", "arn", "version",
    "kind", "mode", "format", "endpoint", "policy", "reset", "manager", "store", "helper", "stdin",
];

/// Words that make a name secret wherever they appear in it.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "accesskey",
    "accountkey",
    "private_key",
    "privatekey",
    "private-key",
    "credential",
    "auth_key",
    "session_key",
    "signing_key",
    "encryption_key",
    "master_key",
];

/// Returns whether a key, variable or flag name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.trim_start_matches('-');
    if name.is_empty() || name.len() > 128 {
        return false;
    }
    let mut buf = [0u8; 128];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    // Lowercasing ASCII keeps the text valid UTF-8.
    let lower = std::str::from_utf8(lower).unwrap_or_default();
    if matches!(
        lower,
        "authorization"
            | "proxy-authorization"
            | "auth"
            | "cookie"
            | "set-cookie"
            | "x-api-key"
            | "pass"
            | "sig"
            | "passwd"
            | "pwd_hash"
            | "_auth"
            | "client-key-data"
            | "x-amz-signature"
            | "x-amz-credential"
            | "x-goog-signature"
            | "x-goog-credential"
            | "oauth2-bearer"
    ) {
        return true;
    }
    // Every rule below needs one of these stems: most names have none, and are done here.
    if !has_secret_stem(lower.as_bytes()) {
        return false;
    }
    if NOT_SECRET_SUFFIXES.iter().any(|s| lower.ends_with(s)) || lower.contains("tokeniz") {
        return false;
    }
    if SECRET_WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    if lower.ends_with("_pass") || lower.ends_with("-pass") || lower.ends_with("_pwd") {
        return true;
    }
    // `STRIPE_KEY`, `OPENAI_KEY`: an environment-variable style name ending in `_KEY`.
    let env_style = name
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    (env_style && lower.ends_with("_key") && lower.len() > 4)
        || (lower.ends_with("_key") || lower.ends_with("-key"))
            && [
                "secret", "private", "api", "auth", "signing", "encrypt", "master",
            ]
            .iter()
            .any(|w| lower.contains(w))
}

/// The private members of a JSON Web Key (RFC 7518 §6.2.2, §6.3.2, §6.4): masked in an object
/// that has a `kty`.
pub fn is_jwk_private_member(name: &str) -> bool {
    matches!(
        name,
        "d" | "p" | "q" | "dp" | "dq" | "qi" | "k" | "r" | "t" | "oth"
    )
}

/// Whether a lowercased name holds `pass`, `secret`, `token`, `key`, `credential` or `_pwd`,
/// one of which is in every secret word and suffix [`is_secret_name`] knows.
fn has_secret_stem(lower: &[u8]) -> bool {
    (0..lower.len()).any(|i| {
        let rest = &lower[i..];
        match rest[0] {
            b'p' => rest.starts_with(b"pass"),
            b's' => rest.starts_with(b"secret"),
            b't' => rest.starts_with(b"token"),
            b'k' => rest.starts_with(b"key"),
            b'c' => rest.starts_with(b"credential"),
            b'_' => rest.starts_with(b"_pwd"),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_word_and_suffix_has_a_stem() {
        // `is_secret_name` returns early for names without a stem.
        for w in SECRET_WORDS
            .iter()
            .chain(&["_pass", "-pass", "_pwd", "_key", "-key"])
        {
            assert!(has_secret_stem(w.as_bytes()), "{w}");
        }
        assert!(!has_secret_stem(b"--bin"));
    }
}
