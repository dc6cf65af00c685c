//! Variables that point programs at configuration, plugins or libraries: `HOME` and the XDG
//! folders (every program's per-user configuration: git's `core.fsmonitor` and aliases,
//! npm's `script-shell`), `KUBECONFIG` (exec plugins), `AWS_CONFIG_FILE`
//! (`credential_process`), `PSQLRC`, `MAKEFILES`, `LD_LIBRARY_PATH`, `PYTHONPATH` … A value
//! that names the program's own place, or the project where the program reads such files
//! from it anyway, is what it reads by itself; any other is a file or folder the program
//! loads ([`Code::Config`]: the policy judges it by where it is). Variables that are a
//! program's options (`PYTEST_ADDOPTS`, `MAKEFLAGS`) are judged as those options given to
//! it.

use crate::shell::{Simple, Word};

use super::super::effect::{Code, Effect};
use super::super::paths;
use super::Walker;

/// A variable that names configuration, plugins or libraries (a list of them, `:` apart).
struct Place {
    /// The variable.
    name: &'static str,
    /// The places the program reads by itself (`~` is the home; a trailing `/` stands for
    /// anything inside).
    usual: &'static [&'static str],
    /// The program reads such files from the project anyway (the project's own libraries,
    /// recipes or settings).
    project: bool,
}

const fn place(name: &'static str, usual: &'static [&'static str], project: bool) -> Place {
    Place {
        name,
        usual,
        project,
    }
}

/// The variables, by what they point at.
const PLACES: &[Place] = &[
    // Every program's per-user configuration.
    place("HOME", &["~"], false),
    place("XDG_CONFIG_HOME", &["~/.config"], false),
    place("XDG_DATA_HOME", &["~/.local/share"], false),
    place("XDG_CACHE_HOME", &["~/.cache"], false),
    place("XDG_CONFIG_DIRS", &[], false),
    place("XDG_DATA_DIRS", &[], false),
    // Configuration files that name commands the program runs (exec plugins, credential
    // processes, pagers, shell escapes, hooks, credential helpers).
    place("KUBECONFIG", &["~/.kube/"], false),
    place("AWS_CONFIG_FILE", &["~/.aws/"], false),
    place("AWS_SHARED_CREDENTIALS_FILE", &["~/.aws/"], false),
    place("PSQLRC", &["~/.psqlrc"], false),
    place("MYSQL_HOME", &[], false),
    place("CURL_HOME", &["~"], false),
    place("WGETRC", &["~/.wgetrc"], false),
    place(
        "RIPGREP_CONFIG_PATH",
        &["~/.ripgreprc", "~/.config/ripgrep/"],
        false,
    ),
    place("DOCKER_CONFIG", &["~/.docker"], false),
    place("GH_CONFIG_DIR", &["~/.config/gh"], false),
    place("CLOUDSDK_CONFIG", &["~/.config/gcloud"], false),
    place("AZURE_CONFIG_DIR", &["~/.azure"], false),
    place("TF_CLI_CONFIG_FILE", &["~/.terraformrc"], false),
    place("TERRAFORM_CONFIG", &["~/.terraformrc"], false),
    place("TF_PLUGIN_CACHE_DIR", &["~/.terraform.d/"], false),
    place("GNUPGHOME", &["~/.gnupg"], false),
    place("IPYTHONDIR", &["~/.ipython"], false),
    place("JUPYTER_CONFIG_DIR", &["~/.jupyter"], false),
    place("HELM_PLUGINS", &["~/.local/share/helm/"], false),
    place("HELM_CONFIG_HOME", &["~/.config/helm"], false),
    place("HELM_DATA_HOME", &["~/.local/share/helm"], false),
    place(
        "COMPOSER_HOME",
        &["~/.composer", "~/.config/composer"],
        false,
    ),
    place("PRE_COMMIT_HOME", &["~/.cache/pre-commit"], false),
    place("GOENV", &["~/.config/go/env"], false),
    place("OPENSSL_CONF", &[], false),
    place("OPENSSL_MODULES", &[], false),
    place("OPENSSL_ENGINES", &[], false),
    place("VIMRUNTIME", &[], false),
    // Recipes and settings a program also reads from the project.
    place("MAKEFILES", &[], true),
    place("ANSIBLE_CONFIG", &[], true),
    place("BUNDLE_GEMFILE", &[], true),
    place("TOX_CONFIG_FILE", &[], true),
    place("YARN_RC_FILENAME", &[".yarnrc.yml"], true),
    // Toolchains, caches and library folders code is loaded from.
    place("CARGO_HOME", &["~/.cargo"], true),
    place("RUSTUP_HOME", &["~/.rustup"], false),
    place("GOPATH", &["~/go"], true),
    place("GOMODCACHE", &["~/go/pkg/mod"], true),
    place("GOCACHE", &["~/.cache/go-build"], true),
    place("GOROOT", &["~/sdk/", "~/go/"], false),
    place("JAVA_HOME", &["~/.sdkman/", "~/.jdks/"], false),
    place("LD_LIBRARY_PATH", &[], true),
    place("DYLD_LIBRARY_PATH", &[], true),
    place("DYLD_FALLBACK_LIBRARY_PATH", &[], true),
    place("DYLD_FRAMEWORK_PATH", &[], true),
    place("GCONV_PATH", &[], false),
    place("PYTHONPATH", &[], true),
    place("PYTHONHOME", &[], false),
    place("PYTHONUSERBASE", &["~/.local"], false),
    place("PYTHONPYCACHEPREFIX", &["~/.cache/"], true),
    place("PERL5LIB", &[], true),
    place("PERLLIB", &[], true),
    place("RUBYLIB", &[], true),
    place("GEM_HOME", &["~/.gem/", "~/.local/share/gem/"], true),
    place("GEM_PATH", &["~/.gem/", "~/.local/share/gem/"], true),
    place("NODE_PATH", &[], true),
    place("DENO_DIR", &["~/.cache/deno"], true),
    place("CLASSPATH", &[], true),
    place("R_LIBS", &[], true),
    place("R_LIBS_USER", &[], true),
];

/// Variables that are a program's options (judged as that program given them).
const OPTIONS_OF: &[(&str, &str)] = &[
    ("PYTEST_ADDOPTS", "pytest"),
    ("MAKEFLAGS", "make"),
    ("GNUMAKEFLAGS", "make"),
    ("MFLAGS", "make"),
];

/// Returns whether a variable names configuration, plugins or libraries, or a program's
/// options.
pub(super) fn is_config_variable(name: &str) -> bool {
    PLACES.iter().any(|p| p.name == name) || OPTIONS_OF.iter().any(|(n, _)| *n == name)
}

impl Walker<'_> {
    /// Judges a variable [`is_config_variable`] says names configuration, plugins or
    /// libraries (each place it lists), or a program's options.
    pub(super) fn config_variable(&mut self, s: &Simple, name: &str, value: &Word, depth: usize) {
        let v = value.text.as_str();
        if let Some((_, program)) = OPTIONS_OF.iter().find(|(n, _)| *n == name) {
            if v.trim().is_empty() {
                return;
            }
            if value.literal {
                self.line(&format!("{program} {v}"), depth + 1);
            } else {
                let f = self.own(
                    &Effect::Run(Code::Computed),
                    "run",
                    "",
                    &format!("{name} gives {program} options computed at run time, which"),
                );
                self.push(&s.text, f);
            }
            return;
        }
        let Some(place) = PLACES.iter().find(|p| p.name == name) else {
            return;
        };
        let shown: String = v.chars().take(60).collect();
        let verb = format!("{name}={shown} makes programs load");
        for entry in v.split(':') {
            let Some(target) = self.config_entry(name, entry, value) else {
                continue;
            };
            let target = self.real_target(target);
            let own = place.project && target.in_project()
                || target
                    .path
                    .as_ref()
                    .is_some_and(|p| self.usual_place(p, place.usual));
            if own {
                continue;
            }
            let f = self.own(&Effect::Run(Code::Config(target)), "", "", &verb);
            self.push(&s.text, f);
        }
    }

    /// Returns the place one entry of a variable's list names (`None` when there is none:
    /// empty, or the variable's inherited value). `$PWD` and `$(pwd)` are the working
    /// directory, `$HOME` and `~` the home.
    fn config_entry(&self, name: &str, entry: &str, value: &Word) -> Option<paths::Target> {
        let entry = entry.trim();
        let own = [format!("${name}"), format!("${{{name}}}")];
        if entry.is_empty() || own.iter().any(|o| o == entry) {
            return None;
        }
        let mut text = entry.to_owned();
        if !value.literal {
            for cwd in ["$PWD", "${PWD}", "$(pwd)", "`pwd`"] {
                if let Some(rest) = entry.strip_prefix(cwd)
                    && (rest.is_empty() || rest.starts_with('/'))
                {
                    let Some(dir) = self.cwd.as_ref() else {
                        return Some(paths::target(None, self.ctx));
                    };
                    text = format!("{}{rest}", dir.display());
                }
            }
        }
        // `$HOME` is expanded as the target is resolved; any other variable is computed.
        let literal = value.literal || !text.contains(['$', '`']);
        Some(self.target(&Word {
            text,
            literal,
            ..Word::default()
        }))
    }

    /// Returns the place a target really is, where the file system has a link in its path
    /// that leads out of the project and the home (a folder of the project, or of a program's
    /// own place, may lead to a temporary one). A project or home reached through a link of
    /// its own is still itself.
    pub(super) fn real_target(&self, t: paths::Target) -> paths::Target {
        let Some(real) = t.path.as_deref().and_then(|p| self.ctx.real_path(p)) else {
            return t;
        };
        let bases = [Some(self.ctx.project_root()), self.ctx.home()];
        let inside = bases.into_iter().flatten().any(|b| {
            let b_real = self.ctx.real_path(b).unwrap_or_else(|| b.to_path_buf());
            real.starts_with(&b_real)
        });
        if inside {
            t
        } else {
            paths::target(Some(real), self.ctx)
        }
    }

    /// Returns whether a path is one of a program's own places.
    fn usual_place(&self, path: &std::path::Path, usual: &[&str]) -> bool {
        usual.iter().any(|u| {
            let folder = u.ends_with('/');
            paths::resolve(
                u.trim_end_matches('/'),
                false,
                self.cwd.as_deref(),
                self.ctx,
            )
            .is_some_and(|p| path == p || folder && path.starts_with(&p))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variable_is_listed_once_and_nowhere_else() {
        let mut seen = std::collections::HashSet::new();
        for p in PLACES {
            assert!(seen.insert(p.name), "{} twice", p.name);
            assert!(
                !OPTIONS_OF.iter().any(|(n, _)| *n == p.name),
                "{} is also a program's options",
                p.name
            );
            for u in p.usual {
                assert!(!u.is_empty() && !u.contains('$'), "{}: {u}", p.name);
            }
        }
        assert!(is_config_variable("HOME") && is_config_variable("PYTEST_ADDOPTS"));
        assert!(!is_config_variable("RUST_LOG") && !is_config_variable("CI"));
    }
}
