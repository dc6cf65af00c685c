//! Golden cases of a rule pack: commands with the effects and rule ids expected of them,
//! checked in a fixed context (`cargo test` for the built-in packs' `packs/*.golden.yaml`,
//! `oath rules check` for a user's pack and the golden file next to it).
//!
//! The context: the project is `/home/dev/project` (also the working directory), the home
//! `/home/dev`, and oath's state (`/home/dev/.local/state/oath`), the user configuration
//! (`/home/dev/.config/oath`) and the project's `.claude/settings*.json` are protected.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::pack::schema::Pack;
use super::{Context, Risk, classify};

/// One golden case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The Bash command.
    pub command: String,
    /// The effect of every part that has one, in order (`delete(~/x, recursive)`).
    pub effects: Vec<String>,
    /// The rule ids of the parts, in order, when the case names them.
    #[serde(default)]
    pub rules: Option<Vec<String>>,
    /// The risk of the whole command, when the case names it.
    #[serde(default)]
    pub risk: Option<Risk>,
}

/// Parses a golden file.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    serde_saphyr::from_str(text).map_err(|e| e.to_string())
}

/// Returns the fixed context golden cases run in.
pub fn context() -> Context {
    let root = PathBuf::from("/home/dev/project");
    Context::new(
        &root,
        &root,
        Some(Path::new("/home/dev")),
        [
            PathBuf::from("/home/dev/.local/state/oath"),
            PathBuf::from("/home/dev/.config/oath"),
            root.join(".claude/settings.json"),
            root.join(".claude/settings.local.json"),
        ],
    )
}

/// Runs golden cases with `user` packs looked up first; returns one message per case that
/// does not hold.
pub fn run(cases: &[Case], user: &'static [Pack]) -> Vec<String> {
    let ctx = context().with_user_packs(user).with_details();
    let mut wrong = Vec::new();
    for case in cases {
        let c = classify(
            "Bash",
            &serde_json::json!({ "command": case.command }),
            &ctx,
        );
        let effects: Vec<&str> = c.parts.iter().filter_map(|p| p.effect.as_deref()).collect();
        let rules: Vec<&str> = c.parts.iter().map(|p| p.rule.as_str()).collect();
        let mut why = Vec::new();
        if effects != case.effects {
            why.push(format!("effects {effects:?}, expected {:?}", case.effects));
        }
        if let Some(want) = &case.rules
            && rules != *want
        {
            why.push(format!("rules {rules:?}, expected {want:?}"));
        }
        if let Some(r) = case.risk
            && c.risk != r
        {
            why.push(format!("risk {}, expected {r}", c.risk));
        }
        // A rule's texts name the program as run: no placeholder is left in a reason or in
        // the safer way.
        let texts = c.parts.iter().map(|p| p.reason.as_str());
        for text in texts.chain(c.alternative.as_deref()) {
            if ["{program}", "{sub}", "{arg0}"]
                .iter()
                .any(|slot| text.contains(slot))
            {
                why.push(format!("a placeholder left in {text:?}"));
            }
        }
        if !why.is_empty() {
            wrong.push(format!("`{}`: {}", case.command, why.join("; ")));
        }
    }
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a golden file back with the effects and rules the packs give now
    /// (`OATH_BLESS_GOLDEN=1 cargo test --lib golden`): for new cases, to be read before
    /// they are committed.
    fn bless(file: &Path, cases: &[Case]) {
        let ctx = context().with_details();
        let mut out = String::new();
        for case in cases {
            let c = classify(
                "Bash",
                &serde_json::json!({ "command": case.command }),
                &ctx,
            );
            let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
            let effects: Vec<String> = c
                .parts
                .iter()
                .filter_map(|p| p.effect.as_deref().map(q))
                .collect();
            let rules: Vec<String> = c.parts.iter().map(|p| q(&p.rule)).collect();
            out.push_str(&format!(
                "- command: {}\n  effects: [{}]\n  rules: [{}]\n",
                q(&case.command),
                effects.join(", "),
                rules.join(", ")
            ));
            if let Some(r) = case.risk {
                out.push_str(&format!("  risk: {r}\n"));
            }
        }
        std::fs::write(file, out).unwrap();
    }

    /// Every built-in pack has a golden file beside it, and every case of it holds.
    #[test]
    fn every_pack_meets_its_golden_file() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("packs");
        let mut failures = Vec::new();
        let mut total = 0;
        for p in super::super::pack::builtin() {
            let file = dir.join(format!("{}.golden.yaml", p.pack));
            let Ok(text) = std::fs::read_to_string(&file) else {
                failures.push(format!("{}: no golden file", file.display()));
                continue;
            };
            let cases = match parse(&text) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{}: {e}", file.display()));
                    continue;
                }
            };
            if std::env::var_os("OATH_BLESS_GOLDEN").is_some() {
                bless(&file, &cases);
                failures.push(format!(
                    "{}: blessed; read it before committing",
                    file.display()
                ));
                continue;
            }
            if cases.len() < 3 {
                failures.push(format!("{}: fewer than 3 cases", file.display()));
            }
            total += cases.len();
            for w in run(&cases, &[]) {
                failures.push(format!("{}: {w}", file.display()));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(total > 0);
    }
}
