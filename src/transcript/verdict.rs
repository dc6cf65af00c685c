//! What a tool result says happened: success, a real error, a cascade from a sibling call, a
//! user rejection, a permission or hook denial, or an interrupt.
//!
//! Structure first, where the line has it: `toolDenialKind` (written by newer clients:
//! `user-rejected`, `permission-rule`, `automode-*`, `interrupted`, `cancelled`),
//! `permissionDecision` `{source: "hook", decision: "reject"}` (2.1.332 writes `"accept"` for
//! the calls a hook allowed), a `hook_blocking_error` attachment for the call, or
//! `interrupted: true`. Then each client version's wording, taken from the real transcripts
//! and from the strings of the 2.1.197 and 2.1.332 client binaries:
//!
//! | kind | wording |
//! |---|---|
//! | cascade | `Sibling tool call errored` (2.1.39), `Cancelled: parallel tool call …`, `[Tool call skipped: …` (2.1.332, `toolDenialKind: cancelled`) |
//! | ask with no one to answer (`-p`) | `Claude requested permissions to … but you haven't granted it yet.`, `… requires approval, and this session has no approval surface`, `auto-denied`: a denial, even where 2.1.332 writes `toolDenialKind: user-rejected` |
//! | rejection | `The user doesn't want to proceed with this tool use…`, `toolUseResult: "User rejected tool use"` |
//! | denial | `Permission to use X has been denied…`, `Permission for this tool use was denied…`, `Hook PreToolUse:X denied this tool` (a JSON deny without reason), `PreToolUse:X hook error: …` (a hook's exit 2) |
//! | interrupt | `The user doesn't want to take this action right now…` (2.1.332, `cancelled` by the user's interrupt) |
//!
//! A PreToolUse hook's deny *with* a reason is only that reason on 2.1.39 (spotter's
//! "Pre-commit validation failed: …"): a failed shell call whose text is not a command's
//! `Exit code N` (nor a `<tool_use_error>`), after a PreToolUse hook ran for that very call
//! (its `hook_progress` line), on a 2.x client (1.0.x wrote shell errors without `Exit code`),
//! is a hook's deny.

use serde_json::Value;

/// What one tool result was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The call worked.
    Success,
    /// The call failed.
    Error,
    /// The call was cancelled because another call of its batch failed or stopped the turn.
    Cascade,
    /// The user refused the call.
    Rejection,
    /// A permission rule, mode, hook, or an ask nobody could answer refused the call.
    Denial,
    /// The user interrupted the call.
    Interrupt,
}

/// What oath knows of the call a result answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallFacts<'a> {
    /// The tool's name.
    pub tool: Option<&'a str>,
    /// A PreToolUse hook ran for this call (`hook_progress`).
    pub pre_hook_ran: bool,
    /// A PreToolUse hook blocked this call (`hook_blocking_error` attachment).
    pub hook_blocked: bool,
}

/// Returns the text of a tool result without a `<tool_use_error>` wrapper.
fn unwrapped(text: &str) -> &str {
    let t = text.trim_start();
    t.strip_prefix("<tool_use_error>").unwrap_or(t).trim_start()
}

/// Returns whether the line's client is 2.x or later (`version` `2.1.39`).
fn client_2_or_later(line: &serde_json::Map<String, Value>) -> bool {
    line.get("version")
        .and_then(Value::as_str)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m >= 2)
}

/// Classifies one `tool_result` block of a user line.
pub fn classify(
    line: &serde_json::Map<String, Value>,
    block: &Value,
    text: &str,
    call: CallFacts,
) -> Verdict {
    let tur = line.get("toolUseResult");
    let tur_str = tur.and_then(Value::as_str).unwrap_or("");
    let kind = line.get("toolDenialKind").and_then(Value::as_str);
    let body = unwrapped(text);
    let flagged = block.get("is_error").and_then(Value::as_bool) == Some(true)
        || tur_str.starts_with("Error:")
        || body.starts_with("Exit code ")
        || text.trim_start().starts_with("<tool_use_error>");
    let interrupted = kind == Some("interrupted")
        || tur
            .and_then(|t| t.get("interrupted"))
            .and_then(Value::as_bool)
            == Some(true)
        || block.get("interrupted").and_then(Value::as_bool) == Some(true)
        || body.starts_with("The user doesn't want to take this action right now");
    if interrupted {
        return Verdict::Interrupt;
    }
    let cascade = kind == Some("cancelled")
        || body.starts_with("Sibling tool call errored")
        || tur_str.starts_with("Sibling tool call errored")
        || body.starts_with("Cancelled: parallel tool call")
        || body.starts_with("[Tool call skipped:");
    if cascade {
        return Verdict::Cascade;
    }
    // An ask nobody could answer (`claude -p`): not the user's refusal.
    let unanswered_ask = (body.contains("requested permissions to")
        && body.contains("haven't granted it"))
        || body.contains("this session has no approval surface")
        || body.contains("auto-denied");
    if unanswered_ask {
        return Verdict::Denial;
    }
    let rejected = kind == Some("user-rejected")
        || tur_str == "User rejected tool use"
        || body.starts_with("The user doesn't want to proceed with this tool use");
    if rejected {
        return Verdict::Rejection;
    }
    // 2.1.332 writes the hook's verdict on every call a hook answered, allowed ones too
    // (`{"decision": "accept", "source": "hook"}`): only a refusal is a denial.
    let decision = line.get("permissionDecision");
    let hook_refused = decision
        .and_then(|d| d.get("source"))
        .and_then(Value::as_str)
        == Some("hook")
        && !matches!(
            decision
                .and_then(|d| d.get("decision"))
                .and_then(Value::as_str),
            Some("accept" | "allow")
        );
    let by_hook = call.hook_blocked
        || hook_refused
        || (body.starts_with("PreToolUse:") && body.contains(" hook error: "))
        || body.contains("denied this tool");
    let shell = matches!(call.tool, Some("Bash" | "PowerShell"));
    let hook_reason = flagged
        && shell
        && call.pre_hook_ran
        && client_2_or_later(line)
        && !body.starts_with("Exit code ")
        && !text.trim_start().starts_with("<tool_use_error>")
        && !body.starts_with("Command timed out");
    let denied = kind.is_some()
        || by_hook
        || hook_reason
        || (body.contains("Permission to use") && body.contains("denied"))
        || body.starts_with("Permission for this tool use was denied");
    if denied {
        return Verdict::Denial;
    }
    if flagged {
        Verdict::Error
    } else {
        Verdict::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(line: Value, call: CallFacts) -> Verdict {
        let block = &line["message"]["content"][0];
        let text = block["content"].as_str().unwrap_or("").to_owned();
        classify(line.as_object().unwrap(), block, &text, call)
    }

    fn result(content: &str, is_error: bool) -> Value {
        json!({"type": "user", "version": "2.1.39", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": content, "is_error": is_error}]}})
    }

    fn bash() -> CallFacts<'static> {
        CallFacts {
            tool: Some("Bash"),
            ..CallFacts::default()
        }
    }

    #[test]
    fn wordings_of_each_kind() {
        let cases = [
            ("Exit code 1\nerror[E0425]", Verdict::Error),
            (
                "<tool_use_error>File does not exist.</tool_use_error>",
                Verdict::Error,
            ),
            (
                "<tool_use_error>Sibling tool call errored</tool_use_error>",
                Verdict::Cascade,
            ),
            (
                "<tool_use_error>Cancelled: parallel tool call Bash(cargo test) errored</tool_use_error>",
                Verdict::Cascade,
            ),
            (
                "Claude requested permissions to use Bash, but you haven't granted it yet.",
                Verdict::Denial,
            ),
            (
                "Claude requested permissions to write to /x/a.rs, but you haven't granted it yet.",
                Verdict::Denial,
            ),
            (
                "Permission for this tool use was denied. It requires approval, and this session has no approval surface",
                Verdict::Denial,
            ),
            (
                "Permission to use Bash has been denied because Claude Code is running in don't ask mode.",
                Verdict::Denial,
            ),
            ("Hook PreToolUse:Bash denied this tool", Verdict::Denial),
            (
                "PreToolUse:Bash hook error: [oath hook]: force push is destructive",
                Verdict::Denial,
            ),
            (
                "The user doesn't want to proceed with this tool use. The tool use was rejected",
                Verdict::Rejection,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(verdict(result(text, true), bash()), want, "{text}");
        }
        assert_eq!(verdict(result("ok", false), bash()), Verdict::Success);
    }

    #[test]
    fn structure_wins_over_wording() {
        // 2.1.332 writes `user-rejected` for an ask refused in -p mode: the words say who.
        let mut l = result(
            "Claude requested permissions to use Bash, but you haven't granted it yet.",
            true,
        );
        l["toolDenialKind"] = "user-rejected".into();
        assert_eq!(verdict(l, bash()), Verdict::Denial);
        let mut l = result(
            "[Tool call skipped: the turn was stopped before this call ran]",
            true,
        );
        l["toolDenialKind"] = "cancelled".into();
        assert_eq!(verdict(l, bash()), Verdict::Cascade);
        let mut l = result(
            "The user doesn't want to take this action right now. STOP",
            true,
        );
        l["toolDenialKind"] = "cancelled".into();
        assert_eq!(verdict(l, bash()), Verdict::Interrupt);
        let mut l = result("force push is destructive", true);
        l["toolDenialKind"] = "permission-rule".into();
        l["permissionDecision"] = json!({"decision": "reject", "source": "hook"});
        assert_eq!(verdict(l, bash()), Verdict::Denial);
        // A call a hook allowed: 2.1.332 notes the hook's verdict on the line all the same.
        let mut l = result("1\thello world", false);
        l["permissionDecision"] =
            json!({"decision": "accept", "source": "hook", "reasonType": "hook"});
        assert_eq!(verdict(l, bash()), Verdict::Success);
        let mut l = result("Exit code 3", true);
        l["permissionDecision"] =
            json!({"decision": "accept", "source": "hook", "reasonType": "hook"});
        assert_eq!(verdict(l, bash()), Verdict::Error);
        let blocked = CallFacts {
            hook_blocked: true,
            ..bash()
        };
        assert_eq!(
            verdict(result("force push is destructive", true), blocked),
            Verdict::Denial
        );
    }

    #[test]
    fn a_hook_reason_alone_is_a_deny_only_after_that_calls_hook_on_2x() {
        let hooked = CallFacts {
            pre_hook_ran: true,
            ..bash()
        };
        let text = "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.";
        assert_eq!(verdict(result(text, true), hooked), Verdict::Denial);
        assert_eq!(verdict(result(text, true), bash()), Verdict::Error);
        assert_eq!(
            verdict(result("Exit code 1\nboom", true), hooked),
            Verdict::Error
        );
        let mut old = result("ls: cannot access 'types/'", true);
        old["version"] = "1.0.98".into();
        assert_eq!(verdict(old, hooked), Verdict::Error);
    }
}
