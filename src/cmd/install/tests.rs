//! Tests of `oath install` and `oath uninstall` (src/cmd/install.rs).

#[test]
fn cargo_build_outputs_are_recognised() {
    for (exe, expected) in [
        ("/src/oath/target/release/oath", true),
        ("/src/oath/target/debug/oath", true),
        (
            "/src/oath/target/x86_64-unknown-linux-gnu/release/oath",
            true,
        ),
        ("C:\\oath\\target\\release\\oath.exe", true),
        ("/home/u/.cargo/bin/oath", false),
        ("/opt/target/bin/oath", false),
        ("/usr/local/bin/oath", false),
    ] {
        assert_eq!(is_cargo_build_output(exe), expected, "{exe}");
    }
}

use super::*;
use serde_json::json;

#[test]
fn versions_parse_and_order() {
    assert_eq!(
        Version::parse("2.1.197 (Claude Code)"),
        Some(Version(2, 1, 197))
    );
    assert_eq!(Version::parse("claude v2.0.5-beta"), Some(Version(2, 0, 5)));
    assert_eq!(Version::parse("nonsense"), None);
    assert!(Version(2, 1, 138) < EXEC_FORM_SINCE);
    assert!(Version(2, 2, 0) > EXEC_FORM_SINCE);
}

#[test]
fn shell_quoting_only_when_needed() {
    // Ordinary paths as they are.
    for p in [
        "/usr/bin/oath",
        "/home/dev/.cargo/bin/oath",
        "/opt/oath-1.2_x/oath",
    ] {
        assert_eq!(shell_quote(p), p);
    }
    assert_eq!(shell_quote("/My Apps/oath"), "'/My Apps/oath'");
    // What the shell makes of the quoted form is the path.
    for p in [
        "/My Apps/oath",
        "/a'b/oath",
        "/a\"b'c/$HOME/`x`/oath",
        "/é/oath",
        "/x;rm -rf ~/oath",
    ] {
        let q = shell_quote(p);
        assert_eq!(unquote(&q), p, "{q}");
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("printf %s {q}"))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), p, "{q}");
    }
    // The single-quoted form of earlier versions still reads back.
    assert_eq!(unquote(r"'/a'\''b/oath'"), "/a'b/oath");
    assert_eq!(unquote("not one word"), "not one word");
}

#[test]
fn handlers_are_recognised_in_both_forms_only_for_known_paths() {
    let exes = vec!["/x y/oath".to_owned()];
    assert!(is_oath_handler(
        &handler("/x y/oath", Form::Exec, 10),
        &exes
    ));
    assert!(is_oath_handler(
        &handler("/x y/oath", Form::Shell, 10),
        &exes
    ));
    // A shell handler an earlier version quoted its own way.
    let exes_q = vec!["/a'b/oath".to_owned()];
    assert!(is_oath_handler(
        &json!({"type": "command", "command": r"'/a'\''b/oath' hook"}),
        &exes_q
    ));
    assert!(is_oath_handler(
        &handler("/a'b/oath", Form::Shell, 10),
        &exes_q
    ));
    assert!(!is_oath_handler(
        &handler("/other/oath", Form::Exec, 10),
        &exes
    ));
    assert!(!is_oath_handler(
        &json!({"type": "command", "command": "/x y/oath", "args": ["hook", "PreToolUse"]}),
        &exes
    ));
}

#[test]
fn merge_is_idempotent_and_remove_undoes_it() {
    let original = json!({"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}]}});
    let mut v = original.clone();
    let m1 = merge_hooks(&mut v, "/bin/oath", Form::Exec, &[]);
    assert_eq!(m1.added.len(), EVENTS.len());
    assert!(!m1.created_hooks);
    assert_eq!(m1.created_events.len(), EVENTS.len() - 1);
    let once = v.clone();
    let m2 = merge_hooks(&mut v, "/bin/oath", Form::Exec, &[]);
    assert!(!m2.changed());
    assert_eq!(v, once);
    let manifest = Manifest {
        created_events: m1.created_events.clone(),
        ..Manifest::default()
    };
    let r = remove_hooks(&mut v, &["/bin/oath".into()], Some(&manifest));
    assert_eq!(r.handlers, EVENTS.len());
    assert_eq!(v, original);
}

#[test]
fn an_upgrade_replaces_the_old_path_in_place() {
    let mut v = json!({});
    merge_hooks(&mut v, "/old/oath", Form::Shell, &[]);
    let m = merge_hooks(&mut v, "/new/oath", Form::Exec, &["/old/oath".into()]);
    assert!(m.added.is_empty());
    assert_eq!(m.updated.len(), EVENTS.len());
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": "/new/oath", "args": ["hook"], "timeout": 10}]}])
    );
}

#[test]
fn a_file_changed_since_it_was_read_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("settings.json");
    std::fs::write(&p, "{}").unwrap();
    assert!(write_settings(&p, "{\"a\": 1}", Some("{}")).is_ok());
    let err = write_settings(&p, "{}", Some("{}")).unwrap_err();
    assert!(err.message.contains("changed while oath was working"));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\": 1}");
    assert!(write_settings(&dir.path().join("new.json"), "{}", Some("{}")).is_err());
    assert!(write_settings(&dir.path().join("new.json"), "{}", None).is_ok());
}

#[test]
fn diff_marks_changes_with_context() {
    let p = Path::new("settings.json");
    let d = diff(p, "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n");
    // A replaced line, two lines of context either side, none further.
    assert_eq!(
        d,
        "--- settings.json\n+++ settings.json\n@@ -2,5 +2,5 @@\n b\n c\n-d\n+X\n e\n f\n"
    );
    // A new file: every line added.
    let d = diff(p, "", "{\n}\n");
    assert!(d.contains("@@ -0,0 +1,2 @@\n+{\n+}\n"), "{d}");
}

#[test]
fn backups_sort_by_stamp_and_number_and_only_theirs_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    for name in [
        "settings.json.oath-backup-20260301T120000Z-10",
        "settings.json.oath-backup-20260301T120000Z",
        "settings.json.oath-backup-20260301T120000Z-9",
        "settings.json.oath-backup-20260228T235959Z",
        // Not backups of this file, or not names oath writes: never listed nor removed.
        "settings.local.json.oath-backup-20260101T000000Z",
        "settings.json.oath-backup-mine",
        "settings.json.oath-backup-20260101T000000Z-x",
        "settings.json.oath-backup-20260101T000000Z-",
        "settings.json",
    ] {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let names = |v: Vec<PathBuf>| -> Vec<String> {
        v.iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(backups::list(&file)),
        [
            "settings.json.oath-backup-20260228T235959Z",
            "settings.json.oath-backup-20260301T120000Z",
            "settings.json.oath-backup-20260301T120000Z-9",
            "settings.json.oath-backup-20260301T120000Z-10",
        ]
    );
    // A new backup in the same second sorts after all of them.
    let now = Timestamp::parse("2026-03-01T12:00:00Z").unwrap();
    let next = backups::path(&file, now);
    assert_eq!(
        next.file_name().unwrap(),
        "settings.json.oath-backup-20260301T120000Z-11"
    );
    std::fs::write(&next, "new").unwrap();
    let removed = backups::rotate(&file, &next);
    assert_eq!(
        names(removed),
        [
            "settings.json.oath-backup-20260228T235959Z",
            "settings.json.oath-backup-20260301T120000Z",
        ]
    );
    assert_eq!(
        names(backups::list(&file)),
        [
            "settings.json.oath-backup-20260301T120000Z-9",
            "settings.json.oath-backup-20260301T120000Z-10",
            "settings.json.oath-backup-20260301T120000Z-11",
        ]
    );
    for kept in [
        "settings.local.json.oath-backup-20260101T000000Z",
        "settings.json.oath-backup-mine",
        "settings.json.oath-backup-20260101T000000Z-x",
        "settings.json.oath-backup-20260101T000000Z-",
    ] {
        assert!(dir.path().join(kept).exists(), "{kept}");
    }
}

#[test]
fn the_backup_just_made_is_kept_even_when_the_clock_went_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    for name in [
        "settings.json.oath-backup-20300101T000000Z",
        "settings.json.oath-backup-20300101T000001Z",
        "settings.json.oath-backup-20300101T000002Z",
    ] {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let now = Timestamp::parse("2026-03-01T12:00:00Z").unwrap();
    let made = backups::path(&file, now);
    std::fs::write(&made, "new").unwrap();
    backups::rotate(&file, &made);
    let left = backups::list(&file);
    assert_eq!(left.len(), backups::KEEP);
    assert!(made.exists());
    assert!(
        !dir.path()
            .join("settings.json.oath-backup-20300101T000000Z")
            .exists()
    );
}
