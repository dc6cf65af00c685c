//! Links the `oath` binary as a position-dependent executable on Linux with glibc.
//!
//! Every tool call waits for `oath hook`, so process start-up is most of its cost. A
//! position-independent executable makes the dynamic loader apply ~11 000 relocations and
//! copy-on-write ~200 KiB of relocated tables at every start; linked with `-no-pie` the same
//! binary starts about 0.4 ms sooner (README, "Performance"; docs/adr/0011). The price is
//! that the executable's own image is not address-randomised (libraries, stack and heap
//! still are); oath forbids `unsafe` code. `OATH_LINK_PIE=1` keeps the default PIE link.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
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
}
