//! Handlers for builtins that print or set variables: `echo`/`printf` (and `printf -v`),
//! `set`/`export`/`declare` and the like, by what they show of secrets.

use crate::shell::{self, RedirectKind, Simple, Word};

use super::super::effect::Effect;
use super::super::pack::schema::Act;
use super::super::paths;
use super::apply::Handled;
use super::{Leaf, Walker};

impl Walker<'_> {
    /// `echo` and `printf`: the text they print flows to the next command.
    pub(super) fn h_print(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (name, args) = (c.name, c.args());
        if name == "printenv" {
            return self.h_variables(c, leaf);
        }
        // A variable whose name says it holds a secret, printed where the agent reads it.
        if let Some(v) = args
            .iter()
            .filter(|a| !a.literal)
            .find_map(|a| super::super::secret_vars::secret_in(&a.text))
        {
            leaf.produces.secret = true;
            if prints_to_agent(c.s, self) {
                let why = format!("{name} prints ${v}, a variable that holds a secret");
                self.act(c, Act::SecretsRead, "print-secret", &why);
                return;
            }
        }
        if name == "printf" && self.printf_to_variable(c) {
            return;
        }
        if args.iter().all(|a| a.literal) {
            let mut texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
            if name == "echo" {
                while texts
                    .first()
                    .is_some_and(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                {
                    texts.remove(0);
                }
            }
            let joined = texts.join(" ");
            if name == "printf" || args.iter().any(|a| a.text == "-e") {
                if joined.contains("\\x")
                    || joined.contains("\\0")
                    || joined.contains("\\u")
                    || joined.contains('%')
                {
                    leaf.produces.decode = true;
                }
                leaf.produces.text = Some(shell::decode_ansi_c(&joined));
            } else {
                leaf.produces.text = Some(joined);
            }
        } else {
            leaf.produces.decode = true;
        }
        self.act(
            c,
            Act::ShellHarmless,
            "print",
            &format!("{name} prints text"),
        );
    }

    /// `printf -v NAME FORMAT [ARGS]`: assigns instead of printing. A name with a subscript
    /// (`a[$(cmd)]`, `arr[$i]`) is evaluated as arithmetic, which runs the command
    /// substitutions in it and in the values of the variables it names; a name computed at
    /// run time can be one. A plain name is an assignment of the formatted text, judged as
    /// one (`printf -v PATH …`). Returns whether it printed nothing.
    fn printf_to_variable(&mut self, c: &Handled<'_, '_, '_>) -> bool {
        let args = c.args();
        let (var, rest) = match args.first().map(|w| w.text.as_str()) {
            Some("-v") => match args.get(1) {
                Some(n) => (n.clone(), &args[2..]),
                None => return false,
            },
            Some(t) if t.starts_with("-v") && args[0].literal => (
                Word {
                    text: t[2..].to_owned(),
                    ..args[0].clone()
                },
                &args[1..],
            ),
            _ => return false,
        };
        let rest = match rest.first() {
            Some(w) if w.text == "--" => &rest[1..],
            _ => rest,
        };
        let plain = !var.text.is_empty()
            && !var.text.starts_with(|ch: char| ch.is_ascii_digit())
            && var
                .text
                .chars()
                .all(|ch| ch == '_' || ch.is_ascii_alphanumeric());
        if !var.literal || !plain {
            let subscript = var.text.find('[').map_or("", |i| &var.text[i..]);
            let why = if !var.literal {
                "printf -v assigns to a name computed at run time (a subscript in it is arithmetic bash evaluates, running the commands in it)"
            } else if subscript.contains(['$', '`']) {
                "printf -v assigns to an array element whose subscript bash evaluates as arithmetic (it runs $(…), backquotes and the values of the variables in it)"
            } else if var.text.ends_with(']')
                && subscript.len() > 2
                && subscript[1..subscript.len() - 1]
                    .chars()
                    .all(|ch| ch.is_ascii_digit())
            {
                // A number is no arithmetic that runs anything.
                ""
            } else if subscript.ends_with(']') {
                "printf -v assigns to an array element whose subscript bash evaluates as arithmetic (a name in it is a variable whose value is evaluated in turn)"
            } else {
                "printf -v assigns to a word that is no variable name"
            };
            if !why.is_empty() {
                // The commands in it are judged as if they ran.
                let inner = subscript
                    .find("$(")
                    .map(|i| &subscript[i + 2..subscript.rfind(')').unwrap_or(subscript.len())])
                    .or_else(|| {
                        let i = subscript.find('`')?;
                        let j = subscript.rfind('`').filter(|j| *j > i)?;
                        Some(&subscript[i + 1..j])
                    });
                if let Some(inner) = inner.filter(|t| !t.trim().is_empty()) {
                    let inner = inner.to_owned();
                    self.line(&inner, c.depth + 1);
                }
                self.found(c, Effect::NotUnderstood, "printf-assign", why, "");
                return true;
            }
        }
        let name = var.text.split('[').next().unwrap_or("").to_owned();
        let value = match rest {
            [format] if !format.text.contains(['%', '\\']) => format.clone(),
            _ => Word {
                text: rest
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                literal: false,
                ..Word::default()
            },
        };
        self.assignment(c.s, &name, &value, c.depth);
        self.act(
            c,
            Act::ShellHarmless,
            "print",
            "printf -v formats text into a variable",
        );
        true
    }

    /// printenv: printing the whole environment, or a variable whose name says it holds a
    /// secret, reads secrets; printing others is harmless.
    fn h_variables(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let (name, args) = (c.name, c.args());
        match variables_printed(name, args) {
            Some(what) => {
                leaf.produces.secret = true;
                if prints_to_agent(c.s, self) {
                    self.act(
                        c,
                        Act::SecretsRead,
                        "print-secret",
                        &format!("{name} prints {what}"),
                    );
                } else {
                    self.act(
                        c,
                        Act::ShellHarmless,
                        "harmless",
                        &format!("{name} prints {what} into a file"),
                    );
                }
            }
            None => self.act(
                c,
                Act::ShellHarmless,
                "harmless",
                &format!("{name} only reads state or prints"),
            ),
        }
    }

    /// set, declare, typeset, local, readonly, export: what the pack says of the words is
    /// kept (which set variables, which are computed); this adds that printing the whole
    /// environment, or a variable whose name says it holds a secret, where the agent reads
    /// it, reads secrets (`declare -p DATABASE_URL`, `set | grep KEY`).
    pub(super) fn printed_variables(&mut self, s: &Simple, name: &str, args: &[Word]) {
        let Some(what) = variables_printed(name, args) else {
            return;
        };
        if prints_to_agent(s, self) {
            let f = self.own(
                &Effect::Act(Act::SecretsRead),
                "print-secret",
                &format!("{name} prints {what}"),
                "",
            );
            self.push(&s.text, f);
        }
    }
}

/// Returns whether what a command prints reaches the agent: its output is not redirected to
/// a file or thrown away (`> /dev/null`). A pipe is the agent's too: oath does not follow
/// what the next command does with it.
pub(super) fn prints_to_agent(s: &Simple, w: &Walker<'_>) -> bool {
    !s.redirects.iter().any(|r| {
        matches!(r.kind, RedirectKind::Write | RedirectKind::Append)
            && matches!(r.fd, None | Some(1))
            && {
                let t = w.target(&r.target);
                t.zone != paths::Zone::Harmless
                    || t.path.as_deref().is_some_and(|p| {
                        matches!(p.to_str(), Some("/dev/null" | "/dev/zero" | "/dev/full"))
                    })
            }
    })
}

/// Returns what a builtin that prints variables prints of secrets, when it does: the whole
/// environment, or a variable whose name says it holds a secret.
fn variables_printed(name: &str, args: &[Word]) -> Option<String> {
    use super::super::secret_vars::is_secret_variable;
    let flags: String = args
        .iter()
        .filter(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.len() > 1)
        .flat_map(|a| a.text[1..].chars())
        .collect();
    let names: Vec<&Word> = args
        .iter()
        .filter(|a| !a.text.starts_with('-') && !a.text.starts_with('+'))
        .collect();
    let dump = match name {
        // `printenv [-0]`: every variable.
        "printenv" => names.is_empty(),
        // `set` alone prints every variable (with options, it sets them).
        "set" => args.is_empty(),
        // `export`, `export -p`, `readonly`, `readonly -p`.
        "export" | "readonly" => names.is_empty() && flags.chars().all(|f| f == 'p'),
        // `declare`, `declare -p`, `declare -x`: variables and values (not `-f`, `-F`:
        // functions).
        _ => names.is_empty() && !flags.contains(['f', 'F']),
    };
    if dump {
        return Some("the whole environment, secrets included".to_owned());
    }
    let prints = match name {
        "printenv" => true,
        "declare" | "typeset" | "export" | "local" | "readonly" => flags.contains('p'),
        _ => false,
    };
    names
        .iter()
        .map(|w| w.text.split('=').next().unwrap_or(""))
        .find(|n| prints && is_secret_variable(n))
        .map(|n| format!("${n}, a variable that holds a secret"))
}
