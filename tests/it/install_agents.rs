//! `oath install --agent codex|gemini`, `oath uninstall --agent …` and `oath doctor` for
//! those clients (issue 31), on real files: the guarantees of Claude Code's install (backups,
//! the last three kept, idempotence, the rest of the file kept byte for byte, exact
//! uninstall), Codex's hook trust written through its app server, and doctor's report.
//!
//! Codex's app server is played by a small Python program (`FAKE_CODEX`) that answers
//! `initialize`, `hooks/list` (keys `<file>:<event>:<group>:<handler>`, a hash of each
//! hook's event, matcher, command and timeout, the trust read from `config.toml`) and
//! `config/batchWrite` (appending `[hooks.state."<key>"] trusted_hash` to `config.toml`).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::TestEnv;

/// Codex's app server as far as oath uses it.
const FAKE_CODEX: &str = r#"#!/usr/bin/env python3
import hashlib, json, os, sys, tomllib
if sys.argv[1:] != ["app-server"]:
    sys.exit(1)
home = os.environ.get("CODEX_HOME") or os.path.join(os.environ["HOME"], ".codex")
hooks_path = os.path.join(home, "hooks.json")
config = os.path.join(home, "config.toml")
def snake(e):
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(e))
def state():
    try:
        with open(config, "rb") as f:
            return tomllib.load(f).get("hooks", {}).get("state", {})
    except FileNotFoundError:
        return {}
def listed():
    try:
        doc = json.load(open(hooks_path))
    except FileNotFoundError:
        return []
    st, out = state(), []
    for ev, groups in doc.get("hooks", {}).items():
        for g, group in enumerate(groups):
            for h, hd in enumerate(group.get("hooks", [])):
                key = f"{hooks_path}:{snake(ev)}:{g}:{h}"
                ident = json.dumps([snake(ev), group.get("matcher"), hd.get("command"), hd.get("timeout", 600)])
                cur = "sha256:" + hashlib.sha256(ident.encode()).hexdigest()
                t = st.get(key, {}).get("trusted_hash")
                status = "untrusted" if t is None else ("trusted" if t == cur else "modified")
                out.append({"key": key, "eventName": snake(ev), "command": hd.get("command"),
                            "sourcePath": hooks_path, "currentHash": cur, "trustStatus": status,
                            "enabled": st.get(key, {}).get("enabled", True)})
    return out
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m, p = msg["method"], msg.get("params") or {}
    if m == "initialize":
        res = {}
    elif m == "hooks/list":
        res = {"data": [{"cwd": c, "hooks": listed(), "warnings": [], "errors": []} for c in p["cwds"]]}
    elif m == "config/batchWrite":
        text = open(config).read() if os.path.exists(config) else ""
        for e in p["edits"]:
            assert e["keyPath"] == "hooks.state" and e["mergeStrategy"] == "upsert", e
            for k, v in e["value"].items():
                text += f'\n[hooks.state.{json.dumps(k)}]\ntrusted_hash = {json.dumps(v["trusted_hash"])}\n'
        open(config, "w").write(text)
        res = {"status": "ok", "version": "1", "filePath": config}
    else:
        print(json.dumps({"id": msg["id"], "error": {"code": -32601, "message": "unknown"}}), flush=True)
        continue
    print(json.dumps({"id": msg["id"], "result": res}), flush=True)
"#;

/// A Codex `hooks.json` the user already has: an own hook in an event oath uses, another
/// event, unicode, a number spelled `1.0`.
const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "~/bin/guard.sh", "timeout": 1.0}
        ]
      }
    ],
    "PermissionRequest": [{"hooks": [{"type": "command", "command": "notify-send 'Codex ✓'"}]}]
  },
  "note": "héllo 🚀"
}
"#;

/// The user's `config.toml`, comments and layout included.
const CODEX_CONFIG: &str = "# my Codex\nmodel = \"gpt-5.5\"    # the model\napproval_policy = \"never\"\n\n[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:mine\"\n";

/// A Gemini `settings.json` the user already has.
const GEMINI_SETTINGS: &str = r#"{
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": false},
    "hooks": {
        "BeforeTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "~/bin/check.sh", "timeout": 2e3}]}
        ]
    },
    "general": {"enableAutoUpdate": false, "greeting": "\u00e9"}
}
"#;

const CODEX_EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
];
const GEMINI_EVENTS: [&str; 6] = [
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
];

/// The test's PATH: its `bin/` (a fake `codex` when put there), then only the folders of
/// `sh` and `python3`, so a `codex` or `gemini` installed on this machine is never found.
fn path(env: &TestEnv) -> std::ffi::OsString {
    let mut dirs = vec![env.bin()];
    for prog in ["sh", "python3"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .find(|d| d.join(prog).is_file());
        if let Some(d) = found
            && !dirs.contains(&d)
        {
            dirs.push(d);
        }
    }
    std::env::join_paths(dirs).unwrap()
}

fn oath(env: &TestEnv, args: &[&str]) -> Output {
    std::fs::create_dir_all(env.bin()).unwrap();
    env.oath_with_bin()
        .env("PATH", path(env))
        .args(args)
        .output()
        .unwrap()
}

fn ok(env: &TestEnv, args: &[&str]) -> String {
    let out = oath(env, args);
    assert!(out.status.success(), "{args:?}: {}", env.render(&out));
    env.render(&out)
}

fn fake_codex(env: &TestEnv) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(env.bin()).unwrap();
    let p = env.bin().join("codex");
    std::fs::write(&p, FAKE_CODEX).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn has_python() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The backups of one file (`<name>.oath-backup-<stamp>` next to it), sorted.
fn backups(file: &Path) -> Vec<PathBuf> {
    let prefix = format!(
        "{}.oath-backup-",
        file.file_name().unwrap().to_string_lossy()
    );
    let mut v: Vec<PathBuf> = std::fs::read_dir(file.parent().unwrap())
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
    });
    v.sort();
    v
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&read(p)).unwrap()
}

/// `(event, matcher, command, timeout)` of every handler running `<oath> hook --agent`.
fn oath_handlers(v: &Value, exe: &str) -> Vec<(String, Value, String, u64)> {
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let cmd = h["command"].as_str().unwrap_or("");
                if cmd.starts_with(&format!("{exe} hook --agent")) {
                    out.push((
                        event.clone(),
                        g["matcher"].clone(),
                        cmd.to_owned(),
                        h["timeout"].as_u64().unwrap(),
                    ));
                }
            }
        }
    }
    out
}

fn codex_files(env: &TestEnv) -> (PathBuf, PathBuf) {
    let dir = env.home().join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    (dir.join("hooks.json"), dir.join("config.toml"))
}

#[test]
fn codex_install_trusts_its_hooks_and_uninstall_gives_both_files_back() {
    if !has_python() {
        eprintln!("skipped: python3 with tomllib is needed for the fake Codex app server");
        return;
    }
    let env = TestEnv::new();
    fake_codex(&env);
    let (hooks, config) = codex_files(&env);
    std::fs::write(&hooks, CODEX_HOOKS).unwrap();
    std::fs::write(&config, CODEX_CONFIG).unwrap();
    let exe = env.oath_exe();

    let out = ok(&env, &["install", "--agent", "codex"]);
    assert!(out.contains("trusted oath's 6 hooks in Codex"), "{out}");
    let v = json(&hooks);
    let regs = oath_handlers(&v, &exe);
    let events: Vec<&str> = regs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(events, CODEX_EVENTS, "{regs:?}");
    for (event, matcher, cmd, timeout) in &regs {
        assert_eq!(cmd, &format!("{exe} hook --agent codex"));
        let tool_event = event.ends_with("ToolUse");
        assert_eq!(
            matcher,
            &if tool_event {
                json!("Bash|apply_patch")
            } else {
                Value::Null
            }
        );
        // Seconds.
        assert!((5..=120).contains(timeout), "{event}: {timeout}");
    }
    // The user's hook, other event and key keep their text.
    let text = read(&hooks);
    for kept in [
        r#"{"type": "command", "command": "~/bin/guard.sh", "timeout": 1.0}"#,
        r#""PermissionRequest": [{"hooks": [{"type": "command", "command": "notify-send 'Codex ✓'"}]}]"#,
        r#""note": "héllo 🚀""#,
    ] {
        assert!(text.contains(kept), "{kept} lost:\n{text}");
    }
    // The trust: the user's text first, then one entry per hook of oath, keyed at its place.
    let cfg = read(&config);
    assert!(cfg.starts_with(CODEX_CONFIG), "{cfg}");
    assert_eq!(cfg.matches("trusted_hash").count(), 7, "{cfg}");
    assert!(
        cfg.contains(&format!("{}:pre_tool_use:1:0", hooks.display())),
        "oath's group comes after the user's: {cfg}"
    );
    assert_eq!(backups(&hooks).len(), 1);
    assert_eq!(backups(&config).len(), 1);

    // Idempotent: nothing changes, nothing is backed up.
    let out = ok(&env, &["install", "--agent", "codex"]);
    assert!(
        out.contains("already up to date") && out.contains("already trusts"),
        "{out}"
    );
    assert_eq!(read(&hooks), text);
    assert_eq!(read(&config), cfg);
    assert_eq!(backups(&hooks).len(), 1);

    // Doctor: registered and active.
    let out = env.render(&oath(&env, &["doctor"]));
    assert!(
        out.contains("Codex CLI") && out.contains("oath registered and trusted (6 hooks, active)"),
        "{out}"
    );
    assert!(!out.contains("FAIL  Codex"), "{out}");

    // Uninstall: both files as they were, byte for byte.
    ok(&env, &["uninstall", "--agent", "codex"]);
    assert_eq!(read(&hooks), CODEX_HOOKS);
    assert_eq!(read(&config), CODEX_CONFIG);
    // And a second uninstall has nothing to do.
    let out = ok(&env, &["uninstall", "--agent", "codex"]);
    assert!(out.contains("oath is not registered there"), "{out}");
    assert_eq!(read(&config), CODEX_CONFIG);
}

#[test]
fn codex_without_codex_on_path_names_the_step_and_doctor_reports_it() {
    let env = TestEnv::new();
    let (hooks, config) = codex_files(&env);
    let out = ok(&env, &["install", "--agent", "codex"]);
    assert!(
        out.contains("ONE STEP LEFT") && out.contains("/hooks"),
        "{out}"
    );
    assert_eq!(oath_handlers(&json(&hooks), &env.oath_exe()).len(), 6);
    assert!(!config.exists(), "nothing trusted, config.toml untouched");
    assert!(
        backups(&hooks).is_empty(),
        "the file did not exist: no backup"
    );

    // Registered but not trusted: doctor fails with the step.
    let out = oath(&env, &["doctor"]);
    let text = env.render(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "FAIL  Codex CLI: oath is registered but 6 of its 6 hooks have no trusted hash"
        ) && text.contains("type /hooks"),
        "{text}"
    );
    if !has_python() {
        return;
    }
    // Codex's own view through its app server says the same.
    fake_codex(&env);
    let text = env.render(&oath(&env, &["doctor"]));
    assert!(
        text.contains("FAIL  Codex CLI: oath is registered but not trusted")
            && text.contains("(untrusted)"),
        "{text}"
    );
    // Installing again with Codex at hand trusts the hooks; doctor is then content.
    ok(&env, &["install", "--agent", "codex"]);
    let text = env.render(&oath(&env, &["doctor"]));
    assert!(
        text.contains("oath registered and trusted (6 hooks, active)"),
        "{text}"
    );
    // A changed command is untrusted again (Codex's hash follows the hook).
    let edited = read(&hooks).replace("--agent codex\"", "--agent codex \"");
    std::fs::write(&hooks, edited).unwrap();
    let text = env.render(&oath(&env, &["doctor"]));
    assert!(text.contains("(modified)"), "{text}");
    // Uninstall removes the file install created and the config.toml it made.
    std::fs::write(
        &hooks,
        read(&hooks).replace("--agent codex \"", "--agent codex\""),
    )
    .unwrap();
    ok(&env, &["uninstall", "--agent", "codex"]);
    assert!(!hooks.exists(), "install created it");
    assert!(!config.exists(), "only oath's trust was in it");
}

#[test]
fn codex_is_user_scope_only_and_follows_codex_home() {
    let env = TestEnv::new();
    let out = oath(&env, &["install", "--agent", "codex", "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(env.render(&out).contains("user scope only"));
    assert!(!env.project().join(".codex").exists());

    // A dry run shows the change and the trust step, and writes nothing.
    let out = ok(&env, &["install", "--agent", "codex", "--dry-run"]);
    assert!(
        out.contains("would change") && out.contains("would then trust") && out.contains("/hooks"),
        "{out}"
    );
    assert!(!env.home().join(".codex").exists());

    let codex_home = env.dir.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let out = env
        .oath_with_bin()
        .env("PATH", path(&env))
        .env("CODEX_HOME", &codex_home)
        .args(["install", "--agent", "codex"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert!(codex_home.join("hooks.json").is_file());
    assert!(!env.home().join(".codex/hooks.json").exists());
}

#[test]
fn gemini_user_install_is_idempotent_and_uninstall_is_exact() {
    let env = TestEnv::new();
    let file = env.home().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, GEMINI_SETTINGS).unwrap();
    let exe = env.oath_exe();

    let out = ok(&env, &["install", "--agent", "gemini"]);
    assert!(out.contains("added 6 hooks"), "{out}");
    let v = json(&file);
    let regs = oath_handlers(&v, &exe);
    let events: Vec<&str> = regs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(events, GEMINI_EVENTS, "{regs:?}");
    for (event, matcher, cmd, timeout) in &regs {
        assert_eq!(cmd, &format!("{exe} hook --agent gemini"));
        let tool_event = event.ends_with("Tool");
        assert_eq!(matcher, &if tool_event { json!(".*") } else { Value::Null });
        // Milliseconds.
        assert!((5_000..=120_000).contains(timeout), "{event}: {timeout}");
    }
    let text = read(&file);
    for kept in [
        r#""security": {"auth": {"selectedType": "gemini-api-key"}},"#,
        r#"{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "~/bin/check.sh", "timeout": 2e3}]}"#,
        r#""general": {"enableAutoUpdate": false, "greeting": "\u00e9"}"#,
        "\n    \"privacy\"",
    ] {
        assert!(text.contains(kept), "{kept} lost:\n{text}");
    }
    assert_eq!(backups(&file).len(), 1);
    assert_eq!(read(&backups(&file)[0]), GEMINI_SETTINGS);

    let out = ok(&env, &["install", "--agent", "gemini"]);
    assert!(out.contains("already up to date"), "{out}");
    assert_eq!(read(&file), text);
    assert_eq!(backups(&file).len(), 1);

    // A dry run shows the change and writes nothing.
    let out = ok(&env, &["uninstall", "--agent", "gemini", "--dry-run"]);
    assert!(out.contains("would change"), "{out}");
    assert_eq!(read(&file), text);

    ok(&env, &["uninstall", "--agent", "gemini"]);
    assert_eq!(read(&file), GEMINI_SETTINGS);
    // Claude Code's settings were never touched.
    assert!(!env.home().join(".claude").exists());
}

#[test]
fn gemini_backups_keep_the_last_three_over_cycles() {
    let env = TestEnv::new();
    let file = env.home().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for round in 1..=5 {
        std::fs::write(&file, format!("{{\n  \"round\": {round}\n}}\n")).unwrap();
        ok(&env, &["install", "--agent", "gemini"]);
        ok(&env, &["uninstall", "--agent", "gemini"]);
        assert_eq!(read(&file), format!("{{\n  \"round\": {round}\n}}\n"));
        assert!(
            backups(&file).len() <= 3,
            "round {round}: {:?}",
            backups(&file)
        );
    }
    assert_eq!(backups(&file).len(), 3);
}

#[test]
fn codex_backups_keep_the_last_three_over_cycles() {
    let env = TestEnv::new();
    let (hooks, _) = codex_files(&env);
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    for round in 1..=5 {
        let text = format!("{{\n  \"hooks\": {{}},\n  \"round\": {round}\n}}\n");
        std::fs::write(&hooks, &text).unwrap();
        ok(&env, &["install", "--agent", "codex"]);
        ok(&env, &["uninstall", "--agent", "codex"]);
        assert_eq!(read(&hooks), text);
        assert!(
            backups(&hooks).len() <= 3,
            "round {round}: {:?}",
            backups(&hooks)
        );
    }
    assert_eq!(backups(&hooks).len(), 3);
}

#[test]
fn gemini_project_install_creates_the_file_and_says_how_gemini_trusts_it() {
    let env = TestEnv::new();
    let file = env.project().join(".gemini/settings.json");
    let out = ok(&env, &["install", "--agent", "gemini", "--project"]);
    assert!(out.contains("trusted_hooks.json"), "{out}");
    assert_eq!(oath_handlers(&json(&file), &env.oath_exe()).len(), 6);
    let out = oath(&env, &["install", "--agent", "gemini", "--local"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    ok(&env, &["uninstall", "--agent", "gemini", "--project"]);
    assert!(!file.exists(), "install created it and only oath was in it");
}

#[test]
fn doctor_reports_gemini_absent_registered_and_switched_off() {
    let env = TestEnv::new();
    // Absent: no ~/.gemini and no `gemini` on PATH: not mentioned.
    let text = env.render(&oath(&env, &["doctor"]));
    assert!(
        !text.contains("Gemini CLI") && !text.contains("Codex CLI"),
        "{text}"
    );

    // Found, oath not registered: said, not a failure of its own.
    let dir = env.home().join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let text = env.render(&oath(&env, &["doctor"]));
    assert!(text.contains("Gemini CLI: oath not registered"), "{text}");
    assert!(!text.contains("FAIL  Gemini"), "{text}");

    // Registered and active.
    ok(&env, &["install", "--agent", "gemini"]);
    let out = oath(&env, &["doctor"]);
    let text = env.render(&out);
    assert!(
        text.contains("oath registered for all 6 events")
            && text.contains("hooks enabled (oath active)"),
        "{text}"
    );
    assert!(
        !text.contains("oath is not registered in any settings file"),
        "registered with Gemini is registered: {text}"
    );

    // Hooks switched off: registered but not active.
    let file = dir.join("settings.json");
    let v = read(&file).replacen('{', "{\n  \"hooksConfig\": {\"enabled\": false},", 1);
    std::fs::write(&file, v).unwrap();
    let out = oath(&env, &["doctor"]);
    let text = env.render(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL  Gemini CLI") && text.contains("`hooksConfig.enabled` is false"),
        "{text}"
    );
    assert!(!text.contains("oath active"), "{text}");
}

#[test]
fn an_invalid_client_file_is_reported_and_never_written() {
    let env = TestEnv::new();
    let file = env.home().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"hooks\": {\"BeforeTool\": {}}}\n").unwrap();
    let out = oath(&env, &["install", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(
        env.render(&out)
            .contains("`hooks.BeforeTool` is not an array")
    );
    assert_eq!(read(&file), "{\"hooks\": {\"BeforeTool\": {}}}\n");
    assert!(backups(&file).is_empty());
}

#[test]
fn a_codex_app_server_that_fails_leaves_the_step_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let (hooks, config) = codex_files(&env);
    std::fs::create_dir_all(env.bin()).unwrap();
    let fake = env.bin().join("codex");
    std::fs::write(&fake, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ok(&env, &["install", "--agent", "codex"]);
    assert!(
        out.contains("could not trust its hooks through `codex app-server`")
            && out.contains("ONE STEP LEFT"),
        "{out}"
    );
    assert_eq!(oath_handlers(&json(&hooks), &env.oath_exe()).len(), 6);
    assert!(!config.exists());
    let out = oath(&env, &["doctor"]);
    let text = env.render(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL  Codex CLI: cannot ask `codex app-server`")
            && text.contains("type /hooks"),
        "{text}"
    );
}
