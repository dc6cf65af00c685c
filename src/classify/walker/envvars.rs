//! Environment variables a command is given (`NAME=value cmd`, `env NAME=value cmd`,
//! `export NAME=value`): the ones that make programs run, load or redirect other code are
//! judged like the code they name. Everything else (`RUST_LOG=debug`, `CI=1`) is harmless.

use crate::shell::{Simple, Word};

use super::super::effect::{Code, Effect};
use super::super::pack::schema::{Act, PathNote};
use super::Walker;

/// Variables whose value is a command some program runs (with arguments appended).
const COMMANDS: &[&str] = &[
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "FCEDIT",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "GH_PAGER",
    "BROWSER",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
    "PROMPT_COMMAND",
    "RSYNC_RSH",
    "CVS_RSH",
];

/// Prompt strings: the shell expands them each time it prompts (PS4: for each traced command
/// of `bash -x`), command substitutions included.
const PROMPTS: &[&str] = &["PS0", "PS1", "PS2", "PS3", "PS4"];

/// Values of those variables that run nothing of note.
const HARMLESS_COMMANDS: &[&str] = &[
    "",
    "true",
    ":",
    "cat",
    "less",
    "less -R",
    "less -FRX",
    "more",
    "head",
    "tail",
    "vi",
    "vim",
    "nano",
    "nvim",
    "emacs",
    "code --wait",
    "ssh",
];

/// Variables whose value is a program or a script file that is run.
const FILES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "GIT_SSH",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "PYTHONSTARTUP",
];

/// Variables that load libraries or code into every program started
/// (pytest's plugins by module name, vim's start-up commands).
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "GIT_EXEC_PATH",
    "ZDOTDIR",
    "GIT_TEMPLATE_DIR",
    "PYTEST_PLUGINS",
    "VIMINIT",
    "GVIMINIT",
    "EXINIT",
    "PERL5DB",
];

/// Variables that set git configuration (which can name programs git runs) or point git at
/// another repository or tree.
const GIT_CONFIG: &[&str] = &[
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
];

/// Variables whose value is a compiler, linker or wrapper a build runs (with arguments);
/// `CARGO_TARGET_<triple>_RUNNER` and `_LINKER` too.
const TOOL_COMMANDS: &[&str] = &[
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "RUSTC",
    "CARGO_BUILD_RUSTC",
    "RUSTDOC",
    "CARGO_BUILD_RUSTDOC",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "FC",
    "HOSTCC",
];

/// Compilers, linkers and caches those variables usually name (looked up in `PATH`, or in a
/// system folder), also with a version (`gcc-12`) or a target (`aarch64-linux-gnu-gcc`).
const USUAL_TOOLS: &[&str] = &[
    "sccache", "ccache", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "rustdoc", "ld",
    "lld", "ld.lld", "ld.gold", "mold", "ar", "llvm-ar", "cpp", "gfortran", "musl-gcc",
];

/// Variables that send a package manager, a module proxy or an SDK to another source of
/// packages, code or API answers, with the values that name the usual source.
const SOURCES: &[(&str, &[&str])] = &[
    ("NPM_CONFIG_REGISTRY", NPM),
    ("YARN_REGISTRY", NPM),
    ("YARN_NPM_REGISTRY_SERVER", NPM),
    ("BUN_CONFIG_REGISTRY", NPM),
    ("PIP_INDEX_URL", PYPI),
    ("PIP_EXTRA_INDEX_URL", PYPI),
    ("PIP_FIND_LINKS", &[]),
    ("PIP_TRUSTED_HOST", &[]),
    ("PIP_CONFIG_FILE", &[]),
    ("UV_INDEX_URL", PYPI),
    ("UV_EXTRA_INDEX_URL", PYPI),
    ("UV_DEFAULT_INDEX", PYPI),
    ("UV_INDEX", PYPI),
    ("UV_FIND_LINKS", &[]),
    (
        "GOPROXY",
        &[
            "https://proxy.golang.org",
            "https://proxy.golang.org,direct",
            "direct",
            "off",
        ],
    ),
    ("GOSUMDB", &["sum.golang.org"]),
    ("GONOSUMDB", &[]),
    ("GONOSUMCHECK", &[]),
    ("GOINSECURE", &[]),
];
const NPM: &[&str] = &["https://registry.npmjs.org", "https://registry.npmjs.org/"];
const PYPI: &[&str] = &["https://pypi.org/simple", "https://pypi.org/simple/"];

/// npm settings from the environment (`npm_config_*`, any case) that change only how npm
/// reports and saves, not where it fetches from or what it runs.
const NPM_HARMLESS: &[&str] = &[
    "LOGLEVEL",
    "PROGRESS",
    "FUND",
    "AUDIT",
    "UPDATE_NOTIFIER",
    "YES",
    "COLOR",
    "SAVE_EXACT",
    "LEGACY_PEER_DEPS",
    "ENGINE_STRICT",
];

/// Interpreter option variables, with the options in them that load code.
const INTERPRETER_OPTIONS: &[(&str, &[&str])] = &[
    (
        "NODE_OPTIONS",
        &[
            "--require",
            "-r",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
    ),
    ("PERL5OPT", &["-M", "-m"]),
    ("RUBYOPT", &["-r"]),
    (
        "JAVA_TOOL_OPTIONS",
        &["-javaagent", "-agentpath", "-agentlib"],
    ),
    ("_JAVA_OPTIONS", &["-javaagent", "-agentpath", "-agentlib"]),
    // go: -toolexec and -exec run a program for each tool or binary, -overlay swaps files.
    (
        "GOFLAGS",
        &[
            "-toolexec",
            "--toolexec",
            "-exec",
            "--exec",
            "-overlay",
            "--overlay",
        ],
    ),
    // rustc: the linker it runs, and what is passed to it.
    (
        "RUSTFLAGS",
        &["-Clinker", "linker=", "-Clink-arg", "link-arg", "-Zplugin"],
    ),
    (
        "RUSTDOCFLAGS",
        &["-Clinker", "linker=", "-Clink-arg", "link-arg"],
    ),
    (
        "JDK_JAVA_OPTIONS",
        &["-javaagent", "-agentpath", "-agentlib"],
    ),
];

impl Walker<'_> {
    /// `PATH=DIR:$PATH`: the programs the line names are looked up in DIR first, so one may
    /// be a file the agent just wrote there. Folders of the project or a temporary directory
    /// put before the inherited `$PATH` are judged as running a script from them; folders of
    /// the system and the home (written only through gated writes) and those appended after
    /// `$PATH` change nothing of note.
    fn path_first(&mut self, s: &Simple, v: &str) {
        for entry in v.split(':') {
            if matches!(entry, "$PATH" | "${PATH}") {
                break;
            }
            let home = self.ctx.home().map(|h| h.display().to_string());
            let expanded = match (
                entry
                    .strip_prefix("$HOME")
                    .or_else(|| entry.strip_prefix("${HOME}"))
                    .or_else(|| entry.strip_prefix('~')),
                home,
            ) {
                (Some(rest), Some(h)) => format!("{h}{rest}"),
                _ => entry.to_owned(),
            };
            if expanded.is_empty() || super::BIN_DIRS.contains(&expanded.as_str()) {
                continue;
            }
            let mut word = Word::lit(expanded);
            word.literal = !word.text.contains(['$', '`']);
            let judged = !word.literal || {
                let tg = self.target(&word);
                tg.in_project() || tg.zone == super::super::paths::Zone::Temp
            };
            if judged {
                let f = self.run_file(
                    &word,
                    &format!("PATH puts {entry} first, so the line may run programs from"),
                );
                self.push(&s.text, f);
            }
        }
    }

    /// Judges one assignment given to the commands of `s`.
    pub(super) fn assignment(&mut self, s: &Simple, name: &str, value: &Word, depth: usize) {
        let v = value.text.as_str();
        // `cd NAME` searches the folders of CDPATH from here on.
        if name == "CDPATH" && !(value.literal && v.is_empty()) {
            self.cd_searches = true;
        }
        let not_understood =
            |what: &str| format!("{name}={} {what}", v.chars().take(60).collect::<String>());
        if COMMANDS.contains(&name) {
            if value.literal && HARMLESS_COMMANDS.contains(&v.trim()) {
                return;
            }
            if value.literal {
                self.line(v, depth + 1);
            } else {
                let f = self.own(
                    &Effect::Run(Code::Computed),
                    "run",
                    "",
                    &format!("{name} names a command computed at run time, which"),
                );
                self.push(&s.text, f);
            }
        } else if TOOL_COMMANDS.contains(&name)
            || name.starts_with("CARGO_TARGET_")
                && (name.ends_with("_RUNNER") || name.ends_with("_LINKER"))
        {
            if value.literal && v.split_whitespace().all(usual_tool) {
                return;
            }
            if value.literal {
                self.line(v, depth + 1);
            } else {
                let f = self.own(
                    &Effect::Run(Code::Computed),
                    "run",
                    "",
                    &format!("{name} names a compiler or wrapper computed at run time, which"),
                );
                self.push(&s.text, f);
            }
        } else if PROMPTS.contains(&name) {
            if v.contains("$(") || v.contains('`') {
                // Judged as the shell expands it: in double quotes.
                let quoted = v.replace('\\', "\\\\").replace('"', "\\\"");
                self.line(&format!(": \"{quoted}\""), depth + 1);
            }
        } else if super::envconfig::is_config_variable(name) {
            self.config_variable(s, name, value, depth);
        } else if let Some(why) = redirects(name, value) {
            let f = self.own(
                &Effect::NotUnderstood,
                "env-redirects",
                &not_understood(why),
                "",
            );
            self.push(&s.text, f);
        } else if FILES.contains(&name) {
            if v.is_empty() {
                return;
            }
            let verb = format!("{name} makes programs run");
            let f = self.run_script(s, value, &verb, super::RunAs::Shell, depth);
            self.push(&s.text, f);
        } else if name == "PATH" {
            self.path_first(s, v);
        } else if LOADS_CODE.contains(&name) {
            if v.is_empty() {
                return;
            }
            let why = not_understood(
                "loads code into the programs it starts: oath cannot tell what runs",
            );
            let f = self.own(&Effect::NotUnderstood, "env-loads-code", &why, "");
            self.push(&s.text, f);
        } else if GIT_CONFIG.contains(&name)
            || name.starts_with("GIT_CONFIG_KEY_")
            || name.starts_with("GIT_CONFIG_VALUE_")
        {
            let why = not_understood(
                "sets git's configuration or repository from the environment (it can name programs git runs)",
            );
            let f = self.own(&Effect::Act(Act::VcsConfigure), "git-config-env", &why, "");
            self.push(&s.text, f);
        } else if matches!(name, "CARGO_TARGET_DIR" | "CARGO_BUILD_TARGET_DIR") && !v.is_empty() {
            // cargo builds into that folder, and `cargo clean` deletes it.
            let t = self.target(value);
            let f = self.own(
                &Effect::Write(t, Some(PathNote::CreatesDirectory)),
                "cargo-target-dir",
                "",
                &format!("{name} makes cargo build into (and cargo clean delete)"),
            );
            self.push(&s.text, f);
        } else if name.starts_with("GIT_TRACE") && v.contains('/') {
            let t = self.target(value);
            let f = self.own(
                &Effect::Write(t, None),
                "git-trace-file",
                "",
                &format!("{name} makes git write its trace to"),
            );
            self.push(&s.text, f);
        } else if let Some((_, opts)) = INTERPRETER_OPTIONS.iter().find(|(n, _)| *n == name)
            && (!value.literal
                || v.split_whitespace()
                    .any(|w| opts.iter().any(|o| w.starts_with(o))))
        {
            let why = not_understood(
                "gives the program options that make it load or run other code: oath cannot tell what runs",
            );
            let f = self.own(&Effect::NotUnderstood, "env-loads-code", &why, "");
            self.push(&s.text, f);
        }
    }

    /// Judges `NAME=value` words (of `env`, `export`, `declare -x`).
    pub(super) fn assignment_words(&mut self, s: &Simple, words: &[Word], depth: usize) {
        for w in words {
            // `BASH_FUNC_ls%%=() { …; }`: bash defines the function `ls` from it (and runs
            // its body wherever the program it starts calls `ls`).
            if let Some((name, value)) = w.text.split_once('=')
                && name.starts_with("BASH_FUNC_")
            {
                if w.literal {
                    let body = value.trim_start().strip_prefix("()").unwrap_or(value);
                    self.line(body, depth + 1);
                } else {
                    let f = self.own(
                        &Effect::Run(Code::Computed),
                        "run",
                        "",
                        &format!("{name} defines a shell function computed at run time, which"),
                    );
                    self.push(&s.text, f);
                }
                continue;
            }
            if let Some((name, value)) = w.text.split_once('=')
                && !name.is_empty()
                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
            {
                let value = Word {
                    text: value.to_owned(),
                    ..w.clone()
                };
                self.assignment(s, name, &value, depth);
            }
        }
    }
}

/// Returns whether a word of a compiler variable names a usual compiler, linker or cache:
/// by name (found in `PATH`) or in a system folder, also with a version or a target.
fn usual_tool(w: &str) -> bool {
    let (dir, base) = match w.rsplit_once('/') {
        Some((d, b)) => (Some(d), b),
        None => (None, w),
    };
    if dir.is_some_and(|d| !super::BIN_DIRS.contains(&d)) {
        return false;
    }
    let unversioned = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let unversioned = unversioned.strip_suffix('-').unwrap_or(base);
    USUAL_TOOLS.iter().any(|t| {
        [base, unversioned]
            .iter()
            .any(|b| *b == *t || b.strip_suffix(t).is_some_and(|p| p.ends_with('-')))
    })
}

/// Returns why a variable sends a program to another source of packages, code or API
/// answers (`None` when it is not one, or names the usual source or this machine).
fn redirects(name: &str, value: &Word) -> Option<&'static str> {
    let v = value.text.trim();
    let upper = name.to_ascii_uppercase();
    if let Some(key) = upper.strip_prefix("NPM_CONFIG_")
        && upper != "NPM_CONFIG_REGISTRY"
    {
        return (!NPM_HARMLESS.contains(&key) || !value.literal).then_some(
            "sets npm configuration from the environment (it can name registries, scripts and the shell npm runs): oath cannot tell what runs",
        );
    }
    if upper.starts_with("AWS_ENDPOINT_URL") {
        let local = value.literal && super::super::url::is_loopback_url(v);
        return (!local && !v.is_empty()).then_some(
            "sends the AWS tools' requests, signed with the machine's credentials, to another endpoint",
        );
    }
    if upper.starts_with("CARGO_REGISTRIES_") && upper.ends_with("_INDEX") {
        return Some("makes cargo fetch crates from another registry: oath cannot tell what runs");
    }
    let (_, usual) = SOURCES.iter().find(|(n, _)| *n == upper)?;
    if value.literal && (v.is_empty() || usual.contains(&v)) {
        return None;
    }
    Some(
        "makes the package manager fetch packages or modules from another source: oath cannot tell what code runs",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_compilers_by_name_version_target_or_system_folder() {
        for w in [
            "gcc",
            "gcc-12",
            "clang-17",
            "aarch64-linux-gnu-gcc",
            "sccache",
            "/usr/bin/cc",
            "ld.lld",
        ] {
            assert!(usual_tool(w), "{w}");
        }
        for w in ["/tmp/gcc", "./gcc", "evil", "gccx", "sh", "-c"] {
            assert!(!usual_tool(w), "{w}");
        }
    }

    #[test]
    fn sources_other_than_the_usual_one_are_redirections() {
        let r = |n: &str, v: &str| redirects(n, &Word::lit(v)).is_some();
        assert!(r("npm_config_registry", "https://evil.example"));
        assert!(!r("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/"));
        assert!(!r("npm_config_loglevel", "silent"));
        assert!(r("npm_config_userconfig", "/tmp/npmrc"));
        assert!(r("PIP_INDEX_URL", "https://evil.example/simple"));
        assert!(!r("PIP_INDEX_URL", "https://pypi.org/simple"));
        assert!(r("GOPROXY", "https://evil.example"));
        assert!(!r("GOPROXY", "direct"));
        assert!(r("GOSUMDB", "off"));
        assert!(!r("AWS_ENDPOINT_URL", "http://localhost:4566"));
        assert!(r("AWS_ENDPOINT_URL_S3", "https://evil.example"));
        assert!(r("CARGO_REGISTRIES_MINE_INDEX", "https://x"));
        assert!(!r("RUST_LOG", "debug"));
    }
}
