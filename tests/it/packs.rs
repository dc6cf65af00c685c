//! Rule packs through the binary: a user's pack teaches oath a made-up CLI (what `oath
//! explain` shows and what the hook answers change, PostToolUse crediting what PreToolUse
//! decided), a broken pack changes nothing, and `oath rules` lists, shows and checks packs.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::TestEnv;

/// A pack for `acme`, a CLI no built-in pack knows.
const ACME: &str = r#"pack: acme
about: the team's deployment tool
programs:
  - name: acme
    about: deploys and inspects our services
    sub:
      - name: [status, logs]
        rules:
          - id: acme-read
            explain: "acme {sub} only reads"
            act: remote.read
      - name: deploy
        rules:
          - when: {option: [--destroy]}
            id: acme-destroy
            explain: acme deploy --destroy tears the environment down
            act: remote.destroy
            safer: acme deploy --plan
          - id: acme-deploy
            explain: acme deploy changes what is live
            act: infra.deploy
    rules:
      - id: acme-change
        explain: "acme {arg0} changes our services"
        act: remote.change
"#;

/// The golden cases that go with it.
const ACME_GOLDEN: &str = r#"- command: "acme status"
  effects: ["act(remote.read)"]
  rules: [acme-read]
- command: "acme deploy --destroy"
  effects: ["act(remote.destroy)"]
  rules: [acme-destroy]
  risk: high
- command: "sudo acme logs"
  effects: ["act(remote.read)", "act(privilege.elevate)"]
"#;

fn packs_dir(env: &TestEnv) -> PathBuf {
    env.home().join(".config/oath/packs")
}

fn explain(env: &TestEnv, cmd: &str) -> Value {
    let out = env
        .oath()
        .args(["explain", "--json", cmd])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("one JSON object")
}

fn decide(env: &TestEnv, cmd: &str) -> Option<String> {
    let run = env.hook(&json!({
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": cmd},
        "tool_use_id": format!("toolu_{}", cmd.len()),
        "cwd": env.project(),
    }));
    crate::support::assert_valid_answer(&run, Some("PreToolUse"), cmd);
    run.decision()
}

#[test]
fn a_user_pack_changes_explain_and_the_hook() {
    let env = TestEnv::new();
    // Without the pack: an unknown program; a word that destroys is asked, the rest is
    // medium whatever its words (no opinion).
    let before = explain(&env, "acme deploy --destroy");
    assert_eq!(before["classification"]["rule"], "unknown-program-destroys");
    assert_eq!(before["classification"]["kind"], "irreversible");
    let before = explain(&env, "acme deploy --prod");
    assert_eq!(before["classification"]["rule"], "unknown-program");
    assert_eq!(before["classification"]["risk"], "medium");
    assert_eq!(decide(&env, "acme status"), None, "no opinion");

    std::fs::create_dir_all(packs_dir(&env)).unwrap();
    std::fs::write(packs_dir(&env).join("acme.yaml"), ACME).unwrap();

    let after = explain(&env, "acme deploy --destroy");
    let c = &after["classification"];
    assert_eq!(c["rule"], "acme-destroy");
    assert_eq!(c["risk"], "high");
    assert_eq!(c["alternative"], "acme deploy --plan");
    assert_eq!(c["parts"][0]["effect"], "act(remote.destroy)");
    assert!(
        c["parts"][0]["source"]
            .as_str()
            .is_some_and(|s| s.contains("acme (user pack)")),
        "{c}"
    );
    // A read the pack states is allowed at the initial trust; it was not before.
    assert_eq!(decide(&env, "acme status").as_deref(), Some("allow"));
    assert_eq!(explain(&env, "acme logs")["classification"]["risk"], "low");
}

#[test]
fn an_outcome_is_classified_with_the_users_packs_as_its_decision_was() {
    let env = TestEnv::new();
    std::fs::create_dir_all(packs_dir(&env)).unwrap();
    std::fs::write(packs_dir(&env).join("acme.yaml"), ACME).unwrap();
    let call = |event: &str, id: &str| {
        json!({"session_id": "s-out", "hook_event_name": event, "tool_name": "Bash",
               "tool_input": {"command": "acme status"}, "tool_use_id": id, "cwd": env.project(),
               "tool_response": {"stdout": "", "stderr": "", "interrupted": false}})
    };
    for event in ["PreToolUse", "PostToolUse"] {
        let run = env.hook(&call(event, "toolu_acme"));
        crate::support::assert_valid_answer(&run, Some(event), event);
        assert!(run.stderr.is_empty(), "{event}: {}", run.stderr);
    }
    let text = std::fs::read_to_string(env.audit_file("s-out")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (pre, out) = (&records[0], &records[1]);
    assert_eq!(
        (pre["kind"].as_str(), out["kind"].as_str()),
        (Some("pre"), Some("outcome"))
    );
    assert_eq!(pre["rule"], "acme-read", "{pre}");
    // The outcome counts for the domain the decision used (without the user's packs,
    // PostToolUse saw a program no pack describes).
    assert_ne!(pre["domain"], "unknown", "{pre}");
    assert_eq!(out["domain"], pre["domain"], "{out}");
    assert_eq!(out["trust_level"], pre["risk_category"], "{out}");
    assert_eq!(out["trust_applied"], true, "{out}");
    // A pack that does not load warns in PostToolUse as it does in PreToolUse.
    std::fs::write(packs_dir(&env).join("broken.yaml"), "pack: [").unwrap();
    let run = env.hook(&call("PostToolUse", "toolu_b"));
    crate::support::assert_valid_answer(&run, Some("PostToolUse"), "broken pack");
    assert!(run.stderr.contains("broken.yaml"), "{}", run.stderr);
}

#[test]
fn a_user_pack_adds_to_a_built_in_program() {
    let env = TestEnv::new();
    assert_eq!(
        explain(&env, "make deploy")["classification"]["rule"],
        "build"
    );
    std::fs::create_dir_all(packs_dir(&env)).unwrap();
    std::fs::write(
        packs_dir(&env).join("ours.yaml"),
        "pack: ours\nprograms:\n  - name: make\n    sub:\n      - name: deploy\n        rules: [{id: make-deploy, explain: make deploy ships to production, act: infra.deploy}]\n    rules: [{id: build, explain: make builds, act: build.run}]\n",
    )
    .unwrap();
    let c = &explain(&env, "make deploy")["classification"];
    assert_eq!(c["rule"], "make-deploy");
    assert_eq!(c["risk"], "high");
}

#[test]
fn a_user_pack_never_removes_the_protection_of_a_built_in_one() {
    let env = TestEnv::new();
    std::fs::create_dir_all(packs_dir(&env)).unwrap();
    // A pattern that takes `rm` for a harmless program, and an entry for git that says
    // reset only reads: the built-in rules still hold.
    std::fs::write(
        packs_dir(&env).join("loose.yaml"),
        "pack: loose\nprograms:\n  - name: \"r*\"\n    options: any\n    rules: [{id: r-read, explain: reads, act: shell.harmless, data: args}]\n  - name: git\n    options: any\n    sub:\n      - name: reset\n        rules: [{id: reset-read, explain: reads, act: vcs.read, data: args}]\n      - name: hello\n        rules: [{id: git-hello, explain: git hello says hello, act: vcs.read}]\n    rules: [{id: git-mine, explain: mine, act: vcs.read, data: args}]\n",
    )
    .unwrap();
    for (cmd, want) in [("rm -rf ~", "deny"), ("git reset --hard", "ask")] {
        let c = &explain(&env, cmd)["classification"];
        let decision = decide(&env, cmd);
        assert_eq!(decision.as_deref(), Some(want), "{cmd}: {c}");
    }
    // What the user's pack knows and the built-in one does not is knowledge it adds: the
    // subcommand is understood (a read, allowed from the start).
    let c = &explain(&env, "git hello")["classification"];
    assert_eq!(c["kind"], "reversible", "{c}");
    assert_eq!(decide(&env, "git hello").as_deref(), Some("allow"));
}

#[test]
fn rules_check_refuses_a_misspelled_language_and_names_what_it_merges() {
    let env = TestEnv::new();
    let dir = env.home().join("work");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("py.yaml");
    std::fs::write(
        &bad,
        "pack: py\nprograms:\n  - name: python\n    handler: interpreter\n    lang: pyhton\n",
    )
    .unwrap();
    let out = env
        .oath()
        .args(["rules", "check"])
        .arg(&bad)
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("pyhton"), "{err}");
    let good = dir.join("ours.yaml");
    std::fs::write(
        &good,
        "pack: ours\nprograms:\n  - name: git\n    sub:\n      - name: hello\n        rules: [{id: git-read, explain: git hello says hello, act: vcs.read}]\n    rules: [{id: mine, explain: one thing, act: vcs.read}]\n    also: [{id: mine, explain: another thing, act: vcs.read}]\n",
    )
    .unwrap();
    let out = env
        .oath()
        .args(["rules", "check"])
        .arg(&good)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("also described by the built-in `git` pack"),
        "{text}"
    );
    assert!(
        text.contains("rule id `mine` is used by rules that say different things"),
        "{text}"
    );
    assert!(
        text.contains("rule id `git-read` is also a built-in rule's id"),
        "{text}"
    );
}

#[test]
fn a_broken_user_pack_is_skipped_with_a_warning_and_changes_nothing() {
    let env = TestEnv::new();
    std::fs::create_dir_all(packs_dir(&env)).unwrap();
    // `rm` "reads" in this pack, but it does not parse: the built-in rm holds.
    std::fs::write(
        packs_dir(&env).join("bad.yaml"),
        "pack: bad\nprograms:\n  - name: rm\n    rules: [{id: rm-read, explain: x, act: nonsense.read}]\n",
    )
    .unwrap();
    let out = env
        .oath()
        .args(["explain", "--json", "rm -rf ~"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "deny");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.yaml") && stderr.contains("skipped"),
        "{stderr}"
    );
    assert_eq!(decide(&env, "rm -rf ~").as_deref(), Some("deny"));
}

#[test]
fn the_agent_cannot_write_a_user_pack() {
    let env = TestEnv::new();
    let pack = packs_dir(&env).join("x.yaml");
    let c = &explain(&env, &format!("echo x > {}", pack.display()))["classification"];
    assert_eq!(c["rule"], "oath-self-protect");
    assert_eq!(c["risk"], "critical");
}

#[test]
fn rules_check_validates_a_pack_and_runs_its_golden_file() {
    let env = TestEnv::new();
    let dir = env.dir.path().join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("acme.yaml"), ACME).unwrap();
    std::fs::write(dir.join("acme.golden.yaml"), ACME_GOLDEN).unwrap();
    let out = env
        .oath()
        .args(["rules", "check"])
        .arg(dir.join("acme.yaml"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains("is valid") && out.contains("all 3 cases hold"),
        "{out}"
    );

    // A golden case that does not hold fails the check and names the case.
    std::fs::write(
        dir.join("acme.golden.yaml"),
        "- command: \"acme status\"\n  effects: [\"act(remote.destroy)\"]\n",
    )
    .unwrap();
    let out = env
        .oath()
        .args(["rules", "check"])
        .arg(dir.join("acme.yaml"))
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(
        err.contains("acme status") && err.contains("remote.read"),
        "{err}"
    );
}

#[test]
fn rules_check_names_the_line_of_a_mistake() {
    let env = TestEnv::new();
    let file = env.dir.path().join("typo.yaml");
    std::fs::write(
        &file,
        "pack: typo\nprograms:\n  - name: acme\n    rules:\n      - id: acme-x\n        explain: x\n        act: remote.raed\n",
    )
    .unwrap();
    let out = env
        .oath()
        .args(["rules", "check"])
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("line 7"), "{err}");
    assert!(
        err.contains("remote.raed") && err.contains("remote.read"),
        "{err}"
    );
}

#[test]
fn rules_list_and_show() {
    let env = TestEnv::new();
    let list = env.oath().args(["rules", "list"]).assert().success();
    let list = String::from_utf8_lossy(&list.get_output().stdout).into_owned();
    for pack in ["git", "coreutils", "kubernetes", "aws"] {
        assert!(list.contains(pack), "{list}");
    }
    let git = env.oath().args(["rules", "list", "git"]).assert().success();
    let git = String::from_utf8_lossy(&git.get_output().stdout).into_owned();
    assert!(
        git.contains("git-reset-hard") && git.contains("› reset"),
        "{git}"
    );
    let show = env
        .oath()
        .args(["rules", "show", "git-push-force"])
        .assert()
        .success();
    let show = String::from_utf8_lossy(&show.get_output().stdout).into_owned();
    assert!(show.contains("force-with-lease"), "{show}");
    env.oath()
        .args(["rules", "show", "no-such-rule"])
        .assert()
        .code(1);
    env.oath().args(["rules", "list", "acme"]).assert().code(1);
}
