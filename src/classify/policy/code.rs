//! The policy of code that runs: downloaded, hidden, piped, computed, a script file, inline
//! interpreter code and PowerShell text by what their words say.

use super::super::effect::{Code, CodeDoes};
use super::super::rule::Finding;
use super::super::{Domain, Kind, Risk};

pub(super) fn run(code: &Code, verb: &str) -> Finding {
    match code {
        Code::Downloaded => run_downloaded(&format!("{verb} downloaded code")),
        Code::DownloadedFile(t) => run_downloaded(&format!(
            "{verb} {}, downloaded earlier on this line",
            t.shown()
        )),
        Code::Hidden => Finding::new(
            Domain::ShellExec,
            Risk::Critical,
            "run-hidden-code",
            format!("{verb} decoded or generated text: the code that runs is hidden"),
        )
        .alt("write the commands out literally"),
        Code::Piped => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "pipe-to-shell",
            format!("{verb} whatever the previous command prints"),
        )
        .kind(Kind::NotUnderstood),
        Code::Computed => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "unknown-code",
            format!("{verb} code computed at run time"),
        )
        .kind(Kind::NotUnderstood),
        Code::Read(t) => Finding::new(
            Domain::Build,
            Risk::Low,
            "run-script-read",
            format!(
                "{verb} {}; oath read it, and its commands are judged as if they were on the line",
                t.shown()
            ),
        ),
        Code::Unread(t, why) => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "run-script-unread",
            format!("{verb} {}, and {}", t.shown(), why.says()),
        )
        .kind(Kind::NotUnderstood),
        Code::File(t) => {
            if t.path.is_none() {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "run-generated-code",
                    format!("{verb} a script whose name or content is computed at run time"),
                )
                .kind(Kind::NotUnderstood)
            } else if t.protected {
                Finding::new(
                    Domain::Global,
                    Risk::High,
                    "oath-cli",
                    format!("{verb} oath's own files"),
                )
                .kind(Kind::Irreversible)
            } else if t.in_project() {
                Finding::new(
                    Domain::Build,
                    Risk::Medium,
                    "run-script",
                    format!("{verb} {}, a script in the project", t.shown()),
                )
            } else {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "run-script-outside",
                    format!("{verb} {}, a program outside the project", t.shown()),
                )
                .kind(Kind::NotUnderstood)
            }
        }
    }
}

/// The finding for running code nobody has read.
pub(crate) fn run_downloaded(why: &str) -> Finding {
    Finding::new(
        Domain::Network,
        Risk::Critical,
        "run-downloaded-code",
        format!("{why}: runs code nobody has read"),
    )
    .alt("download to a file and read it before running it")
}

/// Returns the finding for inline interpreter code that does `does`, by its words.
pub(super) fn interpreted(lang: &str, does: CodeDoes) -> Finding {
    match does {
        CodeDoes::ReverseShell => Finding::new(
            Domain::Network,
            Risk::Critical,
            "reverse-shell",
            format!("the {lang} code connects a shell to a network socket"),
        ),
        CodeDoes::RunsDownloaded => Finding::new(
            Domain::Network,
            Risk::Critical,
            "run-downloaded-code",
            format!("the {lang} code downloads code and runs it"),
        )
        .alt("download to a file and read it before running it"),
        CodeDoes::ChangesOath => Finding::new(
            Domain::Global,
            Risk::Critical,
            "oath-self-protect",
            format!(
                "the {lang} code changes oath's own files; people change these through the `oath` CLI"
            ),
        ),
        CodeDoes::WipesDisk => Finding::new(
            Domain::ShellExec,
            Risk::Critical,
            "disk-tool",
            format!("the {lang} code formats or wipes a disk"),
        ),
        CodeDoes::DeletesOutside => Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "interpreter-delete-outside",
            format!("the {lang} code deletes a home, system or other user's path"),
        )
        .alt("delete specific paths inside the project"),
        CodeDoes::Deletes => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "interpreter-delete",
            format!("the {lang} code deletes files"),
        ),
        CodeDoes::Spawns => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "interpreter-spawn",
            format!("the {lang} code runs other programs"),
        ),
        CodeDoes::Network => Finding::new(
            Domain::Network,
            Risk::High,
            "interpreter-network",
            format!("the {lang} code talks to the network"),
        ),
        CodeDoes::Evaluates => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "interpreter-eval",
            format!("the {lang} code evaluates generated code"),
        ),
        CodeDoes::Writes => Finding::new(
            Domain::FileWrite,
            Risk::Medium,
            "interpreter-write",
            format!("the {lang} code writes files"),
        ),
        CodeDoes::Other => Finding::new(
            Domain::ShellExec,
            Risk::Medium,
            "interpreter-code",
            format!("runs inline {lang} code"),
        ),
    }
}

/// Returns the finding for PowerShell text that does `does`, by its words: it cannot be
/// parsed as bash, so it is never low.
pub(super) fn powershell(does: CodeDoes) -> Finding {
    match does {
        CodeDoes::RunsDownloaded => Finding::new(
            Domain::Network,
            Risk::Critical,
            "run-downloaded-code",
            "PowerShell runs downloaded or encoded code",
        )
        .alt("download to a file and read it before running it"),
        CodeDoes::WipesDisk => Finding::new(
            Domain::ShellExec,
            Risk::Critical,
            "disk-tool",
            "PowerShell formats or wipes a disk",
        ),
        CodeDoes::Deletes => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "powershell-delete",
            "PowerShell deletes recursively",
        ),
        CodeDoes::Evaluates => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "powershell-admin",
            "PowerShell evaluates code or changes system settings",
        ),
        CodeDoes::Other => Finding::new(
            Domain::ShellExec,
            Risk::Medium,
            "powershell",
            "PowerShell cannot be parsed like bash, so it is never auto-approved as low risk",
        ),
        other => interpreted("PowerShell", other),
    }
}
