//! The policy of paths: reading, writing, deleting, wiping and changing permissions of a
//! path, by its zone and what it holds.

use std::path::Path;

use super::super::pack::schema::PathNote;
use super::super::paths::{Target, Zone};
use super::super::rule::Finding;
use super::super::{Context, Domain, Kind, Loses, Risk};

pub(super) fn delete(
    t: &Target,
    verb: &str,
    recursive: bool,
    note: Option<PathNote>,
    ctx: &Context,
) -> Finding {
    let untracked = match note {
        Some(PathNote::Untracked) => Some(false),
        Some(PathNote::UntrackedIgnored) => Some(true),
        _ => None,
    };
    if let Some(ignored) = untracked {
        // Only oath's and Claude Code's files are judged here: the work it takes away is
        // the command's other effects'.
        return takes_settings(t, verb, ignored, ctx).unwrap_or_else(|| {
            Finding::new(
                Domain::FileDelete,
                Risk::Low,
                "untracked-without-settings",
                format!(
                    "{verb} what git does not track in {}: none of oath's or Claude Code's files",
                    t.shown()
                ),
            )
        });
    }
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
    // The whole project goes, and with it what git does not keep of oath's and Claude
    // Code's (a settings file it ignores, the 3-strike log): nothing brings those back.
    if f.kind == Kind::Reversible
        && recursive
        && t.path.as_deref() == Some(ctx.project_root())
        && ctx
            .protected_untracked(ctx.project_root(), true)
            .is_none_or(|v| !v.is_empty())
    {
        f = Finding {
            reason: format!(
                "{verb} the whole project recursively, with oath's or Claude Code's files that git does not keep (untracked or ignored)"
            ),
            ..f
        }
        .kind(Kind::Irreversible)
        .alt("delete specific paths inside the project");
    }
    f
}

/// Returns the finding for taking away what git does not track in `t` (`git stash -u`,
/// `git clean -fdx`; with `ignored`, ignored files too) when oath's or Claude Code's files
/// are among it, or when git cannot tell: None when none of them is (a path outside the
/// project holds none of the project's).
fn takes_settings(t: &Target, verb: &str, ignored: bool, ctx: &Context) -> Option<Finding> {
    if t.protected || t.holds_protected {
        return Some(self_protect(verb, t));
    }
    let p = t.path.as_deref()?;
    let root = ctx.project_root();
    if !super::super::paths::path_is_under(p, root) {
        return None;
    }
    let within = pattern_folder(p, root);
    match ctx.protected_untracked(&within, ignored) {
        Some(found) => found.first().map(|rel| {
            let named = super::super::paths::target(Some(root.join(rel)), ctx);
            self_protect(verb, &named)
        }),
        None => Some(
            Finding::new(
                Domain::FileDelete,
                Risk::High,
                "untracked-settings-unknown",
                format!(
                    "{verb} what git does not track in {}: git did not tell in time whether oath's or Claude Code's files are among it",
                    t.shown()
                ),
            )
            .kind(Kind::NotUnderstood),
        ),
    }
}

/// Returns the folder a git pathspec starts in: the path up to its first component that is
/// a pattern (`*`, `?`, `[`) or pathspec magic (`:/`, `:(glob)`), which git matches against
/// every path below.
fn pattern_folder(p: &Path, root: &Path) -> std::path::PathBuf {
    let Ok(rel) = p.strip_prefix(root) else {
        return p.to_path_buf();
    };
    let mut out = root.to_path_buf();
    for c in rel.components() {
        let s = c.as_os_str().to_string_lossy();
        if s.contains(['*', '?', '[']) || s.starts_with(':') {
            break;
        }
        out.push(c);
    }
    out
}

pub(super) fn wipe(t: &Target, explain: &str) -> Finding {
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

pub(super) fn perm_finding(
    name: &str,
    mode: &str,
    t: &Target,
    recursive: bool,
    ctx: &Context,
) -> Finding {
    let shown = t.shown();
    // A folder that holds what oath protects (`.claude`, `~/.claude`) decides who reaches
    // it: `chmod 000 .claude` hides the settings from the client as surely as deleting them.
    if t.protected || t.holds_protected && t.zone != Zone::Root && !t.is_home() {
        return self_protect(&format!("{name} changes"), t);
    }
    if recursive && t.path.as_deref() == Some(ctx.project_root()) {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "permissions-over-settings",
            format!(
                "{name} -R on the whole project changes who reaches oath's and Claude Code's settings in it too"
            ),
        )
        .kind(Kind::NotUnderstood)
        .alt("change permissions of specific folders inside the project");
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
    write_into(t, verb, None)
}

/// Returns the finding for writing a path, as [`write_finding`], with what the rule notes
/// about it (creating a folder only).
pub(super) fn write_into(t: &Target, verb: &str, note: Option<PathNote>) -> Finding {
    let shown = t.shown();
    if t.protected {
        return self_protect(verb, t);
    }
    // A folder of the project that holds what oath protects (`.claude`): what a build, a
    // copy, a link or a clone puts in it, or in its place, may be a settings file or an
    // agent oath does not see. Making the folder is only that.
    if t.holds_protected && t.in_project() && note != Some(PathNote::CreatesDirectory) {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "write-over-settings",
            format!(
                "{verb} {shown}, which holds oath's or Claude Code's settings: what lands in it, or in its place, is more than oath can see"
            ),
        )
        .kind(Kind::NotUnderstood)
        .alt("write into a folder of the project that holds no settings");
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

/// Returns the finding for replacing what a file holds (a truncating redirect, a copy or
/// move onto it, an output file written anew, `truncate`): the write's own finding, judged
/// inside the project as deleting the file would be. When the project's git says the file
/// holds work it cannot bring back (untracked and not ignored, or with uncommitted changes),
/// the overwrite is irreversible; a tracked unchanged file, an ignored one (a build output)
/// or one that does not exist loses nothing, and the write stays what it was.
pub(super) fn overwrite(t: &Target, verb: &str, through_link: bool, ctx: &Context) -> Finding {
    let f = write_finding(t, verb);
    if f.kind != Kind::Reversible || !t.in_project() {
        return f;
    }
    let Some(p) = t.path.as_deref() else {
        return f;
    };
    // Through a symbolic link, what the link leads to is what is replaced (a link put in
    // its place replaces the link).
    let real = through_link.then(|| ctx.real_path(p)).flatten();
    match ctx.loses(real.as_deref().unwrap_or(p)) {
        Loses::Nothing => f,
        Loses::Work => Finding {
            reason: format!(
                "{}, replacing what it holds: work neither git nor a rebuild brings back (untracked or uncommitted)",
                f.reason
            ),
            ..f
        }
        .kind(Kind::Irreversible)
        .alt("commit or stash the work first, or write to a new file"),
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

/// Returns the finding for the client's own file tool writing a path. Claude Code keeps a
/// checkpoint of every file its own tools change (`/rewind`), and git holds the committed
/// text: an ordinary project file written this way comes back, so it is low risk (a shell's
/// writes have no checkpoint). For the same reason the tool writing over a file with
/// uncommitted work is not asked as a shell's overwrite is ([`overwrite`]): the checkpoint
/// holds what the file held before, and `/rewind` brings it back.
pub(super) fn edit(t: &Target, verb: &str) -> Finding {
    let mut f = write_finding(t, verb);
    if f.rule == "write-project-file" {
        f.risk = Risk::Low;
        f.reason
            .push_str(" (Claude Code's checkpoint and git bring it back)");
    }
    f
}

/// Returns the finding for a rule that writes or deletes paths and was given none.
pub(super) fn no_path(delete: bool, explain: &str) -> Finding {
    let (risk, rule) = if delete {
        (Risk::Low, "delete-nothing")
    } else {
        (Risk::Medium, "write-unknown-path")
    };
    Finding::new(
        Domain::FileWrite,
        risk,
        rule,
        format!("{explain}: no path given"),
    )
}

/// Returns the finding for reading some paths: the worst of them with its index, or a
/// plain read of files when none is more than that.
pub(crate) fn reads(files: &[Target], verb: &str) -> (Finding, Option<usize>) {
    let mut worst: Option<(Finding, usize)> = None;
    for (i, tg) in files.iter().enumerate() {
        let f = read_finding(tg, verb);
        if worst.as_ref().is_none_or(|(b, _)| f.risk > b.risk) {
            worst = Some((f, i));
        }
    }
    match worst {
        Some((f, i)) if f.rule != "read" => (f, Some(i)),
        _ => (
            Finding::new(Domain::FileRead, Risk::Low, "read", format!("{verb} files")),
            None,
        ),
    }
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
