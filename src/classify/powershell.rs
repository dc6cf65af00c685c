//! PowerShell command text: downloads, code execution and deletions found by keyword (no
//! parser: the text is judged as a whole).

use super::rule::Finding;
use super::{Domain, Risk};

/// Classifies a PowerShell command: it cannot be parsed as bash, so it is never low.
pub(crate) fn powershell_finding(cmd: &str) -> Finding {
    let l = cmd.to_ascii_lowercase();
    let has = |list: &[&str]| list.iter().any(|k| l.contains(k));
    let download = has(&[
        "invoke-webrequest",
        "iwr ",
        "invoke-restmethod",
        "irm ",
        "downloadstring",
        "downloadfile",
        "net.webclient",
        "start-bitstransfer",
        "curl ",
        "wget ",
    ]);
    let exec = has(&[
        "invoke-expression",
        "iex ",
        "iex(",
        "| iex",
        "|iex",
        "-encodedcommand",
        "-enc ",
        "frombase64string",
    ]);
    if download && exec || has(&["-encodedcommand", "-enc "]) {
        return Finding::new(
            Domain::Network,
            Risk::Critical,
            "run-downloaded-code",
            "PowerShell runs downloaded or encoded code",
        )
        .alt("download to a file and read it before running it");
    }
    if has(&[
        "format-volume",
        "clear-disk",
        "initialize-disk",
        "remove-partition",
        "diskpart",
    ]) {
        return Finding::new(
            Domain::ShellExec,
            Risk::Critical,
            "disk-tool",
            "PowerShell formats or wipes a disk",
        );
    }
    if has(&["remove-item", "rm ", "del ", "rmdir ", "rd "]) && has(&["-recurse", "-r ", "/s"]) {
        return Finding::new(
            Domain::FileWrite,
            Risk::High,
            "powershell-delete",
            "PowerShell deletes recursively",
        );
    }
    if exec
        || has(&[
            "set-executionpolicy",
            "start-process",
            "new-service",
            "set-itemproperty",
            "reg add",
            "reg delete",
            "schtasks",
            "register-scheduledtask",
        ])
    {
        return Finding::new(
            Domain::ShellExec,
            Risk::High,
            "powershell-admin",
            "PowerShell evaluates code or changes system settings",
        );
    }
    Finding::new(
        Domain::ShellExec,
        Risk::Medium,
        "powershell",
        "PowerShell cannot be parsed like bash, so it is never auto-approved as low risk",
    )
}
