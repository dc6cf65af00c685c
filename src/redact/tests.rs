//! Tests of redaction as callers see it: texts and JSON values in, masked copies out.

use std::borrow::Cow;

use serde_json::json;

use super::*;

#[test]
fn coloured_secrets_are_found() {
    let text = "\u{1b}[1mghp_0123456789abcdefghijABCDEFGHIJ012345\u{1b}[0m and \u{1b}[32mPASSWORD\u{1b}[0m=hunter2hunter2";
    let r = redact_str(text);
    assert!(!r.contains("ghp_0123"), "{r:?}");
    assert!(!r.contains("hunter2"), "{r:?}");
    let plain = "\u{1b}[31mbuild failed\u{1b}[0m";
    assert!(
        matches!(redact_str(plain), Cow::Borrowed(_)),
        "no secret: colours kept"
    );
}

#[test]
fn token_formats_are_masked() {
    let cases = [
        ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"),
        ("ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED]"),
        (
            "Authorization: Bearer abcdef0123456789xyz",
            "Authorization: [REDACTED] [REDACTED]",
        ),
        (
            "curl -H 'Authorization: Bearer abcdef0123456789xyz' x",
            "curl -H 'Authorization: [REDACTED] [REDACTED]' x",
        ),
        (
            "export API_KEY=sk-live-123 && ./deploy",
            "export API_KEY=[REDACTED] && ./deploy",
        ),
        ("PASSWORD=hunter22 mysql", "PASSWORD=[REDACTED] mysql"),
        (
            "`export API_KEY=abc123`, x",
            "`export API_KEY=[REDACTED]`, x",
        ),
        (
            "https://user:s3cret@example.com/x",
            "https://user:[REDACTED]@example.com/x",
        ),
        (
            "t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            "t=[REDACTED]",
        ),
        (
            "mysql --password hunter2 -u root",
            "mysql --password [REDACTED] -u root",
        ),
        ("login --token 'a b c' x", "login --token '[REDACTED]' x"),
        (
            "curl -u admin:pa55word https://x",
            "curl -u admin:[REDACTED] https://x",
        ),
        (
            "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws configure set aws_secret_access_key [REDACTED]",
        ),
        ("db_password = 'x y z'", "db_password = '[REDACTED]'"),
        (
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc/def+ghi==;EndpointSuffix=core.windows.net",
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=[REDACTED];EndpointSuffix=core.windows.net",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(redact_str(input), want, "input: {input}");
    }
}

#[test]
fn private_key_blocks_are_masked() {
    let s = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nb";
    assert_eq!(redact_str(s), "a\n[REDACTED private key]\nb");
    let s = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n";
    assert_eq!(redact_str(s), "[REDACTED private key]");
    let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    assert_eq!(redact_str(cert), cert);
}

#[test]
fn ordinary_text_is_untouched() {
    for s in [
        "ls -la",
        "git push --force origin main",
        "cargo test -- --nocapture",
        "key: value",
        "x=1",
        "grep -rn token src/ | head",
        "git show 3f786850e387550fdab836ed7e6dc881de23001b",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "echo aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBzZWNyZXQ= | base64 -d",
        "docker run -p 8080:80 -u 1000:1000 img",
        "max_tokens=4096 token_type=Bearer",
        "if [ \"$token\" == \"$expected\" ]; then",
        "export GITHUB_TOKEN=$(gh auth token)",
        "cd $PWD && make",
        "pip install scikit-learn",
        "ssh user@host.example.com",
        "https://example.com:8443/path@v1",
        "date -u +%Y-%m-%dT%H:%M:%SZ",
        "let secret_key = is_secret_name(k);",
        "/// Masks `-----BEGIN … PRIVATE KEY-----` blocks up to their END line",
        "const HOOKS: &str = \"hooks.slack.com/services/\";",
    ] {
        assert_eq!(redact_str(s), s, "{s}");
    }
}

#[test]
fn any_text_is_safe_to_slice() {
    for s in [
        "éé:abcdefgh@x",
        "ééé://é:é@é",
        "€€=€€€€ password=€",
        "a-----BEGIN é",
    ] {
        let _ = redact_str(s);
    }
}

#[test]
fn multibyte_text_before_a_colon_does_not_panic() {
    for s in ["\u{16f3b}:x=1 password:abc", "é:é@x", "ab€:pass@host"] {
        let _ = redact_str(s);
    }
}

#[test]
fn escapes_never_hide_a_token() {
    let t = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    for text in [
        format!("A\u{1b} {t}"),
        format!("x \u{1b}] {t}"),
        format!("\u{1b}[1m{t}\u{1b}[0m"),
        // Between two tokens, or after a charset selection.
        format!("\u{1b}{t}\u{1b}[1m{t}"),
        format!("x\u{1b}(B\u{1b}[m{t}"),
        format!("\u{1b}(B{t} and \u{1b})0{t}"),
    ] {
        let out = redact_str(&text);
        assert!(!out.contains("0123456789abcdefghij"), "{text:?} -> {out:?}");
    }
}

#[test]
fn json_keys_and_values() {
    let mut v = json!({"password": "p", "nested": {"authToken": "zzz", "pin_secret": 1234}, "cmd": "TOKEN=abc123 run", "n": 1, "max_tokens": 5});
    assert!(redact_value(&mut v));
    assert_eq!(
        v,
        json!({"password": MASK, "nested": {"authToken": MASK, "pin_secret": MASK}, "cmd": "TOKEN=[REDACTED] run", "n": 1, "max_tokens": 5})
    );
    let mut k = json!({"ghp_0123456789abcdefghijABCDEFGHIJ012345": 1});
    assert!(redact_value(&mut k));
    assert_eq!(k, json!({MASK: 1}));
}
