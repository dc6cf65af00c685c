//! Applying a report's `try[].persistence_target`s of type `claude_md`: each try's description
//! goes into a managed block under the named section of the named file.
//!
//! The block is delimited by [`BLOCK_BEGIN`] / [`BLOCK_END`] and each item carries a marker
//! naming its report and try, so a second apply changes nothing (an item whose marker or whose
//! exact text is already in the file is skipped). A missing section is appended with its block;
//! a missing file is created. Headings inside fenced code blocks are ignored.
//!
//! Only CLAUDE.md-family files are written ([`claude_md_target`]): `CLAUDE.md` or
//! `CLAUDE.local.md` inside the project (its `.claude/` included) and `~/.claude/CLAUDE.md`; a
//! try naming any other path is described, not applied. A symlinked CLAUDE.md is written
//! through to its target; a file's mode, line endings (CRLF) and byte-order mark are kept.

use std::path::{Path, PathBuf};

use super::report::{Report, TargetType};

/// First line of the managed block.
pub const BLOCK_BEGIN: &str = "<!-- oath:kpt begin (managed by `oath kpt apply`) -->";
/// Last line of the managed block.
pub const BLOCK_END: &str = "<!-- oath:kpt end -->";
/// Section used when a `claude_md` target names none.
pub const DEFAULT_SECTION: &str = "## Lessons from retrospectives";

/// The change planned for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// Its text now (empty when missing).
    pub before: String,
    /// Its text after the change.
    pub after: String,
    /// Tries added.
    pub added: Vec<String>,
    /// Tries skipped because already present.
    pub present: Vec<String>,
}

/// What applying a report would do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Changes to CLAUDE.md files (possibly with nothing added).
    pub files: Vec<FileChange>,
    /// Targets oath does not apply, described for the person.
    pub manual: Vec<String>,
}

/// File names oath writes tries into.
pub const CLAUDE_MD_NAMES: &[&str] = &["CLAUDE.md", "CLAUDE.local.md"];

/// Returns a path with `.` and `..` resolved by the words alone (no file system).
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Checks that a resolved target is a CLAUDE.md-family file: `CLAUDE.md` or
/// `CLAUDE.local.md` in the project (any folder of it, `.claude/` included), or the user's
/// `~/.claude/CLAUDE.md`. Returns the path with `..` resolved, or why it is refused.
pub fn claude_md_target(path: &Path, root: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let path = lexical(path);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !CLAUDE_MD_NAMES.contains(&name) {
        return Err(format!(
            "{} is not a CLAUDE.md file (oath writes tries only into CLAUDE.md or CLAUDE.local.md)",
            path.display()
        ));
    }
    let in_project = path.starts_with(lexical(root));
    let user = home.is_some_and(|h| path == lexical(&h.join(".claude/CLAUDE.md")));
    if in_project || user {
        Ok(path)
    } else {
        Err(format!(
            "{} is outside the project and is not ~/.claude/CLAUDE.md",
            path.display()
        ))
    }
}

/// Returns the file a write to `path` lands in: the target of a symlink (followed to its
/// end, even when the target does not exist yet), else the path itself.
pub fn write_destination(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) if target.is_relative() => lexical(&dir.join(target)),
                    _ => target,
                };
            }
            Err(_) => return p,
        }
    }
    p
}

/// Expands `~/` with `home` and makes relative paths relative to `root`.
pub fn resolve_path(p: &str, home: Option<&Path>, root: &Path) -> PathBuf {
    if let (Some(rest), Some(h)) = (p.strip_prefix("~/"), home) {
        return h.join(rest);
    }
    let path = PathBuf::from(p);
    if path.is_absolute() {
        path
    } else {
        root.join(path)
    }
}

fn heading_level(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_end();
    let level = t.chars().take_while(|c| *c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &t[level..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((level, rest.trim()))
}

fn normalize_section(s: Option<&str>) -> String {
    match s.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) if heading_level(s).is_some() => s.to_owned(),
        Some(s) => format!("## {s}"),
        None => DEFAULT_SECTION.to_owned(),
    }
}

/// Inserts one item under a section of a Markdown text; returns the new text.
pub fn insert_item(text: &str, section: &str, item: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let (want_level, want_title) = heading_level(section).unwrap_or((2, section));
    let mut in_fence = false;
    let mut start = None;
    let mut end = lines.len();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((level, title)) = heading_level(l) {
            match start {
                None if title == want_title => start = Some(i),
                Some(_) if level <= want_level => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
    }
    let Some(start) = start else {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(section.to_owned());
        lines.push(String::new());
        lines.push(BLOCK_BEGIN.to_owned());
        lines.push(item.to_owned());
        lines.push(BLOCK_END.to_owned());
        return lines.join("\n") + "\n";
    };
    let _ = want_level;
    if let Some(e) = (start..end).find(|i| lines[*i].trim() == BLOCK_END)
        && (start..e).any(|i| lines[i].trim() == BLOCK_BEGIN)
    {
        lines.insert(e, item.to_owned());
        return lines.join("\n") + "\n";
    }
    let mut at = end;
    while at > start + 1 && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    let mut block = vec![
        String::new(),
        BLOCK_BEGIN.to_owned(),
        item.to_owned(),
        BLOCK_END.to_owned(),
    ];
    if at < lines.len() && !lines[at].trim().is_empty() {
        block.push(String::new());
    }
    for (k, l) in block.into_iter().enumerate() {
        lines.insert(at + k, l);
    }
    lines.join("\n") + "\n"
}

/// Returns the managed line of one try.
pub fn item_line(report_id: &str, try_id: &str, description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("- {one_line} <!-- oath-kpt: {report_id}/{try_id} -->")
}

/// Plans the application of a report; `resolve` turns a target's path into the file to
/// write (or why it is refused), `read` returns a file's text (`None` when missing).
pub fn plan(
    report: &Report,
    resolve: impl Fn(&str) -> Result<PathBuf, String>,
    read: impl Fn(&Path) -> Option<String>,
) -> Plan {
    let mut out = Plan::default();
    for t in &report.tries {
        let Some(target) = &t.persistence_target else {
            continue;
        };
        if target.kind != TargetType::ClaudeMd {
            out.manual.push(format!(
                "{}: a {} target at {}{} is not applied by oath; add \"{}\" there yourself",
                t.id,
                target.kind.as_str(),
                target.path,
                target
                    .section
                    .as_deref()
                    .map(|s| format!(" (section {s})"))
                    .unwrap_or_default(),
                t.description.trim()
            ));
            continue;
        }
        let path = match resolve(&target.path) {
            Ok(p) => p,
            Err(why) => {
                out.manual.push(format!("{}: not applied: {why}", t.id));
                continue;
            }
        };
        let idx = match out.files.iter().position(|f| f.path == path) {
            Some(i) => i,
            None => {
                let before = read(&path).unwrap_or_default();
                out.files.push(FileChange {
                    path: path.clone(),
                    after: before.clone(),
                    before,
                    added: Vec::new(),
                    present: Vec::new(),
                });
                out.files.len() - 1
            }
        };
        let change = &mut out.files[idx];
        // Planned on LF text without a byte-order mark; both are put back below.
        let (bom, crlf) = text_form(&change.before);
        if bom || crlf {
            change.after = plain_form(&change.after);
        }
        let marker = format!("oath-kpt: {}/{}", report.id, t.id);
        // The file is the user's (a CLAUDE.md): its own text is kept as it is, and what oath
        // adds to it is redacted like everything oath writes.
        let line = item_line(
            &report.id,
            &t.id,
            &crate::redact::redact_str(&t.description),
        );
        let text_part = line
            .split(" <!-- oath-kpt:")
            .next()
            .unwrap_or(&line)
            .to_owned();
        let already = change.after.lines().any(|l| {
            l.contains(&marker) || l.split(" <!-- oath-kpt:").next() == Some(text_part.as_str())
        });
        if already {
            change.present.push(t.id.clone());
            continue;
        }
        let section = normalize_section(target.section.as_deref());
        change.after = insert_item(&change.after, &section, &line);
        change.added.push(t.id.clone());
    }
    for change in &mut out.files {
        let (bom, crlf) = text_form(&change.before);
        if change.added.is_empty() {
            change.after = change.before.clone();
            continue;
        }
        let mut text = plain_form(&change.after);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        if bom {
            text.insert(0, '\u{feff}');
        }
        change.after = text;
    }
    out
}

/// Returns whether a text starts with a byte-order mark and whether it ends its lines with
/// CRLF (most of them).
fn text_form(text: &str) -> (bool, bool) {
    let crlf = text.matches("\r\n").count();
    (
        text.starts_with('\u{feff}'),
        crlf > 0 && crlf * 2 >= text.matches('\n').count(),
    )
}

/// Returns a text without its byte-order mark, with LF line ends.
fn plain_form(text: &str) -> String {
    text.trim_start_matches('\u{feff}').replace("\r\n", "\n")
}

/// Returns a unified diff of a file's change (two lines of context), as `diff -u` prints it.
pub fn diff(path: &Path, before: &str, after: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&name, &name)
        .to_string()
}

/// Writes a file atomically (temp file in the same folder, fsync, rename).
pub fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".oath-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    // The file keeps its mode (a new one gets the umask's, not the temp file's 0600).
    let mode = match std::fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(_) => default_permissions(dir),
    };
    if let Some(mode) = mode {
        tmp.as_file().set_permissions(mode)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Returns the permissions a new file in `dir` would get (read from a probe file).
fn default_permissions(dir: &Path) -> Option<std::fs::Permissions> {
    let probe = dir.join(format!(".oath-mode-probe-{}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .ok()?;
    let mode = file.metadata().ok().map(|m| m.permissions());
    drop(file);
    let _ = std::fs::remove_file(&probe);
    mode
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_under_the_right_section_and_reuses_the_block() {
        let text = "# Title\n\n## パッケージ管理\n\nexisting rule\n\n## Other\n\nx\n";
        let a = insert_item(text, "## パッケージ管理", "- one");
        assert_eq!(
            a,
            format!(
                "# Title\n\n## パッケージ管理\n\nexisting rule\n\n{BLOCK_BEGIN}\n- one\n{BLOCK_END}\n\n## Other\n\nx\n"
            )
        );
        let b = insert_item(&a, "## パッケージ管理", "- two");
        assert!(b.contains(&format!("- one\n- two\n{BLOCK_END}")), "{b}");
        let c = insert_item("", "## New", "- x");
        assert_eq!(c, format!("## New\n\n{BLOCK_BEGIN}\n- x\n{BLOCK_END}\n"));
        let fenced = "```\n## New\n```\n";
        let d = insert_item(fenced, "## New", "- x");
        assert!(d.starts_with("```\n## New\n```\n\n## New\n"), "{d}");
    }

    #[test]
    fn target_paths() {
        let root = Path::new("/repo");
        let home = Path::new("/home/u");
        assert_eq!(
            resolve_path("~/.claude/CLAUDE.md", Some(home), root),
            home.join(".claude/CLAUDE.md")
        );
        assert_eq!(
            resolve_path("CLAUDE.md", Some(home), root),
            root.join("CLAUDE.md")
        );
        assert_eq!(
            resolve_path("/etc/x.md", Some(home), root),
            PathBuf::from("/etc/x.md")
        );
    }

    #[test]
    fn diff_shows_insertions_with_context() {
        let d = diff(Path::new("f"), "a\nb\nc\n", "a\nb\nX\nc\n");
        assert_eq!(d, "--- f\n+++ f\n@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n");
        // Far apart insertions: two hunks, each with two lines of context.
        let before: String = (0..20).map(|i| format!("{i}\n")).collect();
        let after = before.replace("3\n", "3\nA\n").replace("15\n", "15\nB\n");
        let d = diff(Path::new("f"), &before, &after);
        assert_eq!(d.matches("@@ ").count(), 2, "{d}");
        assert!(d.contains("@@ -3,4 +3,5 @@\n 2\n 3\n+A\n 4\n 5\n"), "{d}");
        assert!(!d.contains(" 10\n"), "{d}");
    }
}
