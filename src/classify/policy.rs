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

use std::borrow::Cow;
use std::path::Path;

use super::effect::{Code, Effect, Exposed, Request};
use super::pack::schema::{Act, PathNote};
use super::paths::{self, Target, Zone};
use super::rule::Finding;
use super::{Context, Domain, Kind, Loses, Risk};

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

/// Returns the effect a symbolic link turns this one into, when it leads a change to a
/// place oath protects (`ln -s .claude/settings.json x; echo > x`).
fn through_links(effect: &Effect, ctx: &Context) -> Option<Effect> {
    Some(match effect {
        Effect::Write(t, note) => Effect::Write(paths::followed(t, ctx)?, *note),
        Effect::Delete {
            target,
            recursive,
            note,
        } => Effect::Delete {
            target: paths::followed(target, ctx)?,
            recursive: *recursive,
            note: *note,
        },
        Effect::Chmod {
            target,
            program,
            mode,
            recursive,
        } => Effect::Chmod {
            target: paths::followed(target, ctx)?,
            program: program.clone(),
            mode: mode.clone(),
            recursive: *recursive,
        },
        _ => return None,
    })
}

/// Returns the finding for one effect.
pub(crate) fn finding(effect: &Effect, said: Said<'_>, ctx: &Context) -> Finding {
    let linked = through_links(effect, ctx);
    let effect = linked.as_ref().unwrap_or(effect);
    let mut f = match effect {
        Effect::Act(a) => act_finding(*a, said, ctx),
        Effect::Read(t) => read_finding(t, said.verb),
        Effect::Write(t, note) => {
            let f = write_finding(t, said.verb);
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
        } => perm_finding(program, mode, target, *recursive),
        Effect::Wipe(t) => wipe(t, said.explain),
        Effect::Http(r) => http(r, said.explain),
        Effect::Run(code) => run(code, said.verb),
        Effect::Exfiltrate => Finding::new(
            Domain::Network,
            Risk::Critical,
            "exfiltration",
            said.explain,
        ),
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
        HostingDestroy | HostingCredentials => (D::GitRemote, R::High, Irr),
        SecretsRead => (D::FileRead, R::High, Irr),
        SecretsChange => (D::Remote, R::High, Irr),
        PackageRead => (D::Package, R::Low, Rev),
        PackageInstall | PackageRun => (D::Package, R::Medium, Rev),
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

fn delete(
    t: &Target,
    verb: &str,
    recursive: bool,
    note: Option<PathNote>,
    ctx: &Context,
) -> Finding {
    if note == Some(PathNote::MovesAway) {
        if t.protected || t.holds_protected {
            return self_protect(verb, t);
        }
        return delete_finding(t, verb, true, ctx);
    }
    // An empty folder of the project, the home or a temporary directory holds nothing;
    // elsewhere (mount points, a service's run folder) its absence can break the system.
    if note == Some(PathNote::OnlyEmpty)
        && !t.protected
        && !t.holds_protected
        && t.path.is_some()
        && (t.in_project() || matches!(t.zone, Zone::Temp | Zone::Home | Zone::HomeTop))
    {
        return Finding::new(
            Domain::FileDelete,
            Risk::Low,
            "delete-empty-directory",
            format!("{verb} {} only if it is empty: nothing is lost", t.shown()),
        );
    }
    let mut f = delete_finding(t, verb, recursive, ctx);
    if note == Some(PathNote::Shreds) && t.in_project() {
        f = f.at_least(Risk::High);
    }
    f
}

fn wipe(t: &Target, explain: &str) -> Finding {
    if t.zone == Zone::Device {
        return Finding::new(
            Domain::System,
            Risk::Critical,
            "disk-tool",
            format!(
                "{explain}: on the device {}, destroys what is on it",
                t.shown()
            ),
        )
        .alt("work on an image file inside the project");
    }
    Finding::new(Domain::System, Risk::High, "disk-tool", explain).kind(Kind::Irreversible)
}

/// Returns whether a URL's path names an action that destroys (`delete`, `_delete_by_query`,
/// `doDelete`, `flush`, `drop`, `purge`, `truncate`, `wipe`, `reset`, an `admin` endpoint).
fn destroying_endpoint(path_words: &[String]) -> bool {
    path_words.iter().any(|w| {
        let w = w.to_ascii_lowercase();
        [
            "delete", "destroy", "drop", "purge", "flush", "truncate", "wipe", "reset", "admin",
            "remove", "erase", "_close", "kill", "shutdown", "_cluster",
        ]
        .iter()
        .any(|k| w.contains(k))
    })
}

fn http(r: &Request, explain: &str) -> Finding {
    let m = r.method.as_str();
    let reads = m == "GET" || m == "HEAD" || m == "OPTIONS";
    let destroys = m == "DELETE"
        || !reads && (destroying_endpoint(&r.path_words) || destroying_endpoint(&r.body_words));
    let (domain, risk, kind, rule, why) = if r.payment == Some(true) && !reads {
        (
            Domain::NetworkWrite,
            Risk::Critical,
            Kind::Catastrophic,
            "payment-request",
            format!("sends a {m} to a payment, order or trading URL: it may move money"),
        )
    } else if r.payment == Some(false) && !reads {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Irreversible,
            "order-request",
            format!("sends a {m} to an order URL"),
        )
    } else if r.executes {
        (
            Domain::Network,
            Risk::High,
            Kind::NotUnderstood,
            "download",
            "runs wgetrc commands given on the command line".to_owned(),
        )
    } else if destroys {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Irreversible,
            "network-delete",
            if m == "DELETE" {
                format!(
                    "sends a DELETE request{}",
                    if r.loopback {
                        " to a service on this machine"
                    } else {
                        ""
                    }
                )
            } else {
                format!("sends a {m} to an endpoint that deletes, flushes or administers")
            },
        )
    } else if r.loopback {
        (
            Domain::Network,
            Risk::Low,
            Kind::Reversible,
            "loopback",
            "talks to a service on this machine".to_owned(),
        )
    } else if r.uploads {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Reversible,
            "upload-file",
            "uploads local files".to_owned(),
        )
    } else if !reads {
        (
            Domain::NetworkWrite,
            Risk::Medium,
            Kind::Reversible,
            "network-send",
            format!("sends a {m} request"),
        )
    } else if r.computed {
        (
            Domain::Network,
            Risk::Medium,
            Kind::NotUnderstood,
            "download",
            "fetches a URL computed at run time".to_owned(),
        )
    } else {
        (
            Domain::Network,
            Risk::Medium,
            Kind::Reversible,
            "download",
            if r.host.is_empty() {
                "downloads a URL".to_owned()
            } else {
                format!("downloads from {}", r.host)
            },
        )
    };
    let mut f = Finding::new(domain, risk, rule, format!("{explain}: {why}")).kind(kind);
    if destroys && m == "DELETE" {
        f = f.alt("a GET first, to see what would go");
    }
    f
}

fn run(code: &Code, verb: &str) -> Finding {
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

fn perm_finding(name: &str, mode: &str, t: &Target, recursive: bool) -> Finding {
    let shown = t.shown();
    if t.protected
        || t.holds_protected && recursive && !matches!(t.zone, Zone::Root | Zone::HomeTop)
    {
        return self_protect(&format!("{name} changes"), t);
    }
    let setuid = name == "chmod"
        && (mode.contains('s') || mode.len() == 4 && mode.starts_with(['4', '2', '6']));
    let alt = "change permissions of specific files inside the project";
    let whole_home = t.zone == Zone::HomeTop && t.is_home();
    if recursive
        && (whole_home
            || matches!(
                t.zone,
                Zone::Root | Zone::System | Zone::OtherHome | Zone::Device
            ))
    {
        return Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "recursive-permissions-outside",
            format!("{name} -R on {shown}: changes permissions of a whole system, home or other user's tree"),
        )
        .alt(alt);
    }
    if t.path.is_none() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions",
            format!("{name} on a path computed at run time"),
        )
        .kind(Kind::NotUnderstood);
    }
    if !t.in_project() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions-outside",
            format!("{name} changes {shown}, outside the project"),
        )
        .kind(Kind::Irreversible)
        .alt(alt);
    }
    if recursive
        || setuid
        || name != "chmod"
        || mode.is_empty()
        || mode.contains("777")
        || mode.contains("o+w")
        || mode.contains("a+w")
    {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions",
            format!(
                "{name} {mode} on {shown}{}",
                if recursive { " recursively" } else { "" }
            ),
        );
    }
    Finding::new(
        Domain::FileWrite,
        Risk::Medium,
        "change-permissions",
        format!("{name} {mode} on {shown}"),
    )
}

/// The self-protection finding.
pub(crate) fn self_protect(what: &str, t: &Target) -> Finding {
    Finding::new(
        Domain::Global,
        Risk::Critical,
        "oath-self-protect",
        format!(
            "{what} {} which holds oath's own configuration, state, audit trail, hooks or binary; people change these through the `oath` CLI",
            t.shown()
        ),
    )
    .alt("ask the person to run the `oath` command that makes this change (oath config, oath phase, oath install/uninstall)")
}

/// Returns the domain of a write inside the project.
fn project_write_domain(z: Zone) -> Domain {
    match z {
        Zone::ProjectSrc => Domain::FileWriteSrc,
        Zone::ProjectDocs => Domain::DocsWrite,
        _ => Domain::FileWrite,
    }
}

/// Returns the finding for writing (creating or overwriting) a file.
pub(crate) fn write_finding(t: &Target, verb: &str) -> Finding {
    let shown = t.shown();
    if t.protected {
        return self_protect(verb, t);
    }
    if t.path.is_none() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-unknown-path",
            format!("{verb} a path computed at run time"),
        )
        .kind(Kind::NotUnderstood);
    }
    // Claude Code's plan mode writes its plan there: a note for the person, run by nothing.
    if t.zone == Zone::Home
        && let Some(name) = shown.strip_prefix("~/.claude/plans/")
        && !name.contains('/')
        && name.ends_with(".md")
    {
        return Finding::new(
            Domain::DocsWrite,
            Risk::Low,
            "write-agent-plan",
            format!("{verb} {shown}, Claude Code's plan for this session"),
        );
    }
    if t.account_db {
        return Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "write-system-auth",
            format!("{verb} {shown}, a system account, sudo, cron or service file"),
        );
    }
    if t.credential && !t.in_project() {
        return Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "write-credentials",
            format!("{verb} {shown}, which holds credentials or keys"),
        );
    }
    if t.shell_rc {
        let own = matches!(t.zone, Zone::HomeTop | Zone::Home);
        return if own {
            Finding::new(
                Domain::FileWrite,
                Risk::High,
                "write-shell-startup",
                format!("{verb} {shown}, a shell start-up file (runs in every new shell)"),
            )
            .kind(Kind::Irreversible)
        } else {
            Finding::new(
                Domain::FileWrite,
                Risk::Critical,
                "write-other-user-startup",
                format!("{verb} {shown}, a shell start-up file of another user or of the system"),
            )
        };
    }
    if t.ci_config {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-ci-config",
            format!("{verb} {shown}: CI configuration runs code with the repository's secrets"),
        )
        .kind(Kind::Irreversible);
    }
    if t.persistent_config {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-persistent-config",
            format!("{verb} {shown}: a file that runs code outside this session (on cd, on your commits, when the folder opens or Claude Code starts)"),
        )
        .kind(Kind::Irreversible);
    }
    if t.exec_config {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-exec-config",
            format!("{verb} {shown}: test set-up that pytest runs as code"),
        );
    }
    let irr = |f: Finding| f.kind(Kind::Irreversible);
    match t.zone {
        Zone::Harmless => Finding::new(
            Domain::ShellExec,
            Risk::Low,
            "write-dev-null",
            format!("{verb} {shown}, which keeps nothing"),
        ),
        Zone::Network => irr(Finding::new(
            Domain::NetworkWrite,
            Risk::High,
            "dev-tcp",
            format!("{verb} {shown}: a raw network connection"),
        )),
        Zone::Device => Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "write-device",
            format!("{verb} the device {shown}: destroys what is on it"),
        )
        .alt("work on an image file inside the project"),
        Zone::Root | Zone::System => irr(Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-system",
            format!("{verb} {shown}, a system path outside the project"),
        )),
        Zone::OtherHome => irr(Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-other-user",
            format!("{verb} {shown}, in another user's home"),
        )),
        Zone::HomeTop | Zone::Home | Zone::Elsewhere => irr(Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-outside-project",
            format!("{verb} {shown}, outside the project"),
        )),
        Zone::Temp => Finding::new(
            Domain::FileWrite,
            Risk::Medium,
            "write-temp",
            format!("{verb} {shown}, a temporary file"),
        ),
        Zone::ProjectGitExec => irr(Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-git-hooks",
            format!(
                "{verb} {shown}: git's own files (hooks, config, refs, objects) decide what git runs and keeps"
            ),
        )),
        Zone::ProjectSrc | Zone::ProjectDocs | Zone::Project => {
            if t.credential {
                Finding::new(
                    Domain::FileWrite,
                    Risk::High,
                    "write-secrets-file",
                    format!("{verb} {shown}, a secrets file"),
                )
            } else {
                Finding::new(
                    project_write_domain(t.zone),
                    Risk::Medium,
                    "write-project-file",
                    format!("{verb} {shown}, inside the project"),
                )
            }
        }
    }
}

/// Returns whether a top-level folder of the home (as shown, `~/.npm`) is a package or
/// build cache that tools recreate.
fn is_cache_dir(shown: &str) -> bool {
    matches!(
        shown,
        "~/.cache"
            | "~/.npm"
            | "~/.yarn"
            | "~/.pnpm-store"
            | "~/.gradle"
            | "~/.m2"
            | "~/.ivy2"
            | "~/.sbt"
            | "~/.nuget"
            | "~/.bun"
            | "~/.deno"
            | "~/.node-gyp"
            | "~/.pub-cache"
            | "~/.cocoapods"
            | "~/.expo"
            | "~/.turbo"
            | "~/.parcel-cache"
            | "~/.pytest_cache"
            | "~/.mypy_cache"
            | "~/.ruff_cache"
            | "~/.ccache"
    )
}

/// Returns the finding for deleting (or irreversibly destroying) a path.
pub(crate) fn delete_finding(t: &Target, verb: &str, recursive: bool, ctx: &Context) -> Finding {
    let shown = t.shown();
    if t.protected || t.holds_protected && !matches!(t.zone, Zone::Root | Zone::HomeTop) {
        return self_protect(verb, t);
    }
    let outside = "delete specific paths inside the project";
    let crit = |rule: &'static str, why: String| {
        Finding::new(Domain::FileDelete, Risk::Critical, rule, why).alt(outside)
    };
    let irr = |f: Finding| f.kind(Kind::Irreversible);
    if t.path.is_none() {
        return Finding::new(
            Domain::FileDelete,
            Risk::High,
            "delete-unknown-path",
            format!("{verb} a path computed at run time"),
        )
        .kind(Kind::NotUnderstood)
        .alt("name the paths to delete literally");
    }
    match t.zone {
        Zone::Root => crit(
            "delete-root",
            format!("{verb} {shown}: the whole system or every home"),
        ),
        Zone::HomeTop if is_cache_dir(&shown) => Finding::new(
            Domain::FileDelete,
            Risk::High,
            "delete-cache",
            format!("{verb} {shown}, a cache outside the project that tools recreate"),
        ),
        Zone::HomeTop => crit(
            "delete-home",
            format!("{verb} {shown}: the home directory or a top-level folder of it"),
        ),
        Zone::System if recursive => crit(
            "delete-system",
            format!("{verb} {shown} recursively: a system directory"),
        ),
        Zone::OtherHome if recursive => crit(
            "delete-other-user",
            format!("{verb} {shown} recursively: another user's files"),
        ),
        Zone::Device => crit("delete-device", format!("{verb} the device {shown}")),
        _ if t.credential && !t.in_project() => crit(
            "delete-credentials",
            format!("{verb} {shown}: credentials or keys, not recoverable"),
        ),
        Zone::Home if recursive => irr(Finding::new(
            Domain::FileDelete,
            Risk::High,
            "delete-outside-project",
            format!("{verb} {shown} recursively, outside the project"),
        )
        .alt(outside)),
        Zone::Harmless => Finding::new(
            Domain::FileDelete,
            Risk::Low,
            "delete-dev-null",
            format!("{verb} {shown}"),
        ),
        Zone::Temp => Finding::new(
            Domain::FileDelete,
            if recursive { Risk::High } else { Risk::Medium },
            "delete-temp",
            format!("{verb} {shown}, a temporary path"),
        ),
        Zone::System | Zone::OtherHome | Zone::Home | Zone::Elsewhere | Zone::Network => {
            irr(Finding::new(
                Domain::FileDelete,
                Risk::High,
                "delete-outside-project",
                format!("{verb} {shown}, outside the project"),
            )
            .alt(outside))
        }
        // A repository's own store (`.git`, or a submodule's): its history, branches, stashes
        // and index, which git cannot bring back from itself.
        Zone::ProjectSrc | Zone::ProjectDocs | Zone::Project | Zone::ProjectGitExec
            if t
                .path
                .as_deref()
                .is_some_and(|p| p.components().any(|c| c.as_os_str() == ".git")) =>
        {
            irr(Finding::new(
                Domain::FileDelete,
                Risk::High,
                "delete-git-store",
                format!("{verb} {shown}: the repository's own store (history, branches, stashes, the index), which git cannot bring back"),
            ))
            .alt("push or bundle the repository first (git bundle create ../backup.bundle --all)")
        }
        Zone::ProjectSrc | Zone::ProjectDocs | Zone::Project | Zone::ProjectGitExec => {
            let project_root = t.path.as_deref() == Some(ctx.project_root());
            let loses = t.path.as_deref().map_or(Loses::Work, |p| ctx.loses(p));
            let (rule, risk, what) = if project_root && recursive {
                (
                    "delete-project",
                    Risk::High,
                    "the whole project recursively".to_owned(),
                )
            } else if recursive {
                (
                    "delete-recursive-project",
                    Risk::High,
                    format!("{shown} recursively, inside the project"),
                )
            } else {
                (
                    "delete-project-file",
                    Risk::Medium,
                    format!("{shown}, inside the project"),
                )
            };
            let f = Finding::new(Domain::FileDelete, risk, rule, format!("{verb} {what}"));
            match loses {
                Loses::Nothing => Finding {
                    reason: format!(
                        "{}: git or a rebuild brings back what it deletes (tracked and unchanged, ignored, or absent)",
                        f.reason
                    ),
                    ..f
                },
                Loses::Work => irr(Finding {
                    reason: format!(
                        "{}: it holds work neither git nor a rebuild brings back (untracked or uncommitted)",
                        f.reason
                    ),
                    ..f
                })
                .alt("commit or stash the work first, or delete specific files git tracks"),
            }
        }
    }
}

/// Returns the finding for reading a path (credentials are not low).
pub(crate) fn read_finding(t: &Target, verb: &str) -> Finding {
    if t.credential
        || matches!(t.path.as_deref(), Some(p) if p == Path::new("/etc/shadow") || p.starts_with("/etc/sudoers"))
    {
        return Finding::new(
            Domain::FileRead,
            Risk::High,
            "read-credentials",
            format!("{verb} {}, which holds credentials or keys", t.shown()),
        )
        .kind(Kind::Irreversible)
        .alt("read the non-secret configuration instead (e.g. .env.example)");
    }
    if t.zone == Zone::Device {
        return Finding::new(
            Domain::FileRead,
            Risk::High,
            "read-device",
            format!("{verb} the raw device {}", t.shown()),
        )
        .kind(Kind::Irreversible);
    }
    Finding::new(
        Domain::FileRead,
        Risk::Low,
        "read",
        format!("{verb} {}", t.shown()),
    )
}
