//! What Rust's runtime does before `main` that oath's glibc build needs, which skips that
//! runtime (`src/main.rs`, ADR 0017).
//!
//! The runtime's start-up on glibc costs ~50 µs per process here: finding the main thread's
//! stack for its guard page (glibc reads `/proc/self/maps` for it), an alternate signal stack
//! and handlers that report a stack overflow. What oath keeps of it: the standard descriptors
//! are made to exist (here) and SIGPIPE is ignored (`src/main.rs`). Not kept: a stack
//! overflow ends the process with `SIGSEGV` without a message (oath's recursion is bounded:
//! JSON depth is capped before parsing), and panics name the main thread `<unnamed>`.

use std::io;
use std::os::fd::AsFd;

/// Makes sure descriptors 0, 1 and 2 are open, as the runtime does: were one closed, the first
/// file oath opens would take its number, and the answer meant for stdout would be written
/// into it (an audit log, say). A closed one is opened on `/dev/null` (the lowest free
/// number is the one closed, the lower ones being open already).
pub fn open_standard_descriptors() {
    let open = [
        is_open(io::stdin().as_fd()),
        is_open(io::stdout().as_fd()),
        is_open(io::stderr().as_fd()),
    ];
    for (fd, open) in open.into_iter().enumerate() {
        if !open {
            let write = fd > 0;
            match std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open("/dev/null")
            {
                // Kept open for the life of the process, as the number it stands in for, and
                // inheritable as the runtime's are: a child given inherited stdio gets it.
                Ok(file) => {
                    let _ = rustix::io::fcntl_setfd(&file, rustix::io::FdFlags::empty());
                    std::mem::forget(file);
                }
                Err(_) => return,
            }
        }
    }
}

fn is_open(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    rustix::io::fcntl_getfd(fd).is_ok()
}
