//! Tests of the trust folder: file names, updates, reads, the whole view and the migration
//! of the single file.

use super::*;
use crate::classify::Domain;
use crate::trust::{Outcome, apply_outcome, apply_to_domain};

fn t(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

fn store(dir: &Path) -> TrustStore {
    TrustStore::new(dir.join("trust"), dir.join("trust-scores.json"))
}

/// Applies one outcome through the store, as PostToolUse does.
fn apply(s: &TrustStore, domain: &str, outcome: Outcome, id: &str, at: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let p = TrustParams::default();
    let durability = match outcome {
        Outcome::Success => crate::state::Durability::Unsynced,
        Outcome::Failure => crate::state::Durability::Synced,
    };
    s.update_domain(domain, t(at), &p, &mut warnings, durability, |f| {
        let u = apply_to_domain(f, outcome, Some(id), t(at), &p);
        (!u.duplicate, u)
    })
    .unwrap();
    warnings
}

fn view(s: &TrustStore) -> TrustFile {
    let mut warnings = Vec::new();
    let v = s.load(&mut warnings).unwrap().expect("trust state");
    assert!(warnings.is_empty(), "{warnings:?}");
    v
}

#[test]
fn the_classifiers_domains_are_their_own_file_names() {
    for d in Domain::ALL {
        assert_eq!(domain_file_name(d.as_str()), d.as_str());
        assert_eq!(stored_name(d.as_str()), d.as_str(), "redaction keeps {d:?}");
    }
    assert_eq!(domain_file_name("_global"), "_global");
}

#[test]
fn file_names_stay_in_the_folder_and_never_collide() {
    let names = [
        "../../etc/passwd",
        "..",
        ".",
        "a/b",
        "a\\b",
        "A",
        "a",
        "%41",
        "%%",
        "a\0b",
        "É",
        "é",
        "",
        "CON",
        "con",
        &"x".repeat(500),
        &format!("{}y", "x".repeat(500)),
    ];
    let mut seen = std::collections::HashSet::new();
    for n in names {
        let f = domain_file_name(n);
        assert!(
            !f.is_empty() && f.len() <= MAX_ESCAPED + 2 + 32,
            "{n:?}: {f}"
        );
        assert!(
            f.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"%_-".contains(&b)),
            "{n:?}: {f}"
        );
        assert!(
            seen.insert(f.to_ascii_lowercase()),
            "{n:?} collides (case-insensitively) at {f}"
        );
    }
    assert_eq!(domain_file_name("A"), "%41");
    assert_eq!(domain_file_name("a.b"), "a%2Eb");
}

#[test]
fn an_outcome_rewrites_its_domain_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    apply(
        &s,
        "file_read",
        Outcome::Success,
        "t1",
        "2026-03-01T00:00:00Z",
    );
    apply(
        &s,
        "shell_exec",
        Outcome::Failure,
        "t2",
        "2026-03-01T00:01:00Z",
    );
    let other = fs::read(s.domain_path("file_read")).unwrap();
    let stamp = fs::metadata(s.domain_path("file_read"))
        .unwrap()
        .modified()
        .unwrap();
    apply(
        &s,
        "shell_exec",
        Outcome::Success,
        "t3",
        "2026-03-01T00:02:00Z",
    );
    assert_eq!(fs::read(s.domain_path("file_read")).unwrap(), other);
    assert_eq!(
        fs::metadata(s.domain_path("file_read"))
            .unwrap()
            .modified()
            .unwrap(),
        stamp
    );
    let mut w = Vec::new();
    let d = s.read_domain("shell_exec", &mut w).unwrap();
    assert_eq!((d.successes, d.failures), (1, 1));
    assert!(s.read_domain("git_local", &mut w).is_none());
    assert!(w.is_empty(), "{w:?}");
    // A second fire of a call changes nothing.
    apply(
        &s,
        "shell_exec",
        Outcome::Success,
        "t3",
        "2026-03-01T00:03:00Z",
    );
    assert_eq!(s.read_domain("shell_exec", &mut w).unwrap(), d);
    let v = view(&s);
    assert_eq!(v.global_operation_count, 3);
    assert_eq!(v.updated_at, "2026-03-01T00:02:00Z");
    assert_eq!(v.domains.len(), 2);
    // Only the lock and the domain files are left.
    let mut names: Vec<String> = fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".lock", "domains"]);
}

/// A single file of an earlier version with `n` domains besides `file_read`.
fn single_file(n: usize) -> TrustFile {
    let p = TrustParams::default();
    let mut f = TrustFile::new(&p, t("2026-02-01T00:00:00Z"));
    for i in 0..5 {
        apply_outcome(
            &mut f,
            "file_read",
            Outcome::Success,
            Some(&format!("old_{i}")),
            t("2026-02-01T00:00:00Z"),
            &p,
        );
    }
    for i in 0..n {
        apply_outcome(
            &mut f,
            &format!("Extra.domain/{i}"),
            Outcome::Failure,
            None,
            t("2026-02-02T00:00:00Z"),
            &p,
        );
    }
    f
}

#[test]
fn the_single_file_is_read_then_migrated_whole() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let old = single_file(30);
    let bytes = serde_json::to_vec_pretty(&old).unwrap();
    fs::write(dir.path().join("trust-scores.json"), &bytes).unwrap();
    // Read before any update: from the single file.
    let mut w = Vec::new();
    assert_eq!(
        s.read_domain("file_read", &mut w).unwrap(),
        old.domains["file_read"]
    );
    assert_eq!(view(&s).domains, old.domains);
    assert!(!s.dir().exists(), "reading writes nothing");
    // The first update migrates every domain and moves the file aside, byte for byte.
    let w = apply(
        &s,
        "git_local",
        Outcome::Success,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    assert!(w.is_empty(), "{w:?}");
    assert!(!dir.path().join("trust-scores.json").exists());
    let aside: Vec<PathBuf> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("trust-scores.json.migrated-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(fs::read(&aside[0]).unwrap(), bytes);
    let v = view(&s);
    let mut want = old.domains.clone();
    want.insert("git_local".into(), v.domains["git_local"].clone());
    assert_eq!(v.domains, want);
    assert_eq!(v.global_operation_count, old.global_operation_count + 1);
    assert_eq!(
        s.read_domain("Extra.domain/7", &mut Vec::new()).unwrap(),
        old.domains["Extra.domain/7"]
    );
    assert!(
        s.domain_path("Extra.domain/7")
            .ends_with("%45xtra%2Edomain%2F7.json")
    );
}

#[test]
fn a_migration_keeps_the_state_further_along() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    // The folder already holds file_read (later) and shell_exec (earlier than the file's).
    apply(
        &s,
        "file_read",
        Outcome::Failure,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    apply(
        &s,
        "shell_exec",
        Outcome::Failure,
        "n2",
        "2026-01-01T00:00:00Z",
    );
    let held = s.read_domain("file_read", &mut Vec::new()).unwrap();
    let mut old = single_file(0);
    let p = TrustParams::default();
    apply_outcome(
        &mut old,
        "shell_exec",
        Outcome::Success,
        None,
        t("2026-02-01T00:00:00Z"),
        &p,
    );
    fs::write(
        dir.path().join("trust-scores.json"),
        serde_json::to_vec(&old).unwrap(),
    )
    .unwrap();
    // Readers already merge: the file's shell_exec, the folder's file_read.
    let mut w = Vec::new();
    assert_eq!(s.read_domain("file_read", &mut w).unwrap(), held);
    assert_eq!(
        s.read_domain("shell_exec", &mut w).unwrap(),
        old.domains["shell_exec"]
    );
    apply(
        &s,
        "git_read",
        Outcome::Success,
        "n3",
        "2026-03-02T00:00:00Z",
    );
    let v = view(&s);
    assert_eq!(v.domains["file_read"], held);
    assert_eq!(v.domains["shell_exec"], old.domains["shell_exec"]);
    assert_eq!(v.domains["_global"], old.domains["_global"]);
}

#[test]
fn a_migration_cut_short_is_finished_by_the_next_update() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let old = single_file(10);
    fs::write(
        dir.path().join("trust-scores.json"),
        serde_json::to_vec(&old).unwrap(),
    )
    .unwrap();
    // A writer killed after three domains: their files are there, the single file too.
    let lock = crate::state::lock_dir(s.dir(), t("2026-03-01T00:00:00Z"), &mut Vec::new()).unwrap();
    for name in old.domains.keys().take(3) {
        let name = name.clone();
        let state = old.domains[&name].clone();
        lock.update_json(
            &s.domain_path(&name),
            t("2026-03-01T00:00:00Z"),
            &mut Vec::new(),
            crate::state::Durability::Synced,
            |_: &DomainFile| Ok(()),
            || DomainFile::new(&name, &TrustParams::default()),
            |f| {
                f.trust = state;
                (true, ())
            },
        )
        .unwrap();
    }
    drop(lock);
    assert_eq!(view(&s).domains, old.domains, "the view is whole meanwhile");
    apply(
        &s,
        "file_read",
        Outcome::Success,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    let v = view(&s);
    assert_eq!(v.domains.len(), old.domains.len());
    assert_eq!(v.domains["file_read"].successes, 6);
    assert!(!dir.path().join("trust-scores.json").exists());
}

#[test]
fn unreadable_files_are_named_then_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    fs::write(dir.path().join("trust-scores.json"), "{\"version\":\"2\",").unwrap();
    let mut w = Vec::new();
    assert!(s.read_domain("file_read", &mut w).is_none());
    assert!(w[0].contains("unreadable"), "{w:?}");
    assert!(s.load(&mut Vec::new()).unwrap_err().contains("unreadable"));
    let w = apply(
        &s,
        "file_read",
        Outcome::Success,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    assert!(w.len() == 1 && w[0].contains("moved it to"), "{w:?}");
    assert!(!dir.path().join("trust-scores.json").exists());

    // A domain file that is garbage, or holds another domain (renamed by hand).
    for (label, bytes) in [
        ("garbage", b"not json".to_vec()),
        (
            "future",
            br#"{"version":9,"domain":"git_local","trust":{"score":0.5}}"#.to_vec(),
        ),
        ("renamed", fs::read(s.domain_path("file_read")).unwrap()),
    ] {
        fs::write(s.domain_path("git_local"), &bytes).unwrap();
        let mut w = Vec::new();
        assert!(s.read_domain("git_local", &mut w).is_none(), "{label}");
        assert!(
            w.len() == 1 && w[0].contains("unreadable"),
            "{label}: {w:?}"
        );
        let mut w = Vec::new();
        let v = s.load(&mut w).unwrap().unwrap();
        assert!(!v.domains.contains_key("git_local"), "{label}");
        assert_eq!(w.len(), 1, "{label}: {w:?}");
        let w = apply(
            &s,
            "git_local",
            Outcome::Success,
            label,
            "2026-03-01T00:00:00Z",
        );
        assert!(
            w.len() == 1 && w[0].contains("moved it to"),
            "{label}: {w:?}"
        );
        assert_eq!(
            s.read_domain("git_local", &mut Vec::new())
                .unwrap()
                .successes,
            1
        );
        fs::remove_file(s.domain_path("git_local")).unwrap();
    }
    assert_eq!(view(&s).domains["file_read"].successes, 1);
}

#[test]
fn what_stands_where_the_folders_should_be_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    fs::write(s.dir(), "a file").unwrap();
    let w = apply(
        &s,
        "file_read",
        Outcome::Success,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    assert!(w.len() == 1 && w[0].contains("not a folder"), "{w:?}");
    fs::remove_dir_all(s.dir().join("domains")).unwrap();
    fs::write(s.dir().join("domains"), "a file").unwrap();
    let w = apply(
        &s,
        "file_read",
        Outcome::Success,
        "n2",
        "2026-03-01T00:00:00Z",
    );
    assert!(w.len() == 1 && w[0].contains("not a folder"), "{w:?}");
    assert_eq!(view(&s).domains["file_read"].successes, 1);
}

#[test]
fn no_secret_in_a_call_id_reaches_a_domain_file() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    apply(
        &s,
        "file_read",
        Outcome::Success,
        token,
        "2026-03-01T00:00:00Z",
    );
    apply(
        &s,
        "file_read",
        Outcome::Success,
        "toolu_2",
        "2026-03-01T00:00:00Z",
    );
    let text = fs::read_to_string(s.domain_path("file_read")).unwrap();
    assert!(!text.contains("ghp_0123"), "{text}");
    assert!(text.contains("toolu_2"), "{text}");
}

#[test]
fn parallel_outcomes_are_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let threads: Vec<_> = (0..6)
        .map(|n| {
            let s = s.clone();
            std::thread::spawn(move || {
                let domain = if n % 2 == 0 {
                    "file_read"
                } else {
                    "shell_exec"
                };
                for i in 0..20 {
                    apply(
                        &s,
                        domain,
                        Outcome::Success,
                        &format!("t{n}_{i}"),
                        "2026-03-01T00:00:00Z",
                    );
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    let v = view(&s);
    assert_eq!(v.domains["file_read"].successes, 60);
    assert_eq!(v.domains["shell_exec"].successes, 60);
}
