//! Task runners: `make GOALS` and `npm test` / `npm run X` (pnpm, yarn, bun alike) run the
//! recipes of a file in the project. The file is read when the call is decided and each
//! command it would run is judged as if it were on the line, in the folder it runs in.

use std::path::{Path, PathBuf};

use crate::shell::{Simple, Word};

use super::super::effect::{Code, Effect, Unread};
use super::super::pack::View;
use super::super::pack::schema::Tasks;
use super::super::paths;
use super::super::scripts::{self, FileText};
use super::super::tasks;
use super::Walker;
use super::apply::Place;

/// The names make looks for, in its order.
const MAKEFILES: [&str; 3] = ["GNUmakefile", "makefile", "Makefile"];
/// Options of package managers that run scripts of other packages (workspaces): oath
/// does not follow them.
const WORKSPACE_OPTIONS: &[&str] = &[
    "-w",
    "--workspace",
    "--workspaces",
    "-ws",
    "-r",
    "--recursive",
    "--filter",
    "-F",
    "--include-workspace-root",
];
/// Subcommands after which the first positional word names the script.
const RUN_WORDS: &[&str] = &["run", "run-script", "rum", "urn", ""];

impl Walker<'_> {
    /// Judges what the tasks a command runs would run.
    pub(super) fn tasks(
        &mut self,
        s: &Simple,
        place: &Place<'_, '_>,
        level: &View<'_>,
        kind: Tasks,
        depth: usize,
    ) {
        let words: Vec<&Word> = place
            .d
            .levels
            .iter()
            .flat_map(|l| l.own.scan.pos.iter().copied())
            .collect();
        let option = |names: &[&str]| -> Option<Word> {
            place
                .d
                .levels
                .iter()
                .find_map(|l| l.own.scan.values(names).next().cloned())
        };
        if words.iter().any(|w| !w.literal) {
            // Goals or a script name computed at run time: what runs is not known; the
            // rule's words check says so.
            return;
        }
        let dir = match kind {
            Tasks::Make => option(&["-C", "--directory"]),
            Tasks::Npm => option(&["--prefix", "-C", "--dir", "--cwd"]),
        };
        let base = match &dir {
            Some(d) if !d.literal => return,
            Some(d) => match self.target(d).path {
                Some(p) => p,
                None => return,
            },
            None => match &self.cwd {
                Some(c) => c.clone(),
                None => return,
            },
        };
        match kind {
            Tasks::Make => {
                let mut goals: Vec<String> =
                    place.d.sub.split_whitespace().map(str::to_owned).collect();
                let mut overrides = Vec::new();
                for w in &words {
                    match w.text.split_once('=') {
                        Some((k, v)) => overrides.push((k.to_owned(), v.to_owned())),
                        None => goals.push(w.text.clone()),
                    }
                }
                let candidates: Vec<PathBuf> = match option(&["-f", "--file", "--makefile"]) {
                    Some(f) if !f.literal => return,
                    Some(f) => match self.target(&f).path {
                        Some(p) => vec![p],
                        None => return,
                    },
                    None => MAKEFILES.iter().map(|n| base.join(n)).collect(),
                };
                let Some(found) = self.first_file(candidates) else {
                    return;
                };
                let verb = format!("{} runs the recipes of", place.name);
                self.judge_tasks(s, found, &base, &verb, depth, |text| {
                    tasks::make::plan(text, &goals, &overrides)
                });
            }
            Tasks::Npm => {
                if level.scan.has(WORKSPACE_OPTIONS)
                    || place.d.levels[0].own.scan.has(WORKSPACE_OPTIONS)
                {
                    let tg = paths::target(Some(base.join("package.json")), self.ctx);
                    let f = self.own(
                        &Effect::Run(Code::Unread(tg, Unread::Workspaces)),
                        "run",
                        "",
                        &format!("{} runs the scripts named in", place.name),
                    );
                    self.push(&s.text, f);
                    return;
                }
                let last = place.d.sub.rsplit(' ').next().unwrap_or("");
                let (name, extra) = match last {
                    w if RUN_WORDS.contains(&w) => match words.split_first() {
                        Some((w, rest)) => (w.text.clone(), rest),
                        None => return,
                    },
                    "t" | "tst" => ("test".to_owned(), &words[..]),
                    w => (w.to_owned(), &words[..]),
                };
                let extra: Vec<String> = extra.iter().map(|w| w.text.clone()).collect();
                // npm looks for the nearest package.json up from the folder it runs in:
                // oath looks up to the project's root (or 8 folders up outside it).
                let root = self.ctx.project_root();
                let inside = base.starts_with(root);
                let candidates: Vec<PathBuf> = base
                    .ancestors()
                    .take_while(|d| !inside || d.starts_with(root))
                    .take(if inside { 64 } else { 8 })
                    .map(|d| d.join("package.json"))
                    .collect();
                let Some(found) = self.first_file(candidates) else {
                    return;
                };
                let dir = found.0.parent().map(Path::to_path_buf).unwrap_or(base);
                let verb = format!("{} runs the {name} script of", place.name);
                self.judge_tasks(s, found, &dir, &verb, depth, |text| {
                    tasks::npm::plan(text, &name, &extra)
                });
            }
        }
    }

    /// Returns the first of `candidates` that is there, with what it holds (None without
    /// a files oracle, or when none is).
    fn first_file(&self, candidates: Vec<PathBuf>) -> Option<(PathBuf, FileText)> {
        candidates.into_iter().find_map(|p| {
            match self.ctx.read_file(&p, scripts::MAX_SCRIPT_BYTES)? {
                FileText::Missing => None,
                got => Some((p, got)),
            }
        })
    }

    /// Judges each command `plan` finds in a task file, run in `dir`.
    fn judge_tasks(
        &mut self,
        s: &Simple,
        (file, got): (PathBuf, FileText),
        dir: &Path,
        verb: &str,
        depth: usize,
        plan: impl FnOnce(&str) -> tasks::Plan,
    ) {
        let tg = paths::target(Some(file.clone()), self.ctx);
        let unread = |w: &Self, why: Unread| {
            w.own(&Effect::Run(Code::Unread(tg.clone(), why)), "run", "", verb)
        };
        if self.scripts_read.0 >= scripts::MAX_SCRIPTS
            || self.scripts_read.1 >= scripts::MAX_SCRIPTS_BYTES
        {
            let f = unread(self, Unread::TooMany);
            self.push(&s.text, f);
            return;
        }
        let text = match got {
            FileText::Missing => return,
            FileText::TooLarge => {
                let f = unread(self, Unread::TooLarge);
                self.push(&s.text, f);
                return;
            }
            FileText::Unreadable | FileText::Binary => {
                let f = unread(self, Unread::Unreadable);
                self.push(&s.text, f);
                return;
            }
            FileText::Text(t) => t,
        };
        self.scripts_read.0 += 1;
        self.scripts_read.1 += text.len();
        let commands = match plan(&text) {
            Ok(c) => c,
            Err(why) => {
                let f = unread(self, Unread::Tasks(why));
                self.push(&s.text, f);
                return;
            }
        };
        let label = tg.shown().to_string();
        self.scripts.push((file, label));
        let cwd = self.cwd.clone();
        for c in &commands {
            // Each recipe line runs in a shell of its own, in the task file's folder.
            self.cwd = Some(PathBuf::from(dir));
            self.line(c, depth + 1);
        }
        self.cwd = cwd;
        self.scripts.pop();
        let f = self.own(&Effect::Run(Code::Read(tg)), "run", "", verb);
        self.push(&s.text, f);
    }
}
