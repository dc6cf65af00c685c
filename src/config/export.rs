//! `export:` in the config: where `oath export otlp` ships the audit trail.
//!
//! The keys are the OpenTelemetry exporter's (`OTEL_EXPORTER_OTLP_*`), for the runs that do
//! not get those variables (a Stop hook: Claude Code does not pass `OTEL_*` to hooks). The
//! variables, where set, win ([`crate::export::settings`]). An unapproved project file never
//! sets them ([`super::approval::tighten_only`] keeps only rules that tighten): a planted
//! endpoint would send the trail elsewhere.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `export:`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ExportConfig {
    /// OTLP/HTTP log export (`oath export otlp`).
    pub otlp: OtlpConfig,
}

/// `export.otlp:`, the OpenTelemetry exporter's settings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct OtlpConfig {
    /// Base URL of the collector, `/v1/logs` appended (as `OTEL_EXPORTER_OTLP_ENDPOINT`;
    /// default `http://localhost:4318`).
    pub endpoint: Option<String>,
    /// URL of the logs endpoint, used as it is (as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`).
    pub logs_endpoint: Option<String>,
    /// Headers sent with each request, such as an API key (as `OTEL_EXPORTER_OTLP_HEADERS`).
    pub headers: BTreeMap<String, String>,
    /// `http/protobuf` (default) or `http/json` (as `OTEL_EXPORTER_OTLP_PROTOCOL`).
    pub protocol: Option<String>,
    /// Time allowed for one request, in milliseconds (as `OTEL_EXPORTER_OTLP_TIMEOUT`;
    /// default 10000).
    pub timeout: Option<u64>,
    /// Attributes added to the resource (as `OTEL_RESOURCE_ATTRIBUTES`).
    pub resource_attributes: BTreeMap<String, String>,
    /// Also send each call's tool input (as Claude Code's `OTEL_LOG_TOOL_DETAILS=1`).
    pub log_tool_details: bool,
}
