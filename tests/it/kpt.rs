//! KPT retrospectives: metrics of real and documented transcripts against hand-counted values,
//! report validation rule by rule, feedback and apply (sessions and drafts: `kpt_draft`).

use std::path::{Path, PathBuf};

use oath::kpt::check::Issue;
use oath::kpt::report::{self, Report};
use oath::kpt::{feedback, session};
use oath::transcript::{Counts, FactKind, Tally};

use crate::support::{TestEnv, fixtures_dir};

pub(crate) fn sample_path() -> PathBuf {
    fixtures_dir().join("documented/transcript-sample.jsonl")
}

pub(crate) fn session_a_dir() -> PathBuf {
    fixtures_dir().join("claude-code-2.1.197/session-a")
}

pub(crate) fn seed_example_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/kpt/kpt-20260208-001.yaml")
}

pub(crate) fn tally(path: &Path) -> Tally {
    Tally::from_text(&std::fs::read_to_string(path).unwrap(), false)
}

/// Hand count of `documented/transcript-sample.jsonl` (transcript-format.md §8):
/// prompts at lines 3 and 19 (line 18 is the interrupt marker after the rejection at 17);
/// API messages PaYx2C (4-6), Jw2Rt5 (8), Lp6Ns8 (10-11), Nr0Tu2 (13), Qt2Vw4 (15-16),
/// Sv4Xy6 (20-21), Ux6Za8 (23), Wz8Bc0 (25) = 8; tool uses Bash 6/13/16/23, Read 8,
/// Edit 11/21 = 7; failures at 7 and 14 (Exit code 101), rejection at 17; Edit #1 is +1/-1,
/// Edit #2 is +1, both on src/slug.rs; the correction at 19 ("No, don't transliterate…");
/// Edit #2 redoes src/slug.rs after the failure at 14 = 1 backtrack. Times: 10:12:04.612 to
/// 10:14:03.346 = 118 734 ms; tool times 3421 + 6152 + 5438 + 5418 + 9616 + 3099 + 8809 =
/// 41 953 ms.
#[test]
fn documented_sample_metrics_equal_the_hand_count() {
    let t = tally(&sample_path());
    let c = &t.counts;
    assert_eq!(c.lines, 26);
    assert_eq!(c.invalid_lines, 0);
    assert_eq!(c.user_turns, 2);
    assert_eq!(c.assistant_turns, 8);
    assert_eq!(c.session_duration_turns(), 10);
    assert_eq!(c.tool_use_count, 7);
    assert_eq!(c.unique_tools(), vec!["Bash", "Edit", "Read"]);
    assert_eq!(c.tools["Bash"], 4);
    assert_eq!(c.tools["Read"], 1);
    assert_eq!(c.tools["Edit"], 2);
    assert_eq!(c.code_changes_count, 2);
    assert_eq!(c.files_changed.len(), 1);
    assert_eq!((c.lines_added, c.lines_removed), (2, 1));
    assert_eq!(c.error_count, 2);
    assert_eq!(c.rejection_count, 1);
    assert_eq!(c.permission_denial_count, 0);
    assert_eq!(
        c.interrupt_count, 0,
        "the marker at line 18 belongs to the rejection"
    );
    assert_eq!(c.correction_count, 1);
    assert_eq!(c.backtrack_count, 1);
    assert_eq!(c.duration_ms(), Some(118_734));
    assert_eq!(c.tool_time_ms, 41_953);
    let correction = t
        .facts
        .iter()
        .find(|f| f.kind == FactKind::Correction)
        .unwrap();
    assert_eq!(correction.line, 19);
    assert!(correction.detail.starts_with("No, don't transliterate"));
    let backtrack = t
        .facts
        .iter()
        .find(|f| f.kind == FactKind::Backtrack)
        .unwrap();
    assert_eq!(backtrack.line, 22);
    assert_eq!(
        backtrack.cause_line,
        Some(14),
        "the test failure after the first edit caused the second: {backtrack:?}"
    );
    let rejection = t
        .facts
        .iter()
        .find(|f| f.kind == FactKind::Rejection)
        .unwrap();
    assert_eq!(
        (rejection.line, rejection.subject.as_str()),
        (17, "cargo add deunicode")
    );
    // The verification at line 23 ran after the last change (line 22).
    assert_eq!(t.last_change_line, Some(22));
    assert!(t.ran_after_last_change);
    assert!(t.still_failing().is_empty());
}

/// Hand count of the real `session-a/transcript.jsonl` (Claude Code 2.1.197): one prompt
/// (line 3; lines 1-2 are queue operations); API messages msg_…0001 to msg_…0011 = 11;
/// tool uses Read 7, Glob 9, Grep 11, Edit 13, Bash 15/17/22/25, WebFetch 19, Write 27 = 10
/// (7 kinds); failures at 16 and 18 (Exit code 1, the same `cargo build` twice), 20 (WebFetch
/// "Unable to verify…", is_error) and 26 (Exit code 128 of git push) = 4; Edit hello→goodbye
/// is +1/-1, Write creates a one-line file = +1; no correction (one prompt), no backtrack (no
/// file changed twice, no git undo). Times: 02:38:51.350 to 02:38:52.276 = 926 ms; tool times
/// 38+31+34+39+135+101+69+31+48+27 = 553 ms.
#[test]
fn real_session_a_metrics_equal_the_hand_count() {
    let t = tally(&session_a_dir().join("transcript.jsonl"));
    let c = &t.counts;
    assert_eq!(c.lines, 30);
    assert_eq!(c.user_turns, 1);
    assert_eq!(c.assistant_turns, 11);
    assert_eq!(c.session_duration_turns(), 12);
    assert_eq!(c.tool_use_count, 10);
    assert_eq!(
        c.unique_tools(),
        vec!["Bash", "Edit", "Glob", "Grep", "Read", "WebFetch", "Write"]
    );
    assert_eq!(c.tools["Bash"], 4);
    assert_eq!(c.code_changes_count, 2);
    assert_eq!(c.files_changed.len(), 2);
    assert_eq!((c.lines_added, c.lines_removed), (2, 1));
    assert_eq!(c.error_count, 4);
    assert_eq!(
        (
            c.rejection_count,
            c.permission_denial_count,
            c.interrupt_count
        ),
        (0, 0, 0)
    );
    assert_eq!(c.correction_count, 0);
    assert_eq!(c.backtrack_count, 0);
    assert_eq!(c.duration_ms(), Some(926));
    assert_eq!(c.tool_time_ms, 553);
    let repeated: Vec<_> = t
        .facts
        .iter()
        .filter(|f| f.kind == FactKind::RepeatedFailure)
        .collect();
    assert_eq!(repeated.len(), 1);
    assert_eq!(repeated[0].count, Some(2));
    assert_eq!((repeated[0].first_line, repeated[0].line), (Some(16), 18));
    assert_eq!(repeated[0].subject, "cargo build 2>&1 | tail -3 && false");
    // cargo build, WebFetch and git push never succeeded afterwards.
    assert_eq!(t.still_failing().len(), 3);
    // The Write at line 28 is the last change and nothing ran after it.
    assert_eq!(t.last_change_line, Some(28));
    assert!(!t.ran_after_last_change);
}

#[test]
fn incremental_parsing_with_saved_state_equals_one_pass() {
    for path in [sample_path(), session_a_dir().join("transcript.jsonl")] {
        let text = std::fs::read_to_string(&path).unwrap();
        let whole = Tally::from_text(&text, false);
        let mut parts = Tally::new(false);
        let lines: Vec<&str> = text.lines().collect();
        for chunk in lines.chunks(4) {
            let saved = serde_json::to_string(&parts).unwrap();
            parts = serde_json::from_str(&saved).unwrap();
            for l in chunk {
                parts.feed(l);
            }
        }
        assert_eq!(whole.counts, parts.counts, "{}", path.display());
        assert_eq!(whole.facts, parts.facts, "{}", path.display());
    }
}

#[test]
fn subagent_transcripts_count_as_tool_work_but_not_as_turns() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s1.jsonl");
    std::fs::copy(sample_path(), &main).unwrap();
    let sub = dir.path().join("s1/subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("agent-a1.jsonl"),
        concat!(
            r#"{"type":"user","uuid":"x1","isSidechain":true,"message":{"role":"user","content":"Find the tests"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"x2","isSidechain":true,"message":{"id":"m-sub","content":[{"type":"tool_use","id":"t-sub","name":"Grep","input":{"pattern":"fn test"}}]}}"#,
            "\n",
            r#"{"type":"user","uuid":"x3","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t-sub","content":"src/a.rs"}]}}"#,
            "\n",
        ),
    )
    .unwrap();
    let mut r = session::SessionRecord {
        transcript_path: Some(main),
        ..Default::default()
    };
    session::refresh(&mut r, &mut Vec::new(), None);
    let c: Counts = r.counts();
    assert_eq!(
        c.user_turns, 2,
        "a subagent's task prompt is not a human prompt"
    );
    assert_eq!(c.assistant_turns, 8);
    assert_eq!(c.subagent_assistant_turns, 1);
    assert_eq!(c.tool_use_count, 8);
    assert_eq!(c.subagent_tool_use_count, 1);
    assert_eq!(c.unique_tools(), vec!["Bash", "Edit", "Grep", "Read"]);
}

// ---------------------------------------------------------------------------------------
// Validation

fn seed_text() -> String {
    std::fs::read_to_string(seed_example_path()).unwrap()
}

fn issues_of(text: &str, stem: &str) -> Vec<Issue> {
    report::validate(text, Some(stem)).err().unwrap_or_default()
}

#[test]
fn the_seed_minimal_example_validates() {
    let r: Report = report::validate(&seed_text(), Some("kpt-20260208-001")).unwrap();
    assert_eq!(r.tries[0].addresses, vec!["prob-001"]);
    assert_eq!(r.metrics.unwrap().session_duration_turns, Some(23));
}

/// Each rule broken once gives exactly one issue naming the field path and YAML line.
#[test]
fn each_rule_broken_once_gives_its_precise_error() {
    let base = seed_text();
    let cases: &[(&str, &str, &str, u64, &str, &str)] = &[
        // (description, find, replace, line, path, message fragment)
        (
            "id pattern",
            "id: kpt-20260208-001",
            "id: kpt-2026-02-08-1",
            1,
            "id",
            "does not match the pattern",
        ),
        (
            "id vs file name",
            "id: kpt-20260208-001",
            "id: kpt-20260208-002",
            1,
            "id",
            "does not match the file name `kpt-20260208-001`",
        ),
        (
            "created_at",
            "created_at: 2026-02-08T15:00:00Z",
            "created_at: 2026/02/08 15:00",
            2,
            "created_at",
            "is not an ISO 8601 date-time",
        ),
        (
            "required field",
            "session_summary: \"認証ミドルウェアを実装した\"\n",
            "",
            1,
            "session_summary",
            "required field is missing",
        ),
        (
            "outcome enum",
            "outcome: partial",
            "outcome: mostly",
            6,
            "outcome",
            "`mostly` is not one of success, partial, failure",
        ),
        (
            "keep id",
            "id: keep-001",
            "id: keep-1",
            9,
            "keep[0].id",
            "does not match the pattern ^keep-[0-9]{3}$",
        ),
        (
            "keep category",
            "category: approach",
            "category: method",
            12,
            "keep[0].category",
            "`method` is not one of approach, tool_use, communication, architecture",
        ),
        (
            "keep required",
            "    evidence: \"ターン3-10でテスト先行、以降の修正指示ゼロ\"\n",
            "",
            9,
            "keep[0].evidence",
            "required field is missing",
        ),
        (
            "problem id",
            "prob-001",
            "problem-001",
            15,
            "problem[0].id",
            "does not match the pattern",
        ),
        (
            "impact enum",
            "impact: medium",
            "impact: big",
            17,
            "problem[0].impact",
            "`big` is not one of low, medium, high",
        ),
        (
            "problem category",
            "category: oversight",
            "category: bug",
            19,
            "problem[0].category",
            "`bug` is not one of error, inefficiency, misunderstanding, oversight, wrong_approach",
        ),
        (
            "try id",
            "id: try-001",
            "id: try-01",
            23,
            "try[0].id",
            "does not match the pattern",
        ),
        (
            "addresses reference",
            "addresses: [\"prob-001\"]",
            "addresses: [\"prob-002\"]",
            25,
            "try[0].addresses[0]",
            "`prob-002` names no problem or omission",
        ),
        (
            "scope enum",
            "scope: global",
            "scope: everywhere",
            26,
            "try[0].scope",
            "`everywhere` is not one of immediate, session, project, global",
        ),
        (
            "target type",
            "type: claude_md",
            "type: wiki",
            28,
            "try[0].persistence_target.type",
            "`wiki` is not one of claude_md, skill, hook, memory",
        ),
        (
            "omission id",
            "id: omit-001",
            "id: omission-1",
            33,
            "omission[0].id",
            "does not match the pattern",
        ),
        (
            "risk level",
            "risk_level: medium",
            "risk_level: severe",
            36,
            "omission[0].risk_level",
            "`severe` is not one of low, medium, high",
        ),
        (
            "unknown field",
            "  correction_count: 1",
            "  corection_count: 1",
            45,
            "metrics.corection_count",
            "unknown field (did you mean `correction_count`?)",
        ),
        (
            "wrong type",
            "  error_count: 2",
            "  error_count: two",
            44,
            "metrics.error_count",
            "expected a whole number, found a string",
        ),
        (
            "feedback id",
            "  enabled: false",
            "  enabled: true\n  generated_feedback_id: fb-1",
            49,
            "feedback_integration.generated_feedback_id",
            "does not match the pattern ^fb-[0-9]{8}-[0-9]{3}$",
        ),
        (
            "duplicate id",
            "    category: approach\n",
            "    category: approach\n  - id: keep-001\n    description: \"x\"\n    evidence: \"y\"\n    category: approach\n",
            13,
            "keep[1].id",
            "duplicate id `keep-001` (already used at keep[0].id)",
        ),
        (
            "yaml syntax",
            "task_goals:\n",
            "task_goals: [\n",
            0,
            "",
            "invalid YAML",
        ),
    ];
    for (what, find, replace, line, path, fragment) in cases {
        assert!(base.contains(find), "{what}: fixture lacks {find:?}");
        // The problem id is renamed where the try refers to it too.
        let text = if *what == "problem id" {
            base.replace(find, replace)
        } else {
            base.replacen(find, replace, 1)
        };
        // A malformed id is checked against a file of the same (malformed) name.
        let stem = if *what == "id pattern" {
            "kpt-2026-02-08-1"
        } else {
            "kpt-20260208-001"
        };
        let issues = issues_of(&text, stem);
        assert_eq!(issues.len(), 1, "{what}: {issues:#?}");
        let i = &issues[0];
        assert!(i.message.contains(fragment), "{what}: {i}");
        assert_eq!(i.path, *path, "{what}: {i}");
        if *line > 0 {
            assert_eq!(i.line, *line, "{what}: {i}");
        } else {
            assert!(i.line >= 3, "{what}: the syntax error names its line: {i}");
        }
    }
}

#[test]
fn all_errors_are_collected_not_just_the_first() {
    let text = seed_text()
        .replacen("outcome: partial", "outcome: mostly", 1)
        .replacen("scope: global", "scope: everywhere", 1)
        .replacen("risk_level: medium", "risk_level: severe", 1);
    let issues = issues_of(&text, "kpt-20260208-001");
    let lines: Vec<u64> = issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, vec![6, 26, 36]);
}

#[test]
fn cli_validate_reports_file_line_and_path_and_exits_1() {
    let env = TestEnv::new();
    let dir = env.dir.path().join("r");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("kpt-20260208-001.yaml");
    std::fs::write(
        &bad,
        seed_text().replacen("outcome: partial", "outcome: mostly", 1),
    )
    .unwrap();
    let out = env
        .oath()
        .args(["kpt", "validate"])
        .arg(&bad)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("kpt-20260208-001.yaml:6: outcome: `mostly` is not one of"),
        "{stderr}"
    );
    env.oath()
        .args(["kpt", "validate"])
        .arg(seed_example_path())
        .assert()
        .success();
    let schema = env.oath().args(["kpt", "schema"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&schema.get_output().stdout).unwrap();
    assert_eq!(v["properties"]["id"]["pattern"], "^kpt-[0-9]{8}-[0-9]{3}$");
    let fb = env
        .oath()
        .args(["kpt", "schema", "--feedback"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&fb.get_output().stdout).unwrap();
    assert!(
        v["required"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "task_summary")
    );
}

// ---------------------------------------------------------------------------------------
// Feedback and apply

fn report_copy(env: &TestEnv) -> PathBuf {
    let dir = env.home().join(".claude/hurikaeri");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("kpt-20260208-001.yaml");
    std::fs::copy(seed_example_path(), &p).unwrap();
    p
}

#[test]
fn feedback_maps_the_report_and_records_its_id_back() {
    let env = TestEnv::new();
    let rep = report_copy(&env);
    let out = env
        .oath()
        .env("OATH_NOW", "2026-02-09T08:00:00Z")
        .args(["kpt", "feedback"])
        .arg(&rep)
        .assert()
        .success();
    let fb_path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    assert_eq!(
        fb_path,
        env.home().join(".claude/feedback/fb-20260209-001.yaml")
    );
    let fb = feedback::validate(
        &std::fs::read_to_string(&fb_path).unwrap(),
        Some("fb-20260209-001"),
    )
    .unwrap();
    assert_eq!(fb.task_summary, "認証ミドルウェアを実装した");
    assert_eq!(fb.outcome.rationale, "認証ミドルウェアを実装した");
    assert!(!fb.outcome.success);
    assert_eq!(fb.outcome.score, Some(0.5));
    assert_eq!(fb.issues.len(), 1);
    let i = &fb.issues[0];
    assert_eq!(i.issue_id, "prob-001");
    assert_eq!(i.kind, feedback::IssueType::ExampleMissing);
    assert_eq!(i.severity, feedback::Severity::Medium);
    assert_eq!(i.target.kind, feedback::TargetKind::ClaudeMd);
    assert_eq!(i.target.path, "~/.claude/CLAUDE.md");
    assert_eq!(i.target.section.as_deref(), Some("## パッケージ管理"));
    assert_eq!(
        i.impact.as_deref(),
        Some("既存のpackage.jsonを事前確認しなかった")
    );
    assert_eq!(
        i.evidence_ref.as_deref(),
        Some("ターン12でnpm install実行、既存のjoseとの重複")
    );
    let a = &fb.proposed_actions[0];
    assert_eq!(a.scope, feedback::ActionScope::ClaudeMd);
    assert_eq!(
        a.change_summary,
        "新パッケージ追加前にpackage.jsonの既存依存を確認する"
    );
    assert_eq!(a.expected_impact, feedback::Severity::Medium);
    let stats = fb.stats.unwrap();
    assert_eq!((stats.tool_uses, stats.code_changes), (Some(42), Some(8)));
    assert_eq!(
        stats.collection_reason,
        feedback::CollectionReason::Hurikaeri
    );
    // The report now names the feedback and still validates; the rest of it is unchanged.
    let text = std::fs::read_to_string(&rep).unwrap();
    let r = report::validate(&text, Some("kpt-20260208-001")).unwrap();
    let fi = r.feedback_integration.unwrap();
    assert!(fi.enabled);
    assert_eq!(fi.generated_feedback_id.as_deref(), Some("fb-20260209-001"));
    assert!(text.starts_with(&seed_text()[..seed_text().find("feedback_integration:").unwrap()]));
    // A second conversion finds the first (`tests/it/kpt_apply.rs` has the details).
    let out = env
        .oath()
        .env("OATH_NOW", "2026-02-09T08:00:00Z")
        .args(["kpt", "feedback"])
        .arg(&rep)
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .trim()
            .ends_with("fb-20260209-001.yaml")
    );
}

#[test]
fn feedback_covers_all_five_categories_and_outcomes() {
    use feedback::IssueType as T;
    use oath::kpt::report::ProblemCategory as C;
    for (c, t) in [
        (C::Error, T::SkillIncorrect),
        (C::Oversight, T::ExampleMissing),
        (C::Misunderstanding, T::PromptUnclear),
        (C::Inefficiency, T::PatternMissing),
        (C::WrongApproach, T::SkillIncomplete),
    ] {
        assert_eq!(feedback::issue_type(c), t);
    }
    let mut r = report::validate(&seed_text(), Some("kpt-20260208-001")).unwrap();
    for (o, success, score) in [
        (report::Outcome::Success, true, 1.0),
        (report::Outcome::Partial, false, 0.5),
        (report::Outcome::Failure, false, 0.2),
    ] {
        r.outcome = o;
        let fb = feedback::from_report(
            &r,
            "fb-20260209-001",
            "2026-02-09T08:00:00Z",
            &Default::default(),
        );
        assert_eq!(
            (fb.outcome.success, fb.outcome.score),
            (success, Some(score))
        );
    }
    // memory targets become `other`; a try addressing only an omission takes its risk level.
    r.tries[0].persistence_target.as_mut().unwrap().kind = report::TargetType::Memory;
    r.tries[0].addresses = vec!["omit-001".into()];
    r.omission[0].risk_level = report::Level::High;
    let fb = feedback::from_report(
        &r,
        "fb-20260209-001",
        "2026-02-09T08:00:00Z",
        &Default::default(),
    );
    assert_eq!(fb.proposed_actions[0].scope, feedback::ActionScope::Other);
    assert_eq!(
        fb.proposed_actions[0].expected_impact,
        feedback::Severity::High
    );
    assert_eq!(fb.issues[0].target.kind, feedback::TargetKind::Other);
    assert_eq!(fb.issues[0].target.path, "");
    let text = oath::kpt::to_yaml(&fb).unwrap();
    feedback::validate(&text, Some("fb-20260209-001")).unwrap();
}

#[test]
fn invalid_feedback_is_refused_with_lines() {
    let text = "id: fb-20260209-001\ncreated_at: 2026-02-09T08:00:00Z\ntask_summary: x\noutcome:\n  success: maybe\n  rationale: r\nissues:\n  - issue_id: a\n    type: bug\n    description: d\n    target: {type: claude_md}\n    severity: high\n";
    let issues = feedback::validate(text, Some("fb-20260209-001")).unwrap_err();
    let got: Vec<(u64, &str)> = issues.iter().map(|i| (i.line, i.path.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (5, "outcome.success"),
            (9, "issues[0].type"),
            (11, "issues[0].target.path"),
        ],
        "{issues:#?}"
    );
}

#[test]
fn apply_shows_a_diff_writes_a_managed_block_once_and_describes_other_targets() {
    let env = TestEnv::new();
    let rep = report_copy(&env);
    let claude_md = env.home().join(".claude/CLAUDE.md");
    std::fs::write(
        &claude_md,
        "# Global\n\n## パッケージ管理\n\n- 既存ルール\n\n## Other\n\nx\n",
    )
    .unwrap();
    let before = std::fs::read_to_string(&claude_md).unwrap();
    let out = env
        .oath()
        .args(["kpt", "apply", "--dry-run"])
        .arg(&rep)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("+- 新パッケージ追加前にpackage.jsonの既存依存を確認する <!-- oath-kpt: kpt-20260208-001/try-001 -->"), "{stdout}");
    assert!(stdout.contains("dry run"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&claude_md).unwrap(), before);

    env.oath()
        .args(["kpt", "apply"])
        .arg(&rep)
        .assert()
        .success();
    let after = std::fs::read_to_string(&claude_md).unwrap();
    assert_eq!(
        after,
        "# Global\n\n## パッケージ管理\n\n- 既存ルール\n\n<!-- oath:kpt begin (managed by `oath kpt apply`) -->\n- 新パッケージ追加前にpackage.jsonの既存依存を確認する <!-- oath-kpt: kpt-20260208-001/try-001 -->\n<!-- oath:kpt end -->\n\n## Other\n\nx\n"
    );
    let out = env
        .oath()
        .args(["kpt", "apply"])
        .arg(&rep)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("already up to date"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&claude_md).unwrap(),
        after,
        "idempotent"
    );

    // Other target types are described, not applied.
    let skill = seed_text().replacen("type: claude_md", "type: skill", 1);
    std::fs::write(&rep, skill).unwrap();
    let out = env
        .oath()
        .args(["kpt", "apply"])
        .arg(&rep)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("would do: try-001: a skill target at ~/.claude/CLAUDE.md"),
        "{stdout}"
    );
}

#[test]
fn apply_creates_a_missing_file_and_section() {
    let env = TestEnv::new();
    let rep = report_copy(&env);
    env.oath()
        .args(["kpt", "apply"])
        .arg(&rep)
        .assert()
        .success();
    let text = std::fs::read_to_string(env.home().join(".claude/CLAUDE.md")).unwrap();
    assert!(
        text.starts_with("## パッケージ管理\n\n<!-- oath:kpt begin"),
        "{text}"
    );
}

#[test]
fn feedback_and_apply_refuse_an_unfinished_draft() {
    let env = TestEnv::new();
    let rep = report_copy(&env);
    let text = seed_text().replacen(
        "description: \"新パッケージ追加前にpackage.jsonの既存依存を確認する\"",
        "description: \"TODO(judgement): a concrete action\"",
        1,
    );
    std::fs::write(&rep, text).unwrap();
    for cmd in ["feedback", "apply"] {
        let out = env.oath().args(["kpt", cmd]).arg(&rep).assert().code(1);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(":24: try[0].description: still a TODO(judgement)"),
            "{stderr}"
        );
    }
    assert!(!env.home().join(".claude/CLAUDE.md").exists());
    assert!(!env.home().join(".claude/feedback").exists());
}
