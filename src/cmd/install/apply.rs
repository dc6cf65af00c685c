//! Writing a hooks file once its new value is decided, for every client: the backup first
//! (the last three kept, `backups`), then the text, and on uninstall the file's exact bytes
//! from before install when nothing else changed, or the file's removal when install created
//! it and only oath's hooks were in it.

use std::path::Path;

use serde_json::{Map, Value};

use super::{Manifest, Settings, backups, diff, unchanged_since_read, write_settings};
use crate::clock::Timestamp;
use crate::error::{CliError, Result};
use crate::ui;

/// Backs up `path` (when it exists) and writes `new_text` into it; the first backup is kept
/// in the manifest as the file before install (until rotated away).
pub(super) fn write_backed_up(
    path: &Path,
    settings: &Settings,
    new_text: &str,
    manifest: &mut Manifest,
    now: Timestamp,
) -> Result<()> {
    let mut backup = None;
    if let Some(old) = &settings.text {
        let b = backup_to(path, old, now)?;
        if manifest.backup.is_none() {
            manifest.backup = Some(b.clone());
        }
        ui::out(&format!(
            "  backed up {} to {}",
            path.display(),
            b.display()
        ));
        backup = Some(b);
    }
    write_settings(path, new_text, settings.text.as_deref())?;
    if let Some(b) = &backup {
        let removed = backups::rotate(path, b);
        if manifest
            .backup
            .as_ref()
            .is_some_and(|m| removed.contains(m))
        {
            manifest.backup = None;
        }
    }
    Ok(())
}

/// Writes the old text of `path` to a new backup next to it; returns the backup's path.
fn backup_to(path: &Path, old: &str, now: Timestamp) -> Result<std::path::PathBuf> {
    let b = backups::path(path, now);
    std::fs::write(&b, old).map_err(|e| {
        CliError::new(format!(
            "cannot back up {} to {}: {e}",
            path.display(),
            b.display()
        ))
        .hint("nothing was changed")
    })?;
    Ok(b)
}

/// Writes the settings file `path` with oath's handlers removed (`value`, `handlers` of
/// them): its bytes from before install when `value` equals them, its removal when install
/// created it and nothing is left, else `value` in the file's layout; backed up first.
pub(super) fn remove_backed_up(
    path: &Path,
    settings: &Settings,
    value: &Value,
    handlers: usize,
    manifest: Option<&Manifest>,
    dry_run: bool,
    now: Timestamp,
) -> Result<()> {
    let empty = value.as_object().is_some_and(Map::is_empty);
    let delete = empty && manifest.is_some_and(|m| m.created_file);
    // The file as it was before install, byte for byte, when nothing else changed.
    let restored = manifest
        .and_then(|m| m.backup.as_ref())
        .and_then(|b| std::fs::read_to_string(b).ok())
        .filter(|text| {
            let v = if text.trim().is_empty() {
                Some(Value::Object(Map::new()))
            } else {
                serde_json::from_str::<Value>(text).ok()
            };
            v.as_ref() == Some(value)
        });
    let new_text = restored.clone().unwrap_or_else(|| settings.render(value));
    let old_text = settings.text.as_deref().unwrap_or("");
    if dry_run {
        if delete {
            ui::out(&format!(
                "  would delete {} (install created it and only oath's hooks are in it)",
                path.display()
            ));
        } else {
            ui::out(&format!("  would change {}:", path.display()));
            ui::out_raw(&diff(path, old_text, &new_text));
        }
        return Ok(());
    }
    let b = backup_to(path, old_text, now)?;
    if delete {
        unchanged_since_read(path, settings.text.as_deref())?;
        std::fs::remove_file(path)
            .map_err(|e| CliError::new(format!("cannot remove {}: {e}", path.display())))?;
        ui::out(&format!(
            "  {}: removed {} and the file install created (backup: {})",
            path.display(),
            ui::plural(handlers, "hook", "hooks"),
            b.display()
        ));
    } else {
        write_settings(path, &new_text, settings.text.as_deref())?;
        // The install backup now duplicates the file: drop it.
        if restored.is_some()
            && let Some(ib) = manifest.and_then(|m| m.backup.as_ref())
        {
            let _ = std::fs::remove_file(ib);
        }
        ui::out(&format!(
            "  {}: removed {} (backup: {})",
            path.display(),
            ui::plural(handlers, "hook", "hooks"),
            b.display()
        ));
    }
    backups::rotate(path, &b);
    Ok(())
}
