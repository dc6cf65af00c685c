//! Known token formats: the matcher that runs the token patterns of the rule table
//! (`rules.yaml`, compiled by build.rs) and the lookup that recognises a word as one of them.

use super::table::{
    Item, TOKEN_PREFIX2, TOKEN_RULES, TOKEN_RULES_BY_FIRST, TOKEN_RULES_BY_RUN, TokenRule,
};

/// Returns whether a byte can be part of a token-shaped word.
pub(super) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'=')
}

/// Returns whether a word looks machine-generated: long, with letters and digits.
pub(super) fn looks_random(w: &str) -> bool {
    w.len() >= 16
        && w.bytes().any(|b| b.is_ascii_digit())
        && w.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Returns whether a byte is an ASCII letter or digit.
pub(super) fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// How many bytes an open run (and the last run of a pattern) is counted to: a token is never
/// longer, and a long blob must not cost a count to its end at every position.
const RUN_LIMIT: usize = 1024;

/// Shannon entropy of a byte string, in bits per byte.
pub(super) fn entropy(b: &[u8]) -> f32 {
    if b.is_empty() {
        return 0.0;
    }
    let mut counts = [0u16; 256];
    for &c in b {
        counts[usize::from(c)] = counts[usize::from(c)].saturating_add(1);
    }
    let n = b.len() as f32;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f32::from(c) / n;
            -p * libm::log2f(p)
        })
        .sum()
}

impl TokenRule {
    /// Returns the length of this pattern's match at the start of `text`.
    fn match_len(&self, text: &[u8]) -> Option<usize> {
        let mut at = 0;
        let last = self.items.len() - 1;
        for (k, item) in self.items.iter().enumerate() {
            match *item {
                Item::Lit(l) => {
                    if !text[at..].starts_with(l) {
                        return None;
                    }
                    at += l.len();
                }
                Item::Run(class, min, max) => {
                    // A run of fixed length before a literal: the literal first, where it must
                    // be (one comparison rules out most texts).
                    if min == max
                        && let Some(Item::Lit(l)) = self.items.get(k + 1)
                        && !text
                            .get(at + usize::from(max)..)
                            .is_some_and(|rest| rest.starts_with(l))
                    {
                        return None;
                    }
                    let limit = if k == last {
                        RUN_LIMIT.max(usize::from(max))
                    } else {
                        usize::from(max)
                    };
                    let run = text[at..]
                        .iter()
                        .take(limit)
                        .take_while(|&&b| class.has(b))
                        .count();
                    if run < usize::from(min) {
                        return None;
                    }
                    at += run;
                }
            }
        }
        let matched = &text[..at];
        if self.needs_digit && !matched.iter().any(u8::is_ascii_digit) {
            return None;
        }
        if self.min_entropy > 0.0 && entropy(matched) < self.min_entropy {
            return None;
        }
        Some(at)
    }
}

/// Whether a pattern starting with a literal starts with these two bytes.
fn prefix2(b0: u8, b1: u8) -> bool {
    let bit = usize::from(b0) * 256 + usize::from(b1);
    TOKEN_PREFIX2[bit / 64] & (1 << (bit % 64)) != 0
}

/// Returns the length of the token of a known format that `text` starts with, and its rule.
pub(super) fn token_at(text: &str) -> Option<(usize, &'static str)> {
    let b = text.as_bytes();
    let (&first, &second) = (b.first()?, b.get(1)?);
    let literal: &[u16] = if prefix2(first, second) {
        TOKEN_RULES_BY_FIRST[usize::from(first)]
    } else {
        &[]
    };
    let runs = TOKEN_RULES_BY_RUN
        .iter()
        .filter(|(class, _)| class.has(first))
        .flat_map(|(_, list)| list.iter());
    literal
        .iter()
        .chain(runs)
        .map(|&i| &TOKEN_RULES[usize::from(i)])
        .find_map(|r| r.match_len(b).map(|n| (n, r.id)))
}

/// Returns whether the text from byte `at` of a word starts like a token of a pattern that
/// starts with a literal (a cheap pre-check: it runs at every position of a short word, one
/// look-up of its first two bytes). Patterns that start with a run are tried where a word
/// starts, and after `=` and `/`.
pub(super) fn starts_token_format_at(word: &str, at: usize) -> bool {
    let b = word.as_bytes();
    matches!((b.get(at), b.get(at + 1)), (Some(&c), Some(&next)) if prefix2(c, next))
}

/// Returns whether a text starts like a token of a known format (where a word starts).
#[cfg(test)]
pub(super) fn starts_token_format(w: &str) -> bool {
    let b = w.as_bytes();
    starts_token_format_at(w, 0)
        || b.first()
            .is_some_and(|&c| TOKEN_RULES_BY_RUN.iter().any(|(class, _)| class.has(c)))
}

/// Returns whether a word is a token of a known format (the whole word, less a trailing `.`).
pub fn is_known_token(w: &str) -> bool {
    let w = w.trim_end_matches('.');
    token_at(w).is_some_and(|(n, _)| n >= w.trim_end_matches('=').len())
}

/// Returns the id of the rule a word matches at its start, if any (for tests and `oath`'s own
/// diagnostics).
pub fn rule_of(w: &str) -> Option<&'static str> {
    token_at(w).map(|(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::super::table::Class;
    use super::*;

    /// A text the pattern matches: each literal, and each run filled with bytes of its class
    /// (its least count, at least 40 for an open last run), mixing letters and digits.
    pub(in super::super) fn example(rule: &TokenRule) -> String {
        let mut out = String::new();
        let last = rule.items.len() - 1;
        for (k, item) in rule.items.iter().enumerate() {
            match *item {
                Item::Lit(l) => out.push_str(std::str::from_utf8(l).unwrap()),
                Item::Run(class, min, _) => {
                    let n = if k == last {
                        usize::from(min).max(24)
                    } else {
                        usize::from(min)
                    };
                    let pool: Vec<u8> = (0..=255u8).filter(|&b| class.has(b)).collect();
                    // Digits first in the pool order would give `0123…`; stride through it.
                    let mut seed = 7usize + k;
                    for _ in 0..n {
                        seed = (seed * 31 + 17) % 9973;
                        out.push(char::from(pool[seed % pool.len()]));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_pattern_matches_its_example_and_is_found_by_its_first_byte() {
        for rule in TOKEN_RULES {
            let ex = example(rule);
            assert!(starts_token_format(&ex), "{}: {ex}", rule.pattern);
            assert!(
                token_at(&ex).is_some(),
                "{} ({}) does not match {ex}",
                rule.id,
                rule.pattern
            );
        }
    }

    #[test]
    fn a_pattern_cut_short_does_not_match() {
        for rule in TOKEN_RULES {
            let ex = example(rule);
            // Every match is at least 12 bytes (build.rs checks it): 10 are never a token.
            assert!(token_at(&ex[..10]).is_none(), "{}: {}", rule.id, &ex[..10]);
            // The least count of the last run, less one, is not enough either.
            if let Some(Item::Run(_, min, _)) = rule.items.last()
                && *min > 1
            {
                let least = example(rule).len() - 24.max(usize::from(*min)) + usize::from(*min);
                let short = &ex[..least - 1];
                assert!(
                    rule.match_len(short.as_bytes()).is_none(),
                    "{}: {short}",
                    rule.pattern
                );
            }
        }
    }

    #[test]
    fn ordinary_words_are_not_tokens() {
        for word in [
            "",
            "/tmp/proj/t.jsonl",
            "echo",
            "target/debug",
            "ghx_",
            "s",
            "3f786850e387550fdab836ed7e6dc881de23001b",
            "123e4567-e89b-12d3-a456-426614174000",
            "sk-learn-extension-package",
            "secret_key_base_for_development",
            "AKIAtoolong",
            "pattern_matching_library",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha512-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6",
            "1234567890:not-a-telegram-token",
            "MyApplicationServiceNameFactory.build.extra",
        ] {
            assert!(!is_known_token(word), "{word}: {:?}", rule_of(word));
        }
    }

    #[test]
    fn entropy_counts_bits_per_byte() {
        assert!(entropy(b"aaaaaaaa") < 0.01);
        assert!((entropy(b"abcdabcd") - 2.0).abs() < 0.01);
        assert_eq!(entropy(b""), 0.0);
    }

    #[test]
    fn every_class_has_a_byte() {
        for (name, class) in Class::ALL {
            assert!((0..=255u8).any(|b| class.has(b)), "{name}");
        }
    }
}
