//! The policy of code that runs: downloaded, hidden, piped, computed, a script file, inline
//! interpreter code and PowerShell text by what their words say.

use super::super::effect::{Code, CodeDoes};
use std::path::Path;

use super::super::paths::{Target, Zone};
use super::super::rule::Finding;
use super::super::{Domain, Kind, Risk};

pub(super) fn run(code: &Code, verb: &str) -> Finding {
    match code {
        Code::Config(t) => config(t, verb),
        Code::Repository(t) => repository(t, verb),
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

/// The finding for a configuration, plugin or library folder a program loads, which can name
/// commands it runs, outside the places it reads by itself: the system's (written with root's
/// rights) are the machine's own; anywhere else is a file nobody vetted.
fn config(t: &Target, verb: &str) -> Finding {
    let shown = t.shown();
    if t.path.is_none() {
        return Finding::new(
            Domain::ShellExec,
            Risk::High,
            "config-computed",
            format!(
                "{verb} configuration, plugins or libraries from a place computed at run time, which can name commands it runs: oath cannot tell what runs"
            ),
        )
        .kind(Kind::NotUnderstood);
    }
    if t.protected {
        return Finding::new(
            Domain::Global,
            Risk::High,
            "oath-cli",
            format!("{verb} oath's own files as its configuration"),
        )
        .kind(Kind::Irreversible);
    }
    let none = t.zone == Zone::Harmless && t.path.as_deref() == Some(Path::new("/dev/null"));
    if none || t.zone == Zone::System && !user_writable_system(t) {
        return Finding::new(
            Domain::ShellExec,
            Risk::Low,
            "config-system",
            format!("{verb} configuration or libraries from {shown}, the system's own"),
        );
    }
    Finding::new(
        Domain::ShellExec,
        Risk::High,
        "config-foreign",
        format!(
            "{verb} configuration, plugins or libraries from {shown}, which can name commands it runs: nothing says what is there, so oath cannot tell what runs"
        ),
    )
    .kind(Kind::NotUnderstood)
    .alt("use the program's own configuration, or read the file first")
}

/// The finding for working in a repository outside the project: its configuration names
/// programs git runs (`core.fsmonitor`, the pager, aliases, hooks). Only git and deliberate
/// writes change it, so it is the user's where writing needs a person (the home, the system);
/// a temporary folder, which the agent writes freely, or a place computed at run time may
/// hold any.
fn repository(t: &Target, verb: &str) -> Finding {
    let shown = t.shown();
    let open = t.path.is_none()
        || matches!(
            t.zone,
            Zone::Temp | Zone::OtherHome | Zone::Device | Zone::Harmless | Zone::Network
        )
        || t.zone == Zone::System && user_writable_system(t);
    if !open {
        return Finding::new(
            Domain::GitRead,
            Risk::Low,
            "repository-kept",
            format!(
                "{verb} the configuration of the repository in {shown}, which only git and asked writes change"
            ),
        );
    }
    let place = if t.path.is_none() {
        "a folder computed at run time".to_owned()
    } else {
        format!("{shown}, a folder written without asking")
    };
    Finding::new(
        Domain::ShellExec,
        Risk::High,
        "repository-foreign",
        format!(
            "{verb} the configuration of the repository in {place}: its fsmonitor, pager, aliases or hooks can run anything, so oath cannot tell what runs"
        ),
    )
    .kind(Kind::NotUnderstood)
    .alt("run git on the project's own repository, or look at that repository's .git/config first")
}

/// Returns whether a path in a system folder is one the user (or another process) writes
/// without root: runtime folders, process files and descriptors, macOS's per-user
/// temporary folders.
fn user_writable_system(t: &Target) -> bool {
    t.path.as_deref().is_some_and(|p| {
        [
            "/proc",
            "/run",
            "/var/run",
            "/var/folders",
            "/private",
            "/sys",
        ]
        .iter()
        .any(|d| p.starts_with(d))
    })
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
