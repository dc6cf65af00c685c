//! Where a path really leads: the [`crate::classify::Links`] oracle over the file system.
//! The longest existing part of the path is resolved (`realpath`); the rest is kept as
//! written, so a file about to be created through a linked folder is found too.

use std::path::{Path, PathBuf};

/// Follows symbolic links on the real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsLinks;

impl crate::classify::Links for FsLinks {
    fn real(&self, path: &Path) -> Option<PathBuf> {
        real_path(path).filter(|r| r != path)
    }

    fn exists(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok()
    }
}

/// Returns `path` with the links of its longest existing ancestor followed, or None when
/// nothing of it exists (or it is not absolute).
pub fn real_path(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut existing = path;
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        // A dangling link is followed to where it points: writing through it creates that.
        if let Ok(meta) = std::fs::symlink_metadata(existing) {
            if meta.file_type().is_symlink() && std::fs::metadata(existing).is_err() {
                let target = std::fs::read_link(existing).ok()?;
                let base = existing.parent().unwrap_or(Path::new("/"));
                let mut out = crate::classify::normalize_path(&base.join(target));
                out.extend(rest.iter().rev());
                return Some(out);
            }
            let mut out = std::fs::canonicalize(existing).ok()?;
            out.extend(rest.iter().rev());
            return Some(out);
        }
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_a_path_are_followed_and_the_missing_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join(".claude")).unwrap();
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(&real, &via).unwrap();
        let canon = std::fs::canonicalize(&real).unwrap();
        assert_eq!(
            real_path(&via.join(".claude/settings.json")),
            Some(canon.join(".claude/settings.json"))
        );
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(real.join(".claude/settings.json"), &dangling).unwrap();
        assert_eq!(
            real_path(&dangling),
            Some(crate::classify::normalize_path(
                &real.join(".claude/settings.json")
            ))
        );
        assert_eq!(real_path(Path::new("relative")), None);
    }
}
