//! Budgets, not hangs, through the binary: the lines that once made oath give up (a
//! 300-byte line of doubling variables took 5 GB and ran past the hook's timeout; 17
//! chained `eval`s, 17 nested `$(…)`, 34 nested subshells, 50 nested blocks and a line over
//! 64 KiB turned a critical deny into no opinion or ask) and a property family of nested
//! expansions all end with the gate's own decision: within the hook's deadline and memory cap
//! (past either, the answer would be the last word, "could not check"), never approving the
//! destruction inside.

use proptest::prelude::*;
use serde_json::json;

use crate::support::{HookRun, TestEnv, assert_valid_answer, clip};

fn pre_bash(env: &TestEnv, command: &str) -> HookRun {
    env.hook(
        &json!({"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash",
                     "tool_use_id":"t1","tool_input":{"command":command}}),
    )
}

/// Checks that the gate itself decided (valid answer, not the last word) and returns the
/// decision ("none" for no opinion).
fn gate_decision(run: &HookRun, label: &str) -> String {
    assert_valid_answer(run, Some("PreToolUse"), label);
    assert!(
        !run.stdout.contains("could not check"),
        "{label}: the hook gave up: {}",
        clip(&run.stdout)
    );
    run.decision().unwrap_or_else(|| "none".to_owned())
}

/// `a=xxxxxxxxxx; v1=$a×10; …; vN=$v(N-1)×10; echo $vN`: ten times longer at each step.
fn doubling(levels: usize) -> String {
    let mut line = "a=xxxxxxxxxx".to_owned();
    let mut prev = "a".to_owned();
    for n in 1..=levels {
        let name = format!("v{n}");
        line.push_str(&format!("; {name}={}", format!("${prev}").repeat(10)));
        prev = name;
    }
    line.push_str(&format!("; echo ${prev}"));
    line
}

#[test]
fn the_lines_that_made_oath_give_up_are_decided() {
    let rm = "rm -rf ~";
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("doubling", format!("{}; {rm}", doubling(7)), &["deny"]),
        (
            "17 evals",
            format!("{}{rm}", "eval ".repeat(17)),
            &["deny", "ask"],
        ),
        (
            "17 $(…)",
            format!("echo {}{rm}{}", "$( ".repeat(17), ")".repeat(17)),
            &["deny", "ask"],
        ),
        (
            "34 subshells",
            format!("{}{rm}{}", "( ".repeat(34), " )".repeat(34)),
            &["deny", "ask"],
        ),
        (
            "50 blocks",
            format!("{}{rm}; {}}}", "{ ".repeat(50), "}; ".repeat(49)),
            &["deny", "ask"],
        ),
        (
            "line over 64 KiB",
            format!("echo {}; {rm}", "a".repeat(70_000)),
            &["deny", "ask"],
        ),
        ("doubling alone", doubling(7), &["ask", "none", "allow"]),
    ];
    let env = TestEnv::new();
    for (label, line, expected) in &cases {
        let started = std::time::Instant::now();
        let decision = gate_decision(&pre_bash(&env, line), label);
        println!(
            "budget case {label}: {decision} in {} ms",
            started.elapsed().as_millis()
        );
        assert!(
            expected.contains(&decision.as_str()),
            "{label}: {decision}, expected one of {expected:?}"
        );
    }
}

/// A shell construct around an inner line.
#[derive(Debug, Clone, Copy)]
enum Wrap {
    Eval,
    Substitution,
    Subshell,
    Block,
    BashC,
    Doubling(usize),
    Pipe,
    If,
    Assign,
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn wrap(inner: &str, w: Wrap) -> String {
    match w {
        Wrap::Eval => format!("eval {}", single_quoted(inner)),
        // The space keeps `$( (…))` a command substitution: `$((…))` is arithmetic.
        Wrap::Substitution => format!("echo $( {inner})"),
        // Spaced: `((…))` is an arithmetic command.
        Wrap::Subshell => format!("( {inner} )"),
        Wrap::Block => format!("{{ {inner}; }}"),
        Wrap::BashC => format!("bash -c {}", single_quoted(inner)),
        Wrap::Doubling(levels) => format!("{}; {inner}", doubling(levels)),
        Wrap::Pipe => format!("{inner} | cat"),
        Wrap::If => format!("if true; then {inner}; fi"),
        Wrap::Assign => format!("x=$( {inner}); echo \"$x\""),
    }
}

fn arb_wrap() -> impl Strategy<Value = Wrap> {
    prop_oneof![
        Just(Wrap::Eval),
        Just(Wrap::Substitution),
        Just(Wrap::Subshell),
        Just(Wrap::Block),
        Just(Wrap::BashC),
        (1usize..8).prop_map(Wrap::Doubling),
        Just(Wrap::Pipe),
        Just(Wrap::If),
        Just(Wrap::Assign),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Destruction nested in any mix of constructs, to any depth, is denied or asked, by the
    /// gate itself.
    #[test]
    fn nested_expansions_never_approve_destruction(
        inner in prop::sample::select(vec!["rm -rf ~", "rm -rf /", "git push --force origin main"]),
        wraps in prop::collection::vec(arb_wrap(), 1..40),
    ) {
        let line = wraps.iter().fold(inner.to_owned(), |acc, w| wrap(&acc, *w));
        // Quoting doubles at each level: past Claude Code's payload cap is another test's.
        prop_assume!(line.len() < 1 << 20);
        let env = TestEnv::new();
        let decision = gate_decision(&pre_bash(&env, &line), &clip(&line));
        prop_assert!(
            decision == "deny" || decision == "ask",
            "{} for {}", decision, clip(&line)
        );
    }

    /// Harmless lines nested the same way get the gate's answer too (whatever it is).
    #[test]
    fn nested_harmless_lines_are_decided(
        wraps in prop::collection::vec(arb_wrap(), 1..40),
    ) {
        let line = wraps.iter().fold("ls".to_owned(), |acc, w| wrap(&acc, *w));
        prop_assume!(line.len() < 1 << 20);
        let env = TestEnv::new();
        gate_decision(&pre_bash(&env, &line), &clip(&line));
    }
}
