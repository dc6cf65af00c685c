//! The hook's last word. PreToolUse must answer: without an answer Claude Code runs the call
//! (after its timeout), and so do Codex CLI and Gemini CLI. When oath cannot finish — past its
//! deadline, out of memory under its cap, or an abort — a prepared answer (the fail mode, ask
//! by default, with the reason, written in the client's form: a deny for a client that cannot
//! ask) is written instead, by a signal handler that only calls `write` and `_exit`.
//!
//! [`arm`] prepares the answer, installs the handlers (SIGALRM for the deadline, SIGABRT for
//! an allocation failure or an aborting panic), starts the timer and caps the address space;
//! [`claim`] is called by whoever writes the real answer, so that exactly one is written.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::time::Duration;

/// PreToolUse's deadline, well under the 10 s oath installs for it (`OATH_DEADLINE_MS`
/// overrides it).
pub const DEADLINE: Duration = Duration::from_secs(5);
/// The address space a PreToolUse hook may use (a hook peaks at a few MiB).
pub const MEMORY_CAP: u64 = 1 << 30;

/// An answer prepared for the handler: what goes to stdout and stderr, and the exit code.
struct Prepared {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: u8,
}

static ANSWER: AtomicPtr<Prepared> = AtomicPtr::new(std::ptr::null_mut());
static CLAIMED: AtomicBool = AtomicBool::new(false);
/// The address-space limit before [`arm`] lowered it (valid when [`LOWERED`]).
static FORMER_LIMIT: AtomicU64 = AtomicU64::new(0);
/// Whether [`arm`] lowered the limit.
static LOWERED: AtomicBool = AtomicBool::new(false);

/// Returns the deadline in force (`OATH_DEADLINE_MS`, else [`DEADLINE`]).
pub fn deadline() -> Duration {
    std::env::var(crate::env::OATH_DEADLINE_MS)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(DEADLINE, Duration::from_millis)
}

/// Prepares the hook's last word (its stdout, its stderr and its exit code) and arms the
/// deadline and the memory cap.
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn arm(stdout: Vec<u8>, stderr: Vec<u8>, code: u8, deadline: Duration) {
    let prepared = Box::leak(Box::new(Prepared {
        stdout,
        stderr,
        code,
    }));
    ANSWER.store(prepared, Ordering::SeqCst);
    // SAFETY: the handler only reads the leaked answer (never freed) and calls the
    // async-signal-safe `write` and `_exit`; `sigaction` and `setitimer` are given valid
    // structures; `setrlimit` lowers this process's own soft limit.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = last_word as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
        let micros = i64::try_from(deadline.as_micros()).unwrap_or(i64::MAX);
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: micros / 1_000_000,
                tv_usec: (micros % 1_000_000) as _,
            },
        };
        libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut());
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0
            && (limit.rlim_cur == libc::RLIM_INFINITY || limit.rlim_cur > MEMORY_CAP as _)
        {
            let former = limit.rlim_cur;
            limit.rlim_cur = MEMORY_CAP as _;
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                FORMER_LIMIT.store(former as u64, Ordering::SeqCst);
                LOWERED.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// Gives a child the address space the user gave oath: the cap is the hook's own (`git
/// status` on a large repository maps more than the hook may).
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn uncap(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    if !LOWERED.load(Ordering::SeqCst) {
        return;
    }
    let former = FORMER_LIMIT.load(Ordering::SeqCst);
    // SAFETY: the closure runs between fork and exec and only calls the async-signal-safe
    // `getrlimit` and `setrlimit` on plain structures.
    unsafe {
        cmd.pre_exec(move || {
            let mut limit: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0 {
                limit.rlim_cur = former as _;
                libc::setrlimit(libc::RLIMIT_AS, &limit);
            }
            Ok(())
        });
    }
}

/// Without a cap there is nothing to lift.
#[cfg(not(unix))]
pub fn uncap(_cmd: &mut std::process::Command) {}

/// Without signals there is no last word to arm.
#[cfg(not(unix))]
pub fn arm(_stdout: Vec<u8>, _stderr: Vec<u8>, _code: u8, _deadline: Duration) {}

/// Claims the right to answer: true for the first caller. The hook calls it before writing
/// its own answer; when it loses, the last word is being written and the process ends.
pub fn claim() -> bool {
    !CLAIMED.swap(true, Ordering::SeqCst)
}

/// The signal handler: the prepared answer, once, then its exit code (0, a deny included;
/// never 1, which Claude Code takes for an error and runs the call).
#[cfg(unix)]
#[allow(unsafe_code)]
extern "C" fn last_word(_signal: libc::c_int) {
    if claim() {
        let ptr = ANSWER.load(Ordering::SeqCst);
        // SAFETY: a non-null `ptr` is the answer `arm` leaked: never freed nor changed.
        let code = match unsafe { ptr.as_ref() } {
            Some(answer) => {
                write_all(2, &answer.stderr);
                write_all(1, &answer.stdout);
                answer.code
            }
            None => 0,
        };
        // SAFETY: `_exit` ends the process without running anything else.
        unsafe { libc::_exit(i32::from(code)) }
    }
    // The real answer is being written: let it finish.
}

/// Writes all of `bytes` to a file descriptor with the async-signal-safe `write`.
#[cfg(unix)]
#[allow(unsafe_code)]
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid slice for its length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => bytes = &bytes[n..],
            _ => return,
        }
    }
}
