//! Running observer commands: `sh -c` in a process group of its own, sync ones to their end
//! or timeout (then the whole group is killed), async ones detached with a log file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use serde_json::json;

use super::OUTPUT_HEAD_BYTES;
use crate::audit::{self, record};

/// Time between SIGTERM and SIGKILL for a timed-out command's process group.
const KILL_GRACE: Duration = Duration::from_millis(1000);

/// Builds `/bin/sh -c <script>` in `cwd` with the payload variables, in a new process group.
fn shell(script: &str, cwd: &Path, vars: &[(&'static str, String)]) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(script)
        .arg("oath-observer")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .process_group(0);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd
}

/// The shell that runs an async command: under coreutils `timeout` when it is there (which
/// puts the command in a process group of its own, sends it SIGTERM at the limit and SIGKILL
/// a second later), killing that group once more after a timeout so children that outlived
/// the command die too; the exit status goes to the log. `$1` is the script, `$2` the limit.
const ASYNC_WRAPPER: &str = r#"if timeout -k 1 1 true 2>/dev/null; then
  timeout -k 1 "$2" sh -c "$1" oath-observer &
  p=$!
  wait "$p"
  s=$?
  if [ "$s" = 124 ] || [ "$s" = 137 ]; then
    kill -s KILL -- "-$p" 2>/dev/null
    printf '[oath] timed out after %s s; its process group was killed\n' "$2"
  fi
else
  sh -c "$1" oath-observer
  s=$?
fi
printf '[oath] exit status %s\n' "$s"
"#;

/// Starts a detached command writing to `log`; returns its pid. The hook does not wait: the
/// command is reparented when the hook exits, and holds none of the hook's pipes. Its output
/// goes into the log through `oath redact` (this executable), detached too, so the log holds no
/// secret in clear; where that filter cannot start, the command is not started either.
pub(super) fn spawn_async(
    script: &str,
    cwd: &Path,
    vars: &[(&'static str, String)],
    log: &Path,
    header: &str,
    timeout_secs: u64,
) -> io::Result<u32> {
    if let Some(parent) = log.parent() {
        fs::create_dir_all(parent)?;
    }
    // Private like the output file: a command may print what the tool returned.
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)?;
    // The header names the call (its tool use id comes from the payload): redacted too.
    writeln!(file, "[oath] {}", crate::redact::redact_str(header))?;
    let (reader, writer) = io::pipe()?;
    Command::new(std::env::current_exe()?)
        .arg("redact")
        .current_dir(cwd)
        .stdin(Stdio::from(reader))
        .stdout(Stdio::from(file))
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let mut cmd = shell(ASYNC_WRAPPER, cwd, vars);
    cmd.arg(script)
        .arg(timeout_secs.to_string())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer));
    // Dropped with `cmd` on failure: the filter then reads the end of its input and exits.
    let child = cmd.spawn()?;
    Ok(child.id())
}

/// How a sync command ended.
#[derive(Debug)]
pub(super) struct SyncResult {
    pub(super) exit_code: Option<i32>,
    pub(super) signal: Option<i32>,
    pub(super) timed_out: bool,
    duration_ms: u128,
    stdout: String,
    stdout_bytes: u64,
    stderr: String,
    stderr_bytes: u64,
}

impl SyncResult {
    /// Returns the result as an audit record's fields.
    pub(super) fn record(&self) -> record::Ran {
        record::Ran {
            exit_code: self.exit_code,
            signal: self.signal,
            timed_out: self.timed_out,
            duration_ms: self.duration_ms as u64,
            stdout: audit::loggable(&json!(self.stdout)),
            stdout_bytes: self.stdout_bytes,
            stderr: audit::loggable(&json!(self.stderr)),
            stderr_bytes: self.stderr_bytes,
        }
    }
}

/// Runs a command to its end or its timeout. Output goes to anonymous files rather than
/// pipes, so a background grandchild holding them open cannot make the hook wait.
pub(super) fn run_sync(
    script: &str,
    cwd: &Path,
    vars: &[(&'static str, String)],
    timeout: Duration,
) -> io::Result<SyncResult> {
    let mut out = tempfile::tempfile()?;
    let mut err = tempfile::tempfile()?;
    let mut cmd = shell(script, cwd, vars);
    cmd.stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(err.try_clone()?));
    let start = Instant::now();
    let child = cmd.spawn()?;
    drop(cmd);
    // A timeout too large for the clock is no limit at all.
    let deadline = start.checked_add(timeout);
    let (status, timed_out) = wait_or_kill(child, deadline)?;
    let duration_ms = start.elapsed().as_millis();
    let (stdout, stdout_bytes) = head(&mut out)?;
    let (stderr, stderr_bytes) = head(&mut err)?;
    Ok(SyncResult {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        duration_ms,
        stdout,
        stdout_bytes,
        stderr,
        stderr_bytes,
    })
}

/// Waits for the child until `deadline`; past it, kills its process group. Returns the exit
/// status and whether the deadline passed. A thread blocks in `wait` and says when the child
/// ended, so the hook waits exactly as long as the command runs (no polling interval).
fn wait_or_kill(mut child: Child, deadline: Option<Instant>) -> io::Result<(ExitStatus, bool)> {
    let Some(deadline) = deadline else {
        return child.wait().map(|s| (s, false));
    };
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::Builder::new()
        .name("observer-wait".into())
        .spawn(move || {
            let status = child.wait();
            let _ = tx.send(());
            status
        })?;
    let join = |w: std::thread::JoinHandle<io::Result<ExitStatus>>| {
        w.join()
            .unwrap_or_else(|_| Err(io::Error::other("the observer's waiting thread failed")))
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if rx.recv_timeout(left).is_ok() {
        return join(waiter).map(|s| (s, false));
    }
    kill_group(pid, &rx);
    join(waiter).map(|s| (s, true))
}

/// Sends SIGTERM to the process group of `pid`, waits a short grace for its leader to end
/// (`ended` hears of it) and the group to empty, then sends SIGKILL to whatever is left.
fn kill_group(pid: u32, ended: &std::sync::mpsc::Receiver<()>) {
    let Some(pgid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    let _ = kill_process_group(pgid, Signal::TERM);
    let grace_end = Instant::now() + KILL_GRACE;
    let leader_ended = ended
        .recv_timeout(grace_end.saturating_duration_since(Instant::now()))
        .is_ok();
    // The group id stays reserved while any member lives, so once the leader is reaped an
    // ESRCH here means every member is gone.
    while leader_ended && Instant::now() < grace_end {
        if test_kill_process_group(pgid).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = kill_process_group(pgid, Signal::KILL);
}

/// Bytes read past the head so that a secret the head's end cuts through is still recognised
/// (and masked) before the cut: half a token no longer looks like one.
const REDACT_LOOKAHEAD_BYTES: usize = 1024;

/// Returns the first [`OUTPUT_HEAD_BYTES`] of a file as redacted text, and the file's size.
fn head(file: &mut File) -> io::Result<(String, u64)> {
    let size = file.metadata()?.len();
    file.seek(SeekFrom::Start(0))?;
    let want = OUTPUT_HEAD_BYTES + REDACT_LOOKAHEAD_BYTES;
    let mut buf = Vec::with_capacity(want.min(size as usize));
    file.take(want as u64).read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let text = crate::redact::redact_str(&text);
    let mut cut = OUTPUT_HEAD_BYTES.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok((text[..cut].to_owned(), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_out_group_is_killed_even_when_it_ignores_sigterm() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "trap '' TERM; sleep 30 & echo $! > grandchild; sleep 30",
            dir.path(),
            &[],
            // Long enough for the script to record its grandchild even on a loaded machine.
            Duration::from_secs(2),
        )
        .unwrap();
        assert!(r.timed_out);
        assert_eq!(r.signal, Some(9));
        let pid = fs::read_to_string(dir.path().join("grandchild")).unwrap();
        let pid = pid.trim();
        // Gone, or a zombie waiting for a reaper: either way no longer running.
        let mut dead = false;
        for _ in 0..100 {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty()
                || stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z'))
            {
                dead = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(dead, "grandchild {pid} still running");
    }

    #[test]
    fn a_secret_cut_by_the_end_of_the_kept_head_is_still_masked() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "printf '%2030s' '' >&2; printf 'ghp_0123456789abcdefghijABCDEFGHIJ012345 more\\n' >&2",
            dir.path(),
            &[],
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(r.stderr.len() <= OUTPUT_HEAD_BYTES);
        let logged = audit::loggable(&json!(r.stderr));
        let logged = logged.as_str().unwrap();
        assert!(
            !logged.contains("ghp_0123"),
            "part of a token kept: {logged:?}"
        );
    }

    #[test]
    fn sync_output_heads_and_sizes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_sync(
            "printf 'out'; head -c 5000 /dev/zero | tr '\\0' x >&2; exit 3",
            dir.path(),
            &[],
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(!r.timed_out);
        assert_eq!(r.exit_code, Some(3));
        assert_eq!(r.stdout, "out");
        assert_eq!(r.stdout_bytes, 3);
        assert_eq!(r.stderr.len(), OUTPUT_HEAD_BYTES);
        assert_eq!(r.stderr_bytes, 5000);
    }
}
