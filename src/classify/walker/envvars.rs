//! Environment variables a command is given (`NAME=value cmd`, `env NAME=value cmd`,
//! `export NAME=value`): the ones that make programs run, load or redirect other code are
//! judged like the code they name. Everything else (`RUST_LOG=debug`, `CI=1`) is harmless.

use crate::shell::{Simple, Word};

use super::super::effect::{Code, Effect};
use super::super::pack::schema::Act;
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

/// Variables that load libraries or code into every program started.
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "GIT_EXEC_PATH",
    "ZDOTDIR",
    "GIT_TEMPLATE_DIR",
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
        } else if FILES.contains(&name) {
            if v.is_empty() {
                return;
            }
            let f = self.run_file(value, &format!("{name} makes programs run"));
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
            let why =
                not_understood("makes the interpreter load code first: oath cannot tell what runs");
            let f = self.own(&Effect::NotUnderstood, "env-loads-code", &why, "");
            self.push(&s.text, f);
        }
    }

    /// Judges `NAME=value` words (of `env`, `export`, `declare -x`).
    pub(super) fn assignment_words(&mut self, s: &Simple, words: &[Word], depth: usize) {
        for w in words {
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
