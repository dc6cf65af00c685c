//! What a database statement does, by what it does and not by how it starts: SQL (any
//! dialect oath meets: PostgreSQL, MySQL, SQLite, DuckDB, SQL Server), a client's own
//! commands (`\!`, `.shell`, `\o FILE`), Redis and MongoDB commands. Comments and odd spacing
//! inside keywords (`DROP/**/TABLE`) are read the way the server reads them. One judge for
//! every way a statement reaches a database: a client's arguments or input, and an MCP
//! tool's query.

mod client;
mod lex;
mod names;
mod nosql;
mod statement;
#[cfg(test)]
mod tests;

use lex::{Stmt, Tok};
use statement::Batch;

/// What a statement (or a batch of them) does, worst first when combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Sql {
    /// Reads: queries that only select, listings, help.
    Read,
    /// Changes data or settings in a way the database keeps (inserts, updates with a
    /// condition, creating tables).
    Change,
    /// Statements oath does not read: a code block (`DO $$ … $$`), a procedure it does not
    /// know (`CALL p()`), a prepared or interpolated statement, a client command it does not
    /// know.
    Unknown,
    /// Destroys data: drops, truncates, deletes, updates every row, flushes, ends other
    /// sessions, changes the server's settings.
    Destroy,
    /// Reaches outside the database: writes or reads files of the server or the client
    /// (`INTO OUTFILE`, `COPY … TO`, `writefile()`, `\o`), runs programs or loads native
    /// code (`\!`, `.shell`, `COPY … PROGRAM`, `load_extension`).
    Outside,
}

/// Returns the act a verdict is, with its rule id and what it does (after `who`, the
/// program or tool that is given the statements).
pub(crate) fn act(v: Sql, who: &str) -> (super::pack::schema::Act, &'static str, String) {
    use super::pack::schema::Act;
    match v {
        Sql::Outside => (
            Act::ShellUnknownCode,
            "database-outside",
            format!(
                "{who} is given statements that reach outside the database (run programs, load native code, read or write files)"
            ),
        ),
        Sql::Unknown => (
            Act::ShellUnknownCode,
            "database-unknown",
            format!(
                "{who} is given statements oath cannot read (a code block, a procedure, a prepared or interpolated statement, a client command it does not know)"
            ),
        ),
        Sql::Destroy => (
            Act::DatabaseDestroy,
            "database-destructive",
            format!(
                "{who} drops, truncates or deletes data, ends sessions or changes the server's settings"
            ),
        ),
        Sql::Read => (
            Act::DatabaseRead,
            "database-read",
            format!("{who} only reads (help, a listing, or queries that only select)"),
        ),
        Sql::Change => (
            Act::DatabaseChange,
            "database",
            format!("{who} changes data"),
        ),
    }
}

/// The language a text of statements is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// SQL, with the clients' own commands.
    Sql,
    /// Redis's commands, one a line.
    Redis,
    /// MongoDB's shell code.
    Mongo,
    /// Told by the text itself (`db.…` is MongoDB's, a Redis command's name is Redis's,
    /// anything else SQL).
    Auto,
}

/// Returns what a text of statements does, its language told by the text.
pub(crate) fn judge(text: &str) -> Sql {
    judge_as(text, Lang::Auto)
}

/// Returns what a text of statements in a language does.
pub(crate) fn judge_as(text: &str, lang: Lang) -> Sql {
    match lang {
        Lang::Redis => nosql::redis(text),
        Lang::Mongo => nosql::mongo(text),
        Lang::Sql => judge_sql(text, &mut Batch::default()),
        Lang::Auto if nosql::is_mongo(text) => nosql::mongo(text),
        Lang::Auto if redis_first(text) => nosql::redis(text),
        Lang::Auto => judge_sql(text, &mut Batch::default()),
    }
}

/// Returns the first word of a text, in lower case.
fn first_word(text: &str) -> String {
    text.split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Returns whether a text's first word is a Redis command that is no SQL statement's
/// (`CONFIG SET`, `FLUSHALL`; not `SET`, `DISCARD`).
fn redis_first(text: &str) -> bool {
    let first = first_word(text);
    nosql::is_redis(&first) && !statement::is_statement(&first)
}

/// Returns what SQL text does, read as each server would read it (the worst reading).
fn judge_sql(text: &str, outer: &mut Batch) -> Sql {
    let mut worst = Sql::Read;
    // Statements inside a statement (`PREPARE s FROM '…'`) are read as that one was.
    let readings = match outer.reading() {
        Some(d) => vec![d],
        None => lex::READINGS.to_vec(),
    };
    for d in readings {
        let mut b = Batch::within(outer, d);
        for stmt in lex::statements(text, d) {
            worst = worst.max(match stmt {
                Stmt::Sql(toks) => statement::statement(&toks, &mut b),
                Stmt::Client(c) => client::command(&c),
            });
            if worst == Sql::Outside {
                return worst;
            }
        }
    }
    worst
}

/// Returns whether a text reads as database statements in a language: SQL's first word is
/// a statement keyword or a client command, Redis's a command of Redis, MongoDB's shell code
/// starts with `db.`; in [`Lang::Auto`], any of them, Redis's only by a command that is no
/// English word (`HGETALL`, not `get`).
pub(crate) fn looks_like_in(text: &str, lang: Lang) -> bool {
    match lang {
        Lang::Redis => nosql::is_redis(&first_word(text)),
        Lang::Mongo => nosql::is_mongo(text),
        Lang::Sql => looks_like_sql(text),
        Lang::Auto => {
            nosql::is_mongo(text) || nosql::is_redis_only(&first_word(text)) || looks_like_sql(text)
        }
    }
}

/// Returns whether a text reads as database statements in any language
/// ([`looks_like_in`] with [`Lang::Auto`]).
pub(crate) fn looks_like(text: &str) -> bool {
    looks_like_in(text, Lang::Auto)
}

fn looks_like_sql(text: &str) -> bool {
    match lex::statements(text, lex::POSTGRES).first() {
        Some(Stmt::Client(_)) => true,
        Some(Stmt::Sql(toks)) => {
            matches!(toks.first(), Some(Tok::Word(w)) if KEYWORDS.contains(&w.as_str()))
        }
        None => false,
    }
}

const KEYWORDS: &[&str] = &[
    "select", "with", "insert", "update", "delete", "drop", "create", "alter", "truncate", "grant",
    "revoke", "merge", "replace", "upsert", "copy", "show", "describe", "desc", "explain",
    "pragma", "table", "values", "set", "call", "exec", "execute", "do", "begin", "commit",
    "rollback", "vacuum", "attach", "detach", "analyze", "reindex", "load", "install", "use",
    "rename", "comment", "lock", "unlock", "flush", "kill", "shutdown", "handler", "prepare",
];
