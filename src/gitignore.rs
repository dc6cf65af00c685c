//! Keeping oath's own files in a project out of `git status`, without touching a `.gitignore`
//! of the user's.
//!
//! Folders of a project get files from oath:
//!
//! - `.plan/` (the 3-strike log) is oath's alone: it is created with a `.gitignore` of `*`
//!   inside (`crate::strike`), which ignores the folder and itself.
//! - `.claude/` is Claude Code's, and much of it is meant to be committed (a team's
//!   `settings.json`, its commands). There oath lists in `.claude/.gitignore` only the files
//!   it writes for this machine alone: the settings backups (`*.oath-backup-*`), the phase
//!   (`current-phase.md`: one person's current work, which would otherwise set every
//!   teammate's gate), and for `oath install --local` the personal `settings.local.json` and
//!   the slash commands, which hold this machine's binary path. `oath install --project`
//!   writes `settings.json` and its commands for the team, so they stay visible.
//! - `.gemini/` is Gemini CLI's, meant to be committed too: `oath install --agent gemini
//!   --project` lists there only its settings backups (Codex CLI is installed at user scope
//!   only).
//!
//! oath writes such a folder's `.gitignore` only when there is none, starting with [`HEADER`] and
//! ignoring itself, and later adds lines only to a file that still starts with that header.
//! A `.gitignore` of the user's is never changed: the caller says what to add to it instead.

use std::io::Write;
use std::path::Path;

/// The first line of every `.gitignore` oath writes in a client's folder.
pub const HEADER: &str =
    "# Written by oath for its own files here (delete this line to make the file yours)";

/// The `.gitignore` line for the settings backups.
pub const BACKUPS: &str = "/*.oath-backup-*";

/// The `.claude/.gitignore` line for the phase file.
pub const PHASE: &str = "/current-phase.md";

/// What [`ignore_in_client_dir`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// It wrote a new `.gitignore`.
    Written,
    /// It added lines to its own `.gitignore`.
    Extended,
    /// Its `.gitignore` already listed them all.
    Already,
    /// The `.gitignore` there is the user's: left as it is; these lines are not in it.
    UsersOwn(Vec<String>),
}

/// Makes git ignore `entries` (patterns relative to `dir`, a project's `.claude/` or
/// `.gemini/` folder that exists) through `dir/.gitignore`, as the module says.
pub fn ignore_in_client_dir(dir: &Path, entries: &[&str]) -> std::io::Result<Ignored> {
    let path = dir.join(".gitignore");
    let mut fresh = format!("{HEADER}\n/.gitignore\n");
    for e in entries {
        fresh.push_str(e);
        fresh.push('\n');
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut f) => return f.write_all(fresh.as_bytes()).map(|()| Ignored::Written),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let text = std::fs::read_to_string(&path)?;
    let missing: Vec<&str> = entries
        .iter()
        .copied()
        .filter(|e| !text.lines().any(|l| l.trim_end() == *e))
        .collect();
    if text.lines().next() != Some(HEADER) {
        return Ok(if missing.is_empty() {
            Ignored::Already
        } else {
            Ignored::UsersOwn(missing.into_iter().map(str::to_owned).collect())
        });
    }
    if missing.is_empty() {
        return Ok(Ignored::Already);
    }
    let mut add = String::new();
    if !text.ends_with('\n') {
        add.push('\n');
    }
    for e in missing {
        add.push_str(e);
        add.push('\n');
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)?
        .write_all(add.as_bytes())?;
    Ok(Ignored::Extended)
}

/// A line for people about what [`ignore_in_client_dir`] did, when there is something to
/// say: the lines the user's own `.gitignore` lacks.
pub fn note(dir: &Path, outcome: &std::io::Result<Ignored>) -> Option<String> {
    match outcome {
        Ok(Ignored::UsersOwn(missing)) => Some(format!(
            "{} is yours, so oath left it as it is; add {} to it to keep oath's own files out of git",
            dir.join(".gitignore").display(),
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Err(e) => Some(format!(
            "cannot write {}: {e}; oath's own files there may show in `git status`",
            dir.join(".gitignore").display()
        )),
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oaths_file_is_written_once_and_extended_and_a_users_is_never_touched() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path();
        let ignore = claude.join(".gitignore");
        assert_eq!(
            ignore_in_client_dir(claude, &[PHASE]).unwrap(),
            Ignored::Written
        );
        assert_eq!(
            std::fs::read_to_string(&ignore).unwrap(),
            format!("{HEADER}\n/.gitignore\n/current-phase.md\n")
        );
        assert_eq!(
            ignore_in_client_dir(claude, &[PHASE]).unwrap(),
            Ignored::Already
        );
        assert_eq!(
            ignore_in_client_dir(claude, &[BACKUPS, PHASE]).unwrap(),
            Ignored::Extended
        );
        assert_eq!(
            std::fs::read_to_string(&ignore).unwrap(),
            format!("{HEADER}\n/.gitignore\n/current-phase.md\n/*.oath-backup-*\n")
        );

        // The user's own file: left byte for byte, and what it lacks is said.
        let users = "notes.txt\n/current-phase.md";
        std::fs::write(&ignore, users).unwrap();
        let outcome = ignore_in_client_dir(claude, &[BACKUPS, PHASE]);
        assert_eq!(
            outcome.as_ref().unwrap(),
            &Ignored::UsersOwn(vec![BACKUPS.to_owned()])
        );
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), users);
        let note = note(claude, &outcome).unwrap();
        assert!(note.contains("`/*.oath-backup-*`"), "{note}");
        assert_eq!(
            ignore_in_client_dir(claude, &[PHASE]).unwrap(),
            Ignored::Already
        );
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), users);
    }
}
