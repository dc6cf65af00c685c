//! Reading a command's words against its pack entry: the subcommands it descends into, the
//! options and positional words of each level, which rules hold, and which words a rule's
//! selection names.

use crate::classify::args::{Scan, scan_with};
use crate::shell::Word;

use super::schema::{Carried, Cond, Entry, Options, Pick, Rule, Sel, SubWord, wildcard};

/// One level of a command: the program or a subcommand.
#[derive(Debug)]
pub(crate) struct Level<'w> {
    /// The entry.
    pub entry: &'static Entry,
    /// Its own words: the options before the next subcommand's word, or, at the deepest
    /// level, every word left. What its `rules` see.
    pub own: View<'w>,
    /// Every word from this level on, the subcommands' too, when that differs from `own`
    /// and the entry has `also` rules to see it (`docker run --privileged` at `docker`).
    tail: Option<View<'w>>,
}

impl<'w> Level<'w> {
    /// Returns every word from this level on: what its `also` rules see.
    pub fn tail(&self) -> &View<'w> {
        self.tail.as_ref().unwrap_or(&self.own)
    }
}

/// Some words of a command, scanned into options and positionals.
#[derive(Debug)]
pub(crate) struct View<'w> {
    /// The words.
    pub words: &'w [Word],
    /// Scanned.
    pub scan: Scan<'w>,
    /// Index of its first word among the command's arguments.
    pub offset: usize,
}

/// The levels a command descends through, program first.
#[derive(Debug)]
pub(crate) struct Descent<'w> {
    /// The levels.
    pub levels: Vec<Level<'w>>,
    /// The subcommand words, one space apart (`stash drop`).
    pub sub: String,
    /// The word where a subcommand should be is computed at run time.
    pub computed: bool,
    /// Index among the command's arguments of each word that selected a subcommand.
    pub sub_index: Vec<usize>,
}

/// What the walker knows about the command beyond its words.
#[derive(Clone, Copy)]
pub(crate) struct Facts<'a> {
    /// It runs with root's rights.
    pub elevated: bool,
    /// Its input carries downloaded, decoded or secret content.
    pub input: &'a [Carried],
    /// Whether a word names a file that holds credentials.
    pub credential: &'a dyn Fn(&Word) -> bool,
}

/// Returns the levels `args` descend through from `program`.
pub(crate) fn descend<'w>(program: &'static Entry, args: &'w [Word]) -> Descent<'w> {
    let mut levels = Vec::new();
    let mut valued: Vec<&'static str> = Vec::new();
    let mut flags: Vec<&'static str> = Vec::new();
    let mut entry = program;
    let mut words = args;
    let mut sub = String::new();
    let mut computed = false;
    let mut sub_index = Vec::new();
    let mut offset = 0;
    let mut any_option = false;
    let abbrev = program.abbreviations;
    let scan = |w: &'w [Word], v: &[&'static str], f: &[&'static str], first: bool| {
        scan_with(w, v, f, first, abbrev)
    };
    loop {
        // A subcommand's own flag takes no value, whatever a level above says (`git -c` takes
        // one, `git log -c` none).
        valued.retain(|v| !entry.flags.iter().any(|f| f.as_ref() == *v));
        valued.extend(entry.valued.iter().map(|v| v.as_ref()));
        flags.retain(|f| !entry.valued.iter().any(|v| v.as_ref() == *f));
        flags.extend(entry.flags.iter().map(|f| f.as_ref()));
        any_option |= entry.options == Options::Any;
        let next = if entry.sub.is_empty() {
            None
        } else {
            match entry.sub_word {
                SubWord::First => {
                    let sc = scan(words, &valued, &flags, true);
                    match sc.pos.first() {
                        Some(w) if !w.literal => {
                            computed = true;
                            None
                        }
                        Some(w) => {
                            let t = w.text.as_str();
                            entry
                                .sub
                                .iter()
                                .find(|s| s.name.exact(t))
                                .or_else(|| entry.sub.iter().find(|s| s.name.pattern(t)))
                                .map(|s| (s, sc.pos_index[0]))
                        }
                        None => None,
                    }
                }
                SubWord::Any => {
                    let sc = scan(words, &valued, &flags, entry.options_first);
                    // Where any option is a parameter, a word after one may be its value: the
                    // command's words are the ones before the first option.
                    let first_option = sc
                        .opts
                        .first()
                        .filter(|_| any_option)
                        .map_or(usize::MAX, |o| o.index);
                    entry.sub.iter().find_map(|s| {
                        sc.pos.iter().zip(&sc.pos_index).find_map(|(w, &i)| {
                            (i < first_option
                                && w.literal
                                && (s.name.exact(&w.text) || s.name.pattern(&w.text)))
                            .then_some((s, i))
                        })
                    })
                }
            }
        };
        match next {
            Some((s, i)) => {
                let here = &words[..i];
                levels.push(Level {
                    entry,
                    own: View {
                        words: here,
                        scan: scan(here, &valued, &flags, entry.options_first),
                        offset,
                    },
                    tail: (!entry.also.is_empty()).then(|| View {
                        words,
                        scan: scan(words, &valued, &flags, false),
                        offset,
                    }),
                });
                if !sub.is_empty() {
                    sub.push(' ');
                }
                sub.push_str(&words[i].text);
                sub_index.push(offset + i);
                entry = s;
                words = &words[i + 1..];
                offset += i + 1;
            }
            None => {
                levels.push(Level {
                    entry,
                    own: View {
                        words,
                        scan: scan(words, &valued, &flags, entry.options_first),
                        offset,
                    },
                    tail: None,
                });
                return Descent {
                    levels,
                    sub,
                    computed,
                    sub_index,
                };
            }
        }
    }
}

/// Returns whether a word matches a pattern (`*` matches any run of characters).
fn matches(pattern: &str, text: &str) -> bool {
    if pattern.contains('*') {
        wildcard(pattern, text)
    } else {
        pattern == text
    }
}

fn any_match(patterns: &[super::schema::Str], w: &Word, icase: bool) -> bool {
    if !w.literal {
        return false;
    }
    if icase {
        let lower = w.text.to_ascii_lowercase();
        patterns.iter().any(|p| matches(p, &lower))
    } else {
        patterns.iter().any(|p| matches(p, &w.text))
    }
}

/// Returns whether a rule's condition holds on some words.
pub(crate) fn holds(rule: &Rule, level: &View<'_>, facts: Facts<'_>) -> bool {
    rule.when.as_ref().is_none_or(|c| cond(c, level, facts))
}

fn cond(c: &Cond, level: &View<'_>, facts: Facts<'_>) -> bool {
    let sc = &level.scan;
    if !c.option.is_empty() && !sc.has(&c.option) {
        return false;
    }
    if !c.no_option.is_empty() && sc.has(&c.no_option) {
        return false;
    }
    if !c.arg0.is_empty()
        && !sc
            .pos
            .first()
            .is_some_and(|w| any_match(&c.arg0, w, c.icase))
    {
        return false;
    }
    if !c.args_any.is_empty() && !sc.pos.iter().any(|w| any_match(&c.args_any, w, c.icase)) {
        return false;
    }
    if !c.word.is_empty() && !level.words.iter().any(|w| any_match(&c.word, w, c.icase)) {
        return false;
    }
    if !c.every_word.is_empty()
        && !level
            .words
            .iter()
            .all(|w| any_match(&c.every_word, w, c.icase))
    {
        return false;
    }
    if let Some(v) = &c.value {
        let hits = |w: &Word| {
            let text = if v.icase {
                w.text.to_ascii_lowercase()
            } else {
                w.text.clone()
            };
            v.matches.iter().any(|p| matches(p, &text))
        };
        let hit = if v.every {
            sc.values(&v.option).next().is_some() && sc.values(&v.option).all(hits)
        } else {
            sc.values(&v.option).any(hits)
        };
        if !hit {
            return false;
        }
    }
    if let Some(b) = c.no_args
        && sc.pos.is_empty() != b
    {
        return false;
    }
    if let Some(n) = c.min_args
        && sc.pos.len() < usize::from(n)
    {
        return false;
    }
    if let Some(b) = c.elevated
        && facts.elevated != b
    {
        return false;
    }
    if !c.input.is_empty() && !c.input.iter().any(|k| facts.input.contains(k)) {
        return false;
    }
    if let Some(b) = c.credential_arg
        && sc.pos.iter().any(|w| (facts.credential)(w)) != b
    {
        return false;
    }
    if let Some(b) = c.literal
        && level.words.iter().all(|w| w.literal) != b
    {
        return false;
    }
    if !c.any.is_empty() && !c.any.iter().any(|a| cond(a, level, facts)) {
        return false;
    }
    if c.not.iter().any(|n| cond(n, level, facts)) {
        return false;
    }
    true
}

/// Returns the words a selection names (`None` stands for the working directory, or for the
/// project's root when the alternative that named it is `root`: [`placeholder`]), from the
/// first alternative that names any.
pub(crate) fn select(sel: &Sel, level: &View<'_>) -> Vec<Option<Word>> {
    let pos = &level.scan.pos;
    for pick in sel.0.iter() {
        let got: Vec<Option<Word>> = match pick {
            Pick::Arg(i) => index(*i, pos.len())
                .map(|i| Some(pos[i].clone()))
                .into_iter()
                .collect(),
            Pick::Args { from, to } => {
                let n = pos.len();
                let from = clamp(*from, n);
                let to = to.map_or(n, |t| clamp(t, n)).max(from);
                pos[from..to].iter().map(|w| Some((*w).clone())).collect()
            }
            Pick::Opt(names) => level.scan.values(names).map(|w| Some(w.clone())).collect(),
            Pick::Cwd | Pick::Root => vec![None],
            Pick::Words => level.words.iter().map(|w| Some(w.clone())).collect(),
        };
        if !got.is_empty() {
            return got;
        }
    }
    Vec::new()
}

/// Returns the pick a selection's `None` word stands for: the first `cwd` or `root` among its
/// alternatives (the only ones that always name something).
pub(crate) fn placeholder(sel: &Sel) -> Option<&Pick> {
    sel.0.iter().find(|p| matches!(p, Pick::Cwd | Pick::Root))
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
    use super::super::schema::Pack;
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

    const TOOL: &str = r#"pack: t
programs:
  - name: tool
    valued: [--region]
    also:
      - {when: {option: [--force]}, id: f, explain: x, act: remote.destroy}
    sub:
      - name: [get, "list-*"]
        rules: [{id: r, explain: x, act: remote.read}]
      - name: group
        sub_word: any
        sub:
          - name: [delete, "remove-*"]
            rules: [{id: d, explain: x, act: remote.destroy}]
          - name: [show]
            rules: [{id: r, explain: x, act: remote.read}]
        rules: [{id: c, explain: x, act: remote.change}]
    rules: [{id: c, explain: x, act: remote.change}]
"#;

    #[test]
    fn descent_follows_exact_names_patterns_and_any_word() {
        let e = pack(TOOL);
        for (line, sub, depth) in [
            ("--region eu get x", "get", 2),
            ("list-things", "list-things", 2),
            ("group a b delete c", "group delete", 3),
            ("group x remove-y", "group remove-y", 3),
            ("group x", "group", 2),
            ("unknown x", "", 1),
            ("", "", 1),
        ] {
            let w = words(line);
            let d = descend(e, &w);
            assert_eq!((d.sub.as_str(), d.levels.len()), (sub, depth), "{line}");
            assert!(!d.computed);
        }
        // The word where a subcommand should be is computed at run time.
        let mut w = words("x get");
        w[0].literal = false;
        assert!(descend(e, &w).computed);
    }

    #[test]
    fn a_levels_words_stop_at_the_next_subcommand_and_its_tail_holds_the_rest() {
        let e = pack(TOOL);
        let w = words("--region eu group a delete --force z");
        let d = descend(e, &w);
        let top = &d.levels[0];
        assert_eq!(top.own.words.len(), 2);
        assert_eq!(top.tail().words.len(), w.len());
        assert!(top.tail().scan.has(&["--force"]));
        assert!(!top.own.scan.has(&["--force"]));
        let deepest = d.levels.last().unwrap();
        let pos: Vec<&str> = deepest
            .own
            .scan
            .pos
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(pos, ["z"]);
    }

    fn holds_on(cond: &str, line: &str) -> bool {
        let yaml = format!(
            "pack: t\nprograms:\n  - name: c\n    valued: [-o, -X]\n    rules:\n      - when: {cond}\n        id: x\n        explain: x\n        act: remote.read\n      - {{id: y, explain: y, act: remote.read}}\n"
        );
        let e = pack(&yaml);
        let w = words(line);
        let d = descend(e, &w);
        let credential = |w: &Word| w.text.ends_with(".pem");
        let facts = Facts {
            elevated: line.contains("ROOT"),
            input: &[Carried::Secret],
            credential: &credential,
        };
        holds(&e.rules[0], &d.levels[0].own, facts)
    }

    #[test]
    fn conditions_table() {
        for (cond, line, want) in [
            ("{option: [-f]}", "-rf x", true),
            ("{option: [-f]}", "-r x", false),
            ("{option: [--force]}", "--force=yes", true),
            ("{no_option: [-n]}", "-n", false),
            ("{arg0: [drop]}", "drop x", true),
            ("{arg0: [drop]}", "x drop", false),
            ("{args_any: [\"+*\"]}", "origin +main", true),
            ("{word: [--]}", "a -- b", true),
            ("{every_word: [show, -a]}", "-a show", true),
            ("{every_word: [show, -a]}", "-a set", false),
            ("{every_word: [show]}", "", true),
            (
                "{value: {option: [-X], matches: [delete], icase: true}}",
                "-X DELETE u",
                true,
            ),
            (
                "{value: {option: [-X], matches: [delete]}}",
                "-X DELETE u",
                false,
            ),
            (
                "{value: {option: [-o], matches: [\"*.pem\"]}}",
                "-o k.pem",
                true,
            ),
            // `every`: each value matches (the last of repeated ones decides for the program).
            (
                "{value: {option: [-X], matches: [get], icase: true, every: true}}",
                "-X GET -X get u",
                true,
            ),
            (
                "{value: {option: [-X], matches: [get], icase: true, every: true}}",
                "-X GET -X PUT u",
                false,
            ),
            (
                "{value: {option: [-X], matches: [get], icase: true}}",
                "-X GET -X PUT u",
                true,
            ),
            (
                "{value: {option: [-X], matches: [\"*\"], every: true}}",
                "u",
                false,
            ),
            ("{no_args: true}", "-v", true),
            ("{no_args: true}", "x", false),
            ("{min_args: 2}", "a b", true),
            ("{min_args: 2}", "a", false),
            ("{elevated: true}", "ROOT", true),
            ("{elevated: true}", "x", false),
            ("{input: [secret]}", "x", true),
            ("{input: [download]}", "x", false),
            ("{credential_arg: true}", "a k.pem", true),
            ("{credential_arg: true}", "a b", false),
            ("{literal: true}", "a b", true),
            ("{arg0: [drop], icase: true}", "DROP", true),
            ("{any: [{arg0: [a]}, {arg0: [b]}]}", "b", true),
            ("{not: [{arg0: [a]}, {arg0: [b]}]}", "b", false),
            ("{not: [{arg0: [a]}]}", "c", true),
            ("{option: [-f], arg0: [x]}", "-f y", false),
        ] {
            assert_eq!(holds_on(cond, line), want, "{cond} on `{line}`");
        }
    }

    #[test]
    fn selections_pick_positionals_options_and_alternatives() {
        let e = pack(
            "pack: t\nprograms:\n  - name: c\n    valued: [-o]\n    rules: [{id: x, explain: x, act: remote.read}]\n",
        );
        let w = words("a -o out b c");
        let d = descend(e, &w);
        let v = &d.levels[0].own;
        let pick = |s: &str| -> Vec<String> {
            select(&s.parse().unwrap(), v)
                .into_iter()
                .map(|w| w.map_or("<cwd>".to_owned(), |w| w.text))
                .collect()
        };
        assert_eq!(pick("args"), ["a", "b", "c"]);
        assert_eq!(pick("args[1:]"), ["b", "c"]);
        assert_eq!(pick("args[:-1]"), ["a", "b"]);
        assert_eq!(pick("args[-1]"), ["c"]);
        assert_eq!(pick("args[9]"), Vec::<String>::new());
        assert_eq!(pick("opt(-o)"), ["out"]);
        assert_eq!(pick("opt(--output) | args[0]"), ["a"]);
        assert_eq!(pick("opt(--output) | cwd"), ["<cwd>"]);
        assert_eq!(pick("words").len(), 5);
    }
}
