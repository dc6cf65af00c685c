//! Tests of the state primitives: redaction of rewrites, locks, temp files, corrupt and odd
//! files, parallel updates.

use super::*;
use std::collections::BTreeMap;

#[test]
fn every_string_of_a_json_text_is_hashed_unescaped() {
    let text = br#"{"a": "plain", "b\"q": ["x\ny", "\u00e9"], "n": 1}"#;
    let set = json_strings(text);
    for s in ["a", "plain", "b\"q", "x\ny", "é", "n"] {
        assert!(set.contains(&fnv1a(s.as_bytes())), "{s}");
    }
    assert!(!set.contains(&fnv1a(b"1")));
    assert!(json_strings(br#"{"cut": "no end"#).len() <= 2);
}

#[test]
fn what_a_rewrite_adds_is_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    for n in 0..3 {
        update_json(
            &path,
            Timestamp::from_unix(0),
            &mut Vec::new(),
            Vec::<String>::new,
            |v: &mut Vec<String>| {
                v.push(format!("run {n}: export TOKEN_X={token}"));
                (true, ())
            },
        )
        .unwrap();
    }
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("ghp_0123"), "{text}");
    assert_eq!(text.matches("[REDACTED]").count(), 3, "{text}");
    let mut record = Map::new();
    record.insert("cmd".into(), Value::from(format!("echo {token}")));
    let log = dir.path().join("a.jsonl");
    append_json_line(&log, record, 64).unwrap();
    assert!(!fs::read_to_string(&log).unwrap().contains("ghp_0123"));
}

type Counter = BTreeMap<String, u64>;

fn bump(path: &Path, warnings: &mut Vec<String>) {
    update_json(
        path,
        Timestamp::from_unix(0),
        warnings,
        Counter::new,
        |c: &mut Counter| {
            *c.entry("n".into()).or_default() += 1;
            (true, ())
        },
    )
    .unwrap();
}

#[test]
fn temp_files_of_killed_writers_are_swept_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let stale = dir.path().join(".oath-tmp-dead");
    let live = dir.path().join(".oath-tmp-live");
    fs::write(&stale, "x").unwrap();
    fs::write(&live, "x").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    bump(&path, &mut Vec::new());
    assert!(!stale.exists());
    assert!(live.exists());
}

#[test]
fn a_lock_held_elsewhere_is_waited_for_a_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    bump(&path, &mut Vec::new());
    let holder = fs::File::open(lock_path(&path)).unwrap();
    holder.lock().unwrap();
    let start = std::time::Instant::now();
    let err = update_json(
        &path,
        Timestamp::from_unix(0),
        &mut Vec::new(),
        Counter::new,
        |_: &mut Counter| (true, ()),
    )
    .unwrap_err();
    let waited = start.elapsed();
    assert!(err.to_string().contains("held it for over"), "{err}");
    assert!(waited >= LOCK_WAIT && waited < LOCK_WAIT * 3, "{waited:?}");
    drop(holder);
    bump(&path, &mut Vec::new());
    assert_eq!(
        read_json::<Counter>(&path).or_default_with(Counter::new)["n"],
        2
    );
}

#[test]
fn a_folder_lock_writes_its_files_temps_in_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("f");
    fs::create_dir_all(&folder).unwrap();
    let stale = folder.join(".oath-tmp-dead");
    fs::write(&stale, "x").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let now = Timestamp::from_unix(0);
    let lock = lock_dir(&folder, now, &mut Vec::new()).unwrap();
    assert!(!stale.exists(), "swept as the lock is taken");
    let file = folder.join("sub/c.json");
    for _ in 0..2 {
        lock.update_json(
            &file,
            now,
            &mut Vec::new(),
            Durability::Unsynced,
            |c: &Counter| match c.get("n") {
                Some(n) if *n > 9 => Err("too many".into()),
                _ => Ok(()),
            },
            Counter::new,
            |c: &mut Counter| {
                *c.entry("n".into()).or_default() += 1;
                (true, ())
            },
        )
        .unwrap();
    }
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&folder), [".lock", "sub"]);
    assert_eq!(names(&folder.join("sub")), ["c.json"]);
    // Another holder waits for the folder's lock.
    let second = std::thread::spawn({
        let folder = folder.clone();
        move || {
            let start = std::time::Instant::now();
            lock_dir(&folder, now, &mut Vec::new()).unwrap();
            start.elapsed()
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    drop(lock);
    assert!(second.join().unwrap() >= std::time::Duration::from_millis(150));
    // A value its check refuses is unreadable: moved aside, with a warning.
    fs::write(&file, r#"{"n": 12}"#).unwrap();
    let mut warnings = Vec::new();
    let lock = lock_dir(&folder, now, &mut warnings).unwrap();
    let n = lock
        .update_json(
            &file,
            now,
            &mut warnings,
            Durability::Synced,
            |c: &Counter| {
                if c["n"] > 9 {
                    Err("too many".into())
                } else {
                    Ok(())
                }
            },
            Counter::new,
            |c: &mut Counter| {
                *c.entry("n".into()).or_default() += 1;
                (true, c["n"])
            },
        )
        .unwrap();
    assert_eq!(n, 1);
    assert!(
        warnings.len() == 1 && warnings[0].contains("too many"),
        "{warnings:?}"
    );
}

#[test]
fn corrupt_file_is_moved_aside_and_defaults_used() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    fs::write(&path, "{\"n\": 4").unwrap();
    let mut warnings = Vec::new();
    bump(&path, &mut warnings);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("moved it to"));
    let c: Counter = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(c["n"], 1);
    let aside: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(fs::read_to_string(aside[0].path()).unwrap(), "{\"n\": 4");
}

#[test]
fn empty_file_and_directory_are_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.json");
    fs::write(&path, "").unwrap();
    assert!(matches!(
        read_json::<Counter>(&path),
        ReadOutcome::Corrupt(_)
    ));
    let d = dir.path().join("d.json");
    fs::create_dir(&d).unwrap();
    assert!(matches!(read_json::<Counter>(&d), ReadOutcome::Corrupt(_)));
    let mut warnings = Vec::new();
    bump(&d, &mut warnings);
    assert!(d.is_file());
}

#[cfg(unix)]
#[test]
fn symlinked_state_file_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let path = dir.path().join("s.json");
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    let mut warnings = Vec::new();
    bump(&path, &mut warnings);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        !fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(warnings.len(), 1);
}

#[test]
fn a_record_after_a_torn_one_starts_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    append_line(&path, r#"{"n":1}"#).unwrap();
    // What a writer killed in the middle of its `write()` leaves.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(br#"{"n":2,"to"#).unwrap();
    drop(f);
    append_line(&path, r#"{"n":3}"#).unwrap();
    append_line(&path, r#"{"n":4}"#).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [r#"{"n":1}"#, r#"{"n":2,"to"#, r#"{"n":3}"#, r#"{"n":4}"#],
        "{text:?}"
    );
}

#[test]
fn concurrent_appends_of_records_over_a_page_stay_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                for n in 0..40 {
                    let pad = "x".repeat(3000 + 700 * t);
                    append_line(&path, &format!(r#"{{"t":{t},"n":{n},"pad":"{pad}"}}"#)).unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 320);
    for l in lines {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l:.80}"));
    }
}

#[cfg(unix)]
#[test]
fn symlinked_log_is_not_appended_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let path = dir.path().join("a.jsonl");
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    assert!(append_line(&path, "{}").is_err());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
}

/// A link to a file that does not exist yet: following it would create the file elsewhere.
#[cfg(unix)]
#[test]
fn a_dangling_link_as_log_creates_nothing_where_it_points() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.jsonl");
    let path = dir.path().join("a.jsonl");
    std::os::unix::fs::symlink(&target, &path).unwrap();
    let err = append_line(&path, "{}").unwrap_err().to_string();
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!target.exists());
}

#[test]
fn a_log_gets_its_folders_and_an_empty_one_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/audit/a.jsonl");
    append_line(&path, r#"{"n":1}"#).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"n\":1}\n");
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    append_line(&empty, r#"{"n":1}"#).unwrap();
    assert_eq!(fs::read_to_string(&empty).unwrap(), "{\"n\":1}\n");
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    assert!(matches!(
        read_json::<Counter>(&fifo),
        ReadOutcome::Corrupt(_)
    ));
    assert!(read_text_file(&fifo, 1024).is_err());
    assert!(read_text_file(Path::new("/dev/zero"), 1024).is_err());
    assert!(
        read_text_file(&dir.path().join("missing"), 1024)
            .unwrap()
            .is_none()
    );
    let mut warnings = Vec::new();
    bump(&fifo, &mut warnings);
    assert!(fifo.is_file(), "the FIFO was moved aside and replaced");
}

#[test]
fn parallel_updates_are_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    bump(&path, &mut Vec::new());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let c: Counter = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(c["n"], 200);
}
