//! `oath config`: the merged configuration, its validation and its JSON Schema.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::config::{Config, ConfigError, Layer, approval};
use crate::error::{CliError, Result};
use crate::project::{Env, Project};
use crate::ui;

/// Show, validate or print the schema of the configuration.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
oath reads YAML: the project's `.oath.yaml` over the user file (`$OATH_CONFIG`, else
`$XDG_CONFIG_HOME/oath/config.yaml`, else `~/.config/oath/config.yaml`), key by key, over
built-in defaults equal to the seed values.

A project's `.oath.yaml` can be written by the agent, so until you approve its content
(`oath config trust`) only its deny and ask rules apply; any change needs approval again.

Examples:
  oath config show             the configuration in force, and where it came from
  oath config trust            approve the project's .oath.yaml as it is now
  oath config validate         check the user and project files
  oath config validate x.yaml  check one file
  oath config schema > oath.schema.json")]
pub struct ConfigArgs {
    /// What to do (default: show)
    #[command(subcommand)]
    pub action: Option<ConfigAction>,
}

/// `oath config` actions.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigAction {
    /// Print the merged configuration as YAML, with the files it came from
    Show,
    /// Check the configuration (or one file); exit 1 when it is invalid
    Validate {
        /// A file to check on its own instead of the user and project files
        file: Option<PathBuf>,
    },
    /// Print the JSON Schema of the configuration (for editors)
    Schema,
    /// Approve the project's `.oath.yaml` as it is now, so that it applies whole (until
    /// then, and again after any change, only its deny and ask rules apply)
    Trust {
        /// The file to approve (default: the project's `.oath.yaml`)
        file: Option<PathBuf>,
    },
}

/// Runs `oath config`.
pub fn run(args: &ConfigArgs) -> Result<ExitCode> {
    let env = Env::from_process();
    let project = Project::resolve(&env, None);
    let user = env.user_config_path();
    let project_file = project.config_file();
    match &args.action {
        None | Some(ConfigAction::Show) => {
            let loaded = Config::in_force(&env, &project);
            if let Some(n) = loaded.unapproved_notice() {
                ui::warn(&n);
            }
            ui::out("# oath configuration in force");
            ui::out("# sources, later ones win key by key:");
            ui::out("#   built-in defaults");
            for (layer, path) in &loaded.sources {
                let name = match layer {
                    Layer::Builtin => "built-in",
                    Layer::User => "user",
                    Layer::Project => "project",
                };
                ui::out(&format!("#   {name}: {}", path.display()));
            }
            for w in &loaded.warnings {
                ui::warn(&format!("{w} (skipped)"));
            }
            let yaml = serde_saphyr::to_string(&loaded.config)
                .map_err(|e| CliError::new(format!("cannot print the configuration: {e}")))?;
            ui::out_raw(&yaml);
            if !yaml.ends_with('\n') {
                ui::out("");
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(ConfigAction::Validate { file: Some(file) }) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| CliError::new(format!("cannot read {}: {e}", file.display())))?;
            let config = Config::from_yaml(&text, file).map_err(validation_error)?;
            let errors = config.range_errors();
            if !errors.is_empty() {
                return Err(validation_error(ConfigError::Invalid(errors)));
            }
            report_valid(std::slice::from_ref(file), &config.entry_warnings());
            Ok(ExitCode::SUCCESS)
        }
        Some(ConfigAction::Validate { file: None }) => {
            let loaded =
                Config::load(user.as_deref(), Some(&project_file)).map_err(validation_error)?;
            let files: Vec<PathBuf> = loaded.sources.iter().map(|(_, p)| p.clone()).collect();
            report_valid(&files, &loaded.warnings);
            Ok(ExitCode::SUCCESS)
        }
        Some(ConfigAction::Trust { file }) => {
            let file = file.clone().unwrap_or(project_file);
            let file = std::path::absolute(&file).unwrap_or(file);
            let text = std::fs::read(&file)
                .map_err(|e| CliError::new(format!("cannot read {}: {e}", file.display())))?;
            let config = Config::from_yaml(&String::from_utf8_lossy(&text), &file)
                .map_err(validation_error)?;
            let errors = config.range_errors();
            if !errors.is_empty() {
                return Err(validation_error(ConfigError::Invalid(errors)));
            }
            let mut warnings = Vec::new();
            approval::approve(
                &env.state_root(),
                &file,
                &text,
                crate::clock::Timestamp::now(),
                &mut warnings,
            )
            .map_err(|e| CliError::new(format!("cannot record the approval: {e}")))?;
            for w in warnings {
                ui::warn(&w);
            }
            ui::out(&format!(
                "approved {} ({}): it now applies whole; any change needs `oath config trust` again",
                file.display(),
                &approval::digest(&text)[..12]
            ));
            Ok(ExitCode::SUCCESS)
        }
        Some(ConfigAction::Schema) => {
            let text = serde_json::to_string_pretty(&Config::schema())
                .map_err(|e| CliError::new(format!("cannot print the schema: {e}")))?;
            ui::out(&text);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn validation_error(e: ConfigError) -> CliError {
    CliError::new(format!("invalid configuration: {e}"))
        .hint("`oath config schema` prints every key with its meaning")
}

fn report_valid(files: &[PathBuf], warnings: &[String]) {
    if files.is_empty() {
        ui::out("No configuration file found: the built-in defaults apply.");
    } else {
        for f in files {
            ui::out(&format!("valid: {}", f.display()));
        }
    }
    for w in warnings {
        ui::warn(&format!("{w} (this entry is skipped)"));
    }
}
