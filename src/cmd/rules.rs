//! `oath rules`: the rule packs oath knows programs by (built in, and the user's), one
//! program's rules, one rule wherever it is stated, and a check of a pack file.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::classify::golden;
use crate::classify::pack::schema::{Cond, Entry, Pack, Rule};
use crate::classify::pack::{self, user};
use crate::error::{CliError, Result};
use crate::project::Env;
use crate::ui;

/// Show and check the rule packs that say what programs do.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
A rule pack says, per program, subcommand and option, what a command does (reads, writes,
deletes, runs code, acts on a remote system); oath's policy decides how risky that is. The
built-in packs are compiled into oath; a user's packs are the `*.yaml` files in `packs/`
beside the user configuration file (`~/.config/oath/packs/`), looked up first.

Examples:
  oath rules list              every pack and how many programs it describes
  oath rules list kubectl      kubectl's subcommands and rules
  oath rules show git-push-force
  oath rules check acme.yaml   check a pack (and acme.golden.yaml beside it)")]
pub struct RulesArgs {
    /// What to do
    #[command(subcommand)]
    pub action: RulesAction,
}

/// `oath rules` actions.
#[derive(Debug, clap::Subcommand)]
pub enum RulesAction {
    /// List the packs, or one program's subcommands and rules
    List {
        /// A program to show
        program: Option<String>,
    },
    /// Show a rule by its id, wherever a pack states it
    Show {
        /// The rule id (`git-reset-hard`)
        id: String,
    },
    /// Check a pack file; with a `NAME.golden.yaml` beside it, check its cases too; exit 1
    /// on a problem
    Check {
        /// The pack file
        file: PathBuf,
    },
}

/// Runs `oath rules`.
pub fn run(args: &RulesArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let loaded = env
        .user_packs_dir()
        .map(|d| user::load_dir(&d))
        .unwrap_or_default();
    for w in &loaded.warnings {
        ui::warn(w);
    }
    match &args.action {
        RulesAction::List { program: None } => {
            list_packs(loaded.packs);
            Ok(ExitCode::SUCCESS)
        }
        RulesAction::List {
            program: Some(name),
        } => {
            let found = pack::lookup(loaded.packs, name)
                .filter(|f| f.entry.name.first() != "*")
                .ok_or_else(|| {
                    CliError::new(format!("no pack describes `{name}`")).hint(
                        "oath treats it as an unknown program; `oath rules list` shows the packs",
                    )
                })?;
            let origin = if found.user { " (user pack)" } else { "" };
            ui::out(&format!(
                "{name}: pack {}{origin}, names {}",
                found.pack,
                found.entry.name.0.join(", ")
            ));
            print_entry(found.entry, 0);
            Ok(ExitCode::SUCCESS)
        }
        RulesAction::Show { id } => {
            let mut hits = Vec::new();
            for (origin, p) in loaded
                .packs
                .iter()
                .map(|p| ("user", p))
                .chain(pack::builtin().iter().map(|p| ("built-in", p)))
            {
                for e in p.programs.iter() {
                    find_rule(e, e.name.first(), id, &mut |path, r| {
                        hits.push(format!(
                            "{}: pack {} ({origin}), {path}\n{}",
                            r.id,
                            p.pack,
                            describe_rule(r, "  ")
                        ));
                    });
                }
            }
            if hits.is_empty() {
                let mut e = CliError::new(format!("no pack states a rule `{id}`"));
                e = e.hint("`oath rules list PROGRAM` shows a program's rule ids; rules of the policy (delete-home, write-system …) are not in packs");
                return Err(e);
            }
            for h in hits {
                ui::out(&h);
            }
            Ok(ExitCode::SUCCESS)
        }
        RulesAction::Check { file } => check(file),
    }
}

fn list_packs(user: &[Pack]) {
    for (origin, p) in user
        .iter()
        .map(|p| ("user", p))
        .chain(pack::builtin().iter().map(|p| ("built-in", p)))
    {
        let names: usize = p.programs.iter().map(|e| e.name.0.len()).sum();
        ui::out(&format!(
            "{:<22} {:<9} {:>10}  {}",
            p.pack,
            origin,
            ui::plural(names, "name", "names"),
            p.about
        ));
    }
}

fn print_entry(e: &Entry, depth: usize) {
    let pad = "  ".repeat(depth + 1);
    if !e.about.is_empty() {
        ui::out(&format!("{pad}{}", e.about));
    }
    if let Some(h) = e.handler {
        ui::out(&format!("{pad}handler: {h:?} (code reads its arguments)"));
    }
    for r in e.rules.iter() {
        ui::out(&describe_rule(r, &pad));
    }
    for r in e.also.iter() {
        ui::out(&format!("{pad}also:"));
        ui::out(&describe_rule(r, &format!("{pad}  ")));
    }
    for s in e.sub.iter() {
        ui::out(&format!("{pad}› {}", s.name.0.join(" | ")));
        print_entry(s, depth + 1);
    }
}

fn find_rule(e: &Entry, path: &str, id: &str, f: &mut dyn FnMut(&str, &Rule)) {
    for r in e.rules.iter().chain(e.also.iter()) {
        if r.id == id {
            f(path, r);
        }
    }
    for s in e.sub.iter() {
        find_rule(s, &format!("{path} {}", s.name.0.join("|")), id, f);
    }
}

/// Describes a rule in a few lines: id, condition, effects, explanation, safer way.
fn describe_rule(r: &Rule, pad: &str) -> String {
    let mut effects = Vec::new();
    if let Some(a) = r.act {
        effects.push(format!("act {a}"));
    }
    for (name, sel) in [
        ("read", &r.read),
        ("write", &r.write),
        ("delete", &r.delete),
        ("chmod", &r.chmod),
        ("wipe", &r.wipe),
        ("cd", &r.cd),
    ] {
        if let Some(s) = sel {
            effects.push(format!("{name} {s}"));
        }
    }
    if let Some(run) = &r.run {
        for (name, sel) in [
            ("command", &run.command),
            ("shell", &run.shell),
            ("file", &run.file),
            ("code", &run.code),
        ] {
            if let Some(s) = sel {
                effects.push(format!("run {name} {s}"));
            }
        }
    }
    let when = r
        .when
        .as_ref()
        .map(|c| format!(" when {}", describe_cond(c)))
        .unwrap_or_default();
    let mut out = format!(
        "{pad}- {}{when}: {}\n{pad}  {}",
        r.id,
        effects.join(", "),
        r.explain
    );
    if let Some(s) = &r.safer {
        out.push_str(&format!("\n{pad}  safer: {s}"));
    }
    out
}

fn describe_cond(c: &Cond) -> String {
    let mut parts = Vec::new();
    let list = |l: &[crate::classify::pack::schema::Str]| l.join("|");
    if !c.option.is_empty() {
        parts.push(format!("option {}", list(&c.option)));
    }
    if !c.no_option.is_empty() {
        parts.push(format!("no option {}", list(&c.no_option)));
    }
    if !c.arg0.is_empty() {
        parts.push(format!("first word {}", list(&c.arg0)));
    }
    if !c.args_any.is_empty() {
        parts.push(format!("some word {}", list(&c.args_any)));
    }
    if !c.word.is_empty() {
        parts.push(format!("some argument {}", list(&c.word)));
    }
    if !c.every_word.is_empty() {
        parts.push(format!("every argument {}", list(&c.every_word)));
    }
    if let Some(v) = &c.value {
        parts.push(format!("{} value {}", list(&v.option), list(&v.matches)));
    }
    if let Some(b) = c.no_args {
        parts.push(if b { "no arguments" } else { "arguments" }.into());
    }
    if let Some(n) = c.min_args {
        parts.push(format!("at least {n} arguments"));
    }
    if let Some(b) = c.elevated {
        parts.push(if b { "as root" } else { "not as root" }.into());
    }
    if !c.input.is_empty() {
        parts.push(format!("input carries {:?}", c.input));
    }
    if c.credential_arg == Some(true) {
        parts.push("names a credential file".into());
    }
    if !c.any.is_empty() {
        parts.push(format!(
            "any of ({})",
            c.any
                .iter()
                .map(describe_cond)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if !c.not.is_empty() {
        parts.push(format!(
            "none of ({})",
            c.not
                .iter()
                .map(describe_cond)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    parts.join(", ")
}

/// Checks a pack file and, when there is one beside it, its golden file.
fn check(file: &std::path::Path) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::new(format!("cannot read {}: {e}", file.display())))?;
    let pack = user::parse(&text).map_err(|errors| {
        let mut e = CliError::new(format!("{} is not a valid pack", file.display()));
        for m in errors {
            e = e.hint(m);
        }
        e
    })?;
    let names: usize = pack.programs.iter().map(|e| e.name.0.len()).sum();
    ui::out(&format!(
        "{}: pack `{}` is valid ({names} program {})",
        file.display(),
        pack.pack,
        ui::plural(names, "name", "names")
    ));
    for note in user::notes(&pack) {
        ui::out(&format!("{}: {note}", file.display()));
    }
    let golden = file.with_extension("golden.yaml");
    if golden.exists() {
        let text = std::fs::read_to_string(&golden)
            .map_err(|e| CliError::new(format!("cannot read {}: {e}", golden.display())))?;
        let cases = golden::parse(&text)
            .map_err(|e| CliError::new(format!("{}: {e}", golden.display())))?;
        let packs: &'static [Pack] = Box::leak(vec![pack].into_boxed_slice());
        let wrong = golden::run(&cases, packs);
        if !wrong.is_empty() {
            let mut e = CliError::new(format!(
                "{}: {} of {} cases do not hold",
                golden.display(),
                wrong.len(),
                cases.len()
            ));
            for w in wrong {
                e = e.hint(w);
            }
            return Err(e);
        }
        ui::out(&format!(
            "{}: all {} cases hold",
            golden.display(),
            cases.len()
        ));
    }
    Ok(ExitCode::SUCCESS)
}
