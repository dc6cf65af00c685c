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
    /// It writes (creates, overwrites, appends to, edits) a path; [`PathNote::Overwrites`]
    /// when it replaces what the file held (judged as deleting it).
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
    /// It hands a variable that holds a secret (its name) to another program or system: a
    /// container (`docker run -e GITHUB_TOKEN`), a service.
    HandsSecret(String),
    /// It connects a shell to the network.
    ReverseShell,
    /// oath could not tell what runs.
    NotUnderstood,
    /// Words of the command no rule of its pack accounts for (an option the pack does not
    /// describe, a word no rule names), as written.
    Unexplained(Vec<String>),
    /// A word no rule accounts for names something a person must see.
    Exposes(Exposed),
    /// It reaches the cloud instance metadata service (which hands out the machine's
    /// credentials).
    Metadata,
    /// A rule that writes (or deletes) paths was given none.
    NoPath {
        /// It deletes.
        delete: bool,
    },
    /// Git rewrites files in `.claude` that hold Claude Code's settings or hooks.
    RewritesSettings,
    /// The client's own file tool writes a path (it keeps a checkpoint of what it changes).
    Edit(Target),
    /// A tool of the agent's client that is not a shell or a file tool.
    Tool(ToolUse),
    /// A tool of an MCP server, as its name and arguments say.
    Mcp(McpUse),
    /// Inline interpreter code (`python -c`), as its words say.
    Interpreted {
        /// The language (`python`, `js`).
        lang: String,
        /// What its words say it does.
        does: CodeDoes,
    },
    /// PowerShell text, as its words say (it is not parsed).
    PowerShell(CodeDoes),
}

impl Effect {
    /// Returns the path the effect judges, when it judges one.
    pub(crate) fn target(&self) -> Option<&Target> {
        match self {
            Effect::Read(t)
            | Effect::Write(t, _)
            | Effect::Wipe(t)
            | Effect::Edit(t)
            | Effect::Delete { target: t, .. }
            | Effect::Chmod { target: t, .. }
            | Effect::Run(Code::File(t) | Code::DownloadedFile(t))
            | Effect::Exposes(
                Exposed::Protected(t)
                | Exposed::Credential(t)
                | Exposed::Home(t)
                | Exposed::System(t),
            ) => Some(t),
            _ => None,
        }
    }
}

/// What a tool of the agent's client (not a shell, not a file tool) does.
#[derive(Debug, Clone)]
pub(crate) enum ToolUse {
    /// It only organises the session (todo lists, questions, plan mode, tasks).
    Organise,
    /// It starts or schedules more work (skills, slash commands, cron jobs, workflows).
    Schedule,
    /// It starts a subagent.
    Subagent {
        /// On a remote machine.
        remote: bool,
    },
    /// It searches the web.
    Search {
        /// A credential is in the query.
        secret: bool,
    },
    /// It fetches a URL.
    Fetch(Fetch),
    /// It watches a websocket.
    Websocket,
    /// It looks for credential files by name.
    FindCredentials {
        /// The name pattern.
        pattern: String,
        /// It reads what they hold (Grep), not only their names (Glob).
        contents: bool,
        /// It prints the lines it finds (Grep's `content` mode), not only which files match.
        prints: bool,
    },
    /// It was called without the command (or path) that says what it does.
    Missing {
        /// A path is missing (a file tool), not a command.
        path: bool,
    },
    /// A tool oath knows nothing about.
    Unknown,
}

/// A URL a tool fetches, as far as its text tells.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fetch {
    /// Its host.
    pub host: String,
    /// The URL as shown (cut short).
    pub shown: String,
    /// It carries a credential (a token, a password in its user part).
    pub secret: bool,
    /// It names the cloud metadata service.
    pub metadata: bool,
    /// It is `http://` or `https://`.
    pub http: bool,
    /// It is on this machine.
    pub loopback: bool,
    /// It names payments, orders or trading, with parameters.
    pub payment: bool,
}

/// What an MCP server's tool does, as its name and arguments say.
#[derive(Debug, Clone)]
pub(crate) enum McpUse {
    /// Its name says it reads (get, list, search …) and nothing that destroys.
    Read,
    /// Its name says it moves money (payments, trades, placing orders).
    Money,
    /// Its name says it creates or changes orders or invoices.
    Order,
    /// Its name says it deletes, drops or destroys.
    Destroy,
    /// Its name says it runs commands or code.
    Exec {
        /// The command is given (and judged on its own).
        command: bool,
    },
    /// Anything else it does through its server.
    Change,
    /// It sends a credential off the machine (found under this key).
    SendsSecret(String),
    /// Its arguments are more than oath reads.
    Unread {
        /// At most this many strings are read,
        strings: usize,
        /// and this many KiB of them,
        kib: usize,
        /// this deep.
        depth: usize,
    },
}

/// What inline code (an interpreter's, PowerShell's) does, as its words say, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodeDoes {
    /// Connects a shell to a network socket.
    ReverseShell,
    /// Downloads code (or decodes it) and runs it.
    RunsDownloaded,
    /// Changes oath's own files.
    ChangesOath,
    /// Formats or wipes a disk.
    WipesDisk,
    /// Deletes a home, system or other user's path.
    DeletesOutside,
    /// Deletes files (PowerShell: recursively).
    Deletes,
    /// Runs other programs.
    Spawns,
    /// Talks to the network.
    Network,
    /// Evaluates generated code (PowerShell: or changes system settings).
    Evaluates,
    /// Writes files.
    Writes,
    /// Nothing oath's words name.
    Other,
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
    /// A configuration file or folder (plugins, libraries) that can name commands the program
    /// runs or code it loads: a kubeconfig's exec plugins, git's `core.fsmonitor`, a library
    /// folder the dynamic loader searches first.
    /// (The project's own, where the program reads such files from it anyway, and the
    /// program's own places are not one: they are what it reads by itself.)
    Config(Target),
    /// The configuration of the repository in a folder (`.git/config`: hooks, fsmonitor,
    /// pager, aliases), which only git and deliberate writes change. (The project's own is
    /// not one.)
    Repository(Target),
    /// A script file oath read: its commands are judged as if they were on the line.
    Read(Target),
    /// A script file oath could not read, and why.
    Unread(Target, Unread),
}

/// Why oath could not read a script a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unread {
    /// Larger than oath reads.
    TooLarge,
    /// Not a file oath could read.
    Unreadable,
    /// Its language is not one oath reads.
    Language,
    /// The line writes it before it runs: what runs is not what is on disk.
    WrittenOnLine,
    /// The call runs more scripts than oath reads for one call.
    TooMany,
    /// A task file oath cannot follow.
    Tasks(super::tasks::Unread),
    /// The package manager runs the scripts of other packages (workspaces).
    Workspaces,
}

impl Unread {
    /// Says why, for messages.
    pub(crate) fn says(self) -> &'static str {
        match self {
            Self::TooLarge => "it is larger than oath reads",
            Self::Unreadable => "oath cannot read it",
            Self::Language => "it runs in a language oath does not read",
            Self::WrittenOnLine => "this line writes it before it runs",
            Self::TooMany => "the call runs more scripts than oath reads",
            Self::Tasks(why) => why.says(),
            Self::Workspaces => "oath does not follow the scripts of a workspace's packages",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Effect::Act(a) => write!(f, "act({a})"),
            Effect::Read(t) => write!(f, "read({})", t.label()),
            Effect::Write(t, Some(PathNote::Overwrites | PathNote::ReplacesWithLink)) => {
                write!(f, "write({}, overwrite)", t.label())
            }
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
                Code::Config(t) => write!(f, "load({})", t.label()),
                Code::Repository(t) => write!(f, "load(repository {})", t.label()),
                Code::Read(t) => write!(f, "run(read {})", t.label()),
                Code::Unread(t, _) => write!(f, "run(unread {})", t.label()),
            },
            Effect::Exfiltrate => f.write_str("net(send secrets)"),
            Effect::HandsSecret(v) => write!(f, "hands(secret ${v})"),
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
            Effect::Metadata => f.write_str("net(metadata)"),
            Effect::NoPath { delete } => f.write_str(if *delete { "delete()" } else { "write()" }),
            Effect::RewritesSettings => f.write_str("write(.claude settings)"),
            Effect::Edit(t) => write!(f, "edit({})", t.label()),
            Effect::Tool(t) => match t {
                ToolUse::Organise => f.write_str("tool(organise)"),
                ToolUse::Schedule => f.write_str("tool(schedule)"),
                ToolUse::Subagent { remote } => f.write_str(if *remote {
                    "tool(subagent, remote)"
                } else {
                    "tool(subagent)"
                }),
                ToolUse::Search { .. } => f.write_str("net(search)"),
                ToolUse::Fetch(x) => write!(f, "net(GET {})", x.host),
                ToolUse::Websocket => f.write_str("net(websocket)"),
                ToolUse::FindCredentials { pattern, .. } => {
                    write!(f, "read(credentials {pattern})")
                }
                ToolUse::Missing { .. } => f.write_str("tool(missing input)"),
                ToolUse::Unknown => f.write_str("tool(unknown)"),
            },
            Effect::Mcp(m) => match m {
                McpUse::Read => f.write_str("mcp(read)"),
                McpUse::Money => f.write_str("mcp(money)"),
                McpUse::Order => f.write_str("mcp(order)"),
                McpUse::Destroy => f.write_str("mcp(destroy)"),
                McpUse::Exec { .. } => f.write_str("mcp(exec)"),
                McpUse::Change => f.write_str("mcp(change)"),
                McpUse::SendsSecret(k) => write!(f, "net(send secrets in {k})"),
                McpUse::Unread { .. } => f.write_str("mcp(unread arguments)"),
            },
            Effect::Interpreted { lang, .. } => write!(f, "run(code {lang})"),
            Effect::PowerShell(_) => f.write_str("run(code powershell)"),
        }
    }
}
