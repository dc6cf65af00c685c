//! Whole-process latency of `oath hook`, measured against a no-op process in the same run.
//!
//! Run with `cargo bench --bench hook_latency` (the README's performance section). For each
//! case it spawns the release binary with the payload on stdin in two states, a fresh one and
//! one with a large history (50 extra domains, 100 000 audit records, 10 000 strike attempts),
//! interleaved run by run with two no-op processes fed the same payload (`true`, which exits
//! without reading it, and `cat` into /dev/null, which reads it as any hook must), and prints
//! median, p95 and the ratios for each state; then, for each PreToolUse case, the floor of a
//! hook built as oath is (see [`floors`]); then peak RSS, stripped binary size, and the wall
//! time of 64 parallel PostToolUse processes; last, which latency targets each build missed.
//! Targets are printed next to the figures; nothing here asserts on time.
//!
//! The builds measured (see [`builds`]) are the one `cargo build --release` makes and, on
//! x86-64 Linux where rustup has added its target, the musl build (`cargo build --release
//! --target x86_64-unknown-linux-musl`; docs/adr/0015-musl-build.md), in the same runs.
//! `OATH_BENCH_TARGET=<triple>` measures that target's build alone; `OATH_BENCH_BIN=/path/to/oath`
//! measures any other build alone, e.g. the dynamically linked one of the README's performance
//! section (`RUSTFLAGS= cargo build --release`), and `OATH_BENCH_BIN=/before/oath:/after/oath`
//! several builds in the same interleaved runs (a change's before and after).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A build of oath under test.
struct Build {
    /// How the tables name it.
    label: String,
    /// Its executable.
    bin: String,
}

/// The musl target, measured beside the default build where it is installed (README, Install).
const MUSL: &str = "x86_64-unknown-linux-musl";

/// The builds under test. `OATH_BENCH_BIN` alone when set (e.g. a dynamically linked build);
/// `OATH_BENCH_TARGET` alone when set (the release build for that target); else the release
/// build `cargo build --release` makes, the default one, and beside it, on x86-64 Linux where
/// rustup has added its target, the musl build the README recommends there. Both are measured
/// in the same runs, interleaved, against the same no-ops.
///
/// Not the `oath` that `cargo bench` builds beside this benchmark (`CARGO_BIN_EXE_oath`): with
/// the dev-dependencies in the build, Cargo unifies more features into shared crates (clap's
/// `env` and `wrap_help`, regex's Unicode tables, ...), so that binary is larger and is not
/// the one users install.
fn builds() -> Vec<Build> {
    if let Some(bins) = std::env::var("OATH_BENCH_BIN")
        .ok()
        .filter(|b| !b.is_empty())
    {
        // Several binaries, `:`-separated, are measured in the same interleaved runs
        // (before and after a change).
        return bins
            .split(':')
            .filter(|b| !b.is_empty())
            .map(|bin| Build {
                label: format!("`{bin}`"),
                bin: bin.to_owned(),
            })
            .collect();
    }
    if let Some(target) = std::env::var("OATH_BENCH_TARGET")
        .ok()
        .filter(|t| !t.is_empty())
    {
        return vec![target_build(&target).unwrap_or_else(|e| panic!("{e}"))];
    }
    let default = release_bin(None).map_or_else(
        |e| {
            eprintln!("cannot build the release binary ({e}); measuring the bench build");
            Build {
                label: "bench build (`CARGO_BIN_EXE_oath`)".to_owned(),
                bin: env!("CARGO_BIN_EXE_oath").to_owned(),
            }
        },
        |bin| Build {
            label: "default build (`cargo build --release`)".to_owned(),
            bin,
        },
    );
    let mut builds = vec![default];
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        if musl_installed() {
            match target_build(MUSL) {
                Ok(b) => builds.push(b),
                Err(e) => eprintln!("note: the musl build is not measured: {e}"),
            }
        } else {
            eprintln!("note: the musl build is not measured (`rustup target add {MUSL}` adds it)");
        }
    }
    builds
}

fn target_build(target: &str) -> Result<Build, String> {
    Ok(Build {
        label: format!(
            "{} build (`--target {target}`)",
            target.rsplit('-').next().unwrap_or(target)
        ),
        bin: release_bin(Some(target))?,
    })
}

/// Whether the toolchain building this project has the musl target's standard library.
fn musl_installed() -> bool {
    Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| {
            Path::new(String::from_utf8_lossy(&o.stdout).trim())
                .join("lib/rustlib")
                .join(MUSL)
                .join("lib")
                .is_dir()
        })
}

/// Runs `cargo build --release --bin oath` (for `target` when given) and returns the
/// executable it reports.
fn release_bin(target: Option<&str>) -> Result<String, String> {
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args([
        "build",
        "--release",
        "--bin",
        "oath",
        "--message-format=json",
    ]);
    if let Some(target) = target {
        cargo.args(["--target", target]);
    }
    let out = cargo
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("cargo build --release: {}", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "oath")
        .find_map(|m| m["executable"].as_str().map(str::to_owned))
        .ok_or_else(|| "cargo reported no executable".to_owned())
}
const RUNS: usize = 200;
/// Stands for the `tool_use_id` of a tool call in a case's payload; every run gets its own id
/// of the same length ([`Case::for_run`]), because oath deduplicates outcomes by
/// `tool_use_id`: a repeated id would measure the duplicate check, not the trust update or
/// the 3-strike record.
const ID_SLOT: &str = "toolu_run000000000000";

const SESSION: &str = "bench-session";

struct Case {
    name: &'static str,
    payload: Vec<u8>,
    /// Where [`ID_SLOT`] is in the payload.
    id_at: Option<usize>,
    pre_tool_use: bool,
}

impl Case {
    fn new(name: &'static str, payload: Vec<u8>, pre_tool_use: bool) -> Self {
        let slot = ID_SLOT.as_bytes();
        let id_at = payload.windows(slot.len()).position(|w| w == slot);
        Self {
            name,
            payload,
            id_at,
            pre_tool_use,
        }
    }

    /// The payload with an id unique to `run` in [`ID_SLOT`]'s place, written over the last
    /// one: no copy of a megabyte per run in this process (see [`measure`]).
    fn for_run(&mut self, run: u64) -> &[u8] {
        if let Some(at) = self.id_at {
            let id = format!("toolu_run{run:012}");
            self.payload[at..at + ID_SLOT.len()].copy_from_slice(id.as_bytes());
        }
        &self.payload
    }
}

fn payload(project: &Path, event: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut v = serde_json::json!({
        "session_id": SESSION,
        "transcript_path": project.join("transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Some(obj), serde_json::Value::Object(extra)) = (v.as_object_mut(), extra) {
        obj.extend(extra);
    }
    serde_json::to_vec(&v).expect("payload")
}

/// How many cases [`case`] has.
const CASES: usize = 8;

/// Case `k` (below [`CASES`]) for a project. Built when measured and dropped after: the
/// benchmark keeps as little memory as it can, because a larger benchmark process made every
/// process it spawned slower here, the no-ops as much as oath (a few MB more: `true` 0.70 →
/// 0.98 ms), which brings every ratio closer to 1.
fn case(k: usize, project: &Path) -> Case {
    let src = project.join("src/lib.rs");
    match k {
        0 => Case::new(
            "PreToolUse Bash simple",
            payload(
                project,
                "PreToolUse",
                serde_json::json!({"tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":ID_SLOT}),
            ),
            true,
        ),
        1 => {
            let compound: String = {
                let mut s = String::from("cd src && ");
                let mut i = 0;
                while s.len() < 2048 {
                    s.push_str(&format!("grep -rn \"pattern{i}\" . | head -5 && FOO=bar cargo build --bin x{i} 2>&1 | tail -3; "));
                    i += 1;
                }
                s.push_str("echo done");
                s
            };
            Case::new(
                "PreToolUse Bash 2 KB compound",
                payload(
                    project,
                    "PreToolUse",
                    serde_json::json!({"tool_name":"Bash","tool_input":{"command":compound},"tool_use_id":ID_SLOT}),
                ),
                true,
            )
        }
        2 => {
            let big = "x".repeat(1024 * 1024);
            Case::new(
                "PreToolUse Write 1 MB plain",
                payload(
                    project,
                    "PreToolUse",
                    serde_json::json!({"tool_name":"Write","tool_input":{"file_path":src,"content":big},"tool_use_id":ID_SLOT}),
                ),
                true,
            )
        }
        3 => {
            // Source code as an agent writes it: lines, indentation, quotes and tabs, which JSON
            // carries as escapes (four per line here), each one unescaped by the parser.
            let code: String = {
                let mut s = String::with_capacity(1024 * 1024 + 100);
                let mut i = 0;
                while s.len() < 1024 * 1024 {
                    s.push_str(&format!(
                        "    let value_{i} = format!(\"{{}}\\t{{}}\", left, right); // step {i}\n"
                    ));
                    i += 1;
                }
                s.truncate(1024 * 1024);
                s
            };
            Case::new(
                "PreToolUse Write 1 MB code",
                payload(
                    project,
                    "PreToolUse",
                    serde_json::json!({"tool_name":"Write","tool_input":{"file_path":src,"content":code},"tool_use_id":ID_SLOT}),
                ),
                true,
            )
        }
        4 => Case::new(
            "PostToolUse",
            payload(
                project,
                "PostToolUse",
                serde_json::json!({"tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_response":{"stdout":"a\nb\n","stderr":"","interrupted":false,"isImage":false},"tool_use_id":ID_SLOT,"duration_ms":5}),
            ),
            false,
        ),
        5 => Case::new(
            "PostToolUseFailure",
            payload(
                project,
                "PostToolUseFailure",
                serde_json::json!({"tool_name":"Bash","tool_input":{"command":"cargo build"},"tool_use_id":ID_SLOT,"error":"Exit code 101\nerror[E0308]: mismatched types\n --> src/lib.rs:10:5","is_interrupt":false}),
            ),
            false,
        ),
        6 => Case::new(
            "Stop",
            payload(
                project,
                "Stop",
                serde_json::json!({"stop_hook_active":false,"last_assistant_message":"done"}),
            ),
            false,
        ),
        7 => Case::new(
            "SessionStart",
            payload(
                project,
                "SessionStart",
                serde_json::json!({"source":"startup"}),
            ),
            false,
        ),
        _ => unreachable!("there are {CASES} cases, not {}", k + 1),
    }
}

/// The absolute path of a no-op program on `PATH`. Spawned by name, with the `PATH`
/// [`Env::apply`] sets, the standard library would fork the benchmark (not the `posix_spawn`
/// it uses for oath's absolute path) and the child would try `execve` in each directory of
/// `PATH` before the one holding it: seven failed calls here, all counted in the no-op's time,
/// which made every ratio to it look better than it was.
fn on_path(name: &str) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("`{name}` not found on PATH"))
        .to_string_lossy()
        .into_owned()
}

/// Runs one process with `stdin` and returns its wall time (spawn to exit).
fn time_one(program: &str, args: &[&str], stdin: &[u8], env: &Env) -> Duration {
    let start = Instant::now();
    let mut child = env
        .apply(Command::new(program))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut s) = child.stdin.take() {
        // `true` exits without reading; a broken pipe is expected then.
        let _ = s.write_all(stdin);
    }
    child.wait().expect("wait");
    start.elapsed()
}

struct Env {
    home: PathBuf,
    oath_home: PathBuf,
    project: PathBuf,
}

impl Env {
    fn apply(&self, mut c: Command) -> Command {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("OATH_HOME", &self.oath_home)
            .env("CLAUDE_PROJECT_DIR", &self.project)
            .current_dir(&self.project);
        c
    }
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = ms(v[v.len() / 2]);
    let p95 = ms(v[(v.len() * 95 / 100).min(v.len() - 1)]);
    (median, p95)
}

/// Returns `0..n` in an order drawn from `seed` (xorshift64*, Fisher-Yates).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// Returns a run number never returned before in this process.
fn next_run() -> u64 {
    static RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The no-op medians of one case, for the floors.
struct NoOps {
    true_ms: f64,
    cat_ms: f64,
}

/// A state oath is measured in.
struct State<'a> {
    label: &'static str,
    /// The label in the summary of missed targets.
    short: &'static str,
    env: &'a Env,
}

/// Measures every case with every build in every state, interleaved run by run with the
/// no-ops `true` and `cat`. A build or state measured after another would also measure what
/// changed on the machine in between. Prints one table per build and state; returns the no-op
/// medians of each case, and for each build the PreToolUse latency targets it missed.
fn measure(builds: &[Build], states: &[State]) -> (Vec<NoOps>, Vec<Vec<String>>) {
    // Runs of oath: every build in every state, `slot = build * states.len() + state`.
    let slots = builds.len() * states.len();
    // Per case: its name, whether it is a PreToolUse, and oath's times in each slot.
    let mut rows: Vec<(&'static str, bool, Vec<Vec<Duration>>)> = Vec::with_capacity(CASES);
    let mut noops = Vec::with_capacity(CASES);
    let (true_bin, cat_bin) = (on_path("true"), on_path("cat"));
    for k in 0..CASES {
        let mut built: Vec<Case> = states.iter().map(|s| case(k, &s.env.project)).collect();
        let mut times: Vec<Vec<Duration>> = (0..slots).map(|_| Vec::with_capacity(RUNS)).collect();
        let mut noop = Vec::with_capacity(RUNS);
        let mut reader = Vec::with_capacity(RUNS);
        // Five warm-up runs of all, then the measured ones.
        for i in 0..RUNS + 5 {
            let run = next_run();
            // Each run goes in its own order: no process is always preceded by the same one.
            for slot in shuffled(slots + 2, run) {
                let (at, program, args, sink) = match slot.checked_sub(slots) {
                    None => (
                        slot % states.len(),
                        builds[slot / states.len()].bin.as_str(),
                        &["hook"][..],
                        &mut times[slot],
                    ),
                    Some(0) => (0, true_bin.as_str(), &[][..], &mut noop),
                    Some(_) => (0, cat_bin.as_str(), &[][..], &mut reader),
                };
                // Every oath run gets an id of its own: the builds share a state, and a second
                // run with the same id would measure oath's duplicate check instead.
                let id = if slot < slots { next_run() } else { run };
                let t = time_one(program, args, built[at].for_run(id), states[at].env);
                if i >= 5 {
                    sink.push(t);
                }
            }
        }
        let (true_ms, _) = stats(noop);
        let (cat_ms, _) = stats(reader);
        noops.push(NoOps { true_ms, cat_ms });
        rows.push((built[0].name, built[0].pre_tool_use, times));
    }
    let mut misses = vec![Vec::new(); builds.len()];
    for slot in 0..slots {
        let (build, state) = (&builds[slot / states.len()], &states[slot % states.len()]);
        println!("\n## {}, {}\n", build.label, state.label);
        println!(
            "| case | median ms | p95 ms | `true` median ms | ratio | `cat` median ms | ratio | targets |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for ((name, pre_tool_use, times), noop) in rows.iter_mut().zip(&noops) {
            let (m, p) = stats(std::mem::take(&mut times[slot]));
            let ratio = m / noop.true_ms;
            let (under_2_ms, within_2x) = (m < 2.0, ratio <= 2.0);
            if *pre_tool_use && !(under_2_ms && within_2x) {
                misses[slot / states.len()]
                    .push(format!("{name}, {} ({ratio:.2}x, {m:.3} ms)", state.short));
            }
            let verdict = |met: bool| if met { "met" } else { "NOT met" };
            let target = if *pre_tool_use {
                format!(
                    "median < 2 ms: {}; within 2x `true`: {}",
                    verdict(under_2_ms),
                    verdict(within_2x)
                )
            } else {
                String::from("-")
            };
            println!(
                "| {name} | {m:.3} | {p:.3} | {:.3} | {ratio:.2} | {:.3} | {:.2} | {target} |",
                noop.true_ms,
                noop.cat_ms,
                m / noop.cat_ms
            );
        }
    }
    (noops, misses)
}

/// Median in milliseconds of `RUNS` in-process runs of `f`, each on a fresh `input()`; making
/// the input and dropping the result are not timed.
fn in_process_ms<T, R>(mut input: impl FnMut() -> T, mut f: impl FnMut(T) -> R) -> f64 {
    let times = (0..RUNS)
        .map(|_| {
            let input = input();
            let start = Instant::now();
            let out = f(input);
            let took = start.elapsed();
            drop(std::hint::black_box(out));
            took
        })
        .collect();
    stats(times).0
}

/// Prints, for each PreToolUse case, the floor of a hook built as oath is, one that reads all
/// of stdin, then parses it as oath does and parses a Bash command with brush-parser: reading
/// the payload (`cat`, measured in the same run) plus, in process and warm, that read and parse
/// (a PreToolUse Write's content unescaped, checked and hashed as it arrives,
/// `src/protocol/stream.rs`, from memory here; the JSON checked and built into a value) and
/// brush-parser called with oath's options, the defaults, without oath's conversion of its
/// tree. Everything else oath does (configuration, trust, 3-strike state, the classification
/// itself, the audit record) is left out. It is not a bound on every possible hook: a
/// statically linked reader starts faster than `cat` (oath's musl build starts faster than
/// `true`), and oath digests a Write's content while the writer is still writing.
fn floors(project: &Path, noops: &[NoOps]) {
    println!("\n## floors of PreToolUse (fresh state run)\n");
    println!(
        "What a hook built as oath is spends before any work of its own: reading the payload (`cat`), and in process reading and parsing it as oath does and parsing a Bash command with brush-parser. Not a bound: a static binary can start faster than `cat` (the musl build does), and oath digests a Write's content as it arrives.\n"
    );
    println!(
        "| case | `cat` median ms | read and JSON parse ms | brush-parser ms | floor ms | floor / `true` | floor within 2x `true` |"
    );
    println!("|---|---|---|---|---|---|---|");
    let cases = (0..CASES).map(|k| case(k, project));
    for (case, noop) in cases.zip(noops).filter(|(c, _)| c.pre_tool_use) {
        let json = in_process_ms(
            || (),
            |()| {
                let read = oath::protocol::stream::read(&case.payload[..], 0).expect("read");
                oath::protocol::HookInput::parse_owned(read.bytes, None)
            },
        );
        let value: serde_json::Value = serde_json::from_slice(&case.payload).expect("payload");
        let command = value["tool_input"]["command"]
            .as_str()
            .filter(|_| value["tool_name"] == "Bash");
        let parse = command.map(|command| {
            let options = brush_parser::ParserOptions::default();
            in_process_ms(
                || (),
                |()| {
                    brush_parser::Parser::new(std::io::Cursor::new(command.as_bytes()), &options)
                        .parse_program()
                },
            )
        });
        let floor = noop.cat_ms + json + parse.unwrap_or(0.0);
        let ratio = floor / noop.true_ms;
        println!(
            "| {} | {:.3} | {json:.3} | {} | {floor:.3} | {ratio:.2} | {} |",
            case.name,
            noop.cat_ms,
            parse.map_or_else(|| "-".to_owned(), |p| format!("{p:.3}")),
            if ratio <= 2.0 { "yes" } else { "no" }
        );
    }
}

/// Peak RSS (KiB) and minor page faults of one hook run, from `/usr/bin/time`. Page faults
/// are a large part of a hook's cost on virtual machines (each maps a page through the
/// hypervisor).
fn resources(bin: &str, case: &mut Case, env: &Env) -> Option<(u64, u64)> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let mut child = env
        .apply(Command::new(time))
        .args(["-f", "%M %R", bin, "hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()?
        .write_all(case.for_run(next_run()))
        .ok()?;
    let out = child.wait_with_output().ok()?;
    match time_figures(&out.stderr)[..] {
        [kib, faults] => Some((kib, faults)),
        _ => None,
    }
}

/// The numbers `/usr/bin/time -f …` printed: the last line of the child's stderr.
fn time_figures(stderr: &[u8]) -> Vec<u64> {
    let text = String::from_utf8_lossy(stderr);
    let last = text.lines().last().unwrap_or_default();
    last.split_whitespace()
        .map_while(|f| f.parse().ok())
        .collect()
}

fn stripped_size(bin: &str) -> Option<u64> {
    let dir = tempfile::tempdir().ok()?;
    let copy = dir.path().join("oath");
    std::fs::copy(bin, &copy).ok()?;
    let ok = Command::new("strip").arg(&copy).status().ok()?.success();
    ok.then(|| std::fs::metadata(&copy).ok().map(|m| m.len()))
        .flatten()
}

/// Fills the state with a large history: 50 extra domains, 100 000 audit records, 10 000 attempts.
fn large_history(env: &Env) {
    let project_key_dir = std::fs::read_dir(env.oath_home.join("projects"))
        .expect("projects dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .next()
        .expect("one project");
    // The trust file gains 50 domains besides those the first runs made (kept as they are).
    let trust_path = project_key_dir.join("trust-scores.json");
    // The trust folder (ADR 0023) leaves no single file: one written here is migrated into
    // the folder by the first PostToolUse measured.
    let bytes = std::fs::read(&trust_path).unwrap_or_else(|_| br#"{"version":"2"}"#.to_vec());
    let mut trust: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    if !trust["domains"].is_object() {
        trust["domains"] = serde_json::json!({});
    }
    let domains = trust["domains"].as_object_mut().expect("domains");
    for i in 0..50 {
        let name = format!("extra_domain_{i:02}");
        domains.insert(
            name,
            serde_json::json!({"score":0.5,"successes":10,"failures":1,"total_operations":11,"last_operated_at":"2026-11-01T00:00:00Z","is_warming_up":false,"warmup_remaining":0,"consecutive_failures":0,"pre_failure_score":null,"is_recovering":false}),
        );
    }
    std::fs::write(
        &trust_path,
        serde_json::to_vec_pretty(&trust).expect("json"),
    )
    .expect("write trust");
    // 100 000 audit records in this session's file, and 10 000 strike attempts in the seed's
    // errors.json (no git: the @no-git folder). Both are streamed to disk: a large heap left in
    // this process would make every later spawn (of oath and of the no-ops alike) slower.
    let audit = project_key_dir
        .join("audit")
        .join(format!("{SESSION}.jsonl"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&audit).expect("audit file"));
    for i in 0..100_000 {
        writeln!(
            out,
            "{{\"v\":1,\"kind\":\"pre\",\"timestamp\":\"2026-11-01T00:00:00.000Z\",\"session_id\":\"{SESSION}\",\"tool_use_id\":\"toolu_h{i}\",\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":\"ls -la {i}\"}},\"domain\":\"file_read\",\"risk_category\":\"low\",\"decision\":\"allow\"}}"
        )
        .expect("write audit");
    }
    out.flush().expect("flush audit");
    let plan = env.project.join(".plan/@no-git");
    std::fs::create_dir_all(&plan).expect("plan dir");
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(plan.join("errors.json")).expect("errors"));
    write!(out, "{{\"attempts\":[").expect("write errors");
    for i in 0..10_000 {
        if i > 0 {
            write!(out, ",").expect("write errors");
        }
        write!(
            out,
            "{{\"timestamp\":\"2026-11-01T00:00:00Z\",\"tool\":\"Bash\",\"error\":\"Exit code 1\\nerror {i}\",\"status\":\"resolved\",\"hash\":\"{i:08x}\"}}"
        )
        .expect("write errors");
    }
    write!(out, "],\"strikeCount\":0,\"lastErrorHash\":\"\"}}").expect("write errors");
    out.flush().expect("flush errors");
}

/// Wall time of 64 PostToolUse processes of one domain started at once. Each burst has ids of
/// its own: the builds burst in turn on one state, and a remembered id would take oath's
/// duplicate check instead of the trust update.
fn burst(bin: &str, env: &Env) -> Duration {
    let payloads: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            payload(
                &env.project,
                "PostToolUse",
                serde_json::json!({"tool_name":"Read","tool_input":{"file_path":env.project.join("README.md")},"tool_response":{"type":"text"},"tool_use_id":format!("toolu_burst{}", next_run())}),
            )
        })
        .collect();
    let start = Instant::now();
    let children: Vec<_> = payloads
        .iter()
        .map(|p| {
            let mut c = env
                .apply(Command::new(bin))
                .arg("hook")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            c.stdin.take().expect("stdin").write_all(p).expect("write");
            c
        })
        .collect();
    for mut c in children {
        c.wait().expect("wait");
    }
    start.elapsed()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let builds = builds();
    let dir = tempfile::tempdir().expect("tempdir");
    let env_in = |name: &str| {
        let root = dir.path().join(name);
        let env = Env {
            home: root.join("home"),
            oath_home: root.join("state"),
            project: root.join("project"),
        };
        std::fs::create_dir_all(&env.home).expect("home");
        std::fs::create_dir_all(env.project.join("src")).expect("project");
        std::fs::write(env.project.join("README.md"), "bench\n").expect("readme");
        env
    };
    let (fresh, env) = (env_in("fresh"), env_in("large"));
    // The large history is written over the state a first run of each case leaves.
    for k in 0..CASES {
        time_one(
            &builds[0].bin,
            &["hook"],
            case(k, &env.project).for_run(next_run()),
            &env,
        );
    }
    large_history(&env);
    // Let the freshly written history reach the disk before measuring, so that writeback
    // does not compete with the runs.
    let _ = Command::new("sync").status();
    std::thread::sleep(Duration::from_secs(2));

    println!(
        "# oath hook latency ({RUNS} runs per case, build and state, interleaved with no-ops `true` and `cat`)"
    );
    println!(
        "\nmachine: {} CPUs",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    for b in &builds {
        println!("- {}: {}", b.label, b.bin);
    }
    let states = [
        State {
            label: "fresh state",
            short: "fresh state",
            env: &fresh,
        },
        State {
            label: "large history (50 extra domains, 100 000 audit records, 10 000 strike attempts)",
            short: "large history",
            env: &env,
        },
    ];
    let (noops, misses) = measure(&builds, &states);
    floors(&fresh.project, &noops);
    for b in &builds {
        resources_of(b, &env);
    }
    println!("\n## latency targets of PreToolUse (median < 2 ms, within 2x `true`)\n");
    for (b, missed) in builds.iter().zip(&misses) {
        if missed.is_empty() {
            println!("- {}: all met", b.label);
        } else {
            println!("- {}: NOT met by {}", b.label, missed.join("; "));
        }
    }
}

/// Peak RSS, page faults, stripped size and a burst of 64 PostToolUse of one build.
fn resources_of(build: &Build, env: &Env) {
    println!("\n## resources, {}\n", build.label);
    let measured: Vec<_> = (0..CASES)
        .filter_map(|k| {
            let mut c = case(k, &env.project);
            resources(&build.bin, &mut c, env).map(|r| (c.name, r))
        })
        .collect();
    let worst = measured.iter().map(|&(name, (kib, _))| (kib, name)).max();
    match worst {
        Some((kib, name)) => println!(
            "peak RSS (largest case: {name}): {:.1} MiB (target < 10 MiB: {})",
            kib as f64 / 1024.0,
            if kib < 10 * 1024 { "met" } else { "NOT met" }
        ),
        None => println!("peak RSS: /usr/bin/time not available"),
    }
    // The count starts at fork, before the exec: a no-op's own figure is the baseline.
    let noop_faults = Command::new("/usr/bin/time")
        .args(["-f", "%R", &on_path("true")])
        .output()
        .ok()
        .and_then(|o| time_figures(&o.stderr).first().copied());
    if let Some(n) = noop_faults {
        println!("  minor page faults, counted from fork: `true` {n}");
    }
    for (name, (kib, faults)) in &measured {
        println!(
            "  {name:32} {:.1} MiB, {faults} minor page faults",
            *kib as f64 / 1024.0
        );
    }
    match stripped_size(&build.bin) {
        Some(bytes) => println!(
            "stripped binary size: {:.2} MiB",
            bytes as f64 / (1024.0 * 1024.0)
        ),
        None => println!("stripped binary size: strip not available"),
    }
    let wall = burst(&build.bin, env);
    println!(
        "64 parallel PostToolUse processes, one domain: {:.1} ms wall",
        wall.as_secs_f64() * 1000.0
    );
}
