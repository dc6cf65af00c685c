//! Compiles the rule packs (`packs/`, build/packs.rs) and the redaction rules
//! (`src/redact/rules.yaml`, build/redact_rules.rs) into static tables.

/// The build script reads packs into owned values only: no built-in tables yet.
mod tables {
    use super::schema::{Carried, Cond, Entry, Pick, Rule, Str};

    pub fn strings() -> &'static str {
        ""
    }
    pub fn strs() -> &'static [Str] {
        &[]
    }
    pub fn entries() -> &'static [Entry] {
        &[]
    }
    pub fn rules() -> &'static [Rule] {
        &[]
    }
    pub fn conds() -> &'static [Cond] {
        &[]
    }
    pub fn carried() -> &'static [Carried] {
        &[]
    }
    pub fn picks() -> &'static [Pick] {
        &[]
    }
}

#[path = "src/classify/pack/strs.rs"]
#[allow(dead_code)]
mod strs;

#[path = "src/classify/pack/act.rs"]
#[allow(dead_code)]
mod act;

#[path = "src/classify/pack/schema.rs"]
#[allow(dead_code)]
mod schema;

#[path = "src/classify/pack/check.rs"]
mod check;

#[path = "build/packs.rs"]
mod packs;

#[path = "src/redact/class.rs"]
#[allow(dead_code)]
mod class;

#[path = "build/redact_rules.rs"]
mod redact_rules;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/classify/pack/schema.rs");
    println!("cargo:rerun-if-changed=src/classify/pack/check.rs");
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    if let Err(e) = packs::compile(&root.join("packs"), &out) {
        eprintln!("{e}");
        println!("cargo:warning=the rule packs do not compile; see the build script's output");
        std::process::exit(1);
    }
    if let Err(e) = redact_rules::compile(&root.join("src/redact/rules.yaml"), &out) {
        eprintln!("{e}");
        println!("cargo:warning=the redaction rules do not compile; see the build script's output");
        std::process::exit(1);
    }
}
