//! Issue 26: earned trust never unlocks destruction. After 25 `git add -A` successes in the
//! git domain, `git reset --hard` over an uncommitted change is asked (refused in `-p` mode,
//! even with Bash allowed by Claude Code's own rules), and the change survives; so it is after
//! 20 successes of `git reset --hard` on a clean tree (high-risk but reversible work that
//! earns the git domain's high level, which decides the reset: issue 41, trust per risk
//! level).

use crate::engine::Engine;
use crate::harness::{Opts, Project, Run};
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

/// Checks that the last call of a run, `git reset --hard` over an uncommitted change, was
/// asked for its kind, refused by the client and never ran; returns the trust it was decided
/// at.
fn reset_was_asked_and_refused(p: &Project, run: &Run) -> f64 {
    let id = run.id(run.sent.len() - 1);
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
    pre["trust_score_before"].as_f64().unwrap_or_default()
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
    let trust = reset_was_asked_and_refused(&p, &run);
    // Recording in git is low-risk work: it raised the git domain's low level past what the
    // seed's formula alone would allow a high-risk call at (0.726), and left the high level
    // that decides the reset at the initial trust.
    let low = run.records_for("outcome", run.id(24))[0].clone();
    assert_eq!(low["trust_level"], "low", "{low}");
    let low = low["trust_score_after"].as_f64().unwrap_or_default();
    assert!(low > 0.726, "low trust after 25 successes: {low}");
    let initial = Engine::new(&p).config.trust.initial_score;
    assert_eq!(trust, initial, "git add raised the high level");
}

#[test]
fn trust_earned_at_the_high_level_never_unlocks_reset_hard_over_uncommitted_work() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "committed\n");
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "start"]);
    // On a clean tree a reset loses nothing: high-risk reversible work, run through Claude
    // Code's rule while oath has no opinion, each success earning the high level.
    let mut script = Script::new().calls(vec![bash("git reset --hard"); 20]);
    script = script
        .call(bash("printf 'uncommitted work\\n' >> notes.txt"))
        .call(bash("git reset --hard"))
        .say("Done.");
    let run = p.run("Tidy the repository", script, &Opts::allow("Bash"));
    assert_eq!(run.sent.len(), 22, "{}", run.result);
    for n in 0..20 {
        let id = run.id(n);
        assert_eq!(
            run.pre(id)["risk_kind"],
            "reversible",
            "{}",
            run.audit_text()
        );
        let o = run.records_for("outcome", id);
        assert_eq!(o.len(), 1, "{}", run.audit_text());
        assert_eq!(o[0]["outcome"], "success", "{}", o[0]);
        assert_eq!(o[0]["trust_level"], "high", "{}", o[0]);
    }
    let trust = reset_was_asked_and_refused(&p, &run);
    // The high level's trust is where the seed's formula alone would allow a high-risk call
    // (autonomy above 0.8 once trust passes 0.726), and the reset was asked all the same.
    assert!(trust > 0.726, "high trust after 20 successes: {trust}");
}
