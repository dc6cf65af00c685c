//! The `oath` binary: [`oath::cli::main`].

/// musl's own allocator maps and unmaps memory every few allocations (~100 `mmap` and 60
/// `munmap` for a 2 KB command line); dlmalloc keeps it, as glibc's does (docs/adr/0015).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

fn main() -> std::process::ExitCode {
    oath::cli::main()
}
