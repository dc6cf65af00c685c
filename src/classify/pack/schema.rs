//! What rule packs are made of: programs, their subcommands, options and rules, and the
//! effects those rules state.
//!
//! `build.rs` includes this file, reads `packs/*.yaml` into these types, checks them
//! ([`check`]) and writes them out as static tables; user packs are read into the same types
//! at run time. So nothing here may name the crate. Strings and lists are [`Str`] and [`List`]
//! (`strs.rs`): ranges of the built-in tables, or owned for a user's pack.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer};

pub use super::act::Act;
pub use super::strs::{List, Pooled, Str};

/// One pack file: a family of programs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    /// The family's name (`git`, `coreutils`), unique among the packs loaded together.
    pub pack: Str,
    /// What the family covers, in one line.
    #[serde(default)]
    pub about: Str,
    /// The programs.
    pub programs: List<Entry>,
}

/// A program (at the top of a pack) or one of its subcommands.
///
/// The arguments of a command are read level by level: at each level the options are
/// scanned (`valued` says which take a value), the first positional word that names one of
/// the `sub` entries selects it, and the rest of the words are that entry's. The deepest
/// entry reached gives the command's main effects: the first of its `rules` whose `when`
/// holds, or, when none does, the first of its parent's, and so on up. Every entry on the
/// way adds the effects of each of its `also` rules whose `when` holds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The program's names, or the subcommand's words. `*` matches any run of characters
    /// (`mkfs.*`, `describe-*`); exact names are tried before patterns.
    pub name: Names,
    /// What it is, in one line (for `oath rules list`).
    #[serde(default)]
    pub about: Str,
    /// Options that take a value (`-o`, `--output`; `--output=x` is always one word). They
    /// hold for the subcommands below too.
    #[serde(default)]
    pub valued: List<Str>,
    /// Options that take no value (`-r`, `--force`; short ones may be clustered, `-rf`). They
    /// hold for the subcommands below too. With `valued`, the options named in rules'
    /// conditions and selections and `--help`, they are every option the entry knows: any
    /// other option is a word no rule accounts for, and the command is only partly
    /// understood (never allowed). A short flag written `-p*` takes a value only when it is
    /// glued to it (mysql's `-pPASSWORD`); list the bare `-p` as well.
    #[serde(default)]
    pub flags: List<Str>,
    /// Which options are known: the ones listed (default), or any (`any`: every option only
    /// chooses what is printed or is a parameter of the remote call the subcommand makes,
    /// `aws ec2 describe-instances --filters …`; values included). Holds for the subcommands
    /// below. Only for commands whose effect no option can change.
    #[serde(default)]
    pub options: Options,
    /// Options end at the first positional word: the rest is another command's (`sudo`,
    /// `nice`, `xargs`) or the subcommand's.
    #[serde(default)]
    pub options_first: bool,
    /// Long options may be shortened to any prefix of their name (`--forc` for `--force`),
    /// as git's option parser allows: conditions match the shortened forms too. Set on the
    /// program, it holds for its subcommands.
    #[serde(default)]
    pub abbreviations: bool,
    /// Which positional word selects a subcommand: the first (default), or any of them,
    /// the first entry in the list order that matches some word winning (`gcloud compute
    /// instances delete NAME`, `az vm delete`).
    #[serde(default)]
    pub sub_word: SubWord,
    /// Subcommands.
    #[serde(default)]
    pub sub: List<Entry>,
    /// Code that reads an argument language packs cannot describe (a sed script, a find
    /// expression, an HTTP request); it may use the rules and `valued` of this entry.
    #[serde(default)]
    pub handler: Option<Handler>,
    /// The language of the code an interpreter runs (`python`, `js`, `perl`, `ruby`, `php`,
    /// `other`).
    #[serde(default)]
    pub lang: Option<Lang>,
    /// What the command feeds into the next command of a pipeline.
    #[serde(default)]
    pub flow: Flow,
    /// Ordered rules: the first whose `when` holds gives the main effects.
    #[serde(default)]
    pub rules: List<Rule>,
    /// Rules whose effects are added whenever their `when` holds (an output file option).
    #[serde(default)]
    pub also: List<Rule>,
}

/// The language of the code an interpreter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lang {
    /// Python.
    Python,
    /// JavaScript or TypeScript.
    Js,
    /// Perl.
    Perl,
    /// Ruby.
    Ruby,
    /// PHP.
    Php,
    /// Another language: only what any language can do is looked for.
    Other,
}

impl Lang {
    /// Returns its written name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Js => "js",
            Self::Perl => "perl",
            Self::Ruby => "ruby",
            Self::Php => "php",
            Self::Other => "other",
        }
    }
}

/// Which options an entry knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Options {
    /// The options listed (`flags`, `valued`, those rules name).
    #[default]
    Listed,
    /// Any option: each only chooses what is printed or is a parameter of a remote call.
    Any,
}

/// One or more names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names(pub List<Str>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or a list of names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Names, E> {
                Ok(Names(List::Owned(vec![Str::owned(v)])))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Names, E> {
                self.visit_str(if v { "true" } else { "false" })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Names, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Names, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    v.push(Str::Owned(s));
                }
                Ok(Names(List::Owned(v)))
            }
        }
        d.deserialize_any(V)
    }
}

impl Names {
    /// Returns the first name.
    pub fn first(&self) -> &str {
        self.0.first().map(|s| s.as_ref()).unwrap_or("")
    }

    /// Returns whether a word is one of the names, exactly.
    pub fn exact(&self, word: &str) -> bool {
        self.0.iter().any(|n| n == word && !n.contains('*'))
    }

    /// Returns whether a word matches one of the name patterns.
    pub fn pattern(&self, word: &str) -> bool {
        self.0.iter().any(|n| n.contains('*') && wildcard(n, word))
    }
}

/// Which positional word selects a subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubWord {
    /// The first positional word.
    #[default]
    First,
    /// Any positional word; entries are tried in their order.
    Any,
}

/// A rule: when it applies, its effects, and how to explain them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// When the rule applies (always, without it).
    #[serde(default)]
    pub when: Option<Cond>,
    /// Its id (kebab-case), named by `oath explain`, the audit trail and `oath rules show`.
    pub id: Str,
    /// What the command does, in one line. `{program}` is the program's name as run, `{sub}`
    /// the subcommand words.
    pub explain: Str,
    /// A safer way to do the same, when there is one.
    #[serde(default)]
    pub safer: Option<Str>,
    /// It acts on a system other than files (a repository, a cluster, a service …).
    #[serde(default)]
    pub act: Option<Act>,
    /// It reads these paths.
    #[serde(default)]
    pub read: Option<Sel>,
    /// It writes these paths.
    #[serde(default)]
    pub write: Option<Sel>,
    /// It deletes these paths.
    #[serde(default)]
    pub delete: Option<Sel>,
    /// It changes the permissions or owner of these paths (the mode is its first positional
    /// word for `chmod`).
    #[serde(default)]
    pub chmod: Option<Sel>,
    /// It destroys what these devices or images hold (formats, wipes, partitions).
    #[serde(default)]
    pub wipe: Option<Sel>,
    /// The verb used when a path effect is explained (`edits in place`, `extracts an
    /// archive into`).
    #[serde(default)]
    pub verb: Option<Str>,
    /// The deletion or permission change goes down directory trees.
    #[serde(default)]
    pub recursive: Option<Recursive>,
    /// Something the path effect needs said about it.
    #[serde(default)]
    pub note: Option<PathNote>,
    /// It runs code or another command.
    #[serde(default)]
    pub run: Option<Run>,
    /// It changes the working directory of the commands after it on the line.
    #[serde(default)]
    pub cd: Option<Sel>,
    /// It feeds this into the next command of a pipeline (added to the entry's `flow`).
    #[serde(default)]
    pub flow: Option<Flow>,
    /// It updates the working tree from another version (git checkout, merge …): the
    /// protected files that version changes are written. The project's git says which.
    #[serde(default)]
    pub rewrites: Option<Rewrites>,
    /// These words are data the command takes, through which no file is read, written or
    /// run: a revision, a name, a pattern, a message, a number (`git log REV`, `grep
    /// PATTERN`). Words no selection of the rule names are words it does not account for.
    #[serde(default)]
    pub data: Option<Sel>,
    /// These words are text, never a path: a message, a pattern, a filter or expression
    /// (`git commit -m MSG`, `jq FILTER`). Like `data`, but no credential or protected path is
    /// looked for in them.
    #[serde(default)]
    pub text: Option<Sel>,
    /// These words hand variables to another program or system (`docker run -e NAME=VALUE`,
    /// `-e NAME` passing this shell's own): a variable that holds a secret among them is sent
    /// there. The words are data otherwise.
    #[serde(default)]
    pub env: Option<Sel>,
}

/// The version a command writes the working tree from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rewrites {
    /// How the version comes into the working tree.
    pub from: RewriteFrom,
    /// The word naming the version (`args[0]`); when absent, `default`.
    #[serde(default)]
    pub rev: Option<Sel>,
    /// The version when none is named (nothing is checked without one).
    #[serde(default)]
    pub default: Option<Str>,
}

/// How a version comes into the working tree, which says what to compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RewriteFrom {
    /// The working tree moves from HEAD to the version; local changes are carried (checkout
    /// and switch of a branch): HEAD against the version.
    Tree,
    /// The working tree becomes the version, local changes dropped (reset --hard): the
    /// working tree against the version.
    Reset,
    /// What the version changed since it forked from HEAD comes in (merge, rebase):
    /// `HEAD...version`.
    Merge,
    /// What one commit changed comes in (cherry-pick, revert, stash pop): the commit
    /// against its parent.
    Commit,
    /// The working tree takes the index's content (checkout-index): the working tree
    /// against the index.
    Index,
}

/// Whether a deletion or permission change is recursive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recursive {
    /// Always, or never.
    Fixed(bool),
    /// When one of these options is present.
    When(List<Str>),
}

impl<'de> Deserialize<'de> for Recursive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum R {
            Fixed(bool),
            When(Vec<String>),
        }
        Ok(match R::deserialize(d)? {
            R::Fixed(b) => Recursive::Fixed(b),
            R::When(v) => Recursive::When(List::Owned(v.into_iter().map(Str::Owned).collect())),
        })
    }
}

/// Something a path effect needs said about it, for the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathNote {
    /// It creates directories (harmless inside the project and in temporary directories).
    CreatesDirectory,
    /// It overwrites the contents before deleting (git cannot bring it back either).
    Shreds,
    /// It moves the paths away (from where they were, they are gone).
    MovesAway,
    /// It replaces what the file held (writes it anew, truncates it): what it held is lost
    /// as if it were deleted, so the project's git is asked what that loses.
    Overwrites,
    /// It removes only empty directories (it refuses the others): nothing is lost.
    OnlyEmpty,
    /// It only matters when the path is one oath protects (a lock file others wait on).
    ProtectedOnly,
    /// It only touches the paths when a credential is among them (copies, archives).
    CredentialsOnly,
    /// A download is saved there (running it later on the line runs downloaded code).
    Download,
    /// It fills the folder with files whose names oath cannot see (an extraction): a
    /// folder that holds oath's or Claude Code's settings is not understood.
    Fills,
    /// It takes away what git does not track there: untracked files, not ignored ones
    /// (`git stash -u`, `git clean -f`). Git is asked whether oath's or Claude Code's
    /// settings are among them.
    Untracked,
    /// It takes away what git does not track there, ignored files too (`git stash -a`,
    /// `git clean -x`).
    UntrackedIgnored,
    /// It reads every file in the trees of the paths, hidden ones included, and prints
    /// what it finds (`grep -r`): only a tree holding credentials is said, as a read of them.
    Searches,
    /// [`PathNote::Searches`], skipping hidden files and folders (`rg` without `--hidden`).
    SearchesVisible,
    /// It makes a link at the path: the link itself is written, not what it will lead to
    /// (the folders on the way are followed).
    MakesLink,
    /// [`PathNote::MakesLink`], replacing what is at the path (`ln -f`): judged as an
    /// overwrite of it.
    ReplacesWithLink,
}

/// Conditions, all of which must hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cond {
    /// One of these options is present.
    #[serde(default)]
    pub option: List<Str>,
    /// None of these options is present.
    #[serde(default)]
    pub no_option: List<Str>,
    /// The first positional word matches one of these.
    #[serde(default)]
    pub arg0: List<Str>,
    /// Some positional word matches one of these.
    #[serde(default)]
    pub args_any: List<Str>,
    /// Some word, option or positional, matches one of these.
    #[serde(default)]
    pub word: List<Str>,
    /// Every word, option or positional, matches one of these (true without words).
    #[serde(default)]
    pub every_word: List<Str>,
    /// A value of one of these options matches one of `matches` (compared in lower case
    /// when `icase`).
    #[serde(default)]
    pub value: Option<ValueCond>,
    /// There is no positional word (`true`) or there is one (`false`).
    #[serde(default)]
    pub no_args: Option<bool>,
    /// There are at least this many positional words.
    #[serde(default)]
    pub min_args: Option<u8>,
    /// It runs with root's rights (under `sudo` or `doas`).
    #[serde(default)]
    pub elevated: Option<bool>,
    /// What arrives on its input carries one of these (from the pipeline or a redirection).
    #[serde(default)]
    pub input: List<Carried>,
    /// One of its positional words names a file holding credentials.
    #[serde(default)]
    pub credential_arg: Option<bool>,
    /// Every word is known before running (no variable, substitution or glob).
    #[serde(default)]
    pub literal: Option<bool>,
    /// `arg0`, `args_any` and `word` compare the words in lower case.
    #[serde(default)]
    pub icase: bool,
    /// Any of these holds.
    #[serde(default)]
    pub any: List<Cond>,
    /// None of these holds.
    #[serde(default)]
    pub not: List<Cond>,
}

/// A condition on option values.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueCond {
    /// The options.
    pub option: List<Str>,
    /// Patterns (`*` matches any run of characters).
    pub matches: List<Str>,
    /// Compare in lower case.
    #[serde(default)]
    pub icase: bool,
    /// Every value of the options matches (a program that takes the last of repeated values,
    /// `gh api -X GET -X PATCH`, is held to all of them), not only one.
    #[serde(default)]
    pub every: bool,
}

/// What flows between the commands of a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Carried {
    /// Content downloaded from the network.
    Download,
    /// Decoded or unpacked content (`base64 -d`, `xxd -r`).
    Decode,
    /// Credentials or the environment.
    Secret,
}

/// What a command feeds into the next one of its pipeline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// It produces these.
    #[serde(default)]
    pub produces: List<Carried>,
    /// It passes on what it reads (`tee`, `grep`, `sort`).
    #[serde(default)]
    pub passes: bool,
    /// It is a raw network tool (a shell piped through it is a reverse shell).
    #[serde(default)]
    pub net_tool: bool,
}

/// A selection of the command's words.
///
/// Written as a string: `args` (every positional word), `args[1]`, `args[1:]`, `args[:-1]`,
/// `args[-1]` (Python-style slices over the positional words), `opt(-o,--output)` (the
/// values of these options), `words` (every word, options included), `cwd` (the working
/// directory), and alternatives
/// `opt(-o) | args[0] | cwd` (the first that selects something).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sel(pub List<Pick>);

/// One alternative of a [`Sel`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    /// One positional word (negative counts from the end).
    Arg(i16),
    /// Positional words `from..to` (negative counts from the end; `to` excluded, none for
    /// all the rest).
    Args {
        /// First index.
        from: i16,
        /// End index.
        to: Option<i16>,
    },
    /// Every word, options included.
    Words,
    /// Values of these options.
    Opt(List<Str>),
    /// The working directory.
    Cwd,
    /// The project's root (a repository-wide command run from a subfolder: `git stash`).
    Root,
}

impl<'de> Deserialize<'de> for Sel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

impl std::str::FromStr for Sel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut picks = Vec::new();
        for alt in s.split('|') {
            picks.push(alt.trim().parse::<Pick>()?);
        }
        Ok(Sel(List::Owned(picks)))
    }
}

impl std::str::FromStr for Pick {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{s}` selects nothing: write args, args[N], args[N:], args[:N], args[N:M], opt(-o,--output), words, cwd or root"
            )
        };
        match s {
            "args" => return Ok(Pick::Args { from: 0, to: None }),
            "cwd" => return Ok(Pick::Cwd),
            "root" => return Ok(Pick::Root),
            "words" => return Ok(Pick::Words),
            _ => {}
        }
        if let Some(inner) = s.strip_prefix("opt(").and_then(|r| r.strip_suffix(')')) {
            let names: Vec<Str> = inner.split(',').map(|n| Str::owned(n.trim())).collect();
            if names.iter().any(|n| !n.starts_with('-') || n.len() < 2) {
                return Err(format!("`{s}`: option names start with `-`"));
            }
            return Ok(Pick::Opt(List::Owned(names)));
        }
        let inner = s
            .strip_prefix("args[")
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(bad)?;
        let num = |t: &str| t.trim().parse::<i16>().map_err(|_| bad());
        match inner.split_once(':') {
            None => Ok(Pick::Arg(num(inner)?)),
            Some((a, b)) => Ok(Pick::Args {
                from: if a.trim().is_empty() { 0 } else { num(a)? },
                to: if b.trim().is_empty() {
                    None
                } else {
                    Some(num(b)?)
                },
            }),
        }
    }
}

impl fmt::Display for Sel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            match p {
                Pick::Args { from: 0, to: None } => f.write_str("args")?,
                Pick::Arg(i) => write!(f, "args[{i}]")?,
                Pick::Args { from, to } => {
                    let from = if *from == 0 {
                        String::new()
                    } else {
                        from.to_string()
                    };
                    let to = to.map(|t| t.to_string()).unwrap_or_default();
                    write!(f, "args[{from}:{to}]")?
                }
                Pick::Opt(names) => write!(f, "opt({})", names.join(","))?,
                Pick::Cwd => f.write_str("cwd")?,
                Pick::Root => f.write_str("root")?,
                Pick::Words => f.write_str("words")?,
            }
        }
        Ok(())
    }
}

/// Code or a command that a command runs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Another command: its words, from the first selected on (`sudo CMD`, `xargs CMD`).
    #[serde(default)]
    pub command: Option<Sel>,
    /// Shell code: the selected words, one space apart (`bash -c CODE`, `eval`, `watch`).
    #[serde(default)]
    pub shell: Option<Sel>,
    /// A file it runs or sources (`source FILE`, `bash FILE`).
    #[serde(default)]
    pub file: Option<Sel>,
    /// Code in the entry's `lang` (`python -c CODE`, `node -e CODE`).
    #[serde(default)]
    pub code: Option<Sel>,
    /// Database statements (`aws athena start-query-execution --query-string SQL`, `bq query
    /// SQL`): judged by what they do, as a database client's are.
    #[serde(default)]
    pub sql: Option<Sel>,
    /// A configuration file or folder it loads that can name commands it runs (a kubeconfig's
    /// exec plugins, docker's credential helpers and CLI plugins): outside the places the
    /// program reads by itself, oath cannot tell what runs.
    #[serde(default)]
    pub config: Option<Sel>,
    /// Like `config`, for a file the program reads from the project anyway (`pytest -c`, `git
    /// -C`, the working directory a task runner reads its recipes from): inside the project it
    /// is the project's own, elsewhere oath cannot tell what runs.
    #[serde(default)]
    pub project_config: Option<Sel>,
    /// A folder whose repository it works in, reading the repository's own configuration
    /// (`.git/config`, which names programs git runs and which only git and deliberate
    /// writes change): judged by who can write there.
    #[serde(default)]
    pub repository: Option<Sel>,
    /// The command is skipped this many words in (`timeout 5 CMD`, `flock FILE CMD`).
    #[serde(default)]
    pub skip: u8,
    /// The command's words end before the first of these (`parallel CMD ::: ARGS`).
    #[serde(default)]
    pub until: List<Str>,
    /// The command runs with root's rights.
    #[serde(default)]
    pub elevated: bool,
    /// Words that only exist at run time are appended to the command (`xargs`).
    #[serde(default)]
    pub input_args: bool,
    /// The project's task file whose tasks it runs: what they run is read and judged.
    #[serde(default)]
    pub tasks: Option<Tasks>,
    /// What it runs runs in the folder this word names (`tmux new -c DIR CMD`): the
    /// command's relative paths are judged from there.
    #[serde(default)]
    pub cwd: Option<Sel>,
}

/// A kind of task file (see [`Run::tasks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tasks {
    /// A Makefile: the positional words are goals, `NAME=value` words set variables.
    Make,
    /// `package.json` scripts: the subcommand (`test`, `start`) or, after `run`, the
    /// first positional word names the script.
    Npm,
}

/// Code for argument languages packs cannot describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Handler {
    /// `env`: assignments, `-S` split strings, `-C` directories, then a command.
    Env,
    /// Shells: `-c` code, a script file, stdin, here-documents.
    Shell,
    /// Interpreters: inline code (in `lang`), modules, scripts, stdin.
    Interpreter,
    /// awk programs.
    Awk,
    /// sed scripts (`e` and `w` commands, `-i`).
    Sed,
    /// `find` expressions (`-delete`, `-exec`, `-fprint`).
    Find,
    /// `fd`'s `--exec`.
    Fd,
    /// HTTP clients (`curl`, `wget`, `httpie`): method, body, uploads, output files.
    Http,
    /// tar's letter clusters.
    Tar,
    /// zip-family extraction.
    Unzip,
    /// Compressors that replace their files (`gzip`, `xz`).
    Compress,
    /// `cp`, `mv`, `ln`, `install`, `rsync`, `scp`: sources, destination, remote hosts.
    Copy,
    /// `dd`'s `if=` and `of=` operands.
    Dd,
    /// chmod and chown: the mode and the targets.
    Perm,
    /// SQL text in arguments or on stdin.
    Sql,
    /// `echo` and `printf`: the text they print.
    Print,
    /// `alias NAME=BODY`: the bodies.
    Alias,
    /// `(( … ))`: arithmetic, or commands hidden in it.
    Arith,
    /// `cd`, `pushd`, `popd`.
    Cd,
    /// PowerShell command text.
    Powershell,
    /// fzf's `--bind` actions and `--preview`: the commands they run.
    Fzf,
    /// `patch` and `git apply`: the files the diff names.
    Patch,
}

/// Returns whether `text` matches `pattern`, where `*` matches any run of characters and
/// every other character itself.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return text.is_empty();
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
