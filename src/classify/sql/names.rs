//! The names whose call decides what a statement does wherever it is written (`SELECT
//! load_extension(…)`, `EXEC xp_cmdshell …`), from the servers' manuals: PostgreSQL's
//! administration functions and extensions, MySQL's file functions and UDF libraries,
//! SQLite's and DuckDB's shells, SQL Server's procedures, ClickHouse's table functions.

/// Functions that reach outside the database: read or write the server's or the client's
/// files, run programs, load native code, or talk to other servers.
pub(super) const OUTSIDE_FUNCTIONS: &[&str] = &[
    // SQLite's and DuckDB's shells.
    "load_extension",
    "writefile",
    "readfile",
    "edit",
    "fsdir",
    "lsdir",
    "zipfile",
    "fts3_tokenizer",
    // PostgreSQL (and adminpack, dblink).
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "pg_file_write",
    "pg_file_rename",
    "pg_file_unlink",
    "pg_file_sync",
    "pg_logdir_ls",
    "pg_ls_logdir",
    "pg_ls_waldir",
    "pg_ls_tmpdir",
    "pg_ls_archive_statusdir",
    "pg_ls_logicalsnapdir",
    "pg_ls_logicalmapdir",
    "pg_ls_replslotdir",
    "pg_ls_summariesdir",
    "lo_import",
    "lo_export",
    "lo_from_bytea",
    "dblink",
    "dblink_exec",
    "dblink_connect",
    "dblink_connect_u",
    "dblink_send_query",
    "dblink_open",
    // MySQL and its UDF libraries.
    "load_file",
    "sys_exec",
    "sys_eval",
    "sys_get",
    "sys_set",
    // SQL Server.
    "xp_cmdshell",
    "openrowset",
    "opendatasource",
    "openquery",
    // DuckDB.
    "read_csv",
    "read_csv_auto",
    "read_json",
    "read_json_auto",
    "read_ndjson",
    "read_ndjson_auto",
    "read_json_objects",
    "read_ndjson_objects",
    "read_parquet",
    "parquet_scan",
    "parquet_metadata",
    "parquet_schema",
    "parquet_file_metadata",
    "parquet_kv_metadata",
    "read_text",
    "read_blob",
    "read_xlsx",
    "sniff_csv",
    "glob",
    "getenv",
    "st_read",
    "st_read_meta",
    "iceberg_scan",
    "iceberg_metadata",
    "delta_scan",
    "sqlite_scan",
    "sqlite_attach",
    "postgres_scan",
    "postgres_attach",
    "postgres_query",
    "postgres_execute",
    "mysql_query",
    "mysql_execute",
    // ClickHouse's table functions.
    "file",
    "url",
    "s3",
    "s3cluster",
    "gcs",
    "hdfs",
    "remote",
    "remotesecure",
    "executable",
    "executablepool",
    "mysql",
    "postgresql",
    "jdbc",
    "odbc",
    "azureblobstorage",
];

/// Functions that end sessions, reload or change the server's settings, or remove what
/// other work depends on.
pub(super) const DESTROY_FUNCTIONS: &[&str] = &[
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "set_config",
    "pg_drop_replication_slot",
    "pg_replication_origin_drop",
    "pg_switch_wal",
    "pg_promote",
    "pg_wal_replay_pause",
    "pg_wal_replay_resume",
    "lo_unlink",
];

/// Functions that run statements given as text, which oath does not read (`SELECT
/// query_to_xml('DELETE …', …)`, pg_cron's `cron.schedule`).
pub(super) const UNKNOWN_FUNCTIONS: &[&str] = &[
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
    "eval",
    "query",
    "query_table",
    "pg_background_launch",
    "schedule",
    "schedule_in_database",
];

/// SQL Server's procedures that reach outside the database (every `xp_…` does too).
pub(super) const OUTSIDE_PROCEDURES: &[&str] = &[
    "sp_oacreate",
    "sp_oamethod",
    "sp_oagetproperty",
    "sp_oasetproperty",
    "sp_execute_external_script",
    "sp_addextendedproc",
    "sp_send_dbmail",
    "sp_addlinkedserver",
    "sp_addlinkedsrvlogin",
    "sp_makewebtask",
];

/// SQL Server's procedures that change the server or remove logins, users and databases.
pub(super) const DESTROY_PROCEDURES: &[&str] = &[
    "sp_configure",
    "sp_dropextendedproc",
    "sp_droplogin",
    "sp_dropuser",
    "sp_dropserver",
    "sp_detach_db",
];

/// SQL Server's procedures that run statements given as text.
pub(super) const UNKNOWN_PROCEDURES: &[&str] = &[
    "sp_executesql",
    "sp_msforeachtable",
    "sp_msforeachdb",
    "sp_prepare",
    "sp_prepexec",
    "sp_execute",
];

/// SQL Server's procedures that only read (`EXEC sp_help t`).
pub(super) const READ_PROCEDURES: &[&str] = &[
    "sp_help",
    "sp_helptext",
    "sp_helpindex",
    "sp_helpdb",
    "sp_helpuser",
    "sp_helprole",
    "sp_helpconstraint",
    "sp_helpserver",
    "sp_helpfile",
    "sp_columns",
    "sp_tables",
    "sp_databases",
    "sp_who",
    "sp_who2",
    "sp_spaceused",
    "sp_server_info",
    "sp_lock",
    "sp_stored_procedures",
    "sp_pkeys",
    "sp_fkeys",
    "sp_statistics",
    "sp_describe_first_result_set",
];

/// Languages whose functions run native code or unrestricted programs in the server
/// (PostgreSQL's untrusted languages end in `u`).
pub(super) const UNTRUSTED_LANGUAGES: &[&str] = &[
    "c",
    "internal",
    "plpythonu",
    "plpython2u",
    "plpython3u",
    "plperlu",
    "pltclu",
    "plsh",
    "plr",
    "javau",
    "plv8u",
];

/// SQLite's and DuckDB's pragmas that only read, also when given an argument
/// (`PRAGMA table_info(users)`).
pub(super) const READ_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
    "database_list",
    "collation_list",
    "compile_options",
    "function_list",
    "module_list",
    "pragma_list",
    "show_tables",
    "show_tables_expanded",
    "storage_info",
    "database_size",
    "version",
    "platform",
];

/// The words of EXPLAIN's options before the statement it explains.
pub(super) const EXPLAIN_OPTIONS: &[&str] = &[
    "analyze",
    "analyse",
    "verbose",
    "costs",
    "buffers",
    "format",
    "query",
    "plan",
    "extended",
    "partitions",
    "json",
    "text",
    "xml",
    "yaml",
    "tree",
    "traditional",
    "settings",
    "wal",
    "timing",
    "summary",
    "memory",
    "generic_plan",
    "serialize",
    "true",
    "false",
    "on",
    "off",
];

/// First words of statements that only read.
pub(super) const READ_STATEMENTS: &[&str] = &[
    "select",
    "show",
    "table",
    "values",
    "help",
    "use",
    "go",
    "print",
    "list",
    "summarize",
    "from",
    "pivot",
    "unpivot",
];

/// First words of statements that change data or settings in a way the database keeps, or
/// only steer the session (transactions, cursors, locks, statistics).
pub(super) const CHANGE_STATEMENTS: &[&str] = &[
    "insert",
    "replace",
    "upsert",
    "merge",
    "create",
    "alter",
    "grant",
    "set",
    "reset",
    "begin",
    "start",
    "commit",
    "end",
    "rollback",
    "savepoint",
    "release",
    "abort",
    "vacuum",
    "analyze",
    "analyse",
    "reindex",
    "cluster",
    "checkpoint",
    "comment",
    "lock",
    "unlock",
    "listen",
    "notify",
    "unlisten",
    "discard",
    "refresh",
    "security",
    "deallocate",
    "declare",
    "fetch",
    "close",
    "move",
    "rename",
    "optimize",
    "repair",
    "check",
    "checksum",
    "handler",
    "detach",
    "if",
    "while",
    "raiserror",
    "throw",
    "waitfor",
    "update",
];

/// First words of statements that destroy data, or end sessions or the server.
pub(super) const DESTROY_STATEMENTS: &[&str] = &[
    "delete", "drop", "truncate", "kill", "shutdown", "restart", "flush", "purge", "revoke",
];

/// First words of statements that reach outside the database: load files or native code,
/// attach other databases, run the server's own commands.
pub(super) const OUTSIDE_STATEMENTS: &[&str] = &[
    "load", "install", "attach", "system", "import", "export", "bulk", "backup", "restore",
];

/// Words that destroy data wherever they stand in a statement that is not a query.
pub(super) const DESTROYING_WORDS: &[&str] = &["drop", "truncate", "delete", "purge"];

/// Words before a destroying word that make it a condition, not an act (`ON DELETE
/// CASCADE`, `BEFORE DELETE ON t`, `INSTEAD OF DELETE`).
pub(super) const NOT_AN_ACT: &[&str] = &["on", "before", "after", "of", "or"];

/// The first words of the statements in a routine's body.
pub(super) const BODY_STATEMENTS: &[&str] = &[
    "select", "with", "insert", "update", "delete", "merge", "replace", "truncate", "drop",
    "create", "alter", "copy", "grant", "revoke", "call", "do", "prepare", "load", "import",
    "attach", "vacuum", "set", "reset", "lock", "kill", "shutdown", "flush", "purge",
];

/// Words that make a statement's data reach a file, or a library be loaded
/// (`INTO OUTFILE`, `LOAD DATA INFILE`, `CREATE FUNCTION … SONAME`).
pub(super) const OUTSIDE_WORDS: &[&str] = &["outfile", "dumpfile", "infile", "soname"];
