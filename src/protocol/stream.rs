//! Reading a payload from stdin, the large content of a PreToolUse Write or Edit digested as
//! it arrives instead of held.
//!
//! A PreToolUse never reads a Write's `content` (or an Edit's strings, a NotebookEdit's
//! source): the classification looks at the path, and the audit record keeps the content's
//! redacted head, size and BLAKE3 digest ([`audit::truncate_with_digest`]). Holding a
//! megabyte of it costs 256 fresh pages (2–4 µs each on the CI machine) and a pass to move it
//! to the front of its buffer; reading it in pieces through one buffer costs neither. So the
//! header of the payload is scanned as it arrives (up to [`HEADER_BYTES`]): when the event is
//! PreToolUse, the tool one of [`DIGESTED`] and a string value of `tool_input` the named key,
//! the string is unescaped, checked by JSON's string rules and hashed as it is read, and once
//! it holds [`DIGEST_MIN_BYTES`] its text is replaced in the payload by its audit form. The
//! payload the hook then parses is the same JSON object with that one string cut as the audit
//! would cut it, and the 3-strike action key renders every string that long by the same form
//! (`strike::normalize`), so the key of a digested call is the key of the whole one.
//!
//! Anything unexpected before the string (a key with an escape, the string not where
//! Claude Code puts it, a payload that is not an object) stops the scan: the payload is then
//! read whole, as before. The hook checks that the parsed payload names the event and the tool
//! the scan saw ([`Digested`]).

use std::io::{self, Read};

use super::adopt::{BLOCK, SIMPLE_ESCAPES, Stops, decode_escape};
use super::input::{EventName, HookInput, InputError, MAX_PAYLOAD_BYTES};
use crate::audit;

/// Strings shorter than this are kept (the 3-strike action key renders longer ones by their
/// audit form; see `strike::normalize`). Half the pipe's default 64 KiB: a large payload's
/// first read, what the pipe holds as oath starts, decides (with a buffer of one piece,
/// 64 KiB took a second read that grew it: 17 page faults more).
pub const DIGEST_MIN_BYTES: usize = 32 * 1024;

/// How far into the payload the scan looks for the string to digest.
const HEADER_BYTES: usize = 64 * 1024;

/// The string values of `tool_input` a PreToolUse of each tool never reads.
const DIGESTED: &[(&str, &str)] = &[
    ("Write", "content"),
    ("Edit", "old_string"),
    ("Edit", "new_string"),
    ("NotebookEdit", "new_source"),
];

/// The keys of the top object the scan follows; those of `tool_input` are [`DIGESTED`]'s.
const TOP_KEYS: [&str; 3] = ["hook_event_name", "tool_name", "tool_input"];

/// The one of `names` that a string's text is (none when it holds an escape).
fn known(
    mut names: impl Iterator<Item = &'static str>,
    text: &[u8],
    escaped: bool,
) -> Option<&'static str> {
    names.find(|name| !escaped && name.as_bytes() == text)
}

/// Bytes read at once.
const PIECE_BYTES: usize = 64 * 1024;

/// Linux's default pipe capacity. A pipe that already holds this much as oath starts is full:
/// the payload is large ([`read`] starts with two pieces, the hook widens the pipe).
pub const FULL_PIPE_BYTES: usize = 64 << 10;

/// A payload as read.
#[derive(Debug)]
pub struct Payload {
    /// The payload, or a part of it when the read stopped at a broken digested string.
    pub bytes: Vec<u8>,
    /// The string digested, if one was.
    pub digested: Option<Digested>,
    /// Why the payload cannot be read, found while digesting (the rest is not read).
    pub broken: Option<InputError>,
}

/// What the scan saw before the string it digested (the event was PreToolUse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digested {
    /// `tool_name`.
    pub tool: &'static str,
    /// The key of `tool_input` whose string was digested.
    pub key: &'static str,
}

impl Digested {
    /// Why the parsed payload is not the one the scan saw, if it is not: a repeated key
    /// named another event or tool after the content.
    pub fn disagreement(&self, input: &HookInput) -> Option<String> {
        let tool = input.tool_name.as_deref();
        (input.event != EventName::PreToolUse || tool != Some(self.tool)).then(|| {
            format!(
                "the payload names {} {} after a PreToolUse {} whose {} was digested",
                input.event.as_str(),
                tool.unwrap_or("(no tool)"),
                self.tool,
                self.key
            )
        })
    }
}

/// Reads a payload, `pending` being the bytes already waiting (0 when unknown): the buffer
/// starts at that size.
pub fn read(input: impl Read, pending: usize) -> io::Result<Payload> {
    // A full pipe holds a large payload: the buffer starts at two pieces, so that each read
    // after the first can take two, and the writer, woken at each read of a full pipe, is
    // woken half as often (1 MB Write 0.07-0.1 ms faster).
    let first = if pending >= FULL_PIPE_BYTES {
        2 * PIECE_BYTES
    } else {
        pending.saturating_add(1).clamp(16 << 10, PIECE_BYTES + 1)
    };
    let mut input = input.take(MAX_PAYLOAD_BYTES as u64 + 1);
    // One buffer, its bytes initialized once: each read takes what the pipe holds up to the
    // room left (the writer is woken once per piece, not at each of `read_to_end`'s doubling
    // reads), and the string's pieces are read through the same pages.
    let mut buf = vec![0; first];
    let mut len = 0;
    let mut scan = Scan::default();
    // Read and scan the header until the string to digest grows long enough, or the scan
    // stops.
    let ended = loop {
        if len == buf.len() {
            buf.resize(len + PIECE_BYTES, 0);
        }
        let got = read_once(&mut input, &mut buf[len..])?;
        len += got;
        let bytes = &buf[..len];
        match scan.advance(bytes) {
            Step::More if got > 0 => continue,
            Step::More | Step::Stop => {
                buf.truncate(len);
                return read_rest(input, buf);
            }
            Step::Broken(e) => {
                buf.truncate(len);
                return Ok(broken(buf, e));
            }
            Step::Commit => break None,
            Step::Ended(at) => break Some(at),
        }
    };
    let (Some((start, mut digester)), Some(tool), Some(key)) = (scan.digest, scan.tool, scan.key2)
    else {
        buf.truncate(len);
        return read_rest(input, buf);
    };
    // The string's text so far is in the digester: the buffer keeps what comes before its
    // opening quote, and the rest of the string is read through the room after it.
    let rest = match ended {
        Some(at) => buf[at + 1..len].to_vec(),
        None => match read_string(&mut input, &mut buf[start..], &mut digester)? {
            Ok(rest) => rest.to_vec(),
            Err(e) => {
                buf.truncate(start);
                return Ok(broken(buf, e));
            }
        },
    };
    let mut bytes = buf;
    bytes.truncate(start);
    let form = match digester.finish() {
        Ok(form) => form,
        Err(why) => return Ok(broken(bytes, InputError::NotJson(why.into()))),
    };
    serde_json::to_writer(&mut bytes, &form).map_err(io::Error::other)?;
    bytes.extend_from_slice(&rest);
    input.read_to_end(&mut bytes)?;
    if input.limit() == 0 {
        // One byte past the cap arrived: the digested payload is too short to say so itself.
        return Ok(broken(
            bytes,
            InputError::TooLarge {
                size: MAX_PAYLOAD_BYTES + 1,
                limit: MAX_PAYLOAD_BYTES,
            },
        ));
    }
    Ok(Payload {
        bytes,
        digested: Some(Digested { tool, key }),
        broken: None,
    })
}

/// One read into `buf`, retried when interrupted.
fn read_once(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            got => return got,
        }
    }
}

/// Reads and digests the rest of a string through `piece`; returns what came after its
/// closing quote in the last piece.
fn read_string<'p>(
    input: &mut io::Take<impl Read>,
    piece: &'p mut [u8],
    digester: &mut Digester,
) -> io::Result<Result<&'p [u8], InputError>> {
    loop {
        let got = read_once(input, piece)?;
        if got == 0 {
            return Ok(Err(if input.limit() == 0 {
                InputError::TooLarge {
                    size: MAX_PAYLOAD_BYTES + 1,
                    limit: MAX_PAYLOAD_BYTES,
                }
            } else {
                InputError::NotJson("EOF while parsing a string".into())
            }));
        }
        match digester.feed(&piece[..got]) {
            Fed::More => {}
            Fed::Ended(at) => return Ok(Ok(&piece[at + 1..got])),
            Fed::Bad(why) => return Ok(Err(InputError::NotJson(why.into()))),
        }
    }
}

fn broken(bytes: Vec<u8>, e: InputError) -> Payload {
    Payload {
        bytes,
        digested: None,
        broken: Some(e),
    }
}

/// Reads the rest of a payload that is kept whole; one that filled a piece gets 8 MiB of
/// address space at once (pages cost nothing until written) instead of moving at each
/// doubling.
fn read_rest(mut input: impl Read, mut bytes: Vec<u8>) -> io::Result<Payload> {
    if bytes.len() >= PIECE_BYTES {
        bytes.reserve(8 << 20);
    }
    input.read_to_end(&mut bytes)?;
    Ok(Payload {
        bytes,
        digested: None,
        broken: None,
    })
}

/// Where the scan is.
enum Step {
    /// Needs more bytes.
    More,
    /// The string to digest holds [`DIGEST_MIN_BYTES`]: digest the rest.
    Commit,
    /// Nothing to digest: read the rest whole.
    Stop,
    /// The string to digest ended at this offset, holding [`DIGEST_MIN_BYTES`] or more.
    Ended(usize),
    /// The string being digested breaks JSON's rules.
    Broken(InputError),
}

/// The scan of a payload's header: JSON's structure outside strings, the keys of the top
/// object and of `tool_input`, and the values of `hook_event_name` and `tool_name`.
#[derive(Default)]
struct Scan {
    /// Next byte to look at.
    pos: usize,
    /// Objects and arrays open.
    depth: usize,
    /// The object open at depth 2 is `tool_input`'s value.
    in_tool_input: bool,
    /// The string being read: offset of its opening quote, whether it is a value (a colon
    /// before it), whether it holds a backslash.
    string: Option<(usize, bool, bool)>,
    /// The previous string, if nothing but whitespace came after it: its text's bounds and
    /// whether it holds a backslash (a key candidate).
    last: Option<(usize, usize, bool)>,
    /// A colon came, and no value yet.
    after_colon: bool,
    /// The current key of the top object, if one the scan follows.
    key1: Option<&'static str>,
    /// The current key of the object that is `tool_input`, if one the scan follows.
    key2: Option<&'static str>,
    /// `hook_event_name` was PreToolUse.
    pre_tool_use: bool,
    /// `tool_name`, once read, if one of [`DIGESTED`]'s.
    tool: Option<&'static str>,
    /// The string being digested: offset of its opening quote, and the digester.
    digest: Option<(usize, Digester)>,
    /// Bytes of the digested string's text fed so far.
    fed: usize,
}

impl Scan {
    /// Whether a string value starting now is one to digest.
    fn eligible(&self) -> bool {
        self.depth == 2
            && self.in_tool_input
            && self.pre_tool_use
            && DIGESTED
                .iter()
                .any(|&(tool, key)| self.tool == Some(tool) && self.key2 == Some(key))
    }

    /// Looks at the bytes of `b` not looked at yet (all of `b` was read so far).
    fn advance(&mut self, b: &[u8]) -> Step {
        if let Some((open, d)) = &mut self.digest {
            let text = *open + 1;
            return match d.feed(&b[text + self.fed..]) {
                Fed::More => {
                    self.fed = b.len() - text;
                    if d.total() >= DIGEST_MIN_BYTES {
                        Step::Commit
                    } else {
                        Step::More
                    }
                }
                Fed::Ended(at) if d.total() >= DIGEST_MIN_BYTES => {
                    Step::Ended(text + self.fed + at)
                }
                // A short string stays as it is; nothing else is digested.
                Fed::Ended(_) => Step::Stop,
                Fed::Bad(why) => Step::Broken(InputError::NotJson(why.into())),
            };
        }
        while self.pos < b.len() {
            if self.pos >= HEADER_BYTES {
                return Step::Stop;
            }
            let c = b[self.pos];
            if let Some((open, is_value, escaped)) = self.string {
                match c {
                    b'\\' => {
                        if self.pos + 1 >= b.len() {
                            return Step::More;
                        }
                        self.string = Some((open, is_value, true));
                        self.pos += 2;
                        continue;
                    }
                    b'"' => {
                        self.string = None;
                        if is_value {
                            self.last = None;
                            if !self.value_ended(&b[open + 1..self.pos], escaped) {
                                return Step::Stop;
                            }
                        } else {
                            self.last = Some((open + 1, self.pos, escaped));
                        }
                    }
                    _ => {}
                }
                self.pos += 1;
                continue;
            }
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b'"' => {
                    if self.after_colon && self.eligible() {
                        self.digest = Some((self.pos, Digester::new()));
                        self.after_colon = false;
                        return self.advance(b);
                    }
                    self.string = Some((self.pos, self.after_colon, false));
                    self.after_colon = false;
                    self.last = None;
                }
                b':' => {
                    let Some((s, e, escaped)) = self.last.take() else {
                        return Step::Stop;
                    };
                    let key = known(
                        TOP_KEYS
                            .into_iter()
                            .chain(DIGESTED.iter().map(|&(_, key)| key)),
                        &b[s..e],
                        escaped,
                    );
                    match self.depth {
                        1 => self.key1 = key,
                        2 => self.key2 = key,
                        _ => {}
                    }
                    self.after_colon = true;
                }
                b'{' | b'[' => {
                    if self.depth == 0 && c == b'[' {
                        return Step::Stop;
                    }
                    self.depth += 1;
                    if self.depth == 2 {
                        self.in_tool_input = c == b'{' && self.key1 == Some("tool_input");
                        self.key2 = None;
                    }
                    self.last = None;
                    self.after_colon = false;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth < 2 {
                        self.in_tool_input = false;
                        self.key2 = None;
                    }
                    if self.depth == 0 {
                        return Step::Stop;
                    }
                    self.last = None;
                    self.after_colon = false;
                }
                // A comma, a number, `true`, `false` or `null`.
                _ => {
                    self.last = None;
                    self.after_colon = false;
                }
            }
            self.pos += 1;
        }
        Step::More
    }

    /// Notes the value of `hook_event_name` or `tool_name` (a string value just ended);
    /// false once it says that nothing will be digested (another event, another tool).
    fn value_ended(&mut self, text: &[u8], escaped: bool) -> bool {
        if self.depth != 1 {
            return true;
        }
        match self.key1 {
            Some("hook_event_name") => {
                self.pre_tool_use = known(["PreToolUse"].into_iter(), text, escaped).is_some();
                self.pre_tool_use
            }
            Some("tool_name") => {
                self.tool = known(DIGESTED.iter().map(|&(tool, _)| tool), text, escaped);
                self.tool.is_some()
            }
            _ => true,
        }
    }
}

/// What a digester made of the bytes it was fed.
#[derive(Debug, PartialEq, Eq)]
enum Fed {
    /// The string goes on.
    More,
    /// The string's closing quote is at this offset of the bytes.
    Ended(usize),
    /// The string breaks JSON's rules (or is not UTF-8).
    Bad(&'static str),
}

/// What an escape at the end of the bytes fed so far needs.
enum Escape {
    /// Decoded; it took this many bytes.
    Done(usize),
    /// Cut by the end of the bytes: more are needed.
    Need,
    /// Not an escape JSON has, or a lone surrogate.
    Bad,
}

/// Unescaped bytes gathered before they are checked and hashed: 16 BLAKE3 chunks, as many as
/// its widest code (AVX-512) hashes at once; fewer pages to touch than a larger buffer.
const OUT_BYTES: usize = 16 * 1024;

/// A string's head kept for its audit form.
const WINDOW_BYTES: usize = audit::MAX_STRING_BYTES + audit::REDACT_LOOKAHEAD_BYTES;

/// Unescapes, checks and hashes a string's text as it arrives; keeps its head.
struct Digester {
    hasher: blake3::Hasher,
    /// Unescaped bytes not yet hashed, `out[..w]`; room for a block's stores past
    /// [`OUT_BYTES`].
    out: Vec<u8>,
    w: usize,
    /// The first [`WINDOW_BYTES`] hashed.
    head: Vec<u8>,
    /// Bytes hashed.
    hashed: usize,
    /// Bytes at the start of `out` checked as UTF-8 (up to a character's end).
    checked: usize,
    /// `out[checked..w]` is valid UTF-8 without a check: the raw bytes in it were ASCII
    /// (escapes decode to whole characters). Cleared by a block that holds another byte.
    known_valid: bool,
    /// An escape the bytes fed so far cut (its raw bytes).
    carry: Vec<u8>,
}

impl Digester {
    fn new() -> Self {
        Self {
            hasher: blake3::Hasher::new(),
            out: vec![0; OUT_BYTES + 2 * BLOCK + 16],
            w: 0,
            head: Vec::with_capacity(WINDOW_BYTES),
            hashed: 0,
            checked: 0,
            known_valid: true,
            carry: Vec::new(),
        }
    }

    /// Unescaped bytes so far.
    fn total(&self) -> usize {
        self.hashed + self.w
    }

    /// Takes the next bytes of the string's text.
    fn feed(&mut self, raw: &[u8]) -> Fed {
        let mut i = 0;
        if !self.carry.is_empty() {
            let mut esc = std::mem::take(&mut self.carry);
            let had = esc.len();
            esc.extend_from_slice(&raw[..raw.len().min(12)]);
            match self.escape(&esc) {
                Escape::Need => {
                    self.carry = esc;
                    return Fed::More;
                }
                Escape::Bad => return Fed::Bad("invalid escape in a string"),
                Escape::Done(used) => i = used - had,
            }
        }
        loop {
            if self.w >= OUT_BYTES && self.flush(false).is_err() {
                return Fed::Bad("a string is not valid UTF-8");
            }
            let Some(block) = raw.get(i..i + BLOCK + 16) else {
                break;
            };
            match unescape_block(block, &mut self.out, &mut self.w, &mut self.known_valid) {
                Block::Took(at) => i += at,
                Block::Ended(at) => return Fed::Ended(i + at),
                Block::Bad(why) => return Fed::Bad(why),
            }
        }
        while i < raw.len() {
            match raw[i] {
                b'"' => return Fed::Ended(i),
                b'\\' => match self.escape(&raw[i..]) {
                    Escape::Done(used) => i += used,
                    Escape::Need => {
                        self.carry = raw[i..].to_vec();
                        return Fed::More;
                    }
                    Escape::Bad => return Fed::Bad("invalid escape in a string"),
                },
                0..0x20 => return Fed::Bad("control character in a string"),
                c => {
                    self.known_valid &= c.is_ascii();
                    self.out[self.w] = c;
                    self.w += 1;
                    i += 1;
                }
            }
            if self.w >= OUT_BYTES && self.flush(false).is_err() {
                return Fed::Bad("a string is not valid UTF-8");
            }
        }
        Fed::More
    }

    /// Decodes the escape at the start of `esc` (a backslash) into `out`.
    fn escape(&mut self, esc: &[u8]) -> Escape {
        escape_into(esc, &mut self.out, &mut self.w)
    }

    /// Checks `out[checked..w]` and hashes `out[..w]` up to its last whole character;
    /// keeps the rest, and whole BLAKE3 chunks only unless `last`: the hasher takes those many
    /// at a time, and the bytes of a chunk it is handed in parts one 64-byte block at a time.
    fn flush(&mut self, last: bool) -> Result<(), ()> {
        let valid = if self.known_valid {
            self.w
        } else {
            match std::str::from_utf8(&self.out[self.checked..self.w]) {
                Ok(_) => self.w,
                Err(e) if e.error_len().is_none() && !last => self.checked + e.valid_up_to(),
                Err(_) => return Err(()),
            }
        };
        self.known_valid = valid == self.w;
        let hash = if last {
            valid
        } else {
            valid - valid % blake3::CHUNK_LEN
        };
        let done = &self.out[..hash];
        if self.head.len() < WINDOW_BYTES {
            let n = (WINDOW_BYTES - self.head.len()).min(done.len());
            self.head.extend_from_slice(&done[..n]);
        }
        self.hasher.update(done);
        self.hashed += hash;
        self.out.copy_within(hash..self.w, 0);
        self.w -= hash;
        self.checked = valid - hash;
        Ok(())
    }

    /// The string's audit form ([`audit::truncate_with_digest`] of the whole).
    fn finish(mut self) -> Result<String, &'static str> {
        self.flush(true)
            .map_err(|()| "a string is not valid UTF-8")?;
        let window = match std::str::from_utf8(&self.head) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&self.head[..e.valid_up_to()]).unwrap_or_default(),
        };
        Ok(audit::long_string_form(
            window,
            self.hashed,
            &self.hasher.finalize(),
        ))
    }
}

/// What [`unescape_block`] did.
enum Block {
    /// Took this many bytes (the block's, and an escape's that went past it).
    Took(usize),
    /// The string's closing quote is at this offset.
    Ended(usize),
    /// The string breaks JSON's rules.
    Bad(&'static str),
}

/// Unescapes a block of a string's text (`block` holds [`BLOCK`] bytes and 16 more) into
/// `out[*w..]`, which has room for the block and 16 bytes past it: the run before each byte
/// to look at is written with whole 16-byte stores, the bytes past the run overwritten next.
/// `known_valid` is cleared when the block holds a byte that is not ASCII.
#[inline(always)]
fn unescape_block(block: &[u8], out: &mut [u8], w: &mut usize, known_valid: &mut bool) -> Block {
    let block = &block[..BLOCK + 16];
    let Stops { any, high, .. } = Stops::of(block);
    *known_valid &= high == 0;
    let mut stops = any;
    let mut at = 0;
    let mut wl = *w;
    let took = loop {
        let stop = if stops == 0 {
            BLOCK
        } else {
            stops.trailing_zeros() as usize
        };
        // Runs between escapes are mostly shorter than 16 bytes: the first store is made
        // whatever the run's length (a branch less to mispredict).
        let mut k = at;
        loop {
            out[wl + k - at..wl + k - at + 16].copy_from_slice(&block[k..k + 16]);
            k += 16;
            if k >= stop {
                break;
            }
        }
        wl += stop - at;
        if stops == 0 {
            break BLOCK;
        }
        match block[stop] {
            b'"' => {
                *w = wl;
                return Block::Ended(stop);
            }
            b'\\' => match SIMPLE_ESCAPES[usize::from(block[stop + 1])] {
                0 => match escape_into(&block[stop..], out, &mut wl) {
                    Escape::Done(used) => at = stop + used,
                    _ => return Block::Bad("invalid escape in a string"),
                },
                b => {
                    out[wl] = b;
                    wl += 1;
                    at = stop + 2;
                }
            },
            _ => return Block::Bad("control character in a string"),
        }
        if at >= BLOCK {
            break at;
        }
        stops &= u64::MAX << at;
    };
    *w = wl;
    Block::Took(took)
}

/// Decodes the escape at the start of `esc` (a backslash) into `out[*w..]`.
fn escape_into(esc: &[u8], out: &mut [u8], w: &mut usize) -> Escape {
    let Some(&e) = esc.get(1) else {
        return Escape::Need;
    };
    let b = SIMPLE_ESCAPES[usize::from(e)];
    if b != 0 {
        out[*w] = b;
        *w += 1;
        return Escape::Done(2);
    }
    if e != b'u' {
        return Escape::Bad;
    }
    let Some(digits) = esc.get(2..6) else {
        return Escape::Need;
    };
    let high = std::str::from_utf8(digits)
        .ok()
        .filter(|d| d.bytes().all(|c| c.is_ascii_hexdigit()))
        .and_then(|d| u32::from_str_radix(d, 16).ok());
    let Some(high) = high else {
        return Escape::Bad;
    };
    if (0xD800..0xDC00).contains(&high) && esc.len() < 12 {
        return Escape::Need;
    }
    match decode_escape(esc) {
        Some((c, used)) => {
            *w += c.encode_utf8(&mut out[*w..*w + 4]).len();
            Escape::Done(used)
        }
        None => Escape::Bad,
    }
}

#[cfg(test)]
mod differential;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// A reader that hands out at most `step` bytes a call, as a pipe does.
    pub(super) struct Trickle<'a> {
        pub(super) data: &'a [u8],
        pub(super) step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.data.len().min(buf.len()).min(self.step);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn payloads_are_read_whole_up_to_one_byte_past_the_cap() {
        let cap = MAX_PAYLOAD_BYTES;
        let data: Vec<u8> = (0..cap + 2).map(|i| (i % 251) as u8).collect();
        let first = 16 << 10;
        for len in [
            0,
            1,
            first - 1,
            first,
            first + 1,
            100_000,
            cap,
            cap + 1,
            cap + 2,
        ] {
            let want = len.min(cap + 1);
            for pending in [0, len / 2, len.saturating_sub(1), len, len + 1, cap + 5] {
                let steps: &[usize] = if len > 100_000 {
                    &[65_536, usize::MAX]
                } else {
                    &[7, 65_536, usize::MAX]
                };
                for &step in steps {
                    let input = Trickle {
                        data: &data[..len],
                        step,
                    };
                    let got = read(input, pending).unwrap();
                    assert!(got.digested.is_none() && got.broken.is_none());
                    let got = got.bytes;
                    assert_eq!(got.len(), want, "len {len}, pending {pending}, step {step}");
                    assert!(
                        got == data[..want],
                        "len {len}, pending {pending}, step {step}"
                    );
                }
            }
        }
    }

    fn payload(event: &str, tool: &str, key: &str, content: &str) -> Vec<u8> {
        json!({
            "session_id": "s",
            "transcript_path": "/t.jsonl",
            "cwd": "/p",
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": {"file_path": "/p/a.rs", key: content, "replace_all": false},
            "tool_use_id": "toolu_1"
        })
        .to_string()
        .into_bytes()
    }

    /// A parsed payload with the strings a PreToolUse digests as the audit cuts them.
    pub(super) fn audit_cut(mut v: Value) -> Value {
        let tool = v["tool_name"].as_str().unwrap_or_default().to_owned();
        if v["hook_event_name"] != "PreToolUse" {
            return v;
        }
        if let Some(input) = v.get_mut("tool_input").and_then(Value::as_object_mut) {
            for (key, value) in input.iter_mut() {
                if let Value::String(s) = value
                    && s.len() >= DIGEST_MIN_BYTES
                    && DIGESTED.contains(&(tool.as_str(), key.as_str()))
                {
                    *value = json!(audit::truncate_with_digest(s));
                }
            }
        }
        v
    }

    /// The payload with its long content as the audit cuts it.
    fn cut(payload: &[u8]) -> Value {
        audit_cut(serde_json::from_slice(payload).unwrap())
    }

    fn read_in_steps(bytes: &[u8], step: usize) -> Payload {
        read(Trickle { data: bytes, step }, 0).unwrap()
    }

    /// A large Write whose pipe was full as oath started goes through the buffer its first
    /// read went into (two pieces), which never grows.
    #[test]
    fn a_large_write_is_read_through_the_first_buffer() {
        let pipe = 64 << 10;
        let bytes = payload("PreToolUse", "Write", "content", &"ab\n".repeat(400_000));
        for step in [pipe, 2 * pipe, usize::MAX] {
            let got = read(Trickle { data: &bytes, step }, pipe).unwrap();
            assert!(got.digested.is_some());
            assert_eq!(got.bytes.capacity(), 2 * pipe, "{step}");
        }
    }

    #[test]
    fn long_contents_are_digested_as_the_audit_cuts_them() {
        let code = "fn main() {\n\tlet s = \"é😀\\\\\";\n}\n".repeat(3000);
        for &(tool, key) in DIGESTED {
            let bytes = payload("PreToolUse", tool, key, &code);
            for step in [1, 7, 4096, 65_536, usize::MAX] {
                if step == 1 && key != "content" {
                    continue;
                }
                let got = read_in_steps(&bytes, step);
                assert!(got.broken.is_none());
                assert_eq!(got.digested, Some(Digested { tool, key }));
                let parsed: Value = serde_json::from_slice(&got.bytes).unwrap();
                assert_eq!(parsed, cut(&bytes), "{tool} {key} {step}");
            }
        }
    }

    /// Claude Code's own Write payload (its key order), its content made long.
    #[test]
    fn the_real_clients_write_is_digested() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/claude-code-2.1.197/session-a/30-pre-tool-use-write.json"
        );
        let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let long = v["tool_input"]["content"].as_str().unwrap().repeat(5_000);
        assert!(long.len() > DIGEST_MIN_BYTES);
        v["tool_input"]["content"] = json!(long);
        let bytes = v.to_string().into_bytes();
        let got = read_in_steps(&bytes, 65_536);
        assert_eq!(got.digested.map(|d| d.tool), Some("Write"));
        let parsed: Value = serde_json::from_slice(&got.bytes).unwrap();
        assert_eq!(parsed, cut(&bytes));
    }

    /// A key repeated after the digested content can name another event or tool: the parsed
    /// payload then disagrees with what the scan saw.
    #[test]
    fn a_repeated_event_or_tool_after_the_content_disagrees() {
        let long = "x".repeat(100_000);
        for (tail, disagrees) in [
            (r#","hook_event_name":"Stop""#, true),
            (r#","tool_name":"Bash""#, true),
            (r#","tool_name":"Write""#, false),
            ("", false),
        ] {
            let bytes = format!(
                r#"{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"content":"{long}"}}{tail}}}"#
            );
            let got = read_in_steps(bytes.as_bytes(), 65_536);
            let input = HookInput::parse(&got.bytes, None).unwrap();
            let why = got.digested.expect("digested").disagreement(&input);
            assert_eq!(why.is_some(), disagrees, "{tail}: {why:?}");
        }
    }

    #[test]
    fn other_payloads_are_read_whole() {
        let long = "x".repeat(100_000);
        let short = "y\\n".repeat(1000);
        for bytes in [
            payload("PreToolUse", "Write", "content", &short),
            payload("PostToolUse", "Write", "content", &long),
            payload("PreToolUse", "Bash", "command", &long),
            payload("PreToolUse", "Write", "file_path2", &long),
            payload("PreToolUse", "Write", "content", &long).replace_first(b"tool_name", b"tool\\u005fname"),
            format!(r#"{{"tool_input":{{"content":"{long}"}},"hook_event_name":"PreToolUse","tool_name":"Write"}}"#).into_bytes(),
            format!(r#"[{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"content":"{long}"}}}}]"#).into_bytes(),
            format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"x":{{"content":"{long}"}}}}}}"#).into_bytes(),
            format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":[{{"content":"{long}"}}]}}"#).into_bytes(),
        ] {
            let got = read_in_steps(&bytes, 5000);
            assert!(got.digested.is_none() && got.broken.is_none());
            assert!(got.bytes == bytes);
        }
    }

    #[test]
    fn broken_long_contents_are_refused() {
        let a = "a".repeat(70_000);
        for (tail, why) in [
            ("\u{1}", "control"),
            ("\\q", "escape"),
            ("\\ud800x", "escape"),
            ("\\ud800", "escape"),
            ("\\u12G4", "escape"),
        ] {
            let bytes = payload("PreToolUse", "Write", "content", "CONTENT")
                .replace_first(b"CONTENT", format!("{a}{tail}{a}").as_bytes());
            for step in [3, 65_536] {
                let got = read_in_steps(&bytes, step);
                let e = got.broken.expect(tail).to_string();
                assert!(e.contains(why), "{tail:?}: {e}");
                assert!(serde_json::from_slice::<Value>(&bytes).is_err());
            }
        }
        let mut bytes = payload("PreToolUse", "Write", "content", &a);
        let at = bytes.len() - 200;
        bytes[at] = 0xff;
        assert!(
            read_in_steps(&bytes, 65_536)
                .broken
                .unwrap()
                .to_string()
                .contains("UTF-8")
        );
        let cut = payload("PreToolUse", "Write", "content", &a);
        let got = read_in_steps(&cut[..cut.len() - 100], 65_536);
        assert!(got.broken.is_some());
    }

    trait ReplaceFirst {
        fn replace_first(self, from: &[u8], to: &[u8]) -> Vec<u8>;
    }

    impl ReplaceFirst for Vec<u8> {
        fn replace_first(self, from: &[u8], to: &[u8]) -> Vec<u8> {
            let at = self.windows(from.len()).position(|w| w == from).unwrap();
            [&self[..at], to, &self[at + from.len()..]].concat()
        }
    }

    proptest! {
        /// Contents of any characters and escapes, read in pieces of any size, parse as the
        /// whole payload cut by the audit.
        #[test]
        fn digests_match_the_audit(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("x"), Just("é"), Just("😀"), Just("\n"), Just("\""), Just("\\"),
                    Just("\t"), Just("\u{1}"), Just("ghp_0123456789abcdefghijABCDEFGHIJ012345 "),
                ],
                1..40,
            ),
            reps in 1usize..400,
            step in prop_oneof![1usize..20, 60usize..200, 4000usize..70_000],
        ) {
            let unit: String = pieces.concat();
            let content = unit.repeat(reps.max(70_000 / unit.len().max(1) / 8));
            let content = if content.len() < 70_000 { content.repeat(70_000 / content.len() + 1) } else { content };
            let bytes = payload("PreToolUse", "Write", "content", &content);
            let got = read_in_steps(&bytes, step);
            prop_assert!(got.broken.is_none(), "{:?}", got.broken);
            prop_assert!(got.digested.is_some());
            let parsed: Value = serde_json::from_slice(&got.bytes).unwrap();
            prop_assert_eq!(parsed, cut(&bytes));
        }
    }
}
