//! Redaction of a stream in bounded memory: the text is redacted a chunk at a time, and a chunk
//! ends only where no secret can go across the cut.
//!
//! A token holds no whitespace, so a cut at a line break or a space never splits one; what
//! can still go across such a cut is a name and its value (`--password hunter2`, `TOKEN =
//! x`, `Bearer x`) and a private-key block. So a cut is made only where the text just before
//! it names no secret (the same pre-check the engine uses to skip its name-based passes), and
//! never inside a private-key block: the chunk then ends before the block's BEGIN line. A
//! block longer than the most a chunk may hold is masked from its BEGIN and dropped up to its
//! END line, whatever chunks it spans.

use std::io::{self, Write};

use super::engine::may_name_secret;
use super::redact_str;

/// Pending bytes that start a redaction round.
const CHUNK: usize = 64 * 1024;

/// Most bytes held back waiting for a safe cut: past this a cut is made at the last line
/// break or space (or anywhere, in a text with neither).
const MAX_PENDING: usize = 1024 * 1024;

/// Bytes before a cut that must name no secret.
const LOOKBEHIND: usize = 96;

const BEGIN: &[u8] = b"-----BEGIN ";
const END: &[u8] = b"-----END ";

/// A writer that redacts what goes through it before passing it on. Call
/// [`RedactingWriter::finish`] at the end: the last chunk is held back until then (a `flush`
/// passes on only what can be redacted already).
pub struct RedactingWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    /// Inside a private-key block whose start was masked: bytes are dropped up to its END.
    in_key: bool,
}

impl<W: Write> RedactingWriter<W> {
    /// Wraps a writer.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            in_key: false,
        }
    }

    /// Redacts and writes what is pending, flushes, and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.drain(true)?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Redacts and writes chunks while enough is pending (everything when `all`).
    fn drain(&mut self, all: bool) -> io::Result<()> {
        loop {
            if self.in_key && !self.skip_key() {
                return Ok(());
            }
            if self.buf.is_empty() || (!all && self.buf.len() < CHUNK) {
                return Ok(());
            }
            let cut = if all {
                self.buf.len()
            } else {
                match safe_cut(&self.buf) {
                    Some(cut) => cut,
                    None if self.buf.len() >= MAX_PENDING => forced_cut(&self.buf),
                    None => return Ok(()),
                }
            };
            let chunk: Vec<u8> = self.buf.drain(..cut).collect();
            let text = String::from_utf8_lossy(&chunk);
            let red = redact_str(&text);
            self.inner.write_all(red.as_bytes())?;
            // A block the cut went through was masked to the chunk's end: drop its rest.
            self.in_key = open_key_block(&chunk).is_some();
        }
    }

    /// Drops the rest of a private-key block up to its END line; returns whether the block
    /// ended in what is pending.
    fn skip_key(&mut self) -> bool {
        match find(&self.buf, END) {
            Some(at) => {
                let from = at + END.len();
                let close = find(&self.buf[from..], b"-----")
                    .filter(|&c| c <= 80)
                    .map_or(from, |c| from + c + 5);
                self.buf.drain(..close);
                self.in_key = false;
                true
            }
            None => {
                // Keep what could be the start of an END line.
                let keep = self.buf.len().min(END.len() + 80);
                let drop = self.buf.len() - keep;
                self.buf.drain(..drop);
                false
            }
        }
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.drain(false)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain(false)?;
        self.inner.flush()
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// The start of a private-key block that `text` opens and does not close.
fn open_key_block(text: &[u8]) -> Option<usize> {
    let begin = memchr::memmem::rfind(text, BEGIN)?;
    let header = &text[begin..(begin + 100).min(text.len())];
    let is_key = find(header, b"PRIVATE KEY").is_some() || find(header, b"OPENSSH").is_some();
    (is_key && find(&text[begin..], END).is_none()).then_some(begin)
}

/// Whether the bytes before a cut name no secret (nor `Bearer`, `Basic`, `bot`: the token
/// pass masks the word after them; nor `kty`: a JWK's members are masked after it).
fn clean_before(before: &[u8]) -> bool {
    // From a character's start: the window may begin inside one.
    let from = before
        .iter()
        .position(|b| b & 0xc0 != 0x80)
        .unwrap_or(before.len());
    let text = String::from_utf8_lossy(&before[from..]);
    !may_name_secret(&text)
        && ![&b"bearer"[..], b"basic", b"bot", b"kty"]
            .iter()
            .any(|w| before.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w)))
}

/// Candidate cuts looked at per kind and round: a text where none of the last ones is safe
/// waits for more (up to [`MAX_PENDING`]) rather than costing a scan of the whole buffer.
const CANDIDATES: usize = 64;

/// The last cut in `buf` no secret goes across: after a line break (or an escaped one, `\n`
/// in JSON text), else after a space, with nothing before it that names a secret, and not
/// inside a private-key block.
fn safe_cut(buf: &[u8]) -> Option<usize> {
    let clean = |&p: &usize| clean_before(&buf[p.saturating_sub(LOOKBEHIND)..p]);
    let breaks = memchr::memrchr_iter(b'\n', buf)
        .map(|i| i + 1)
        .take(CANDIDATES)
        .find(clean);
    let escaped = memchr::memmem::rfind_iter(buf, b"\\n")
        .map(|i| i + 2)
        .take(CANDIDATES)
        .find(clean);
    let cut = breaks.max(escaped).or_else(|| {
        memchr::memrchr2_iter(b' ', b'\t', buf)
            .map(|i| i + 1)
            .take(CANDIDATES)
            .find(clean)
    })?;
    match open_key_block(&buf[..cut]) {
        // End the chunk before the block, when something comes before it.
        Some(begin) if begin > 0 => Some(begin),
        Some(_) => None,
        None => Some(cut),
    }
}

/// A cut when no safe one was found in [`MAX_PENDING`] bytes: after the last line break, else
/// the last space, else at the end of the last whole character.
fn forced_cut(buf: &[u8]) -> usize {
    if let Some(p) = memchr::memrchr(b'\n', buf) {
        return p + 1;
    }
    if let Some(p) = memchr::memrchr2(b' ', b'\t', buf) {
        return p + 1;
    }
    match std::str::from_utf8(buf) {
        Ok(_) => buf.len(),
        Err(e) => e.valid_up_to().max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(parts: &[&[u8]]) -> String {
        let mut w = RedactingWriter::new(Vec::new());
        for p in parts {
            w.write_all(p).unwrap();
        }
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    const TOKEN: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

    #[test]
    fn a_secret_across_any_write_boundary_is_masked() {
        let filler = "ordinary output line\n".repeat(CHUNK / 21 + 3);
        for (secret, text) in [
            (TOKEN, format!("{filler}token {TOKEN} end\n{filler}")),
            (
                "Hunter2Hunter2",
                format!("{filler}mysql --password Hunter2Hunter2 -e x\n{filler}"),
            ),
            (
                "Hunter2Hunter2",
                format!("{filler}DB_PASSWORD = Hunter2Hunter2 {filler}"),
            ),
            (
                "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z3QwRjVh",
                format!(
                    "{filler}-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\n{filler}",
                    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z3QwRjVh\n".repeat(60)
                ),
            ),
        ] {
            let at = text.find(secret).unwrap();
            // Split the writes at every byte around the secret, and in big pieces elsewhere.
            for split in (at.saturating_sub(40)..at + secret.len() + 40).step_by(7) {
                let (a, b) = text.as_bytes().split_at(split);
                let out = through(&[a, b]);
                assert!(!out.contains(&secret[..12]), "split at {split}");
                assert!(out.contains("ordinary output line"));
            }
        }
    }

    #[test]
    fn a_private_key_longer_than_a_chunk_is_dropped_to_its_end() {
        let body =
            "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z3QwRjVh\n".repeat(MAX_PENDING / 49 + 100);
        let text = format!(
            "before\n-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----\nafter\n"
        );
        // In one write, and in pieces (the block then spans several chunks).
        let pieces: Vec<&[u8]> = text.as_bytes().chunks(CHUNK / 2).collect();
        for out in [through(&[text.as_bytes()]), through(&pieces)] {
            assert!(!out.contains("MIIEpAIB"), "{}", &out[..out.len().min(300)]);
            assert!(
                out.starts_with("before\n[REDACTED private key]"),
                "{}",
                &out[..60]
            );
            assert!(
                out.ends_with("\nafter\n"),
                "{}",
                &out[out.len().saturating_sub(100)..]
            );
            assert!(out.len() < 200, "{}", out.len());
        }
    }

    #[test]
    fn ordinary_text_passes_unchanged_in_bounded_chunks() {
        let text = "line of text with numbers 12345 and a path /usr/bin/x\n".repeat(50_000);
        let mut w = RedactingWriter::new(Vec::new());
        for piece in text.as_bytes().chunks(10_000) {
            w.write_all(piece).unwrap();
            assert!(w.buf.len() < CHUNK + 10_000, "{}", w.buf.len());
        }
        assert_eq!(w.finish().unwrap(), text.as_bytes());
        // A single line longer than the pending limit is cut too.
        let long = "word ".repeat(MAX_PENDING / 2);
        assert_eq!(through(&[long.as_bytes()]), long);
    }
}
