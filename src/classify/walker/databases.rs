//! The database clients' handler: the statements they are given (in arguments, in the
//! values of the options that carry them, on stdin), judged by what they do
//! ([`super::super::sql::judge`]); without any, a session.

use super::super::effect::{Code, Effect};
use super::super::pack::schema::Act;
use super::super::sql::{self, Sql};
use super::Walker;
use super::apply::Handled;

impl Walker<'_> {
    /// Database clients: the statements they are given (in arguments, option values or on
    /// stdin), judged by what they do ([`sql::judge`]); without any, a session.
    pub(super) fn h_sql(&mut self, c: &Handled<'_, '_, '_>) {
        let name = c.name;
        let args = c.args();
        let flag = |names: &[&str]| args.iter().any(|a| names.contains(&a.text.as_str()));
        // SQL text: quoted arguments or ones with spaces, `--execute=…`-style values, stdin.
        let mut texts: Vec<String> = args
            .iter()
            .filter(|a| (a.quoted || a.text.contains(' ')) && !a.text.starts_with('-'))
            .map(|a| a.text.clone())
            .collect();
        for a in args {
            for prefix in ["--execute=", "--command=", "--eval=", "-cmd="] {
                if let Some(v) = a.text.strip_prefix(prefix) {
                    texts.push(v.to_owned());
                }
            }
        }
        // The options that carry statements (as the client's entry scans them).
        let carriers = [
            "-c",
            "--command",
            "-e",
            "--execute",
            "--eval",
            "-cmd",
            "-s",
            "-Q",
            "-q",
            "--query",
        ];
        let mut computed = false;
        for v in c.level.own.scan.values(&carriers) {
            computed |= !v.literal;
            texts.push(v.text.clone());
        }
        if let Some(w) = &c.s.stdin_text {
            computed |= !w.literal;
            texts.push(w.text.clone());
        }
        // A command given as words (`redis-cli FLUSHALL`, `redis-cli -n 1 DEL k`, `sqlite3 db
        // .shell`): the words together, and each alone.
        let words: Vec<&str> = args
            .iter()
            .map(|a| a.text.as_str())
            .filter(|t| !t.starts_with('-'))
            .collect();
        if texts.is_empty() {
            for i in 0..words.len() {
                let joined = words[i..].join(" ");
                if sql::looks_like(&joined) {
                    texts.push(joined);
                }
            }
        }
        let help = flag(&[
            "--help",
            "-help",
            "-?",
            "--version",
            "-version",
            "-V",
            "-l",
            "--list",
        ]) && args.len() <= 3;
        let read_only = flag(&["-readonly", "--readonly", "-safe", "--safe"]);
        if computed {
            self.found(
                c,
                Effect::NotUnderstood,
                "database-computed",
                &format!(
                    "{name} is given statements computed at run time: oath cannot tell what they do"
                ),
                "",
            );
        }
        // mongosh runs the `.js` files named after its options, and those of `--file`.
        if matches!(name, "mongo" | "mongosh") {
            let sc = &c.level.own.scan;
            let files = sc
                .pos
                .iter()
                .copied()
                .filter(|w| !w.literal || w.text.ends_with(".js"))
                .chain(sc.values(&["-f", "--file"]));
            for w in files.cloned().collect::<Vec<_>>() {
                let f = self.run_file(&w, &format!("{name} runs"));
                self.push(&c.s.text, f);
            }
        }
        // An option file names the client's pager and the statements it runs on connecting.
        if matches!(name, "mysql" | "mariadb") {
            let files: Vec<_> = c
                .level
                .own
                .scan
                .values(&["--defaults-file", "--defaults-extra-file"])
                .cloned()
                .collect();
            for w in files {
                let t = self.target(&w);
                self.found(
                    c,
                    Effect::Run(Code::Config(t)),
                    "run",
                    "",
                    &format!("{name} loads"),
                );
            }
        }
        let judged = texts.iter().map(|t| sql::judge(t)).max();
        let verdict = match judged {
            Some(Sql::Outside) => Sql::Outside,
            _ if help || read_only => Sql::Read,
            Some(v) => v,
            None => Sql::Change,
        };
        if judged.is_none() && verdict == Sql::Change {
            self.act(
                c,
                Act::DatabaseChange,
                "database",
                &format!("{name} talks to a database"),
            );
        } else {
            let (a, id, explain) = sql::act(verdict, name);
            self.act(c, a, id, &explain);
        }
    }
}
