//! The policy: one function turns each effect into a domain, a risk and a kind of risk, with
//! the rule that decided and why. Packs and the walker say what a command does; only this
//! module says how dangerous that is.
//!
//! Three kinds of risk decide (ADR 0020): *catastrophic* (destroying home, system or other
//! users' data or disks, running downloaded code, reverse shells, sending credentials away,
//! switching oath off) is denied at any trust; *irreversible* (what neither git, a rebuild nor
//! the remote brings back: uncommitted work, files outside the project, remote data, published
//! packages, persistence, privileges) and *not understood* are asked at any trust;
//! *reversible* work earns autonomy by the seed's formula, its risk (low … high) weighing in.
//!
//! By concept: [`paths`] (reading, writing, deleting, permissions), [`net`] (HTTP, fetched
//! URLs, the metadata service), [`code`] (code that runs, interpreter and PowerShell text),
//! [`tools`] (the client's tools and MCP servers' tools); acts and what no rule accounts for
//! here.

mod code;
mod net;
mod paths;
mod tools;

use std::borrow::Cow;

use super::effect::{Effect, Exposed};
use super::pack::schema::{Act, PathNote};
use super::paths::{Zone, followed};
use super::rule::Finding;
use super::{Context, Domain, Kind, Loses, Risk};

use code::run;
use net::http;
pub(crate) use net::metadata_finding;
use paths::{delete, perm_finding, wipe};
pub(crate) use paths::{read_finding, reads};

/// What the rule that found an effect says about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Said<'a> {
    /// The rule's id.
    pub id: &'a str,
    /// Its explanation, placeholders filled in.
    pub explain: &'a str,
    /// The verb of a path effect (`deletes`, `edits in place`).
    pub verb: &'a str,
    /// A safer way, when the rule knows one.
    pub safer: Option<&'a str>,
}

impl<'a> Said<'a> {
    /// Returns what a classifier with no rule of its own says: only who acts (the tool, the
    /// server and its tool, the language); the policy gives the rule and the explanation.
    pub(crate) const fn by(who: &'a str) -> Self {
        Self {
            id: "",
            explain: who,
            verb: "",
            safer: None,
        }
    }
}

/// Returns the effect a symbolic link turns this one into, when it leads a change to a
/// place oath protects (`ln -s .claude/settings.json x; echo > x`) or to another place
/// (`hl/.bashrc`, `hl` a link to the home): the real place is judged.
fn through_links(effect: &Effect, ctx: &Context) -> Option<Effect> {
    Some(match effect {
        // A link made at the path is the path: only its folders are followed.
        Effect::Write(t, note) => {
            let link = matches!(note, Some(PathNote::MakesLink | PathNote::ReplacesWithLink));
            Effect::Write(followed(t, !link, ctx)?, *note)
        }
        Effect::Delete {
            target,
            recursive,
            note,
        } => Effect::Delete {
            target: followed(target, false, ctx)?,
            recursive: *recursive,
            note: *note,
        },
        Effect::Chmod {
            target,
            program,
            mode,
            recursive,
        } => Effect::Chmod {
            target: followed(target, true, ctx)?,
            program: program.clone(),
            mode: mode.clone(),
            recursive: *recursive,
        },
        Effect::Edit(t) => Effect::Edit(followed(t, true, ctx)?),
        _ => return None,
    })
}

/// Returns the finding for one effect. For the effects of the client's tools and of MCP
/// servers' tools ([`Effect::Tool`], [`Effect::Mcp`]) `said.explain` names the tool; the
/// policy gives the rule.
pub(crate) fn finding(effect: &Effect, said: Said<'_>, ctx: &Context) -> Finding {
    let linked = through_links(effect, ctx);
    let effect = linked.as_ref().unwrap_or(effect);
    let mut f = match effect {
        Effect::Act(a) => act_finding(*a, said, ctx),
        Effect::Read(t) => read_finding(t, said.verb),
        Effect::Write(t, Some(PathNote::Overwrites)) => paths::overwrite(t, said.verb, true, ctx),
        Effect::Write(t, Some(PathNote::ReplacesWithLink)) => {
            paths::overwrite(t, said.verb, false, ctx)
        }
        Effect::Write(t, note) => {
            let f = paths::write_into(t, said.verb, *note);
            if *note == Some(PathNote::CreatesDirectory)
                && f.risk == Risk::Medium
                && (t.in_project() || t.zone == Zone::Temp)
            {
                Finding::new(f.domain, Risk::Low, said.id.to_owned(), f.reason)
            } else {
                f
            }
        }
        Effect::Delete {
            target,
            recursive,
            note,
        } => delete(target, said.verb, *recursive, *note, ctx),
        Effect::Chmod {
            target,
            program,
            mode,
            recursive,
        } => perm_finding(program, mode, target, *recursive, ctx),
        Effect::Wipe(t) => wipe(t, said.explain),
        Effect::Http(r) => http(r, said.explain),
        Effect::Run(code) => run(code, said.verb),
        Effect::Exfiltrate => Finding::new(
            Domain::Network,
            Risk::Critical,
            "exfiltration",
            said.explain,
        ),
        Effect::HandsSecret(v) => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "hands-secret",
            format!(
                "{}: it hands ${v}, a variable that holds a secret, to what it runs: whatever runs there has the secret",
                said.explain
            ),
        )
        .kind(Kind::Irreversible)
        .alt("pass only the variables the program needs, without secrets, or use the tool's own secret store"),
        Effect::ReverseShell => Finding::new(
            Domain::Network,
            Risk::Critical,
            "reverse-shell",
            said.explain,
        ),
        Effect::NotUnderstood => Finding::new(
            Domain::ShellExec,
            Risk::High,
            said.id.to_owned(),
            said.explain,
        )
        .kind(Kind::NotUnderstood),
        Effect::Unexplained(words) => unexplained(words, said),
        Effect::Exposes(e) => exposes(e, said),
        Effect::Metadata => metadata_finding(said.verb),
        Effect::NoPath { delete } => paths::no_path(*delete, said.explain),
        Effect::RewritesSettings => Finding::new(
            Domain::GitLocal,
            Risk::High,
            "git-rewrites-settings",
            format!(
                "{}, which changes Claude Code's settings or hooks in .claude: a person looks at that change",
                said.explain
            ),
        )
        .kind(Kind::Irreversible),
        Effect::Edit(t) => paths::edit(t, said.verb),
        Effect::Tool(t) => tools::tool(t, said.explain),
        Effect::Mcp(m) => tools::mcp(m, said.explain),
        Effect::Interpreted { lang, does } => code::interpreted(lang, *does),
        Effect::PowerShell(does) => code::powershell(*does),
    };
    if f.alternative.is_none()
        && let Some(s) = said.safer
    {
        f.alternative = Some(Cow::Owned(s.to_owned()));
    }
    f
}

/// Returns the domain, risk and kind of acting on a system other than files.
pub(crate) fn act(a: Act) -> (Domain, Risk, Kind) {
    use Act::*;
    use Domain as D;
    use Kind::{
        Catastrophic as Cat, Irreversible as Irr, NotUnderstood as Nu, PartlyUnderstood as Pu,
        Reversible as Rev,
    };
    use Risk as R;
    match a {
        VcsRead => (D::GitRead, R::Low, Rev),
        VcsRecord => (D::GitLocal, R::Low, Rev),
        VcsChange => (D::GitLocal, R::Medium, Rev),
        VcsDiscard | VcsDestroy | VcsConfigure => (D::GitLocal, R::High, Irr),
        VcsRemoteRead => (D::GitRemote, R::Low, Rev),
        VcsRemoteReceive | VcsRemoteChange => (D::GitRemote, R::Medium, Rev),
        VcsRemoteDestroy | VcsRemoteSend => (D::GitRemote, R::High, Irr),
        HostingRead => (D::GitRemote, R::Low, Rev),
        HostingChange => (D::GitRemote, R::Medium, Rev),
        HostingDestroy | HostingCredentials | HostingApiWrite => (D::GitRemote, R::High, Irr),
        SecretsRead => (D::FileRead, R::High, Irr),
        SecretsChange => (D::Remote, R::High, Irr),
        PackageRead => (D::Package, R::Low, Rev),
        PackageInstall | PackageRun => (D::Package, R::Medium, Rev),
        // Code nobody has read, fetched at run time by a name: what it does is not known.
        PackageRunUnknown => (D::Package, R::High, Nu),
        PackageGlobal | PackageSystem => (D::Package, R::High, Irr),
        RegistryPublish => (D::Publish, R::High, Irr),
        BuildRun | ScriptRun | ToolRun => (D::Build, R::Medium, Rev),
        LintRun => (D::Build, R::Low, Rev),
        TestRun => (D::TestRun, R::Low, Rev),
        FilesTrash => (D::FileDelete, R::Medium, Rev),
        ServiceRead | ScheduleRead | SystemRead => (D::System, R::Low, Rev),
        ProcessChange | PrivilegeAdmin => (D::System, R::Medium, Rev),
        ServiceChange | PowerChange | ProcessDestroy | ScheduleChange | AccountChange
        | SystemChange | DiskDestroy | PrivilegeElevate | PrivilegeShell => {
            (D::System, R::High, Irr)
        }
        NamespaceRun => (D::System, R::High, Nu),
        ContainerRead => (D::Container, R::Low, Rev),
        ContainerChange => (D::Container, R::Medium, Rev),
        ContainerRemove => (D::Container, R::High, Rev),
        ContainerDestroy | ContainerPrivileged => (D::Container, R::High, Irr),
        ClusterRead | InfraRead => (D::Infra, R::Low, Rev),
        ClusterChange | InfraChange => (D::Infra, R::Medium, Rev),
        ClusterDeploy | InfraDeploy => (D::Infra, R::High, Rev),
        ClusterDestroy | InfraDestroy => (D::Infra, R::High, Irr),
        CloudRead => (D::Cloud, R::Low, Rev),
        CloudChange => (D::Cloud, R::Medium, Rev),
        CloudDestroy => (D::Cloud, R::High, Irr),
        DatabaseRead => (D::Database, R::Low, Rev),
        DatabaseChange => (D::Database, R::Medium, Rev),
        DatabaseDestroy => (D::Database, R::High, Irr),
        RemoteRead => (D::Remote, R::Low, Rev),
        RemoteChange => (D::Remote, R::Medium, Rev),
        RemoteDestroy => (D::Remote, R::High, Irr),
        NetReceive => (D::Network, R::Medium, Rev),
        NetConnect | NetListen | NetProxy => (D::Network, R::High, Rev),
        NetRemote => (D::NetworkWrite, R::High, Irr),
        NetCopy => (D::NetworkWrite, R::High, Rev),
        NetSend => (D::NetworkWrite, R::High, Irr),
        NetShell | NetExfiltrate => (D::Network, R::Critical, Cat),
        ShellHarmless | ShellDecode => (D::ShellExec, R::Low, Rev),
        ShellInteractive | ShellUnknownCode => (D::ShellExec, R::High, Nu),
        EditorOpen => (D::FileWrite, R::Medium, Rev),
        DesktopOpen => (D::ShellExec, R::Medium, Rev),
        AgentRun => (D::Subagent, R::High, Nu),
        AgentRead | OathRead => (D::Global, R::Low, Rev),
        OathChange => (D::Global, R::Critical, Cat),
        // What no pack describes is never understood: its trust is never earned or spent.
        ProgramUnknown => (D::Unknown, R::Medium, Pu),
        ProgramDestroy => (D::Unknown, R::High, Irr),
    }
}

/// Returns the finding for words no rule of a command's pack accounts for: the command is
/// only partly understood (never allowed; no opinion).
fn unexplained(words: &[String], said: Said<'_>) -> Finding {
    const SHOWN: usize = 4;
    let mut list: Vec<String> = words
        .iter()
        .take(SHOWN)
        // Redacted before it is cut: a secret among the words never reaches the text whole
        // or in part.
        .map(|w| {
            let w = crate::redact::redact_str(w);
            let mut cut: String = w.chars().take(60).collect();
            if cut.len() < w.len() {
                cut.push('…');
            }
            format!("`{cut}`")
        })
        .collect();
    if words.len() > SHOWN {
        list.push(format!("{} more", words.len() - SHOWN));
    }
    Finding::new(
        Domain::ShellExec,
        Risk::Medium,
        said.id.to_owned(),
        format!(
            "{}: oath cannot account for {} (no rule of its pack says what {})",
            said.explain,
            list.join(", "),
            if words.len() == 1 {
                "that word does"
            } else {
                "these words do"
            }
        ),
    )
    .kind(Kind::PartlyUnderstood)
}

/// Returns the finding for words no rule accounts for, beside what the same command was
/// found to do: it has the domain and risk of the worst of that (its kind stays partly
/// understood).
pub(crate) fn beside<'f>(mut f: Finding, found: impl Iterator<Item = &'f Finding>) -> Finding {
    if let Some(w) = found.max_by_key(|w| (w.kind, w.risk)) {
        f.domain = w.domain;
        f.risk = w.risk;
    }
    f
}

/// Returns the finding for a word no rule accounts for that names something a person must
/// see: asked, whatever trust says.
fn exposes(e: &Exposed, said: Said<'_>) -> Finding {
    let (rule, what) = match e {
        Exposed::Protected(t) => (
            "unexplained-protected",
            format!(
                "{}, which holds oath's or a client's settings, hooks or state",
                t.shown()
            ),
        ),
        Exposed::Credential(t) => (
            "unexplained-credential",
            format!("{}, which holds credentials or keys", t.shown()),
        ),
        Exposed::SecretVariable(v) => ("unexplained-secret", format!("the secret in ${v}")),
        Exposed::Home(t) => (
            "unexplained-home",
            format!("{}, the home folder or a top-level folder of it", t.shown()),
        ),
        Exposed::System(t) => (
            "unexplained-system",
            format!(
                "{}, the whole system, a system folder, a device or another user's files",
                t.shown()
            ),
        ),
        Exposed::Metadata(h) => (
            "unexplained-metadata",
            format!("{h}, a cloud metadata address (the machine's credentials)"),
        ),
        Exposed::Code(found) => ("unexplained-code", format!("shell code ({found})")),
    };
    Finding::new(
        Domain::ShellExec,
        Risk::High,
        rule,
        format!(
            "{}: a word oath cannot place names {what}: a person looks at it",
            said.explain
        ),
    )
    .kind(Kind::NotUnderstood)
}

/// Returns the finding for what something else carries (a command an MCP tool runs, code
/// in a word), already judged: its domain, risk and kind stand, under the carrier's rule.
pub(crate) fn carried(
    domain: Domain,
    risk: Risk,
    kind: Kind,
    rule: impl Into<Cow<'static, str>>,
    reason: String,
) -> Finding {
    Finding::new(domain, risk, rule, reason).kind(kind)
}

fn act_finding(a: Act, said: Said<'_>, ctx: &Context) -> Finding {
    let (domain, risk, mut kind) = act(a);
    let mut reason = said.explain.to_owned();
    // Discarding a working tree's changes loses nothing when there are none.
    if a == Act::VcsDiscard {
        match ctx.worktree_changes() {
            Loses::Nothing => {
                kind = Kind::Reversible;
                reason.push_str(" (the working tree has no uncommitted changes: nothing is lost)");
            }
            Loses::Work => reason.push_str(" (the working tree has uncommitted changes)"),
        }
    }
    Finding::new(domain, risk, said.id.to_owned(), reason).kind(kind)
}
