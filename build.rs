//! Links the `oath` binary as a position-dependent executable on Linux with glibc.
//!
//! Every tool call waits for `oath hook`, so process start-up is most of its cost. A
//! position-independent executable makes the dynamic loader apply ~11 000 relocations and
//! copy-on-write ~200 KiB of relocated tables at every start; linked with `-no-pie` the same
//! binary starts about 0.4 ms sooner (README, "Performance"; docs/adr/0011). The price is
//! that the executable's own image is not address-randomised (libraries, stack and heap
//! still are); oath forbids `unsafe` code. `OATH_LINK_PIE=1` keeps the default PIE link.
//!
//! With rust-lld it also places the functions a hook runs first in the executable
//! ([`link_hot_functions_first`]).

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
    link_hot_functions_first(&var);
}

/// Places the functions a hook runs next to each other (`linker/hot-functions.txt`, in the
/// order a recorded session and the benchmark's cases first ran them): they then share a few
/// 64 KiB windows of the executable instead of being spread over its 7 MiB, and a hook maps
/// about 22 fewer pages (each a page fault, several microseconds on a virtual machine; ADR
/// 0014). Only where the linker is rust-lld, the default of `x86_64-unknown-linux-gnu` since
/// Rust 1.90, and no other linker is configured; a name that is not found is skipped.
/// `OATH_LINK_ORDER=0` links in the default order.
fn link_hot_functions_first(var: &dyn Fn(&str) -> String) {
    let order = format!("{}/linker/hot-functions.txt", var("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={order}");
    println!("cargo:rerun-if-env-changed=OATH_LINK_ORDER");
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    let other_linker = !var("RUSTC_LINKER").is_empty()
        || rustflags.contains("linker")
        || rustflags.contains("link-self-contained");
    if var("TARGET") != "x86_64-unknown-linux-gnu"
        || var("OATH_LINK_ORDER") == "0"
        || other_linker
        || !rustc_links_with_lld(&var("RUSTC"))
        || !std::path::Path::new(&order).exists()
    {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={order}");
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// Whether this rustc is 1.90 or newer (rust-lld by default on x86_64 Linux with glibc).
fn rustc_links_with_lld(rustc: &str) -> bool {
    let Ok(out) = std::process::Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut version = text
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split(['.', '-'])
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let (major, minor) = (version.next().unwrap_or(0), version.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
