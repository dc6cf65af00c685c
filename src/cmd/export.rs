//! `oath export otlp`: the audit trail to an OpenTelemetry collector ([`crate::export`]).

use std::process::ExitCode;

use crate::config::Config;
use crate::error::{CliError, EXIT_USAGE, Result};
use crate::export::http::{Http, Print};
use crate::export::settings::{self, Protocol};
use crate::export::{self, Summary};
use crate::project::{Env, Project};
use crate::redact;
use crate::ui;

/// Ship the audit trail elsewhere.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Where to.
    #[command(subcommand)]
    pub command: ExportCommand,
}

/// Export targets.
#[derive(Debug, clap::Subcommand)]
pub enum ExportCommand {
    /// Send the audit trail to an OpenTelemetry collector as OTLP/HTTP log records
    #[command(after_help = "\
Sends what was added to the audit trail since the last run: decisions (oath.pre), outcomes
(oath.outcome), session events, observer and refusal records, one log record each, and the
valid KPT reports not sent yet (oath.kpt), with
Claude Code's names for the keys that join its own telemetry (session.id, prompt.id,
tool_use_id, tool_name) and oath's fields as oath.<field>. A cursor per audit file moves only
once the collector accepted a batch: a failed or killed run loses nothing, and a record sent
twice has the same oath.record_id. No retries: the exit code is 1 when the collector refused
or did not answer, and the next run sends again (a collector that does not answer ends the
run; a refused file waits while the others are sent). A batch answered 400, which OTLP says
never to send again, is dropped and reported, so it cannot block its file for good.

Configured as OpenTelemetry exporters are: OTEL_EXPORTER_OTLP_ENDPOINT (base URL, /v1/logs
appended; default http://localhost:4318), OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (as it is),
OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or
http/json), OTEL_EXPORTER_OTLP_TIMEOUT (ms), their _LOGS_ forms, OTEL_RESOURCE_ATTRIBUTES and
OTEL_SERVICE_NAME; or the same keys under export.otlp in oath's user configuration (the
variables win). A project's .oath.yaml sets them only once approved (`oath config trust`), and
only for its own trail (--project); a run over every project follows the user's settings.

Examples:
  oath export otlp                     every project's trail (a cron job or systemd timer)
  oath export otlp --project           only this project's
  oath export otlp --project --hook    the same, exit 0 whatever happens (the Stop hook's)
  oath export otlp --dry-run | jq .    the requests as OTLP/JSON, nothing sent or moved")]
    Otlp(OtlpArgs),
}

/// `oath export otlp`.
#[derive(Debug, clap::Args)]
pub struct OtlpArgs {
    /// Only the current project's audit trail (default: every project's)
    #[arg(long)]
    pub project: bool,
    /// Print the requests' bodies (OTLP/JSON, one a line) instead of sending them; no cursor
    /// moves
    #[arg(long)]
    pub dry_run: bool,
    /// Run as a client's hook (what `oath install --export` registers): exit 0 even when
    /// the collector refused or the settings are wrong, saying so on stderr; the hook's input
    /// is not read
    #[arg(long, conflicts_with = "dry_run")]
    pub hook: bool,
}

/// Runs `oath export`.
pub fn run(args: &ExportArgs) -> Result<ExitCode> {
    match &args.command {
        // A hook never exits 1 (the client would report a failed hook every turn while a
        // collector is down); the next run sends what this one could not.
        ExportCommand::Otlp(a) if a.hook => Ok(otlp(a).unwrap_or_else(|e| {
            ui::error(&format!("oath export otlp: {}", e.message));
            ExitCode::SUCCESS
        })),
        ExportCommand::Otlp(a) => otlp(a),
    }
}

fn otlp(args: &OtlpArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    // Every project's trail goes where the user's settings say: a project's file (even an
    // approved one) may choose where its own trail goes (`--project`), never the others'.
    let loaded = if args.project {
        Config::in_force(&env, &project)
    } else {
        Config::load_checked(
            env.user_config_path().as_deref(),
            None,
            crate::config::approval::Approvals::default,
        )
    };
    for w in loaded.warnings.iter().chain(&loaded.unapproved_notice()) {
        ui::warn(&format!("configuration: {w}"));
    }
    let mut settings =
        settings::resolve(&crate::env::var, &loaded.config.export.otlp).map_err(|e| {
            let mut e = CliError::new(e);
            e.code = EXIT_USAGE;
            e
        })?;
    if args.dry_run {
        settings.protocol = Protocol::Json;
    }
    let state_root = env.state_root();
    let only = args.project.then(|| {
        project
            .state_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let sources = export::sources(&state_root, only.as_deref())
        .map_err(|e| CliError::new(format!("cannot list the audit trails: {e}")))?;
    let kpt_dir = crate::kpt::reports_dir(&env, &loaded.config.kpt);
    let in_project = |session: &str| project.audit_file(session).is_file();
    let session_filter: Option<&dyn Fn(&str) -> bool> = if args.project {
        Some(&in_project)
    } else {
        None
    };
    let send = |transport: &mut dyn export::Transport, move_cursors: bool| {
        let mut summary = export::run(&state_root, &sources, &settings, transport, move_cursors)?;
        if let Some(dir) = &kpt_dir {
            export::kpt::run(
                &state_root,
                dir,
                session_filter,
                &settings,
                transport,
                move_cursors,
                &mut summary,
            )
            .map_err(|message| export::Failed {
                summary: summary.clone(),
                message,
            })?;
        }
        Ok::<_, export::Failed>(summary)
    };
    let result = if args.dry_run {
        send(&mut Print, false)
    } else {
        let result = send(&mut Http::new(&settings), true);
        export::sweep(&state_root, only.as_deref());
        result
    };
    // The endpoint may hold a password (`http://user:pass@host`): every line is redacted.
    let say = |text: &str| ui::error(&redact::redact_str(text));
    let (summary, failure) = match result {
        Ok(summary) => (summary, None),
        Err(failed) => (failed.summary, Some(failed.message)),
    };
    say(&line(&summary, args.dry_run, &settings.url));
    for m in &summary.rejections {
        say(&format!(
            "oath export otlp: rejected as malformed, dropped: {m}"
        ));
    }
    match failure {
        Some(message) => Err(CliError::new(redact::redact_str(&message).into_owned())
            .hint("nothing was lost: the next run sends what was not accepted")),
        None if summary.rejected > 0 => Err(CliError::new(format!(
            "the collector rejected {} record(s) as malformed (400); they were dropped, the rest was sent",
            summary.rejected
        ))),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The one-line summary on stderr.
fn line(s: &Summary, dry_run: bool, url: &str) -> String {
    let mut text = format!(
        "oath export otlp: {} record{} {} in {} request{} from {} file{}",
        s.records,
        if s.records == 1 { "" } else { "s" },
        if dry_run { "printed" } else { "sent" },
        s.requests,
        if s.requests == 1 { "" } else { "s" },
        s.files,
        if s.files == 1 { "" } else { "s" },
    );
    if !dry_run {
        text.push_str(&format!(" to {url}"));
    }
    for (n, what) in [
        (s.skipped, "unreadable line(s) skipped"),
        (s.restarted, "replaced file(s) read from the start"),
        (s.left, "file(s) left for the next run (refused)"),
        (s.rejected, "record(s) rejected as malformed and dropped"),
        (s.busy, "file(s) left to another run exporting them"),
    ] {
        if n > 0 {
            text.push_str(&format!(", {n} {what}"));
        }
    }
    text
}
