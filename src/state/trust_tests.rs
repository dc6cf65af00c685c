//! Tests of the trust folder: file names, updates, reads, the whole view and the migration
//! of the single file.

use super::*;
use crate::classify::Domain;
use crate::trust::{DomainTrust, Level, Outcome, TrustParams, apply_to_domain};

fn t(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

fn store(dir: &Path) -> TrustStore {
    TrustStore::new(dir.join("trust"), dir.join("trust-scores.json"))
}

/// Applies one outcome of a low-risk call through the store, as PostToolUse does.
fn apply(s: &TrustStore, domain: &str, outcome: Outcome, id: &str, at: &str) -> Vec<String> {
    apply_at(s, domain, Level::Low, outcome, id, at)
}

/// Applies one outcome of a call at `level` through the store, as PostToolUse does.
fn apply_at(
    s: &TrustStore,
    domain: &str,
    level: Level,
    outcome: Outcome,
    id: &str,
    at: &str,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let p = TrustParams::default();
    let durability = match outcome {
        Outcome::Success => crate::state::Durability::Unsynced,
        Outcome::Failure => crate::state::Durability::Synced,
    };
    s.update_domain(domain, t(at), &mut warnings, durability, |f| {
        let u = apply_to_domain(f, level, outcome, Some(id), t(at), &p);
        (!u.duplicate, u)
    })
    .unwrap();
    warnings
}

/// The low level a domain's file holds (what a single file's entry migrates to).
fn low(l: DomainLevels) -> DomainTrust {
    assert!(l.medium.is_none() && l.high.is_none(), "{l:?}");
    l.low.expect("a low level")
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
    let l = d.low.as_ref().unwrap();
    assert_eq!((l.successes, l.failures), (1, 1));
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

/// Applies one outcome to a single file of an earlier version (one state per domain, the
/// seed's rules), as an earlier oath did.
fn legacy_apply(f: &mut SingleFile, domain: &str, outcome: Outcome, at: &str) {
    let p = TrustParams::default();
    let current = f
        .domains
        .get(domain)
        .cloned()
        .unwrap_or_else(|| DomainTrust::new(&p));
    let (d, _) = crate::trust::advance(&current, outcome, t(at), &p);
    f.domains.insert(domain.to_owned(), d);
    f.global_operation_count += 1;
    f.updated_at = t(at).iso_seconds();
}

/// A single file of an earlier version with `n` domains besides `file_read` and `_global`.
fn single_file(n: usize) -> SingleFile {
    let p = TrustParams::default();
    let mut f = SingleFile::new(t("2026-02-01T00:00:00Z"));
    f.domains.insert("_global".into(), DomainTrust::new(&p));
    for _ in 0..5 {
        legacy_apply(
            &mut f,
            "file_read",
            Outcome::Success,
            "2026-02-01T00:00:00Z",
        );
    }
    for i in 0..n {
        legacy_apply(
            &mut f,
            &format!("Extra.domain/{i}"),
            Outcome::Failure,
            "2026-02-02T00:00:00Z",
        );
    }
    f
}

/// The single file's domains as they migrate: each state becomes the low level only.
fn migrated(f: &SingleFile) -> BTreeMap<String, DomainLevels> {
    f.domains
        .iter()
        .map(|(k, d)| (k.clone(), DomainLevels::only_low(d.clone())))
        .collect()
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
        low(s.read_domain("file_read", &mut w).unwrap()),
        old.domains["file_read"]
    );
    assert_eq!(view(&s).domains, migrated(&old));
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
    let mut want = migrated(&old);
    want.insert("git_local".into(), v.domains["git_local"].clone());
    assert_eq!(v.domains, want);
    assert_eq!(v.global_operation_count, old.global_operation_count + 1);
    assert_eq!(
        low(s.read_domain("Extra.domain/7", &mut Vec::new()).unwrap()),
        old.domains["Extra.domain/7"]
    );
    // Every migrated file is version 2, its score the low level.
    let text = fs::read_to_string(s.domain_path("file_read")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["version"], 2, "{text}");
    assert_eq!(file["levels"]["low"]["successes"], 5, "{text}");
    assert!(file["levels"].get("medium").is_none(), "{text}");
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
    legacy_apply(
        &mut old,
        "shell_exec",
        Outcome::Success,
        "2026-02-01T00:00:00Z",
    );
    fs::write(
        dir.path().join("trust-scores.json"),
        serde_json::to_vec(&old).unwrap(),
    )
    .unwrap();
    // Readers already merge: the file's shell_exec, the folder's file_read.
    let mut w = Vec::new();
    assert_eq!(s.read_domain("file_read", &mut w).unwrap(), held);
    // shell_exec: the file's state replaces the folder's low level only; the folder's
    // medium and high (lowered by its failure) stay.
    let mut merged = s.read_domain("shell_exec", &mut w).unwrap();
    assert_eq!(merged.low.take(), Some(old.domains["shell_exec"].clone()));
    assert!(merged.medium.is_some_and(|m| m.failures == 1));
    apply(
        &s,
        "git_read",
        Outcome::Success,
        "n3",
        "2026-03-02T00:00:00Z",
    );
    let v = view(&s);
    assert_eq!(v.domains["file_read"], held);
    assert_eq!(
        v.domains["shell_exec"].low.as_ref(),
        Some(&old.domains["shell_exec"])
    );
    assert_eq!(v.domains["shell_exec"].high.as_ref().unwrap().failures, 1);
    assert_eq!(
        v.domains["_global"],
        DomainLevels::only_low(old.domains["_global"].clone())
    );
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
            || DomainFile::new(&name),
            |f| {
                f.levels = DomainLevels::only_low(state);
                (true, ())
            },
        )
        .unwrap();
    }
    drop(lock);
    assert_eq!(
        view(&s).domains,
        migrated(&old),
        "the view is whole meanwhile"
    );
    apply(
        &s,
        "file_read",
        Outcome::Success,
        "n1",
        "2026-03-01T00:00:00Z",
    );
    let v = view(&s);
    assert_eq!(v.domains.len(), old.domains.len());
    assert_eq!(v.domains["file_read"].low.as_ref().unwrap().successes, 6);
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
            br#"{"version":9,"domain":"git_local","levels":{"low":{"score":0.5}}}"#.to_vec(),
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
                .low
                .unwrap()
                .successes,
            1
        );
        fs::remove_file(s.domain_path("git_local")).unwrap();
    }
    assert_eq!(
        view(&s).domains["file_read"]
            .low
            .as_ref()
            .unwrap()
            .successes,
        1
    );
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
    assert_eq!(
        view(&s).domains["file_read"]
            .low
            .as_ref()
            .unwrap()
            .successes,
        1
    );
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
    for d in ["file_read", "shell_exec"] {
        assert_eq!(v.domains[d].low.as_ref().unwrap().successes, 60, "{d}");
    }
}

#[test]
fn a_version_1_domain_file_is_read_and_written_as_version_2() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let p = TrustParams::default();
    let now = t("2026-03-01T00:00:00Z");
    fs::create_dir_all(s.domain_path("container").parent().unwrap()).unwrap();
    let v1 = r#"{"version":1,"domain":"container","trust":{"score":0.9,"successes":60,"total_operations":60,"last_operated_at":"2026-02-28T00:00:00Z"},"recent_outcomes":[{"tool_use_id":"old","outcome":"success"}]}"#;
    fs::write(s.domain_path("container"), v1).unwrap();
    // Read as it is: the old score is the low level only.
    let mut w = Vec::new();
    let l = s.read_domain("container", &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(l.score(Level::Low, now, &p), 0.9);
    assert_eq!(l.score(Level::Medium, now, &p), p.initial_score);
    assert_eq!(view(&s).domains["container"], l);
    assert_eq!(fs::read_to_string(s.domain_path("container")).unwrap(), v1);
    // A second fire of a call the old file remembers changes nothing and writes nothing.
    apply_at(
        &s,
        "container",
        Level::Medium,
        Outcome::Success,
        "old",
        "2026-03-01T00:00:00Z",
    );
    assert_eq!(fs::read_to_string(s.domain_path("container")).unwrap(), v1);
    // The next update writes version 2; the file is never lost or moved aside.
    let w = apply_at(
        &s,
        "container",
        Level::Medium,
        Outcome::Success,
        "new",
        "2026-03-01T00:00:00Z",
    );
    assert!(w.is_empty(), "{w:?}");
    let text = fs::read_to_string(s.domain_path("container")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["version"], 2, "{text}");
    assert_eq!(file["levels"]["low"]["successes"], 61, "{text}");
    assert_eq!(file["levels"]["medium"]["successes"], 1, "{text}");
    assert_eq!(
        file["recent_outcomes"].as_array().unwrap().len(),
        2,
        "{text}"
    );
    let names: Vec<String> = fs::read_dir(s.domain_path("container").parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["container.json"]);
}
