//! Issue 3: the trust gate in a real client. A critical command never runs, even when
//! Claude Code's own rules allow Bash; a low-risk read runs without any permission rule; and
//! a medium action turns from "no opinion" (Claude Code's `-p` permission flow refuses it) to
//! allow at the very step the trust engine predicts, earned by medium work of its domain
//! (which Claude Code's own rule lets run meanwhile) and never by low work (issue 41: trust is
//! kept per risk level).
//!
//! Commands are picked from candidate lists by what the library classifies them as, and the
//! expected decisions come from the library too ([`crate::engine`]).

use oath::classify::Risk;
use oath::decide::Decision;

use crate::engine::Engine;
use crate::harness::{Opts, Project, Run};
use crate::server::{Script, bash};

/// Read-only commands that Claude Code (2.1.197, 2.1.332) does not run in `-p` mode without an
/// allow rule (its own read-only list leaves them out), so only oath's allow can let them run.
const READS_CLAUDE_REFUSES: [&str; 6] = [
    "printenv HOME",
    "git config --list",
    "command -v ls",
    "getconf PAGESIZE",
    "awk 1 notes.txt",
    "xxd notes.txt",
];

/// Harmless commands expected to be low risk, to earn trust with (Claude Code refuses the
/// first on its own; the scenario does not depend on that, oath allows it either way).
const LOW_CANDIDATES: [&str; 5] = ["mkdir -p build/out", "echo e2e", "date", "pwd", "ls"];

/// Claude Code's own rule that lets the earners run while oath has no opinion.
const EARNER_RULE: &str = "Bash(touch:*)";

/// The nth medium command to earn medium trust with (each creates its own file).
fn earner(n: usize) -> String {
    format!("touch earned-{n}.log")
}

/// Medium commands Claude Code's `-p` flow refuses without an allow rule, with the path each
/// creates, to see whether it ran.
const MEDIUM_CANDIDATES: [(&str, &str); 4] = [
    ("echo x > out.log", "out.log"),
    ("cp -r assets dist", "dist"),
    ("touch made-by-agent.txt", "made-by-agent.txt"),
    ("git add notes.txt", ".git/index"),
];

fn pre_decision(run: &Run, id: &str) -> String {
    run.pre(id)["decision"].as_str().unwrap_or("").to_owned()
}

#[test]
fn critical_command_is_denied_even_with_bash_allowed() {
    let Some(p) = Project::new() else { return };
    let victim = p.home().join("important");
    std::fs::create_dir_all(&victim).expect("create victim dir");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("write victim");
    let commands = [
        "rm -rf ~/important".to_owned(),
        format!("rm -rf {}", victim.display()),
    ];
    let engine = Engine::new(&p);
    for c in &commands {
        let class = engine.classify_bash(c);
        assert_eq!(
            class.risk,
            Risk::Critical,
            "{c} must be critical: {class:?}"
        );
    }
    let mut script = Script::new();
    for c in &commands {
        script = script.call(bash(c));
    }
    let run = p.run(
        "Clean up the home folder",
        script.say("Stopped."),
        &Opts::allow("Bash"),
    );

    assert!(
        victim.join("keep.txt").is_file(),
        "the file outside the project was deleted; audit:\n{}",
        run.audit_text()
    );
    for (n, c) in commands.iter().enumerate() {
        let id = run.id(n);
        let pre = run.pre(id);
        assert_eq!(pre["decision"], "deny", "{c}: {pre}");
        assert_eq!(pre["risk_category"], "critical", "{c}: {pre}");
        assert!(
            run.denied(id),
            "{c} not in permission_denials: {}",
            run.result
        );
        assert!(
            run.tool_outcomes(id).is_empty(),
            "a denied call has an outcome: {}",
            run.audit_text()
        );
        assert_eq!(run.refusal(id)["outcome"], "denied", "{}", run.audit_text());
        // The model is told why, in oath's words.
        let result = run.tool_result(id);
        assert_eq!(result["is_error"], true, "{result}");
        let reason = pre["reason"].as_str().unwrap_or("");
        let text = run.tool_result_text(id);
        assert!(
            !reason.is_empty() && text.contains(reason.trim_end_matches('.')),
            "the model did not get oath's reason {reason:?}: {text:?}"
        );
    }
}

#[test]
fn low_risk_read_runs_without_a_permission_rule() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello world\n");
    let engine = Engine::new(&p);
    let trust0 = engine.config.trust.initial_score;
    let command = READS_CLAUDE_REFUSES
        .into_iter()
        .find(|c| {
            let class = engine.classify_bash(c);
            class.risk == Risk::Low && engine.decide(&class, trust0) == Decision::Allow
        })
        .unwrap_or_else(|| {
            panic!(
                "none of {READS_CLAUDE_REFUSES:?} is a low-risk read oath allows at the \
                 initial trust: {:?}",
                READS_CLAUDE_REFUSES.map(|c| engine.classify_bash(c))
            )
        });
    eprintln!("low-risk read: {command:?}");
    let script = || Script::new().call(bash(command)).say("Read it.");

    // Control: without oath, Claude Code's own flow refuses the command in -p mode.
    let Some(control) = Project::bare() else {
        return;
    };
    control.write("notes.txt", "hello world\n");
    let refused = control.run("Look around", script(), &Opts::default());
    assert!(
        refused.denied(refused.id(0)),
        "{command:?} ran without oath, so this scenario proves nothing: {}",
        refused.result
    );

    // With oath: allowed by the gate, and it runs.
    let run = p.run("Look around", script(), &Opts::default());
    let id = run.id(0);
    assert_eq!(pre_decision(&run, id), "allow", "{}", run.audit_text());
    assert!(!run.denied(id), "{}", run.result);
    assert_ne!(
        run.tool_result(id)["is_error"],
        true,
        "{}",
        run.tool_result(id)
    );
    let outcome = run.records_for("outcome", id);
    assert_eq!(outcome.len(), 1, "{}", run.audit_text());
    assert_eq!(outcome[0]["outcome"], "success");
}

#[test]
fn medium_action_turns_to_allow_at_the_predicted_step() {
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello world\n");
    p.write("assets/logo.txt", "logo\n");
    let engine = Engine::new(&p);

    // A low command, a medium one to earn with and a medium target in one domain, as the
    // library classifies them (the target is not one Claude Code's rule for the earners
    // covers).
    let earner_class = engine.classify_bash(&earner(0));
    let pair = MEDIUM_CANDIDATES.iter().find_map(|&(medium, made)| {
        let mc = engine.classify_bash(medium);
        if mc.risk != Risk::Medium
            || mc.domain != earner_class.domain
            || medium.starts_with("touch")
        {
            return None;
        }
        LOW_CANDIDATES.iter().find_map(|&low| {
            let lc = engine.classify_bash(low);
            (lc.risk == Risk::Low && lc.domain == mc.domain)
                .then(|| (low, medium, made, mc.clone()))
        })
    });
    let Some((low, medium, made, medium_class)) = pair else {
        panic!(
            "no low, earner ({:?}) and medium candidates share a domain: low {:?}, medium {:?}",
            (earner_class.domain, earner_class.risk),
            LOW_CANDIDATES.map(|c| (
                c,
                engine.classify_bash(c).domain,
                engine.classify_bash(c).risk
            )),
            MEDIUM_CANDIDATES.map(|(c, _)| (
                c,
                engine.classify_bash(c).domain,
                engine.classify_bash(c).risk
            )),
        )
    };
    assert_eq!(earner_class.risk, Risk::Medium, "{earner_class:?}");
    let domain = medium_class.domain.as_str();
    let low_class = engine.classify_bash(low);
    assert_eq!(
        engine.decide(&low_class, engine.config.trust.initial_score),
        Decision::Allow,
        "{low} should be allowed from the start"
    );
    // Low work never vouches for medium work: no number of lows turns the medium to allow.
    let by_lows = engine.decisions_while_earning(&medium_class, &low_class, 200);
    assert!(
        by_lows.len() == 201 && by_lows.iter().all(|(d, _)| *d == Decision::NoOpinion),
        "lows unlocked the medium: {by_lows:?}"
    );
    let predicted = engine.decisions_while_earning(&medium_class, &earner_class, 200);
    let (last, trust_at_allow) = *predicted.last().expect("at least one decision");
    assert_eq!(last, Decision::Allow, "medium never allowed: {predicted:?}");
    let steps = predicted.len() - 1;
    eprintln!(
        "domain {domain}: low {low:?}, earner {:?}, medium {medium:?}, predicted allow after {steps} medium successes",
        earner(1)
    );
    assert!(steps >= 1, "{medium} is allowed before any success");
    assert!(
        predicted[..steps]
            .iter()
            .all(|(d, _)| *d == Decision::NoOpinion),
        "before the allow oath must have no opinion: {predicted:?}"
    );
    assert!(
        !p.root().join(made).exists(),
        "{made} exists before the session"
    );

    // medium (no successes yet); as many lows as medium successes it takes; medium again
    // (lows earned it nothing); earners up to one short of the step, medium, one more
    // earner, medium again: predicted to be the first allow. The earners run through
    // Claude Code's own rule while oath has no opinion.
    let mut script = Script::new()
        .call(bash(medium))
        .calls(vec![bash(low); steps])
        .call(bash(medium));
    for n in 1..steps {
        script = script.call(bash(&earner(n)));
    }
    let script = script
        .call(bash(medium))
        .call(bash(&earner(steps)))
        .call(bash(medium))
        .say("Done.");
    let run = p.run("Earn trust", script, &Opts::allow(EARNER_RULE));

    let n_sent = run.sent.len();
    assert_eq!(n_sent, 2 * steps + 4, "{}", run.result);
    let mediums: Vec<(usize, &str)> = run
        .sent
        .iter()
        .enumerate()
        .filter(|(_, u)| u.input["command"] == medium)
        .map(|(i, u)| (i, u.id.as_str()))
        .collect();
    assert_eq!(mediums.len(), 4);
    let is_earner = |c: &serde_json::Value| c.as_str().is_some_and(|c| c.starts_with("touch "));
    let successes_before = |i: usize| {
        run.sent[..i]
            .iter()
            .filter(|u| is_earner(&u.input["command"]))
            .count()
    };
    for (i, u) in run.sent.iter().enumerate() {
        let (level, want) = if u.input["command"] == low {
            ("low", Decision::Allow)
        } else if is_earner(&u.input["command"]) {
            ("medium", predicted[successes_before(i)].0)
        } else {
            continue;
        };
        assert_eq!(
            pre_decision(&run, &u.id),
            want.as_str(),
            "{}",
            run.audit_text()
        );
        let o = run.records_for("outcome", &u.id);
        assert_eq!(o.len(), 1, "{}", run.audit_text());
        assert_eq!(o[0]["outcome"], "success", "{}", o[0]);
        assert_eq!(o[0]["domain"], domain, "{}", o[0]);
        assert_eq!(o[0]["trust_level"], level, "{}", o[0]);
        assert_eq!(o[0]["trust_applied"], true, "{}", o[0]);
    }
    for (i, id) in &mediums {
        let k = successes_before(*i);
        let (want, trust) = predicted[k];
        let pre = run.pre(id);
        assert_eq!(
            pre["decision"],
            want.as_str(),
            "medium after {k} medium successes (predicted step {steps}): {pre}"
        );
        let seen = pre["trust_score_before"].as_f64().unwrap_or(f64::NAN);
        assert!(
            (seen - trust).abs() < 1e-9,
            "trust after {k} medium successes: engine {trust}, session {seen}"
        );
        let ran = !run.denied(id);
        assert_eq!(
            ran,
            want == Decision::Allow,
            "medium after {k} medium successes ran={ran}; denials {:?}",
            run.denials()
        );
        if !ran {
            // oath had no opinion; the client's own -p flow refused the call.
            assert_eq!(
                run.refusal(id)["refused_by"],
                "client",
                "{}",
                run.audit_text()
            );
        }
    }
    // The medium after the lows was decided at the initial trust: they earned it nothing.
    let (_, after_lows) = mediums[1];
    assert_eq!(
        run.pre(after_lows)["trust_score_before"].as_f64(),
        Some(engine.config.trust.initial_score),
        "{}",
        run.audit_text()
    );
    let (_, last_id) = mediums[3];
    let o = run.records_for("outcome", last_id);
    assert_eq!(o.len(), 1, "{}", run.audit_text());
    assert_eq!(o[0]["outcome"], "success");
    assert!(p.root().join(made).exists(), "{medium} did not run");
    let seen = run.pre(last_id)["trust_score_before"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!((seen - trust_at_allow).abs() < 1e-9);
}
