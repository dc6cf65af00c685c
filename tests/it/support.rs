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
