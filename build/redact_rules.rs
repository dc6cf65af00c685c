//! Compiles the redaction rules (`src/redact/rules.yaml`) into static tables: the file is read,
//! every pattern parsed and checked (known classes, sane bounds, a literal after an open run
//! not starting with a byte of that run), and the result written as Rust code to
//! `$OUT_DIR/redact_rules.rs`. A malformed rule fails the build with its id and problem, so no
//! hook ever parses the table.

use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::class::Class;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tokens: Vec<TokenRule>,
    options: Vec<OptionRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenRule {
    id: String,
    description: String,
    source: String,
    patterns: Vec<String>,
    #[serde(default)]
    min_entropy: f32,
    #[serde(default)]
    needs_digit: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionRule {
    id: String,
    description: String,
    source: String,
    commands: Vec<String>,
    option: String,
    value: String,
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    prefix: Option<String>,
}

/// One item of a parsed pattern.
enum Item {
    Lit(String),
    Run(Class, u16, u16),
}

/// Longest run a pattern may bound (an open run is counted up to this).
const OPEN: u16 = 1024;

/// Parses `lit{class:N}lit{class:N-M}{class:N-}`.
fn parse(pattern: &str) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut lit = String::new();
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let close = rest
                .find('}')
                .ok_or_else(|| format!("`{pattern}`: unclosed `{{`"))?;
            let spec = &rest[1..close];
            rest = &rest[close + 1..];
            let (name, bounds) = spec
                .split_once(':')
                .ok_or_else(|| format!("`{pattern}`: `{{{spec}}}` needs `class:N`"))?;
            let class =
                Class::named(name).ok_or_else(|| format!("`{pattern}`: unknown class `{name}`"))?;
            let num = |s: &str| {
                s.parse::<u16>()
                    .map_err(|_| format!("`{pattern}`: bad bound `{s}` in `{{{spec}}}`"))
            };
            let (min, max) = match bounds.split_once('-') {
                Some((lo, "")) => (num(lo)?, OPEN),
                Some((lo, hi)) => (num(lo)?, num(hi)?),
                None => (num(bounds)?, num(bounds)?),
            };
            if min > max || max > OPEN {
                return Err(format!(
                    "`{pattern}`: bounds of `{{{spec}}}` out of order or over {OPEN}"
                ));
            }
            if !lit.is_empty() {
                items.push(Item::Lit(std::mem::take(&mut lit)));
            }
            items.push(Item::Run(class, min, max));
        } else {
            if !c.is_ascii_graphic() || c == '}' {
                return Err(format!("`{pattern}`: `{c}` cannot be in a literal"));
            }
            lit.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !lit.is_empty() {
        items.push(Item::Lit(lit));
    }
    Ok(items)
}

/// The problems of a parsed pattern.
fn check(pattern: &str, items: &[Item]) -> Vec<String> {
    let mut out = Vec::new();
    let least: usize = items
        .iter()
        .map(|i| match i {
            Item::Lit(l) => l.len(),
            Item::Run(_, min, _) => usize::from(*min),
        })
        .sum();
    if least < 12 {
        out.push(format!(
            "`{pattern}` matches texts of {least} bytes: too short to tell a secret from a word"
        ));
    }
    // A pattern is tried at every word start its first byte allows: a leading run is bounded
    // so that trying it costs little.
    match items.first() {
        Some(Item::Lit(_)) => {}
        Some(Item::Run(_, _, max)) if *max <= 64 => {}
        _ => out.push(format!(
            "`{pattern}` must start with a literal or a run of at most 64 bytes"
        )),
    }
    if !matches!(items.last(), Some(Item::Run(..))) {
        out.push(format!("`{pattern}` must end with a run"));
    }
    for pair in items.windows(2) {
        if let [Item::Run(class, min, max), Item::Lit(l)] = pair
            && min != max
            && class.has(l.as_bytes()[0])
        {
            out.push(format!(
                "`{pattern}`: `{l}` follows a run of open length that can hold its first byte (runs never backtrack)"
            ));
        }
        if let [Item::Run(_, min, max), Item::Run(..)] = pair
            && min != max
        {
            out.push(format!(
                "`{pattern}`: a run of open length followed by another run (runs never backtrack)"
            ));
        }
    }
    out
}

fn bytes_lit(s: &str) -> String {
    format!("b{s:?}")
}

/// Reads, checks and compiles the rules of `file` into `out/redact_rules.rs`.
pub fn compile(file: &Path, out: &Path) -> Result<(), String> {
    println!("cargo:rerun-if-changed={}", file.display());
    println!("cargo:rerun-if-changed=src/redact/class.rs");
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let rules: File =
        serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut errors = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut code = String::from(
        "// Generated by build.rs from src/redact/rules.yaml: do not edit.\n\n/// Every token pattern, in the file's order (a rule with several patterns has several entries).\npub(super) static TOKEN_RULES: &[TokenRule] = &[\n",
    );
    let mut by_first: Vec<Vec<usize>> = vec![Vec::new(); 256];
    let mut prefix2 = vec![false; 256 * 256];
    let mut run_leading: Vec<(Class, Vec<usize>)> = Vec::new();
    let mut n = 0;
    for r in &rules.tokens {
        if ids.contains(&r.id.as_str()) {
            errors.push(format!("rule `{}` is defined twice", r.id));
        }
        ids.push(&r.id);
        if r.description.trim().is_empty() || r.source.trim().is_empty() || r.patterns.is_empty() {
            errors.push(format!(
                "rule `{}` needs a description, a source and patterns",
                r.id
            ));
        }
        for p in &r.patterns {
            let items = match parse(p) {
                Ok(items) => items,
                Err(e) => {
                    errors.push(format!("rule `{}`: {e}", r.id));
                    continue;
                }
            };
            for problem in check(p, &items) {
                errors.push(format!("rule `{}`: {problem}", r.id));
            }
            match (items.first(), items.get(1)) {
                (Some(Item::Lit(l)), next) => {
                    let l = l.as_bytes();
                    by_first[usize::from(l[0])].push(n);
                    // The first two bytes, for the pre-check of every position.
                    match (l.get(1), next) {
                        (Some(&b1), _) => prefix2[usize::from(l[0]) * 256 + usize::from(b1)] = true,
                        (None, Some(Item::Run(class, ..))) => {
                            for b1 in (0..=255u8).filter(|&b| class.has(b)) {
                                prefix2[usize::from(l[0]) * 256 + usize::from(b1)] = true;
                            }
                        }
                        _ => errors.push(format!("rule `{}`: `{p}` starts with a lone byte", r.id)),
                    }
                }
                (Some(Item::Run(class, ..)), _) => {
                    match run_leading.iter_mut().find(|(c, _)| c == class) {
                        Some((_, list)) => list.push(n),
                        None => run_leading.push((*class, vec![n])),
                    }
                }
                (None, _) => {}
            }
            let list: Vec<String> = items
                .iter()
                .map(|i| match i {
                    Item::Lit(l) => format!("Item::Lit({})", bytes_lit(l)),
                    Item::Run(c, min, max) => format!("Item::Run(Class::{c:?}, {min}, {max})"),
                })
                .collect();
            let _ = writeln!(
                code,
                "    TokenRule {{ id: {:?}, pattern: {p:?}, items: &[{}], min_entropy: {:?}_f32, needs_digit: {} }},",
                r.id,
                list.join(", "),
                r.min_entropy,
                r.needs_digit
            );
            n += 1;
        }
    }
    code.push_str("];\n\n");
    if n > usize::from(u16::MAX) {
        errors.push("too many token patterns".into());
    }
    code.push_str("/// For each byte, the token patterns starting with a literal that starts with it.\npub(super) static TOKEN_RULES_BY_FIRST: [&[u16]; 256] = [\n");
    for list in &by_first {
        let items: Vec<String> = list.iter().map(ToString::to_string).collect();
        let _ = writeln!(code, "    &[{}],", items.join(", "));
    }
    code.push_str("];\n\n");
    code.push_str("/// The first two bytes of the patterns starting with a literal, as a bit set (bit\n/// `256 * b0 + b1`): one look-up rules out almost every position of a text.\npub(super) static TOKEN_PREFIX2: [u64; 1024] = [\n");
    for chunk in prefix2.chunks(64) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &set)| w | (u64::from(set) << i));
        let _ = writeln!(code, "    {word:#x},");
    }
    code.push_str("];\n\n");
    code.push_str("/// The patterns starting with a run, by the class of that run.\npub(super) static TOKEN_RULES_BY_RUN: &[(Class, &[u16])] = &[\n");
    for (class, list) in &run_leading {
        let items: Vec<String> = list.iter().map(ToString::to_string).collect();
        let _ = writeln!(code, "    (Class::{class:?}, &[{}]),", items.join(", "));
    }
    code.push_str("];\n\n");
    code.push_str("/// Passwords given on a command line by option, per command.\npub(super) static OPTION_RULES: &[OptionRule] = &[\n");
    for o in &rules.options {
        if ids.contains(&o.id.as_str()) {
            errors.push(format!("rule `{}` is defined twice", o.id));
        }
        ids.push(&o.id);
        let value = match o.value.as_str() {
            "glued" => "Glued",
            "spaced" => "Spaced",
            "both" => "Both",
            "last" => "Last",
            "userpass" => "UserPass",
            other => {
                errors.push(format!("option rule `{}`: unknown value `{other}`", o.id));
                "Spaced"
            }
        };
        if !o.option.starts_with('-') || o.option.len() < 2 || o.commands.is_empty() {
            errors.push(format!(
                "option rule `{}` needs an option starting with `-` and commands",
                o.id
            ));
        }
        if value == "Last" && o.option.len() != 2 {
            errors.push(format!(
                "option rule `{}`: `last` takes a one-letter option",
                o.id
            ));
        }
        if o.description.trim().is_empty() || o.source.trim().is_empty() {
            errors.push(format!(
                "option rule `{}` needs a description and a source",
                o.id
            ));
        }
        let _ = writeln!(
            code,
            "    OptionRule {{ id: {:?}, commands: &{:?}, option: {:?}, value: OptionValue::{value}, after: {:?}, prefix: {:?} }},",
            o.id, o.commands, o.option, o.after, o.prefix
        );
    }
    code.push_str("];\n\n");
    // Every command with the option rules that apply to it (bit `i` for `OPTION_RULES[i]`),
    // sorted by name for a binary search.
    if rules.options.len() > 64 {
        errors.push("more than 64 option rules".into());
    }
    let mut commands: Vec<(String, u64)> = Vec::new();
    for (i, o) in rules.options.iter().enumerate() {
        for c in &o.commands {
            match commands.iter_mut().find(|(n, _)| n == c) {
                Some((_, mask)) => *mask |= 1 << i,
                None => commands.push((c.clone(), 1 << i)),
            }
        }
    }
    commands.sort();
    code.push_str("/// Every command of [`OPTION_RULES`], sorted, with the rules that apply to it (bit `i` stands\n/// for `OPTION_RULES[i]`).\npub(super) static OPTION_COMMANDS: &[(&str, u64)] = &[\n");
    for (c, mask) in &commands {
        let _ = writeln!(code, "    ({c:?}, {mask:#x}),");
    }
    code.push_str("];\n");
    if !errors.is_empty() {
        return Err(format!("{}:\n{}", file.display(), errors.join("\n")));
    }
    std::fs::write(out.join("redact_rules.rs"), code)
        .map_err(|e| format!("cannot write the redaction rules: {e}"))
}
