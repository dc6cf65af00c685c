//! What one SQL statement does, from its tokens ([`super::lex`]): the functions and
//! procedures it calls wherever they are written, the statements inside its parentheses
//! (`WITH d AS (DELETE …)`, `COPY (…) TO`), then its kind by its first word, closed: a
//! statement oath does not know is not understood.

use super::Sql;
use super::lex::{Dialect, Tok};
use super::names::*;

/// What the statements of one text have set up for later ones (`PREPARE p AS …`, then
/// `EXECUTE p`), and how deep statements inside statements go.
#[derive(Debug, Default)]
pub(super) struct Batch {
    prepared: Vec<(String, Sql)>,
    depth: usize,
    /// The reading the text is in: statements inside statements are read in it alone.
    reading: Option<Dialect>,
}

impl Batch {
    /// Returns a batch for the statements of a text read in `reading` within `outer` (a
    /// whole text's batch, or a prepared text's): as deep as `outer`, in `outer`'s reading
    /// when it has one, nothing prepared yet.
    pub(super) fn within(outer: &Batch, reading: Dialect) -> Batch {
        Batch {
            prepared: Vec::new(),
            depth: outer.depth,
            reading: Some(outer.reading.unwrap_or(reading)),
        }
    }

    /// Returns the reading statements inside this text's statements are read in.
    pub(super) fn reading(&self) -> Option<Dialect> {
        self.reading
    }
}

/// Statements inside statements (bodies, prepared text) beyond this depth are not read.
const MAX_DEPTH: usize = 6;

fn word(t: &Tok) -> Option<&str> {
    match t {
        Tok::Word(w) => Some(w),
        _ => None,
    }
}

fn name(t: &Tok) -> Option<&str> {
    match t {
        Tok::Word(w) | Tok::Ident(w) => Some(w),
        _ => None,
    }
}

/// The tokens outside any parentheses (and the outermost parentheses themselves), with
/// their positions.
fn top(toks: &[Tok]) -> Vec<(usize, &Tok)> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(') => {
                if depth == 0 {
                    out.push((i, t));
                }
                depth += 1;
            }
            Tok::Punct(')') if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push((i, t));
                }
            }
            _ if depth == 0 => out.push((i, t)),
            _ => {}
        }
    }
    out
}

fn first_word(toks: &[Tok]) -> Option<&str> {
    toks.iter().find_map(word)
}

/// Returns whether a destroying word stands as an act (`DELETE FROM`), not a condition
/// (`ON DELETE CASCADE`).
fn destroys(toks: &[Tok]) -> bool {
    toks.iter().enumerate().any(|(i, t)| {
        word(t).is_some_and(|w| DESTROYING_WORDS.contains(&w))
            && !(i > 0 && word(&toks[i - 1]).is_some_and(|p| NOT_AN_ACT.contains(&p)))
    })
}

/// Returns whether a word starts one of the SQL statements oath knows.
pub(super) fn is_statement(w: &str) -> bool {
    [
        READ_STATEMENTS,
        CHANGE_STATEMENTS,
        DESTROY_STATEMENTS,
        OUTSIDE_STATEMENTS,
        &[
            "with", "explain", "describe", "desc", "copy", "pragma", "prepare", "execute", "exec",
            "do", "call",
        ],
    ]
    .iter()
    .any(|list| list.contains(&w))
}

/// Returns what a statement does.
pub(super) fn statement(toks: &[Tok], b: &mut Batch) -> Sql {
    if b.depth > MAX_DEPTH {
        return Sql::Unknown;
    }
    b.depth += 1;
    let files = matches!(
        first_word(toks),
        Some(
            "select"
                | "with"
                | "from"
                | "insert"
                | "create"
                | "table"
                | "summarize"
                | "describe"
                | "desc"
                | "explain"
                | "pivot"
                | "unpivot"
                | "merge"
                | "update"
                | "delete"
        )
    );
    let v = anywhere(toks)
        .max(if files {
            reads_files(&top(toks))
        } else {
            Sql::Read
        })
        .max(inside(toks, b))
        .max(by_first_word(toks, b));
    b.depth -= 1;
    v
}

/// What the names a statement calls, and its markers, do wherever they are written.
fn anywhere(toks: &[Tok]) -> Sql {
    let mut v = Sql::Read;
    let create = first_word(toks) == Some("create");
    let mut executes = false;
    for (i, t) in toks.iter().enumerate() {
        if *t == Tok::Var {
            v = v.max(Sql::Unknown);
            continue;
        }
        let Some(n) = name(t) else {
            continue;
        };
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        // A function is judged where it is called (not a table's column list, `INSERT INTO
        // url(a)`), and where a definition names it (`CREATE OPERATOR … PROCEDURE =
        // pg_read_file`).
        let called = toks.get(i + 1) == Some(&Tok::Punct('('))
            && !prev
                .and_then(word)
                .is_some_and(|p| matches!(p, "into" | "table" | "update"))
            || create && prev == Some(&Tok::Punct('='));
        // A procedure is run by `EXEC`, or named first in a batch (SQL Server).
        let run = called || executes || i == 0;
        executes |= matches!(n, "exec" | "execute") && matches!(t, Tok::Word(_));
        if called && OUTSIDE_FUNCTIONS.contains(&n)
            || run && (n.starts_with("xp_") || OUTSIDE_PROCEDURES.contains(&n))
            || OUTSIDE_WORDS.contains(&n) && matches!(t, Tok::Word(_))
        {
            return Sql::Outside;
        }
        if called && DESTROY_FUNCTIONS.contains(&n) || run && DESTROY_PROCEDURES.contains(&n) {
            v = v.max(Sql::Destroy);
        }
        if called && UNKNOWN_FUNCTIONS.contains(&n) || run && UNKNOWN_PROCEDURES.contains(&n) {
            v = v.max(Sql::Unknown);
        }
    }
    v
}

/// DuckDB reads a file named where a table is (`FROM '~/.aws/credentials'`): outside the
/// database. Only a query's own `FROM` counts (not `trim(both 'x' FROM 'y')`, `PREPARE s
/// FROM 'text'` or `REVOKE … FROM 'user'`).
fn reads_files(top: &[(usize, &Tok)]) -> Sql {
    let file = top.windows(2).any(|w| {
        matches!(word(w[0].1), Some("from" | "join"))
            && match w[1].1 {
                Tok::Str(_) => true,
                Tok::Ident(p) => p.contains(['/', '.', '~']),
                _ => false,
            }
    });
    if file { Sql::Outside } else { Sql::Read }
}

/// What the statements inside a statement's parentheses do (`WITH d AS (DELETE …)`,
/// `COPY (…) TO`, `INSERT … (SELECT …)`): every pair of parentheses, at any depth, that
/// opens on a statement's first word is judged as one (the ones inside it by that judgement,
/// as deep as [`MAX_DEPTH`]). One pass, no recursion over the parentheses themselves.
fn inside(toks: &[Tok], b: &mut Batch) -> Sql {
    let mut v = Sql::Read;
    let mut open: Vec<usize> = Vec::new();
    let mut starts = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(') => open.push(i),
            Tok::Punct(')') => {
                if let Some(o) = open.pop()
                    && opens_statement(toks.get(o + 1))
                {
                    starts.push((o + 1, i));
                }
            }
            _ => {}
        }
    }
    // Unclosed pairs run to the end.
    starts.extend(
        open.into_iter()
            .filter(|o| opens_statement(toks.get(o + 1)))
            .map(|o| (o + 1, toks.len())),
    );
    // Only the outermost pairs that open a statement: those inside them are judged with them.
    starts.sort_unstable();
    let mut judged_until = 0;
    for (from, to) in starts {
        if from < judged_until {
            continue;
        }
        judged_until = to;
        v = v.max(statement(&toks[from..to], b));
    }
    v
}

fn opens_statement(t: Option<&Tok>) -> bool {
    matches!(
        t.and_then(word),
        Some(
            "select"
                | "with"
                | "insert"
                | "update"
                | "delete"
                | "merge"
                | "values"
                | "table"
                | "replace"
        )
    )
}

fn by_first_word(toks: &[Tok], b: &mut Batch) -> Sql {
    let Some(first) = first_word(toks) else {
        return Sql::Read;
    };
    let top = top(toks);
    let top_has = |w: &str| top.iter().any(|(_, t)| word(t) == Some(w));
    match first {
        "select" => {
            if top_has("into") {
                // A new table, or variables (`SELECT … INTO newtable`).
                Sql::Change
            } else {
                Sql::Read
            }
        }
        "with" => with(toks, &top, b),
        "explain" | "describe" | "desc" => explain(toks, b),
        "copy" => copy(&top),
        "update" => {
            if top_has("where") {
                Sql::Change
            } else {
                Sql::Destroy
            }
        }
        "insert" | "replace" | "upsert" | "merge" => {
            if destroys(toks) || top_has("overwrite") {
                Sql::Destroy
            } else {
                Sql::Change
            }
        }
        "alter" => {
            if top.get(1).and_then(|(_, t)| word(t)) == Some("system")
                || destroys(toks)
                || top_has("discard")
            {
                // `ALTER SYSTEM` rewrites the server's configuration.
                Sql::Destroy
            } else {
                Sql::Change
            }
        }
        "create" => create(toks, &top, b),
        "grant" => Sql::Change,
        "set" => {
            if ["global", "persist", "persist_only"]
                .iter()
                .any(|w| top_has(w))
            {
                // The server's settings, for every session (and after a restart).
                Sql::Destroy
            } else {
                Sql::Change
            }
        }
        "reset" => match top.get(1).and_then(|(_, t)| word(t)) {
            Some("master" | "replica" | "slave" | "binary" | "persist") => Sql::Destroy,
            _ => Sql::Change,
        },
        "pragma" => pragma(&top),
        "vacuum" if top_has("into") => Sql::Outside,
        "prepare" => prepare(toks, b),
        "execute" | "exec" => execute(toks, b),
        // A code block, a procedure: code oath does not read.
        "do" | "call" => Sql::Unknown,
        // mysql's client commands written as words.
        "source" => Sql::Unknown,
        "tee" | "pager" | "edit" => Sql::Outside,
        "nopager" | "notee" | "warnings" | "nowarning" | "status" | "charset" | "connect"
        | "prompt" | "rehash" | "delimiter" | "ego" | "quit" | "exit" => Sql::Read,
        f if OUTSIDE_STATEMENTS.contains(&f) => Sql::Outside,
        f if DESTROY_STATEMENTS.contains(&f) => Sql::Destroy,
        _ if destroys(toks) => Sql::Destroy,
        f if READ_STATEMENTS.contains(&f) => Sql::Read,
        f if CHANGE_STATEMENTS.contains(&f) => Sql::Change,
        // SQL Server runs a procedure named first in a batch.
        f if READ_PROCEDURES.contains(&f) => Sql::Read,
        _ => Sql::Unknown,
    }
}

/// `WITH … AS (…) main`: the common table expressions were judged as statements inside
/// parentheses; the main statement is judged here.
fn with(toks: &[Tok], top: &[(usize, &Tok)], b: &mut Batch) -> Sql {
    let main = top.iter().skip(1).find(|(_, t)| {
        word(t).is_some_and(|w| {
            matches!(
                w,
                "select" | "insert" | "update" | "delete" | "merge" | "values" | "table"
            )
        })
    });
    match main {
        Some((i, _)) => statement(&toks[*i..], b),
        None => Sql::Unknown,
    }
}

/// `EXPLAIN [options] statement`: only `ANALYZE` runs the statement it explains.
fn explain(toks: &[Tok], b: &mut Batch) -> Sql {
    let mut i = 1;
    let mut analyze = false;
    if toks.get(i) == Some(&Tok::Punct('(')) {
        let close = toks
            .iter()
            .position(|t| *t == Tok::Punct(')'))
            .unwrap_or(toks.len() - 1);
        analyze |= toks[i..close]
            .iter()
            .any(|t| matches!(word(t), Some("analyze" | "analyse")));
        i = close + 1;
    }
    while let Some(t) = toks.get(i) {
        match t {
            Tok::Word(w) if EXPLAIN_OPTIONS.contains(&w.as_str()) => {
                analyze |= w == "analyze" || w == "analyse";
            }
            Tok::Punct('=') => {}
            _ => break,
        }
        i += 1;
    }
    let inner = &toks[i.min(toks.len())..];
    if analyze && !inner.is_empty() {
        statement(inner, b)
    } else {
        Sql::Read
    }
}

/// `COPY … TO STDOUT` reads, `COPY … FROM STDIN` loads what the client sends; any other
/// target is a file or a program of the server.
fn copy(top: &[(usize, &Tok)]) -> Sql {
    let at = top
        .iter()
        .skip(1)
        .position(|(_, t)| matches!(word(t), Some("to" | "from")))
        .map(|p| p + 1);
    let Some(at) = at else {
        return Sql::Unknown;
    };
    let dir = word(top[at].1);
    match (dir, top.get(at + 1).and_then(|(_, t)| word(t))) {
        (Some("to"), Some("stdout")) => Sql::Read,
        (Some("from"), Some("stdin")) => Sql::Change,
        _ => Sql::Outside,
    }
}

/// `CREATE …`: extensions and foreign servers reach outside; functions and procedures are
/// judged by their language and their body.
fn create(toks: &[Tok], top: &[(usize, &Tok)], b: &mut Batch) -> Sql {
    let head: Vec<&str> = top.iter().take(8).filter_map(|(_, t)| word(t)).collect();
    let has = |w: &str| head.contains(&w);
    if has("extension")
        || has("server")
        || has("foreign") && (has("table") || has("data"))
        || has("user") && has("mapping")
    {
        return Sql::Outside;
    }
    if has("or") && has("replace") && has("table") {
        // `CREATE OR REPLACE TABLE` drops the table it replaces.
        return Sql::Destroy;
    }
    let routine = ["function", "procedure", "trigger", "event", "rule", "macro"]
        .iter()
        .any(|w| has(w));
    if !routine {
        return Sql::Change;
    }
    let language = toks
        .windows(2)
        .find(|w| word(&w[0]) == Some("language"))
        .and_then(|w| name(&w[1]));
    if language.is_some_and(|l| UNTRUSTED_LANGUAGES.contains(&l)) {
        return Sql::Outside;
    }
    let mut v = Sql::Change;
    if destroys(toks) {
        v = Sql::Destroy;
    }
    for t in toks {
        match t {
            Tok::Str(s) => v = v.max(body(s, false, b)),
            Tok::Body(s) => v = v.max(body(s, true, b)),
            _ => {}
        }
    }
    v
}

/// A routine's body: each of its statements from its first statement keyword (after
/// `BEGIN`, `DECLARE …`, a label or `RETURN QUERY`), and the functions it calls; dynamic SQL
/// in it (`EXECUTE format(…)`) is code oath does not read.
fn body(text: &str, dollar: bool, b: &mut Batch) -> Sql {
    let mut v = Sql::Change;
    // A dollar-quoted body is PostgreSQL's; a string body is read as its statement was.
    let reading = if dollar {
        super::lex::POSTGRES
    } else {
        b.reading().unwrap_or(super::lex::POSTGRES)
    };
    for s in super::lex::statements(text, reading) {
        let toks = match s {
            super::lex::Stmt::Sql(t) => t,
            super::lex::Stmt::Client(c) => {
                v = v.max(super::client::command(&c));
                continue;
            }
        };
        if toks
            .iter()
            .any(|t| matches!(word(t), Some("execute" | "exec" | "sp_executesql")))
        {
            v = v.max(Sql::Unknown);
        }
        v = v.max(anywhere(&toks));
        if let Some(p) = toks
            .iter()
            .position(|t| word(t).is_some_and(|w| BODY_STATEMENTS.contains(&w)))
        {
            v = v.max(statement(&toks[p..], b));
        }
    }
    v
}

/// `PREPARE p AS statement` (PostgreSQL), `PREPARE p FROM 'text'` (MySQL): judged as the
/// statement, which `EXECUTE p` runs.
fn prepare(toks: &[Tok], b: &mut Batch) -> Sql {
    let Some(pname) = toks.get(1).and_then(name).map(str::to_owned) else {
        return Sql::Unknown;
    };
    let at = toks
        .iter()
        .position(|t| matches!(word(t), Some("as" | "from")));
    let v = match at.map(|i| &toks[i + 1..]) {
        Some([Tok::Str(text)]) => super::judge_sql(text, b),
        Some(rest) if !rest.is_empty() && word(&toks[at.unwrap_or(0)]) == Some("as") => {
            statement(rest, b)
        }
        _ => Sql::Unknown,
    };
    b.prepared.push((pname, v));
    v
}

/// `EXECUTE p` of a statement prepared in the same text; `EXECUTE IMMEDIATE 'text'`; a
/// procedure (SQL Server's `EXEC name`): known ones by name, any other is not read.
fn execute(toks: &[Tok], b: &mut Batch) -> Sql {
    let Some(target) = toks.get(1) else {
        return Sql::Unknown;
    };
    let n = name(target).unwrap_or("");
    if n == "immediate" {
        return match &toks[2..] {
            [Tok::Str(text)] => super::judge_sql(text, b),
            _ => Sql::Unknown,
        };
    }
    if let Some((_, v)) = b.prepared.iter().rev().find(|(p, _)| p == n) {
        return *v;
    }
    // `EXEC master..sp_who`: the procedure is the last part of its name.
    let last = toks[1..]
        .iter()
        .take_while(|t| matches!(t, Tok::Word(_) | Tok::Ident(_) | Tok::Punct('.')))
        .filter_map(name)
        .last()
        .unwrap_or("");
    if READ_PROCEDURES.contains(&last) {
        Sql::Read
    } else {
        Sql::Unknown
    }
}

/// `PRAGMA name`, `PRAGMA name = value`, `PRAGMA name(argument)`.
fn pragma(top: &[(usize, &Tok)]) -> Sql {
    let sets = top.iter().any(|(_, t)| **t == Tok::Punct('='));
    let named = top
        .iter()
        .skip(1)
        .rev()
        .find_map(|(_, t)| name(t))
        .unwrap_or("");
    let argument = top.iter().any(|(_, t)| **t == Tok::Punct('('));
    if sets || argument && !READ_PRAGMAS.contains(&named) {
        Sql::Change
    } else {
        Sql::Read
    }
}
