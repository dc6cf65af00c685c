//! The table of known token formats (cloud keys, GitHub, GitLab, Slack, AI providers,
//! registries, JWTs, webhooks) and the lookup that recognises a word as one of them.

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

fn count_while(s: &str, f: impl Fn(u8) -> bool) -> usize {
    s.bytes().take_while(|c| f(*c)).count()
}

/// Returns whether a byte is an ASCII letter or digit.
pub(super) fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

fn upper_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// A token format with a fixed prefix: (prefix, characters allowed after it, least count).
type Prefixed = (&'static str, fn(u8) -> bool, usize);

/// Token formats with a fixed prefix.
const PREFIXED: &[Prefixed] = &[
    // AWS access key ids.
    ("AKIA", upper_digit, 16),
    ("ASIA", upper_digit, 16),
    ("AGPA", upper_digit, 16),
    ("AIDA", upper_digit, 16),
    ("AROA", upper_digit, 16),
    ("ANPA", upper_digit, 16),
    ("ANVA", upper_digit, 16),
    ("AIPA", upper_digit, 16),
    // GitHub.
    ("ghp_", alnum, 30),
    ("gho_", alnum, 30),
    ("ghu_", alnum, 30),
    ("ghs_", alnum, 30),
    ("ghr_", alnum, 30),
    ("github_pat_", alnum_dash, 20),
    // GitLab.
    ("glpat-", alnum_dash, 20),
    ("gldt-", alnum_dash, 20),
    ("glrt-", alnum_dash, 20),
    ("glptt-", alnum_dash, 20),
    ("glcbt-", alnum_dash, 20),
    ("glft-", alnum_dash, 20),
    ("glsoat-", alnum_dash, 20),
    ("gloas-", alnum_dash, 20),
    // Slack.
    ("xoxb-", alnum_dash, 10),
    ("xoxa-", alnum_dash, 10),
    ("xoxp-", alnum_dash, 10),
    ("xoxr-", alnum_dash, 10),
    ("xoxs-", alnum_dash, 10),
    ("xoxo-", alnum_dash, 10),
    ("xoxe-", alnum_dash, 10),
    ("xoxe.", alnum_dash, 10),
    ("xapp-", alnum_dash, 10),
    // Anthropic, OpenAI, Stripe.
    ("sk-ant-", alnum_dash, 16),
    ("sk-proj-", alnum_dash, 16),
    ("sk-svcacct-", alnum_dash, 16),
    ("sk-admin-", alnum_dash, 16),
    ("sk-live-", alnum_dash, 16),
    ("sk_live_", alnum_dash, 16),
    ("sk_test_", alnum_dash, 16),
    ("rk_live_", alnum_dash, 16),
    ("rk_test_", alnum_dash, 16),
    ("whsec_", alnum_dash, 16),
    // Google.
    ("AIza", alnum_dash, 30),
    ("ya29.", alnum_dash, 20),
    ("GOCSPX-", alnum_dash, 20),
    // Registries and other services.
    ("npm_", alnum, 30),
    ("pypi-AgE", alnum_dash, 50),
    ("hf_", alnum, 30),
    ("dckr_pat_", alnum_dash, 20),
    ("shpat_", hex, 32),
    ("shpss_", hex, 32),
    ("shpca_", hex, 32),
    ("shppa_", hex, 32),
    ("dop_v1_", hex, 64),
    ("doo_v1_", hex, 64),
    ("dapi", hex, 32),
    ("hvs.", alnum_dash, 24),
    ("glc_", alnum_dash, 30),
    ("key-", hex, 32),
    ("SK", hex, 32),
    ("AGE-SECRET-KEY-1", upper_digit, 50),
];

/// Every prefix a token format starts with: those of [`PREFIXED`] (same indices), then the
/// formats checked apart in [`is_known_token`].
const STARTS: [&str; PREFIXED.len() + 3] = {
    let mut out = [""; PREFIXED.len() + 3];
    let mut i = 0;
    while i < PREFIXED.len() {
        out[i] = PREFIXED[i].0;
        i += 1;
    }
    out[i] = "sk-";
    out[i + 1] = "SG.";
    out[i + 2] = "eyJ";
    out
};

/// For each byte, the prefixes of [`STARTS`] beginning with it (bit `i` stands for
/// `STARTS[i]`): a word is compared only with the few prefixes its first byte allows.
const STARTS_BY_FIRST: [u128; 256] = {
    assert!(STARTS.len() <= 128);
    let mut table = [0u128; 256];
    let mut i = 0;
    while i < STARTS.len() {
        table[STARTS[i].as_bytes()[0] as usize] |= 1 << i;
        i += 1;
    }
    table
};

/// Returns the indices in [`STARTS`] of the prefixes `w` starts with.
fn starts_of(w: &str) -> impl Iterator<Item = usize> + '_ {
    let mut mask = w
        .as_bytes()
        .first()
        .map_or(0, |&b| STARTS_BY_FIRST[usize::from(b)]);
    std::iter::from_fn(move || {
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if w.starts_with(STARTS[i]) {
                return Some(i);
            }
        }
        None
    })
}

/// Returns whether a text starts like a token of a known format (a cheap pre-check: it runs
/// at every position of a long word).
pub(super) fn starts_token_format(w: &str) -> bool {
    starts_of(w).next().is_some()
}

/// Returns whether a word is a token of a known format.
pub fn is_known_token(w: &str) -> bool {
    let w = w.trim_end_matches(['.', '=']);
    if w.len() < 12 {
        return false;
    }
    for i in starts_of(w) {
        if let Some((prefix, allowed, least)) = PREFIXED.get(i)
            && count_while(&w[prefix.len()..], allowed) >= *least
        {
            return true;
        }
    }
    // OpenAI's older keys: `sk-` and 20+ random characters.
    if let Some(rest) = w.strip_prefix("sk-") {
        let n = count_while(rest, alnum_dash);
        if n >= 20 && looks_random(&rest[..n]) {
            return true;
        }
    }
    // SendGrid: SG.<22>.<43>
    if let Some(rest) = w.strip_prefix("SG.")
        && rest.len() >= 60
        && rest.contains('.')
    {
        return true;
    }
    // JWT (three parts) and JWE (five parts), base64url each.
    if w.starts_with("eyJ") {
        let parts: Vec<&str> = w.split('.').collect();
        if (parts.len() == 3 || parts.len() == 5)
            && parts[1].len() >= 8
            && parts
                .iter()
                .all(|p| p.bytes().all(|b| alnum(b) || b == b'_' || b == b'-'))
        {
            return true;
        }
    }
    // Every webhook host below holds `hook`: one search rules out almost every path and URL.
    w.contains('/')
        && w.contains("hook")
        && [
            "hooks.slack.com/services/",
            "hooks.slack.com/workflows/",
            "discord.com/api/webhooks/",
            "discordapp.com/api/webhooks/",
            "webhook.office.com/webhookb2/",
        ]
        .iter()
        .any(|h| w.find(h).is_some_and(|at| w.len() >= at + h.len() + 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_prefix_is_found_by_its_first_byte() {
        for (i, p) in STARTS.iter().enumerate() {
            let word = format!("{p}0123456789");
            assert!(starts_of(&word).any(|k| k == i), "{p}");
        }
        for word in ["", "/tmp/proj/t.jsonl", "echo", "target/debug", "ghx_", "s"] {
            assert!(!starts_token_format(word), "{word}");
        }
    }

    #[test]
    fn every_token_format_starts_with_a_listed_letter() {
        for (p, _, _) in PREFIXED {
            assert!(starts_token_format(&format!("{p}x")), "{p}");
        }
        for p in ["sk-", "SG.", "eyJ"] {
            assert!(starts_token_format(p), "{p}");
        }
    }
}
