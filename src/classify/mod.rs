//! Classification of one tool call into a domain, a risk and a complexity.
//!
//! Pure functions over the payload's `tool_name` and `tool_input`: Bash commands go through
//! the shell parser ([`crate::shell`]) and every command the line would run is classified,
//! the riskiest part deciding the whole; other tools are classified by path, URL, MCP verb.
//! Nothing here touches the disk or the clock.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod args;
mod code;
mod effect;
pub mod golden;
pub mod intent;
pub mod pack;
mod paths;
mod policy;
mod powershell;
mod rule;
pub mod scripts;
mod secret_vars;
mod sql;
pub(crate) mod tasks;
mod tools;
mod url;
mod walker;

/// A trust domain: trust is earned and lost per domain.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Domain {
    /// Reading files, listing, searching.
    #[serde(rename = "file_read")]
    FileRead,
    /// Writing files that are neither source nor docs.
    #[serde(rename = "file_write")]
    FileWrite,
    /// Writing project source files.
    #[serde(rename = "file_write_src")]
    FileWriteSrc,
    /// Writing documentation.
    #[serde(rename = "docs_write")]
    DocsWrite,
    /// Read-only git (status, log, diff, show).
    #[serde(rename = "git_read")]
    GitRead,
    /// Local git changes (add, commit, branch, reset).
    #[serde(rename = "git_local")]
    GitLocal,
    /// Git talking to remotes (push, pull, fetch, clone).
    #[serde(rename = "git_remote")]
    GitRemote,
    /// General shell commands.
    #[serde(rename = "shell_exec")]
    ShellExec,
    /// Running tests.
    #[serde(rename = "test_run")]
    TestRun,
    /// Network access (downloads, WebFetch, WebSearch, remote shells).
    #[serde(rename = "network")]
    Network,
    /// Installing or removing packages.
    #[serde(rename = "package")]
    Package,
    /// MCP server tools.
    #[serde(rename = "mcp")]
    Mcp,
    /// Spawning subagents (Agent / Task).
    #[serde(rename = "subagent")]
    Subagent,
    /// Everything else.
    #[serde(rename = "_global")]
    Global,
    /// Building, linting and running the project's own scripts.
    #[serde(rename = "build")]
    Build,
    /// Deleting files.
    #[serde(rename = "file_delete")]
    FileDelete,
    /// Containers and images on this machine.
    #[serde(rename = "container")]
    Container,
    /// Infrastructure and clusters (terraform, kubectl, helm, ansible).
    #[serde(rename = "infra")]
    Infra,
    /// Cloud providers' resources (aws, gcloud, az, hosting platforms).
    #[serde(rename = "cloud")]
    Cloud,
    /// Databases.
    #[serde(rename = "database")]
    Database,
    /// Other remote services (secrets managers, queues, SaaS CLIs, backups).
    #[serde(rename = "remote")]
    Remote,
    /// Publishing to package registries.
    #[serde(rename = "publish")]
    Publish,
    /// Sending data over the network (POST, PUT, mail, uploads).
    #[serde(rename = "network_write")]
    NetworkWrite,
    /// The local system: services, accounts, scheduled jobs, root rights.
    #[serde(rename = "system")]
    System,
    /// Programs no pack describes.
    #[serde(rename = "unknown")]
    Unknown,
}

impl Domain {
    /// Every domain.
    pub const ALL: [Domain; 25] = [
        Self::FileRead,
        Self::FileWrite,
        Self::FileWriteSrc,
        Self::DocsWrite,
        Self::GitRead,
        Self::GitLocal,
        Self::GitRemote,
        Self::ShellExec,
        Self::TestRun,
        Self::Network,
        Self::Package,
        Self::Mcp,
        Self::Subagent,
        Self::Global,
        Self::Build,
        Self::FileDelete,
        Self::Container,
        Self::Infra,
        Self::Cloud,
        Self::Database,
        Self::Remote,
        Self::Publish,
        Self::NetworkWrite,
        Self::System,
        Self::Unknown,
    ];

    /// Returns the name used in state files and the audit trail.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FileRead => "file_read",
            Self::FileWrite => "file_write",
            Self::FileWriteSrc => "file_write_src",
            Self::DocsWrite => "docs_write",
            Self::GitRead => "git_read",
            Self::GitLocal => "git_local",
            Self::GitRemote => "git_remote",
            Self::ShellExec => "shell_exec",
            Self::TestRun => "test_run",
            Self::Network => "network",
            Self::Package => "package",
            Self::Mcp => "mcp",
            Self::Subagent => "subagent",
            Self::Global => "_global",
            Self::Build => "build",
            Self::FileDelete => "file_delete",
            Self::Container => "container",
            Self::Infra => "infra",
            Self::Cloud => "cloud",
            Self::Database => "database",
            Self::Remote => "remote",
            Self::Publish => "publish",
            Self::NetworkWrite => "network_write",
            Self::System => "system",
            Self::Unknown => "unknown",
        }
    }

    /// Returns how much a domain's trust should be guarded when parts of equal risk compete
    /// for the domain of a compound command: remote and system-wide domains win over local
    /// ones, so `git commit && git push` is judged with `git_remote` trust.
    pub fn sensitivity(self) -> u8 {
        match self {
            Self::GitRemote
            | Self::Network
            | Self::NetworkWrite
            | Self::Publish
            | Self::Infra
            | Self::Cloud
            | Self::Database
            | Self::Remote
            | Self::System => 5,
            Self::Package | Self::Mcp | Self::Container => 4,
            Self::ShellExec | Self::Subagent | Self::FileDelete | Self::Unknown => 3,
            Self::FileWrite
            | Self::FileWriteSrc
            | Self::DocsWrite
            | Self::GitLocal
            | Self::Build => 2,
            Self::FileRead | Self::GitRead | Self::TestRun | Self::Global => 1,
        }
    }

    /// Parses a domain name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A risk category, ordered so that the worst of several is their `max`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Reads and harmless commands (value 1).
    Low,
    /// Ordinary changes (value 2).
    Medium,
    /// Destructive or far-reaching work that earned trust may allow (value 3).
    High,
    /// Irreversible damage outside the project, running downloaded code, exfiltration:
    /// denied at any trust (value 4).
    Critical,
}

impl Risk {
    /// Returns the risk value 1–4.
    pub fn value(self) -> u8 {
        match self {
            Self::Low => 1,
            Self::Medium => 2,
            Self::High => 3,
            Self::Critical => 4,
        }
    }

    /// Returns the complexity derived from the risk (seed 001 §3.1): 0.2 / 0.5 / 0.7 / 1.0.
    pub fn complexity(self) -> f64 {
        match self {
            Self::Low => 0.2,
            Self::Medium => 0.5,
            Self::High => 0.7,
            Self::Critical => 1.0,
        }
    }

    /// Returns the lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of risk: what may decide it, ordered so that the worst of several is their `max`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Git, a rebuild or the remote brings it back: trust decides (the seed's formula).
    #[default]
    Reversible,
    /// oath understands only part of it: a word no pack accounts for (an unknown option, an
    /// extra positional, a program no pack describes). Never allowed, at any trust: no
    /// opinion, unless a check of those words finds something a person must see.
    PartlyUnderstood,
    /// oath cannot tell what it does (a computed name or path, code it cannot read): asked at
    /// any trust.
    NotUnderstood,
    /// Nothing brings it back (uncommitted work, files outside the project, remote data,
    /// published packages, the system's state): asked at any trust; only a user's own rule
    /// may allow it.
    Irreversible,
    /// Destroys home, system or other users' data or disks, runs downloaded code, opens a
    /// reverse shell, sends credentials away, switches oath off: denied at any trust.
    Catastrophic,
}

impl Kind {
    /// Returns the kind a finding has when only its risk is known: critical is catastrophic,
    /// anything else reversible.
    pub fn of_risk(risk: Risk) -> Self {
        if risk == Risk::Critical {
            Self::Catastrophic
        } else {
            Self::Reversible
        }
    }

    /// Returns the snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reversible => "reversible",
            Self::PartlyUnderstood => "partly_understood",
            Self::NotUnderstood => "not_understood",
            Self::Irreversible => "irreversible",
            Self::Catastrophic => "catastrophic",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The classification of one part of a call (one command of a shell line, or the whole call
/// for other tools).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    /// The command or target as oath understood it (e.g. `rm -rf /`, `Write src/main.rs`).
    pub text: String,
    /// Its domain.
    pub domain: Domain,
    /// Its risk.
    pub risk: Risk,
    /// Its kind of risk.
    pub kind: Kind,
    /// Id of the rule that decided (kebab-case), for `oath explain` and the audit.
    pub rule: String,
    /// Why, in a short sentence.
    pub reason: String,
    /// The effect the rule judged (`delete(~/x, recursive)`, `act(vcs.destroy)`), when it
    /// judged one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// The pack rule that stated the effect (`coreutils: rm › delete-files`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The classification of a whole tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Classification {
    /// Domain of the riskiest part.
    pub domain: Domain,
    /// Worst risk of all parts.
    pub risk: Risk,
    /// Kind of risk of the deciding part (the worst kind of all parts).
    pub kind: Kind,
    /// Complexity derived from the risk.
    pub complexity: f64,
    /// Id of the rule of the riskiest part.
    pub rule: String,
    /// Reason of the riskiest part.
    pub reason: String,
    /// A safer way to do the same, when one exists (named in deny reasons).
    pub alternative: Option<String>,
    /// Every part, in source order.
    pub parts: Vec<Part>,
    /// Each simple command of a shell line as its words after static expansion, one space
    /// apart, where that differs from its part's text (`terraform "destroy"` gives `terraform
    /// destroy`): user rules match these too, so quoting cannot dodge them. Collected only
    /// when the context asks ([`Context::with_expanded_commands`]).
    #[serde(skip)]
    pub commands: Vec<String>,
    /// Files this call makes from credentials (copies, links, archives, output written from
    /// them): credentials too, for the rest of the session ([`Context::with_tainted`]).
    #[serde(skip)]
    pub tainted: Vec<Taint>,
}

/// A file made from credentials (a copy, a link, an archive, or the output of a command that
/// read them): it holds them too, and so does whatever lies inside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taint {
    /// Where it is (absolute, normalised).
    pub path: PathBuf,
    /// What it was made from, as messages show it (`~/.ssh/id_rsa`).
    pub from: String,
    /// What made it, as messages show it (`` `cp ~/.ssh/id_rsa k.txt` ``).
    pub by: String,
}

impl Classification {
    /// Builds a classification from its parts: the worst kind, then the riskiest part decides;
    /// among parts of equal risk above low the more sensitive domain
    /// ([`Domain::sensitivity`]), among low parts one outside `shell_exec` (`cd x && cargo
    /// test` is test work), then the first. The risk is the highest of any part (a partly
    /// understood read beside a download is still a download's risk).
    pub fn from_parts(parts: Vec<Part>, alternative: Option<String>) -> Self {
        let highest = parts.iter().map(|p| p.risk).max();
        let (domain, risk, kind, rule, reason) =
            match worst_index(parts.iter().map(|p| (p.kind, p.risk, p.domain))) {
                Some(i) => {
                    let w = &parts[i];
                    (w.domain, w.risk, w.kind, w.rule.clone(), w.reason.clone())
                }
                None => (
                    Domain::ShellExec,
                    Risk::Low,
                    Kind::Reversible,
                    "empty".into(),
                    "nothing to run".into(),
                ),
            };
        let risk = highest.unwrap_or(risk).max(risk);
        Self {
            domain,
            risk,
            kind,
            complexity: risk.complexity(),
            rule,
            reason,
            alternative,
            parts,
            commands: Vec::new(),
            tainted: Vec::new(),
        }
    }

    /// Returns whether a success of this call may earn trust: every part understood (no word
    /// oath could not account for, nothing it could not read) and the domain one that packs
    /// describe. What oath does not understand shows nothing about what it may allow.
    pub fn earns_trust(&self) -> bool {
        self.domain != Domain::Unknown
            && self
                .parts
                .iter()
                .all(|p| !matches!(p.kind, Kind::PartlyUnderstood | Kind::NotUnderstood))
    }

    /// Returns a classification made of one part.
    pub fn single(
        text: impl Into<String>,
        domain: Domain,
        risk: Risk,
        rule: &str,
        reason: impl Into<String>,
    ) -> Self {
        Self::from_parts(
            vec![Part {
                text: text.into(),
                domain,
                risk,
                kind: Kind::of_risk(risk),
                rule: rule.into(),
                reason: reason.into(),
                effect: None,
                source: None,
            }],
            None,
        )
    }
}

/// Returns the index of the deciding part among (kind, risk, domain) triples: the worst kind,
/// then the highest risk, then (above low) the more sensitive domain.
pub(crate) fn worst_index(parts: impl Iterator<Item = (Kind, Risk, Domain)>) -> Option<usize> {
    parts
        .enumerate()
        .max_by(|(ia, a), (ib, b)| {
            let by_domain = if a.1 > Risk::Low {
                a.2.sensitivity().cmp(&b.2.sensitivity())
            } else {
                // Among harmless parts, `cd x && cargo test` is test work, not shell work.
                (a.2 != Domain::ShellExec).cmp(&(b.2 != Domain::ShellExec))
            };
            a.0.cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(by_domain)
                .then(ib.cmp(ia))
        })
        .map(|(i, _)| i)
}

/// What throwing a path (or the working tree's changes) away would lose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loses {
    /// Nothing git or a rebuild cannot bring back (tracked and unchanged, ignored, absent).
    Nothing,
    /// Work: untracked files that are not ignored, uncommitted changes, or a project git
    /// does not keep.
    Work,
}

/// Answers what deleting inside the project (or overwriting a file there, which loses what
/// it held the same way), or discarding the working tree's changes, would lose. The gate
/// asks the project's git (I/O at the edge); without one, classification assumes work would
/// be lost.
pub trait Worktree: Send + Sync {
    /// Returns what deleting (or overwriting) `path` (a file or a tree) would lose.
    fn loses(&self, path: &Path) -> Loses;
    /// Returns what discarding the working tree's uncommitted changes would lose.
    fn changes(&self) -> Loses;
    /// Returns whether `git diff` with these revision arguments (none: the working tree
    /// against the index; one: against that version; two: between them) finds a change
    /// in any of `paths`.
    fn differs(&self, revisions: &[String], paths: &[PathBuf]) -> Differs;
    /// Returns those of `paths` (relative to the project root) that exist and git does not
    /// track: untracked ones, and with `ignored` the ignored ones too (as `git status`
    /// names them: a folder git does not track at all is named once); None when git did
    /// not answer in time (what an oracle that does not know says).
    fn untracked(&self, _paths: &[PathBuf], _ignored: bool) -> Option<Vec<PathBuf>> {
        None
    }
}

/// What git says about a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Differs {
    /// No difference (or no such version: the command fails as well).
    No,
    /// A difference.
    Yes,
    /// Git did not answer in time.
    Unknown,
}

/// A shared [`Worktree`].
#[derive(Clone)]
pub struct WorktreeRef(pub std::sync::Arc<dyn Worktree>);

impl fmt::Debug for WorktreeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Worktree")
    }
}

/// Says where a path really leads: symbolic links in it followed against the file system at
/// decision time (the part that does not exist yet kept as written). The gate provides one
/// (I/O at the edge); without one, paths are judged as written.
pub trait Links: Send + Sync {
    /// Returns the path with its links followed, or None when nothing in it is a link.
    fn real(&self, path: &Path) -> Option<PathBuf>;
    /// Returns whether something is at the path (a dangling link counts); without the file
    /// system, everything may be.
    fn exists(&self, _path: &Path) -> bool {
        true
    }
}

/// A shared [`Links`].
#[derive(Clone)]
pub struct LinksRef(pub std::sync::Arc<dyn Links>);

impl fmt::Debug for LinksRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Links")
    }
}

/// What classification needs to know about the surroundings: paths, and through a
/// [`Worktree`] what git would lose (the only I/O, done by the caller's oracle).
///
/// Every path is stored lexically normalised (no `.`, `..`, repeated or trailing slashes), so
/// the classifier compares them as bytes instead of re-parsing components for each word.
#[derive(Debug, Clone, Default)]
pub struct Context {
    project_root: PathBuf,
    cwd: PathBuf,
    home: Option<PathBuf>,
    protected: Vec<PathBuf>,
    expanded_commands: bool,
    user_packs: &'static [pack::schema::Pack],
    worktree: Option<WorktreeRef>,
    links: Option<LinksRef>,
    files: Option<scripts::FilesRef>,
    /// The protected paths with their links followed (computed when first needed).
    protected_real: std::sync::OnceLock<Vec<PathBuf>>,
    /// Where the project root and the home really are, when a link leads them elsewhere
    /// (computed when first needed).
    real_bases: std::sync::OnceLock<[Option<PathBuf>; 2]>,
    /// Symbolic links the line makes (`ln -s A B`): each path and where it leads.
    made_links: Vec<(PathBuf, PathBuf)>,
    /// `cd` searches the folders of `CDPATH` (set in the environment the shell inherits).
    cd_path: bool,
    details: bool,
    /// Copies of credentials the session made earlier (or the line makes).
    tainted: Vec<Taint>,
}

impl Context {
    /// Returns a context: the project root (inside it, destructive work is high, not
    /// critical), the working directory of the call (relative paths resolve against it), the
    /// user's home, and the paths the agent must never modify (oath's state, config and
    /// binary, Claude Code settings files holding oath's hooks).
    pub fn new(
        project_root: &Path,
        cwd: &Path,
        home: Option<&Path>,
        protected: impl IntoIterator<Item = PathBuf>,
    ) -> Self {
        // A relative path here is a broken environment (`HOME=""`, `cwd: "."`): it is taken
        // from `/`, as a relative cwd is from the project root, so that nothing resolves to
        // a relative path no zone recognises.
        let root = paths::absolute(Path::new("/"), project_root);
        Self {
            cwd: paths::absolute(&root, cwd),
            home: home.map(|h| paths::absolute(Path::new("/"), h)),
            protected: protected
                .into_iter()
                .map(|p| paths::absolute(Path::new("/"), &p))
                .collect(),
            project_root: root,
            expanded_commands: false,
            user_packs: &[],
            worktree: None,
            links: None,
            files: None,
            protected_real: std::sync::OnceLock::new(),
            real_bases: std::sync::OnceLock::new(),
            made_links: Vec::new(),
            cd_path: false,
            details: false,
            tainted: Vec::new(),
        }
    }

    /// Returns the context treating `tainted` (copies of credentials the session made, see
    /// [`Classification::tainted`]), and whatever lies inside them, as credentials.
    pub fn with_tainted(mut self, tainted: impl IntoIterator<Item = Taint>) -> Self {
        self.tainted.extend(tainted.into_iter().map(|t| Taint {
            path: paths::absolute(Path::new("/"), &t.path),
            ..t
        }));
        self
    }

    /// Returns the copies of credentials the session made.
    pub fn tainted(&self) -> &[Taint] {
        &self.tainted
    }

    /// Returns the context asking for each part's effect and pack rule (`oath explain`,
    /// golden files); the hook does not spend the work.
    pub fn with_details(self) -> Self {
        Self {
            details: true,
            ..self
        }
    }

    /// Returns whether parts carry their effect and pack rule.
    pub fn details(&self) -> bool {
        self.details
    }

    /// Returns the context with a worktree oracle (what deleting or discarding would lose).
    pub fn with_worktree(self, worktree: std::sync::Arc<dyn Worktree>) -> Self {
        Self {
            worktree: Some(WorktreeRef(worktree)),
            ..self
        }
    }

    /// Returns the context following symbolic links with `links` where a path is changed.
    pub fn with_links(self, links: std::sync::Arc<dyn Links>) -> Self {
        Self {
            links: Some(LinksRef(links)),
            ..self
        }
    }

    /// Returns the context reading the files a command runs with `files` (their commands
    /// are judged).
    pub fn with_files(self, files: std::sync::Arc<dyn scripts::Files>) -> Self {
        Self {
            files: Some(scripts::FilesRef(files)),
            ..self
        }
    }

    /// Returns what a file a command runs holds, read up to `limit` bytes; None without a
    /// [`scripts::Files`] oracle.
    pub(crate) fn read_file(&self, path: &Path, limit: usize) -> Option<scripts::FileText> {
        self.files.as_ref().map(|f| f.0.read(path, limit))
    }

    /// Returns the context for a shell whose `cd` searches the folders of `CDPATH` (set in
    /// its environment): `cd NAME` may lead to any of them.
    pub fn with_cd_path(self, cd_path: bool) -> Self {
        Self { cd_path, ..self }
    }

    /// Returns whether `cd` searches the folders of `CDPATH`.
    pub(crate) fn cd_path(&self) -> bool {
        self.cd_path
    }

    /// Returns the context knowing the symbolic links a line makes before it uses them
    /// (`ln -s ~ h && rm -rf h/.ssh`): each path, and where it leads (absolute).
    pub(crate) fn with_made_links(
        mut self,
        links: impl IntoIterator<Item = (PathBuf, PathBuf)>,
    ) -> Self {
        self.made_links.extend(links.into_iter().map(|(p, to)| {
            (
                paths::absolute(Path::new("/"), &p),
                paths::absolute(Path::new("/"), &to),
            )
        }));
        self
    }

    /// Returns where `path` really leads, when a link in it leads elsewhere: the links the
    /// line makes, then those on the file system.
    pub fn real_path(&self, path: &Path) -> Option<PathBuf> {
        let made = self.through_made_links(path);
        let asked = made.as_deref().unwrap_or(path);
        match self.links.as_ref().and_then(|l| l.0.real(asked)) {
            Some(r) => Some(r),
            None => made,
        }
    }

    /// Returns `path` through the links the line makes (a chain of them too), None when it
    /// goes through none.
    fn through_made_links(&self, path: &Path) -> Option<PathBuf> {
        let mut out: Option<PathBuf> = None;
        // A few links in a row at most: a loop ends here.
        for _ in 0..8 {
            let p = out.as_deref().unwrap_or(path);
            let Some((link, to)) = self
                .made_links
                .iter()
                .filter(|(l, _)| paths::path_is_under(p, l))
                .max_by_key(|(l, _)| l.as_os_str().len())
            else {
                break;
            };
            let rest = p.strip_prefix(link).unwrap_or(Path::new(""));
            let next = paths::normalize(&to.join(rest));
            if out.as_deref() == Some(next.as_path()) {
                break;
            }
            out = Some(next);
        }
        out
    }

    /// Returns the place a path really reaches once every link in it is followed, named
    /// as the context names the project root and the home ([`Self::lexical`]); None when it
    /// is the path.
    pub(crate) fn reached(&self, path: &Path) -> Option<PathBuf> {
        let back = self.lexical(&self.real_path(path)?);
        (back != path).then_some(back)
    }

    /// Returns a real path (links followed) named from the project root or the home as the
    /// context names them: a project or a home that is itself reached through a link is
    /// not elsewhere.
    pub(crate) fn lexical(&self, real: &Path) -> PathBuf {
        let [root_real, home_real] = self.real_bases.get_or_init(|| {
            let real = |p: &Path| self.links.as_ref().and_then(|l| l.0.real(p));
            [
                real(&self.project_root),
                self.home.as_deref().and_then(real),
            ]
        });
        let bases = [
            (root_real.as_deref(), Some(self.project_root.as_path())),
            (home_real.as_deref(), self.home.as_deref()),
        ];
        bases
            .into_iter()
            .find_map(|(r, base)| {
                let (r, base) = (r?, base?);
                let rest = real.strip_prefix(r).ok()?;
                Some(if rest.as_os_str().is_empty() {
                    base.to_path_buf()
                } else {
                    base.join(rest)
                })
            })
            .unwrap_or_else(|| real.to_path_buf())
    }

    /// Returns whether something is at `path`, as far as the file system is known (without a
    /// [`Links`] oracle, everything may be).
    pub fn may_exist(&self, path: &Path) -> bool {
        self.links.as_ref().is_none_or(|l| l.0.exists(path))
    }

    /// Returns the protected paths a link leads elsewhere, as the file system resolves them
    /// (empty without a [`Links`] oracle, or when none does).
    pub(crate) fn protected_real(&self) -> &[PathBuf] {
        self.protected_real.get_or_init(|| {
            let Some(l) = &self.links else {
                return Vec::new();
            };
            // Most protected paths lie under the home or the project: when neither leads
            // elsewhere, those are already real and cost no lookup.
            let plain = |base: &Path| l.0.real(base).is_none().then(|| base.to_path_buf());
            let home = self.home.as_deref().and_then(plain);
            let root = plain(&self.project_root);
            self.protected
                .iter()
                .filter_map(|p| {
                    let under_plain = [&home, &root]
                        .into_iter()
                        .flatten()
                        .any(|b| p.starts_with(b));
                    if under_plain { None } else { l.0.real(p) }
                })
                .collect()
        })
    }

    /// Returns what deleting or overwriting `path` inside the project would lose (work,
    /// without an oracle).
    pub fn loses(&self, path: &Path) -> Loses {
        self.worktree
            .as_ref()
            .map_or(Loses::Work, |w| w.0.loses(path))
    }

    /// Returns what discarding the working tree's changes would lose (work, without an
    /// oracle).
    pub fn worktree_changes(&self) -> Loses {
        self.worktree
            .as_ref()
            .map_or(Loses::Work, |w| w.0.changes())
    }

    /// Returns whether the project's `.claude` settings differ between the
    /// revisions ([`Worktree::differs`]); without an oracle nothing is known to differ (the
    /// gate always has one).
    pub fn protected_differs(&self, revisions: &[String]) -> Differs {
        let Some(w) = &self.worktree else {
            return Differs::No;
        };
        let inside: Vec<PathBuf> = self
            .protected
            .iter()
            .filter_map(|p| p.strip_prefix(&self.project_root).ok())
            // A project's .oath.yaml only tightens until its user approves it.
            .filter(|p| !p.as_os_str().is_empty() && !p.ends_with(".oath.yaml"))
            .map(Path::to_path_buf)
            .collect();
        if inside.is_empty() {
            return Differs::No;
        }
        w.0.differs(revisions, &inside)
    }

    /// Returns the protected paths inside `within` (the project root or a folder of it; a
    /// pattern's folder) that exist and git does not track (with `ignored`, ignored ones
    /// too): what `git stash -u` or `git clean -fdx` there would take away, as git names it.
    /// None when that is not known (no oracle, or git did not answer in time).
    pub fn protected_untracked(&self, within: &Path, ignored: bool) -> Option<Vec<PathBuf>> {
        let inside: Vec<PathBuf> = self
            .protected
            .iter()
            .filter(|p| p.starts_with(within) || within.starts_with(p))
            .filter_map(|p| p.strip_prefix(&self.project_root).ok())
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect();
        if inside.is_empty() {
            return Some(Vec::new());
        }
        self.worktree.as_ref()?.0.untracked(&inside, ignored)
    }

    /// Returns the context with a user's packs, looked up before the built-in ones.
    pub fn with_user_packs(self, packs: &'static [pack::schema::Pack]) -> Self {
        Self {
            user_packs: packs,
            ..self
        }
    }

    /// Returns the user's packs.
    pub fn user_packs(&self) -> &'static [pack::schema::Pack] {
        self.user_packs
    }

    /// Returns the context asking for [`Classification::commands`] (user rules need them;
    /// without rules the hook does not spend the work).
    pub fn with_expanded_commands(self) -> Self {
        Self {
            expanded_commands: true,
            ..self
        }
    }

    /// Returns a context for a project root, using it as cwd too, with nothing protected.
    pub fn for_project(root: &Path, home: Option<&Path>) -> Self {
        Self::new(root, root, home, [])
    }

    /// Returns the project root.
    pub fn project_root(&self) -> &Path {
        &self.project_root
    }

    /// Returns the working directory of the call.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Returns the user's home directory.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Returns the protected paths.
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }

    /// Returns whether [`Classification::commands`] is to be collected.
    pub fn expanded_commands(&self) -> bool {
        self.expanded_commands
    }
}

/// Returns a path lexically normalised (no `.`, `..`, repeated or trailing slashes).
pub fn normalize_path(p: &Path) -> PathBuf {
    paths::normalize(p)
}

/// Classifies one tool call.
pub fn classify(tool_name: &str, tool_input: &Value, ctx: &Context) -> Classification {
    tools::classify_tool(tool_name, tool_input, ctx)
}

#[cfg(test)]
mod tests;
