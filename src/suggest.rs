//! "Did you mean": the closest known name to a misspelt one.

/// Returns the known name closest to `word` when it is close enough to be a typo (an edit
/// distance of at most a third of the name's length, plus one).
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (edit_distance(word, k), k))
        .filter(|(d, k)| *d <= k.len().max(3) / 3 + 1)
        .min()
        .map(|(_, k)| k)
}

/// Returns the Levenshtein distance between two strings (in characters).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(
            closest("initial_scor", ["initial_score", "boost_rate"]),
            Some("initial_score")
        );
        assert_eq!(closest("zzz", ["initial_score", "boost_rate"]), None);
    }
}
