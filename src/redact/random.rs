//! Random-looking values assigned to any name (`FOO=9f8Kq2…`): a key under a name no rule
//! knows is still a key. What is not one, though as long and random: hex digests and commit
//! ids (a checksum next to a file name, a git sha), UUIDs, integrity hashes (`sha512-…`),
//! paths, and values under names of ids, hashes and versions.

use super::tokens::entropy;

/// Shortest value taken for a key: shorter random values are ids and abbreviations.
const MIN_LEN: usize = 20;

/// Longest value taken for a key: longer ones are data (a certificate, an image).
const MAX_LEN: usize = 1024;

/// Least entropy, in bits per byte, of a value taken for a key (a random 20-character
/// base62 text has about 4.0; English words glued together about 3.3).
const MIN_ENTROPY: f32 = 3.5;

/// Name endings of values that are random but not secret: ids, digests, versions, places.
const ORDINARY_NAME_ENDINGS: &[&str] = &[
    "id",
    "ids",
    "uuid",
    "guid",
    "hash",
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "digest",
    "checksum",
    "integrity",
    "etag",
    "commit",
    "rev",
    "revision",
    "version",
    "nonce",
    "ref",
    "oid",
    "path",
    "file",
    "url",
    "uri",
    "href",
    "src",
    "name",
    "dir",
    "cursor",
    "fingerprint",
    "trace",
    "span",
    "image",
    "tag",
    "cwd",
    "resolved",
];

/// Value starts of digests and public material that look random: subresource integrity and
/// image digests, and a PEM certificate in base64.
const ORDINARY_VALUE_STARTS: &[&str] = &[
    "sha1-",
    "sha256-",
    "sha384-",
    "sha512-",
    "sha256:",
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
];

/// Returns whether `value`, assigned to `name`, looks like a key or password.
pub(super) fn is_random_value(name: &str, value: &str) -> bool {
    let b = value.as_bytes();
    if !(MIN_LEN..=MAX_LEN).contains(&b.len())
        || !b
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-'))
        || matches!(b[0], b'/' | b'-' | b'=')
    {
        return false;
    }
    // Hex digests, commit ids and UUIDs.
    if b.iter().all(|&c| c.is_ascii_hexdigit() || c == b'-') {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    if digits == 0 || letters == 0 {
        return false;
    }
    if ORDINARY_VALUE_STARTS.iter().any(|p| value.starts_with(p)) || ordinary_name(name) {
        return false;
    }
    // A random value changes class (lower, upper, digit, other) at most bytes, and is not made
    // of words (paths and identifiers: `src/redact/engine2`, `MyServiceName2024`).
    let class = |c: u8| match c {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let changes = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    changes * 4 >= b.len() && !made_of_words(b) && entropy(b) >= MIN_ENTROPY
}

/// Whether a text is words, numbers and separators: each part between separators is a word
/// form ([`word_form`]) or a short lower-case hex part (`observed-output-7f3a`, `build-2a9c`).
fn made_of_words(b: &[u8]) -> bool {
    b.split(|c| matches!(c, b'-' | b'_' | b'.' | b'/' | b'+' | b'='))
        .all(|part| {
            word_form(part)
                || (part.len() <= 8
                    && part
                        .iter()
                        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c)))
        })
}

/// Whether a text is words and numbers: each letter run lower case (of 2 or more) or
/// capitalised (one upper-case letter, then lower-case ones).
fn word_form(b: &[u8]) -> bool {
    let mut i = 0;
    let lower_run = |from: usize| {
        b[from..]
            .iter()
            .take_while(|c| c.is_ascii_lowercase())
            .count()
    };
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_uppercase() {
            let n = lower_run(i + 1);
            if n < 1 {
                return false;
            }
            i += 1 + n;
        } else if c.is_ascii_lowercase() {
            let n = lower_run(i);
            if n < 2 {
                return false;
            }
            i += n;
        } else {
            i += 1;
        }
    }
    true
}

/// Whether a name is of a value that is random without being secret (an id, a digest).
fn ordinary_name(name: &str) -> bool {
    let name = name.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if name.len() > 64 {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    ORDINARY_NAME_ENDINGS.iter().any(|e| lower.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_with_a_short_hex_part_are_not_keys() {
        for (name, value) in [
            ("stdout", "observed-output-7f3a"),
            ("NAME", "release-build-2024-9c1e"),
            ("branch", "feature-login-form-3a"),
        ] {
            assert!(!is_random_value(name, value), "{name}={value}");
        }
    }

    #[test]
    fn random_values_under_any_name_are_keys() {
        for (name, value) in [
            ("FOO", "9f8Kq2Lm7Xz4Vb1NcT3yWu8E"),
            ("MY_SERVICE", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="),
            ("x", "k3j4h5g6f7d8s9a0q1w2e3r4t5y6"),
            ("config", "AbC9-dEf8_GhI7-jKl6_MnO5"),
        ] {
            assert!(is_random_value(name, value), "{name}={value}");
        }
    }

    #[test]
    fn ids_digests_paths_and_words_are_not() {
        for (name, value) in [
            ("commit", "3f786850e387550fdab836ed7e6dc881de23001b"),
            ("FOO", "3f786850e387550fdab836ed7e6dc881de23001b"),
            ("x", "123e4567-e89b-12d3-a456-426614174000"),
            (
                "integrity",
                "sha512-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=",
            ),
            (
                "x",
                "sha512-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=",
            ),
            ("tool_use_id", "toolu_01A09q90qw90lq917835lq9"),
            ("requestId", "req_011CUa8Kq2Lm7Xz4Vb1NcT3y"),
            ("path", "src/redact/engine2/tests"),
            ("x", "src/redact/engine2/tests/more"),
            ("x", "build_2024_release_candidate"),
            ("x", "MyApplicationServiceName2"),
            ("x", "short1A"),
            ("x", "aGVsbG8gd29ybGQ="),
            ("x", "/usr/local/bin/oath2024abcdefgh"),
            ("version", "1.2.3-beta.4+build.5678"),
            ("x", "hello world this is text 123"),
        ] {
            assert!(!is_random_value(name, value), "{name}={value}");
        }
    }
}
