//! The policy: one function turns each effect into a domain and a risk, with the rule that
//! decided and why. Packs and the walker say what a command does; only this module says how
//! dangerous that is.
//!
//! Risks are today's (the safety-policy issue moves them): reads are low, ordinary changes
//! medium, destructive or far-reaching work high, and critical what no trust may allow
//! (destroying home or system data, running downloaded code, sending credentials away,
//! switching oath off).

use std::borrow::Cow;
use std::path::Path;

use super::effect::{Code, Effect, Request};
use super::pack::schema::{Act, PathNote};
use super::paths::{Target, Zone};
use super::rule::Finding;
use super::{Domain, Risk};

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

/// Returns the finding for one effect.
pub(crate) fn finding(effect: &Effect, said: Said<'_>) -> Finding {
    let mut f = match effect {
        Effect::Act(a) => {
            let (domain, risk) = act(*a);
            Finding::new(domain, risk, said.id.to_owned(), said.explain)
        }
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
        } => delete(target, said.verb, *recursive, *note),
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
        ),
    };
    if f.alternative.is_none()
        && let Some(s) = said.safer
    {
        f.alternative = Some(Cow::Owned(s.to_owned()));
    }
    f
}

/// Returns the domain and risk of acting on a system other than files.
pub(crate) fn act(a: Act) -> (Domain, Risk) {
    use Act::*;
    use Domain as D;
    use Risk as R;
    match a {
        VcsRead => (D::GitRead, R::Low),
        VcsChange => (D::GitLocal, R::Medium),
        VcsDestroy | VcsConfigure => (D::GitLocal, R::High),
        VcsRemoteRead => (D::GitRemote, R::Low),
        VcsRemoteReceive | VcsRemoteChange => (D::GitRemote, R::Medium),
        VcsRemoteDestroy | VcsRemoteSend => (D::GitRemote, R::High),
        HostingRead => (D::GitRemote, R::Low),
        HostingChange => (D::GitRemote, R::Medium),
        HostingDestroy | HostingCredentials => (D::GitRemote, R::High),
        SecretsRead => (D::FileRead, R::High),
        PackageRead => (D::Package, R::Low),
        PackageInstall | PackageRun => (D::Package, R::Medium),
        PackageGlobal | PackageSystem => (D::Package, R::High),
        RegistryPublish => (D::Network, R::High),
        BuildRun | ScriptRun | ToolRun => (D::ShellExec, R::Medium),
        TestRun => (D::TestRun, R::Low),
        LintRun => (D::ShellExec, R::Low),
        ServiceRead | ScheduleRead | SystemRead => (D::ShellExec, R::Low),
        ServiceChange | PowerChange | ProcessDestroy | ScheduleChange | AccountChange
        | SystemChange | DiskDestroy | NamespaceRun | PrivilegeElevate | PrivilegeShell => {
            (D::ShellExec, R::High)
        }
        ProcessChange | PrivilegeAdmin => (D::ShellExec, R::Medium),
        ContainerRead | ClusterRead | CloudRead | InfraRead | RemoteRead | DatabaseRead => {
            (D::ShellExec, R::Low)
        }
        ContainerChange | ClusterChange | CloudChange | InfraChange | DatabaseChange
        | RemoteChange => (D::ShellExec, R::Medium),
        ContainerDestroy | ContainerPrivileged | ClusterDeploy | ClusterDestroy | CloudDestroy
        | InfraDeploy | InfraDestroy | DatabaseDestroy | RemoteDestroy => (D::ShellExec, R::High),
        NetReceive => (D::Network, R::Medium),
        NetConnect | NetListen | NetSend | NetCopy | NetProxy => (D::Network, R::High),
        NetShell | NetExfiltrate => (D::Network, R::Critical),
        ShellHarmless | ShellDecode => (D::ShellExec, R::Low),
        ShellInteractive | ShellUnknownCode => (D::ShellExec, R::High),
        EditorOpen | FilesTrash => (D::FileWrite, R::Medium),
        DesktopOpen => (D::ShellExec, R::Medium),
        AgentRun => (D::Subagent, R::High),
        AgentRead | OathRead => (D::Global, R::Low),
        OathChange => (D::Global, R::High),
    }
}

fn delete(t: &Target, verb: &str, recursive: bool, note: Option<PathNote>) -> Finding {
    if note == Some(PathNote::MovesAway) {
        if t.protected || t.holds_protected {
            return self_protect(verb, t);
        }
        return delete_finding(t, verb, true);
    }
    let mut f = delete_finding(t, verb, recursive);
    if note == Some(PathNote::Shreds) && t.in_project() {
        f = f.at_least(Risk::High);
    }
    f
}

fn wipe(t: &Target, explain: &str) -> Finding {
    if t.zone == Zone::Device {
        return Finding::new(
            Domain::ShellExec,
            Risk::Critical,
            "disk-tool",
            format!(
                "{explain}: on the device {}, destroys what is on it",
                t.shown()
            ),
        )
        .alt("work on an image file inside the project");
    }
    Finding::new(Domain::ShellExec, Risk::High, "disk-tool", explain)
}

fn http(r: &Request, explain: &str) -> Finding {
    let m = r.method.as_str();
    let reads = m == "GET" || m == "HEAD";
    let (domain, risk, rule, why) = if r.payment == Some(true) && !reads {
        (
            Domain::Network,
            Risk::Critical,
            "payment-request",
            format!("sends a {m} to a payment, order or trading URL: it may move money"),
        )
    } else if r.payment == Some(false) && !reads {
        (
            Domain::Network,
            Risk::High,
            "order-request",
            format!("sends a {m} to an order URL"),
        )
    } else if r.executes {
        (
            Domain::Network,
            Risk::High,
            "download",
            "runs wgetrc commands given on the command line".to_owned(),
        )
    } else if r.loopback {
        (
            Domain::ShellExec,
            if m == "DELETE" {
                Risk::Medium
            } else {
                Risk::Low
            },
            "loopback",
            "talks to a service on this machine".to_owned(),
        )
    } else if r.uploads {
        (
            Domain::Network,
            Risk::High,
            "upload-file",
            "uploads local files".to_owned(),
        )
    } else if m == "DELETE" {
        (
            Domain::Network,
            Risk::High,
            "network-delete",
            "sends a DELETE request".to_owned(),
        )
    } else if !reads {
        (
            Domain::Network,
            Risk::Medium,
            "network-send",
            format!("sends a {m} request"),
        )
    } else if r.computed {
        (
            Domain::Network,
            Risk::Medium,
            "download",
            "fetches a URL computed at run time".to_owned(),
        )
    } else {
        (
            Domain::Network,
            Risk::Medium,
            "download",
            if r.host.is_empty() {
                "downloads a URL".to_owned()
            } else {
                format!("downloads from {}", r.host)
            },
        )
    };
    Finding::new(domain, risk, rule, format!("{explain}: {why}"))
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
        ),
        Code::Computed => Finding::new(
            Domain::ShellExec,
            Risk::High,
            "unknown-code",
            format!("{verb} code computed at run time"),
        ),
        Code::File(t) => {
            if t.path.is_none() {
                Finding::new(
                    Domain::ShellExec,
                    Risk::High,
                    "run-generated-code",
                    format!("{verb} a script whose name or content is computed at run time"),
                )
            } else if t.protected {
                Finding::new(
                    Domain::Global,
                    Risk::High,
                    "oath-cli",
                    format!("{verb} oath's own files"),
                )
            } else if t.in_project() {
                Finding::new(
                    Domain::ShellExec,
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
        );
    }
    if !t.in_project() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "change-permissions-outside",
            format!("{name} changes {shown}, outside the project"),
        )
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
        } else {
            Finding::new(
                Domain::FileWrite,
                Risk::Critical,
                "write-other-user-startup",
                format!("{verb} {shown}, a shell start-up file of another user or of the system"),
            )
        };
    }
    match t.zone {
        Zone::Harmless => Finding::new(
            Domain::ShellExec,
            Risk::Low,
            "write-dev-null",
            format!("{verb} {shown}, which keeps nothing"),
        ),
        Zone::Network => Finding::new(
            Domain::Network,
            Risk::High,
            "dev-tcp",
            format!("{verb} {shown}: a raw network connection"),
        ),
        Zone::Device => Finding::new(
            Domain::FileWrite,
            Risk::Critical,
            "write-device",
            format!("{verb} the device {shown}: destroys what is on it"),
        )
        .alt("work on an image file inside the project"),
        Zone::Root | Zone::System => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-system",
            format!("{verb} {shown}, a system path outside the project"),
        ),
        Zone::OtherHome => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-other-user",
            format!("{verb} {shown}, in another user's home"),
        ),
        Zone::HomeTop | Zone::Home | Zone::Elsewhere => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-outside-project",
            format!("{verb} {shown}, outside the project"),
        ),
        Zone::Temp => Finding::new(
            Domain::FileWrite,
            Risk::Medium,
            "write-temp",
            format!("{verb} {shown}, a temporary file"),
        ),
        Zone::ProjectGitExec => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-git-hooks",
            format!("{verb} {shown}: git hooks and git config run or configure code"),
        ),
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
pub(crate) fn delete_finding(t: &Target, verb: &str, recursive: bool) -> Finding {
    let shown = t.shown();
    if t.protected || t.holds_protected && !matches!(t.zone, Zone::Root | Zone::HomeTop) {
        return self_protect(verb, t);
    }
    let outside = "delete specific paths inside the project";
    let crit = |rule: &'static str, why: String| {
        Finding::new(Domain::FileWrite, Risk::Critical, rule, why).alt(outside)
    };
    if t.path.is_none() {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "delete-unknown-path",
            format!("{verb} a path computed at run time"),
        )
        .alt("name the paths to delete literally");
    }
    match t.zone {
        Zone::Root => crit(
            "delete-root",
            format!("{verb} {shown}: the whole system or every home"),
        ),
        Zone::HomeTop if is_cache_dir(&shown) => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "delete-outside-project",
            format!("{verb} {shown}, a cache outside the project"),
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
        Zone::Home if recursive => Finding::new(
            Domain::FileWrite,
            Risk::High,
            "delete-outside-project",
            format!("{verb} {shown} recursively, outside the project"),
        )
        .alt(outside),
        Zone::Harmless => Finding::new(
            Domain::FileWrite,
            Risk::Low,
            "delete-dev-null",
            format!("{verb} {shown}"),
        ),
        Zone::Temp => Finding::new(
            Domain::FileWrite,
            if recursive { Risk::High } else { Risk::Medium },
            "delete-temp",
            format!("{verb} {shown}, a temporary path"),
        ),
        Zone::System | Zone::OtherHome | Zone::Home | Zone::Elsewhere | Zone::Network => {
            Finding::new(
                Domain::FileWrite,
                Risk::High,
                "delete-outside-project",
                format!("{verb} {shown}, outside the project"),
            )
            .alt(outside)
        }
        Zone::ProjectSrc | Zone::ProjectDocs | Zone::Project | Zone::ProjectGitExec => {
            if recursive {
                Finding::new(
                    Domain::FileWrite,
                    Risk::High,
                    "delete-recursive-project",
                    format!("{verb} {shown} recursively, inside the project"),
                )
            } else {
                Finding::new(
                    project_write_domain(t.zone),
                    Risk::Medium,
                    "delete-project-file",
                    format!("{verb} {shown}, inside the project"),
                )
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
        .alt("read the non-secret configuration instead (e.g. .env.example)");
    }
    if t.zone == Zone::Device {
        return Finding::new(
            Domain::FileRead,
            Risk::High,
            "read-device",
            format!("{verb} the raw device {}", t.shown()),
        );
    }
    Finding::new(
        Domain::FileRead,
        Risk::Low,
        "read",
        format!("{verb} {}", t.shown()),
    )
}
