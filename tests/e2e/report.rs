//! Issue 32: `oath report` of a real session, in a real browser. A scripted Claude Code session
//! (reads allowed, a critical command denied, the same failure twice, a medium command) is
//! turned into a page, which headless Chromium loads: no console or page error, no blocked
//! load, one timeline mark per call of the audit, one trust point before and one per applied
//! outcome, hover and click show a call; a screenshot is kept under
//! `target/e2e-artefacts/report.png`. A 10,000-call page is loaded the same way.
//!
//! Chromium is Debian's (`chromium`; `.ci/run` installs it), or `OATH_E2E_CHROMIUM`. It is
//! run headless with `--dump-dom` on a copy of the page with a probe script first in `<head>`,
//! which records errors (`error`, `unhandledrejection`, CSP violations, console.error/warn)
//! and, at `load`, what the browser made of the page; its console is also read from stderr
//! (`--enable-logging=stderr`). Under `CI=true` a missing Chromium fails the test.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Opts, Project};
use crate::server::{Script, bash, tool};

/// Environment variable naming the Chromium binary.
const CHROMIUM_ENV: &str = "OATH_E2E_CHROMIUM";

/// Longest a browser run may take (a guard, not an assertion on speed).
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// Returns Chromium, or `None` (after a notice) when it is not installed. Under `CI=true` a
/// missing browser fails the test.
fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os(CHROMIUM_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let found = named.clone().or_else(|| {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
    });
    if let Some(p) = found.filter(|p| p.is_file()) {
        return Some(p);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "CI=true but Chromium is missing ({}): apt-get install chromium (or set {CHROMIUM_ENV})",
        named.map_or("/usr/bin/chromium".into(), |p| p.display().to_string())
    );
    eprintln!(
        "SKIPPED browser test: no Chromium (apt-get install chromium, or set {CHROMIUM_ENV})"
    );
    None
}

/// The probe put first in the page's `<head>`: errors as they come, and at `load` (after the
/// report's own script ran) what the page holds, as JSON in `<pre id="probe">`.
const PROBE: &str = r#"<script>
(function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push("error: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) { errors.push("rejection: " + e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) {
    errors.push("blocked: " + e.violatedDirective + " " + e.blockedURI);
  });
  ["error", "warn"].forEach(function (k) {
    var orig = console[k];
    console[k] = function () { errors.push(k + ": " + Array.prototype.join.call(arguments, " ")); return orig.apply(console, arguments); };
  });
  window.addEventListener("load", function () {
    var out = {};
    try {
      document.body.getBoundingClientRect();
      out.render_ms = performance.now();
      out.marks = {};
      document.querySelectorAll("svg.marks path[data-kind=call]").forEach(function (p) {
        out.marks[p.getAttribute("class")] = (p.getAttribute("d").match(/M/g) || []).length;
      });
      out.notes = {};
      document.querySelectorAll("svg.marks path[data-kind=note]").forEach(function (p) {
        out.notes[p.getAttribute("class")] = (p.getAttribute("d").match(/M/g) || []).length;
      });
      out.lines = {};
      document.querySelectorAll("svg.trust polyline").forEach(function (l) {
        out.lines[l.getAttribute("data-domain") + "/" + l.getAttribute("data-level")] = l.points.numberOfItems;
      });
      out.thresholds = document.querySelectorAll("svg.trust line.allow, svg.trust line.ask").length;
      out.nodes = document.getElementsByTagName("*").length;
      out.kpt = !!document.getElementById("kpt");
      var canvas = document.getElementById("canvas");
      if (canvas) {
        var r = canvas.getBoundingClientRect();
        var opts = { bubbles: true, clientX: r.left + 1, clientY: r.top + 5 };
        canvas.dispatchEvent(new MouseEvent("mousemove", opts));
        var tip = document.getElementById("tip");
        out.tip = tip.hidden ? null : tip.textContent;
        canvas.dispatchEvent(new MouseEvent("click", opts));
        out.detail = document.getElementById("detail").textContent;
        canvas.dispatchEvent(new KeyboardEvent("keydown", { bubbles: true, key: "ArrowRight" }));
        out.after_key = document.getElementById("detail").textContent;
        out.cursor = !document.getElementById("cursor").hidden;
        out.canvas_width = r.width;
      }
    } catch (e) {
      errors.push("probe: " + e);
    }
    out.errors = errors;
    var pre = document.createElement("pre");
    pre.id = "probe";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  });
})();
</script>"#;

/// Runs Chromium headless with `args` on a page; returns stdout and stderr.
fn run_browser(browser: &Path, profile: &Path, args: &[String], page: &Path) -> (String, String) {
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1280,900",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args)
    .arg(format!("file://{}", page.display()))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start chromium");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish within {BROWSER_TIMEOUT:?}: {}",
                err_t.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (
        out_t.join().unwrap_or_default(),
        err_t.join().unwrap_or_default(),
    )
}

/// What the browser made of a page.
struct Loaded {
    probe: Value,
    /// Console lines Chromium logged on stderr.
    console: Vec<String>,
}

/// Loads a copy of the page with the probe and returns what it recorded.
fn load(browser: &Path, work: &Path, page: &Path) -> Loaded {
    let html = std::fs::read_to_string(page).expect("read the report");
    let at = html.find("<head>").expect("a <head>") + "<head>".len();
    let probed = work.join(format!(
        "probed-{}",
        page.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&probed, format!("{}{PROBE}{}", &html[..at], &html[at..])).expect("write");
    let (dom, stderr) = run_browser(
        browser,
        &work.join("profile-dump"),
        &["--dump-dom".to_owned()],
        &probed,
    );
    let start = dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("no probe result in the DOM; stderr:\n{stderr}"))
        + "<pre id=\"probe\">".len();
    let end = start + dom[start..].find("</pre>").expect("end of probe");
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    let probe: Value = serde_json::from_str(&text).expect("probe JSON");
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    Loaded { probe, console }
}

/// Takes a screenshot of the page (as written, without the probe).
fn screenshot(browser: &Path, work: &Path, page: &Path, png: &Path) {
    std::fs::create_dir_all(png.parent().unwrap()).expect("artefact folder");
    let _ = std::fs::remove_file(png);
    let (_, stderr) = run_browser(
        browser,
        &work.join("profile-shot"),
        &[format!("--screenshot={}", png.display())],
        page,
    );
    let bytes = std::fs::read(png)
        .unwrap_or_else(|e| panic!("no screenshot at {}: {e}; stderr:\n{stderr}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
}

/// Returns the folder for test artefacts: `target/e2e-artefacts`.
fn artefacts() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("e2e-artefacts")
}

/// Calls of the audit (distinct `tool_use_id` of pre and outcome records) and applied trust
/// changes per domain and level (`domain/level`, one trust line each).
fn expected(audit: &[Value]) -> (usize, BTreeMap<String, u64>) {
    let mut ids = std::collections::BTreeSet::new();
    let mut applied = BTreeMap::new();
    for r in audit {
        if matches!(r["kind"].as_str(), Some("pre" | "outcome"))
            && let Some(id) = r["tool_use_id"].as_str()
        {
            ids.insert(id.to_owned());
        }
        if r["kind"] == "outcome" && r["trust_applied"] == true {
            let key = format!(
                "{}/{}",
                r["domain"].as_str().unwrap_or(""),
                r["trust_level"].as_str().unwrap_or("")
            );
            *applied.entry(key).or_insert(0) += 1;
        }
    }
    (ids.len(), applied)
}

fn check_clean(what: &str, loaded: &Loaded) {
    assert_eq!(
        loaded.probe["errors"],
        json!([]),
        "{what}: errors in the page"
    );
    assert!(
        loaded.console.is_empty(),
        "{what}: console messages:\n{}",
        loaded.console.join("\n")
    );
}

fn total_marks(probe: &Value) -> u64 {
    probe["marks"]
        .as_object()
        .expect("marks")
        .values()
        .map(|v| v.as_u64().unwrap_or(0))
        .sum()
}

/// A retrospective of the session, as `/hurikaeri` would leave it.
fn kpt_report(session: &str) -> String {
    format!(
        "id: kpt-20260301-001
created_at: 2026-03-01T15:00:00Z
session_id: {session}
session_summary: \"Listed and read the project; a cleanup outside it was denied.\"
task_goals:
  - \"Look around the project\"
outcome: partial
keep:
  - id: keep-001
    description: \"Read before changing anything\"
    evidence: \"the first calls\"
    category: approach
problem:
  - id: prob-001
    description: \"The same failing command ran twice\"
    impact: low
    evidence: \"exit 3, twice\"
    category: oversight
try:
  - id: try-001
    description: \"Read the error before running a command again\"
    addresses: [\"prob-001\"]
    scope: project
omission: []
"
    )
}

#[test]
fn report_of_a_real_session_renders_in_chromium() {
    let Some(browser) = chromium() else { return };
    let Some(p) = Project::new() else { return };
    p.write("notes.txt", "hello <report> & friends\n");
    let victim = p.home().join("important");
    std::fs::create_dir_all(&victim).expect("victim dir");
    let script = Script::new()
        .call(bash("ls"))
        .call(tool(
            "Read",
            json!({"file_path": p.root().join("notes.txt")}),
        ))
        .call(bash(&format!("rm -rf {}", victim.display())))
        .call(bash("echo attempt; exit 3"))
        .call(bash("echo attempt; exit 3"))
        .call(bash("touch made-by-agent.txt"))
        .call(bash("pwd"))
        .say("Done.");
    let run = p.run("Look around", script, &Opts::allow("Bash,Read"));
    let (calls, applied) = expected(&run.audit);
    assert!(calls >= 7, "calls in the audit: {}", run.audit_text());
    let decisions: Vec<&str> = run
        .records("pre")
        .iter()
        .filter_map(|r| r["decision"].as_str())
        .collect();
    assert!(decisions.contains(&"deny"), "{decisions:?}");
    assert!(decisions.contains(&"allow"), "{decisions:?}");
    std::fs::write(
        p.kpt_dir().join("kpt-20260301-001.yaml"),
        kpt_report(&run.session_id),
    )
    .expect("write the retrospective");

    let work = p.root().join(".report-test");
    std::fs::create_dir_all(&work).expect("work dir");
    let page = work.join("report.html");
    let out = p
        .oath()
        .args(["report", "--session", &run.session_id, "-o"])
        .arg(&page)
        .output()
        .expect("run oath report");
    assert!(
        out.status.success(),
        "oath report: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let loaded = load(&browser, &work, &page);
    let probe = &loaded.probe;
    eprintln!("report of the real session in Chromium: {probe}");
    check_clean("real session", &loaded);
    assert_eq!(
        total_marks(probe),
        calls as u64,
        "one mark per call: {probe}"
    );
    let lines: BTreeMap<String, u64> = probe["lines"]
        .as_object()
        .expect("lines")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
        .collect();
    let want: BTreeMap<String, u64> = applied.iter().map(|(d, n)| (d.clone(), n + 1)).collect();
    assert_eq!(lines, want, "trust points: {probe}");
    assert!(probe["thresholds"].as_u64().unwrap_or(0) > 0, "{probe}");
    let failures = run
        .records("outcome")
        .iter()
        .filter(|r| r["outcome"] == "failure")
        .count() as u64;
    assert_eq!(failures, 2, "{}", run.audit_text());
    assert_eq!(probe["notes"]["fail"], failures, "{probe}");
    assert_eq!(
        probe["notes"]["strike"], 1,
        "the second identical failure: {probe}"
    );
    assert_eq!(probe["kpt"], true, "the retrospective is shown");
    let tip = probe["tip"].as_str().unwrap_or("");
    assert!(
        tip.contains("call1 of"),
        "hover shows the first call: {tip:?}"
    );
    assert!(
        probe["detail"].as_str().unwrap_or("").contains("decision"),
        "{probe}"
    );
    let after_key = probe["after_key"].as_str().unwrap_or("");
    assert!(after_key.contains("call2 of"), "arrow key: {after_key:?}");
    assert_eq!(probe["cursor"], true, "{probe}");

    let png = artefacts().join("report.png");
    screenshot(&browser, &work, &page, &png);
    eprintln!("screenshot: {}", png.display());
}

#[test]
fn report_of_ten_thousand_calls_renders_in_chromium() {
    let Some(browser) = chromium() else { return };
    let Some(p) = Project::new() else { return };
    // A short real session gives the project its state folder; a synthetic one is added.
    let run = p.run(
        "Look",
        Script::new().call(bash("ls")).say("Ok."),
        &Opts::default(),
    );
    let audit_dir = std::fs::read_dir(p.oath_home().join("projects"))
        .expect("projects")
        .filter_map(Result::ok)
        .map(|e| e.path().join("audit"))
        .find(|d| d.is_dir())
        .unwrap_or_else(|| panic!("no audit folder: {}", run.audit_text()));
    let session = "10000000-synthetic";
    crate::synthetic_session::write(&audit_dir.join(format!("{session}.jsonl")), session, 10_000);
    let work = p.root().join(".report-test");
    std::fs::create_dir_all(&work).expect("work dir");
    let page = work.join("big.html");
    let started = Instant::now();
    let out = p
        .oath()
        .args(["report", "--session", session, "-o"])
        .arg(&page)
        .output()
        .expect("run oath report");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::metadata(&page).expect("page").len();
    let loaded = load(&browser, &work, &page);
    let probe = &loaded.probe;
    eprintln!(
        "10,000 calls: oath report {took:?} (this build), {bytes} bytes, {} elements, loaded and laid out in {} ms",
        probe["nodes"], probe["render_ms"]
    );
    check_clean("10,000 calls", &loaded);
    assert_eq!(total_marks(probe), 10_000, "{probe}");
    assert!(probe["nodes"].as_u64().unwrap_or(u64::MAX) < 400, "{probe}");
    screenshot(
        &browser,
        &work,
        &page,
        &artefacts().join("report-10000.png"),
    );
}
