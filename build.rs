//! Compiles the rule packs (`packs/`, build/packs.rs) and the redaction rules
//! (`src/redact/rules.yaml`, build/redact_rules.rs), and links the `oath` binary as a position-dependent executable on Linux with glibc.
//!
//! Every tool call waits for `oath hook`, so process start-up is most of its cost. A
//! position-independent executable makes the dynamic loader apply ~11 000 relocations and
//! copy-on-write ~200 KiB of relocated tables at every start; linked with `-no-pie` the same
//! binary starts about 0.4 ms sooner (README, "Performance"; docs/adr/0011). The price is
//! that the executable's own image is not address-randomised (libraries, stack and heap
//! still are); oath forbids `unsafe` code. `OATH_LINK_PIE=1` keeps the default PIE link.
//!
//! Where the linker can (rust-lld), it also places the functions a hook runs first in the
//! executable ([`link_hot_functions_first`]).

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
    println!("cargo:rerun-if-env-changed=OATH_LINK_PIE");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    let wanted_pie = !var("OATH_LINK_PIE").is_empty() && var("OATH_LINK_PIE") != "0";
    if var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && !static_crt
        && !wanted_pie
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    link_hot_functions_first(&var);
}

/// Places the functions a hook runs next to each other (`linker/hot-functions.txt`, the
/// functions a recorded session and the benchmark's cases ran): they then share a few 64 KiB
/// windows of the executable instead of being spread over its 7 MiB, and a hook maps 18–24
/// fewer pages (each a page fault, several microseconds on a virtual machine; ADR 0014). Only
/// on x86-64 Linux (glibc or musl) and only when a probe program links with the option
/// (rust-lld, the default linker of official Rust 1.90+ builds for glibc and the one
/// `.cargo/config.toml` names for musl, knows it; GNU ld, gold and mold do not),
/// so another linker, configured or default, gets nothing. A name that is not found is
/// skipped. `OATH_LINK_ORDER=0` links in the default order.
fn link_hot_functions_first(var: &dyn Fn(&str) -> String) {
    let order = format!("{}/linker/hot-functions.txt", var("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={order}");
    for name in [
        "OATH_LINK_ORDER",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS",
    ] {
        println!("cargo:rerun-if-env-changed={name}");
    }
    let targets = ["x86_64-unknown-linux-gnu", "x86_64-unknown-linux-musl"];
    if !targets.contains(&var("TARGET").as_str())
        || var("OATH_LINK_ORDER") == "0"
        || !std::path::Path::new(&order).exists()
    {
        return;
    }
    // Through a C compiler: two arguments each, not `-Wl,…` (a comma in the path would split
    // it). Straight to rust-lld (the musl build's `linker-flavor=ld.lld`): the options alone.
    let direct = var("CARGO_ENCODED_RUSTFLAGS")
        .split('\x1f')
        .any(|f| f == "linker-flavor=ld.lld" || f == "-Clinker-flavor=ld.lld");
    let options = [
        format!("--symbol-ordering-file={order}"),
        "--no-warn-symbol-ordering".to_owned(),
    ];
    let args: Vec<String> = if direct {
        options.to_vec()
    } else {
        options
            .into_iter()
            .flat_map(|o| ["-Xlinker".to_owned(), o])
            .collect()
    };
    if links_with(var, &args) {
        for arg in args {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// Whether a trivial program links with `args` added, with this build's compiler, target,
/// rustflags and linker.
fn links_with(var: &dyn Fn(&str) -> String, args: &[String]) -> bool {
    let out_dir = std::path::PathBuf::from(var("OUT_DIR"));
    let source = out_dir.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let mut rustc = std::process::Command::new(var("RUSTC"));
    rustc
        .args(["--edition=2021", "--crate-type=bin", "--target"])
        .arg(var("TARGET"))
        .arg("-o")
        .arg(out_dir.join("link_probe"))
        .arg(&source);
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    rustc.args(rustflags.split('\x1f').filter(|f| !f.is_empty()));
    if !var("RUSTC_LINKER").is_empty() {
        rustc.arg(format!("-Clinker={}", var("RUSTC_LINKER")));
    }
    for arg in args {
        rustc.arg(format!("-Clink-arg={arg}"));
    }
    rustc
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
