//! The [`crate::classify::scripts::Files`] oracle over the file system: what a file a
//! command runs holds, read with a bound when the call is decided.

use std::io::Read;
use std::path::Path;

use crate::classify::scripts::{FileText, Files, is_binary};

/// Reads files from the real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsFiles;

impl Files for FsFiles {
    fn read(&self, path: &Path, limit: usize) -> FileText {
        read(path, limit)
    }
}

/// Returns what `path` holds, at most `limit` bytes of text.
pub fn read(path: &Path, limit: usize) -> FileText {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileText::Missing,
        Err(_) => return FileText::Unreadable,
    };
    match file.metadata() {
        Ok(m) if m.is_file() => {}
        _ => return FileText::Unreadable,
    }
    // One byte past the limit tells a file that is too large, whatever its metadata said
    // (it may grow while it is read); a program's first line tells it at any limit.
    let mut bytes = Vec::new();
    if file
        .take(limit.max(128) as u64 + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return FileText::Unreadable;
    }
    if is_binary(&bytes) {
        FileText::Binary
    } else if bytes.len() > limit {
        FileText::TooLarge
    } else {
        FileText::Text(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_read_with_a_bound() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.sh");
        std::fs::write(&p, "rm -rf ~\n").unwrap();
        assert_eq!(read(&p, 100), FileText::Text("rm -rf ~\n".into()));
        assert_eq!(read(&p, 4), FileText::TooLarge);
        assert_eq!(read(&dir.path().join("none"), 100), FileText::Missing);
        assert_eq!(read(dir.path(), 100), FileText::Unreadable);
        std::fs::write(&p, b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
        assert_eq!(read(&p, 4), FileText::Binary, "a program of any size");
    }
}
