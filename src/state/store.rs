//! The primitives behind [`crate::state`].

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::{DeserializeOwned, DeserializeSeed};
use serde_json::{Map, Value};

use crate::clock::Timestamp;

/// A failure to read or write one of oath's files.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// An I/O operation failed.
    #[error("failed to {action} {path}: {source}")]
    Io {
        /// What was being done (`lock`, `write`, ...).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A value could not be serialized.
    #[error("failed to serialize {path}: {source}")]
    Serialize {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> StateError + 'a {
    move |source| StateError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The result of reading a state file without changing it.
#[derive(Debug)]
pub enum ReadOutcome<T> {
    /// The file does not exist.
    Missing,
    /// The file was read.
    Ok(T),
    /// The file exists but is not a valid `T`; the reason says why.
    Corrupt(String),
}

impl<T> ReadOutcome<T> {
    /// Returns the value, or the given default for a missing or corrupt file.
    pub fn or_default_with(self, default: impl FnOnce() -> T) -> T {
        match self {
            Self::Ok(v) => v,
            Self::Missing | Self::Corrupt(_) => default(),
        }
    }
}

/// Largest state file read: larger files are treated as corrupt (64 MiB).
const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads and parses a JSON state file without locking and without changing anything.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> ReadOutcome<T> {
    read_json_with(path, |bytes| serde_json::from_slice(bytes))
}

/// Like [`read_json`], with the parse given: a reader that needs one entry of a large file
/// can skip the rest without building it (see [`from_slice_seed`]).
pub fn read_json_with<T>(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> serde_json::Result<T>,
) -> ReadOutcome<T> {
    match read_bytes(path) {
        Ok(None) => ReadOutcome::Missing,
        Ok(Some(bytes)) => match parse(&bytes) {
            Ok(v) => ReadOutcome::Ok(v),
            Err(e) if bytes.iter().all(u8::is_ascii_whitespace) => {
                let _ = e;
                ReadOutcome::Corrupt("the file is empty".into())
            }
            Err(e) => ReadOutcome::Corrupt(format!("invalid JSON: {e}")),
        },
        Err(reason) => ReadOutcome::Corrupt(reason),
    }
}

/// Parses a whole JSON document with a seed (trailing characters are an error, as in
/// `serde_json::from_slice`).
pub fn from_slice_seed<'de, S: DeserializeSeed<'de>>(
    bytes: &'de [u8],
    seed: S,
) -> serde_json::Result<S::Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot stat: {e}")),
    };
    if meta.file_type().is_symlink() {
        return Err("the file is a symbolic link, which oath does not follow".into());
    }
    if meta.is_dir() {
        return Err("a directory stands where the file should be".into());
    }
    if !meta.is_file() {
        // A FIFO would block the open until a writer came: never open one.
        return Err("the file is not a regular file (a FIFO, socket or device)".into());
    }
    if meta.len() > MAX_STATE_BYTES {
        return Err(format!(
            "the file is {} bytes, over the {MAX_STATE_BYTES}-byte limit",
            meta.len()
        ));
    }
    let mut file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    Ok(Some(bytes))
}

/// Reads a small text file that oath does not own (configuration, phase, git HEAD).
///
/// Returns `Ok(None)` when it does not exist. Anything but a regular file (a FIFO, a device, a
/// directory, also behind a symlink) is refused without being opened, since opening a FIFO
/// blocks until a writer appears and `/dev/zero` never ends: either would wedge the hook.
/// Files over `limit` bytes are refused too.
pub fn read_text_file(path: &Path, limit: u64) -> io::Result<Option<String>> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the file is {} bytes, over the {limit}-byte limit",
                meta.len()
            ),
        ));
    }
    // Sized from the metadata: read in one call, not in growing probes.
    let mut text = String::with_capacity(meta.len() as usize + 1);
    File::open(path)?.take(limit).read_to_string(&mut text)?;
    Ok(Some(text))
}

/// Moves a corrupt file aside as `<file>.corrupt-<stamp>` and returns the new path.
fn quarantine(path: &Path, now: Timestamp) -> io::Result<PathBuf> {
    move_aside(path, "corrupt", now)
}

/// Moves a file (or whatever stands at `path`) aside as `<file>.<tag>-<stamp>`, with `-<n>`
/// added when that name is taken, and returns the new path: nothing is ever overwritten.
pub fn move_aside(path: &Path, tag: &str, now: Timestamp) -> io::Result<PathBuf> {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".{tag}-{}", now.file_stamp()));
    let mut aside = PathBuf::from(aside);
    let mut n = 1;
    while fs::symlink_metadata(&aside).is_ok() {
        let mut next = path.as_os_str().to_owned();
        next.push(format!(".{tag}-{}-{n}", now.file_stamp()));
        aside = PathBuf::from(next);
        n += 1;
    }
    fs::rename(path, &aside)?;
    Ok(aside)
}

/// The lock file [`lock_file_of`] and [`update_json`] take for `path`: `<path>.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

/// Reads, changes and rewrites a JSON state file under an exclusive lock.
///
/// A missing file starts from `default()`; a corrupt one is moved aside with a warning pushed
/// to `warnings` and also starts from `default()`. `change` returns whether anything changed
/// (nothing is written otherwise) and a value passed back to the caller.
pub fn update_json<T, R>(
    path: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
    default: impl FnOnce() -> T,
    change: impl FnOnce(&mut T) -> (bool, R),
) -> Result<R, StateError>
where
    T: Serialize + DeserializeOwned,
{
    let (dir, lock) = lock_for_update(path, now, warnings)?;
    let result = read_modify_write(
        path,
        dir,
        now,
        warnings,
        Durability::Synced,
        |_| Ok(()),
        default,
        change,
    );
    drop(lock);
    result
}

/// [`update_json`] for a file whose values are redacted as they are made, so its rewrite
/// needs no redaction pass and costs what parsing and printing it cost, however many strings
/// it holds: every string a `change` puts in `T` was redacted where it was built (or is
/// oath's own: a time, a hash, a status word), and the strings `T` held came from the file,
/// which oath wrote redacted (what [`update_json`] assumes of them too).
///
/// Used by the 3-strike files, whose new attempts are redacted whole as they are made
/// (`strike::new_failure`); a type without that discipline uses [`update_json`].
pub fn update_json_redacted_at_entry<T, R>(
    path: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
    default: impl FnOnce() -> T,
    change: impl FnOnce(&mut T) -> (bool, R),
) -> Result<R, StateError>
where
    T: Serialize + DeserializeOwned,
{
    let (dir, lock) = lock_for_update(path, now, warnings)?;
    let mut value = value_or_default(read_json::<T>(path), path, now, warnings, default);
    let (changed, result) = change(&mut value);
    if changed {
        let mut bytes =
            serde_json::to_vec_pretty(&value).map_err(|source| StateError::Serialize {
                path: path.to_path_buf(),
                source,
            })?;
        bytes.push(b'\n');
        write_atomic_in(dir, path, &bytes, Durability::Synced)?;
    }
    drop(lock);
    Ok(result)
}

/// Creates a state file's folder, takes the file's lock and sweeps stale temps: the first
/// steps of every locked rewrite. Returns the folder and the lock.
fn lock_for_update<'a>(
    path: &'a Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<(&'a Path, File), StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err("create directory", dir))?;
    let lock = take_lock(&lock_path(path), now, warnings)?;
    sweep_stale_temps(dir);
    Ok((dir, lock))
}

/// The value read, or `default()` when the file is missing or unreadable (then moved aside,
/// with a warning).
fn value_or_default<T>(
    read: ReadOutcome<T>,
    path: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
    default: impl FnOnce() -> T,
) -> T {
    match read {
        ReadOutcome::Ok(v) => v,
        ReadOutcome::Missing => default(),
        ReadOutcome::Corrupt(reason) => {
            warnings.push(quarantine_warning(path, &reason, now));
            default()
        }
    }
}

/// The exclusive lock of one state file (its sidecar `<file>.lock`), held until dropped.
#[derive(Debug)]
pub struct FileLock {
    _lock: File,
}

/// Takes the lock [`update_json`] takes for `path`, waiting at most [`LOCK_WAIT`]: for a
/// reader that must not see the file change under it, or a writer that replaces it some
/// other way (moving it aside).
pub fn lock_file_of(
    path: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<FileLock, StateError> {
    take_lock(&lock_path(path), now, warnings).map(|lock| FileLock { _lock: lock })
}

/// Opens and takes the exclusive lock of `lock_file`, creating it. A directory (or FIFO,
/// socket) standing where the lock file should be would stop every update for good: it is
/// moved aside like a corrupt file, with a warning, and the open tried once more.
fn take_lock(
    lock_file: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<File, StateError> {
    let open_lock = || {
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_file)
    };
    let lock = match open_lock() {
        Ok(f) => f,
        Err(e)
            if fs::symlink_metadata(lock_file)
                .is_ok_and(|m| !m.is_file() && !m.file_type().is_symlink()) =>
        {
            match quarantine(lock_file, now) {
                Ok(aside) => warnings.push(format!(
                    "{} was not a lock file ({e}); moved it to {}",
                    lock_file.display(),
                    aside.display()
                )),
                Err(_) => return Err(io_err("open lock", lock_file)(e)),
            }
            open_lock().map_err(io_err("open lock", lock_file))?
        }
        Err(e) => return Err(io_err("open lock", lock_file)(e)),
    };
    wait_for_lock(&lock, lock_file)?;
    Ok(lock)
}

/// The read-modify-write of [`update_json`], the caller holding the lock; the temp file is
/// written in `tmp_dir` (on the same file system as `path`).
#[allow(clippy::too_many_arguments)]
fn read_modify_write<T, R>(
    path: &Path,
    tmp_dir: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
    durability: Durability,
    check: impl FnOnce(&T) -> Result<(), String>,
    default: impl FnOnce() -> T,
    change: impl FnOnce(&mut T) -> (bool, R),
) -> Result<R, StateError>
where
    T: Serialize + DeserializeOwned,
{
    // The strings the file holds were written redacted: the rewrite redacts only new ones.
    let mut known = Hashes::default();
    let read = read_json_with(path, |bytes| {
        known = json_strings(bytes);
        let value = serde_json::from_slice(bytes)?;
        check(&value).map_err(<serde_json::Error as serde::de::Error>::custom)?;
        Ok(value)
    });
    let mut value = value_or_default(read, path, now, warnings, default);
    let (changed, result) = change(&mut value);
    if changed {
        write_json_known(path, tmp_dir, &value, &known, durability)?;
    }
    Ok(result)
}

/// Moves an unreadable state file aside and returns the warning that says so.
pub fn quarantine_warning(path: &Path, reason: &str, now: Timestamp) -> String {
    match quarantine(path, now) {
        Ok(aside) => format!(
            "{} was unreadable ({reason}); moved it to {} and started from defaults",
            path.display(),
            aside.display()
        ),
        Err(e) => format!(
            "{} was unreadable ({reason}) and could not be moved aside ({e}); starting from defaults",
            path.display()
        ),
    }
}

/// A folder of state files under one exclusive lock, `<dir>/.lock`, held from
/// [`lock_dir`] until dropped. Its files are updated with [`DirLock::update_json`], which
/// writes their temp files in the folder itself (also for files in its subfolders), so that
/// the sweep of killed writers' temps reads a small folder however many files it holds.
#[derive(Debug)]
pub struct DirLock {
    dir: PathBuf,
    _lock: File,
}

/// Creates `dir` (moving aside, with a warning, anything but a directory standing there)
/// and takes its lock, waiting at most [`LOCK_WAIT`]; sweeps killed writers' temp files.
pub fn lock_dir(
    dir: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<DirLock, StateError> {
    ensure_dir(dir, now, warnings)?;
    let lock = take_lock(&dir.join(".lock"), now, warnings)?;
    sweep_stale_temps(dir);
    Ok(DirLock {
        dir: dir.to_path_buf(),
        _lock: lock,
    })
}

/// Creates a folder of oath's, moving aside what stands in its place (a file, a symbolic
/// link: oath does not follow links in its state), with a warning.
pub fn ensure_dir(
    dir: &Path,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => match move_aside(dir, "corrupt", now) {
            Ok(aside) => warnings.push(format!(
                "{} was not a folder; moved it to {}",
                dir.display(),
                aside.display()
            )),
            Err(e) => return Err(io_err("move aside", dir)(e)),
        },
        Err(_) => {}
    }
    fs::create_dir_all(dir).map_err(io_err("create directory", dir))
}

impl DirLock {
    /// Returns the locked folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// [`update_json`] of a file in the locked folder or one of its subfolders (created as
    /// needed), under this lock, written with `durability`. A file that parses but fails
    /// `check` is unreadable too: moved aside with a warning.
    #[allow(clippy::too_many_arguments)]
    pub fn update_json<T, R>(
        &self,
        path: &Path,
        now: Timestamp,
        warnings: &mut Vec<String>,
        durability: Durability,
        check: impl FnOnce(&T) -> Result<(), String>,
        default: impl FnOnce() -> T,
        change: impl FnOnce(&mut T) -> (bool, R),
    ) -> Result<R, StateError>
    where
        T: Serialize + DeserializeOwned,
    {
        if let Some(parent) = path.parent()
            && parent != self.dir
        {
            ensure_dir(parent, now, warnings)?;
        }
        read_modify_write(
            path, &self.dir, now, warnings, durability, check, default, change,
        )
    }
}

/// How long an update waits for another holder of a state file's lock. Hooks run one at a
/// time per call, and an update holds the lock for a read and a rename, so anything longer
/// is a stuck or hostile holder (`flock` on the file): the update gives up with a warning.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Takes the exclusive lock, waiting at most [`LOCK_WAIT`].
fn wait_for_lock(lock: &fs::File, path: &Path) -> Result<(), StateError> {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(50));
            }
            Err(fs::TryLockError::WouldBlock) => {
                return Err(StateError::Io {
                    action: "lock",
                    path: path.to_path_buf(),
                    source: io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("another process held it for over {} s", LOCK_WAIT.as_secs()),
                    ),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io_err("lock", path)(e)),
        }
    }
}

/// Age past which a temp file of [`write_raw_atomic`] belongs to a writer that was killed: a
/// write takes milliseconds.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes temp files killed writers left in `dir` (those older than [`STALE_TEMP`]; a live
/// writer's are younger and stay).
fn sweep_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if !e.file_name().as_encoded_bytes().starts_with(b".oath-tmp-") {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Writes a JSON file by temp file, fsync and rename (no lock: callers hold one if needed),
/// redacted ([`crate::redact::redact_value`]): every record oath keeps goes through here or
/// [`append_json_line`].
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<(), StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    write_json_known(path, dir, value, &Hashes::default(), Durability::Synced)
}

/// [`write_json_atomic`], leaving unredacted the strings of `known` (hashes from
/// [`json_strings`] of what the file held: oath wrote them redacted already).
fn write_json_known<T: Serialize>(
    path: &Path,
    tmp_dir: &Path,
    value: &T,
    known: &Hashes,
    durability: Durability,
) -> Result<(), StateError> {
    let serialize = |source| StateError::Serialize {
        path: path.to_path_buf(),
        source,
    };
    let mut value = serde_json::to_value(value).map_err(serialize)?;
    crate::redact::redact_value_except(&mut value, &|s| {
        !known.is_empty() && known.contains(&fnv1a(s.as_bytes()))
    });
    let mut bytes = serde_json::to_vec_pretty(&value).map_err(serialize)?;
    bytes.push(b'\n');
    write_atomic_in(tmp_dir, path, &bytes, durability)
}

/// Writes bytes to a file by temp file, fsync and rename, as they are: for a file of the
/// user's that oath edits (Claude Code's settings, which hold the user's own configuration);
/// oath's own records go through [`write_json_atomic`] or [`append_json_line`].
pub fn write_raw_atomic(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    write_atomic_in(dir, path, bytes, Durability::Synced)
}

/// How far a rewrite goes before it returns. Either way the file is replaced by a rename, so
/// a reader sees the old content or the new, whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The new content is on disk before the rename (fsync): it survives a power loss.
    Synced,
    /// No fsync: after a power loss the file may hold the old content (or, on a file system
    /// that does not order a rename after its data, be unreadable: then it is moved aside
    /// and its default used, with a warning). For a change whose loss errs on the side of
    /// caution only, such as a success earning trust (~0.3 ms of every PostToolUse here).
    Unsynced,
}

/// Writes `bytes` to `path` by a temp file in `dir` (on the same file system), fsync when
/// `durability` asks for it, and rename.
fn write_atomic_in(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<(), StateError> {
    let temp = || {
        tempfile::Builder::new()
            .prefix(".oath-tmp-")
            .tempfile_in(dir)
    };
    // The folder is created only when the temp file cannot be for want of it (callers that
    // lock a folder have made it already).
    let mut tmp = match temp() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(io_err("create directory", dir))?;
            temp()
        }
        made => made,
    }
    .map_err(io_err("create temp file in", dir))?;
    tmp.write_all(bytes).map_err(io_err("write", path))?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all().map_err(io_err("sync", path))?;
    }
    tmp.persist(path).map_err(|e| StateError::Io {
        action: "replace",
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}

/// A set of string hashes ([`fnv1a`]), hashed as they are.
type Hashes = HashSet<u64, std::hash::BuildHasherDefault<IdentityHasher>>;

/// The hasher of [`Hashes`]: its keys are hashes already.
#[derive(Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// FNV-1a, 64 bits: a cheap hash for a set of strings.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hashes of every string (keys and values, unescaped) of a JSON text: one pass over its
/// bytes, with no parse.
fn json_strings(bytes: &[u8]) -> Hashes {
    let mut set = Hashes::default();
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &bytes[i..]) {
        let start = i + q + 1;
        let mut k = start;
        let mut escaped = false;
        let end = loop {
            match memchr::memchr2(b'"', b'\\', bytes.get(k..).unwrap_or_default()) {
                None => return set,
                Some(p) if bytes[k + p] == b'\\' => {
                    escaped = true;
                    k += p + 2;
                }
                Some(p) => break k + p,
            }
        };
        if !escaped {
            set.insert(fnv1a(&bytes[start..end]));
        } else if let Ok(s) = serde_json::from_slice::<String>(&bytes[start - 1..=end]) {
            set.insert(fnv1a(s.as_bytes()));
        }
        i = end + 1;
    }
    set
}

/// Appends one JSON record as a line to a log file with a single `write()`, creating the file
/// and its directory. The record is redacted ([`crate::redact::redact_map`]), then every
/// string over `max_string_bytes` is cut (after redaction, so no secret is cut in half).
pub fn append_json_line(
    path: &Path,
    mut record: Map<String, Value>,
    max_string_bytes: usize,
) -> Result<(), StateError> {
    crate::redact::redact_map(&mut record);
    let mut record = Value::Object(record);
    cap_long_strings(&mut record, max_string_bytes);
    append_line(path, &record.to_string())
}

/// Cuts every string over `max` bytes, with a marker naming its size.
fn cap_long_strings(v: &mut Value, max: usize) {
    match v {
        Value::String(s) if s.len() > max => {
            let mut cut = max;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            let total = s.len();
            s.truncate(cut);
            s.push_str(&format!("[... truncated by oath: {total} bytes]"));
        }
        Value::Array(items) => items.iter_mut().for_each(|i| cap_long_strings(i, max)),
        Value::Object(map) => map.values_mut().for_each(|i| cap_long_strings(i, max)),
        _ => {}
    }
}

/// Appends one line to a log file with a single `write()`, creating the file and its directory.
fn append_line(path: &Path, line: &str) -> Result<(), StateError> {
    // The folder is created only when the log cannot be opened for want of it: it exists at
    // every hook but a project's first.
    let mut file = match open_log(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = path.parent().unwrap_or(Path::new("."));
            fs::create_dir_all(dir).map_err(io_err("create directory", dir))?;
            open_log(path)
        }
        opened => opened,
    }
    .map_err(|e| {
        // A log that is a symbolic link is not followed: appending would write oath's records
        // (and anything an attacker-planted link points at) into a file elsewhere.
        if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            StateError::Io {
                action: "append to",
                path: path.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the file is a symbolic link, which oath does not follow",
                ),
            }
        } else {
            io_err("open", path)(e)
        }
    })?;
    // One `write()` is not atomic against SIGKILL on a regular file: the kernel stops
    // copying at a page boundary when a fatal signal is pending, so a killed writer can
    // leave half a record with no newline. A record starts on a line of its own, so that
    // half record stays one unreadable line (readers skip and count it) and the next
    // record is whole. Writers take turns (a lock on the log itself) so that no one reads
    // the tail of a record another is still copying; one that cannot have the lock soon
    // (its holder stopped) appends anyway: a blank line at worst, which readers skip.
    let _turn = wait_for_turn(&file);
    let torn = ends_mid_line(&mut file).map_err(io_err("read", path))?;
    let mut buf = Vec::with_capacity(line.len() + 2);
    if torn {
        buf.push(b'\n');
    }
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
    file.write_all(&buf).map_err(io_err("append to", path))?;
    Ok(())
}

/// Longest wait for another writer of a log to finish its append.
const APPEND_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Takes the exclusive lock of an open log (released when the file is closed), waiting at
/// most [`APPEND_WAIT`]; whether it was taken.
fn wait_for_turn(file: &File) -> bool {
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return true,
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < APPEND_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(_) => return false,
        }
    }
}

/// Opens a log to append to, creating it, without following a symbolic link where it stands:
/// on Unix the open itself refuses one (no moment between a check and the open for a link to
/// appear); elsewhere it is checked first.
fn open_log(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).read(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the file is a symbolic link",
        ));
    }
    options.open(path)
}

/// Whether a file's last byte is there and is not a newline (the file position is left
/// anywhere: the caller appends).
fn ends_mid_line(file: &mut File) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    // Before the start of an empty file: no last byte.
    match file.seek(SeekFrom::End(-1)) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Ok(false),
        Err(e) => return Err(e),
    }
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
