//! The check of a pack: what deserialising into [`super::schema`] cannot see (rules that can
//! never apply, option conditions that could never hold, a rule without an effect, ids and
//! explanations missing). `build.rs` runs it on every built-in pack; `oath rules check` and
//! the loading of a user's packs run it too.

use std::fmt;

use super::schema::{Cond, Entry, Handler, Pack, Rule};

/// A problem of a pack that deserialising cannot see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where: `program sub … rule-id`.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Checks what deserialising cannot: names, ids and explanations present, every program able
/// to say what it does, a rule's effects consistent with each other.
pub fn check(pack: &Pack) -> Vec<Problem> {
    let mut out = Vec::new();
    if !is_id(&pack.pack) {
        out.push(Problem {
            at: format!("pack `{}`", pack.pack),
            message: "a pack's name is lowercase letters, digits and dashes".into(),
        });
    }
    if pack.programs.is_empty() {
        out.push(Problem {
            at: format!("pack `{}`", pack.pack),
            message: "names no program".into(),
        });
    }
    for p in pack.programs.iter() {
        let at = p.name.first().to_owned();
        if p.rules.is_empty() && p.handler.is_none() && p.sub.is_empty() {
            out.push(Problem {
                at: at.clone(),
                message: "a program needs rules, subcommands or a handler to say what it does"
                    .into(),
            });
        }
        check_entry(p, &at, true, &[], &mut out);
    }
    out
}

fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
}

fn check_entry(e: &Entry, at: &str, top: bool, parent_valued: &[&str], out: &mut Vec<Problem>) {
    let mut valued: Vec<&str> = parent_valued.to_vec();
    valued.extend(e.valued.iter().map(|v| v.as_ref()));
    let problem = |out: &mut Vec<Problem>, message: String| {
        out.push(Problem {
            at: at.to_owned(),
            message,
        })
    };
    if e.name.0.is_empty() || e.name.0.iter().any(|n| n.is_empty()) {
        problem(out, "an empty name".into());
    }
    if top && e.name.0.iter().any(|n| n.contains('/') || n.contains(' ')) {
        problem(
            out,
            "a program's name is a file name, without `/` or spaces".into(),
        );
    }
    for v in e.valued.iter() {
        if !v.starts_with('-') || v.len() < 2 || v.contains('=') {
            problem(
                out,
                format!("valued option `{v}` must be written with its dashes and without `=`"),
            );
        }
    }
    for v in e.flags.iter() {
        if !v.starts_with('-') || v.len() < 2 || v.contains('=') || v.as_ref() == "--" {
            problem(
                out,
                format!("flag `{v}` must be written with its dashes and without `=`"),
            );
        }
        if e.valued.iter().any(|x| x == v) {
            problem(
                out,
                format!("`{v}` is listed both as a flag and as taking a value"),
            );
        }
    }
    if e.handler == Some(Handler::Interpreter) && e.lang.is_none() {
        problem(out, "the interpreter handler needs `lang`".into());
    }
    let mut unconditional = false;
    for r in e.rules.iter() {
        if unconditional {
            problem(
                out,
                format!(
                    "rule `{}` comes after a rule without `when` and can never apply",
                    r.id
                ),
            );
        }
        if r.when.is_none() {
            unconditional = true;
        }
        check_rule(r, &format!("{at} {}", r.id), &valued, out);
    }
    for r in e.also.iter() {
        check_rule(r, &format!("{at} {}", r.id), &valued, out);
    }
    for s in e.sub.iter() {
        check_entry(s, &format!("{at} {}", s.name.first()), false, &valued, out);
    }
}

fn check_rule(r: &Rule, at: &str, valued: &[&str], out: &mut Vec<Problem>) {
    let mut problem = |message: &str| {
        out.push(Problem {
            at: at.to_owned(),
            message: message.to_owned(),
        })
    };
    if !is_id(&r.id) {
        problem("a rule id is lowercase letters, digits and dashes");
    }
    if r.explain.trim().is_empty() {
        problem("a rule explains what the command does (`explain`)");
    }
    if r.explain.contains('\n') {
        problem("`explain` is one line");
    }
    let paths = [&r.read, &r.write, &r.delete, &r.chmod, &r.wipe]
        .iter()
        .filter(|p| p.is_some())
        .count();
    let has_effect = r.act.is_some()
        || paths > 0
        || r.run.is_some()
        || r.cd.is_some()
        || r.flow.is_some()
        || r.rewrites.is_some()
        || r.env.is_some();
    if !has_effect {
        problem(
            "a rule states at least one effect (act, read, write, delete, chmod, wipe, run, cd, flow, rewrites or env)",
        );
    }
    if r.recursive.is_some() && r.delete.is_none() && r.chmod.is_none() {
        problem("`recursive` qualifies `delete` or `chmod`");
    }
    if r.verb.is_some() && paths == 0 {
        problem("`verb` qualifies a path effect (read, write, delete, chmod, wipe)");
    }
    if let Some(run) = &r.run {
        let kinds = [
            &run.command,
            &run.shell,
            &run.file,
            &run.code,
            &run.sql,
            &run.config,
            &run.project_config,
            &run.repository,
        ]
        .iter()
        .filter(|k| k.is_some())
        .count()
            + usize::from(run.tasks.is_some());
        if kinds != 1 {
            problem(
                "`run` names exactly one of command, shell, file, code, sql, config, project_config, repository or tasks",
            );
        }
    }
    if let Some(c) = &r.when {
        check_cond(c, at, valued, out);
    }
}

fn check_cond(c: &Cond, at: &str, valued: &[&str], out: &mut Vec<Problem>) {
    let value_opts = c.value.iter().flat_map(|v| v.option.iter());
    for o in c.option.iter().chain(c.no_option.iter()).chain(value_opts) {
        if !o.starts_with('-') || o.len() < 2 {
            out.push(Problem {
                at: at.to_owned(),
                message: format!("option `{o}` must be written with its dashes"),
            });
        } else if !o.starts_with("--") && o.len() > 2 && !valued.contains(&o.as_ref()) {
            // A one-dash word of several letters is read as a cluster of letters unless
            // it takes a value (`valued`): the condition could never hold.
            out.push(Problem {
                at: at.to_owned(),
                message: format!(
                    "`{o}` is read as the letters of a cluster; name it in `valued` if it takes a value, or test it with `word`"
                ),
            });
        }
    }
    for sub in c.any.iter().chain(c.not.iter()) {
        check_cond(sub, at, valued, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_finds_what_deserialising_cannot() {
        let pack: Pack = serde_saphyr::from_str(
            "pack: demo\nprograms:\n  - name: acme\n    rules:\n      - {id: Acme, explain: '', act: remote.read}\n      - {id: acme-late, explain: x, act: remote.read, recursive: true}\n",
        )
        .unwrap();
        let problems: Vec<String> = check(&pack).iter().map(|p| p.to_string()).collect();
        assert!(
            problems.iter().any(|p| p.contains("lowercase")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("explains")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("never apply")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("qualifies")),
            "{problems:?}"
        );
    }
}
