//! Effects: what one command does, as its pack and the walker found it. The policy
//! ([`super::policy`]) turns each effect into a domain and a risk.

use std::fmt;

use super::pack::schema::{Act, PathNote};
use super::paths::Target;

/// What one command does.
#[derive(Debug, Clone)]
pub(crate) enum Effect {
    /// It acts on a system other than files (a repository, a cluster, a service …).
    Act(Act),
    /// It reads a path.
    Read(Target),
    /// It writes (creates, overwrites, appends to, edits) a path.
    Write(Target, Option<PathNote>),
    /// It deletes a path.
    Delete {
        /// The path.
        target: Target,
        /// Down directory trees.
        recursive: bool,
        /// Shredding, moving away.
        note: Option<PathNote>,
    },
    /// It changes the permissions or owner of a path.
    Chmod {
        /// The path.
        target: Target,
        /// The program (`chmod`, `chown`, …).
        program: String,
        /// The mode as written (empty when not known).
        mode: String,
        /// Down directory trees.
        recursive: bool,
    },
    /// It destroys what a device or image holds (formats, partitions, erases).
    Wipe(Target),
    /// It sends an HTTP request.
    Http(Request),
    /// It runs code.
    Run(Code),
    /// It sends credentials off the machine.
    Exfiltrate,
    /// It connects a shell to the network.
    ReverseShell,
    /// oath could not tell what runs.
    NotUnderstood,
    /// Words of the command no rule of its pack accounts for (an option the pack does not
    /// describe, a word no rule names), as written.
    Unexplained(Vec<String>),
    /// A word no rule accounts for names something a person must see.
    Exposes(Exposed),
}

/// What a word no rule accounts for names, that a person must see whatever the program does
/// with it.
#[derive(Debug, Clone)]
pub(crate) enum Exposed {
    /// A path oath protects (its own files, the clients' settings and hooks).
    Protected(Target),
    /// A file that holds credentials.
    Credential(Target),
    /// A variable that holds a secret (`$GITHUB_TOKEN`).
    SecretVariable(String),
    /// The home folder or one of its top-level folders.
    Home(Target),
    /// `/`, a system folder, a device or another user's home.
    System(Target),
    /// A cloud metadata address (credentials of the machine).
    Metadata(String),
    /// Shell code oath cannot place (it is judged as if it ran; what it found).
    Code(String),
}

/// An HTTP request, as far as the command line tells.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request {
    /// The method (`GET` without a body, `POST` with one).
    pub method: String,
    /// The first URL's host.
    pub host: String,
    /// The words of the URLs' paths and queries (`_delete_by_query`, `doDelete`).
    pub path_words: Vec<String>,
    /// The words of the request's body (a GraphQL `deleteEntity` mutation).
    pub body_words: Vec<String>,
    /// Every URL is on this machine.
    pub loopback: bool,
    /// The URL names payments or trading (`Some(true)`) or orders (`Some(false)`).
    pub payment: Option<bool>,
    /// It uploads local files.
    pub uploads: bool,
    /// It runs configuration commands given on the command line (`wget -e`).
    pub executes: bool,
    /// The URL is computed at run time.
    pub computed: bool,
}

/// Where code that runs comes from.
#[derive(Debug, Clone)]
pub(crate) enum Code {
    /// Downloaded from the network.
    Downloaded,
    /// Decoded or generated: nobody can read it on the line.
    Hidden,
    /// Whatever the previous command prints.
    Piped,
    /// Computed at run time.
    Computed,
    /// A script file.
    File(Target),
    /// A script file downloaded earlier on the line.
    DownloadedFile(Target),
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Effect::Act(a) => write!(f, "act({a})"),
            Effect::Read(t) => write!(f, "read({})", t.label()),
            Effect::Write(t, _) => write!(f, "write({})", t.label()),
            Effect::Delete {
                target, recursive, ..
            } => {
                if *recursive {
                    write!(f, "delete({}, recursive)", target.label())
                } else {
                    write!(f, "delete({})", target.label())
                }
            }
            Effect::Chmod {
                target, recursive, ..
            } => {
                if *recursive {
                    write!(f, "chmod({}, recursive)", target.label())
                } else {
                    write!(f, "chmod({})", target.label())
                }
            }
            Effect::Wipe(t) => write!(f, "wipe({})", t.label()),
            Effect::Http(r) => {
                if r.host.is_empty() {
                    write!(f, "net({})", r.method)
                } else {
                    write!(f, "net({} {})", r.method, r.host)
                }
            }
            Effect::Run(c) => match c {
                Code::Downloaded => f.write_str("run(downloaded)"),
                Code::Hidden => f.write_str("run(hidden)"),
                Code::Piped => f.write_str("run(stdin)"),
                Code::Computed => f.write_str("run(computed)"),
                Code::File(t) | Code::DownloadedFile(t) => write!(f, "run({})", t.label()),
            },
            Effect::Exfiltrate => f.write_str("net(send secrets)"),
            Effect::ReverseShell => f.write_str("net(shell)"),
            Effect::NotUnderstood => f.write_str("not-understood"),
            Effect::Unexplained(words) => write!(f, "unexplained({})", words.join(", ")),
            Effect::Exposes(e) => match e {
                Exposed::Protected(t) => write!(f, "names(protected {})", t.label()),
                Exposed::Credential(t) => write!(f, "names(credential {})", t.label()),
                Exposed::SecretVariable(v) => write!(f, "names(secret ${v})"),
                Exposed::Home(t) => write!(f, "names(home {})", t.label()),
                Exposed::System(t) => write!(f, "names(system {})", t.label()),
                Exposed::Metadata(h) => write!(f, "names(metadata {h})"),
                Exposed::Code(_) => f.write_str("names(code)"),
            },
        }
    }
}
