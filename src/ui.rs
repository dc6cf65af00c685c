//! Human output: the only place besides the hook's answer writer that prints.

use std::io::{IsTerminal, Write};

use crate::env;

/// Prints a line on stdout (ignores a closed pipe).
pub fn out(line: &str) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{line}");
}

/// Prints text on stdout as is.
pub fn out_raw(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
}

/// Prints a warning on stderr.
pub fn warn(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {line}");
}

/// Prints an error on stderr.
pub fn error(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Returns whether colour may be used on stdout.
pub fn color() -> bool {
    env::var(env::NO_COLOR).is_none() && std::io::stdout().is_terminal()
}

/// Returns `n thing` or `n things`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}
