//! Conversion of brush-parser's AST into [`super::Script`], with static word expansion: the
//! guarded parse entry points here, the pre-scans, the AST walk and word expansion below.

mod prescan;
mod walk;
mod words;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use brush_parser::{Parser, ParserOptions};

use super::{Problem, Script};
use walk::Conv;

pub(super) use prescan::{
    Nesting, has_heredoc_operator, heredoc_spacing, nesting, open_substitution_with_heredoc,
};
#[cfg(test)]
pub(super) use walk::simple_text;
pub use words::decode_ansi_c;

/// Stack of the parsing thread for lines with many openers (reserved, committed as used).
const BIG_STACK: usize = 256 * 1024 * 1024;

thread_local! {
    /// Whether this thread is a parse worker started by [`parse_watched`].
    static PARSE_WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Returns whether the current thread is a watched parse worker.
pub(super) fn in_parse_worker() -> bool {
    PARSE_WORKER.with(std::cell::Cell::get)
}

/// Stack of a parse worker for lines that fit the inline nesting bound (the main thread's).
const WORKER_STACK: usize = 8 * 1024 * 1024;

/// Parses on a worker thread and waits at most `budget`. A parse still running then is
/// abandoned (the thread is detached; the hook process exits soon after) and the line is
/// [`Problem::TooSlow`]; a failure to start the thread counts as too deep.
pub(super) fn parse_watched(
    src: &str,
    depth: usize,
    big_stack: bool,
    budget: std::time::Duration,
) -> Script {
    let owned = src.to_owned();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let started = std::thread::Builder::new()
        .name("oath-parse".into())
        .stack_size(if big_stack { BIG_STACK } else { WORKER_STACK })
        .spawn(move || {
            PARSE_WORKER.with(|w| w.set(true));
            let _ = tx.send(parse_guarded(&owned, depth));
        });
    if started.is_err() {
        return Script::problem(Problem::TooDeep);
    }
    match rx.recv_timeout(budget) {
        Ok(script) => script,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Script::problem(Problem::TooSlow),
        // The worker died without answering (a panic outside the parser's guard).
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Script::problem(Problem::ParserPanic)
        }
    }
}

/// Parses on a thread with a large stack (for lines whose real nesting the scan cannot
/// bound tightly); a failure to start the thread counts as too deep.
pub(super) fn parse_on_big_stack(src: &str, depth: usize) -> Script {
    let owned = src.to_owned();
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(move || parse_guarded(&owned, depth))
        .ok()
        .and_then(|h| h.join().ok())
        .unwrap_or_else(|| Script::problem(Problem::TooDeep))
}

/// Parses under `catch_unwind`: a parser panic becomes a [`Problem`].
pub(super) fn parse_guarded(src: &str, depth: usize) -> Script {
    match panic::catch_unwind(AssertUnwindSafe(|| parse_unguarded(src, depth))) {
        Ok(s) => s,
        Err(_) => Script::problem(Problem::ParserPanic),
    }
}

fn options() -> ParserOptions {
    ParserOptions::default()
}

fn parse_unguarded(src: &str, depth: usize) -> Script {
    if src.contains('\0') {
        return Script::problem(Problem::Syntax("NUL byte in command".into()));
    }
    let opts = options();
    let mut parser = Parser::new(std::io::Cursor::new(src.as_bytes()), &opts);
    let program = match parser.parse_program() {
        Ok(p) => p,
        Err(e) => return Script::problem(Problem::Syntax(e.to_string())),
    };
    let mut conv = Conv {
        depth,
        vars: Vec::new(),
        opts,
        problem: None,
        procsub_level: 0,
        expanded: 0,
    };
    let mut pipelines = Vec::new();
    // The tree is left to the process's exit when it fits the budget; otherwise each and-or
    // list's nodes are freed once converted, so a long line's tree and its conversion do not
    // grow side by side (fewer fresh pages touched).
    let leave = leave_to_exit(src.len());
    for cc in program.complete_commands {
        for item in cc.0 {
            conv.and_or(&item.0, &mut pipelines);
            if leave {
                std::mem::forget(item);
            }
        }
    }
    Script {
        pipelines,
        problem: conv.problem,
    }
}

/// Source bytes per process whose brush-parser trees are left to the process's exit instead of
/// freed once converted. A hook parses one line and exits: freeing the tree of a 2 KB line
/// took 6 % of its PreToolUse's instructions (~0.08 ms of 1.4 here), leaving it cost 7 more
/// pages touched. The budget bounds what a long-lived process (tests, a retrospective over a
/// transcript) leaves this way: a tree takes ~100 bytes per byte of source, so ~2 MiB at most.
const LEAVE_TO_EXIT_BYTES: usize = 16 * 1024;

/// Whether the trees of `len` more source bytes fit in [`LEAVE_TO_EXIT_BYTES`] (taking them
/// if so: a line too long to fit leaves the budget to shorter ones).
fn leave_to_exit(len: usize) -> bool {
    static TAKEN: AtomicUsize = AtomicUsize::new(0);
    take_within(&TAKEN, len, LEAVE_TO_EXIT_BYTES)
}

/// Adds `len` to `taken` when the sum stays within `budget`; returns whether it did.
fn take_within(taken: &AtomicUsize, len: usize, budget: usize) -> bool {
    taken
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
            t.checked_add(len).filter(|&sum| sum <= budget)
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_left_to_exit_stay_within_the_budget() {
        let taken = AtomicUsize::new(0);
        assert!(take_within(&taken, 600, 1000));
        // Too long to fit: refused, and the budget is left to shorter lines.
        assert!(!take_within(&taken, 401, 1000));
        assert!(!take_within(&taken, usize::MAX, 1000));
        assert!(take_within(&taken, 400, 1000));
        assert!(!take_within(&taken, 1, 1000));
        assert_eq!(taken.into_inner(), 1000);
        // The process-wide budget: a line over it is never left.
        assert!(!leave_to_exit(LEAVE_TO_EXIT_BYTES + 1));
    }
}
