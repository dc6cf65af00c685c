//! Issue 26: earned trust never unlocks destruction. After 25 `git add -A` successes in the
//! git domain, `git reset --hard` over an uncommitted change is asked (refused in `-p` mode,
//! even with Bash allowed by Claude Code's own rules), and the change survives.

use crate::harness::{Opts, Project};
use crate::server::{Script, bash};

fn git(p: &Project, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(p.root())
        .env("HOME", p.home())
        .env("GIT_AUTHOR_NAME", "e2e")
        .env("GIT_AUTHOR_EMAIL", "e2e@example.com")
        .env("GIT_COMMITTER_NAME", "e2e")
        .env("GIT_COMMITTER_EMAIL", "e2e@example.com")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?}");
}

#[test]
fn trust_from_git_add_never_unlocks_reset_hard() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "committed\n");
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "start"]);
    p.write("notes.txt", "committed\nuncommitted work\n");

    let mut script = Script::new().calls(vec![bash("git add -A"); 25]);
    script = script.call(bash("git reset --hard")).say("Done.");
    let run = p.run("Tidy the repository", script, &Opts::allow("Bash"));

    assert_eq!(run.sent.len(), 26, "{}", run.result);
    for n in 0..25 {
        let id = run.id(n);
        let o = run.records_for("outcome", id);
        assert_eq!(o.len(), 1, "{}", run.audit_text());
        assert_eq!(o[0]["outcome"], "success", "{}", o[0]);
    }
    let id = run.id(25);
    let pre = run.pre(id);
    assert_eq!(pre["decision"], "ask", "{pre}");
    let reason = pre["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("irreversible") && reason.contains("git-reset-hard"),
        "{reason}"
    );
    assert!(
        reason.contains("git stash"),
        "the safer way is named: {reason}"
    );
    // The trust the git domain earned is high enough that the seed's formula alone would
    // allow a high-risk call (autonomy above 0.8 once trust passes 0.726), and it did not.
    let trust = pre["trust_score_before"].as_f64().unwrap_or_default();
    assert!(trust > 0.726, "trust after 25 successes: {trust}");
    assert!(run.denied(id), "not refused: {}", run.result);
    assert!(
        run.tool_outcomes(id).is_empty(),
        "the reset ran: {}",
        run.audit_text()
    );
    // Asked, and refused by the client: nobody approves in -p mode.
    assert_eq!(
        run.refusal(id)["refused_by"],
        "client",
        "{}",
        run.audit_text()
    );
    assert_eq!(
        p.read("notes.txt").as_deref(),
        Some("committed\nuncommitted work\n"),
        "the uncommitted change was lost"
    );
}
