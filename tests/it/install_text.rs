//! `oath install` / `oath uninstall` leave the text of what they do not change as it was:
//! number spellings, escapes and compact parts survive, not only their values.

use crate::install::{backups, settings};
use crate::support::TestEnv;

/// Members whose text serde_json would respell (`1e10` → `10000000000.0`, `-0` → `-0.0`,
/// `1.50` → `1.5`, `\u00e9` → `é`), a number past i64, compact nested objects, and a hook of
/// the user's in an event oath registers for, with a number of its own spelling.
const MEMBERS: [&str; 8] = [
    r#""big": 1e10"#,
    r#""negativeZero": -0"#,
    r#""price": 1.50"#,
    r#""huge": 12345678901234567890"#,
    r#""escaped": "caf\u00e9 \ud83d\ude80 \"q\" \/""#,
    r#""nested": {"a": {"b": [1E+2, 0.10, {"c": -0.0}]}, "d": []}"#,
    r#""hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine", "timeout": 3e1}]}
    ]
  }"#,
    r#""last": {"x":1.0}"#,
];

fn original() -> String {
    format!("{{\n  {}\n}}\n", MEMBERS.join(",\n  "))
}

#[test]
fn numbers_escapes_and_nested_objects_keep_their_text_through_install_and_uninstall() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let original = original();
    std::fs::write(&file, &original).unwrap();

    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let installed = std::fs::read_to_string(&file).unwrap();
    assert_ne!(installed, original);
    for member in &MEMBERS[..6] {
        assert!(installed.contains(member), "{member} lost in:\n{installed}");
    }
    assert!(installed.contains(r#""last": {"x":1.0}"#), "{installed}");
    // The user's hook in the object oath changed keeps its text too.
    assert!(
        installed.contains(
            r#"{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine", "timeout": 3e1}]}"#
        ),
        "{installed}"
    );

    // Without the backup uninstall cannot copy the original back: what it writes is the
    // rendering, which must give the original text again.
    for b in backups(file.parent().unwrap()) {
        std::fs::remove_file(b).unwrap();
    }
    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
}

#[test]
fn a_dry_run_diff_shows_only_the_hooks_oath_adds() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, original()).unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let removed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    // Only the user's PreToolUse group gains a comma (oath's group follows it); no other
    // line changes.
    let group = r#"      {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine", "timeout": 3e1}]}"#;
    assert_eq!(removed, [format!("-{group}")], "{stdout}");
    assert!(
        stdout.lines().any(|l| l == format!("+{group},")),
        "{stdout}"
    );
}
