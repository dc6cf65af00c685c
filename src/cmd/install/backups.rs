//! Backups of a settings file: `<name>.oath-backup-<UTC stamp>` next to it (`-<n>` added when
//! several are made in one second), written before every change install or uninstall makes.
//! Only the last [`KEEP`] of each settings file are kept.

use std::path::{Path, PathBuf};

use crate::clock::Timestamp;

/// How many backups of one settings file are kept.
pub const KEEP: usize = 3;

const MARK: &str = ".oath-backup-";

/// Where a backup sorts among the backups of its file: its stamp, then its number (0 for
/// none), so `…Z-10` comes after `…Z-9`.
type Order = (String, u64);

/// Returns the file name of `file`, as backups are named after it.
fn base_name(file: &Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into())
}

/// Returns where `entry` sorts when it is a backup of the file named `name`, `None` when it is
/// not one (another file's backup, or a name oath does not write).
fn order(name: &str, entry: &str) -> Option<Order> {
    let rest = entry.strip_prefix(name)?.strip_prefix(MARK)?;
    let (stamp, n) = match rest.split_once('-') {
        Some((stamp, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            (stamp, n.parse().ok()?)
        }
        Some(_) => return None,
        None => (rest, 0),
    };
    // `YYYYMMDDTHHMMSSZ`, as `Timestamp::file_stamp` writes it.
    let b = stamp.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let is_stamp = b.len() == 16 && digits(0..8) && b[8] == b'T' && digits(9..15) && b[15] == b'Z';
    is_stamp.then(|| (stamp.to_owned(), n))
}

/// Returns the backups of `file` in its folder, oldest first.
pub fn list(file: &Path) -> Vec<PathBuf> {
    let name = base_name(file);
    let Ok(entries) = std::fs::read_dir(file.with_file_name("")) else {
        return Vec::new();
    };
    let mut found: Vec<(Order, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let key = order(&name, e.file_name().to_str()?)?;
            Some((key, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Returns a free backup path next to `file`, sorting after every backup made in the same
/// second (a number above theirs, not the first free one, which a rotation may have freed).
pub fn path(file: &Path, now: Timestamp) -> PathBuf {
    let name = base_name(file);
    let stamp = now.file_stamp();
    let base = format!("{name}{MARK}{stamp}");
    let last = list(file)
        .iter()
        .filter_map(|p| order(&name, p.file_name()?.to_str()?))
        .filter(|(s, _)| *s == stamp)
        .map(|(_, n)| n)
        .max();
    let mut n = last.map_or(0, |n| n + 1);
    loop {
        let p = if n == 0 {
            file.with_file_name(&base)
        } else {
            file.with_file_name(format!("{base}-{n}"))
        };
        if !p.exists() {
            return p;
        }
        n += 1;
    }
}

/// Removes the backups of `file` beyond the last [`KEEP`], oldest first, never `just_made`
/// (even if its stamp sorts before others: a clock set back); returns those removed.
pub fn rotate(file: &Path, just_made: &Path) -> Vec<PathBuf> {
    let mut others = list(file);
    others.retain(|p| p != just_made);
    let excess = others.len().saturating_sub(KEEP - 1);
    let mut removed = Vec::new();
    for p in others.into_iter().take(excess) {
        if std::fs::remove_file(&p).is_ok() {
            removed.push(p);
        }
    }
    removed
}
