//! Inline interpreter code (`python -c`, `node -e`, `perl -e`, `ruby -e`): not shell, so it
//! is scanned for what it does — delete, download, spawn, open sockets — and the string
//! literals it hands to a shell are classified as shell. What it does is an effect the
//! policy judges.

use std::path::Path;

use super::Context;
use super::effect::{CodeDoes, Effect};
use super::paths::Target;
use super::paths::{self, Zone};
use super::policy::{self, Said};
use super::rule::Finding;

/// What inline code was found to do.
pub(crate) struct CodeFindings {
    /// The worst finding about the code itself.
    pub finding: Finding,
    /// String literals handed to a shell (classified by the caller).
    pub shell_strings: Vec<String>,
}

fn spawn_words(lang: &str) -> &'static [&'static str] {
    match lang {
        "python" => &[
            "os.system",
            "subprocess",
            "popen",
            "os.exec",
            "os.spawn",
            "pty.spawn",
            "posix_spawn",
            "commands.getoutput",
        ],
        "js" => &[
            "child_process",
            "execSync",
            "spawnSync",
            "execFile",
            "spawn(",
            "Deno.run",
            "Deno.Command",
            "Bun.spawn",
            "Bun.$",
            "shelljs",
        ],
        "perl" => &["system", "exec", "`", "qx", "|-", "-|"],
        "ruby" => &[
            "system(",
            "system ",
            "exec(",
            "exec ",
            "`",
            "%x",
            "IO.popen",
            "Open3",
            "spawn(",
            "Process.spawn",
        ],
        "php" => &[
            "shell_exec",
            "system(",
            "exec(",
            "passthru",
            "proc_open",
            "popen",
            "`",
        ],
        _ => &["system", "exec", "spawn", "popen", "`"],
    }
}
const DELETE: &[&str] = &[
    "rmtree",
    "os.remove",
    "os.unlink",
    "unlink(",
    "unlink ",
    "os.rmdir",
    "rmdir(",
    "removedirs",
    "fs.rm",
    "rmSync",
    "unlinkSync",
    "rmdirSync",
    "rimraf",
    "FileUtils.rm",
    "File.delete",
    "Dir.delete",
    "remove_tree",
    "rm_rf",
    "Path.unlink",
    ".unlink()",
    "send2trash",
    "truncate(",
    "Deno.remove",
    "fs.promises.rm",
];
const NETWORK: &[&str] = &[
    "urlopen",
    "urllib",
    "requests.",
    "http.client",
    "httpx",
    "fetch(",
    "http.get",
    "https.get",
    "http.request",
    "https.request",
    "Net::HTTP",
    "open-uri",
    "LWP::",
    "HTTP::Tiny",
    "socket",
    "WebSocket",
    "axios",
    "aiohttp",
    "curl",
    "wget",
    "ftplib",
    "smtplib",
    "paramiko",
    "IO::Socket",
    "TCPSocket",
    "net.connect",
    "net.createConnection",
    "dgram",
];
const EXEC_CODE: &[&str] = &[
    "exec(",
    "eval(",
    "new Function(",
    "instance_eval",
    "require('vm')",
    "runInThisContext",
    "__import__(",
];
const WRITE: &[&str] = &[
    "open(",
    "write(",
    "writeFile",
    "write_text",
    "write_bytes",
    "File.write",
    "File.open",
    "fs.write",
    "appendFile",
    "shutil.copy",
    "shutil.move",
    "os.rename",
    "rename(",
    "chmod",
    "chown",
    "print >",
    "Deno.write",
    "mkdir",
];

/// Returns the string literals of some code (single, double and back quotes).
pub(crate) fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' || c == '"' || c == '`' {
            let mut s = String::new();
            let mut closed = false;
            while let Some(d) = chars.next() {
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        match e {
                            'n' => s.push('\n'),
                            't' => s.push('\t'),
                            other => s.push(other),
                        }
                    }
                    continue;
                }
                if d == c {
                    closed = true;
                    break;
                }
                s.push(d);
            }
            if closed && !s.is_empty() {
                out.push(s);
            }
        }
    }
    out
}

/// Returns whether a string looks like a shell command worth classifying.
pub(crate) fn looks_like_shell(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or("");
    s.contains(' ')
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        || s.contains('|')
        || s.contains("&&")
        || s.contains(';')
}

/// Returns the first string literal of some code that names a file or folder of credentials
/// by its path (`'/home/dev/.ssh/id_rsa'`, `'~/.aws/credentials'`, `'.env'`, `'.ssh'` of
/// `Path.home() / '.ssh'`). Only path-shaped literals count: a dictionary key `'token'` is
/// not a file.
fn credential_literal(literals: &[String], cwd: Option<&Path>, ctx: &Context) -> Option<Target> {
    literals
        .iter()
        .filter(|l| {
            l.len() < 4096
                && !l.contains(char::is_whitespace)
                && (l.starts_with(['/', '~', '.']) || l.contains('/'))
        })
        .map(|l| {
            let t = paths::target(paths::resolve(l, false, cwd, ctx), ctx);
            paths::through_read_links(t, ctx)
        })
        .find(|t| t.credential)
}

/// Analyzes inline code.
pub(crate) fn analyze(code: &str, lang: &str, ctx: &Context, cwd: Option<&Path>) -> CodeFindings {
    let has = |list: &[&str]| list.iter().any(|k| code.contains(k));
    let spawn = has(spawn_words(lang));
    let delete = has(DELETE);
    let network = has(NETWORK);
    let socket = code.contains("socket")
        || code.contains("Socket")
        || code.contains("net.connect")
        || code.contains("net.createConnection");
    let shell_bin = code.contains("/bin/sh")
        || code.contains("/bin/bash")
        || code.contains("pty.spawn")
        || code.contains("dup2")
        || code.contains("cmd.exe");
    let exec_code = has(EXEC_CODE);
    let literals = string_literals(code);
    let mut shell_strings = Vec::new();
    if spawn {
        for l in &literals {
            if looks_like_shell(l) {
                shell_strings.push(l.clone());
            }
        }
    }
    let outside_path = literals.iter().any(|l| {
        (l.starts_with('/') || l.starts_with('~'))
            && !l.contains(' ')
            && matches!(
                paths::target(paths::resolve(l, false, cwd, ctx), ctx).zone,
                Zone::Root | Zone::HomeTop | Zone::System | Zone::OtherHome | Zone::Device
            )
    }) || code.contains("expanduser(\"~\")")
        || code.contains("expanduser('~')")
        || code.contains("Path.home()")
        || code.contains("os.homedir()");
    let protected = literals.iter().any(|l| {
        let t = paths::target(paths::resolve(l, false, cwd, ctx), ctx);
        t.protected
            || t.holds_protected
                && delete
                && !matches!(
                    t.zone,
                    Zone::Root | Zone::HomeTop | Zone::System | Zone::OtherHome
                )
    }) && (delete || has(WRITE));
    let does = if socket && (shell_bin || spawn) {
        CodeDoes::ReverseShell
    } else if network
        && (exec_code
            || spawn
                && (code.contains("| sh")
                    || code.contains("|sh")
                    || code.contains("| bash")
                    || code.contains("bash -c")
                    || code.contains("sh -c")))
    {
        CodeDoes::RunsDownloaded
    } else if protected {
        CodeDoes::ChangesOath
    } else if delete && outside_path {
        CodeDoes::DeletesOutside
    } else if delete {
        CodeDoes::Deletes
    } else if spawn {
        CodeDoes::Spawns
    } else if network {
        CodeDoes::Network
    } else if exec_code {
        CodeDoes::Evaluates
    } else if has(WRITE)
        && (code.contains("'w")
            || code.contains("\"w")
            || code.contains("'a")
            || code.contains("\"a")
            || !code.contains("open("))
    {
        CodeDoes::Writes
    } else {
        CodeDoes::Other
    };
    let effect = Effect::Interpreted {
        lang: lang.to_owned(),
        does,
    };
    let mut finding = policy::finding(&effect, Said::by(lang), ctx);
    // A credential file the code names is read as `cat` would read it (and sent away when
    // the code also talks to the network): the worse of that and what its words say stands.
    if let Some(t) = credential_literal(&literals, cwd, ctx) {
        let verb = format!("the {lang} code reads");
        let said = Said {
            verb: &verb,
            ..Said::by(lang)
        };
        let read = if network {
            let why = format!(
                "the {lang} code reads {} and talks to the network: it sends credentials off the machine",
                t.shown()
            );
            policy::finding(&Effect::Exfiltrate, Said::by(&why), ctx)
        } else {
            policy::finding(&Effect::Read(t), said, ctx)
        };
        if (read.kind, read.risk) > (finding.kind, finding.risk) {
            finding = read;
        }
    }
    CodeFindings {
        finding,
        shell_strings,
    }
}
