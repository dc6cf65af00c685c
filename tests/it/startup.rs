//! What every hook pays before oath's own code runs: the shared libraries the loader opens,
//! maps and relocates. Each costs a hook about 0.2 ms on a 2-core VM: glibc's `libm.so`,
//! loaded for one `log2f`, made every hook that much slower (benches/hook_latency.rs, oath's
//! floor 1.80 → 1.62 ms). A float function such as `f64::ln` or `powf` brings it back.

/// The libraries any Rust program on glibc loads: the vDSO, the loader, the C library and
/// the unwinder (the minimal hook of `examples/minimal_hook.rs` loads the same).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const EVERY_RUST_PROGRAM: [&str; 4] = ["linux-vdso.so.1", "libgcc_s.so.1", "libc.so.6", "ld-linux"];

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_binary_loads_no_library_beyond_what_every_rust_program_loads() {
    let bin = crate::support::oath_bin();
    let out = match std::process::Command::new("ldd").arg(&bin).output() {
        Ok(out) if out.status.success() => out,
        // A static build (musl) has none; a system without `ldd` cannot say.
        _ => {
            eprintln!("note: `ldd {}` gave nothing to check", bin.display());
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let extra: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|lib| {
            !EVERY_RUST_PROGRAM
                .iter()
                .any(|known| lib.rsplit('/').next().unwrap_or(lib).starts_with(known))
        })
        .collect();
    assert!(
        extra.is_empty(),
        "every hook would load {extra:?} too (about 0.2 ms each):\n{text}"
    );
}
