//! Rule packs: what programs do, as data. The built-in packs (`packs/*.yaml`) are compiled
//! into static tables at build time ([`builtin`]); a user's packs are read at run time into
//! the same types and looked up first, so they add programs or override built-in ones.

pub(crate) mod account;
pub mod act;
pub mod check;
pub mod schema;
pub mod strs;

pub(crate) mod matcher;
pub mod user;

pub(crate) use matcher::{Descent, Facts, Level, View, descend, holds, placeholder, select};

use schema::{Entry, Pack};

/// The packs compiled into the binary.
#[allow(clippy::all, missing_docs)]
mod builtin {
    use super::schema::*;

    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}

/// The tables the built-in packs' strings and lists are ranges of ([`schema::Str`]).
mod tables {
    use super::builtin;
    use super::schema::{Carried, Cond, Entry, Pick, Rule, Str};

    pub fn strings() -> &'static str {
        builtin::STRINGS
    }
    pub fn strs() -> &'static [Str] {
        &builtin::STRS
    }
    pub fn entries() -> &'static [Entry] {
        &builtin::ENTRIES
    }
    pub fn rules() -> &'static [Rule] {
        &builtin::RULES
    }
    pub fn conds() -> &'static [Cond] {
        &builtin::CONDS
    }
    pub fn carried() -> &'static [Carried] {
        &builtin::CARRIED
    }
    pub fn picks() -> &'static [Pick] {
        &builtin::PICKS
    }
}

/// Returns the built-in packs.
pub fn builtin() -> &'static [Pack] {
    &builtin::PACKS
}

/// A program found in a pack.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    /// Its entry.
    pub entry: &'static Entry,
    /// The pack's name.
    pub pack: &'static str,
    /// Whether it came from a user's pack.
    pub user: bool,
}

/// Finds the entry of a program: the user's packs first, then the built-in ones; exact
/// names before patterns, and the catch-all `*` last.
pub fn lookup(user: &'static [Pack], name: &str) -> Option<Found> {
    let both = lookup_both(user, name);
    both.user.or(both.builtin)
}

/// The entries that describe a program.
#[derive(Debug, Clone, Copy)]
pub struct Both {
    /// The user's (it adds knowledge).
    pub user: Option<Found>,
    /// The built-in one (its protection stays whatever the user's says), or the catch-all
    /// for programs no pack describes when there is no entry at all.
    pub builtin: Option<Found>,
}

/// Finds a program's entry in the user's packs and in the built-in ones (exact names before
/// patterns; the built-in catch-all `*` only when neither names it).
pub fn lookup_both(user: &'static [Pack], name: &str) -> Both {
    let user = lookup_user(user, name);
    let builtin = lookup_builtin(name).filter(|b| user.is_none() || b.entry.name.first() != "*");
    Both { user, builtin }
}

fn lookup_user(user: &'static [Pack], name: &str) -> Option<Found> {
    for p in user {
        if let Some(e) = p.programs.iter().find(|e| e.name.exact(name)) {
            return Some(Found {
                entry: e,
                pack: &p.pack,
                user: true,
            });
        }
    }
    for p in user {
        if let Some(e) = p
            .programs
            .iter()
            .find(|e| e.name.pattern(name) && e.name.first() != "*")
        {
            return Some(Found {
                entry: e,
                pack: &p.pack,
                user: true,
            });
        }
    }
    None
}

fn lookup_builtin(name: &str) -> Option<Found> {
    let packs = &builtin::PACKS;
    if let Ok(i) = builtin::INDEX.binary_search_by(|(n, _, _)| n.as_str().cmp(name)) {
        let (_, p, e) = builtin::INDEX[i];
        let pack = &packs[usize::from(p)];
        return Some(Found {
            entry: &pack.programs[usize::from(e)],
            pack: &pack.pack,
            user: false,
        });
    }
    let catch_all = builtin::PATTERNS.iter().find(|(n, _, _)| n == "*");
    builtin::PATTERNS
        .iter()
        .filter(|(n, _, _)| n != "*")
        .find(|(n, _, _)| schema::wildcard(n, name))
        .or(catch_all)
        .map(|&(_, p, e)| {
            let pack = &packs[usize::from(p)];
            Found {
                entry: &pack.programs[usize::from(e)],
                pack: &pack.pack,
                user: false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_sorted_and_finds_every_program() {
        assert!(
            builtin::INDEX
                .windows(2)
                .all(|w| w[0].0.as_str() < w[1].0.as_str())
        );
        for p in builtin() {
            for e in p.programs.iter() {
                for n in e.name.0.iter().filter(|n| !n.contains('*')) {
                    let f = lookup(&[], n).unwrap();
                    assert!(std::ptr::eq(f.entry, e), "{n}");
                    assert_eq!(f.pack, p.pack.as_str());
                }
            }
        }
    }

    #[test]
    fn every_built_in_pack_passes_the_check() {
        for p in builtin() {
            assert_eq!(check::check(p), vec![], "{}", p.pack);
        }
    }
}
