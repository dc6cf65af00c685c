//! `oath kpt apply` writes only CLAUDE.md-family files, through symlinks, keeping mode, line
//! endings and byte-order mark; `oath kpt feedback` converts a report once.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::TestEnv;

/// Writes the seed's report with its try aimed at `target` into the user's hurikaeri folder.
fn report_aimed_at(env: &TestEnv, target: &str) -> PathBuf {
    let seed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/kpt/kpt-20260208-001.yaml"),
    )
    .unwrap();
    let text = seed.replace(
        "path: ~/.claude/CLAUDE.md",
        &format!("path: {}", serde_json::to_string(target).unwrap()),
    );
    assert_ne!(text, seed, "the seed names ~/.claude/CLAUDE.md");
    let dir = env.home().join(".claude/hurikaeri");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("kpt-20260208-001.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn apply(env: &TestEnv, report: &Path) -> String {
    let out = env
        .oath()
        .current_dir(env.project())
        .args(["kpt", "apply"])
        .arg(report)
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

const ITEM: &str = "新パッケージ追加前にpackage.jsonの既存依存を確認する";

#[test]
fn apply_refuses_targets_that_are_not_claude_md_files() {
    let env = TestEnv::new();
    let bashrc = env.home().join(".bashrc");
    std::fs::write(&bashrc, "export PATH=$PATH\n").unwrap();
    let outside = env.home().join("elsewhere/CLAUDE.md");
    for target in [
        "~/.bashrc".to_owned(),
        bashrc.display().to_string(),
        outside.display().to_string(),
        "../CLAUDE.md".to_owned(),
        "src/../../CLAUDE.md".to_owned(),
        "notes/AGENTS.md".to_owned(),
        "~/.claude/settings.json".to_owned(),
    ] {
        let rep = report_aimed_at(&env, &target);
        let stdout = apply(&env, &rep);
        assert!(stdout.contains("not applied"), "{target}: {stdout}");
    }
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export PATH=$PATH\n"
    );
    assert!(!outside.exists());
    assert!(!env.project().parent().unwrap().join("CLAUDE.md").exists());
    assert!(!env.project().join("notes").exists());

    // The family is accepted: project, its .claude/, local, a subfolder, and the user's.
    for (target, file) in [
        ("CLAUDE.md", env.project().join("CLAUDE.md")),
        (".claude/CLAUDE.md", env.project().join(".claude/CLAUDE.md")),
        ("CLAUDE.local.md", env.project().join("CLAUDE.local.md")),
        ("web/CLAUDE.md", env.project().join("web/CLAUDE.md")),
        ("~/.claude/CLAUDE.md", env.home().join(".claude/CLAUDE.md")),
    ] {
        let rep = report_aimed_at(&env, target);
        apply(&env, &rep);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(text.contains(ITEM), "{target}: {text}");
    }
}

#[test]
fn apply_writes_through_a_symlink_and_keeps_mode_line_endings_and_bom() {
    let env = TestEnv::new();
    let real = env.project().join("AGENTS.md");
    std::fs::write(
        &real,
        "\u{feff}# Agents\r\n\r\n## パッケージ管理\r\n\r\n- 既存ルール\r\n",
    )
    .unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o664)).unwrap();
    let link = env.project().join("CLAUDE.md");
    std::os::unix::fs::symlink("AGENTS.md", &link).unwrap();

    let rep = report_aimed_at(&env, "CLAUDE.md");
    let stdout = apply(&env, &rep);
    assert!(stdout.contains("is a symlink"), "{stdout}");

    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.contains(ITEM), "{text}");
    assert!(text.starts_with('\u{feff}'), "byte-order mark kept");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "every line ends with CRLF: {text:?}"
    );
    assert!(text.starts_with("\u{feff}# Agents\r\n\r\n## パッケージ管理\r\n\r\n- 既存ルール\r\n"));
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o664);

    // Applied twice: nothing changes.
    let again = apply(&env, &rep);
    assert!(again.contains("already up to date"), "{again}");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), text);
}

#[test]
fn a_new_claude_md_gets_the_usual_mode() {
    let env = TestEnv::new();
    let rep = report_aimed_at(&env, "CLAUDE.md");
    apply(&env, &rep);
    let mode = std::fs::metadata(env.project().join("CLAUDE.md"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_ne!(mode, 0o600, "not the temp file's private mode");
    assert_eq!(mode & 0o644, 0o644, "{mode:o}");
}

#[test]
fn feedback_converts_a_report_once() {
    let env = TestEnv::new();
    let rep = report_aimed_at(&env, "~/.claude/CLAUDE.md");
    let run = || {
        let out = env
            .oath()
            .env("OATH_NOW", "2026-02-09T08:00:00Z")
            .args(["kpt", "feedback"])
            .arg(&rep)
            .assert()
            .success();
        PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim())
    };
    let first = run();
    let report_after_first = std::fs::read_to_string(&rep).unwrap();
    let feedback_after_first = std::fs::read_to_string(&first).unwrap();
    let second = run();
    assert_eq!(first, second);
    let dir = env.home().join(".claude/feedback");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "one feedback file"
    );
    assert_eq!(std::fs::read_to_string(&rep).unwrap(), report_after_first);
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        feedback_after_first
    );
    // Deleted, it is written again under the same id.
    std::fs::remove_file(&first).unwrap();
    assert_eq!(run(), first);
    assert!(first.exists());
}
