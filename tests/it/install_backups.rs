//! Backups of a settings file: made before each change, the last three kept.

use crate::install::{backups, settings};
use crate::support::TestEnv;

fn run(env: &TestEnv, args: &[&str]) {
    let out = env.oath_with_bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", env.render(&out));
}

#[test]
fn install_uninstall_cycles_leave_the_last_three_backups() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    let dir = file.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    for round in 1..=5 {
        // The user changes the file between cycles, so each backup is told apart.
        std::fs::write(&file, format!("{{\n  \"round\": {round}\n}}\n")).unwrap();
        run(&env, &["install", "--project"]);
        run(&env, &["uninstall", "--project"]);
        assert!(
            backups(&dir).len() <= 3,
            "round {round}: {:?}",
            backups(&dir)
        );
    }
    // Each uninstall backed up the installed file; the last three rounds' are left.
    let left = backups(&dir);
    let mut rounds: Vec<String> = left
        .iter()
        .map(|b| {
            let text = std::fs::read_to_string(b).unwrap();
            assert!(text.contains("\"args\""), "an installed file: {text}");
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["round"].to_string()
        })
        .collect();
    rounds.sort();
    assert_eq!(rounds, ["3", "4", "5"], "{left:?}");

    // One more install: its backup, the file before the change, is the newest and stays.
    let before = "{\n  \"round\": 6\n}\n";
    std::fs::write(&file, before).unwrap();
    run(&env, &["install", "--project"]);
    let left = backups(&dir);
    assert_eq!(left.len(), 3, "{left:?}");
    let newest = newest(&left);
    assert_eq!(std::fs::read_to_string(newest).unwrap(), before);
    // The oldest (round 3's) went.
    assert!(
        left.iter()
            .all(|b| !std::fs::read_to_string(b).unwrap().contains("\"round\": 3")),
        "{left:?}"
    );
}

/// The backup written last (names sort by stamp, then by number).
fn newest(list: &[std::path::PathBuf]) -> &std::path::PathBuf {
    list.iter()
        .max_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let (stamp, n) = name
                .rsplit_once(".oath-backup-")
                .map(|(_, rest)| match rest.split_once('-') {
                    Some((s, n)) => (s.to_owned(), n.parse::<u64>().unwrap()),
                    None => (rest.to_owned(), 0),
                })
                .unwrap();
            (stamp, n)
        })
        .unwrap()
}
