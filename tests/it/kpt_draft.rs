//! Hook-recorded sessions and the drafts of `oath kpt new`: what Stop and SessionEnd record,
//! the evidence-backed candidates of a draft, and sessions found without the hooks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oath::kpt::report::{self, JUDGEMENT, Report};
use oath::kpt::{check, session, template};

use crate::kpt::{sample_path, seed_example_path, session_a_dir, tally};
use crate::support::TestEnv;

/// Runs `oath kpt new` for session A and returns the draft's path it prints.
fn kpt_new_session_a(env: &TestEnv) -> PathBuf {
    let out = env
        .oath()
        .args(["kpt", "new", "--session", SESSION_A])
        .assert()
        .success();
    PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim())
}

/// The draft of the documented sample session (`kpt-20260207-001`, drafted 10:20 that day).
fn sample_draft() -> Report {
    let mut r = session::SessionRecord {
        session_id: "7f3c2a10-5b8e-4d21-9c6a-2e4f8b1d0a37".into(),
        transcript_path: Some(sample_path()),
        ..Default::default()
    };
    session::refresh(&mut r, &mut Vec::new(), None);
    let now = oath::clock::Timestamp::parse("2026-02-07T10:20:00Z").unwrap();
    let mut d = oath::kpt::draft::draft(&r, &Default::default(), now);
    d.id = "kpt-20260207-001".into();
    d
}

/// Reads a draft `oath kpt new` wrote: wrong only at its placeholders, and its facts as a
/// typed report (the keep and try placeholder items, which hold no valid value yet, set aside).
fn read_draft(path: &Path) -> Report {
    let text = std::fs::read_to_string(path).unwrap();
    let stem = path.file_stem().unwrap().to_str();
    assert_eq!(
        report::issues_beyond_placeholders(&text, stem),
        Vec::new(),
        "{text}"
    );
    let mut v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    for key in ["keep", "try"] {
        let items = v[key].as_array_mut().unwrap();
        assert!(items.len() <= 1, "{key}: {items:?}");
        items.retain(|i| !i.to_string().contains(JUDGEMENT));
    }
    serde_json::from_value(v).unwrap()
}

/// The comment block right above a top-level key.
fn comment_above<'a>(lines: &[&'a str], key: &str) -> Vec<&'a str> {
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key}:"));
    let mut block: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with('#'))
        .copied()
        .collect();
    block.reverse();
    block
}

/// Fills every `TODO(judgement)` placeholder of a template the way a person reading only the
/// file would, and changes nothing else: a text where a text is asked, the first value the
/// field's comment allows for a choice, the first id the try comment names for `addresses`.
fn fill(text: &str) -> String {
    let tree = check::parse(text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Option<String>> = lines.iter().map(|l| Some(l.to_string())).collect();
    for todo in report::unfinished(&tree) {
        let section = todo.path.split(['[', '.']).next().unwrap();
        let field = todo
            .path
            .rsplit('.')
            .next()
            .unwrap()
            .split('[')
            .next()
            .unwrap();
        let guide = comment_above(&lines, section);
        let value = if field == "addresses" {
            let ids = guide
                .iter()
                .find_map(|l| l.strip_prefix("#   ids addresses can name: "))
                .expect("the try comment names the ids");
            ids.split(", ").next().unwrap().to_owned()
        } else {
            let allowed = guide.iter().find_map(|l| {
                let l = l.trim_start_matches(['#', ' ', '-']);
                let (_, note) = l.strip_prefix(&format!("{field}: "))?.split_once("  # ")?;
                let choices = note.split_once(": ")?.1.split(" (").next()?;
                choices
                    .contains(" | ")
                    .then(|| choices.split(" | ").next().unwrap())
            });
            match allowed {
                Some(first) => first.to_owned(),
                None => "\"written by hand\"".to_owned(),
            }
        };
        // A block scalar's line is its first line of text, below `key: |-` or `- |-`.
        let mut i = todo.line as usize - 1;
        let block = |l: &str| {
            let last = l.trim_end().rsplit(' ').next().unwrap_or("");
            ["|", "|-", "|+", ">", ">-", ">+"].contains(&last)
        };
        if i > 0 && block(lines[i - 1]) {
            i -= 1;
        }
        let line = &lines[i];
        let indent = line.len() - line.trim_start().len();
        let body = &line[indent..];
        let is_key = |t: &str| {
            t.split_once(": ").is_some_and(|(k, _)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        };
        let (prefix, own) = match body.strip_prefix("- ") {
            Some(rest) if !is_key(rest) => (format!("{}- ", &line[..indent]), indent),
            _ => {
                let at = line.find(": ").expect("key: value") + 2;
                let key_col = indent + if body.starts_with("- ") { 2 } else { 0 };
                (line[..at].to_owned(), key_col)
            }
        };
        out[i] = Some(format!("{prefix}{value}"));
        // A text folded over several lines goes with its first line.
        for (j, l) in lines.iter().enumerate().skip(i + 1) {
            if l.trim().is_empty() || l.len() - l.trim_start().len() <= own {
                break;
            }
            out[j] = None;
        }
    }
    out.into_iter().flatten().collect::<Vec<_>>().join("\n") + "\n"
}

/// `FILE:LINE: path` of each issue `oath kpt validate` printed.
fn printed_issues(stderr: &str, file: &Path) -> BTreeSet<(usize, String)> {
    let prefix = format!("{}:", file.display());
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| {
            let (line, rest) = l.split_once(": ")?;
            let (path, _) = rest.split_once(": ")?;
            Some((line.parse().ok()?, path.to_owned()))
        })
        .collect()
}

const SESSION_A: &str = "2a8a8413-ce59-4acc-9108-0d8491401f7f";

/// Replays session-a's real hook payloads through `oath hook`, the transcript path pointing
/// at a copy whose content grows as the session did (up to `upto` lines at the first Stop).
fn replay_session_a(env: &TestEnv) -> PathBuf {
    let transcript = env
        .home()
        .join(".claude/projects/-demo")
        .join(format!("{SESSION_A}.jsonl"));
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let full = std::fs::read_to_string(session_a_dir().join("transcript.jsonl")).unwrap();
    let mut payloads: Vec<PathBuf> = std::fs::read_dir(session_a_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().unwrap().to_string_lossy().as_bytes()[0].is_ascii_digit()
        })
        .collect();
    payloads.sort();
    // The transcript as it stood at the first Stop: all but the last two lines, the last of
    // them cut in the middle (a partial line being written).
    let lines: Vec<&str> = full.lines().collect();
    let head = lines[..lines.len() - 2].join("\n") + "\n" + &lines[lines.len() - 2][..40];
    std::fs::write(&transcript, head).unwrap();
    for p in payloads {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        v["transcript_path"] = serde_json::json!(transcript);
        v["cwd"] = serde_json::json!(env.project());
        let event = v["hook_event_name"].as_str().unwrap().to_owned();
        if event == "SessionEnd" {
            std::fs::write(&transcript, &full).unwrap();
        }
        let out = env.oath().arg("hook").write_stdin(v.to_string()).assert();
        let code = out.get_output().status.code();
        assert!(matches!(code, Some(0 | 2)), "{event}: exit {code:?}");
        if event == "Stop" {
            let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
            assert!(!stderr.contains("kpt"), "{stderr}");
        }
    }
    transcript
}

fn project(env: &TestEnv) -> oath::project::Project {
    let e = oath::project::Env {
        oath_home: Some(env.oath_home()),
        home: Some(env.home()),
        claude_project_dir: Some(env.project()),
        ..Default::default()
    };
    oath::project::Project::resolve(&e, Some(&env.project()))
}

#[test]
fn stop_and_session_end_record_the_session_incrementally() {
    let env = TestEnv::new();
    let transcript = replay_session_a(&env);
    let p = project(&env);
    let r = session::read(&p, SESSION_A).expect("session recorded");
    assert_eq!(r.transcript_path.as_deref(), Some(transcript.as_path()));
    assert_eq!(r.last_event.as_deref(), Some("SessionEnd"));
    // The first Stop saw 28 complete lines and a partial one; SessionEnd parsed only the rest.
    assert_eq!(r.main.offset, std::fs::metadata(&transcript).unwrap().len());
    let one_pass = tally(&session_a_dir().join("transcript.jsonl"));
    assert_eq!(r.main.tally.counts, one_pass.counts);
    assert_eq!(
        r.main.tally.counts.invalid_lines, 0,
        "the partial line was never parsed"
    );
    let m = r.metrics();
    assert_eq!(m.user_turns, Some(1));
    assert_eq!(m.assistant_turns, Some(11));
    assert_eq!(m.tool_use_count, Some(10));
    assert_eq!(m.error_count, Some(4));
    // As README says: the end of a session writes no retrospective (only `oath kpt new` or
    // `/hurikaeri` does), in the reports folder or anywhere else under the home or project.
    let reports = env.home().join(".claude/hurikaeri");
    assert!(
        std::fs::read_dir(&reports).map_or(true, |mut d| d.next().is_none()),
        "{} holds a report",
        reports.display()
    );
    let yaml = |root: PathBuf| -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "yaml") {
                    found.push(path);
                }
            }
        }
        found
    };
    assert_eq!(yaml(env.home()), Vec::<PathBuf>::new());
    assert_eq!(yaml(env.project()), Vec::<PathBuf>::new());
}

#[test]
fn kpt_new_writes_a_valid_evidence_backed_draft_for_a_hook_recorded_session() {
    let env = TestEnv::new();
    replay_session_a(&env);
    let out = env
        .oath()
        .env("OATH_NOW", "2026-11-22T02:40:00Z")
        .args(["kpt", "new", "--session", SESSION_A])
        .assert()
        .success();
    let path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    assert_eq!(
        path,
        env.home().join(".claude/hurikaeri/kpt-20261122-001.yaml")
    );
    let r = read_draft(&path);
    assert_eq!(r.session_id.as_deref(), Some(SESSION_A));
    assert_eq!(r.created_at, "2026-11-22T02:40:00Z");
    let m = r.metrics.as_ref().unwrap();
    assert_eq!(
        (m.user_turns, m.assistant_turns, m.session_duration_turns),
        (Some(1), Some(11), Some(12))
    );
    assert_eq!(
        (m.tool_use_count, m.code_changes_count, m.error_count),
        (Some(10), Some(2), Some(4))
    );
    assert!(r.session_summary.starts_with("TODO(judgement)"));
    assert!(r.task_goals[0].contains("Fix the build and push"));
    // Candidates drawn from facts, each citing its evidence.
    let build: Vec<_> = r
        .problem
        .iter()
        .filter(|p| p.description.contains("cargo build"))
        .collect();
    assert_eq!(
        build.len(),
        1,
        "one candidate per failing streak: {build:#?}"
    );
    assert!(
        build[0]
            .description
            .contains("still failed when the session ended (it failed 2 times in a row)")
    );
    assert_eq!(build[0].impact, report::Level::High);
    assert!(
        build[0]
            .evidence
            .starts_with("transcript line 18 (Bash `cargo build"),
        "{}",
        build[0].evidence
    );
    assert_eq!(
        r.problem.len(),
        3,
        "cargo build, WebFetch and git push: {:#?}",
        r.problem
    );
    assert!(r.problem.iter().any(|p| {
        p.description.contains("git push --force")
            && p.description
                .contains("still failed when the session ended")
            && p.evidence.contains("transcript line 26")
    }));
    assert!(r.problem.iter().all(|p| {
        p.root_cause
            .as_deref()
            .unwrap()
            .starts_with("TODO(judgement)")
    }));
    assert_eq!(r.omission.len(), 1);
    assert!(
        r.omission[0]
            .recommended_action
            .as_deref()
            .unwrap()
            .contains("line 28")
    );
    assert_eq!(r.outcome, report::Outcome::Partial);
    // The gate's own facts come from the audit trail the replay wrote: one pre record per call.
    let o = r.oath.as_ref().unwrap();
    assert_eq!(o.allowed + o.no_opinion + o.asked + o.denied, 10);
    // Without --session the most recent session of the project is used; ids are sequential.
    let out = env
        .oath()
        .env("OATH_NOW", "2026-11-22T02:41:00Z")
        .args(["kpt", "new"])
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .trim()
            .ends_with("kpt-20261122-002.yaml")
    );
    let listed = env.oath().args(["kpt", "list"]).assert().success();
    let listed = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(
        listed.contains("kpt-20261122-001  draft (13 placeholders to fill)")
            && listed.contains("kpt-20261122-002  draft ("),
        "{listed}"
    );
    // A draft is shown whole, its placeholders counted; it is not an invalid report.
    let out = env
        .oath()
        .args(["kpt", "show", "kpt-20261122-001"])
        .assert()
        .success();
    let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(shown.contains("category: TODO(judgement)"), "{shown}");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("draft: 13 placeholders to fill"),
        "{stderr}"
    );
}

#[test]
fn kpt_new_cites_gate_denials_and_strike_escalations_from_the_audit_trail() {
    let env = TestEnv::new();
    replay_session_a(&env);
    let p = project(&env);
    let audit = p.audit_file(SESSION_A);
    let mut text = std::fs::read_to_string(&audit).unwrap();
    text.push_str(concat!(
        r#"{"v":1,"kind":"pre","timestamp":"2026-11-22T02:38:52.130Z","session_id":"2a8a8413-ce59-4acc-9108-0d8491401f7f","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"decision":"deny","reason":"destroys the file system"}"#,
        "\n",
        r#"{"v":1,"kind":"pre","timestamp":"2026-11-22T02:38:52.140Z","session_id":"2a8a8413-ce59-4acc-9108-0d8491401f7f","tool_name":"Bash","tool_input":{"command":"cargo build"},"decision":"ask","reason":"[STRIKE 3] the same error 3 times: escalated"}"#,
        "\n"
    ));
    std::fs::write(&audit, text).unwrap();
    let out = env
        .oath()
        .env("OATH_KPT_DIR", env.dir.path().join("reports"))
        .args(["kpt", "new", "--session", SESSION_A])
        .assert()
        .success();
    let path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    assert!(
        path.starts_with(env.dir.path().join("reports")),
        "OATH_KPT_DIR wins"
    );
    let r = read_draft(&path);
    let denied = r
        .problem
        .iter()
        .find(|p| p.description.contains("rm -rf /"))
        .unwrap();
    assert_eq!(denied.category, report::ProblemCategory::WrongApproach);
    assert!(
        denied
            .evidence
            .contains("audit trail 2026-11-22T02:38:52.130Z"),
        "{}",
        denied.evidence
    );
    let strike = r
        .problem
        .iter()
        .find(|p| p.description.contains("3-strike"))
        .unwrap();
    assert_eq!(strike.impact, report::Level::High);
    assert!(r.oath.as_ref().unwrap().strike_escalations >= 1);
}

#[test]
fn unknown_session_is_a_clear_error() {
    let env = TestEnv::new();
    let out = env
        .oath()
        .args(["kpt", "new", "--session", "nope"])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("unknown session nope"), "{stderr}");
    let out = env.oath().args(["kpt", "new"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("no session recorded"), "{stderr}");
}

#[test]
fn draft_of_the_documented_sample_has_one_candidate_per_fact() {
    let d = sample_draft();
    let got: Vec<(report::ProblemCategory, &str)> = d
        .problem
        .iter()
        .map(|p| (p.category, p.evidence.split(" (").next().unwrap()))
        .collect();
    use report::ProblemCategory as C;
    assert_eq!(
        got,
        vec![
            // Lines 7 and 14: `cargo test` failed twice with different assertions, two
            // failures, not one repeated (transcript-format.md §8), and it passed at 24.
            (C::WrongApproach, "transcript line 17"), // the rejected `cargo add deunicode`
            (
                C::Misunderstanding,
                "transcript line 19: No, don't transliterate and don't add a dependency. The spec says slugs keep Unicode letters; just lowercase them with to_lowercase()."
            ),
            (C::Inefficiency, "transcript line 22"), // slug.rs edited again after the failure
        ]
    );
    assert!(d.omission.is_empty(), "the test ran after the last change");
    assert_eq!(d.outcome, report::Outcome::Success);
    let text = oath::kpt::to_yaml(&d).unwrap();
    report::validate(&text, Some("kpt-20260207-001")).unwrap();
}

#[test]
fn the_hurikaeri_command_runs_oath_for_this_session() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/commands/hurikaeri.md"),
    )
    .unwrap();
    let front = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(f, _)| f)
        .expect("frontmatter");
    assert!(front.lines().any(|l| l.starts_with("description: ")));
    assert!(
        front
            .lines()
            .any(|l| l.starts_with("allowed-tools: ") && l.contains("Bash({{oath}} kpt:*)"))
    );
    assert!(
        !front.contains("context: fork"),
        "a forked command cannot see the conversation"
    );
    for needle in [
        "{{oath}} kpt new --session ${CLAUDE_SESSION_ID}",
        "{{oath}} kpt validate --complete",
        "TODO(judgement)",
        "ベテランエンジニア視点",
        "テスト観点",
        "代替案検討",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
    // Allowed values come from the draft's comments (the schema), never a copy that could drift.
    let schema = Report::schema();
    for (name, def) in schema["$defs"].as_object().unwrap() {
        let Some(values) = check::string_choices(def) else {
            continue;
        };
        for a in &values {
            for b in values.iter().filter(|b| *b != a) {
                assert!(
                    !text.contains(&format!("{a} | {b}")),
                    "{name}: the command lists `{a} | {b}` by hand"
                );
            }
        }
    }
}

#[test]
fn kpt_new_finds_an_unrecorded_session_in_claude_projects_and_honours_kpt_dir() {
    let env = TestEnv::new();
    let id = "7f3c2a10-5b8e-4d21-9c6a-2e4f8b1d0a37";
    let dir = env
        .home()
        .join(".claude/projects/-home-dev-projects-slugkit");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(sample_path(), dir.join(format!("{id}.jsonl"))).unwrap();
    env.trusted_project_config("kpt:\n  dir: ~/retro\n");
    let out = env
        .oath()
        .env("OATH_NOW", "2026-02-07T10:20:00Z")
        .args(["kpt", "new", "--session", id])
        .assert()
        .success();
    let path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    assert_eq!(path, env.home().join("retro/kpt-20260207-001.yaml"));
    let r = read_draft(&path);
    let m = r.metrics.unwrap();
    assert_eq!(
        (m.user_turns, m.assistant_turns, m.correction_count),
        (Some(2), Some(8), Some(1))
    );
    // A finished report (no placeholder left) passes --complete.
    env.oath()
        .args(["kpt", "validate", "--complete"])
        .arg(seed_example_path())
        .assert()
        .success();
}

#[test]
fn kpt_new_cites_a_real_3_strike_escalation_of_the_session() {
    let env = TestEnv::new();
    replay_session_a(&env);
    let failure: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(session_a_dir().join("16-post-tool-use-failure-bash.json"))
            .unwrap(),
    )
    .unwrap();
    // The replay already failed this build twice; a third identical failure escalates.
    let mut v = failure.clone();
    v["tool_use_id"] = serde_json::json!("toolu_third");
    v["cwd"] = serde_json::json!(env.project());
    env.oath()
        .arg("hook")
        .write_stdin(v.to_string())
        .assert()
        .success();
    let path = kpt_new_session_a(&env);
    let r = read_draft(&path);
    assert_eq!(
        r.oath.as_ref().unwrap().strike_escalations,
        1,
        "{:#?}",
        r.oath
    );
    let strike = r
        .problem
        .iter()
        .find(|p| p.description.contains("3-strike"))
        .expect("a strike candidate");
    assert_eq!(strike.impact, report::Level::High);
    assert!(
        strike.evidence.contains("strike 3 of error"),
        "{}",
        strike.evidence
    );
    assert!(
        strike.evidence.contains("errors.json"),
        "{}",
        strike.evidence
    );
    assert_eq!(r.outcome, report::Outcome::Partial);
}

#[test]
fn kpt_new_finds_a_session_the_hooks_recorded_under_another_project_root() {
    let env = TestEnv::new();
    let sub = env.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let transcript = env.home().join(".claude/projects/-sub/s-sub.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(sample_path(), &transcript).unwrap();
    let stop = serde_json::json!({
        "session_id": "s-sub", "transcript_path": transcript, "cwd": sub,
        "hook_event_name": "Stop", "stop_hook_active": false
    });
    env.oath()
        .env("CLAUDE_PROJECT_DIR", &sub)
        .arg("hook")
        .write_stdin(stop.to_string())
        .assert()
        .success();
    // Run from the repository root: without and with --session.
    for args in [vec!["kpt", "new"], vec!["kpt", "new", "--session", "s-sub"]] {
        let out = env.oath().args(&args).assert().success();
        let path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
        let r = read_draft(&path);
        assert_eq!(r.session_id.as_deref(), Some("s-sub"));
        assert_eq!(r.metrics.unwrap().correction_count, Some(1));
    }
    // The record carries the computed metrics for people and other tools.
    let e = oath::project::Env {
        oath_home: Some(env.oath_home()),
        ..Default::default()
    };
    let p = oath::project::Project::at(&e, oath::project::normalize(&sub));
    let rec = session::read(&p, "s-sub").unwrap();
    assert_eq!(rec.metrics.unwrap().tool_use_count, Some(7));
}

// ---------------------------------------------------------------------------------------
// The draft as a template

/// The untouched template does not validate, and every message names a placeholder: plain
/// `validate` the ones that are no valid value yet (choices, `try.addresses`), `--complete`
/// each placeholder once, and nothing else.
#[test]
fn the_untouched_template_fails_validation_at_its_placeholders_and_nowhere_else() {
    let env = TestEnv::new();
    replay_session_a(&env);
    let path = kpt_new_session_a(&env);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let placeholders: BTreeSet<(usize, String)> = report::unfinished(&check::parse(&text).unwrap())
        .into_iter()
        .map(|i| (i.line as usize, i.path))
        .collect();
    assert_eq!(placeholders.len(), 13, "{placeholders:?}");

    let out = env
        .oath()
        .args(["kpt", "validate"])
        .arg(&path)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    for needle in [
        "keep[0].category: `TODO(judgement)` is not one of approach, tool_use, communication, architecture",
        "try[0].scope: `TODO(judgement)` is not one of immediate, session, project, global",
        "names no problem or omission of this report",
        "3 problems (10 TODO(judgement) placeholders left to write: --complete names them)",
    ] {
        assert!(stderr.contains(needle), "{needle}\n{stderr}");
    }
    let plain = printed_issues(&stderr, &path);
    assert_eq!(plain.len(), 3, "{stderr}");
    for (line, p) in &plain {
        assert!(placeholders.contains(&(*line, p.clone())), "{p}: {stderr}");
        assert!(lines[line - 1].contains(JUDGEMENT), "line {line}");
    }

    let out = env
        .oath()
        .args(["kpt", "validate", "--complete"])
        .arg(&path)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(printed_issues(&stderr, &path), placeholders, "{stderr}");
    assert!(stderr.contains(": 13 problems\n"), "{stderr}");
    assert!(
        stderr.contains("session_summary: still a TODO(judgement) placeholder"),
        "{stderr}"
    );
    // Nothing is converted or persisted from it: the same placeholders are named.
    for cmd in ["feedback", "apply"] {
        let out = env
            .oath()
            .current_dir(env.project())
            .args(["kpt", cmd])
            .arg(&path)
            .assert()
            .code(1);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains("still has TODO(judgement) placeholders"),
            "{cmd}: {stderr}"
        );
        assert_eq!(printed_issues(&stderr, &path), placeholders, "{cmd}");
    }
}

/// Replacing the placeholders, reading only the file, passes `validate --complete` the first
/// time; the comments stay through `oath kpt feedback`, and `apply` and `list` read the report.
#[test]
fn filling_only_the_placeholders_passes_validation_the_first_time() {
    let env = TestEnv::new();
    replay_session_a(&env);
    let path = kpt_new_session_a(&env);
    let text = std::fs::read_to_string(&path).unwrap();
    let filled = fill(&text);
    // Only placeholder lines changed.
    let (before, after): (Vec<&str>, Vec<&str>) =
        (text.lines().collect(), filled.lines().collect());
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert!(b == a || b.contains(JUDGEMENT), "{b} -> {a}");
    }
    assert!(filled.contains("  category: approach\n"), "{filled}");
    assert!(
        filled.contains("  - prob-001\n  scope: immediate\n"),
        "{filled}"
    );
    std::fs::write(&path, &filled).unwrap();
    let out = env
        .oath()
        .args(["kpt", "validate", "--complete"])
        .arg(&path)
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout).trim(),
        format!("{}: ok", path.display())
    );
    let comments: Vec<&str> = before
        .iter()
        .copied()
        .filter(|l| l.starts_with('#'))
        .collect();
    assert!(comments.len() > 40, "{comments:?}");
    env.oath()
        .args(["kpt", "feedback"])
        .arg(&path)
        .assert()
        .success();
    let after_feedback = std::fs::read_to_string(&path).unwrap();
    for c in &comments {
        assert!(after_feedback.contains(c), "lost: {c}");
    }
    assert!(after_feedback.contains("  enabled: true\n  generated_feedback_id: fb-"));
    env.oath()
        .args(["kpt", "validate", "--complete"])
        .arg(&path)
        .assert()
        .success();
    let out = env
        .oath()
        .current_dir(env.project())
        .args(["kpt", "apply", "--dry-run"])
        .arg(&path)
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .contains("no try has a persistence_target")
    );
    let out = env.oath().args(["kpt", "list"]).assert().success();
    let listed = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        listed.contains("partial  keep 1 problem 3 try 1 omission 1"),
        "{listed}"
    );
}

/// Whatever the draft holds, one pass over its placeholders gives a valid, finished report:
/// with problems and no omission, with an omission only (try addresses it), with nothing to
/// address (no try placeholder), and with a first prompt of several lines (a block scalar).
#[test]
fn every_kind_of_draft_is_filled_in_one_pass() {
    let base = sample_draft();
    let mut omission_only = base.clone();
    omission_only.problem.clear();
    omission_only.omission.push(report::Omission {
        id: "omit-001".into(),
        description: "no test ran after the last change".into(),
        reasoning: format!("{JUDGEMENT}: why was the change not verified?"),
        risk_level: report::Level::Medium,
        counterfactual_prompt: "テスト観点".into(),
        recommended_action: None,
    });
    let mut nothing = base.clone();
    nothing.problem.clear();
    nothing.task_goals = vec![format!(
        "{JUDGEMENT}: state the goals; the first prompt was: fix the slug test\nkeep Unicode letters\nand lowercase them"
    )];
    for (name, d, tries) in [
        ("problems", base, 1),
        ("omission only", omission_only, 1),
        ("nothing to address", nothing, 0),
    ] {
        let text = template::render(&d).unwrap();
        assert_eq!(text.contains("\n- |-\n"), tries == 0, "{name}: {text}");
        assert!(
            report::validate(&text, Some("kpt-20260207-001")).is_err(),
            "{name}: the untouched template validates"
        );
        let filled = fill(&text);
        let done = report::validate(&filled, Some("kpt-20260207-001"))
            .unwrap_or_else(|e| panic!("{name}: {e:?}\n{filled}"));
        assert_eq!(
            report::unfinished(&check::parse(&filled).unwrap()),
            Vec::new(),
            "{name}"
        );
        assert_eq!((done.keep.len(), done.tries.len()), (1, tries), "{name}");
        assert_eq!(done.metrics, d.metrics, "{name}: the metrics are kept");
    }
}

/// The template of the documented sample, whole: header, comments, placeholders, facts.
#[test]
fn template_of_the_documented_sample() {
    let d = sample_draft();
    insta::assert_snapshot!("template_documented_sample", template::render(&d).unwrap());
}
