//! The compiled rule table: `rules.yaml`, checked and turned into these statics by build.rs
//! (build/redact_rules.rs), so a hook reads no file and compiles no pattern.

pub(super) use super::class::Class;

/// One token pattern of a rule.
pub(super) struct TokenRule {
    /// The rule's id in `rules.yaml`.
    pub id: &'static str,
    /// The pattern as written there (for tests and messages).
    #[allow(dead_code)]
    pub pattern: &'static str,
    /// The pattern, parsed.
    pub items: &'static [Item],
    /// Least Shannon entropy (bits per byte) of a match; 0 for none.
    pub min_entropy: f32,
    /// Whether a match must hold a digit.
    pub needs_digit: bool,
}

/// A part of a token pattern.
pub(super) enum Item {
    /// These bytes.
    Lit(&'static [u8]),
    /// A run of bytes of a class: least and most count (the last run of a pattern may be
    /// longer than its most).
    Run(Class, u16, u16),
}

/// A password given on a command line by option.
pub(super) struct OptionRule {
    /// The rule's id in `rules.yaml` (for tests and messages).
    #[allow(dead_code)]
    pub id: &'static str,
    /// The commands it applies to (indexed by `OPTION_COMMANDS`).
    #[allow(dead_code)]
    pub commands: &'static [&'static str],
    /// The option (`-p`).
    pub option: &'static str,
    /// Where the password is.
    pub value: OptionValue,
    /// A word that must come between the command and the option (`login`).
    pub after: Option<&'static str>,
    /// What the value must start with; masked after it (`pass:`).
    pub prefix: Option<&'static str>,
}

/// Where an option's password is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum OptionValue {
    /// Glued to the option: `-pSECRET`.
    Glued,
    /// The next word: `-a SECRET`.
    Spaced,
    /// Either.
    Both,
    /// The command's last word, when a short-option cluster holds the option's letter.
    Last,
    /// After the first `:` or `%` of the next word: `-U user%SECRET`.
    UserPass,
}

include!(concat!(env!("OUT_DIR"), "/redact_rules.rs"));
