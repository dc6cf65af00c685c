//! Codex CLI's `apply_patch` text, read into the files it adds, updates, deletes or moves, and
//! those into Claude Code-shaped calls the engine judges one by one ([`Effect`]): an added
//! file is a `Write`, an updated one an `Edit`, a deleted one `rm -- <path>`, a move
//! `mv -- <from> <to>` (besides the `Edit` of its text). So self-protection and the policy on
//! deletes see every file a patch touches.
//!
//! The format (Codex's `apply_patch` tool):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          then lines starting with `+`
//! *** Delete File: <path>
//! *** Update File: <path>
//! *** Move to: <path>           optional, right after Update File
//! @@ <context>                  then lines starting with ` `, `-` or `+`
//! *** End of File               optional
//! *** End Patch
//! ```
//!
//! Reading is strict where it matters for safety: any line that looks like a marker (`***`
//! after optional blanks) and is not one of these makes the whole patch unreadable, as does a
//! missing `Begin Patch` / `End Patch`, a file header without a path, or text after the end.
//! An unreadable patch is never allowed ([`crate::protocol::Effects::Unreadable`]).

use serde_json::json;

use super::Effect;

/// What a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// `*** Add File:` with the new file's text.
    Add {
        /// The path as written.
        path: String,
        /// The text (lines without their `+`).
        content: String,
    },
    /// `*** Delete File:`.
    Delete {
        /// The path as written.
        path: String,
    },
    /// `*** Update File:`, optionally `*** Move to:`.
    Update {
        /// The path as written.
        path: String,
        /// Where it moves to, if anywhere.
        move_to: Option<String>,
        /// Lines removed or kept as context (the text the edit replaces, roughly).
        old: String,
        /// Lines added or kept as context (the text it becomes, roughly).
        new: String,
    },
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Reads a patch into its file operations, in order. An error says why it is unreadable.
pub fn parse(text: &str) -> Result<Vec<FileOp>, String> {
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    // Blank lines before the patch are tolerated; anything else is not.
    let first = lines.by_ref().find(|l| !l.trim().is_empty());
    if first.map(str::trim) != Some(BEGIN) {
        return Err(format!("the patch does not start with `{BEGIN}`"));
    }
    let mut ops: Vec<FileOp> = Vec::new();
    let mut ended = false;
    for line in lines {
        let marker = line.trim();
        if ended {
            if marker.is_empty() {
                continue;
            }
            return Err(format!("text after `{END}`"));
        }
        if marker.starts_with("***") {
            if marker == END {
                ended = true;
            } else if let Some(p) = marker.strip_prefix(ADD) {
                ops.push(FileOp::Add {
                    path: path_of(p, ADD)?,
                    content: String::new(),
                });
            } else if let Some(p) = marker.strip_prefix(DELETE) {
                ops.push(FileOp::Delete {
                    path: path_of(p, DELETE)?,
                });
            } else if let Some(p) = marker.strip_prefix(UPDATE) {
                ops.push(FileOp::Update {
                    path: path_of(p, UPDATE)?,
                    move_to: None,
                    old: String::new(),
                    new: String::new(),
                });
            } else if let Some(p) = marker.strip_prefix(MOVE) {
                match ops.last_mut() {
                    Some(FileOp::Update {
                        move_to, old, new, ..
                    }) if move_to.is_none() && old.is_empty() && new.is_empty() => {
                        *move_to = Some(path_of(p, MOVE)?);
                    }
                    _ => return Err(format!("`{MOVE}` not right after `{UPDATE}`")),
                }
            } else if marker == END_OF_FILE {
                if !matches!(ops.last(), Some(FileOp::Update { .. })) {
                    return Err(format!("`{END_OF_FILE}` outside an update"));
                }
            } else {
                return Err(format!("unknown patch marker {:?}", clip(marker)));
            }
            continue;
        }
        match ops.last_mut() {
            None => return Err("text before the first file header".into()),
            Some(FileOp::Add { content, .. }) => match line.strip_prefix('+') {
                Some(t) => {
                    content.push_str(t);
                    content.push('\n');
                }
                None => return Err("a line of an added file does not start with `+`".into()),
            },
            Some(FileOp::Delete { .. }) => {
                if !marker.is_empty() {
                    return Err("text after `*** Delete File:`".into());
                }
            }
            Some(FileOp::Update { old, new, .. }) => {
                if line.starts_with("@@") {
                    continue;
                }
                let (sign, t) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
                match sign {
                    "-" => push_line(old, t),
                    "+" => push_line(new, t),
                    " " | "" => {
                        push_line(old, t);
                        push_line(new, t);
                    }
                    _ => {
                        return Err(
                            "a line of an update does not start with ` `, `-` or `+`".into()
                        );
                    }
                }
            }
        }
    }
    if !ended {
        return Err(format!("the patch does not end with `{END}`"));
    }
    if ops.is_empty() {
        return Err("the patch names no file".into());
    }
    Ok(ops)
}

fn push_line(to: &mut String, line: &str) {
    to.push_str(line);
    to.push('\n');
}

fn path_of(rest: &str, marker: &str) -> Result<String, String> {
    let p = rest.trim();
    if p.is_empty() {
        Err(format!("`{marker}` without a path"))
    } else {
        Ok(p.to_owned())
    }
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Quotes a path for a POSIX shell (single quotes; a quote inside as `'\''`).
fn quote(path: &str) -> String {
    format!("'{}'", path.replace('\'', r"'\''"))
}

/// Returns the Claude Code-shaped calls the operations amount to.
pub fn effects(ops: &[FileOp]) -> Vec<Effect> {
    let mut out = Vec::new();
    for op in ops {
        match op {
            FileOp::Add { path, content } => out.push(Effect {
                tool_name: "Write".into(),
                tool_input: json!({"file_path": path, "content": content}),
            }),
            FileOp::Delete { path } => out.push(Effect {
                tool_name: "Bash".into(),
                tool_input: json!({"command": format!("rm -- {}", quote(path))}),
            }),
            FileOp::Update {
                path,
                move_to,
                old,
                new,
            } => {
                out.push(Effect {
                    tool_name: "Edit".into(),
                    tool_input: json!({"file_path": path, "old_string": old, "new_string": new}),
                });
                if let Some(to) = move_to {
                    out.push(Effect {
                        tool_name: "Bash".into(),
                        tool_input: json!({
                            "command": format!("mv -- {} {}", quote(path), quote(to))
                        }),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<FileOp> {
        parse(text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    #[test]
    fn add_update_delete_and_move_are_read_in_order() {
        let ops = ok("*** Begin Patch\n\
             *** Add File: a/new.txt\n+one\n+two\n\
             *** Update File: src/lib.rs\n@@ fn main\n keep\n-old\n+new\n*** End of File\n\
             *** Delete File: gone.txt\n\
             *** Update File: from.rs\n*** Move to: to.rs\n@@\n-x\n+y\n\
             *** End Patch\n");
        assert_eq!(
            ops,
            vec![
                FileOp::Add {
                    path: "a/new.txt".into(),
                    content: "one\ntwo\n".into()
                },
                FileOp::Update {
                    path: "src/lib.rs".into(),
                    move_to: None,
                    old: "keep\nold\n".into(),
                    new: "keep\nnew\n".into()
                },
                FileOp::Delete {
                    path: "gone.txt".into()
                },
                FileOp::Update {
                    path: "from.rs".into(),
                    move_to: Some("to.rs".into()),
                    old: "x\n".into(),
                    new: "y\n".into()
                },
            ]
        );
        let e = effects(&ops);
        let names: Vec<&str> = e.iter().map(|e| e.tool_name.as_str()).collect();
        assert_eq!(names, ["Write", "Edit", "Bash", "Edit", "Bash"]);
        assert_eq!(e[0].tool_input["file_path"], "a/new.txt");
        assert_eq!(e[2].tool_input["command"], "rm -- 'gone.txt'");
        assert_eq!(e[4].tool_input["command"], "mv -- 'from.rs' 'to.rs'");
    }

    /// The fixture's patch, as Codex CLI 0.169.0 sent it (no newline at the end).
    #[test]
    fn the_captured_patch_is_one_added_file() {
        let ops =
            ok("*** Begin Patch\n*** Add File: patched.txt\n+hello from patch\n*** End Patch");
        assert_eq!(
            ops,
            vec![FileOp::Add {
                path: "patched.txt".into(),
                content: "hello from patch\n".into()
            }]
        );
    }

    /// A header indented or followed by blanks is still a header: no file escapes the check.
    #[test]
    fn indented_headers_are_still_seen() {
        let ops = ok("  *** Begin Patch\n   *** Delete File:   x y.txt  \n*** End Patch  \n\n");
        assert_eq!(
            ops,
            vec![FileOp::Delete {
                path: "x y.txt".into()
            }]
        );
        assert_eq!(effects(&ops)[0].tool_input["command"], "rm -- 'x y.txt'");
    }

    #[test]
    fn quotes_in_paths_stay_one_word() {
        let e = effects(&[FileOp::Delete {
            path: "it's $(x)".into(),
        }]);
        assert_eq!(e[0].tool_input["command"], r"rm -- 'it'\''s $(x)'");
    }

    #[test]
    fn malformed_patches_are_unreadable() {
        for bad in [
            "",
            "*** Add File: a\n+x\n*** End Patch",
            "*** Begin Patch\n*** Add File: a\n+x\n",
            "*** Begin Patch\n*** End Patch",
            "*** Begin Patch\n*** Add File:\n+x\n*** End Patch",
            "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
            "*** Begin Patch\n*** Copy File: a\n*** End Patch",
            "*** Begin Patch\n*** Move to: b\n*** End Patch",
            "*** Begin Patch\n*** Add File: a\n*** Move to: b\n*** End Patch",
            "*** Begin Patch\n*** Update File: a\n-x\n*** Move to: b\n*** End Patch",
            "*** Begin Patch\n*** Delete File: a\nrest\n*** End Patch",
            "*** Begin Patch\n*** Update File: a\n?x\n*** End Patch",
            "*** Begin Patch\n+x\n*** End Patch",
            "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Delete File: b\n",
            "*** Begin Patch\n*** End of File\n*** Add File: a\n*** End Patch",
        ] {
            assert!(parse(bad).is_err(), "read: {bad:?}");
        }
    }
}
