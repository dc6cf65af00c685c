//! The project's scripts: `scripts/install-claude.sh` says what it is doing before the long
//! download, and nothing when its cache already holds the client.

use std::path::Path;
use std::process::Command;

/// Runs a copy of the script in `root/scripts/` with `npm` stubbed by `bin/npm`.
fn run(root: &Path) -> (bool, String, String) {
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root.join("scripts/install-claude.sh"))
        .env("PATH", path)
        .env("OATH_E2E_CLAUDE_VERSION", "0.0.1-test")
        .output()
        .expect("bash runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn install_claude_says_what_it_downloads_before_npm_runs_and_nothing_when_cached() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return; // the script supports linux-x64 only, and says so
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::create_dir_all(root.join("bin")).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-claude.sh");
    std::fs::copy(&script, root.join("scripts/install-claude.sh")).unwrap();
    // A stub npm: notes its call on stderr and leaves the native binary where npm would.
    let npm = root.join("bin/npm");
    std::fs::write(
        &npm,
        "#!/bin/sh\necho \"stub npm $*\" >&2\n\
         d=node_modules/@anthropic-ai/claude-code-linux-x64\nmkdir -p $d\n\
         printf '#!/bin/sh\\necho \"0.0.1-test (Claude Code)\"\\n' > $d/claude\nchmod +x $d/claude\n",
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&npm).status().unwrap();

    let (ok, stdout, stderr) = run(root);
    assert!(ok, "{stderr}");
    assert!(
        stdout.trim_end().ends_with("claude-code-linux-x64/claude"),
        "{stdout}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    let npm_at = lines.iter().position(|l| l.starts_with("stub npm install"));
    let said_at = lines
        .iter()
        .position(|l| l.contains("installing Claude Code 0.0.1-test") && l.contains("MB"));
    assert!(
        matches!((said_at, npm_at), (Some(s), Some(n)) if s < n),
        "the download is announced before npm runs:\n{stderr}"
    );

    // Cached: the same path, no download, nothing said.
    let (ok, again, stderr) = run(root);
    assert!(ok, "{stderr}");
    assert_eq!(again, stdout);
    assert!(!stderr.contains("stub npm"), "{stderr}");
    assert!(!stderr.contains("installing"), "{stderr}");
}
