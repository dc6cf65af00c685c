//! The globs of the configuration (`rules`, the `tool` of `postToolUse` commands): globset's
//! syntax, checked when the file is read and compiled only when a call is first held against
//! them.
//!
//! Syntax and meaning are globset's defaults: `?` one character, `*` any run of characters
//! (`/` included), `**` across folders, `[ab]`, `[!ab]`, `{a,b}` and `\` escapes. A pattern is
//! read by `globset::Glob::new` (microseconds: no regex is built), which is all a check needs.
//! The first match compiles the regex globset made of it, as `globset::GlobMatcher` would, but
//! with no lazy DFA (whose cache costs ~10 times the compile of the rest) and a pool of one
//! cache, so no `std::thread::available_parallelism` (cgroup and `/proc` reads) on a hook.
//! The regex and its syntax settings are globset's, so what matches is the same. A pattern
//! of only `*` matches anything, and one without glob characters is compared as it is, with
//! no regex at all.

use std::sync::OnceLock;

use regex_automata::meta::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A glob as written in the configuration, compiled the first time it is matched.
#[derive(Clone, Default)]
pub struct Glob {
    text: String,
    /// `None` inside: the pattern cannot be compiled, and never matches.
    compiled: OnceLock<Option<Matcher>>,
}

/// A compiled glob.
#[derive(Clone, Debug)]
enum Matcher {
    /// Only `*`: anything.
    Any,
    /// No glob characters: the text itself.
    Exact,
    /// globset's regex of the pattern.
    Regex(Regex),
}

/// The characters that make a pattern more than its text (globset's, with `]` to be safe).
const GLOB_CHARS: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

impl Glob {
    /// A glob of `text` (checked with [`Glob::check`], compiled when first matched).
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            compiled: OnceLock::new(),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Returns why the pattern cannot be used, if it cannot (globset's parser's reason).
    pub fn check(&self) -> Result<(), String> {
        match self.shape() {
            Some(_) => Ok(()),
            None => globset::Glob::new(&self.text)
                .map(drop)
                .map_err(|e| e.kind().to_string()),
        }
    }

    /// Returns whether `value` matches (a pattern that cannot be used matches nothing). The
    /// first call compiles the pattern.
    pub fn is_match(&self, value: &str) -> bool {
        match self.compiled.get_or_init(|| self.compile()) {
            Some(Matcher::Any) => true,
            Some(Matcher::Exact) => self.text == value,
            Some(Matcher::Regex(re)) => re.is_match(value.as_bytes()),
            None => false,
        }
    }

    /// Returns whether the pattern has been compiled (it is once matched).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// The matcher a pattern needs when it needs no regex.
    fn shape(&self) -> Option<Matcher> {
        if !self.text.is_empty() && self.text.chars().all(|c| c == '*') {
            Some(Matcher::Any)
        } else if !self.text.contains(GLOB_CHARS) {
            Some(Matcher::Exact)
        } else {
            None
        }
    }

    fn compile(&self) -> Option<Matcher> {
        if let Some(m) = self.shape() {
            return Some(m);
        }
        let glob = globset::Glob::new(&self.text).ok()?;
        // globset's own settings (globset `new_regex`), less the lazy DFA, with one cache.
        let syntax = regex_automata::util::syntax::Config::new()
            .utf8(false)
            .dot_matches_new_line(true);
        let config = Regex::config()
            .utf8_empty(false)
            .nfa_size_limit(Some(10 * (1 << 20)))
            .hybrid(false)
            .dfa(false)
            .pool_capacity(1);
        Regex::builder()
            .syntax(syntax)
            .configure(config)
            .build(glob.regex())
            .ok()
            .map(Matcher::Regex)
    }
}

impl std::fmt::Debug for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.text.fmt(f)
    }
}

/// Two globs are equal when they are written the same (compiled or not).
impl PartialEq for Glob {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Glob {}

impl From<&str> for Glob {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl Serialize for Glob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Glob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What globset's own matcher says, for comparison.
    fn globset(pattern: &str, value: &str) -> bool {
        globset::Glob::new(pattern)
            .unwrap()
            .compile_matcher()
            .is_match(value)
    }

    #[test]
    fn matches_as_globset_does() {
        let values = [
            "",
            "Bash",
            "bash",
            "WebSearch",
            "mcp__github__create_issue",
            "terraform destroy -target=module.a/b",
            "terraform destroy",
            "terraform plan",
            "/etc/passwd",
            "/etc",
            "/p/app/.env",
            ".env",
            "/p/db/migrations/001.sql",
            "migrations/001.sql",
            "a/b\nc",
            "Write",
            "x]y",
            "a*",
        ];
        let patterns = [
            "*",
            "**",
            "***",
            "Bash",
            "Bas?",
            "*Search*",
            "mcp__github__*",
            "terraform destroy*",
            "/etc/**",
            "**/.env",
            "**/migrations/**",
            "{Edit,Write}",
            "[!a]*",
            "[a-c]*",
            "a\\*",
            "x]y",
            "a*c",
            "*/b*",
        ];
        for p in patterns {
            let g = Glob::new(p);
            assert_eq!(g.check(), Ok(()), "{p}");
            for v in values {
                assert_eq!(g.is_match(v), globset(p, v), "{p:?} against {v:?}");
            }
        }
    }

    #[test]
    fn a_bad_pattern_is_named_and_never_matches() {
        for p in ["[bad", "{a", "a\\"] {
            let g = Glob::new(p);
            assert!(g.check().is_err(), "{p}");
            assert!(!g.is_match(p) && !g.is_match(""), "{p}");
        }
        assert_eq!(
            Glob::new("[abc").check(),
            Err("unclosed character class; missing ']'".to_owned())
        );
        // Empty: the empty text only (the callers refuse it where it makes no sense).
        assert!(Glob::new("").is_match(""));
        assert!(!Glob::new("").is_match("x"));
    }

    #[test]
    fn a_glob_is_compiled_when_first_matched() {
        let g = Glob::new("terraform destroy*");
        assert_eq!(g.check(), Ok(()));
        assert!(!g.is_compiled(), "checking compiles nothing");
        assert!(!g.is_match("ls -la"));
        assert!(g.is_compiled());
        assert!(g.is_match("terraform destroy -auto-approve"));
    }

    #[test]
    fn reads_and_writes_as_its_text() {
        let g: Glob = serde_json::from_str("\"**/.env\"").unwrap();
        assert_eq!(g.as_str(), "**/.env");
        assert_eq!(serde_json::to_string(&g).unwrap(), "\"**/.env\"");
        assert_eq!(g, Glob::from("**/.env"));
    }
}
