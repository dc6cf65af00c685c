//! Redis's commands (one a line, by name and for some by their second word) and MongoDB's
//! shell code (JavaScript: every method it calls and every name it writes).

use super::Sql;
use super::lex::{self, Stmt, Tok};

/// Redis commands that destroy data, change the server or run code.
pub(super) const REDIS_DESTROY: &[&str] = &[
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
    "fcall_ro",
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
    "cluster",
    "bgrewriteaof",
    "save",
    "bgsave",
    "expire",
    "pexpire",
    "expireat",
    "pexpireat",
    "getdel",
    "hdel",
    "srem",
    "zrem",
    "zremrangebyrank",
    "zremrangebyscore",
    "zremrangebylex",
    "lrem",
    "ltrim",
    "xdel",
    "xtrim",
    "rename",
    "renamenx",
];

/// Redis commands that only read.
pub(super) const REDIS_READ: &[&str] = &[
    "get",
    "mget",
    "getrange",
    "keys",
    "scan",
    "hscan",
    "sscan",
    "zscan",
    "exists",
    "ttl",
    "pttl",
    "expiretime",
    "type",
    "info",
    "ping",
    "dbsize",
    "hget",
    "hmget",
    "hgetall",
    "hkeys",
    "hvals",
    "hlen",
    "hexists",
    "hstrlen",
    "smembers",
    "sismember",
    "smismember",
    "scard",
    "srandmember",
    "sdiff",
    "sinter",
    "sunion",
    "lrange",
    "llen",
    "lindex",
    "lpos",
    "zrange",
    "zrevrange",
    "zrangebyscore",
    "zrevrangebyscore",
    "zscore",
    "zmscore",
    "zrank",
    "zrevrank",
    "zcard",
    "zcount",
    "strlen",
    "xrange",
    "xrevrange",
    "xlen",
    "xread",
    "xinfo",
    "xpending",
    "pfcount",
    "bitcount",
    "getbit",
    "geopos",
    "geodist",
    "geosearch",
    "memory",
    "time",
    "echo",
    "lastsave",
    "role",
    "command",
    "object",
    "randomkey",
    "select",
    "auth",
    "hello",
    "monitor",
    "subscribe",
    "psubscribe",
    "ssubscribe",
    "pubsub",
    "multi",
    "exec",
    "discard",
    "watch",
    "unwatch",
    "quit",
    "readonly",
    "json.get",
    "ft.search",
    "ft.info",
    "ft._list",
];

/// Redis commands that write (what they change can be written again).
const REDIS_CHANGE: &[&str] = &[
    "set",
    "setex",
    "psetex",
    "setnx",
    "mset",
    "msetnx",
    "getset",
    "setrange",
    "append",
    "incr",
    "incrby",
    "incrbyfloat",
    "decr",
    "decrby",
    "hset",
    "hmset",
    "hsetnx",
    "hincrby",
    "hincrbyfloat",
    "lpush",
    "rpush",
    "lpushx",
    "rpushx",
    "lpop",
    "rpop",
    "lset",
    "linsert",
    "lmove",
    "blpop",
    "brpop",
    "sadd",
    "smove",
    "spop",
    "zadd",
    "zincrby",
    "zpopmin",
    "zpopmax",
    "pfadd",
    "xadd",
    "xgroup",
    "xack",
    "xclaim",
    "publish",
    "persist",
    "geoadd",
    "setbit",
    "bitop",
    "json.set",
];

/// Redis commands that are also English words or SQL statements: a text starting with one
/// is not taken for Redis's unless its server is Redis.
const REDIS_COMMON_WORDS: &[&str] = &[
    "debug",
    "config",
    "function",
    "script",
    "module",
    "failover",
    "migrate",
    "restore",
    "client",
    "cluster",
    "save",
    "rename",
    "expire",
    "get",
    "keys",
    "scan",
    "exists",
    "type",
    "info",
    "time",
    "echo",
    "role",
    "command",
    "object",
    "memory",
    "select",
    "auth",
    "hello",
    "monitor",
    "subscribe",
    "multi",
    "exec",
    "discard",
    "watch",
    "unwatch",
    "quit",
    "readonly",
    "set",
    "append",
    "publish",
    "persist",
    "move",
    "copy",
];

/// Second words of the destroying families' commands that only read (`CONFIG GET`, `CLIENT
/// LIST`, `CLUSTER INFO`).
const REDIS_READ_SUBCOMMANDS: &[&str] = &[
    "get",
    "list",
    "info",
    "getname",
    "id",
    "whoami",
    "cat",
    "users",
    "getuser",
    "exists",
    "stats",
    "nodes",
    "slots",
    "shards",
    "myid",
    "keyslot",
    "countkeysinslot",
    "help",
    "dryrun",
];

/// Returns whether a word is one of Redis's commands.
pub(super) fn is_redis(w: &str) -> bool {
    REDIS_DESTROY.contains(&w) || REDIS_READ.contains(&w) || REDIS_CHANGE.contains(&w)
}

/// Returns whether a word is one of Redis's commands that no English text or SQL starts
/// with (`FLUSHALL`, `HGETALL`, not `get` or `select`).
pub(super) fn is_redis_only(w: &str) -> bool {
    is_redis(w) && !REDIS_COMMON_WORDS.contains(&w)
}

/// Returns what Redis commands do, one a line.
pub(super) fn redis(text: &str) -> Sql {
    text.lines()
        .map(|line| {
            let mut words = line.split_whitespace().map(|w| {
                w.trim_matches(|c| c == '"' || c == '\'')
                    .to_ascii_lowercase()
            });
            let first = words.next().unwrap_or_default();
            let second = words.next().unwrap_or_default();
            redis_command(&first, &second)
        })
        .max()
        .unwrap_or(Sql::Read)
}

fn redis_command(first: &str, second: &str) -> Sql {
    match first {
        "" => Sql::Read,
        "config" | "client" | "acl" | "script" | "function" | "cluster"
            if REDIS_READ_SUBCOMMANDS.contains(&second) =>
        {
            Sql::Read
        }
        f if REDIS_DESTROY.contains(&f) => Sql::Destroy,
        f if REDIS_READ.contains(&f) => Sql::Read,
        _ => Sql::Change,
    }
}

/// Methods and names of MongoDB's shell that destroy data or end the server.
const MONGO_DESTROY: &[&str] = &[
    "drop",
    "dropdatabase",
    "deletemany",
    "deleteone",
    "remove",
    "findoneanddelete",
    "dropindex",
    "dropindexes",
    "dropsearchindex",
    "dropuser",
    "dropallusers",
    "droprole",
    "dropallroles",
    "shutdownserver",
    "killop",
];

/// Methods that run what they are given (a command document, a file, code).
const MONGO_UNKNOWN: &[&str] = &[
    "runcommand",
    "admincommand",
    "eval",
    "load",
    "require",
    "function",
    "runprogram",
    "_runmongoprogram",
    "runmongoprogram",
    "settimeout",
    "setinterval",
];

/// Methods and constructors that only read (queries, cursors, descriptions, values).
const MONGO_READ: &[&str] = &[
    "find",
    "findone",
    "count",
    "countdocuments",
    "estimateddocumentcount",
    "aggregate",
    "distinct",
    "getindexes",
    "getindexkeys",
    "stats",
    "explain",
    "toarray",
    "tojson",
    "limit",
    "sort",
    "skip",
    "pretty",
    "hint",
    "itcount",
    "size",
    "foreach",
    "map",
    "getname",
    "getcollectionnames",
    "getcollectioninfos",
    "listcollections",
    "getsiblingdb",
    "getcollection",
    "getmongo",
    "getdb",
    "version",
    "serverstatus",
    "hostinfo",
    "ismaster",
    "hello",
    "datasize",
    "storagesize",
    "totalsize",
    "totalindexsize",
    "printjson",
    "print",
    "stringify",
    "tostring",
    "next",
    "hasnext",
    "batchsize",
    "maxtimems",
    "projection",
    "collation",
    "comment",
    "getuser",
    "getusers",
    "getroles",
    "currentop",
    "latencystats",
    "iscapped",
    "objectid",
    "isodate",
    "date",
    "numberlong",
    "numberint",
    "numberdecimal",
    "uuid",
    "bindata",
    "timestamp",
    "log",
];

/// Returns what MongoDB shell code does: the worst of the methods it calls and the names it
/// writes (`deleteMany` as a key of `bulkWrite` deletes too).
pub(super) fn mongo(text: &str) -> Sql {
    let toks: Vec<Tok> = lex::statements(text, lex::JAVASCRIPT)
        .into_iter()
        .flat_map(|s| match s {
            Stmt::Sql(t) => t,
            Stmt::Client(_) => vec![Tok::Var],
        })
        .collect();
    let mut v = Sql::Read;
    for (i, t) in toks.iter().enumerate() {
        let next = toks.get(i + 1);
        match t {
            Tok::Var => v = v.max(Sql::Unknown),
            // A method named by a string (`db.users["drop"]()`).
            Tok::Str(_)
                if next == Some(&Tok::Punct(']')) && toks.get(i + 2) == Some(&Tok::Punct('(')) =>
            {
                v = v.max(Sql::Unknown);
            }
            Tok::Str(s) if s == "$out" || s == "$merge" => v = v.max(Sql::Change),
            Tok::Word(w) => {
                if MONGO_DESTROY.contains(&w.as_str()) {
                    return Sql::Destroy;
                }
                if w == "$out" || w == "$merge" {
                    v = v.max(Sql::Change);
                } else if next == Some(&Tok::Punct('(')) {
                    v = v.max(if MONGO_UNKNOWN.contains(&w.as_str()) {
                        Sql::Unknown
                    } else if MONGO_READ.contains(&w.as_str()) {
                        Sql::Read
                    } else {
                        Sql::Change
                    });
                }
            }
            _ => {}
        }
    }
    // The shell's helpers (`show dbs`, `use app`) only read.
    v
}

/// Returns whether a text starts as MongoDB shell code (`db.…`, `db[…]`).
pub(super) fn is_mongo(text: &str) -> bool {
    let mut toks = lex::statements(text, lex::JAVASCRIPT)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Sql(t) => Some(t),
            Stmt::Client(_) => None,
        })
        .flatten();
    toks.next() == Some(Tok::Word("db".into()))
        && matches!(toks.next(), Some(Tok::Punct('.' | '[')))
}
