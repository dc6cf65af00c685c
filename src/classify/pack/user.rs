//! A user's own packs: `packs/*.yaml` beside the user's configuration file, read at run time
//! into the types of the built-in packs and looked up before them.
//!
//! A pack that does not parse or fails the check is skipped with a warning naming it: a
//! broken file never changes a decision; the built-in knowledge holds.

use std::path::Path;

use super::check::check;
use super::schema::Pack;

/// Largest pack file read (256 KiB).
const MAX_PACK_BYTES: u64 = 256 * 1024;

/// Packs read from a directory, and what was wrong with the others.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The packs that parsed and passed the check, in file-name order.
    pub packs: &'static [Pack],
    /// One line per file skipped.
    pub warnings: Vec<String>,
}

/// Parses and checks one pack; the errors name the line where the parser knows it.
pub fn parse(text: &str) -> Result<Pack, Vec<String>> {
    let pack: Pack = serde_saphyr::from_str(text).map_err(|e| vec![e.to_string()])?;
    let problems: Vec<String> = check(&pack).iter().map(ToString::to_string).collect();
    if problems.is_empty() {
        Ok(pack)
    } else {
        Err(problems)
    }
}

/// Returns what a person should know about a pack that is valid: each program a built-in
/// pack describes too (the two are merged: the user's adds knowledge, the built-in's
/// protection stays), and each rule id used with two meanings, in the pack or by a built-in
/// rule (the audit names rules by id and could not tell them apart).
pub fn notes(pack: &Pack) -> Vec<String> {
    use super::schema::{Entry, Rule};
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    for e in pack.programs.iter() {
        for n in e.name.0.iter() {
            let Some(b) = super::lookup(&[], n).filter(|b| b.entry.name.first() != "*") else {
                continue;
            };
            out.push(format!(
                "`{n}` is also described by the built-in `{}` pack: the two are merged (this pack can add knowledge and tighten; what the built-in pack holds stays held)",
                b.pack
            ));
        }
    }
    fn rules<'a>(e: &'a Entry, out: &mut Vec<&'a Rule>) {
        out.extend(e.rules.iter().chain(e.also.iter()));
        for s in e.sub.iter() {
            rules(s, out);
        }
    }
    let mut mine = Vec::new();
    for e in pack.programs.iter() {
        rules(e, &mut mine);
    }
    let mut meanings: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in &mine {
        let m = meanings.entry(r.id.as_ref()).or_default();
        if !m.contains(&r.explain.as_ref()) {
            m.push(&r.explain);
        }
    }
    for (id, m) in &meanings {
        if m.len() > 1 {
            out.push(format!(
                "rule id `{id}` is used by rules that say different things ({}): give each its own id",
                m.len()
            ));
        }
    }
    let mut builtin = Vec::new();
    for p in super::builtin() {
        for e in p.programs.iter() {
            rules(e, &mut builtin);
        }
    }
    for id in meanings.keys() {
        if builtin.iter().any(|r| r.id.as_ref() == *id) {
            out.push(format!(
                "rule id `{id}` is also a built-in rule's id: the audit trail could not tell them apart"
            ));
        }
    }
    out
}

/// Reads every `*.yaml` pack of `dir` (none when it does not exist).
pub fn load_dir(dir: &Path) -> Loaded {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Loaded::default();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".yaml") && !n.ends_with(".golden.yaml"))
        })
        .collect();
    files.sort();
    let mut packs = Vec::new();
    let mut warnings = Vec::new();
    for f in files {
        let text = match crate::state::read_text_file(&f, MAX_PACK_BYTES) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(e) => {
                warnings.push(format!("pack {} skipped: {e}", f.display()));
                continue;
            }
        };
        match parse(&text) {
            Ok(p) => packs.push(p),
            Err(errors) => warnings.push(format!(
                "pack {} skipped (`oath rules check` shows why): {}",
                f.display(),
                errors.join("; ")
            )),
        }
    }
    Loaded {
        // A hook lives for one call; the packs live as long as it (the static built-in
        // packs and a user's are looked up the same way).
        packs: Box::leak(packs.into_boxed_slice()),
        warnings,
    }
}
