//! Paths compared as bytes: lexical normalisation, and the helpers that read a
//! normalised path without parsing its components.

use std::path::{Path, PathBuf};

/// Lexically normalises a path: `.` and repeated or trailing slashes removed, `..` applied
/// (at the root of an absolute path it stays at the root). The result's bytes are canonical,
/// so [`is_under`] can compare them without parsing components.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    // Most paths (the project root, HOME, protected paths) already are: a copy, not a rebuild.
    if cfg!(unix) && is_normalized(bytes(p)) {
        return p.to_path_buf();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(normalize_bytes(bytes(p))))
    }
    #[cfg(not(unix))]
    normalize_components(p)
}

/// `normalize_components` on the bytes of a Unix path, without parsing components (a
/// property test holds the two to the same answers).
#[cfg(unix)]
pub(super) fn normalize_bytes(p: &[u8]) -> Vec<u8> {
    let absolute = p.first() == Some(&b'/');
    let mut out = Vec::with_capacity(p.len());
    if absolute {
        out.push(b'/');
    }
    // Segments other than `..` in `out`: only those can be removed by a later `..`.
    let mut normals = 0usize;
    for seg in p.split(|&b| b == b'/') {
        match seg {
            b"" | b"." => {}
            b".." if normals > 0 => {
                let cut = out.iter().rposition(|&b| b == b'/').unwrap_or(0);
                out.truncate(if absolute { cut.max(1) } else { cut });
                normals -= 1;
            }
            b".." if absolute => {}
            seg => {
                if !out.is_empty() && out.last() != Some(&b'/') {
                    out.push(b'/');
                }
                out.extend_from_slice(seg);
                normals += usize::from(seg != b"..");
            }
        }
    }
    out
}

/// [`normalize`] the long way, component by component (on Unix, the reference the bytes
/// version is tested against).
#[cfg(any(not(unix), test))]
pub(super) fn normalize_components(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    let mut normals = 0usize;
    for c in p.components() {
        match c {
            Component::ParentDir if normals > 0 => {
                out.pop();
                normals -= 1;
            }
            Component::ParentDir => {
                if !p.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(n) => {
                out.push(n);
                normals += 1;
            }
            Component::RootDir => out.push("/"),
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::CurDir => {}
        }
    }
    out
}

/// Returns `p` normalised, taken from `base` when relative.
pub(crate) fn absolute(base: &Path, p: &Path) -> PathBuf {
    if p.has_root() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    }
}

/// Returns the bytes of a path.
pub(super) fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// Returns whether normalised `p` is `base` or inside it (what `Path::starts_with` answers,
/// without parsing components: both paths are normalised, so bytes decide).
pub(super) fn is_under(p: &[u8], base: &[u8]) -> bool {
    match p.strip_prefix(base) {
        Some(rest) => !base.is_empty() && (rest.is_empty() || rest[0] == b'/' || base == b"/"),
        None => false,
    }
}

/// [`is_under`], ASCII letters compared in any case.
pub(super) fn is_under_any_case(p: &[u8], base: &[u8]) -> bool {
    p.len() >= base.len()
        && p[..base.len()].eq_ignore_ascii_case(base)
        && !base.is_empty()
        && (p.len() == base.len() || p[base.len()] == b'/' || base == b"/")
}

/// Returns whether a path is already normalised (absolute paths from [`resolve`] are).
pub(super) fn is_normalized(p: &[u8]) -> bool {
    if p == b"/" {
        return true;
    }
    !p.ends_with(b"/")
        && !p.windows(2).any(|w| w == b"//")
        && !p
            .split(|&b| b == b'/')
            .any(|seg| seg == b"." || seg == b"..")
}

/// Returns the last component of a normalised path ("" for `/`).
pub(super) fn file_name(p: &[u8]) -> &[u8] {
    match p.iter().rposition(|&b| b == b'/') {
        Some(i) => &p[i + 1..],
        None => p,
    }
}

/// Returns the parent of a normalised absolute path (None for `/`).
pub(super) fn parent(p: &[u8]) -> Option<&[u8]> {
    match p.iter().rposition(|&b| b == b'/') {
        Some(0) if p.len() > 1 => Some(b"/"),
        Some(0) | None => None,
        Some(i) => Some(&p[..i]),
    }
}

/// Returns the extension of a file name as `Path::extension` does (none for dot files).
pub(super) fn extension(name: &[u8]) -> &[u8] {
    if name == b".." {
        return b"";
    }
    match name.iter().rposition(|&b| b == b'.') {
        Some(0) | None => b"",
        Some(i) => &name[i + 1..],
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn normalize_table() {
        for (input, want) in [
            ("/a/b", "/a/b"),
            ("/a//b/", "/a/b"),
            ("/a/./b/../c", "/a/c"),
            ("/../..", "/"),
            ("/", "/"),
            ("a/../../b", "../b"),
            ("./a/", "a"),
            ("", ""),
        ] {
            assert_eq!(normalize(Path::new(input)), PathBuf::from(want), "{input}");
        }
    }

    #[test]
    fn byte_helpers_table() {
        assert!(is_normalized(b"/a/b") && is_normalized(b"/") && is_normalized(b"a"));
        for bad in [&b"/a//b"[..], b"/a/", b"/a/./b", b"/a/..", b"./a"] {
            assert!(!is_normalized(bad), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parent(b"/a/b"), Some(&b"/a"[..]));
        assert_eq!(parent(b"/a"), Some(&b"/"[..]));
        assert_eq!(parent(b"/"), None);
        assert_eq!(file_name(b"/a/b.rs"), b"b.rs");
        assert_eq!(file_name(b"/"), b"");
        for (name, ext) in [
            ("b.rs", "rs"),
            (".bashrc", ""),
            ("a.tar.gz", "gz"),
            ("a.", ""),
            ("..", ""),
            ("x", ""),
        ] {
            assert_eq!(extension(name.as_bytes()), ext.as_bytes(), "{name}");
            assert_eq!(
                Path::new(name)
                    .extension()
                    .map_or("", |e| e.to_str().unwrap()),
                ext,
                "std agrees on {name}"
            );
        }
        assert!(!is_under(b"/a", b""), "an empty base holds nothing");
        assert_eq!(
            absolute(Path::new("/p"), Path::new("")),
            PathBuf::from("/p")
        );
        assert_eq!(
            absolute(Path::new("/p"), Path::new("../..")),
            PathBuf::from("/")
        );
        assert_eq!(
            absolute(Path::new("/"), Path::new("a/./b")),
            PathBuf::from("/a/b")
        );
    }

    proptest! {
        /// On normalised paths the byte comparison answers what `Path::starts_with` answers.
        #[test]
        fn is_under_matches_path_starts_with(
            a in prop::collection::vec(prop::sample::select(vec!["a", "b", "ab", ".x", "..", "."]), 0..5),
            b in prop::collection::vec(prop::sample::select(vec!["a", "b", "ab", ".x", "..", "."]), 0..5),
        ) {
            let p = normalize(&PathBuf::from(format!("/{}", a.join("/"))));
            let q = normalize(&PathBuf::from(format!("/{}", b.join("/"))));
            prop_assert!(is_normalized(bytes(&p)) && is_normalized(bytes(&q)));
            prop_assert_eq!(is_under(bytes(&p), bytes(&q)), p.starts_with(&q), "{:?} under {:?}", p, q);
        }

        /// Normalising the bytes answers what normalising the components does.
        #[test]
        fn normalize_bytes_matches_the_components(
            absolute in any::<bool>(),
            segments in prop::collection::vec(prop::sample::select(vec!["a", "", "..", ".", "b.c", "..."]), 0..7),
            trailing in any::<bool>(),
        ) {
            let p = PathBuf::from(format!(
                "{}{}{}",
                if absolute { "/" } else { "" },
                segments.join("/"),
                if trailing { "/" } else { "" },
            ));
            let bytes_way = PathBuf::from(String::from_utf8(normalize_bytes(bytes(&p))).unwrap());
            prop_assert_eq!(bytes_way, normalize_components(&p), "{:?}", p);
        }

        /// The shortcut for paths already normalised changes no answer.
        #[test]
        fn normalize_shortcut_matches_the_long_way(
            parts in prop::collection::vec(prop::sample::select(vec!["a", "", "..", ".", "b.c", "/"]), 0..6),
        ) {
            let p = PathBuf::from(parts.concat());
            prop_assert_eq!(normalize(&p), normalize_components(&p), "{:?}", p);
        }
    }
}
