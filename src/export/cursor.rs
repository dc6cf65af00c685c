//! Where the export of one audit file stands: the offset up to which the collector accepted
//! its records, and what identifies the file, so that a file replaced, truncated or
//! rotated under the same name is read again from its start rather than from a stale
//! offset.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Bytes of a file's head hashed to recognise it.
const HEAD: u64 = 4096;

/// One audit file's cursor (`export/otlp/<project>/<file>.json` under the state root).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// Offset after the last line the collector accepted (a line start).
    pub offset: u64,
    /// The file's inode (0 where there is none).
    pub inode: u64,
    /// BLAKE3 of the file's first `min(offset, 4096)` bytes.
    pub head: String,
}

/// The file as it is now.
#[derive(Debug, Clone, Copy)]
pub struct FileId {
    /// Its size.
    pub len: u64,
    /// Its inode.
    pub inode: u64,
}

impl FileId {
    /// Reads a file's size and inode.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        Self {
            len: meta.len(),
            inode,
        }
    }
}

impl Cursor {
    /// A cursor at `offset` of the file at `path`.
    pub fn at(path: &Path, id: FileId, offset: u64) -> std::io::Result<Self> {
        Ok(Self {
            offset,
            inode: id.inode,
            head: head_hash(path, offset)?,
        })
    }

    /// Where to read from: the offset when the cursor is of this file, else 0 (the file
    /// was replaced or truncated: everything in it is new).
    pub fn start(&self, path: &Path, id: FileId) -> std::io::Result<u64> {
        if self.offset == 0 || self.offset > id.len || self.inode != id.inode {
            return Ok(0);
        }
        Ok(if head_hash(path, self.offset)? == self.head {
            self.offset
        } else {
            0
        })
    }
}

/// BLAKE3 of a file's first `min(upto, HEAD)` bytes.
fn head_hash(path: &Path, upto: u64) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(upto.min(HEAD))
        .read_to_end(&mut bytes)?;
    Ok(blake3::hash(&bytes).to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(path: &Path) -> FileId {
        FileId::of(&std::fs::metadata(path).unwrap())
    }

    #[test]
    fn a_replaced_or_truncated_file_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let c = Cursor::at(&path, id(&path), 8).unwrap();
        assert_eq!(c.start(&path, id(&path)).unwrap(), 8);
        // Appended to: the same file.
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n").unwrap();
        assert_eq!(c.start(&path, id(&path)).unwrap(), 8);
        // Truncated below the cursor.
        std::fs::write(&path, "{}\n").unwrap();
        assert_eq!(c.start(&path, id(&path)).unwrap(), 0);
        // Rewritten in place with another head.
        std::fs::write(&path, "{\"z\":1}\n{\"b\":2}\n").unwrap();
        assert_eq!(c.start(&path, id(&path)).unwrap(), 0);
        // Another file moved into its place.
        let other = dir.path().join("o");
        std::fs::write(&other, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let moved = id(&path);
        if moved.inode != c.inode {
            assert_eq!(c.start(&path, moved).unwrap(), 0);
        }
        assert_eq!(Cursor::default().start(&path, moved).unwrap(), 0);
    }
}
