//! An MCP tool's statements: a database's server told by its name, the strings of its input
//! that are statements (by key, or for a database's server by what they read as, nested
//! too), judged by the one SQL judge ([`sql::judge_as`]) in the server's language.

use serde_json::Value;

use super::super::Context;
use super::super::effect::Effect;
use super::super::policy::{self, Said};
use super::super::rule::Findings;
use super::super::sql::{self, Sql};
use super::name_words;

/// Words of a server's or a tool's name that say it is a database's.
const DATABASES: &[&str] = &[
    "postgres",
    "postgresql",
    "pg",
    "psql",
    "mysql",
    "mariadb",
    "sqlite",
    "sqlite3",
    "redis",
    "valkey",
    "memcached",
    "mongo",
    "mongodb",
    "mongosh",
    "duckdb",
    "motherduck",
    "clickhouse",
    "mssql",
    "sqlserver",
    "oracle",
    "snowflake",
    "bigquery",
    "supabase",
    "neon",
    "cockroach",
    "cockroachdb",
    "cassandra",
    "turso",
    "libsql",
    "database",
    "databases",
    "db",
    "dbhub",
    "sql",
];

/// Returns whether an MCP server is a database's: a word of its name like `postgres`,
/// `redis`, `db`, or one ending in `sql` or `db` (`mysql`, `duckdb`); or its tool runs SQL
/// (`execute_sql`). A tool's other words do not count (Notion's `query_database` reads
/// pages).
pub(super) fn database_server(server: &str, tool_words: &[String]) -> bool {
    name_words(server).iter().any(|w| {
        DATABASES.contains(&w.as_str()) || w.ends_with("sql") || w.len() > 2 && w.ends_with("db")
    }) || tool_words.iter().any(|w| w.ends_with("sql"))
}

/// Keys whose strings are statements for any server.
const SQL_KEYS: &[&str] = &["sql"];

/// Keys whose strings are statements for a database's server, and for others when they
/// read as statements (a search's `query` of words, a GraphQL `query`, are not).
const STATEMENT_KEYS: &[&str] = &["query", "queries", "statement", "statements"];

/// Keys whose strings are a database's commands when the server is one and they read as
/// statements (`{"command": "FLUSHDB"}`); elsewhere, or otherwise, a command is shell.
const COMMAND_KEYS: &[&str] = &["command", "commands", "cmd"];

/// Judges the statements an MCP tool's input carries (its top-level `sql`, `query` …
/// strings or arrays of them, as [`SQL_KEYS`], [`STATEMENT_KEYS`] and [`COMMAND_KEYS`] say) by the
/// one SQL judge ([`sql::judge_as`], as the shell clients' statements are, in the server's
/// language), and pushes the act the worst of them is ([`sql::act`]) unless it only reads.
/// Returns the worst verdict, if any string was taken as statements, and whether the
/// `command` was.
pub(super) fn statements(
    server: &str,
    tool: &str,
    words: &[String],
    input: &Value,
    ctx: &Context,
    out: &mut Findings,
) -> (Option<Sql>, bool) {
    let Some(map) = input.as_object() else {
        return (None, false);
    };
    let database = database_server(server, words);
    let server_words = name_words(server);
    let lang = if server_words.iter().any(|w| w == "redis" || w == "valkey") {
        sql::Lang::Redis
    } else if server_words.iter().any(|w| w.starts_with("mongo")) {
        sql::Lang::Mongo
    } else {
        sql::Lang::Auto
    };
    let mut worst: Option<Sql> = None;
    let mut consumed = false;
    let mut strings = Vec::new();
    for (key, value) in map {
        strings_under(key, value, database, 0, &mut strings);
    }
    for (key, t, top) in strings {
        let read_as = SQL_KEYS.contains(&key.as_str())
            || STATEMENT_KEYS.contains(&key.as_str()) && (database || sql::looks_like(t))
            || COMMAND_KEYS.contains(&key.as_str()) && database && sql::looks_like_in(t, lang)
            // A database's statements under a key of another name (`sql_query`, `args`).
            || database
                && !PROSE_KEYS.contains(&key.as_str())
                && t.contains(char::is_whitespace)
                && sql::looks_like_in(t, lang);
        if read_as {
            worst = worst.max(Some(sql::judge_as(t, lang)));
            consumed |= top && key == "command";
        }
    }
    if let Some(v) = worst
        && v != Sql::Read
    {
        // A statement that only reads adds nothing to what the tool's name says.
        let (act, id, explain) = sql::act(v, &format!("{server} {tool}"));
        let said = Said {
            id,
            explain: &explain,
            verb: "",
            safer: None,
        };
        let f = policy::finding(&Effect::Act(act), said, ctx);
        out.push(&format!("mcp__{server}__{tool}"), f);
    }
    (worst, consumed)
}

/// Keys whose strings are prose about a call, never statements (a `description` that starts
/// "Delete …").
const PROSE_KEYS: &[&str] = &[
    "description",
    "comment",
    "message",
    "title",
    "name",
    "label",
    "summary",
    "note",
    "notes",
    "reason",
];

/// Collects the strings of an MCP input's value with the key (in lower case) they stand
/// under and whether that key is a top-level one: a string, an array's strings, and for a
/// database's server the strings of nested objects too (a few levels down).
fn strings_under<'v>(
    key: &str,
    value: &'v Value,
    database: bool,
    depth: usize,
    out: &mut Vec<(String, &'v str, bool)>,
) {
    let k = key.to_ascii_lowercase();
    match value {
        Value::String(s) => out.push((k, s.as_str(), depth == 0)),
        Value::Array(a) if depth < 4 => {
            for v in a {
                strings_under(key, v, database, depth + usize::from(!v.is_string()), out);
            }
        }
        Value::Object(m) if database && depth < 4 => {
            for (k, v) in m {
                strings_under(k, v, database, depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::super::super::{Classification, Domain, Kind, Risk};
    use super::super::classify_tool;
    use super::*;

    fn ctx() -> Context {
        let root = Path::new("/home/dev/project");
        Context::new(root, root, Some(Path::new("/home/dev")), [])
    }

    fn verdict(c: &Classification) -> (Domain, Risk, Kind, &str) {
        (c.domain, c.risk, c.kind, c.rule.as_str())
    }

    #[test]
    fn a_statement_through_mcp_is_judged_as_through_its_client() {
        for (tool, input, shell) in [
            (
                "mcp__redis__query",
                json!({"query": "FLUSHDB"}),
                "redis-cli FLUSHDB",
            ),
            (
                "mcp__redis__execute_command",
                json!({"command": "FLUSHALL"}),
                "redis-cli FLUSHALL",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "DROP TABLE t"}),
                "psql -c 'DROP TABLE t'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "DROP/**/TABLE t"}),
                "psql -c 'DROP/**/TABLE t'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "UPDATE users SET admin = true"}),
                "psql -c 'UPDATE users SET admin = true'",
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "INSERT INTO t VALUES (1)"}),
                "psql -c 'INSERT INTO t VALUES (1)'",
            ),
            (
                "mcp__sqlite__read_query",
                json!({"query": "SELECT load_extension('/tmp/x.so')"}),
                "sqlite3 app.db \"SELECT load_extension('/tmp/x.so')\"",
            ),
            (
                "mcp__mongodb__run",
                json!({"statements": ["db.users.find({})", "db.users.drop()"]}),
                "mongosh --eval 'db.users.drop()'",
            ),
            // A tool that runs the statements it is given does what they do.
            (
                "mcp__supabase__execute_sql",
                json!({"project_id": "p", "query": "DROP/**/TABLE t"}),
                "psql -c 'DROP/**/TABLE t'",
            ),
            (
                "mcp__supabase__execute_sql",
                json!({"project_id": "p", "query": "insert into t values (1)"}),
                "psql -c 'insert into t values (1)'",
            ),
            (
                "mcp__plugin_supabase_supabase__execute_sql",
                json!({"project_id": "p", "query": "select pg_terminate_backend(1)"}),
                "psql -c 'select pg_terminate_backend(1)'",
            ),
            // A database's statements under a key of another name, or nested.
            (
                "mcp__postgres__query",
                json!({"sql_query": "DROP TABLE t"}),
                "psql -c 'DROP TABLE t'",
            ),
            (
                "mcp__postgres__run",
                json!({"params": {"text": "DELETE FROM users"}}),
                "psql -c 'DELETE FROM users'",
            ),
            (
                "mcp__redis__execute_command",
                json!({"command": "CONFIG SET dir /var/www"}),
                "redis-cli CONFIG SET dir /var/www",
            ),
            // A server's language is its name's: Redis reads a line a command.
            (
                "mcp__redis__execute_command",
                json!({"command": "PING\nFLUSHALL"}),
                "redis-cli FLUSHALL",
            ),
            (
                "mcp__mongodb__run",
                json!({"statements": ["db.getSiblingDB('prod').dropDatabase()"]}),
                "mongosh --eval 'db.dropDatabase()'",
            ),
        ] {
            let ctx = ctx();
            let mcp = classify_tool(tool, &input, &ctx);
            let sh = classify_tool("Bash", &json!({ "command": shell }), &ctx);
            assert_eq!(verdict(&mcp), verdict(&sh), "{tool} {input} / {shell}");
            assert_ne!(mcp.domain, Domain::Mcp, "{tool} {input}");
        }
    }

    #[test]
    fn queries_that_only_read_keep_the_tool_s_own_verdict() {
        for (tool, input, rule, risk) in [
            (
                "mcp__postgres__query",
                json!({"sql": "select 1"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__redis__query",
                json!({"query": "GET k"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__postgres__query",
                json!({"sql": "WITH x AS (SELECT 1) SELECT * FROM x"}),
                "mcp-read",
                Risk::Low,
            ),
            // Words and GraphQL are not statements, whatever the key.
            (
                "mcp__exa__search",
                json!({"query": "rust hook latency"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__notion__query_database",
                json!({"query": "meeting notes"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__github__graphql",
                json!({"query": "query { viewer { login } }"}),
                "mcp-write",
                Risk::Medium,
            ),
            // A database's tool that runs statements, given one that only reads, reads.
            (
                "mcp__supabase__execute_sql",
                json!({"project_id": "p", "query": "select * from users limit 5"}),
                "mcp-read",
                Risk::Low,
            ),
            (
                "mcp__dbhub__execute_sql",
                json!({"sql": "select 1"}),
                "mcp-read",
                Risk::Low,
            ),
            // Prose about a call is not a statement.
            (
                "mcp__postgres__query",
                json!({"sql": "select 1", "description": "Delete old rows later"}),
                "mcp-read",
                Risk::Low,
            ),
            // A statement's words in quotes are data.
            (
                "mcp__postgres__query",
                json!({"sql": "select 'drop table x'"}),
                "mcp-read",
                Risk::Low,
            ),
            // A shell command of a server that is not a database's stays shell.
            (
                "mcp__desktop-commander__execute_command",
                json!({"command": "ls"}),
                "mcp-exec",
                Risk::High,
            ),
        ] {
            let c = classify_tool(tool, &input, &ctx());
            assert_eq!((c.rule.as_str(), c.risk), (rule, risk), "{tool} {input}");
        }
    }

    #[test]
    fn database_servers_are_told_by_their_names() {
        for (server, tool, want) in [
            ("redis", "query", true),
            ("mcp-server-postgres", "query", true),
            ("plugin_supabase_supabase", "execute_sql", true),
            ("duckdb", "run", true),
            ("notion", "query_database", false),
            ("github", "search_issues", false),
            ("desktop-commander", "execute_command", false),
        ] {
            assert_eq!(database_server(server, &name_words(tool)), want, "{server}");
        }
    }
}
