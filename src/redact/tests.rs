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

/// Each family added with the rule table, in the text it comes in: masked where the secret is,
/// and nowhere else.
#[test]
fn secret_families_are_masked() {
    let cases = [
        // Command-line password options.
        ("mysql -uapp -pS3cr3tPw db", "mysql -uapp -p[REDACTED] db"),
        (
            "docker login -u ci -p Dk3rPw9x reg.io",
            "docker login -u ci -p [REDACTED] reg.io",
        ),
        (
            "redis-cli -a R3disPw9x ping",
            "redis-cli -a [REDACTED] ping",
        ),
        ("sshpass -p Ssh9Pwxy ssh h", "sshpass -p [REDACTED] ssh h"),
        (
            "htpasswd -b /etc/h admin Htp9wxyz",
            "htpasswd -b /etc/h admin [REDACTED]",
        ),
        (
            "psql \"host=db password=Pg9Pwxyz dbname=a\"",
            "psql \"host=db password=[REDACTED] dbname=a\"",
        ),
        (
            "curl -u bob:Cu9rlPwx https://x",
            "curl -u bob:[REDACTED] https://x",
        ),
        ("cli --api-key AbC9xyzw1234", "cli --api-key [REDACTED]"),
        // Configuration files.
        (
            "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF",
            "    client-key-data: [REDACTED]",
        ),
        ("    token: abcdef123456", "    token: [REDACTED]"),
        (
            "//registry.npmjs.org/:_auth=dXNlcjpwYXNzd29yZA==",
            "//registry.npmjs.org/:_auth=[REDACTED]",
        ),
        (
            "//r.example.com/:_password=cGFzc3dvcmQ=",
            "//r.example.com/:_password=[REDACTED]",
        ),
        (
            r#"{"kty":"EC","crv":"P-256","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}"#,
            r#"{"kty":"EC","crv":"P-256","d":"[REDACTED]"}"#,
        ),
        (
            r#"{\"kty\":\"oct\",\"k\":\"GawgguFyGrWKav7AX4VKUg\"}"#,
            r#"{\"kty\":\"oct\",\"k\":\"[REDACTED]\"}"#,
        ),
        // Bots and webhooks.
        (
            "https://api.telegram.org/bot3259472487:AAAHEOVezxZuJPWvHogU5nGYVHWVsUQk4Dw/getMe",
            "https://api.telegram.org/[REDACTED]/getMe",
        ),
        (
            "run('MTNV9ds0HqtO93L7Q5uUaVco.tL31Ug.q_DfcgaTMnTC0MrAU8urbFt5misIZHbhS4-Fva')",
            "run('[REDACTED]')",
        ),
        // URL query parameters.
        (
            "https://x.io/cb?code=1&access_token=Ab12Cd34Ef&state=z",
            "https://x.io/cb?code=1&access_token=[REDACTED]&state=z",
        ),
        (
            "https://b.s3.amazonaws.com/k?X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0",
            "https://b.s3.amazonaws.com/k?X-Amz-Signature=[REDACTED]",
        ),
        // Random values under names no rule knows.
        (
            "export CACHE_SEED=fK2qLm7Xz4Vb1NcT3yWu8EoHs5G9",
            "export CACHE_SEED=[REDACTED]",
        ),
        (
            r#"{"value": "Zk8mQ2xLp9Rv4Tn7Wc1Yb6Hd3Fg0Js5K"}"#,
            r#"{"value": "[REDACTED]"}"#,
        ),
        // A base64 private key anywhere.
        (
            "echo LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0KYjNCbGJuc3NoLWtleS12MQ | base64 -d",
            "echo [REDACTED] | base64 -d",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(redact_str(input), want, "input: {input}");
    }
}

/// What looks random or secret-adjacent but is not a secret stays as it is.
#[test]
fn look_alikes_are_kept() {
    for s in [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  Cargo.lock",
        "\"integrity\": \"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+MdRpCYxyLdTbtrTzlRoO3kVxJPw7tpBWUyIQ==\"",
        "image: nginx@sha256:4f2d1c9b8a7e6f5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a2918f7e6d5c4",
        "commit=3f786850e387550fdab836ed7e6dc881de23001b",
        "FOO=3f786850e387550fdab836ed7e6dc881de23001b",
        "request_id=123e4567-e89b-12d3-a456-426614174000",
        "{\"tool_use_id\":\"toolu_01A09q90qw90lq917835lq9\",\"session_id\":\"sec\"}",
        "docker run -p 8080:80 -u 1000:1000 nginx:1.27",
        "mysql -u root -p app_db",
        "ssh -p 2222 host",
        "version=1.2.3-beta.4+build.5678",
        "name=MyApplicationServiceName2",
        "build_id=build_2024_release_candidate",
        "path=src/redact/engine2/tests",
        "PORT=3000 NODE_ENV=production",
        "max_tokens=4096",
        "echo aGVsbG8gd29ybGQ=",
        "https://docs.rs/serde/1.0.200/serde/index.html",
        "kubectl get secret db -o jsonpath='{.data.password}'",
        "client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=",
        "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"key-1\"}",
        "{\"d\": \"2024-01-01\", \"p\": 3}",
        "12345678:AB not a bot token",
        "telegram says 1234567890:some text",
        "htpasswd -c /etc/nginx/.htpasswd admin",
        "openssl rsa -passin env:KEY_PASS -in k.pem",
        "git log --format=%H:%an",
    ] {
        assert_eq!(redact_str(s), s, "{s}");
    }
}

/// Every option rule of the table, on a command line built from it: the password is masked,
/// a variable in its place is kept.
#[test]
fn every_option_rule_masks_a_password_and_keeps_a_variable() {
    use super::table::{OPTION_RULES, OptionValue};
    for rule in OPTION_RULES {
        let cmd = rule.commands[0];
        let after = rule.after.unwrap_or("");
        let prefix = rule.prefix.unwrap_or("");
        let line = |pw: &str| match rule.value {
            OptionValue::Glued => format!("{cmd} {after} {}{prefix}{pw} x", rule.option),
            OptionValue::Spaced | OptionValue::Both => {
                format!("{cmd} {after} {} {prefix}{pw} x", rule.option)
            }
            OptionValue::Last => format!("{cmd} {after} {} file user {pw}", rule.option),
            OptionValue::UserPass => format!("{cmd} {after} {} user:{pw} x", rule.option),
        };
        let secret = "Opt9Pw8Secret";
        let text = line(secret);
        let masked = redact_str(&text);
        assert!(
            !masked.contains(secret) && masked.contains(MASK),
            "{}: {masked}",
            rule.id
        );
        // (An option that is itself a secret name, `-pass`, masks whatever follows it.)
        if !is_secret_name(rule.option) {
            let kept = line("$PASSWORD_VAR");
            assert_eq!(redact_str(&kept), kept, "{}", rule.id);
        }
    }
}

#[test]
fn jwk_private_members_are_masked_in_json_values() {
    let mut v = json!({"keys": [{"kty": "RSA", "n": "0vx7agoebGcQSuu", "e": "AQAB",
        "d": "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH", "p": "83i-7IvMGXoMXCskv73TKr8637FiO7Z2",
        "kid": "2011-04-29"}]});
    assert!(redact_value(&mut v));
    let key = &v["keys"][0];
    assert_eq!(key["d"], MASK);
    assert_eq!(key["p"], MASK);
    assert_eq!(key["kid"], "2011-04-29");
    assert_eq!(key["e"], "AQAB");
    // Without `kty`, `d` and `p` are ordinary names.
    let mut plain = json!({"d": "2024-01-01", "p": "page"});
    assert!(!redact_value(&mut plain));
}
