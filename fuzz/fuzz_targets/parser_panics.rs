//! Shared by the fuzz targets: which panics are findings.

/// libFuzzer's panic hook aborts on every panic, caught or not. brush-parser's own panics
/// (0.4 unwraps an I/O number that overflows an `i32`) are caught by oath's guard around the
/// parser and classified as a parser failure: only panics elsewhere are findings.
pub fn let_parser_panics_reach_the_guard() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info
                .location()
                .is_some_and(|l| l.file().contains("brush-parser"))
            {
                abort(info);
            }
        }));
    });
}
