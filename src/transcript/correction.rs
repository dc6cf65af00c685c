//! Scoring a human prompt as a correction of the agent: leading negations, instruction
//! reminders and revert requests, contrasts and prohibitions, in English and Japanese.

/// Scores a human prompt as a correction of the agent's last action (3 or more is one).
///
/// `after_refusal`: the prompt follows a rejection, denial or interrupt.
pub fn correction_score(text: &str, after_refusal: bool) -> u32 {
    let lower = text.trim().to_lowercase();
    let head: String = lower.chars().take(40).collect();
    let mut score = 0;
    const LEADING_EN: &[&str] = &[
        "no,",
        "no.",
        "no!",
        "no ",
        "nope",
        "nah",
        "wrong",
        "stop",
        "don't",
        "do not",
        "not that",
        "that's not",
        "that is not",
        "this is not",
        "this isn't",
        "that isn't",
        "undo",
        "revert",
        "wait,",
        "hold on",
    ];
    const LEADING_JA: &[&str] = &[
        "いや",
        "いいえ",
        "違う",
        "違い",
        "ちがう",
        "そうじゃな",
        "そうではな",
        "ダメ",
        "だめ",
        "やめて",
        "待って",
        "まって",
        "ストップ",
        "ではなく",
        "じゃなくて",
    ];
    let leading = LEADING_EN.iter().any(|p| {
        lower.starts_with(p)
            && (p.ends_with([' ', ',', '.', '!']) || {
                let rest = &lower[p.len()..];
                rest.is_empty() || !rest.starts_with(|c: char| c.is_alphanumeric())
            })
    }) || LEADING_JA.iter().any(|p| head.starts_with(p));
    // Friendly openers that start with a negation but correct nothing.
    const NOT_NEGATIONS: &[&str] = &[
        "no problem",
        "no worries",
        "no need",
        "no rush",
        "no thanks",
        "no, thanks",
        "no, that's fine",
        "no, that's great",
        "no, looks good",
        "いやー",
        "いやいや、完璧",
    ];
    if leading && !NOT_NEGATIONS.iter().any(|p| lower.starts_with(p)) {
        score += 3;
    }
    const STRONG: &[&str] = &[
        "i said",
        "i told you",
        "i asked you",
        "as i said",
        "i meant",
        "you were supposed to",
        "you should have",
        "why did you",
        "why are you",
        "why would you",
        "undo ",
        "revert ",
        "roll back",
        "rollback",
        "put it back",
        "change it back",
        "not what i",
        "って言った",
        "と言った",
        "と言いました",
        "って言いました",
        "言ったよね",
        "指示した",
        "元に戻",
        "戻して",
        "取り消して",
        "なんで",
        "なぜそう",
        "頼んでない",
        "頼んでいない",
    ];
    if STRONG.iter().any(|p| lower.contains(p)) {
        score += 3;
    }
    const CONTRAST: &[&str] = &[
        "instead",
        "rather than",
        "don't",
        "do not",
        "shouldn't",
        "should not",
        "stop ",
        "ではなく",
        "じゃなくて",
        "じゃなく",
        "でなく",
        "しないで",
        "ないでください",
        "不要です",
        "いらない",
    ];
    if CONTRAST.iter().any(|p| lower.contains(p)) {
        score += 2;
    }
    if after_refusal {
        score += 2;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_correction(text: &str) -> bool {
        correction_score(text, false) >= 3
    }

    #[test]
    fn corrections_in_english_and_japanese() {
        for t in [
            "No, don't add a dependency.",
            "No. Use to_lowercase instead.",
            "Why did you delete the README?",
            "I said not to touch main.rs",
            "Please revert that change and keep the old parser",
            "That's not what I asked for",
            "いや、そうじゃなくて小文字にしてください",
            "違います。依存関係は追加しないでください",
            "元に戻してください",
            "さっき言ったよね、テストは消さないで",
            "ではなく、to_lowercase を使ってください。新しい依存は不要です",
        ] {
            assert!(is_correction(t), "{t}");
        }
    }

    #[test]
    fn requests_are_not_corrections() {
        for t in [
            "Please also add a README.",
            "Great, now add tests for the parser.",
            "テストが失敗しています。修正してください。",
            "ありがとう。次はREADMEを書いてください",
            "Can you fix the build?",
            "Nothing else, thanks",
            "Notes: the API lives in src/api.rs",
            "Stopwatch feature next",
            "No problem, now add the README",
            "No worries. Next, the CLI flags please",
        ] {
            assert!(!is_correction(t), "{t}");
        }
        // A prompt after a rejection needs some redirecting words too.
        assert!(correction_score("Use the existing crate instead", true) >= 3);
        assert!(correction_score("ok", true) < 3);
    }
}
