//! The `oath` binary: [`oath::cli::main`].
//!
//! On Linux with glibc, oath brings its own `main` and skips Rust's runtime start-up, which
//! costs ~50 µs a process there (ADR 0017; [`oath::startup`] keeps what oath needs of it).
//! Every hook is a process, so that is paid at every tool call.

// Not in the unit-test build of this file, whose `main` is the test harness's.
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

/// musl's own allocator maps and unmaps memory every few allocations (~100 `mmap` and 60
/// `munmap` for a 2 KB command line); dlmalloc keeps it, as glibc's does (docs/adr/0015).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    oath::cli::main()
}

/// The C `main` glibc's start-up calls, doing what oath needs of the runtime's start-up
/// ([`oath::startup`], SIGPIPE ignored). The arguments are not needed: on glibc, Rust's
/// standard library reads them before `main` (an `.init_array` function given argc and argv).
/// A panic that escapes is answered as the runtime would (exit code 101; its message is
/// printed by the panic hook); `process::exit` flushes stdout as the runtime's exit does.
// SAFETY of `no_mangle`: no other `main` is linked (`no_main` leaves the symbol to us).
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    oath::startup::open_standard_descriptors();
    // As Rust's runtime does: a reader gone from stdout or stderr gives `EPIPE`, not death by
    // SIGPIPE, which would turn a hook's deny (exit code 2) into a killed hook that Claude
    // Code takes for a non-blocking error. Children get the default back from std.
    // SAFETY: one thread so far; SIG_IGN installs no handler.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = match std::panic::catch_unwind(oath::cli::main) {
        Ok(code) => status(code),
        Err(_) => 101,
    };
    std::process::exit(code)
}

/// The status an `ExitCode` stands for: on Unix it holds one byte, which the standard
/// library gives back only through the runtime (`ExitCode::exit_process` is unstable).
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn status(code: std::process::ExitCode) -> i32 {
    (0..=u8::MAX)
        .find(|&n| std::process::ExitCode::from(n) == code)
        .map_or(1, i32::from)
}
