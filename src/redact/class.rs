//! The byte classes the token rules of `rules.yaml` are written with. Shared by the build
//! script (build/redact_rules.rs), which checks the rules and compiles them into static tables,
//! and by the scanner that runs them.

/// A set of ASCII bytes a run of a token is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `[0-9]`
    Digit,
    /// `[0-9a-fA-F]`
    Hex,
    /// `[0-9a-f]`
    HexLower,
    /// `[A-Za-z]`
    Alpha,
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[a-z0-9]`
    LowerAlnum,
    /// `[A-Z0-9]`
    UpperAlnum,
    /// `[A-Za-z0-9_]`
    Word,
    /// `[A-Za-z0-9_-]` (base64url without padding)
    B64url,
    /// `[A-Za-z0-9_=-]` (base64url with padding)
    B64urlPad,
    /// `[A-Za-z0-9+/=]` (base64)
    B64,
    /// `[A-Za-z0-9-]` (Slack tokens)
    AlnumDash,
    /// `[A-Za-z0-9_/-]` (paths of webhook URLs)
    Path,
    /// `[A-Za-z0-9_.~-]` (Azure AD client secrets)
    Azure,
    /// The upper-case bech32 alphabet of age keys: `[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]`.
    Bech32,
}

impl Class {
    /// Every class with the name rules use for it (read by the build script and tests).
    #[allow(dead_code)]
    pub const ALL: [(&'static str, Class); 15] = [
        ("digit", Class::Digit),
        ("hex", Class::Hex),
        ("hex_lower", Class::HexLower),
        ("alpha", Class::Alpha),
        ("alnum", Class::Alnum),
        ("lower_alnum", Class::LowerAlnum),
        ("upper_alnum", Class::UpperAlnum),
        ("word", Class::Word),
        ("b64url", Class::B64url),
        ("b64url_pad", Class::B64urlPad),
        ("b64", Class::B64),
        ("alnum_dash", Class::AlnumDash),
        ("path", Class::Path),
        ("azure", Class::Azure),
        ("bech32", Class::Bech32),
    ];

    /// Returns the class a rule names (the build script's).
    #[allow(dead_code)]
    pub fn named(name: &str) -> Option<Class> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }

    /// Returns whether a byte belongs to the class.
    #[inline]
    pub fn has(self, b: u8) -> bool {
        match self {
            Class::Digit => b.is_ascii_digit(),
            Class::Hex => b.is_ascii_hexdigit(),
            Class::HexLower => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Class::Alpha => b.is_ascii_alphabetic(),
            Class::Alnum => b.is_ascii_alphanumeric(),
            Class::LowerAlnum => b.is_ascii_lowercase() || b.is_ascii_digit(),
            Class::UpperAlnum => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Class::Word => b.is_ascii_alphanumeric() || b == b'_',
            Class::B64url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Class::B64urlPad => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='),
            Class::B64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
            Class::AlnumDash => b.is_ascii_alphanumeric() || b == b'-',
            Class::Path => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'/'),
            Class::Azure => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~'),
            Class::Bech32 => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".contains(&b),
        }
    }
}
