//! The trust folder (ADR 0023): one small file per domain, so an outcome reads and rewrites
//! one domain and PreToolUse reads one, whatever the number of domains.
//!
//! `trust/domains/<name>.json` holds a [`DomainFile`] (its levels, ADR 0025; a version 1 file
//! is read with its score as the low level and written as version 2 by its next update);
//! `trust/.lock` is held by every update (and the migration), whose temp files are written in
//! `trust/`. The single `trust-scores.json` of earlier versions is still read: its domains
//! count until the first update migrates them into the folder, under both locks, and moves it
//! aside as `trust-scores.json.migrated-<stamp>`. Each of its domains is a low level: it
//! replaces the folder's low level of that domain only when further along
//! ([`crate::trust::is_further_along`]), and medium and high are left as the folder holds
//! them (the initial score for a domain the folder does not hold). An unreadable one is
//! moved aside as corrupt, as before.
//!
//! Domain names become file names ([`domain_file_name`]): the hook's names are the
//! classifier's fixed set; other names come only from a single file (they are kept as they
//! are) and are redacted as the file's content is before their file name is made.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{DirLock, ReadOutcome, StateError};
use crate::clock::Timestamp;
use crate::project::Project;
use crate::trust::{
    DomainFile, DomainHead, DomainLevels, OneDomain, SingleFile, TrustFile, whole_view,
};

/// The subfolder of the domain files.
const DOMAINS: &str = "domains";

/// Longest file name (without `.json`) made by escaping; a longer or empty name is hashed.
const MAX_ESCAPED: usize = 160;

/// Returns a domain's file name without `.json`: `[a-z0-9_-]` as they are and every other
/// byte `%XX` (upper-case hex), so no name reaches outside the folder (`/`, `..`, NUL are
/// escaped) and two names never share a file, even on a case-insensitive file system (upper
/// case is always escaped, an escape always upper case). An empty name, or one escaped
/// longer than 160 bytes, is `%%` and the first 32 hex digits of its BLAKE3 hash (no escape
/// starts `%%`; the file holds the name).
pub fn domain_file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        if out.len() > MAX_ESCAPED {
            break;
        }
    }
    if out.is_empty() || out.len() > MAX_ESCAPED {
        let hex = blake3::hash(name.as_bytes()).to_hex();
        return format!("%%{}", &hex[..32]);
    }
    out
}

/// Returns a domain name as a domain file stores it: redacted as the file's content is
/// written (a name that holds a secret is masked, and its file is named after the mask).
fn stored_name(name: &str) -> String {
    let mut v = json!({ "domain": name });
    crate::redact::redact_value(&mut v);
    match v.get("domain") {
        Some(Value::String(s)) => s.clone(),
        _ => crate::redact::MASK.to_owned(),
    }
}

/// The trust state of one project: its folder and the single file of earlier versions.
#[derive(Debug, Clone)]
pub struct TrustStore {
    dir: PathBuf,
    legacy: PathBuf,
}

impl TrustStore {
    /// Returns the store of a project.
    pub fn of(project: &Project) -> Self {
        Self::new(project.trust_dir(), project.legacy_trust_file())
    }

    /// Returns the store of the folder `dir` and the single file `legacy`.
    pub fn new(dir: PathBuf, legacy: PathBuf) -> Self {
        Self { dir, legacy }
    }

    /// Returns the trust folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Returns the file of a domain.
    pub fn domain_path(&self, name: &str) -> PathBuf {
        let mut file = domain_file_name(name);
        file.push_str(".json");
        self.dir.join(DOMAINS).join(file)
    }

    /// Reads one domain's levels (PreToolUse: nothing is locked or written); `None` when no
    /// file holds it. An unreadable file is named in `warnings` and left for the next update
    /// of the domain to move aside.
    pub fn read_domain(&self, name: &str, warnings: &mut Vec<String>) -> Option<DomainLevels> {
        let path = self.domain_path(name);
        let held = match super::read_json_with(&path, |bytes| parse_head(bytes, name)) {
            ReadOutcome::Ok(head) => Some(head.levels),
            ReadOutcome::Missing => None,
            ReadOutcome::Corrupt(reason) => {
                warnings.push(unreadable(&path, &reason));
                None
            }
        };
        let old = match super::read_json_with(&self.legacy, |bytes| {
            super::from_slice_seed(bytes, OneDomain(name))
        }) {
            ReadOutcome::Ok(d) => d.map(DomainLevels::only_low),
            ReadOutcome::Missing => None,
            ReadOutcome::Corrupt(reason) => {
                warnings.push(unreadable(&self.legacy, &reason));
                None
            }
        };
        merge(held, old)
    }

    /// Changes one domain under the folder's lock, migrating the single file first when
    /// there is one. A missing domain starts at the initial score at every level; an
    /// unreadable file is moved aside with a warning and also starts there. `change` returns
    /// whether anything changed (nothing is written otherwise) and a value passed back; the
    /// domain's file is written with `durability` (a migration is always synced).
    pub fn update_domain<R>(
        &self,
        name: &str,
        now: Timestamp,
        warnings: &mut Vec<String>,
        durability: super::Durability,
        change: impl FnOnce(&mut DomainFile) -> (bool, R),
    ) -> Result<R, StateError> {
        let lock = super::lock_dir(&self.dir, now, warnings)?;
        self.migrate(&lock, now, warnings)?;
        lock.update_json(
            &self.domain_path(name),
            now,
            warnings,
            durability,
            |f: &DomainFile| belongs(&f.domain, name),
            || DomainFile::new(name),
            change,
        )
    }

    /// Moves the single file's domains into the folder (the caller holds the folder's lock)
    /// and the file aside; an unreadable one is moved aside as corrupt, with a warning.
    fn migrate(
        &self,
        lock: &DirLock,
        now: Timestamp,
        warnings: &mut Vec<String>,
    ) -> Result<(), StateError> {
        if fs::symlink_metadata(&self.legacy).is_err() {
            return Ok(());
        }
        // An earlier oath may still be running: it writes the file under its own lock.
        let _single = super::lock_file_of(&self.legacy, now, warnings)?;
        let old = match super::read_json::<SingleFile>(&self.legacy) {
            ReadOutcome::Ok(f) => f,
            ReadOutcome::Missing => return Ok(()),
            ReadOutcome::Corrupt(reason) => {
                warnings.push(super::quarantine_warning(&self.legacy, &reason, now));
                return Ok(());
            }
        };
        for (name, state) in old.domains {
            let name = stored_name(&name);
            // Its score becomes the low level only (a domain the folder does not hold starts
            // with it, medium and high at the initial score).
            let state = DomainLevels::only_low(state);
            lock.update_json(
                &self.domain_path(&name),
                now,
                warnings,
                super::Durability::Synced,
                |f: &DomainFile| belongs(&f.domain, &name),
                || DomainFile::new(&name),
                |f: &mut DomainFile| (f.levels.take_further_along(state), ()),
            )?;
        }
        super::move_aside(&self.legacy, "migrated", now).map_err(|source| StateError::Io {
            action: "move aside",
            path: self.legacy.clone(),
            source,
        })?;
        Ok(())
    }

    /// Reads the whole trust state (`oath status`, `oath demo`): every domain file, and the
    /// domains of a single file not migrated yet. `Ok(None)`: there is no trust state yet.
    /// Unreadable domain files are left out and named in `warnings`; an unreadable single
    /// file is the error.
    pub fn load(&self, warnings: &mut Vec<String>) -> Result<Option<TrustFile>, String> {
        let mut domains: BTreeMap<String, DomainLevels> = BTreeMap::new();
        let folder = self.dir.join(DOMAINS);
        let mut found = false;
        match fs::read_dir(&folder) {
            Ok(entries) => {
                found = true;
                let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                paths.sort();
                for path in paths {
                    let Some(stem) = path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .and_then(|n| n.strip_suffix(".json"))
                        .map(str::to_owned)
                    else {
                        continue;
                    };
                    let read = super::read_json_with(&path, |bytes| {
                        let head: DomainHead = serde_json::from_slice(bytes)?;
                        let check = if domain_file_name(&head.domain) == stem {
                            Ok(())
                        } else {
                            Err(format!("it holds domain {:?}", head.domain))
                        };
                        check.map_err(<serde_json::Error as serde::de::Error>::custom)?;
                        Ok(head)
                    });
                    match read {
                        ReadOutcome::Ok(head) => {
                            domains.insert(head.domain, head.levels);
                        }
                        ReadOutcome::Missing => {}
                        ReadOutcome::Corrupt(reason) => warnings.push(unreadable(&path, &reason)),
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => warnings.push(format!("cannot read {}: {e}", folder.display())),
        }
        match super::read_json::<SingleFile>(&self.legacy) {
            ReadOutcome::Ok(old) => {
                found = true;
                for (name, state) in old.domains {
                    domains
                        .entry(stored_name(&name))
                        .or_default()
                        .take_further_along(DomainLevels::only_low(state));
                }
            }
            ReadOutcome::Missing => {}
            ReadOutcome::Corrupt(why) => {
                return Err(format!("{} is unreadable: {why}", self.legacy.display()));
            }
        }
        Ok(found.then(|| whole_view(domains)))
    }
}

/// Parses a domain file for `name`.
fn parse_head(bytes: &[u8], name: &str) -> serde_json::Result<DomainHead> {
    let head: DomainHead = serde_json::from_slice(bytes)?;
    belongs(&head.domain, name).map_err(<serde_json::Error as serde::de::Error>::custom)?;
    Ok(head)
}

/// Checks that a domain file read for `wanted` holds it (a file renamed by hand does not).
fn belongs(held: &str, wanted: &str) -> Result<(), String> {
    if held == wanted {
        Ok(())
    } else {
        Err(format!("it holds domain {held:?}, not {wanted:?}"))
    }
}

/// Returns a domain's file merged with the single file's entry (its low level): each level
/// further along wins.
fn merge(held: Option<DomainLevels>, old: Option<DomainLevels>) -> Option<DomainLevels> {
    match (held, old) {
        (Some(mut h), Some(o)) => {
            h.take_further_along(o);
            Some(h)
        }
        (h, o) => h.or(o),
    }
}

/// The warning for a trust file a reader cannot use.
fn unreadable(path: &Path, reason: &str) -> String {
    format!(
        "{} is unreadable ({reason}); using the initial trust (the next update moves it aside)",
        path.display()
    )
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
