//! `oath redact`: masks secrets in a text the way oath masks everything it writes (the same
//! engine and rule table), streaming in bounded memory. oath runs it itself behind the async
//! observer commands, whose output goes through it into their log files.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::{CliError, Result};
use crate::redact::RedactingWriter;

/// Mask secrets in a text.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  env | oath redact
  oath redact build.log > build.redacted.log")]
pub struct RedactArgs {
    /// Files to read, one after another (stdin when none)
    pub files: Vec<PathBuf>,
}

/// Runs `oath redact`.
pub fn run(args: &RedactArgs) -> Result<ExitCode> {
    let mut out = RedactingWriter::new(BufWriter::new(io::stdout().lock()));
    let fail = |what: String| move |e: io::Error| CliError::new(format!("{what}: {e}"));
    if args.files.is_empty() {
        copy(&mut io::stdin().lock(), &mut out).map_err(fail("cannot redact stdin".into()))?;
    }
    for f in &args.files {
        let mut file =
            std::fs::File::open(f).map_err(fail(format!("cannot read {}", f.display())))?;
        copy(&mut file, &mut out).map_err(fail(format!("cannot redact {}", f.display())))?;
    }
    match out.finish() {
        Ok(_) => Ok(ExitCode::SUCCESS),
        // A reader that went away (`oath redact x | head`) is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(CliError::new(format!("cannot write the output: {e}"))),
    }
}

/// Copies a reader into the writer (`io::copy` without its specialisations, which a wrapper
/// writer cannot use anyway).
fn copy(from: &mut impl Read, to: &mut impl Write) -> io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => to.write_all(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
