//! Shell patterns and find's name tests against the paths oath protects: whether `rm -rf
//! .c*`, `chmod 000 .cl?ude` or `find . -name '*.json' -delete` can reach one. Matching is
//! lexical (no I/O), in any letter case (as protected paths are compared), with a word's brace
//! alternatives (`{a,settings}.json`) tried each.

use std::path::{Component, Path};

use super::super::Context;

/// What a pattern reaches of a protected path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// What it matches lies inside the protected path (or is it).
    Inside,
    /// It matches a folder that holds the protected path.
    Holds,
}

/// Returns what the shell pattern `pattern` (absolute and normalised, as resolved from a
/// word) matches of the protected paths, the first it reaches, and how.
pub(crate) fn reaches_protected<'c>(pattern: &Path, ctx: &'c Context) -> Option<(&'c Path, Reach)> {
    let pat: Vec<String> = parts(pattern);
    ctx.protected().iter().find_map(|q| {
        let names = parts(q);
        let n = pat.len().min(names.len());
        let all = pat[..n]
            .iter()
            .zip(&names[..n])
            .all(|(p, name)| component_matches(p, name));
        if !all {
            return None;
        }
        let reach = if pat.len() >= names.len() {
            Reach::Inside
        } else {
            Reach::Holds
        };
        Some((q.as_path(), reach))
    })
}

fn parts(p: &Path) -> Vec<String> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// Returns whether one component of a shell pattern matches a name: wild characters as the
/// shell reads them (a leading dot matched only by a dot), brace alternatives each.
fn component_matches(pattern: &str, name: &str) -> bool {
    braces(pattern).iter().any(|p| {
        if p.contains(['*', '?', '[']) {
            (!name.starts_with('.') || p.starts_with('.')) && glob(p, name, true)
        } else {
            p.eq_ignore_ascii_case(name)
        }
    })
}

/// Returns the alternatives of the first `{a,b}` group of a word (and of those after it),
/// or the word itself.
fn braces(p: &str) -> Vec<String> {
    let Some(open) = p.find('{') else {
        return vec![p.to_owned()];
    };
    let Some(len) = p[open..].find('}') else {
        return vec![p.to_owned()];
    };
    let inner = &p[open + 1..open + len];
    if !inner.contains(',') {
        return vec![p.to_owned()];
    }
    let (head, tail) = (&p[..open], &p[open + len + 1..]);
    inner
        .split(',')
        .flat_map(|alt| braces(&format!("{head}{alt}{tail}")))
        .take(64)
        .collect()
}

/// Returns whether `name` matches the pattern `pat` in any letter case: `*` any run, `?` one
/// character, `[…]` a class (`!` or `^` negates), `\` quotes the next. With `slash`, `*` and
/// `?` do not match `/` (a shell pattern's component, find's `-name`); without it they do
/// (find's `-path`).
pub(crate) fn glob(pat: &str, name: &str, slash: bool) -> bool {
    let p: Vec<char> = pat.chars().flat_map(char::to_lowercase).collect();
    let s: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    glob_at(&p, &s, slash, 0)
}

fn glob_at(p: &[char], s: &[char], slash: bool, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    let (mut pi, mut si) = (0, 0);
    while pi < p.len() {
        match p[pi] {
            '*' => {
                let rest = &p[pi + 1..];
                return (si..=s.len()).any(|k| {
                    (!slash || !s[si..k].contains(&'/')) && glob_at(rest, &s[k..], slash, depth + 1)
                });
            }
            '?' => {
                if si >= s.len() || slash && s[si] == '/' {
                    return false;
                }
            }
            '[' => {
                let Some(end) = p[pi + 1..].iter().skip(1).position(|c| *c == ']') else {
                    // No closing bracket: a plain `[`.
                    if s.get(si) != Some(&'[') {
                        return false;
                    }
                    pi += 1;
                    si += 1;
                    continue;
                };
                let class = &p[pi + 1..pi + 2 + end];
                let Some(&c) = s.get(si) else { return false };
                let (neg, class) = match class.first() {
                    Some('!' | '^') => (true, &class[1..]),
                    _ => (false, class),
                };
                let mut hit = false;
                let mut k = 0;
                while k < class.len() {
                    if k + 2 < class.len() && class[k + 1] == '-' {
                        hit |= class[k] <= c && c <= class[k + 2];
                        k += 3;
                    } else {
                        hit |= class[k] == c;
                        k += 1;
                    }
                }
                if hit == neg {
                    return false;
                }
                pi += 3 + end;
                si += 1;
                continue;
            }
            '\\' if pi + 1 < p.len() => {
                pi += 1;
                if s.get(si) != Some(&p[pi]) {
                    return false;
                }
            }
            c => {
                if s.get(si) != Some(&c) {
                    return false;
                }
            }
        }
        pi += 1;
        si += 1;
    }
    si == s.len()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn globs_match_as_the_shell_and_find_do() {
        for (p, s, slash, want) in [
            ("*.json", "settings.json", true, true),
            ("*.json", "a/settings.json", true, false),
            ("*.json", "a/settings.json", false, true),
            (".c*", ".claude", true, true),
            (".cl?ude", ".claude", true, true),
            (".[a-z]*", ".claude", true, true),
            (".[!c]*", ".claude", true, false),
            ("settings.jso[nm]", "settings.json", true, true),
            ("SETTINGS.JSON", "settings.json", true, true),
            ("./.claude/*", "./.claude/settings.json", false, true),
            ("*.pyc", "settings.json", true, false),
            ("a\\*", "a*", true, true),
            ("a\\*", "ab", true, false),
            ("[a-z]x", "bx", true, true),
            ("[a-z]x", "b", true, false),
        ] {
            assert_eq!(glob(p, s, slash), want, "{p} ~ {s} (slash {slash})");
        }
    }

    #[test]
    fn a_pattern_reaches_the_protected_paths_it_can_match() {
        let root = Path::new("/p");
        let ctx = Context::new(
            root,
            root,
            Some(Path::new("/h")),
            [PathBuf::from("/p/.claude/settings.json")],
        );
        let reach = |p: &str| reaches_protected(Path::new(p), &ctx).map(|(_, r)| r);
        assert_eq!(reach("/p/.c*"), Some(Reach::Holds));
        assert_eq!(reach("/p/.[a-z]*"), Some(Reach::Holds));
        assert_eq!(reach("/p/.claude/settings.*"), Some(Reach::Inside));
        assert_eq!(reach("/p/.claude/{x,settings}.json"), Some(Reach::Inside));
        assert_eq!(
            reach("/p/.claude/*/x"),
            Some(Reach::Inside),
            "settings.json may be a folder, as agents is"
        );
        assert_eq!(reach("/p/*"), None, "* does not match a leading dot");
        assert_eq!(reach("/p/src/*.rs"), None);
        assert_eq!(reach("/p/.claude/*.md"), None);
    }
}
