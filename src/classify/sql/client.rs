//! A client's own commands, from their manuals: psql's and mysql's backslash commands,
//! SQLite's and DuckDB's dot-commands, sqlcmd's `:` commands. A closed list of those that
//! only read or format; those that run programs, open editors or reach files are outside
//! the database; any other is a command oath does not know.

use super::Sql;
use super::lex::{self, Stmt, Tok};

/// Returns what a client's command (`\o file`, `.shell cmd`, `:r file`) does.
pub(super) fn command(text: &str) -> Sql {
    let (sign, rest) = text.split_at(1);
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    match sign {
        "\\" => backslash(name, args),
        "." => dot(&name.to_ascii_lowercase(), args),
        ":" => colon(&name.to_ascii_lowercase()),
        _ => Sql::Outside, // `!! cmd`: sqlcmd runs a shell command.
    }
}

/// psql's and mysql's backslash commands (psql's are case-sensitive: `\T` is not `\t`).
fn backslash(name: &str, args: &str) -> Sql {
    if name.starts_with('!') {
        return Sql::Outside;
    }
    let with_args = |v: Sql| if args.is_empty() { Sql::Read } else { v };
    match name {
        // A file, a pipe or a program for the output; a file of statements; an editor; the
        // shell's environment or directory; large objects to and from files.
        "g" | "gx" | "o" | "out" | "w" | "write" | "s" => with_args(Sql::Outside),
        "T" | "P" | "tee" | "e" | "edit" | "ef" | "ev" | "setenv" | "cd" | "lo_import"
        | "lo_export" | "system" => Sql::Outside,
        "copy" => copy(args),
        "i" | "ir" | "include" | "include_relative" | "." | "gexec" => Sql::Unknown,
        "lo_unlink" => Sql::Destroy,
        "password" => Sql::Change,
        n if n.starts_with('d') => Sql::Read,
        "l" | "l+" | "list" | "z" | "sf" | "sf+" | "sv" | "sv+" | "conninfo" | "encoding"
        | "timing" | "x" | "a" | "t" | "pset" | "q" | "quit" | "?" | "h" | "help" | "echo"
        | "qecho" | "warn" | "set" | "unset" | "c" | "connect" | "r" | "reset" | "p" | "print"
        | "f" | "H" | "html" | "C" | "prompt" | "errverbose" | "crosstabview" | "gdesc"
        | "gset" | "if" | "elif" | "else" | "endif" | "watch" | "bind" | "bind_named" | "parse"
        | "close_prepared" | "startpipeline" | "endpipeline" | "syncpipeline" | "sendpipeline"
        | "flushrequest" | "flush" | "getresults" | "lo_list" | "restrict" | "unrestrict"
        | "copyright" | "getenv" | "G" | "u" | "W" | "n" | "#" | "R" | "N" => Sql::Read,
        _ => Sql::Unknown,
    }
}

/// psql's `\copy`: to the client's output, from its input, or a file or program.
fn copy(args: &str) -> Sql {
    let toks = match lex::statements(args, lex::POSTGRES).into_iter().next() {
        Some(Stmt::Sql(t)) => t,
        _ => return Sql::Unknown,
    };
    let at = |w: &str| toks.iter().position(|t| *t == Tok::Word(w.into()));
    let target = match (at("to"), at("from")) {
        (Some(i), _) | (None, Some(i)) => toks.get(i + 1),
        (None, None) => return Sql::Unknown,
    };
    match target {
        Some(Tok::Word(w)) if w == "stdout" || w == "pstdout" => Sql::Read,
        Some(Tok::Word(w)) if w == "stdin" || w == "pstdin" => Sql::Change,
        _ => Sql::Outside,
    }
}

/// SQLite's and DuckDB's dot-commands.
fn dot(name: &str, args: &str) -> Sql {
    match name {
        "output" | "once" if args.is_empty() => Sql::Read,
        "shell" | "system" | "output" | "once" | "excel" | "import" | "load" | "read" | "save"
        | "backup" | "restore" | "open" | "cd" | "log" | "trace" | "iotrace" | "clone"
        | "archive" | "ar" | "www" | "sh" => Sql::Outside,
        "tables" | "table" | "schema" | "fullschema" | "indexes" | "indices" | "databases"
        | "dump" | "headers" | "header" | "mode" | "help" | "show" | "stats" | "timer"
        | "width" | "nullvalue" | "separator" | "print" | "echo" | "eqp" | "explain"
        | "changes" | "bail" | "quit" | "exit" | "lint" | "dbinfo" | "parameter" | "prompt"
        | "timeout" | "limit" | "binary" | "crnl" | "sha3sum" | "expert" | "selecttrace"
        | "treetrace" | "vfsinfo" | "vfslist" | "vfsname" | "columns" | "rows" | "maxrows"
        | "maxwidth" | "highlight" | "last" | "progress" | "scanstats" | "check" => Sql::Read,
        _ => Sql::Unknown,
    }
}

/// sqlcmd's `:` commands.
fn colon(name: &str) -> Sql {
    match name {
        n if n.starts_with("!!") => Sql::Outside,
        "out" | "error" | "perftrace" | "ed" => Sql::Outside,
        "setvar" | "listvar" | "on" | "exit" | "quit" | "connect" | "serverlist" | "xml"
        | "help" | "reset" => Sql::Read,
        _ => Sql::Unknown,
    }
}
