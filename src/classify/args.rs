//! Option scanning for command arguments: short clusters (`-rf`), long options
//! (`--force`, `--output=x`), options that take a value, and positionals after `--`.

use crate::shell::Word;

/// One option as written, with its value when it takes one.
#[derive(Debug, Clone)]
pub(crate) struct Opt {
    /// The option with its dashes (`-o`, `--output`).
    pub name: String,
    /// Its value.
    pub value: Option<Word>,
}

/// Scanned arguments.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan<'w> {
    /// Options in order.
    pub opts: Vec<Opt>,
    /// Positional arguments in order.
    pub pos: Vec<&'w Word>,
    /// Index in the argument slice of each positional.
    pub pos_index: Vec<usize>,
}

impl Scan<'_> {
    /// Returns whether any of the named options is present.
    pub fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|o| names.contains(&o.name.as_str()))
    }

    /// Returns the values of the named options.
    pub fn values<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.opts
            .iter()
            .filter(move |o| names.contains(&o.name.as_str()))
            .filter_map(|o| o.value.as_ref())
    }

    /// Returns the first value of the named options.
    pub fn value<'a>(&'a self, names: &'a [&str]) -> Option<&'a Word> {
        self.values(names).next()
    }
}

/// Scans `args`. `valued` lists options taking a value (`-o`, `--output`); with
/// `stop_at_first_positional`, everything from the first positional on is positional
/// (commands that take a sub-command or a wrapped command).
pub(crate) fn scan<'w>(
    args: &'w [Word],
    valued: &[&str],
    stop_at_first_positional: bool,
) -> Scan<'w> {
    let mut s = Scan::default();
    let mut i = 0;
    let mut only_pos = false;
    while i < args.len() {
        let a = &args[i];
        let t = a.text.as_str();
        if only_pos || !t.starts_with('-') || t == "-" || !a.literal && !t.starts_with('-') {
            s.pos.push(a);
            s.pos_index.push(i);
            if stop_at_first_positional {
                only_pos = true;
            }
            i += 1;
            continue;
        }
        if t == "--" {
            only_pos = true;
            i += 1;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let name = format!("--{name}");
            let value = if let Some(v) = inline {
                Some(Word {
                    text: v.to_owned(),
                    ..a.clone()
                })
            } else if valued.contains(&name.as_str()) {
                i += 1;
                args.get(i).cloned()
            } else {
                None
            };
            s.opts.push(Opt { name, value });
            i += 1;
            continue;
        }
        // A short cluster: `-rf`, `-ofile`, `-o file`.
        let chars: Vec<char> = t[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let name = format!("-{}", chars[k]);
            if valued.contains(&name.as_str()) {
                let rest: String = chars[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i).cloned()
                } else {
                    Some(Word {
                        text: rest,
                        ..a.clone()
                    })
                };
                s.opts.push(Opt { name, value });
                break;
            }
            s.opts.push(Opt { name, value: None });
            k += 1;
        }
        i += 1;
    }
    s
}
