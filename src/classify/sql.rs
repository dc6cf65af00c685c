//! What a database statement does, by what it does and not by how it starts: SQL (any
//! dialect oath meets: PostgreSQL, MySQL, SQLite, DuckDB, SQL Server), a client's own
//! commands (`\!`, `.shell`, `\o FILE`), Redis and MongoDB commands. Comments and odd spacing
//! inside keywords (`DROP/**/TABLE`) are read the way the server reads them. One judge for
//! every way a statement reaches a database: a client's arguments or input, and an MCP
//! tool's query.

/// What a statement (or a batch of them) does, worst first when combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Sql {
    /// Reads: queries that only select, listings, help.
    Read,
    /// Changes data or settings in a way the database keeps (inserts, updates with a
    /// condition, creating tables).
    Change,
    /// Destroys data: drops, truncates, deletes, updates every row, flushes, ends other
    /// sessions.
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
        Sql::Destroy => (
            Act::DatabaseDestroy,
            "database-destructive",
            format!("{who} drops, truncates or deletes data, or ends sessions"),
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

/// Returns what a text of statements does.
pub(crate) fn judge(text: &str) -> Sql {
    let mut worst = Sql::Read;
    for stmt in statements(text) {
        worst = worst.max(statement(&stmt));
        if worst == Sql::Outside {
            break;
        }
    }
    worst
}

/// Returns whether a text reads as database statements at all (its first word is a
/// statement keyword, a client command or a Redis/Mongo command oath knows).
pub(crate) fn looks_like(text: &str) -> bool {
    statements(text).first().is_some_and(|s| {
        let first = s.split(' ').next().unwrap_or("");
        KEYWORDS.contains(&first)
            || first.starts_with('\\')
            || first.starts_with('.')
            || first.starts_with("db.")
            || REDIS_DESTROY.contains(&first)
            || REDIS_READ.contains(&first)
    })
}

const KEYWORDS: &[&str] = &[
    "select", "with", "insert", "update", "delete", "drop", "create", "alter", "truncate", "grant",
    "revoke", "merge", "replace", "upsert", "copy", "show", "describe", "desc", "explain",
    "pragma", "table", "values", "set", "call", "exec", "execute", "do", "begin", "commit",
    "rollback", "vacuum", "attach", "detach", "analyze", "reindex", "load", "install", "use",
    "rename", "comment", "lock", "unlock", "flush", "kill", "shutdown", "handler",
];

/// Redis commands that destroy data, change the server or run code.
const REDIS_DESTROY: &[&str] = &[
    "flushall",
    "flushdb",
    "del",
    "unlink",
    "shutdown",
    "debug",
    "config",
    "eval",
    "evalsha",
    "eval_ro",
    "evalsha_ro",
    "fcall",
    "function",
    "script",
    "module",
    "replicaof",
    "slaveof",
    "failover",
    "swapdb",
    "migrate",
    "restore",
    "acl",
    "client",
    "bgrewriteaof",
    "save",
    "bgsave",
    "expire",
    "pexpire",
    "getdel",
    "hdel",
    "srem",
    "zrem",
    "lrem",
    "ltrim",
    "xdel",
    "xtrim",
    "rename",
    "renamenx",
];

/// Redis commands that only read.
const REDIS_READ: &[&str] = &[
    "get",
    "mget",
    "keys",
    "scan",
    "exists",
    "ttl",
    "pttl",
    "type",
    "info",
    "ping",
    "dbsize",
    "hget",
    "hgetall",
    "hkeys",
    "hvals",
    "hlen",
    "hexists",
    "smembers",
    "sismember",
    "scard",
    "lrange",
    "llen",
    "lindex",
    "zrange",
    "zscore",
    "zcard",
    "strlen",
    "xrange",
    "xlen",
    "memory",
    "time",
    "echo",
    "lastsave",
    "role",
    "command",
    "object",
];

/// Splits a text into statements, normalised as the server reads them: comments removed
/// (`-- …`, `# …` at a line's start, `/* … */`, each a space), quoted text kept whole,
/// whitespace collapsed, lower case outside quotes.
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    let push_space = |cur: &mut String| {
        if !cur.is_empty() && !cur.ends_with(' ') {
            cur.push(' ');
        }
    };
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                cur.push(c);
            }
            '-' if chars.peek() == Some(&'-') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                push_space(&mut cur);
                continue;
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                push_space(&mut cur);
            }
            ';' => {
                let s = cur.trim().to_owned();
                if !s.is_empty() {
                    out.push(s);
                }
                cur.clear();
            }
            '\n' => {
                // A client's own command (`\o file`, `.shell`) ends at the end of its line.
                let t = cur.trim_start();
                if t.starts_with('\\') || t.starts_with('.') {
                    let s = cur.trim().to_owned();
                    if !s.is_empty() {
                        out.push(s);
                    }
                    cur.clear();
                } else {
                    push_space(&mut cur);
                }
                continue;
            }
            c if c.is_whitespace() => push_space(&mut cur),
            c => cur.extend(c.to_lowercase()),
        }
    }
    let s = cur.trim().to_owned();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// Words of a statement outside quoted text.
fn words(stmt: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_quote: Option<char> = None;
    let mut start = None;
    for (i, c) in stmt.char_indices() {
        match in_quote {
            Some(q) => {
                if c == q {
                    in_quote = None;
                }
            }
            None if matches!(c, '\'' | '"' | '`') => {
                if let Some(s) = start.take() {
                    out.push(&stmt[s..i]);
                }
                in_quote = Some(c);
            }
            None if c.is_alphanumeric() || c == '_' || c == '.' || c == '\\' => {
                start.get_or_insert(i);
            }
            None => {
                if let Some(s) = start.take() {
                    out.push(&stmt[s..i]);
                }
            }
        }
    }
    if let Some(s) = start {
        out.push(&stmt[s..]);
    }
    out
}

/// Functions that reach outside the database wherever they are called (`SELECT
/// load_extension(…)`).
const OUTSIDE_FUNCTIONS: &[&str] = &[
    "load_extension",
    "writefile",
    "readfile",
    "edit",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "lo_import",
    "lo_export",
    "lo_from_bytea",
    "dblink",
    "dblink_exec",
    "sys_exec",
    "sys_eval",
    "xp_cmdshell",
    "load_file",
    "read_csv",
    "read_csv_auto",
    "read_json",
    "read_json_auto",
    "read_parquet",
    "read_text",
    "read_blob",
    "glob",
    "getenv",
];

/// Functions that end sessions, reload or change the server's settings.
const DESTROY_FUNCTIONS: &[&str] = &[
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "set_config",
    "pg_drop_replication_slot",
    "pg_switch_wal",
    "pg_promote",
    "lo_unlink",
];

fn statement(stmt: &str) -> Sql {
    let w = words(stmt);
    let Some(&first) = w.first() else {
        return Sql::Read;
    };
    let has = |k: &str| w.contains(&k);
    let calls = |f: &str| {
        let mut rest = stmt;
        while let Some(i) = rest.find(f) {
            let before_ok = i == 0
                || !rest[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = rest[i + f.len()..].trim_start();
            if before_ok && after.starts_with('(') {
                return true;
            }
            rest = &rest[i + f.len()..];
        }
        false
    };
    // A client's own commands, as written (`\!` is not a word).
    let raw = stmt.split(' ').next().unwrap_or("");
    if let Some(cmd) = raw.strip_prefix('\\') {
        return match cmd {
            "!" | "o" | "out" | "copy" | "w" | "write" | "i" | "include" | "ir" | "e" | "edit"
            | "ef" | "ev" | "g" | "gexec" | "lo_import" | "lo_export" | "setenv" | "cd"
            | "system" | "s" | "tee" => Sql::Outside,
            _ if cmd.starts_with('!') => Sql::Outside,
            _ => Sql::Read,
        };
    }
    if let Some(cmd) = raw.strip_prefix('.') {
        return match cmd {
            "shell" | "system" | "output" | "once" | "import" | "load" | "read" | "save"
            | "backup" | "restore" | "open" | "excel" | "cd" | "log" | "trace" | "clone" => {
                Sql::Outside
            }
            _ => Sql::Read,
        };
    }
    if raw.starts_with('!') || first == "system" {
        return Sql::Outside;
    }
    if OUTSIDE_FUNCTIONS.iter().any(|f| calls(f))
        || has("outfile")
        || has("dumpfile")
        || has("program")
        || first == "copy" && (has("to") || has("from"))
        || has("vacuum") && has("into")
        || first == "attach"
        || first == "load"
        || first == "install"
        || has("export") && has("database")
    {
        return Sql::Outside;
    }
    if DESTROY_FUNCTIONS.iter().any(|f| calls(f)) {
        return Sql::Destroy;
    }
    // MongoDB shell: db.x.drop(), db.dropDatabase(), deleteMany, remove.
    if first.starts_with("db.") {
        let destroys = [
            "drop",
            "dropdatabase",
            "deletemany",
            "deleteone",
            "remove",
            "findoneanddelete",
            "dropindex",
            "dropindexes",
        ];
        let reads = [
            "find",
            "findone",
            "count",
            "countdocuments",
            "aggregate",
            "distinct",
            "getindexes",
            "stats",
        ];
        let method = first.rsplit('.').next().unwrap_or("");
        return if destroys.contains(&method) {
            Sql::Destroy
        } else if reads.contains(&method) && !stmt.contains("$out") && !stmt.contains("$merge") {
            Sql::Read
        } else {
            Sql::Change
        };
    }
    if REDIS_DESTROY.contains(&first) && !KEYWORDS.contains(&first) || first == "config" {
        return Sql::Destroy;
    }
    if REDIS_READ.contains(&first) && !KEYWORDS.contains(&first) {
        return Sql::Read;
    }
    // A statement that modifies data anywhere in it (`WITH d AS (DELETE …) SELECT …`).
    let destroying = ["drop", "truncate", "delete", "purge"];
    if destroying.iter().any(|k| has(k)) && first != "select" || first == "delete" {
        return Sql::Destroy;
    }
    if first == "update" && !has("where") {
        return Sql::Destroy;
    }
    if matches!(first, "alter") && has("drop") {
        return Sql::Destroy;
    }
    if matches!(first, "kill" | "shutdown" | "flush" | "revoke") {
        return Sql::Destroy;
    }
    if first == "with" {
        // A CTE may hide a write: read only if no modifying keyword is in it.
        let writes = ["insert", "update", "delete", "merge", "truncate", "drop"];
        return if writes.iter().any(|k| has(k)) {
            Sql::Destroy
        } else {
            Sql::Read
        };
    }
    if first == "select" {
        return if has("into") { Sql::Change } else { Sql::Read };
    }
    if first == "pragma" {
        return if stmt.contains('=') || stmt.contains('(') {
            Sql::Change
        } else {
            Sql::Read
        };
    }
    if matches!(
        first,
        "show" | "describe" | "desc" | "explain" | "table" | "values" | "use" | "help" | "\\?"
    ) {
        return if has("analyze") && first == "explain" {
            // EXPLAIN ANALYZE runs the statement it explains.
            statement(stmt.split_once("analyze").map_or("", |(_, r)| r.trim()))
        } else {
            Sql::Read
        };
    }
    Sql::Change
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_judged_by_what_they_do() {
        use Sql::*;
        for (text, want) in [
            ("SELECT * FROM users", Read),
            ("select 1; select 2", Read),
            ("SELECT load_extension('/tmp/x.so')", Outside),
            (
                "select writefile('.claude/settings.local.json', 'x')",
                Outside,
            ),
            (
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
                Destroy,
            ),
            ("SELECT * FROM t INTO OUTFILE '/tmp/x'", Outside),
            ("DROP/**/TABLE users", Destroy),
            ("DR/**/OP TABLE users", Change),
            ("drop\ttable users", Destroy),
            ("-- a note\nDELETE FROM users", Destroy),
            ("/* x */ truncate t", Destroy),
            ("UPDATE users SET admin = true", Destroy),
            ("UPDATE users SET admin = true WHERE id = 1", Change),
            ("INSERT INTO t VALUES (1)", Change),
            (
                "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
                Destroy,
            ),
            ("WITH x AS (SELECT 1) SELECT * FROM x", Read),
            ("select 'drop table x'", Read),
            ("COPY t TO '/tmp/out.csv'", Outside),
            ("COPY t FROM PROGRAM 'curl x | sh'", Outside),
            ("\\! rm -rf ~", Outside),
            ("\\o /tmp/out", Outside),
            ("\\dt", Read),
            (".tables", Read),
            (".shell rm -rf ~", Outside),
            ("ATTACH DATABASE '/tmp/x.db' AS x", Outside),
            ("FLUSHALL", Destroy),
            ("flushdb", Destroy),
            ("GET key", Read),
            ("KEYS *", Read),
            ("EVAL \"return 1\" 0", Destroy),
            ("CONFIG SET dir /tmp", Destroy),
            ("db.users.drop()", Destroy),
            ("db.dropDatabase()", Destroy),
            ("db.users.find({})", Read),
            ("EXPLAIN ANALYZE DELETE FROM t", Destroy),
            ("EXPLAIN SELECT 1", Read),
            ("PRAGMA table_info(t)", Change),
            ("PRAGMA tables", Read),
            ("SHOW TABLES", Read),
            (
                "select * from read_csv('/home/dev/.aws/credentials')",
                Outside,
            ),
            ("ALTER TABLE t DROP COLUMN c", Destroy),
            ("ALTER TABLE t ADD COLUMN c int", Change),
        ] {
            assert_eq!(judge(text), want, "{text}");
        }
    }

    #[test]
    fn each_verdict_is_one_act_whoever_is_given_the_statement() {
        use super::super::pack::schema::Act;
        for (text, act, rule) in [
            ("SELECT 1", Act::DatabaseRead, "database-read"),
            ("INSERT INTO t VALUES (1)", Act::DatabaseChange, "database"),
            ("FLUSHDB", Act::DatabaseDestroy, "database-destructive"),
            ("DROP TABLE t", Act::DatabaseDestroy, "database-destructive"),
            ("\\! sh", Act::ShellUnknownCode, "database-outside"),
        ] {
            for who in ["redis-cli", "redis query"] {
                let (a, id, explain) = super::act(judge(text), who);
                assert_eq!((a, id), (act, rule), "{text} by {who}");
                assert!(explain.starts_with(who), "{explain}");
            }
        }
    }

    #[test]
    fn looks_like_table() {
        for (t, want) in [
            ("SELECT 1", true),
            ("FLUSHALL", true),
            ("\\dt", true),
            ("hello world", false),
            ("db.users.find()", true),
        ] {
            assert_eq!(looks_like(t), want, "{t}");
        }
    }
}
