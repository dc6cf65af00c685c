//! Which words of a command its pack accounts for (issue 41: "understood means every word is
//! accounted for"): the subcommand words, each option the entries know (with its value), and
//! each positional word a rule that applies names (a path it reads, writes or deletes, code
//! or a command it runs, data it takes, a word its condition matched). Any other word is one
//! no rule read, and the command is only partly understood.

use crate::shell::Word;

use super::matcher::{Descent, View};
use super::schema::{Cond, Entry, Options, Pick, Rule, Sel, Str};
use crate::classify::args::Opt;

/// A word no rule of the pack accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gap {
    /// Its index among the command's arguments.
    pub index: usize,
    /// It is an option the pack does not describe (else a word no rule names).
    pub option: bool,
}

/// How each word of a command is accounted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Not yet.
    None,
    /// Data: an option or its value, a subcommand's word, data a rule takes, a word its
    /// condition matched. What a person must see in it is checked as a second net.
    Data,
    /// A path a rule reads, writes, deletes or changes, or code or a command it runs: the
    /// effect judges it.
    Effect,
    /// Text a rule takes (a message, a pattern, a filter): never a path.
    Text,
}

/// The words of a command marked as accounted for.
struct Marks(Vec<Role>);

impl Marks {
    fn set(&mut self, i: usize) {
        if let Some(m) = self.0.get_mut(i)
            && *m == Role::None
        {
            *m = Role::Data;
        }
    }

    fn effect(&mut self, i: usize) {
        if let Some(m) = self.0.get_mut(i) {
            *m = Role::Effect;
        }
    }

    fn text(&mut self, i: usize) {
        if let Some(m) = self.0.get_mut(i)
            && matches!(*m, Role::None | Role::Data)
        {
            *m = Role::Text;
        }
    }
}

/// What the pack accounts for in a command.
#[derive(Debug, Default)]
pub(crate) struct Accounting {
    /// The words no rule accounts for, in order.
    pub gaps: Vec<Gap>,
    /// The words accounted for as data (options and their values, data a rule takes), whose
    /// credentials and protected paths a second net holds.
    pub data: Vec<usize>,
}

/// Returns the words of `args` that neither the descent `d` nor the rules that apply
/// (`applied`: each rule with the words it saw) account for, in order.
pub(crate) fn gaps(d: &Descent<'_>, args: &[Word], applied: &[(&Rule, &View<'_>)]) -> Accounting {
    let mut marks = Marks(vec![Role::None; args.len()]);
    let mut unknown_options = Vec::new();
    // The words of the command's grammar are no file.
    for &i in &d.sub_index {
        marks.text(i);
    }
    let deepest = d.levels.len().saturating_sub(1);
    let mut any = false;
    for (depth, level) in d.levels.iter().enumerate() {
        let chain: Vec<&Entry> = d.levels[..=depth].iter().map(|l| l.entry).collect();
        any |= level.entry.options == Options::Any;
        let v = &level.own;
        let abbrev = v.scan.abbrev;
        options(v, &chain, any, abbrev, &mut marks, &mut unknown_options);
        for &i in &v.scan.dashdash {
            marks.set(v.offset + i);
        }
        // The words before a subcommand's word at a level where any word selects one (`az
        // vm delete`: `vm`) name what the command acts on.
        if depth < deepest {
            for &i in &v.scan.pos_index {
                marks.text(v.offset + i);
            }
        }
        // Where any option is a parameter, the words after the first option are values.
        if any && let Some(first) = v.scan.opts.first() {
            for &i in &v.scan.pos_index {
                if i > first.index {
                    marks.set(v.offset + i);
                }
            }
        }
    }
    for (rule, view) in applied {
        rule_words(rule, view, &mut marks);
    }
    // The word after an option no entry knows may be its value (`go test -exec 'rm -rf ~'`,
    // `curl --config FILE`): whatever a rule took it for, nobody knows its role, and it is
    // checked as unexplained. A path an effect judges keeps its judgement.
    for &u in &unknown_options {
        let glued = args.get(u).is_some_and(|w| w.text.contains('='));
        if let (false, Some(next), Some(m)) = (glued, args.get(u + 1), marks.0.get_mut(u + 1))
            && !next.text.starts_with('-')
            && matches!(*m, Role::Data | Role::Text)
        {
            *m = Role::None;
        }
    }
    // A cluster with one unknown letter is unknown, whatever its other letters are.
    let gaps = marks
        .0
        .iter()
        .enumerate()
        .filter(|(i, m)| **m == Role::None || unknown_options.contains(i))
        .map(|(index, _)| Gap {
            index,
            option: unknown_options.contains(&index),
        })
        .collect();
    let data = marks
        .0
        .iter()
        .enumerate()
        .filter(|(i, m)| **m == Role::Data && !unknown_options.contains(i))
        .map(|(i, _)| i)
        .collect();
    Accounting { gaps, data }
}

/// Returns the options of `v` that none of the `chain` of entries knows, as gaps (for
/// handlers, which account for the positional words themselves).
pub(crate) fn unknown_options(chain: &[&Entry], v: &View<'_>) -> Vec<Gap> {
    let any = chain.iter().any(|e| e.options == Options::Any);
    let mut marks = Marks(vec![Role::Data; v.offset + v.words.len()]);
    let mut unknown = Vec::new();
    options(v, chain, any, v.scan.abbrev, &mut marks, &mut unknown);
    unknown.dedup();
    let mut gaps = Vec::new();
    for index in unknown {
        gaps.push(Gap {
            index,
            option: true,
        });
        // The word after it may be its value: checked as unexplained too.
        let at = index.saturating_sub(v.offset);
        let glued = v.words.get(at).is_some_and(|w| w.text.contains('='));
        if !glued
            && v.words
                .get(at + 1)
                .is_some_and(|w| !w.text.starts_with('-'))
        {
            gaps.push(Gap {
                index: index + 1,
                option: false,
            });
        }
    }
    gaps
}

/// Marks the options of a view the chain knows (with their values), and lists the others.
fn options(
    v: &View<'_>,
    chain: &[&Entry],
    any: bool,
    abbrev: bool,
    marks: &mut Marks,
    unknown: &mut Vec<usize>,
) {
    for o in &v.scan.opts {
        let text = v.words.get(o.index).map_or("", |w| w.text.as_str());
        if any || knows(chain, o, text, abbrev) {
            marks.set(v.offset + o.index);
            if let Some(vi) = o.value_index {
                marks.set(v.offset + vi);
            }
        } else if !unknown.contains(&(v.offset + o.index)) {
            unknown.push(v.offset + o.index);
        }
    }
}

/// Returns whether one of the entries knows an option (`text` is the word it was written
/// in: a one-dash option of several letters, `-print`, is known by its whole name).
fn knows(chain: &[&Entry], o: &Opt<'_>, text: &str, abbrev: bool) -> bool {
    let whole = text.split_once('=').map_or(text, |(n, _)| n);
    if whole == "--help" {
        return true;
    }
    let named = |list: &[Str]| list.iter().any(|n| n.as_ref() == whole) || o.is_any(list, abbrev);
    chain.iter().any(|e| {
        named(&e.flags)
            || named(&e.valued)
            || e.rules
                .iter()
                .chain(e.also.iter())
                .any(|r| rule_names_option(r, &named))
    })
}

/// Returns whether a rule names an option `named` accepts, in its condition or selections.
fn rule_names_option(r: &Rule, named: &dyn Fn(&[Str]) -> bool) -> bool {
    if r.when.as_ref().is_some_and(|c| cond_names_option(c, named)) {
        return true;
    }
    if let Some(super::schema::Recursive::When(list)) = &r.recursive
        && named(list)
    {
        return true;
    }
    sels(r).any(|s| {
        s.0.iter().any(|p| match p {
            Pick::Opt(list) => named(list),
            _ => false,
        })
    })
}

fn cond_names_option(c: &Cond, named: &dyn Fn(&[Str]) -> bool) -> bool {
    named(&c.option)
        || named(&c.no_option)
        || c.value.as_ref().is_some_and(|v| named(&v.option))
        || c.any.iter().any(|a| cond_names_option(a, named))
        || c.not.iter().any(|a| cond_names_option(a, named))
}

/// Every selection of a rule.
fn sels(r: &Rule) -> impl Iterator<Item = &Sel> {
    effect_sels(r).chain(data_sels(r)).chain(r.text.as_ref())
}

/// The selections of a rule whose words an effect judges (paths, code, commands).
fn effect_sels(r: &Rule) -> impl Iterator<Item = &Sel> {
    let run = r.run.as_ref();
    [
        r.read.as_ref(),
        r.write.as_ref(),
        r.delete.as_ref(),
        r.chmod.as_ref(),
        r.wipe.as_ref(),
        r.cd.as_ref(),
        run.and_then(|x| x.shell.as_ref()),
        run.and_then(|x| x.file.as_ref()),
        run.and_then(|x| x.code.as_ref()),
        run.and_then(|x| x.sql.as_ref()),
        run.and_then(|x| x.config.as_ref()),
        run.and_then(|x| x.project_config.as_ref()),
        run.and_then(|x| x.repository.as_ref()),
    ]
    .into_iter()
    .flatten()
}

/// The selections of a rule whose words are data.
fn data_sels(r: &Rule) -> impl Iterator<Item = &Sel> {
    [
        r.data.as_ref(),
        r.env.as_ref(),
        r.rewrites.as_ref().and_then(|w| w.rev.as_ref()),
    ]
    .into_iter()
    .flatten()
}

/// Marks the words a rule that applies names: its selections, the command it runs (from its
/// first word to the end), and the words its condition matched.
fn rule_words(r: &Rule, v: &View<'_>, marks: &mut Marks) {
    use super::schema::PathNote;
    // A rule that only looks for protected paths or credentials among the words (a net) says
    // nothing about what the others are.
    let net = matches!(
        r.note,
        Some(PathNote::ProtectedOnly | PathNote::CredentialsOnly)
    );
    for s in effect_sels(r).filter(|_| !net) {
        for i in sel_indices(s, v) {
            // An option that names the path (`-o FILE`) is the option's word, not the path.
            if v.scan.pos_index.contains(&i) || v.scan.opts.iter().any(|o| o.value_index == Some(i))
            {
                marks.effect(v.offset + i);
            } else {
                marks.set(v.offset + i);
            }
        }
    }
    for s in data_sels(r) {
        for i in sel_indices(s, v) {
            marks.set(v.offset + i);
        }
    }
    if let Some(s) = &r.text {
        for i in sel_indices(s, v) {
            marks.text(v.offset + i);
        }
    }
    if let Some(cmd) = r.run.as_ref().and_then(|x| x.command.as_ref())
        && let Some(first) = sel_indices(cmd, v).into_iter().min()
    {
        for i in first..v.words.len() {
            marks.effect(v.offset + i);
        }
    }
    if let Some(c) = &r.when {
        cond_words(c, v, marks);
    }
}

/// Marks the words a condition's positive tests matched (`arg0`, `args_any`, `word`,
/// `every_word`): the rule read them.
fn cond_words(c: &Cond, v: &View<'_>, marks: &mut Marks) {
    let sc = &v.scan;
    let lower = |w: &Word| {
        if c.icase {
            w.text.to_ascii_lowercase()
        } else {
            w.text.clone()
        }
    };
    let hit =
        |list: &[Str], w: &Word| w.literal && list.iter().any(|p| wildcard_or_eq(p, &lower(w)));
    if !c.arg0.is_empty()
        && let (Some(w), Some(&i)) = (sc.pos.first(), sc.pos_index.first())
        && hit(&c.arg0, w)
    {
        marks.set(v.offset + i);
    }
    if !c.args_any.is_empty() {
        for (w, &i) in sc.pos.iter().zip(&sc.pos_index) {
            if hit(&c.args_any, w) {
                marks.set(v.offset + i);
            }
        }
    }
    for (i, w) in v.words.iter().enumerate() {
        if hit(&c.word, w) || hit(&c.every_word, w) {
            marks.set(v.offset + i);
        }
    }
}

fn wildcard_or_eq(p: &str, t: &str) -> bool {
    if p.contains('*') {
        super::schema::wildcard(p, t)
    } else {
        p == t
    }
}

/// Returns the indices in the view's words a selection names (as `matcher::select` picks:
/// the first alternative that names any).
fn sel_indices(sel: &Sel, v: &View<'_>) -> Vec<usize> {
    let sc = &v.scan;
    let n = sc.pos.len();
    for pick in sel.0.iter() {
        let got: Vec<usize> = match pick {
            Pick::Arg(i) => index(*i, n).map(|i| sc.pos_index[i]).into_iter().collect(),
            Pick::Args { from, to } => {
                let from = clamp(*from, n);
                let to = to.map_or(n, |t| clamp(t, n)).max(from);
                sc.pos_index[from..to].to_vec()
            }
            Pick::Opt(names) => sc
                .opts
                .iter()
                .filter(|o| o.is_any(names, sc.abbrev) && o.value.is_some())
                .flat_map(|o| [Some(o.index), o.value_index].into_iter().flatten())
                .collect(),
            Pick::Cwd | Pick::Root => Vec::new(),
            Pick::Words => (0..v.words.len()).collect(),
        };
        if !got.is_empty() {
            return got;
        }
    }
    Vec::new()
}

fn index(i: i16, n: usize) -> Option<usize> {
    let i = if i < 0 {
        n.checked_sub(usize::from(i.unsigned_abs()))?
    } else {
        usize::from(i.unsigned_abs())
    };
    (i < n).then_some(i)
}

fn clamp(i: i16, n: usize) -> usize {
    if i < 0 {
        n.saturating_sub(usize::from(i.unsigned_abs()))
    } else {
        usize::from(i.unsigned_abs()).min(n)
    }
}

#[cfg(test)]
mod tests {
    use super::super::matcher::{Facts, descend, holds};
    use super::super::schema::{Carried, Pack};
    use super::*;

    fn pack(yaml: &str) -> &'static Entry {
        let p: Pack = serde_saphyr::from_str(yaml).unwrap();
        assert_eq!(super::super::check::check(&p), vec![]);
        let p: &'static Pack = Box::leak(Box::new(p));
        &p.programs[0]
    }

    fn words(line: &str) -> Vec<Word> {
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(Word::lit)
            .collect()
    }

    /// The words of `line` the entry does not account for, as the walker applies its rules.
    fn unexplained(e: &'static Entry, line: &str) -> Vec<String> {
        let w = words(line);
        let d = descend(e, &w);
        let no = |_: &Word| false;
        let facts = Facts {
            elevated: false,
            input: &[] as &[Carried],
            credential: &no,
        };
        let mut applied = Vec::new();
        if let Some((r, v)) = d.levels.iter().rev().find_map(|l| {
            l.entry
                .rules
                .iter()
                .find(|r| holds(r, &l.own, facts))
                .map(|r| (r, &l.own))
        }) {
            applied.push((r, v));
        }
        for l in &d.levels {
            for r in l.entry.also.iter().filter(|r| holds(r, l.tail(), facts)) {
                applied.push((r, l.tail()));
            }
        }
        gaps(&d, &w, &applied)
            .gaps
            .into_iter()
            .map(|g| {
                let t = w[g.index].text.clone();
                if g.option { format!("opt {t}") } else { t }
            })
            .collect()
    }

    const GIT: &str = r#"pack: t
programs:
  - name: git
    abbreviations: true
    valued: [-C, -c]
    also:
      - {when: {value: {option: [-c], matches: ["alias.*"]}}, id: exec, explain: x, act: vcs.configure}
    sub:
      - name: log
        flags: [--oneline, -p]
        valued: [-n, --format]
        rules: [{id: r, explain: x, act: vcs.read, data: args}]
      - name: checkout
        flags: [-q, -f]
        rules:
          - {when: {word: ["--"]}, id: d, explain: x, act: vcs.discard, data: args}
          - {id: s, explain: x, act: vcs.change, rewrites: {from: tree, rev: "args[0]"}}
      - name: diff
        valued: [--output]
        rules: [{id: r, explain: x, act: vcs.read}]
        also: [{when: {option: [--output]}, id: o, explain: x, write: "opt(--output)"}]
      - name: status
        rules: [{id: r, explain: x, act: vcs.read}]
    rules: [{id: other, explain: x, act: vcs.change}]
  "#;

    #[test]
    fn every_word_needs_a_role() {
        let git = pack(GIT);
        for (line, want) in [
            ("log --oneline -n 5 main", vec![]),
            ("log --onel -p", vec![]),
            ("-C dir log -n5", vec![]),
            ("log --graph", vec!["opt --graph"]),
            ("log --format=%H -x", vec!["opt -x"]),
            ("checkout -q main", vec![]),
            ("checkout -q main file.txt", vec!["file.txt"]),
            ("checkout main -- file.txt", vec![]),
            ("status", vec![]),
            ("status src", vec!["src"]),
            ("status --short", vec!["opt --short"]),
            ("status --help", vec![]),
            ("diff --output out.txt", vec![]),
            ("-c alias.x=y log", vec![]),
            ("frobnicate x", vec!["frobnicate", "x"]),
        ] {
            assert_eq!(unexplained(git, line), want, "git {line}");
        }
    }

    #[test]
    fn a_cluster_of_known_letters_and_a_long_one_dash_flag_are_known() {
        let e = pack(
            "pack: t\nprograms:\n  - name: c\n    flags: [-r, -f, -print]\n    valued: [-o]\n    rules: [{id: x, explain: x, delete: args}]\n",
        );
        assert_eq!(unexplained(e, "-rf a b"), Vec::<String>::new());
        assert_eq!(unexplained(e, "-print a"), Vec::<String>::new());
        assert_eq!(unexplained(e, "-rfx a"), vec!["opt -rfx"]);
        assert_eq!(unexplained(e, "-ofile a"), Vec::<String>::new());
    }

    #[test]
    fn any_option_is_a_parameter_and_the_words_after_one_are_values() {
        let e = pack(
            r#"pack: t
programs:
  - name: cloud
    options: any
    sub_word: any
    sub:
      - name: [delete]
        rules: [{id: d, explain: x, act: cloud.destroy}]
      - name: [list]
        rules: [{id: r, explain: x, act: cloud.read}]
    rules: [{id: c, explain: x, act: cloud.change}]
"#,
        );
        assert_eq!(
            unexplained(e, "vm list --filter a b --x"),
            Vec::<String>::new()
        );
        // A word after an option is a value: it selects no subcommand.
        let w = words("vm create --name list");
        assert_eq!(descend(e, &w).sub, "");
        assert_eq!(
            unexplained(e, "vm create --name list"),
            vec!["vm", "create"]
        );
    }

    #[test]
    fn a_command_a_rule_runs_accounts_for_its_words_and_skipped_ones() {
        let e = pack(
            "pack: t\nprograms:\n  - name: timeout\n    options_first: true\n    flags: [-k]\n    rules: [{id: x, explain: x, run: {command: \"args[0]\", skip: 1}}]\n",
        );
        assert_eq!(unexplained(e, "-k 5 rm -rf x"), Vec::<String>::new());
        assert_eq!(unexplained(e, "--foo 5 rm"), vec!["opt --foo"]);
    }
}
