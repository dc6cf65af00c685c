//! The database clients' handler: the statements they are given (in arguments, in the
//! values of the options that carry them, on stdin), judged by what they do
//! ([`super::super::sql::judge_as`], in the client's language); statements piped in from
//! another program or a file are statements oath does not read; without any, a session.

use super::super::effect::{Code, Effect};
use super::super::pack::schema::Act;
use super::super::sql::{self, Lang, Sql};
use super::Walker;
use super::apply::Handled;
use crate::shell::RedirectKind;

impl Walker<'_> {
    /// Database clients: the statements they are given (in arguments, option values or on
    /// stdin), judged by what they do ([`sql::judge`]); without any, a session.
    pub(super) fn h_sql(&mut self, c: &Handled<'_, '_, '_>) {
        let name = c.name;
        let args = c.args();
        let lang = match name {
            "redis-cli" | "valkey-cli" => Lang::Redis,
            "mongo" | "mongosh" => Lang::Mongo,
            _ => Lang::Sql,
        };
        let flag = |names: &[&str]| args.iter().any(|a| names.contains(&a.text.as_str()));
        // SQL text: quoted arguments or ones with spaces, `--execute=…`-style values, stdin.
        // SQLite's and DuckDB's shells take statements after the database file; the other
        // clients' positional words are a database, a user or an address (a connection URI,
        // `key=value` pairs, `"$DATABASE_URL"`): statements only when they read as some.
        let positional_sql = matches!(name, "sqlite3" | "duckdb");
        let connection = |t: &str| {
            t.contains("://")
                || t.split_whitespace()
                    .next()
                    .is_some_and(|w| w.contains('=') && !sql::looks_like_in(t, lang))
        };
        let mut computed = false;
        let mut texts: Vec<String> = Vec::new();
        for a in args
            .iter()
            .filter(|a| (a.quoted || a.text.contains(' ')) && !a.text.starts_with('-'))
            .filter(|a| !connection(&a.text))
        {
            if positional_sql {
                computed |= !a.literal;
                texts.push(a.text.clone());
            } else if sql::looks_like_in(&a.text, lang) {
                texts.push(a.text.clone());
            }
        }
        for a in args {
            for prefix in [
                "--execute=",
                "--command=",
                "--eval=",
                "-cmd=",
                "--init-command=",
                "--query=",
            ] {
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
            "--init-command",
        ];
        // SQLite's and DuckDB's shells take long options after one dash and never cluster
        // them: `-lookaside` is not `-l -o … -s ide`.
        let single_dash = matches!(name, "sqlite3" | "duckdb");
        for o in &c.level.own.scan.opts {
            let written = args.get(o.index).map_or("", |a| a.text.as_str());
            if !o.is_any(&carriers, false) || single_dash && !carriers.contains(&written) {
                continue;
            }
            if let Some(v) = &o.value {
                computed |= !v.literal;
                texts.push(v.text.clone());
            }
        }
        if let Some(w) = &c.s.stdin_text {
            computed |= !w.literal;
            texts.push(w.text.clone());
        }
        // Statements a pipe or a file feeds in (when nothing else gives any: a client given
        // statements in its arguments does not read its input): literal text (`echo … |`) is
        // judged; anything else oath does not read.
        let mut unread = None;
        // MongoDB's shells run the script files they are named.
        if lang == Lang::Mongo
            && args
                .iter()
                .any(|a| !a.text.starts_with('-') && a.text.ends_with(".js"))
        {
            unread = Some("in a script file");
        }
        if texts.is_empty() && unread.is_none() {
            if let Some(flow) = c.stdin {
                match &flow.text {
                    Some(t) => texts.push(t.clone()),
                    None => unread = Some("piped from another program"),
                }
            } else if c
                .s
                .redirects
                .iter()
                .any(|r| r.kind == RedirectKind::Read && r.target.text != "/dev/null")
            {
                unread = Some("read from a file");
            }
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
                if sql::looks_like_in(&joined, lang) {
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
        // Redis's CONFIG GET prints the parameters it names: the passwords among them
        // (`requirepass`, `masterauth`), named or matched by a pattern (`*`), are secrets.
        if lang == Lang::Redis && redis_prints_secrets(&words) {
            self.act(
                c,
                Act::SecretsRead,
                "database-secret-read",
                &format!("{name} CONFIG GET prints the server's passwords"),
            );
        }
        // SQLite's and DuckDB's first word is the database file: it is read (a browser's
        // cookies, gcloud's tokens).
        if matches!(name, "sqlite3" | "duckdb")
            && let Some(db) = c.level.own.scan.pos.first()
        {
            let tg = self.resolved(db);
            if tg.credential {
                self.found(c, Effect::Read(tg), "read", "", "opens the database");
            }
        }
        let judged = texts
            .iter()
            .map(|t| sql::judge_as(t, lang))
            .chain(unread.map(|_| Sql::Unknown))
            .max();
        let verdict = match judged {
            // Read-only opens no other file and runs no other code.
            Some(v @ (Sql::Outside | Sql::Unknown)) => v,
            _ if help || read_only => Sql::Read,
            Some(v) => v,
            None => Sql::Change,
        };
        if let Some(how) = unread.filter(|_| verdict == Sql::Unknown) {
            self.found(
                c,
                Effect::NotUnderstood,
                "database-unread",
                &format!("{name} is given statements {how}: oath does not read them"),
                "",
            );
            return;
        }
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

/// Redis's configuration parameters that hold passwords.
const REDIS_SECRET_PARAMETERS: &[&str] = &[
    "requirepass",
    "masterauth",
    "tls-key-file-pass",
    "tls-client-key-file-pass",
];

/// Returns whether Redis words hold a `CONFIG GET` of a parameter holding a password, or of
/// a pattern that can match one (`*`, `*pass*`; `?` and `[…]` are taken as matching).
fn redis_prints_secrets(words: &[&str]) -> bool {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    lower
        .windows(2)
        .position(|w| w[0] == "config" && w[1] == "get")
        .is_some_and(|i| {
            lower[i + 2..].iter().any(|p| {
                p.contains(['?', '['])
                    || REDIS_SECRET_PARAMETERS
                        .iter()
                        .any(|s| super::super::pack::schema::wildcard(p, s))
            })
        })
}

/// Project scripts a pack describes by their file name: Rails' `bin/rails` and `bin/rake`,
/// Django's `manage.py`, Laravel's `artisan`.
const FRAMEWORK_SCRIPTS: &[&str] = &["rails", "rake", "manage.py", "artisan"];

impl Walker<'_> {
    /// A project script a pack describes by its file name (`python manage.py flush`,
    /// `bin/rails db:drop`), run: judged by that pack too, with the words after it. The
    /// script's own run accounts for every word, so the pack adds what it knows the command
    /// does and nothing it does not understand.
    pub(super) fn framework_script(
        &mut self,
        s: &crate::shell::Simple,
        script: &crate::shell::Word,
        rest: &[crate::shell::Word],
        depth: usize,
        stdin: Option<&super::Flow>,
    ) {
        let base = script.text.rsplit('/').next().unwrap_or("");
        if !script.literal
            || !FRAMEWORK_SCRIPTS.contains(&base)
            || !self.target(script).in_project()
        {
            return;
        }
        let Some(found) = super::super::pack::lookup(self.ctx.user_packs(), base) else {
            return;
        };
        let from = self.out.items.len();
        self.apply(s, base, found, rest, depth, stdin, super::Mods::default());
        let mut i = from;
        while i < self.out.items.len() {
            if self.out.items[i].1.kind == super::super::Kind::PartlyUnderstood {
                self.out.items.remove(i);
            } else {
                i += 1;
            }
        }
    }
}
