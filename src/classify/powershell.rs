//! PowerShell command text: downloads, code execution and deletions found by keyword (no
//! parser: the text is judged as a whole).

use super::effect::{CodeDoes, Effect};
use super::policy::{self, Said};
use super::rule::Finding;

/// Classifies a PowerShell command: it cannot be parsed as bash, so it is never low.
pub(crate) fn powershell_finding(cmd: &str) -> Finding {
    // PowerShell's effects need nothing of the surroundings.
    let ctx = super::Context::default();
    policy::finding(&Effect::PowerShell(does(cmd)), Said::by("PowerShell"), &ctx)
}

/// Returns what a PowerShell command does, by its words.
fn does(cmd: &str) -> CodeDoes {
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
        return CodeDoes::RunsDownloaded;
    }
    if has(&[
        "format-volume",
        "clear-disk",
        "initialize-disk",
        "remove-partition",
        "diskpart",
    ]) {
        return CodeDoes::WipesDisk;
    }
    if has(&["remove-item", "rm ", "del ", "rmdir ", "rd "]) && has(&["-recurse", "-r ", "/s"]) {
        return CodeDoes::Deletes;
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
        return CodeDoes::Evaluates;
    }
    CodeDoes::Other
}
