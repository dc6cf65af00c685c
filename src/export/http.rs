//! The one edge that talks to the collector: a blocking POST per batch, with the request's
//! time bounded and no retry (the next run sends again what was not accepted).

use super::settings::Settings;
use super::{SendError, Transport};

/// Posts batches to the collector.
pub struct Http<'a> {
    settings: &'a Settings,
    agent: ureq::Agent,
}

impl<'a> Http<'a> {
    /// A client for `settings`.
    pub fn new(settings: &'a Settings) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(settings.timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("oath/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self { settings, agent }
    }
}

impl Transport for Http<'_> {
    fn send(&mut self, body: Vec<u8>) -> Result<(), SendError> {
        let url = &self.settings.url;
        let mut req = self
            .agent
            .post(url)
            .header("Content-Type", self.settings.protocol.content_type());
        for (k, v) in &self.settings.headers {
            req = req.header(k, v);
        }
        let mut resp = req
            .send(&body[..])
            .map_err(|e| SendError::Unreachable(format!("{url}: no answer: {e}")))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(());
        }
        let text = resp
            .body_mut()
            .with_config()
            .limit(4096)
            .read_to_string()
            .unwrap_or_default();
        let text = text.trim();
        let message = format!(
            "{url}: the collector answered {status}{}{}",
            if text.is_empty() { "" } else { ": " },
            text.chars().take(300).collect::<String>()
        );
        // OTLP/HTTP: 400 is a request the collector will never take, not to be sent again.
        Err(if status.as_u16() == 400 {
            SendError::Rejected(message)
        } else {
            SendError::Refused(message)
        })
    }
}

/// Prints each batch on stdout, one request body a line (`--dry-run`, JSON only).
pub struct Print;

impl Transport for Print {
    fn send(&mut self, body: Vec<u8>) -> Result<(), SendError> {
        crate::ui::out(&String::from_utf8_lossy(&body));
        Ok(())
    }
}
