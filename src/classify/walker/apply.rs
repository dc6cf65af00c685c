//! Reading a command against its pack entry: the levels it descends through, the rules that
//! hold, and each effect they state turned into a finding by the policy (or, for `run`,
//! followed into the code or command it runs).

use std::borrow::Cow;

use crate::shell::{Simple, Word};

use super::super::Differs;
use super::super::effect::{Code, Effect};
use super::super::pack::schema::{
    Act, Carried, Handler, PathNote, Recursive, RewriteFrom, Rewrites, Rule,
};
use super::super::pack::{self, Descent, Facts, Found, Level, View};
use super::super::paths::{Target, Zone};
use super::super::policy::{self, Said};
use super::gaps::Who;
use super::{Flow, Leaf, Mods, RunAs, Walker};

/// Where a rule was found, for effects and messages.
pub(super) struct Place<'d, 'w> {
    /// The program's name as run.
    pub name: &'d str,
    /// The pack and program it came from.
    pub found: Found,
    /// The descent.
    pub d: &'d Descent<'w>,
}

impl Place<'_, '_> {
    /// Fills `{program}`, `{sub}` and `{arg0}` in a rule's explanation.
    fn render(&self, text: &str, level: &View<'_>) -> String {
        if !text.contains('{') {
            return text.to_owned();
        }
        let arg0 = level
            .scan
            .pos
            .first()
            .map(|w| w.text.as_str())
            .unwrap_or("");
        let values = [
            ("{program}", self.name),
            ("{sub}", self.d.sub.as_str()),
            ("{arg0}", arg0),
        ];
        // One pass: what a placeholder brings (words of the command) is not read again.
        let mut out = String::with_capacity(text.len() + 32);
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            rest = &rest[open..];
            match values.iter().find(|(name, _)| rest.starts_with(name)) {
                Some((name, value)) => {
                    out.push_str(value);
                    rest = &rest[name.len()..];
                }
                None => {
                    out.push('{');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        // An empty placeholder leaves a double space.
        if !out.contains("  ") && !out.starts_with(' ') && !out.ends_with(' ') {
            return out;
        }
        out.split(' ')
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Returns the program and subcommand words as run (`git stash drop`).
    fn command(&self) -> String {
        if self.d.sub.is_empty() {
            self.name.to_owned()
        } else {
            format!("{} {}", self.name, self.d.sub)
        }
    }

    /// Names the rule for `oath explain`: `git: git reset › git-reset-hard`.
    fn source(&self, rule: &Rule) -> String {
        let user = if self.found.user { " (user pack)" } else { "" };
        if self.d.sub.is_empty() {
            format!("{}{user}: {} › {}", self.found.pack, self.name, rule.id)
        } else {
            format!(
                "{}{user}: {} {} › {}",
                self.found.pack, self.name, self.d.sub, rule.id
            )
        }
    }
}

impl Walker<'_> {
    /// Classifies a command by its pack entry.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply(
        &mut self,
        s: &Simple,
        name: &str,
        found: Found,
        args: &[Word],
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
    ) -> Leaf {
        let d = pack::descend(found.entry, args);
        let place = Place { name, found, d: &d };
        let mut leaf = Leaf::default();
        let from = self.out.items.len();
        for l in &d.levels {
            self.add_flow(&mut leaf, &l.entry.flow, stdin);
        }
        if d.computed {
            let why = format!(
                "the {name} subcommand is computed at run time: oath cannot tell what runs"
            );
            self.push(
                &s.text,
                self.own(&Effect::NotUnderstood, "unknown-command", &why, ""),
            );
            return leaf;
        }
        let lang = d
            .levels
            .iter()
            .rev()
            .find_map(|l| l.entry.lang.map(|l| l.as_str()))
            .unwrap_or("other")
            .to_owned();
        if let Some((i, h)) = d
            .levels
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, l)| l.entry.handler.map(|h| (i, h)))
        {
            let level = &d.levels[i];
            let ctx = Handled {
                s,
                name,
                level,
                place: &place,
                depth,
                stdin,
                mods,
                lang: &lang,
            };
            let mark = self.judged.borrow().len();
            self.handle(h, &ctx, &mut leaf);
            if !own_grammar(h) {
                let chain: Vec<_> = d.levels[..=i].iter().map(|l| l.entry).collect();
                let gaps = pack::account::unknown_options(&chain, &level.own);
                let name = place.command();
                let who = Who {
                    name: &name,
                    pack: found.pack,
                };
                self.unaccounted(s, who, args, &gaps, from, depth);
            }
            // What `echo` and `printf` are given is text they print.
            if h != Handler::Print {
                self.unjudged_protected(s, args, mark);
            }
            return leaf;
        }
        let input = self.input_of(s, stdin);
        let credential = |w: &Word| w.literal && self.target(w).credential;
        let facts = Facts {
            elevated: mods.elevated,
            input: &input,
            credential: &credential,
        };
        let main = d.levels.iter().rev().find_map(|l| {
            l.entry
                .rules
                .iter()
                .find(|r| pack::holds(r, &l.own, facts))
                .map(|r| (r, &l.own))
        });
        let also: Vec<(&Rule, &View<'_>)> = d
            .levels
            .iter()
            .flat_map(|l| {
                l.entry
                    .also
                    .iter()
                    .filter(|r| pack::holds(r, l.tail(), facts))
                    .map(move |r| (r, l.tail()))
            })
            .collect();
        let mut applied: Vec<(&Rule, &View<'_>)> = main.into_iter().collect();
        applied.extend(also.iter().copied());
        match main {
            Some((r, l)) => self.effects(s, &place, r, l, depth, stdin, mods, &lang, &mut leaf),
            None if also.is_empty() => {
                let why = format!(
                    "`{name} {}`: the {} pack has no rule for this",
                    d.sub, found.pack
                );
                let run: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                let words = if run.is_empty() {
                    Vec::new()
                } else {
                    vec![super::gaps::shown(name, &run.join(" "))]
                };
                let f = self.own(
                    &Effect::Unexplained(words),
                    "unknown-program",
                    &why.replace("  ", " "),
                    "",
                );
                self.push(&s.text, f);
                for w in args {
                    self.check_word(s, w, &why, depth);
                }
                return leaf;
            }
            None => {}
        }
        for (r, l) in also {
            self.effects(s, &place, r, l, depth, stdin, mods, &lang, &mut leaf);
        }
        let accounted = pack::account::gaps(&d, args, &applied);
        let command = place.command();
        let who = Who {
            name: &command,
            pack: found.pack,
        };
        self.unaccounted(s, who, args, &accounted.gaps, from, depth);
        self.data_words(s, &command, args, &accounted.data);
        leaf
    }

    /// Returns what the command's input carries: the pipeline's flow, and credentials read
    /// through a redirection.
    fn input_of(&self, s: &Simple, stdin: Option<&Flow>) -> Vec<Carried> {
        let mut v = stdin.map(Flow::carried).unwrap_or_default();
        if !v.contains(&Carried::Secret)
            && s.redirects.iter().any(|r| {
                r.kind == crate::shell::RedirectKind::Read && self.target(&r.target).credential
            })
        {
            v.push(Carried::Secret);
        }
        v
    }

    fn add_flow(
        &self,
        leaf: &mut Leaf,
        flow: &super::super::pack::schema::Flow,
        stdin: Option<&Flow>,
    ) {
        for c in flow.produces.iter() {
            leaf.produces.add(*c);
        }
        if flow.net_tool {
            leaf.net_tool = true;
        }
        if flow.passes
            && let Some(f) = stdin
        {
            leaf.produces.merge(f);
            if f.text.is_some() {
                leaf.produces.text.clone_from(&f.text);
            }
        }
    }

    /// Applies the effects of one rule.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn effects(
        &mut self,
        s: &Simple,
        place: &Place<'_, '_>,
        rule: &Rule,
        level: &View<'_>,
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
        lang: &str,
        leaf: &mut Leaf,
    ) {
        let t = s.text.as_str();
        let explain = place.render(&rule.explain, level);
        let safer = rule.safer.as_deref().map(|text| place.render(text, level));
        let details = self.ctx.details();
        let source = if details {
            place.source(rule)
        } else {
            String::new()
        };
        let verb_of = |default: &'static str| -> Cow<'_, str> {
            match &rule.verb {
                Some(v) => Cow::Borrowed(v.as_ref()),
                None => Cow::Borrowed(default),
            }
        };
        let push = |w: &mut Self, effect: Effect, verb: &str| {
            let said = Said {
                id: &rule.id,
                explain: &explain,
                verb,
                safer: safer.as_deref(),
            };
            w.judged(&effect);
            let mut f = policy::finding(&effect, said, w.ctx);
            if details {
                f.effect = Some(effect.to_string());
                f.source = Some(source.clone());
            }
            w.push(t, f);
        };
        if let Some(run) = &rule.run {
            self.run(
                s, place, run, level, depth, stdin, mods, lang, leaf, &source,
            );
        }
        if let Some(sel) = &rule.read {
            let mut targets = self.targets(sel, level);
            if let Some(note @ (PathNote::Searches | PathNote::SearchesVisible)) = rule.note {
                // A search through whole trees (the working directory without a path): only
                // a tree holding credentials is said, as a read of them.
                if targets.is_empty() {
                    targets.push(self.cwd_target());
                }
                let hidden = note == PathNote::Searches;
                targets = targets
                    .into_iter()
                    .filter_map(|tg| {
                        let place = super::super::paths::tree_credentials(&tg, hidden, self.ctx)?;
                        Some(super::super::paths::as_holding(tg, &place))
                    })
                    .collect();
            }
            let searches = matches!(
                rule.note,
                Some(PathNote::Searches | PathNote::SearchesVisible)
            );
            if !(searches && targets.is_empty()) {
                let verb = verb_of("reads");
                let before = self.out.items.len();
                self.read_paths(t, &targets, &verb, leaf);
                if details && let Some((_, f)) = self.out.items.get_mut(before) {
                    f.source = Some(source.clone());
                }
            }
        }
        // A rule whose path selection found nothing: said, with what it would have done.
        let no_path = |w: &Self, delete: bool| {
            let effect = Effect::NoPath { delete };
            let said = Said {
                id: &rule.id,
                explain: &explain,
                verb: "",
                safer: None,
            };
            let mut f = policy::finding(&effect, said, w.ctx);
            if details {
                f.effect = Some(effect.to_string());
                f.source = Some(source.clone());
            }
            f
        };
        if let Some(sel) = &rule.write {
            let verb = verb_of("writes");
            let targets = self.targets(sel, level);
            if targets.is_empty() {
                let f = no_path(self, false);
                self.push(t, f);
            }
            for tg in targets {
                if rule.note == Some(PathNote::Download)
                    && let Some(p) = &tg.path
                {
                    self.downloaded.push(p.clone());
                }
                if rule.note == Some(PathNote::CredentialsOnly) && !tg.credential {
                    continue;
                }
                if rule.note == Some(PathNote::ProtectedOnly)
                    && !tg.protected
                    && !tg.holds_protected
                {
                    continue;
                }
                if rule.note == Some(PathNote::Fills)
                    && super::super::paths::contains_protected(&tg, self.ctx)
                {
                    let why = format!(
                        "{explain}: it fills {}, which holds oath's or Claude Code's settings, with files oath cannot see",
                        tg.shown()
                    );
                    let f = self.own(&Effect::NotUnderstood, "extract-over-settings", &why, "");
                    self.push(t, f);
                }
                push(self, Effect::Write(tg, rule.note), &verb);
            }
        }
        if let Some(rw) = &rule.rewrites {
            match self.rewrites(rw, level) {
                Differs::No => {}
                // Another version's settings may be a teammate's: a person decides.
                Differs::Yes => {
                    let mut f = self.own(&Effect::RewritesSettings, &rule.id, &explain, "");
                    // Its effect was never shown.
                    f.effect = None;
                    self.push(t, f);
                }
                Differs::Unknown => {
                    let why = format!(
                        "{explain}: git did not tell in time whether that changes oath's or Claude Code's settings"
                    );
                    let f = self.own(&Effect::NotUnderstood, "rewrites-unknown", &why, "");
                    self.push(t, f);
                }
            }
        }
        if let Some(sel) = &rule.delete {
            let recursive = mods.under_find
                || match &rule.recursive {
                    None => false,
                    Some(Recursive::Fixed(b)) => *b,
                    Some(Recursive::When(opts)) => level.scan.has(opts),
                };
            let verb = verb_of("deletes");
            let mut targets = self.targets(sel, level);
            if targets.is_empty() && mods.dynamic_args {
                targets.push(super::super::paths::target(None, self.ctx));
            }
            if targets.is_empty() {
                let f = no_path(self, true);
                self.push(t, f);
            }
            for tg in targets {
                push(
                    self,
                    Effect::Delete {
                        target: tg,
                        recursive,
                        note: rule.note,
                    },
                    &verb,
                );
            }
        }
        if let Some(sel) = &rule.chmod {
            let recursive = match &rule.recursive {
                None => false,
                Some(Recursive::Fixed(b)) => *b,
                Some(Recursive::When(opts)) => level.scan.has(opts),
            } || mods.under_find;
            for tg in self.targets(sel, level) {
                push(
                    self,
                    Effect::Chmod {
                        target: tg,
                        program: place.name.to_owned(),
                        mode: String::new(),
                        recursive,
                    },
                    "changes",
                );
            }
        }
        if let Some(sel) = &rule.wipe {
            let targets = self.targets(sel, level);
            let devices: Vec<Target> = targets
                .iter()
                .filter(|tg| tg.zone == Zone::Device)
                .cloned()
                .collect();
            if devices.is_empty() {
                let any = targets
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| super::super::paths::target(None, self.ctx));
                push(self, Effect::Wipe(any), "wipes");
            }
            for tg in devices {
                push(self, Effect::Wipe(tg), "wipes");
            }
        }
        if let Some(sel) = &rule.env {
            for w in pack::select(sel, level).into_iter().flatten() {
                if let Some(v) = super::super::secret_vars::handed(&w.text, w.literal) {
                    push(self, Effect::HandsSecret(v.to_owned()), "");
                }
            }
        }
        if let Some(a) = rule.act {
            if a == Act::SecretsRead {
                leaf.produces.secret = true;
            }
            push(self, Effect::Act(a), "");
        }
        if let Some(sel) = &rule.cd {
            let to = self.targets(sel, level);
            self.judged
                .borrow_mut()
                .extend(to.iter().filter_map(|t| t.path.clone()));
            self.cwd = to.into_iter().next().and_then(|t| t.path);
        }
        if let Some(f) = &rule.flow {
            self.add_flow(leaf, f, stdin);
        }
    }

    /// Returns the targets a selection names.
    fn targets(&self, sel: &super::super::pack::schema::Sel, level: &View<'_>) -> Vec<Target> {
        let root = matches!(
            pack::placeholder(sel),
            Some(super::super::pack::schema::Pick::Root)
        );
        pack::select(sel, level)
            .iter()
            .map(|w| match w {
                Some(w) => self.target(w),
                // The repository a command run in the project works on is the project's.
                None if root && self.cwd_target().in_project() => {
                    super::super::paths::target(Some(self.ctx.project_root().into()), self.ctx)
                }
                None => self.cwd_target(),
            })
            .collect()
    }

    /// Follows what a rule runs.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        s: &Simple,
        place: &Place<'_, '_>,
        run: &super::super::pack::schema::Run,
        level: &View<'_>,
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
        lang: &str,
        leaf: &mut Leaf,
        source: &str,
    ) {
        let what = format!("{} runs", place.name);
        // What it runs runs in the folder `cwd` names (links followed), in a process of its
        // own: the line goes on where it was.
        let dir = run
            .cwd
            .as_ref()
            .and_then(|sel| pack::select(sel, level).into_iter().flatten().next());
        match dir {
            Some(d) => {
                let line_cwd = self.cwd.clone();
                self.cwd = self.folder(&d);
                self.run_in_place(
                    s, place, run, level, depth, stdin, mods, lang, leaf, source, &what,
                );
                self.cwd = line_cwd;
            }
            None => {
                self.run_in_place(
                    s, place, run, level, depth, stdin, mods, lang, leaf, source, &what,
                );
            }
        }
    }

    /// [`Self::run`] from the folder it runs in.
    #[allow(clippy::too_many_arguments)]
    fn run_in_place(
        &mut self,
        s: &Simple,
        place: &Place<'_, '_>,
        run: &super::super::pack::schema::Run,
        level: &View<'_>,
        depth: usize,
        stdin: Option<&Flow>,
        mods: Mods,
        lang: &str,
        leaf: &mut Leaf,
        source: &str,
        what: &str,
    ) {
        if let Some(sel) = &run.command {
            // The command starts at the first selected positional word and runs to the end
            // of the level's words (or to one of `until`).
            let start = first_index(sel, level).map(|i| i + usize::from(run.skip));
            let Some(start) = start.filter(|&i| i < level.words.len()) else {
                return;
            };
            let end = level.words[start..]
                .iter()
                .position(|w| run.until.iter().any(|u| *u == w.text))
                .map_or(level.words.len(), |p| start + p);
            let mut argv: Vec<Word> = level.words[start..end].to_vec();
            let mut inner = Mods {
                elevated: mods.elevated || run.elevated,
                ..mods
            };
            if run.input_args {
                argv.push(Word {
                    text: "{input}".into(),
                    literal: false,
                    ..Word::default()
                });
                inner.dynamic_args = true;
            }
            let got = self.command(s, &argv, depth, stdin, inner);
            leaf.produces.merge(&got.produces);
            if got.produces.text.is_some() {
                leaf.produces.text = got.produces.text;
            }
            leaf.shell_stdin |= got.shell_stdin;
            leaf.net_tool |= got.net_tool;
        }
        if let Some(sel) = &run.shell {
            let words: Vec<Word> = pack::select(sel, level).into_iter().flatten().collect();
            if !words.is_empty() {
                self.shell_text(s, &words, depth, what);
            }
        }
        if let Some(kind) = run.tasks {
            self.tasks(s, place, level, kind, depth);
        }
        if let Some(sel) = &run.file {
            for w in pack::select(sel, level).into_iter().flatten() {
                // A file sourced, or run by an interpreter whose code oath reads, is judged
                // by its content; a manifest, a Makefile or a package is not a script.
                let how = match place.name {
                    "source" | "." => Some(RunAs::Source),
                    _ if lang != "other" => Some(RunAs::Code(lang)),
                    _ => None,
                };
                let mut f = match how {
                    Some(how) => self.run_script(s, &w, what, how, depth),
                    None => self.run_file(&w, what),
                };
                if self.ctx.details() {
                    f.source = Some(source.to_owned());
                }
                self.push(&s.text, f);
            }
        }
        if let Some(sel) = &run.code {
            for w in pack::select(sel, level).into_iter().flatten() {
                self.code(s, &w, lang, depth);
            }
        }
        // A configuration the program reads from the project anyway is its own: only one
        // elsewhere is a file it loads.
        let loads = [
            (&run.config, false, false),
            (&run.project_config, true, false),
            (&run.repository, true, true),
        ];
        for (sel, project, repository) in loads {
            let Some(sel) = sel else { continue };
            let verb = format!("{} loads", place.name);
            for w in pack::select(sel, level) {
                let target = self.real_target(match &w {
                    Some(w) => self.target(w),
                    None => self.cwd_target(),
                });
                if project && target.in_project() {
                    continue;
                }
                let code = if repository {
                    Code::Repository(target)
                } else {
                    Code::Config(target)
                };
                let mut f = self.own(&Effect::Run(code), "", "", &verb);
                if self.ctx.details() {
                    f.source = Some(source.to_owned());
                }
                self.push(&s.text, f);
            }
        }
        if let Some(sel) = &run.sql {
            for w in pack::select(sel, level).into_iter().flatten() {
                let (effect, id, explain) = if w.literal {
                    let (a, id, explain) =
                        super::super::sql::act(super::super::sql::judge(&w.text), place.name);
                    (Effect::Act(a), id, explain)
                } else {
                    (
                        Effect::NotUnderstood,
                        "database-computed",
                        format!(
                            "{} is given statements computed at run time: oath cannot tell what they do",
                            place.name
                        ),
                    )
                };
                let mut f = self.own(&effect, id, &explain, "");
                if self.ctx.details() {
                    f.effect = Some(effect.to_string());
                    f.source = Some(source.to_owned());
                }
                self.push(&s.text, f);
            }
        }
    }

    /// Runs a handler.
    fn handle(&mut self, h: Handler, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        match h {
            Handler::Env => self.h_env(c, leaf),
            Handler::Shell => self.h_shell(c, leaf),
            Handler::Interpreter => self.h_interpreter(c, leaf),
            Handler::Awk => self.h_awk(c, leaf),
            Handler::Sed => self.h_sed(c, leaf),
            Handler::Find => self.h_find(c),
            Handler::Fd => self.h_fd(c),
            Handler::Http => self.h_http(c, leaf),
            Handler::Tar => self.h_tar(c, leaf),
            Handler::Unzip => self.h_unzip(c),
            Handler::Compress => self.h_compress(c, leaf),
            Handler::Copy => self.h_copy(c),
            Handler::Dd => self.h_dd(c, leaf),
            Handler::Perm => self.h_perm(c),
            Handler::Sql => self.h_sql(c),
            Handler::Print => self.h_print(c, leaf),
            Handler::Alias => self.h_alias(c),
            Handler::Arith => self.h_arith(c),
            Handler::Cd => self.h_cd(c),
            Handler::Powershell => self.h_powershell(c),
            Handler::Fzf => self.h_fzf(c, leaf),
            Handler::Patch => self.h_patch(c),
        }
    }

    /// Applies the pack's own rules of a handler's entry (the first that holds, then every
    /// `also` that holds); returns whether a main rule held.
    pub(super) fn entry_rules(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) -> bool {
        let input = self.input_of(c.s, c.stdin);
        let credential = |w: &Word| w.literal && self.target(w).credential;
        let facts = Facts {
            elevated: c.mods.elevated,
            input: &input,
            credential: &credential,
        };
        let main = c
            .level
            .entry
            .rules
            .iter()
            .find(|r| pack::holds(r, &c.level.own, facts));
        let also: Vec<&Rule> = c
            .level
            .entry
            .also
            .iter()
            .filter(|r| pack::holds(r, c.level.tail(), facts))
            .collect();
        if let Some(r) = main {
            self.effects(
                c.s,
                c.place,
                r,
                &c.level.own,
                c.depth,
                c.stdin,
                c.mods,
                c.lang,
                leaf,
            );
        }
        for r in also {
            self.effects(
                c.s,
                c.place,
                r,
                c.level.tail(),
                c.depth,
                c.stdin,
                c.mods,
                c.lang,
                leaf,
            );
        }
        main.is_some()
    }

    /// Pushes a finding of a handler, for the effect it judged.
    pub(super) fn found(
        &mut self,
        c: &Handled<'_, '_, '_>,
        effect: Effect,
        id: &str,
        explain: &str,
        verb: &str,
    ) {
        let mut f = self.own(&effect, id, explain, verb);
        if self.ctx.details() {
            f.source = Some(format!("{}: {} (handler)", c.place.found.pack, c.name));
        }
        self.push(&c.s.text, f);
    }

    /// Pushes the finding of an act found by a handler.
    pub(super) fn act(&mut self, c: &Handled<'_, '_, '_>, a: Act, id: &str, explain: &str) {
        self.found(c, Effect::Act(a), id, explain, "");
    }

    /// Pushes running code from a source a handler found.
    pub(super) fn ran(&mut self, c: &Handled<'_, '_, '_>, code: Code, verb: &str) {
        self.found(c, Effect::Run(code), "run", "", verb);
    }
}

/// Returns whether a handler reads every word of its command with a grammar of its own
/// (a script, an expression, operands), so that it, not the option lists of the pack,
/// answers for them; the others read positional words and leave options to the pack.
fn own_grammar(h: Handler) -> bool {
    !matches!(
        h,
        Handler::Fd
            | Handler::Copy
            | Handler::Unzip
            | Handler::Compress
            | Handler::Sql
            | Handler::Patch
            | Handler::Fzf
    )
}

/// Returns the index in the level's words of the first positional a selection names.
fn first_index(sel: &super::super::pack::schema::Sel, level: &View<'_>) -> Option<usize> {
    use super::super::pack::schema::Pick;
    let n = level.scan.pos.len();
    sel.0.iter().find_map(|p| match p {
        Pick::Arg(i) | Pick::Args { from: i, .. } => {
            let i = if *i < 0 {
                n.checked_sub(usize::from(i.unsigned_abs()))?
            } else {
                usize::from(i.unsigned_abs())
            };
            level.scan.pos_index.get(i).copied()
        }
        _ => None,
    })
}

/// What a handler is given.
pub(super) struct Handled<'a, 'd, 'w> {
    /// The simple command.
    pub s: &'a Simple,
    /// The program's name as run.
    pub name: &'a str,
    /// The level whose entry names the handler.
    pub level: &'a Level<'w>,
    /// Where the entry was found.
    pub place: &'a Place<'d, 'w>,
    /// Re-parse depth.
    pub depth: usize,
    /// The pipeline's input.
    pub stdin: Option<&'a Flow>,
    /// Modifiers from wrappers.
    pub mods: Mods,
    /// The language of inline code.
    pub lang: &'a str,
}

impl Handled<'_, '_, '_> {
    /// Returns the level's words (after the subcommand words).
    pub fn args(&self) -> &[Word] {
        self.level.own.words
    }

    /// Returns the simple command's text.
    pub fn t(&self) -> &str {
        &self.s.text
    }
}
impl Walker<'_> {
    /// Asks the project's git whether the versions a command writes the working tree from
    /// change the protected files ([`Rewrites`]): every version named, else the default. A
    /// version computed at run time is unknown.
    fn rewrites(&self, rw: &Rewrites, level: &View<'_>) -> Differs {
        if rw.from == RewriteFrom::Index {
            return self.ctx.protected_differs(&[]);
        }
        let named: Vec<Word> = rw
            .rev
            .as_ref()
            .map(|sel| pack::select(sel, level).into_iter().flatten().collect())
            .unwrap_or_default();
        let revs: Vec<String> = if named.is_empty() {
            rw.default.iter().map(ToString::to_string).collect()
        } else if named.iter().any(|w| !w.literal) {
            return Differs::Unknown;
        } else {
            named.into_iter().map(|w| w.text).collect()
        };
        let mut answer = Differs::No;
        for rev in revs {
            // `-` is the branch before; a bare number is a stash's (`git stash pop 1`).
            let rev = match rev.as_str() {
                "-" => "@{-1}".to_owned(),
                r if rw.from == RewriteFrom::Commit && r.bytes().all(|b| b.is_ascii_digit()) => {
                    format!("stash@{{{r}}}")
                }
                _ => rev,
            };
            let revisions = match (rw.from, rev.split_once("..")) {
                (RewriteFrom::Commit, Some((a, b))) if !b.starts_with('.') => {
                    vec![a.to_owned(), b.to_owned()]
                }
                (RewriteFrom::Commit, _) => vec![format!("{rev}^"), rev],
                (RewriteFrom::Tree, _) => vec!["HEAD".to_owned(), rev],
                (RewriteFrom::Reset, _) => vec![rev],
                (RewriteFrom::Merge, _) => vec![format!("HEAD...{rev}")],
                (RewriteFrom::Index, _) => return Differs::No,
            };
            match self.ctx.protected_differs(&revisions) {
                Differs::Yes => return Differs::Yes,
                Differs::Unknown => answer = Differs::Unknown,
                Differs::No => {}
            }
        }
        answer
    }
}
