//! "Did you mean": the closest known name to a misspelt one (edit distance from `strsim`).

/// Returns the known name closest to `word` when it is close enough to be a typo (a
/// Levenshtein distance, in characters, of at most a third of the name's length, plus one).
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::levenshtein(word, k), k))
        .filter(|(d, k)| *d <= k.len().max(3) / 3 + 1)
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names_only() {
        let known = ["initial_score", "boost_rate", "on_error", "id"];
        let cases = [
            ("initial_scor", Some("initial_score")),
            ("inital_score", Some("initial_score")),
            ("boost_rat", Some("boost_rate")),
            ("on-error", Some("on_error")),
            ("ix", Some("id")),
            ("zzz", None),
            ("completely_different", None),
        ];
        for (word, want) in cases {
            assert_eq!(closest(word, known), want, "{word}");
        }
        // Characters, not bytes: one accented letter is one edit.
        assert_eq!(closest("boöst_rate", known), Some("boost_rate"));
        // The nearest wins; ties go to the first in order of the name.
        assert_eq!(closest("ab", ["ac", "ab"]), Some("ab"));
        assert_eq!(closest("ax", ["ac", "ab"]), Some("ab"));
    }
}
