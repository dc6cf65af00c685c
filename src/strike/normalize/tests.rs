use super::*;
use serde_json::json;

fn same(a: &str, b: &str) -> bool {
    error_hash("Bash", &normalize_error(a)) == error_hash("Bash", &normalize_error(b))
}

#[test]
fn instance_details_do_not_make_errors_different() {
    let cases = [
        // numbers, durations, pids
        (
            "Exit code 1\nFAILED after 123ms (pid 4242)",
            "Exit code 1\nFAILED after 9ms (pid 17)",
        ),
        // line and column positions
        (
            "src/main.rs:12:5: error: expected `;`",
            "src/main.rs:140:22: error: expected `;`",
        ),
        (
            "  --> src/lib.rs:3:9\nline 3, column 9",
            "  --> src/lib.rs:77:1\nline 77, column 1",
        ),
        // timestamps
        (
            "[2026-01-05T10:00:00.123Z] connection refused",
            "[2026-02-17T23:59:01.9Z] connection refused",
        ),
        ("at 10:00:01 server failed", "at 22:13:59 server failed"),
        // hex ids and addresses
        ("segfault at 0x7ffd1234abcd", "segfault at 0xdeadbeef"),
        ("object a1b2c3d4e5f6 missing", "object 0f9e8d7c6b5a missing"),
        (
            "request 550e8400-e29b-41d4-a716-446655440000 failed",
            "request 123e4567-e89b-12d3-a456-426614174000 failed",
        ),
        // temp paths
        (
            "cannot open /tmp/.tmpAb12Cd/out.txt: No such file",
            "cannot open /tmp/.tmpZz99Qq/out.txt: No such file",
        ),
        (
            "read /var/folders/x1/abc_def123/T/rustc9Xk/lib.rlib: denied",
            "read /var/folders/q7/zzz_yyy987/T/rustcAb3/lib.rlib: denied",
        ),
        ("wrote /tmp/tmp.Xy12AbCdEf", "wrote /tmp/tmp.Qq98ZzYyXx"),
        // whitespace and ANSI colour
        (
            "\u{1b}[31merror\u{1b}[0m: build   failed\r\n",
            "error: build failed",
        ),
        (
            "\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7} broke",
            "link broke",
        ),
        // the same failures in another order, with a warning block before them
        (
            "FAILED test_b\nFAILED test_a",
            "warning: unused import\n --> src/x.rs:1:5\n  |\n1 | use std::fmt;\n\nFAILED test_a\nFAILED test_b",
        ),
        // a source excerpt that moved, npm's notices, progress lines
        (
            "error: x\n 12 |     let y = x;",
            "   Compiling demo v0.1.0\nerror: x\n 140 |     let y = x;",
        ),
        (
            "npm warn Unknown env config \"store-dir\"\n\n> build failed",
            "> build failed",
        ),
        // Claude Code's middle truncation
        (
            "head ... [1234 characters truncated] ... tail",
            "head ... [99 characters truncated] ... tail",
        ),
        // random ids
        ("session Xk3pQ9zL7w expired", "session Ab1cD2eF3g expired"),
    ];
    for (a, b) in cases {
        assert!(
            same(a, b),
            "{a:?} vs {b:?}: {:?} / {:?}",
            normalize_error(a),
            normalize_error(b)
        );
    }
}

#[test]
fn different_errors_stay_different() {
    let cases = [
        (
            "error[E0308]: mismatched types",
            "error[E0425]: cannot find value",
        ),
        (
            "error[E0308]: mismatched types",
            "error[E0382]: mismatched types",
        ),
        (
            "TS2322: Type 'string' is not assignable",
            "TS2345: Type 'string' is not assignable",
        ),
        (
            "npm ERR! missing script: test",
            "npm ERR! missing script: build",
        ),
        ("cannot open /tmp/x/a.txt", "cannot open /home/u/a.txt"),
        ("No such file: src/a.rs", "No such file: src/b.rs"),
        // status and exit codes, arities, names with numbers, ports
        ("Exit code 1", "Exit code 2"),
        ("Exit code 1\nboom", "Exit code 137\nboom"),
        ("returned error: 404", "returned error: 500"),
        (
            "function Repo.get/2 is undefined",
            "function Repo.get/3 is undefined",
        ),
        (
            "FAILED tests/test_api.py::test_api_v1",
            "FAILED tests/test_api.py::test_api_v2",
        ),
        (
            "address already in use :::3000",
            "address already in use :::8080",
        ),
        (
            "connect ECONNREFUSED 127.0.0.1:5432",
            "connect ECONNREFUSED 127.0.0.1:6379",
        ),
    ];
    for (a, b) in cases {
        assert!(
            !same(a, b),
            "{a:?} vs {b:?} normalise alike: {:?}",
            normalize_error(a)
        );
    }
    // The tool is part of the hash.
    let n = normalize_error("failed");
    assert_ne!(error_hash("Bash", &n), error_hash("Edit", &n));
}

#[test]
fn normal_forms_are_readable() {
    let cases = [
        (
            "Exit code 2\nsrc/a.rs:10:4 boom",
            "Exit code 2\nsrc/a.rs:N:N boom",
        ),
        ("at 0x1F and 7ff3c2a9", "at 0xH and H"),
        ("/tmp/abc/def.rs failed", "<tmp>/def.rs failed"),
        ("took 15ms", "took Nms"),
        ("E0308 TS2322 x86 sha256", "E0308 TS2322 x86 sha256"),
        (
            "HTTP 404 after 3 retries in 1.25s",
            "HTTP 404 after N retries in Ns",
        ),
        ("b\na\nb", "a\nb"),
    ];
    for (input, want) in cases {
        assert_eq!(normalize_error(input), want, "{input:?}");
    }
}

#[test]
fn hash_is_eight_hex_characters_of_sha256() {
    let h = error_hash("Bash", "x");
    assert_eq!(h.len(), 8);
    assert!(
        h.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    let mut d = Sha256::new();
    d.update(b"Bash\0x");
    assert_eq!(h, hex(&d.finalize()[..4]));
}

#[test]
fn action_keys_ignore_whitespace_order_and_descriptions() {
    let a = action_key(
        "Bash",
        &json!({"command": "npm  test\n", "description": "run tests"}),
    );
    let b = action_key("Bash", &json!({"command": "npm test", "timeout": 60000}));
    assert_eq!(a, b);
    assert_ne!(
        a,
        action_key("Bash", &json!({"command": "npm test --watch"}))
    );
    assert_ne!(a, action_key("PowerShell", &json!({"command": "npm test"})));
    let e1 = action_key(
        "Edit",
        &json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
    );
    let e2 = action_key(
        "Edit",
        &json!({"new_string": "y", "old_string": "x", "file_path": "a"}),
    );
    let e3 = action_key(
        "Edit",
        &json!({"file_path": "a", "old_string": "x", "new_string": "z"}),
    );
    assert_eq!(e1, e2);
    assert_ne!(e1, e3);
    assert_eq!(e1.len(), 16);
}

/// A string of 32 KiB or more is keyed by its audit form, which is all a PreToolUse keeps
/// of it; two such strings differing anywhere are two actions.
#[test]
fn long_strings_are_keyed_by_their_audit_form() {
    let long = |c: &str| format!("{}{c}", "x".repeat(70_000));
    let key = |content: &str| action_key("Write", &json!({"file_path": "a", "content": content}));
    let a = long("a");
    assert_eq!(key(&a), key(&crate::audit::truncate_with_digest(&a)));
    assert_ne!(key(&a), key(&long("b")));
    let short = "y".repeat(30_000);
    assert_ne!(
        key(&short),
        key(&crate::audit::truncate_with_digest(&short))
    );
}

#[test]
fn headlines_name_what_went_wrong() {
    let cases = [
        (
            "Exit code 1\n> app@1.0 test\nnpm ERR! missing script: tset\n",
            "Exit code 1: npm ERR! missing script: tset",
        ),
        (
            "Exit code 127\nbash: foo: command not found",
            "Exit code 127: bash: foo: command not found",
        ),
        (
            "File has not been read yet. Read it first before writing to it.",
            "File has not been read yet. Read it first before writing to it.",
        ),
        ("Exit code 3\nplain output", "Exit code 3: plain output"),
        ("Exit code 3", "Exit code 3"),
        ("", "(no error text)"),
        ("\u{1b}[31mboom\u{1b}[0m", "boom"),
    ];
    for (input, want) in cases {
        assert_eq!(headline(input), want, "{input:?}");
    }
    assert!(headline(&"x".repeat(500)).chars().count() <= MAX_HEADLINE_CHARS);
}

#[test]
fn stored_errors_are_bounded_and_redacted() {
    let long = format!("start {} end", "y".repeat(10_000));
    let b = bounded_error(&long);
    assert!(b.chars().count() <= MAX_ERROR_CHARS + 10, "{}", b.len());
    assert!(b.starts_with("start ") && b.ends_with(" end"));
    assert!(b.contains("characters cut by oath"));
    let secret = bounded_error("Exit code 1\nexport API_KEY=sk-live-0123456789abcdefXYZ failed");
    assert!(!secret.contains("0123456789abcdef"), "{secret}");
}

#[test]
fn summaries_are_short_relative_and_never_contents() {
    let root = std::path::Path::new("/r/p");
    assert_eq!(
        input_summary(
            &json!({"file_path": "/r/p/src/a.rs", "content": "secret stuff"}),
            root
        ),
        "src/a.rs"
    );
    assert_eq!(
        input_summary(&json!({"command": "ls   -la"}), root),
        "ls -la"
    );
    assert_eq!(
        input_summary(&json!({"pattern": "fn x", "path": "/r/p/src"}), root),
        "fn x in src"
    );
    assert!(
        input_summary(&json!({"command": "z".repeat(999)}), root)
            .chars()
            .count()
            <= MAX_SUMMARY_CHARS
    );
}

proptest::proptest! {
    #[test]
    fn any_text_normalises_without_panicking(s in "\\PC{0,200}") {
        let n = normalize_error(&s);
        let _ = headline(&s);
        let _ = bounded_error(&s);
        let has_escape = n.contains('\u{1b}');
        proptest::prop_assert!(!has_escape, "escape left in {:?}", n);
    }

    #[test]
    fn numbers_and_positions_never_change_the_hash(
        a in 0u64..1_000_000, b in 0u32..10_000, c in 0u32..500, addr in 1u64..u64::MAX,
    ) {
        let make = |a: u64, b: u32, c: u32, addr: u64| format!(
            "Exit code 1\nthread 'main' panicked at src/lib.rs:{b}:{c}: index out of bounds \
             (pid {a}, at 0x{addr:x}, took {c}ms)"
        );
        proptest::prop_assert_eq!(
            error_hash("Bash", &normalize_error(&make(a, b, c, addr))),
            error_hash("Bash", &normalize_error(&make(7, 1, 1, 255)))
        );
    }
}
