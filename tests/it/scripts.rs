//! The project's scripts: each `scripts/install-*.sh` says what it is doing before the long
//! download, and nothing when its cache already holds the client.

use std::path::Path;
use std::process::Command;

/// One install script, with a stub npm that leaves what the real one would.
struct Script {
    /// File name in `scripts/`.
    name: &'static str,
    /// The variable that sets the version to install.
    version_var: &'static str,
    /// The stub npm's shell commands (run in the cache folder), after it notes its call.
    npm: &'static str,
    /// How the path printed on stdout ends.
    prints: &'static str,
    /// What the announcement before npm runs says.
    says: &'static str,
}

const SCRIPTS: [Script; 3] = [
    Script {
        name: "install-claude.sh",
        version_var: "OATH_E2E_CLAUDE_VERSION",
        npm: "d=node_modules/@anthropic-ai/claude-code-linux-x64\nmkdir -p $d\n\
              printf '#!/bin/sh\\necho \"0.0.1-test (Claude Code)\"\\n' > $d/claude\nchmod +x $d/claude\n",
        prints: "claude-code-linux-x64/claude",
        says: "installing Claude Code 0.0.1-test",
    },
    Script {
        name: "install-codex.sh",
        version_var: "OATH_E2E_CODEX_VERSION",
        npm: "d=node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin\n\
              mkdir -p $d\nprintf '#!/bin/sh\\necho \"codex-cli 0.0.1-test\"\\n' > $d/codex\n\
              chmod +x $d/codex\n",
        prints: "x86_64-unknown-linux-musl/bin/codex",
        says: "installing Codex CLI 0.0.1-test",
    },
    Script {
        name: "install-gemini.sh",
        version_var: "OATH_E2E_GEMINI_VERSION",
        npm: "d=node_modules/@google/gemini-cli\nmkdir -p $d/bundle\n\
              printf '{\\n  \"name\": \"@google/gemini-cli\",\\n  \"version\": \"0.0.1-test\"\\n}\\n' > $d/package.json\n\
              echo '// gemini' > $d/bundle/gemini.js\n",
        prints: "gemini-cli/bundle/gemini.js",
        says: "installing Gemini CLI 0.0.1-test",
    },
];

/// Runs a copy of the script in `root/scripts/` with `npm` stubbed by `bin/npm`.
fn run(root: &Path, script: &Script) -> (bool, String, String) {
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root.join("scripts").join(script.name))
        .env("PATH", path)
        .env(script.version_var, "0.0.1-test")
        .output()
        .expect("bash runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn install_scripts_say_what_they_download_before_npm_runs_and_nothing_when_cached() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return; // the scripts support linux-x64 only, and say so
    }
    for script in &SCRIPTS {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scripts")
            .join(script.name);
        std::fs::copy(&source, root.join("scripts").join(script.name)).unwrap();
        // A stub npm: notes its call on stderr and leaves the client where npm would.
        let npm = root.join("bin/npm");
        std::fs::write(
            &npm,
            format!("#!/bin/sh\necho \"stub npm $*\" >&2\n{}", script.npm),
        )
        .unwrap();
        // And a stub node of the version install-gemini.sh asks for, whatever this machine has.
        let node = root.join("bin/node");
        std::fs::write(&node, "#!/bin/sh\necho 22\n").unwrap();
        Command::new("chmod")
            .arg("+x")
            .arg(&npm)
            .arg(&node)
            .status()
            .unwrap();

        let (ok, stdout, stderr) = run(root, script);
        assert!(ok, "{}: {stderr}", script.name);
        assert!(
            stdout.trim_end().ends_with(script.prints),
            "{}: {stdout}",
            script.name
        );
        let lines: Vec<&str> = stderr.lines().collect();
        let npm_at = lines.iter().position(|l| l.starts_with("stub npm install"));
        let said_at = lines
            .iter()
            .position(|l| l.contains(script.says) && l.contains("a minute or more"));
        assert!(
            matches!((said_at, npm_at), (Some(s), Some(n)) if s < n),
            "{}: the download is announced before npm runs:\n{stderr}",
            script.name
        );

        // Cached: the same path, no download, nothing said.
        let (ok, again, stderr) = run(root, script);
        assert!(ok, "{}: {stderr}", script.name);
        assert_eq!(again, stdout, "{}", script.name);
        assert!(!stderr.contains("stub npm"), "{}: {stderr}", script.name);
        assert!(!stderr.contains("installing"), "{}: {stderr}", script.name);
    }
}
