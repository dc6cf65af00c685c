//! Shared helpers for integration tests: a hermetic environment for running `oath`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Returns the repository's `shared/` sibling folder holding fixtures.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// A temp HOME, state dir and project for one test.
pub struct TestEnv {
    /// Keeps the temp dir alive.
    pub dir: tempfile::TempDir,
}

impl TestEnv {
    /// Creates the environment with a project folder `project/` inside.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        Self { dir }
    }

    /// Returns the temp HOME.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Returns oath's state root (`OATH_HOME`).
    pub fn oath_home(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// Returns the project root.
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// Returns an `oath` command with a clean, hermetic environment.
    pub fn oath(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::cargo_bin("oath").expect("oath binary");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("OATH_HOME", self.oath_home())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .current_dir(self.project());
        cmd
    }
}

/// Helpers for the command-line tests: a fake `claude`, redacted output for snapshots.
impl TestEnv {
    /// Returns the folder prepended to PATH by [`TestEnv::oath_with_bin`].
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// Puts a fake `claude` on PATH that prints `claude --version` output (`None`: a `claude`
    /// that fails), so tests do not depend on a real Claude Code being installed.
    pub fn fake_claude(&self, version: Option<&str>) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(self.bin()).unwrap();
        let script = match version {
            Some(v) => format!("#!/bin/sh\necho '{v} (Claude Code)'\n"),
            None => "#!/bin/sh\nexit 1\n".to_owned(),
        };
        let p = self.bin().join("claude");
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Returns an `oath` command with [`TestEnv::bin`] first on PATH and the clock pinned.
    pub fn oath_with_bin(&self) -> assert_cmd::Command {
        let mut cmd = self.oath();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.bin()];
        paths.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(paths).unwrap())
            .env("OATH_NOW", "2026-03-01T12:00:00Z");
        cmd
    }

    /// Renders exit code, stdout and stderr as one string with temp paths and the binary's
    /// path redacted.
    pub fn render(&self, out: &std::process::Output) -> String {
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status.code().map_or("signal".into(), |c| c.to_string()),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.redact(&text)
    }

    /// Replaces the temp dir and the oath binary's path by placeholders.
    pub fn redact(&self, text: &str) -> String {
        let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_oath")).unwrap();
        let mut text = text.replace(&exe.display().to_string(), "[OATH]");
        let tmp = self.dir.path();
        if let Ok(canon) = std::fs::canonicalize(tmp) {
            text = text.replace(&canon.display().to_string(), "[TMP]");
        }
        text.replace(&tmp.display().to_string(), "[TMP]")
    }

    /// Returns the canonical path of the oath binary under test.
    pub fn oath_exe(&self) -> String {
        std::fs::canonicalize(env!("CARGO_BIN_EXE_oath"))
            .unwrap()
            .display()
            .to_string()
    }
}
