//! `oath install` / `oath uninstall` on real settings files.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::TestEnv;

/// A settings file as a user might have it: other keys, own hooks (also in an event oath
/// uses), unicode, nested objects, 1.0 next to 1, keys out of alphabetical order. Written as
/// 2-space pretty JSON, as Claude Code writes it.
const RICH: &str = r#"{
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": []
  },
  "zeta": 1.0,
  "alpha": 1,
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/guard.sh \"$CLAUDE_PROJECT_DIR\"",
            "timeout": 30
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude ✓ 完了'"
          }
        ]
      }
    ]
  },
  "env": {
    "GREETING": "héllo wörld 🚀",
    "nested": {
      "deep": {
        "list": [
          1,
          2.5,
          -3,
          null,
          true,
          {}
        ]
      }
    }
  },
  "statusLine": {
    "type": "command",
    "command": "echo \"\\u2713\""
  }
}
"#;

pub(crate) fn settings(env: &TestEnv) -> PathBuf {
    env.project().join(".claude/settings.json")
}

pub(crate) fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.to_string_lossy().contains(".oath-backup-"));
    v.sort();
    v
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn oath_handlers(v: &Value, exe: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let cmd = h["command"].as_str().unwrap_or("");
                if cmd == exe || cmd.starts_with(&format!("{exe} ")) {
                    out.push((event.clone(), h.clone()));
                }
            }
        }
    }
    out
}

const EVENTS: [&str; 9] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PostToolBatch",
    "PermissionDenied",
];

#[test]
fn install_keeps_everything_else_and_uninstall_restores_the_file_exactly() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    let exe = env.oath_exe();

    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));

    let v = read_json(&file);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["permissions", "zeta", "alpha", "hooks", "env", "statusLine"]
    );
    let orig = read_json_str(RICH);
    for k in ["permissions", "zeta", "alpha", "env", "statusLine"] {
        assert_eq!(v[k], orig[k], "{k} changed");
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"zeta\": 1.0,") && text.contains("\"alpha\": 1,"));
    assert!(text.contains("héllo wörld 🚀") && text.contains("Claude ✓ 完了"));
    // The user's hooks are untouched and first.
    assert_eq!(v["hooks"]["PreToolUse"][0], orig["hooks"]["PreToolUse"][0]);
    assert_eq!(v["hooks"]["Notification"], orig["hooks"]["Notification"]);
    // One exec-form handler per event, by absolute path, with explicit timeouts.
    let handlers = oath_handlers(&v, &exe);
    let mut events: Vec<&str> = handlers.iter().map(|(e, _)| e.as_str()).collect();
    events.sort();
    let mut want = EVENTS.to_vec();
    want.sort();
    assert_eq!(events, want);
    for (event, h) in &handlers {
        assert_eq!(h["type"], "command");
        assert_eq!(h["args"], json!(["hook"]));
        assert!(Path::new(h["command"].as_str().unwrap()).is_absolute());
        let t = h["timeout"].as_u64().unwrap();
        match event.as_str() {
            "PreToolUse" => assert_eq!(t, 10),
            "SessionEnd" => assert_eq!(t, 5),
            "PostToolUse" | "PostToolUseFailure" => assert!(t > 60, "{t}"),
            _ => assert!(t <= 30),
        }
    }
    // Backed up before the change.
    let b = backups(file.parent().unwrap());
    assert_eq!(b.len(), 1);
    assert_eq!(std::fs::read_to_string(&b[0]).unwrap(), RICH);

    // A second run changes nothing and makes no new backup.
    let installed = std::fs::read_to_string(&file).unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("already up to date"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);
    assert_eq!(backups(file.parent().unwrap()).len(), 1);

    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), RICH);
    assert!(
        !env.project()
            .join(".claude/commands/quick-save.md")
            .exists()
    );
}

fn read_json_str(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn uninstall_is_exact_for_pretty_json_even_without_the_backup() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    for b in backups(file.parent().unwrap()) {
        std::fs::remove_file(b).unwrap();
    }
    env.oath_with_bin()
        .args(["uninstall", "--project"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), RICH);
}

#[test]
fn a_file_install_created_is_removed_again() {
    let env = TestEnv::new();
    env.fake_claude(None);
    let file = env.project().join(".claude/settings.local.json");
    env.oath_with_bin()
        .args(["install", "--local"])
        .assert()
        .success();
    let v = read_json(&file);
    assert_eq!(v.as_object().unwrap().len(), 1, "only hooks: {v}");
    assert_eq!(oath_handlers(&v, &env.oath_exe()).len(), EVENTS.len());
    env.oath_with_bin()
        .args(["uninstall", "--local"])
        .assert()
        .success();
    assert!(!file.exists());
}

#[test]
fn hooks_object_and_arrays_the_user_had_stay_even_when_empty() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let original = "{\n    \"hooks\": {\n        \"Stop\": []\n    }\n}";
    std::fs::write(&file, original).unwrap();
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    let installed = std::fs::read_to_string(&file).unwrap();
    assert!(
        installed.contains("\n        \"Stop\": ["),
        "4-space indent kept:\n{installed}"
    );
    assert!(!installed.ends_with('\n'));
    for b in backups(file.parent().unwrap()) {
        std::fs::remove_file(b).unwrap();
    }
    env.oath_with_bin()
        .args(["uninstall", "--project"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    // A unified diff adding the exec form's arguments.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with('+') && l[1..].trim_start().starts_with("\"args\": [")),
        "{stdout}"
    );
    assert!(stdout.lines().any(|l| l.starts_with("@@ -")), "{stdout}");
    assert!(stdout.contains("Dry run: nothing was written."));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), RICH);
    assert!(backups(file.parent().unwrap()).is_empty());
    assert!(!env.project().join(".claude/commands").exists());
    assert!(!env.oath_home().join("installs").exists());
}

#[test]
fn invalid_settings_are_reported_and_never_overwritten() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for bad in [
        "{\n  \"model\": \"opus\",\n}\n",
        "[1, 2]\n",
        "{\"hooks\": []}\n",
        "{\"hooks\": {\"PreToolUse\": {\"matcher\": \"*\"}}}\n",
    ] {
        std::fs::write(&file, bad).unwrap();
        let out = env
            .oath_with_bin()
            .args(["install", "--project"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("error:") && stderr.contains("hint:"),
            "{stderr}"
        );
        assert!(stderr.contains("oath did not change it"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), bad);
        assert!(backups(file.parent().unwrap()).is_empty());
    }
    std::fs::write(&file, "{\n  \"model\": \"opus\",\n}\n").unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    insta::assert_snapshot!("install_invalid_json", env.render(&out));
}

#[test]
fn older_claude_code_gets_the_shell_form_and_a_warning() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.5"));
    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("predates the PostToolUseFailure hook"),
        "{}",
        env.render(&out)
    );
    let v = read_json(&settings(&env));
    let exe = env.oath_exe();
    let h = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(h["command"], format!("{exe} hook"));
    assert!(h.get("args").is_none());
    // Upgrading Claude Code and installing again switches to exec form in place.
    env.fake_claude(Some("2.1.200"));
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    let v = read_json(&settings(&env));
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": exe, "args": ["hook"], "timeout": 10}]}])
    );
    env.oath_with_bin()
        .args(["uninstall", "--project"])
        .assert()
        .success();
    assert!(!settings(&env).exists());
}

#[test]
fn user_scope_honours_claude_config_dir_and_is_the_default() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let cfg = env.dir.path().join("claude-config");
    env.oath_with_bin()
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .arg("install")
        .assert()
        .success();
    let v = read_json(&cfg.join("settings.json"));
    assert_eq!(oath_handlers(&v, &env.oath_exe()).len(), EVENTS.len());
    assert!(cfg.join("commands/quick-load.md").exists());
    assert!(!env.home().join(".claude").exists());
    assert!(!settings(&env).exists());
}

#[test]
fn slash_commands_call_oath_and_a_changed_one_is_kept() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let dir = env.project().join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("quick-load.md"), "my own quick-load\n").unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("quick-load.md exists and differs"));
    assert_eq!(
        std::fs::read_to_string(dir.join("quick-load.md")).unwrap(),
        "my own quick-load\n"
    );
    let save = std::fs::read_to_string(dir.join("quick-save.md")).unwrap();
    assert!(
        save.contains(&format!("`{} status --oneline`", env.oath_exe())),
        "{save}"
    );
    assert!(save.contains("### Trust State"));
    assert!(dir.join("hurikaeri.md").exists());
    // A command changed after install is kept by uninstall, an unchanged one removed.
    std::fs::write(dir.join("hurikaeri.md"), "edited\n").unwrap();
    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!dir.join("quick-save.md").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("hurikaeri.md")).unwrap(),
        "edited\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("quick-load.md")).unwrap(),
        "my own quick-load\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("hurikaeri.md was changed"));
}

#[test]
fn the_registered_command_answers_a_real_payload() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    let v = read_json(&settings(&env));
    let h = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    let args: Vec<String> = h["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let payload = json!({
        "session_id": "s1", "cwd": env.project(), "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": env.project().join("a.txt")},
        "tool_use_id": "toolu_1"
    });
    let out = assert_cmd::Command::new(h["command"].as_str().unwrap())
        .args(&args)
        .env_clear()
        .env("HOME", env.home())
        .env("OATH_HOME", env.oath_home())
        .env("CLAUDE_PROJECT_DIR", env.project())
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    // And doctor agrees the installation works.
    let out = env.oath_with_bin().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
}

#[test]
fn doctor_fails_when_oath_is_not_registered() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let out = env.oath_with_bin().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FAIL  oath is not registered"), "{stdout}");
    assert!(stdout.contains("fix: run `oath install`"), "{stdout}");
    // A registered binary that is gone is named, with the fix.
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let gone = env.dir.path().join("gone/oath");
    std::fs::write(
        &file,
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": gone, "args": ["hook"]}]}]}})
            .to_string(),
    )
    .unwrap();
    let out = env.oath_with_bin().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("doctor_missing_binary", env.render(&out));
    // Install replaces the missing binary in place, and doctor is then happy.
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    let v = read_json(&file);
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"hooks": [{"type": "command", "command": env.oath_exe(), "args": ["hook"], "timeout": 10}]}])
    );
    env.oath_with_bin().arg("doctor").assert().success();
}

#[test]
fn permissions_and_symlinks_are_respected() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    // A dotfiles-style symlink to the real file, which is group-readable.
    let real = env.dir.path().join("dotfiles/settings.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, RICH).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    env.oath_with_bin()
        .args(["install", "--user"])
        .assert()
        .success();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(
        oath_handlers(&read_json(&real), &env.oath_exe()).len(),
        EVENTS.len()
    );
    env.oath_with_bin()
        .args(["uninstall", "--user"])
        .assert()
        .success();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), RICH);
}

#[test]
fn an_empty_settings_file_comes_back_empty() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "").unwrap();
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    assert_eq!(
        oath_handlers(&read_json(&file), &env.oath_exe()).len(),
        EVENTS.len()
    );
    env.oath_with_bin()
        .args(["uninstall", "--project"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "");
}

#[test]
fn uninstall_without_install_records_removes_only_oath_handlers() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    // oath's state is gone (and with it the record of what install created).
    std::fs::remove_dir_all(env.oath_home()).unwrap();
    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let v = read_json(&file);
    assert!(oath_handlers(&v, &env.oath_exe()).is_empty());
    let orig = read_json_str(RICH);
    assert_eq!(v["hooks"]["PreToolUse"], orig["hooks"]["PreToolUse"]);
    assert_eq!(v["hooks"]["Notification"], orig["hooks"]["Notification"]);
    // Arrays it cannot prove install created stay, empty.
    assert_eq!(v["hooks"]["Stop"], json!([]));
    for k in ["permissions", "zeta", "alpha", "env", "statusLine"] {
        assert_eq!(v[k], orig[k]);
    }
}

#[test]
fn uninstall_where_oath_is_not_registered_changes_nothing() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("oath is not registered there"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), RICH);
    assert!(backups(file.parent().unwrap()).is_empty());
}

#[test]
fn another_oath_registration_is_reported() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let original = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "oath hook"}]}]}});
    std::fs::write(&file, original.to_string()).unwrap();
    let out = env
        .oath_with_bin()
        .args(["install", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("also registers another oath (oath)"),
        "{stderr}"
    );
    // The hand-made handler is the user's: install leaves it, uninstall too.
    env.oath_with_bin()
        .args(["uninstall", "--project"])
        .assert()
        .success();
    assert_eq!(read_json(&file), original);
    let out = env.oath_with_bin().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"oath\" is not an absolute path"));
}

#[test]
fn scopes_exclude_each_other_and_uninstall_dry_run_writes_nothing() {
    let env = TestEnv::new();
    env.fake_claude(Some("2.1.197"));
    let out = env
        .oath_with_bin()
        .args(["install", "--user", "--project"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));

    let file = settings(&env);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, RICH).unwrap();
    env.oath_with_bin()
        .args(["install", "--project"])
        .assert()
        .success();
    let installed = std::fs::read_to_string(&file).unwrap();
    let out = env
        .oath_with_bin()
        .args(["uninstall", "--project", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with('-') && l[1..].trim_start().starts_with("\"args\": [")),
        "{stdout}"
    );
    assert!(stdout.contains("quick-save.md to remove"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);
    assert!(
        env.project()
            .join(".claude/commands/quick-save.md")
            .exists()
    );
    assert_eq!(backups(file.parent().unwrap()).len(), 1);
}

#[test]
fn versions_between_the_known_ones_get_a_softer_warning() {
    for (version, warning) in [
        ("2.1.20", Some("may predate the PostToolUseFailure hook")),
        ("2.1.10", Some("predates the PostToolUseFailure hook")),
        ("2.1.33", None),
    ] {
        let env = TestEnv::new();
        env.fake_claude(Some(version));
        let out = env
            .oath_with_bin()
            .args(["install", "--project"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        match warning {
            Some(w) => assert!(stderr.contains(w), "{version}: {stderr}"),
            None => assert!(
                !stderr.contains("PostToolUseFailure"),
                "{version}: {stderr}"
            ),
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!(
                "Claude Code {version} found: registering the shell form"
            )),
            "{stdout}"
        );
    }
}

#[test]
fn the_bare_binary_answers_a_payload_like_oath_hook() {
    // What an older Claude Code does with an exec-form handler: run `command` without `args`.
    let env = TestEnv::new();
    let payload = json!({
        "session_id": "s1", "cwd": env.project(), "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": env.project().join("a.txt")},
        "tool_use_id": "toolu_1"
    });
    let out = env
        .oath()
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
}
