//! Git and code-hosting CLIs: global options skipped, sub-commands sorted into read, local
//! and remote work, destructive forms raised with a safer alternative.

use crate::shell::Word;

use super::command::Walker;
use super::paths;
use super::rule::Finding;
use super::{Domain, Risk};

fn f(domain: Domain, risk: Risk, rule: &'static str, reason: impl Into<String>) -> Finding {
    Finding::new(domain, risk, rule, reason)
}

/// Classifies `git ARGS`.
pub(crate) fn git_finding(args: &[Word], w: &Walker<'_>) -> Finding {
    let mut i = 0;
    let mut config_exec = false;
    while i < args.len() {
        let a = args[i].text.as_str();
        match a {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" | "--config-env"
            | "--super-prefix" | "--list-cmds" => i += 2,
            "-c" => {
                if let Some(kv) = args.get(i + 1) {
                    config_exec |= dangerous_config(&kv.text);
                }
                i += 2;
            }
            _ if a.starts_with('-') => {
                if a == "--version" || a == "--help" || a == "-h" {
                    return f(
                        Domain::GitRead,
                        Risk::Low,
                        "git-read",
                        "git version or help",
                    );
                }
                if let Some(kv) = a.strip_prefix("--config-env=") {
                    config_exec |= dangerous_config(kv);
                }
                i += 1;
            }
            _ => break,
        }
    }
    if config_exec {
        return f(
            Domain::GitLocal,
            Risk::High,
            "git-config-exec",
            "git -c sets an alias, hook path, pager, editor or ssh command that runs arbitrary code",
        );
    }
    let Some(sub) = args.get(i) else {
        return f(
            Domain::GitRead,
            Risk::Low,
            "git-read",
            "git without a sub-command",
        );
    };
    if !sub.literal {
        return f(
            Domain::GitLocal,
            Risk::High,
            "unknown-command",
            "the git sub-command is computed at run time",
        );
    }
    let rest = &args[i + 1..];
    let has = |names: &[&str]| rest.iter().any(|a| names.contains(&a.text.as_str()));
    let short = |c: char| {
        rest.iter().any(|a| {
            let t = a.text.as_str();
            t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c)
        })
    };
    let positional: Vec<&str> = rest
        .iter()
        .map(|a| a.text.as_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    let sub = sub.text.as_str();
    let read = |what: &str| {
        f(
            Domain::GitRead,
            Risk::Low,
            "git-read",
            format!("git {what} only reads the repository"),
        )
    };
    let local = |what: &str| {
        f(
            Domain::GitLocal,
            Risk::Medium,
            "git-local",
            format!("git {what} changes the local repository"),
        )
    };
    match sub {
        "status" | "log" | "diff" | "show" | "blame" | "annotate" | "shortlog" | "describe"
        | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file" | "grep" | "show-ref"
        | "for-each-ref" | "name-rev" | "merge-base" | "count-objects" | "fsck" | "whatchanged"
        | "cherry" | "range-diff" | "check-ignore" | "check-attr" | "check-ref-format" | "var"
        | "verify-commit" | "verify-tag" | "diff-tree" | "diff-files" | "diff-index"
        | "show-branch" | "help" | "version" | "instaweb" | "difftool" | "citool" | "gitk"
        | "request-pull" | "format-patch" | "hash-object" | "get-tar-commit-id" | "verify-pack"
        | "show-index" | "unpack-file" | "patch-id" | "stripspace" | "column" | "bugreport"
        | "maintenance"
            if !(sub == "maintenance" && has(&["start", "register"])) =>
        {
            if sub == "diff" && rest.iter().any(|a| a.text.starts_with("--output")) {
                return local("diff --output");
            }
            if sub == "format-patch" {
                return local("format-patch");
            }
            read(sub)
        }
        "fetch" | "ls-remote" => f(
            Domain::GitRemote,
            Risk::Low,
            "git-fetch",
            format!("git {sub} reads from a remote without changing the working tree"),
        ),
        "pull" | "clone" => f(
            Domain::GitRemote,
            Risk::Medium,
            "git-remote",
            format!("git {sub} downloads from a remote"),
        ),
        "push" => {
            let force = has(&["-f", "--force", "--mirror", "--prune"])
                || short('f')
                || positional.iter().skip(1).any(|p| p.starts_with('+'));
            let delete =
                has(&["-d", "--delete"]) || positional.iter().skip(1).any(|p| p.starts_with(':'));
            if force {
                f(Domain::GitRemote, Risk::High, "git-push-force", "git push --force rewrites the remote's history and can drop other people's commits")
                    .alt("git push --force-with-lease")
            } else if delete {
                f(
                    Domain::GitRemote,
                    Risk::High,
                    "git-push-delete",
                    "git push deletes a remote branch or tag",
                )
            } else {
                f(
                    Domain::GitRemote,
                    Risk::Medium,
                    "git-push",
                    "git push publishes commits to a remote",
                )
            }
        }
        "send-email" | "svn" | "p4" | "archive" if sub != "archive" => f(
            Domain::GitRemote,
            Risk::High,
            "git-remote",
            format!("git {sub} talks to another system"),
        ),
        "reset" => {
            if has(&["--hard"]) {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-reset-hard",
                    "git reset --hard throws away uncommitted changes",
                )
                .alt("git stash (keeps the changes recoverable), or git reset --keep")
            } else {
                local("reset")
            }
        }
        "clean" => {
            if has(&["-n", "--dry-run"]) || short('n') {
                read("clean --dry-run")
            } else if has(&["--force"]) || short('f') {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-clean-force",
                    "git clean -f deletes untracked files for good",
                )
                .alt("git clean -n to see what would go first")
            } else {
                local("clean")
            }
        }
        "branch" => {
            if has(&["-D"])
                || (has(&["-d", "--delete"]) && (has(&["-f", "--force"]) || short('f')))
                || has(&["-M", "-C"])
            {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-branch-force-delete",
                    "git branch -D deletes a branch even if its work is not merged",
                )
                .alt("git branch -d (refuses to drop unmerged work)")
            } else if has(&[
                "-d",
                "--delete",
                "-m",
                "--move",
                "-c",
                "--copy",
                "-u",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
            ]) || !positional.is_empty()
                && !has(&[
                    "--list",
                    "-l",
                    "--contains",
                    "--merged",
                    "--no-merged",
                    "--points-at",
                ])
            {
                local("branch")
            } else {
                read("branch")
            }
        }
        "checkout" => {
            let discard = has(&[
                "--", ".", "-f", "--force", "-p", "--patch", "--ours", "--theirs",
            ]) || positional.contains(&".")
                || has(&["-B"]);
            if discard {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-discard-changes",
                    "git checkout over paths (or --force) throws away uncommitted changes",
                )
                .alt("git stash to keep the changes recoverable")
            } else {
                local("checkout")
            }
        }
        "restore" => {
            let staged_only = has(&["--staged", "-S"]) && !has(&["--worktree", "-W"]);
            if staged_only {
                local("restore --staged")
            } else {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-discard-changes",
                    "git restore throws away uncommitted changes in the working tree",
                )
                .alt("git stash to keep the changes recoverable")
            }
        }
        "switch" => {
            if has(&["--discard-changes", "-f", "--force", "-C", "--force-create"]) {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-discard-changes",
                    "git switch --discard-changes/-C throws away work",
                )
                .alt("git stash first")
            } else {
                local("switch")
            }
        }
        "stash" => match positional.first().copied() {
            Some("drop") | Some("clear") => f(
                Domain::GitLocal,
                Risk::High,
                "git-stash-drop",
                "git stash drop/clear deletes stashed work",
            ),
            Some("list") | Some("show") => read("stash list"),
            _ => local("stash"),
        },
        "reflog" => match positional.first().copied() {
            Some("expire") | Some("delete") => f(
                Domain::GitLocal,
                Risk::High,
                "git-history-destroy",
                "git reflog expire/delete removes the safety net for lost commits",
            ),
            _ => read("reflog"),
        },
        "gc" | "prune" | "repack" => {
            if rest.iter().any(|a| a.text.starts_with("--prune=now"))
                || sub == "prune" && !has(&["-n", "--dry-run"])
            {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-history-destroy",
                    format!("git {sub} deletes unreachable objects for good"),
                )
            } else {
                local(sub)
            }
        }
        "filter-branch" | "filter-repo" | "replace" => f(
            Domain::GitLocal,
            Risk::High,
            "git-history-rewrite",
            format!("git {sub} rewrites the whole history"),
        ),
        "update-ref" => {
            if has(&["-d", "--stdin"]) {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-history-destroy",
                    "git update-ref -d deletes a ref directly",
                )
            } else {
                local("update-ref")
            }
        }
        "worktree" => match positional.first().copied() {
            Some("list") | None => read("worktree list"),
            Some("remove") if has(&["-f", "--force"]) => f(
                Domain::GitLocal,
                Risk::High,
                "git-discard-changes",
                "git worktree remove --force deletes a worktree with changes",
            ),
            _ => local("worktree"),
        },
        "submodule" => match positional.first().copied() {
            Some("status") | Some("summary") | None => read("submodule status"),
            Some("deinit") if has(&["-f", "--force"]) => f(
                Domain::GitLocal,
                Risk::High,
                "git-discard-changes",
                "git submodule deinit --force drops local changes",
            ),
            Some("update") | Some("add") | Some("sync") => f(
                Domain::GitRemote,
                Risk::Medium,
                "git-remote",
                "git submodule fetches from remotes",
            ),
            _ => local("submodule"),
        },
        "remote" => match positional.first().copied() {
            None | Some("show") | Some("get-url") => read("remote"),
            _ => local("remote"),
        },
        "tag" => {
            if positional.is_empty()
                || has(&[
                    "-l",
                    "--list",
                    "-v",
                    "--verify",
                    "--contains",
                    "--points-at",
                ])
            {
                read("tag")
            } else {
                local("tag")
            }
        }
        "config" => {
            let reading = has(&[
                "--get",
                "--get-all",
                "--get-regexp",
                "--list",
                "-l",
                "--show-origin",
                "--show-scope",
            ]) || matches!(positional.first().copied(), Some("get") | Some("list"))
                || positional.len() == 1
                    && !positional[0].contains('=')
                    && !matches!(positional[0], "set" | "unset");
            if reading {
                read("config")
            } else if positional
                .iter()
                .any(|p| dangerous_config(&format!("{p}=")))
            {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-config-exec",
                    "git config sets an alias, hook path, pager, editor, credential helper or ssh command that runs code",
                )
            } else if has(&["--global", "--system"]) {
                f(
                    Domain::GitLocal,
                    Risk::High,
                    "git-config-global",
                    "git config changes settings outside the project",
                )
            } else {
                local("config")
            }
        }
        "rm" | "mv" => {
            let _ = paths::credential_name;
            local(sub)
        }
        "add" | "commit" | "merge" | "rebase" | "cherry-pick" | "revert" | "init" | "am"
        | "apply" | "notes" | "bisect" | "bundle" | "mergetool" | "rerere" | "sparse-checkout"
        | "lfs" | "restore-mtime" | "absorb" | "town" | "annex" | "maintenance" | "archive"
        | "commit-tree" | "read-tree" | "write-tree" | "update-index" | "mktag" | "mktree"
        | "symbolic-ref" | "pack-refs" | "fast-import" | "merge-file" | "checkout-index" => {
            if sub == "commit" && has(&["--no-verify", "-n"]) {
                return f(
                    Domain::GitLocal,
                    Risk::Medium,
                    "git-commit-no-verify",
                    "git commit --no-verify skips the project's commit hooks",
                );
            }
            if sub == "lfs"
                && matches!(
                    positional.first().copied(),
                    Some("push") | Some("pull") | Some("fetch")
                )
            {
                return f(
                    Domain::GitRemote,
                    Risk::Medium,
                    "git-remote",
                    "git lfs talks to a remote",
                );
            }
            let _ = w;
            local(sub)
        }
        _ => f(
            Domain::GitLocal,
            Risk::Medium,
            "git-other",
            format!("git {sub}: an alias or extension oath has no rule for"),
        ),
    }
}

fn dangerous_config(kv: &str) -> bool {
    let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
    key.starts_with("alias.")
        || matches!(
            key.as_str(),
            "core.sshcommand"
                | "core.pager"
                | "core.editor"
                | "core.hookspath"
                | "core.fsmonitor"
                | "core.gitproxy"
                | "credential.helper"
                | "sequence.editor"
                | "diff.external"
                | "gpg.program"
                | "core.askpass"
                | "uploadpack.packobjectshook"
                | "protocol.ext.allow"
        )
        || key.starts_with("filter.")
        || key.ends_with(".textconv")
        || key.ends_with(".command")
}

/// Classifies `gh`/`glab`/`hub` ARGS.
pub(crate) fn gh_finding(name: &str, args: &[Word]) -> Finding {
    let words: Vec<&str> = args
        .iter()
        .map(|a| a.text.as_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    let group = words.first().copied().unwrap_or("");
    let verb = words.get(1).copied().unwrap_or("");
    if group == "auth"
        && (verb == "token"
            || args
                .iter()
                .any(|a| a.text == "--show-token" || a.text == "-t"))
    {
        return f(
            Domain::FileRead,
            Risk::High,
            "read-credentials",
            format!("{name} auth prints an access token"),
        );
    }
    if group == "api" {
        let method = args
            .iter()
            .position(|a| a.text == "-X" || a.text == "--method")
            .and_then(|i| args.get(i + 1))
            .map(|w| w.text.to_ascii_uppercase())
            .or_else(|| {
                args.iter().find_map(|a| {
                    a.text
                        .strip_prefix("--method=")
                        .map(str::to_ascii_uppercase)
                })
            });
        let fields = args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-f" | "-F" | "--field" | "--raw-field" | "--input"
            )
        });
        return match method.as_deref() {
            Some("DELETE") => f(
                Domain::GitRemote,
                Risk::High,
                "hosting-delete",
                format!("{name} api sends a DELETE"),
            ),
            Some("GET") | None if !fields => f(
                Domain::GitRemote,
                Risk::Low,
                "hosting-read",
                format!("{name} api reads"),
            ),
            _ => f(
                Domain::GitRemote,
                Risk::Medium,
                "hosting-write",
                format!("{name} api changes data on the host"),
            ),
        };
    }
    if matches!(verb, "delete" | "archive" | "delete-asset" | "remove")
        || group == "repo" && verb == "rename"
    {
        return f(
            Domain::GitRemote,
            Risk::High,
            "hosting-delete",
            format!("{name} {group} {verb} deletes or archives on the host"),
        );
    }
    if group == "secret"
        || group == "variable"
        || group == "ssh-key"
        || group == "gpg-key"
        || group == "auth" && verb != "status"
    {
        return f(
            Domain::GitRemote,
            Risk::High,
            "hosting-credentials",
            format!("{name} {group} {verb} changes credentials or secrets"),
        );
    }
    if matches!(
        verb,
        "list"
            | "view"
            | "status"
            | "diff"
            | "checks"
            | "show"
            | "watch"
            | "browse"
            | "download"
            | ""
    ) || matches!(
        group,
        "status" | "search" | "browse" | "help" | "version" | "--version"
    ) || group == "auth" && verb == "status"
    {
        return f(
            Domain::GitRemote,
            Risk::Low,
            "hosting-read",
            format!("{name} {group} {verb} reads from the host"),
        );
    }
    if matches!(verb, "merge")
        || group == "release" && verb == "create"
        || group == "workflow" && verb == "run"
        || group == "run" && verb == "rerun"
    {
        return f(
            Domain::GitRemote,
            Risk::Medium,
            "hosting-write",
            format!("{name} {group} {verb} changes the project on the host"),
        );
    }
    f(
        Domain::GitRemote,
        Risk::Medium,
        "hosting-write",
        format!("{name} {group} {verb} changes data on the host"),
    )
}
