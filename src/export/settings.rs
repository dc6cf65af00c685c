//! Where and how `oath export otlp` sends: the OpenTelemetry exporter's variables over the
//! `export.otlp` keys of oath's configuration, over the defaults. Pure: the variables are
//! handed in as a lookup.

use std::time::Duration;

use crate::config::export::OtlpConfig;
use crate::env::otel;

/// The default collector (OTLP/HTTP's port).
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
/// The default time allowed for one request (`OTEL_EXPORTER_OTLP_TIMEOUT`'s default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(10_000);

/// The encoding of the requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`: the default of the specification (and of Claude Code).
    Protobuf,
    /// `http/json`.
    Json,
}

impl Protocol {
    /// The request's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }

    /// The specification's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Protobuf => "http/protobuf",
            Protocol::Json => "http/json",
        }
    }
}

/// Everything a run needs to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The logs endpoint's URL.
    pub url: String,
    /// Headers of each request.
    pub headers: Vec<(String, String)>,
    /// The encoding.
    pub protocol: Protocol,
    /// Time allowed for one request (connection included).
    pub timeout: Duration,
    /// The resource's attributes, `service.name` and `service.version` first.
    pub resource: Vec<(String, String)>,
    /// Whether each call's tool input is sent.
    pub tool_details: bool,
}

/// Resolves the settings from the variables (`var`) and the configuration; an error names
/// the key that is wrong.
pub fn resolve(var: &dyn Fn(&str) -> Option<String>, cfg: &OtlpConfig) -> Result<Settings, String> {
    let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
    let url = if let Some(u) = var(otel::LOGS_ENDPOINT) {
        u
    } else if let Some(base) = var(otel::ENDPOINT) {
        logs_url(&base)
    } else if let Some(u) = &cfg.logs_endpoint {
        u.clone()
    } else {
        logs_url(cfg.endpoint.as_deref().unwrap_or(DEFAULT_ENDPOINT))
    };
    let url = url.trim().to_owned();
    if url.starts_with("https://") {
        return Err(format!(
            "{url}: this oath is built without TLS; send to an http:// collector (such as a local OpenTelemetry Collector that forwards over TLS)"
        ));
    }
    if !url.starts_with("http://") {
        return Err(format!("{url}: the endpoint must be an http:// URL"));
    }

    let mut headers: Vec<(String, String)> = cfg
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for key in [otel::HEADERS, otel::LOGS_HEADERS] {
        if let Some(text) = var(key) {
            for (k, v) in pairs(&text).map_err(|e| format!("{key}: {e}"))? {
                set(&mut headers, k, v);
            }
        }
    }

    let (protocol_key, protocol) = match (var(otel::LOGS_PROTOCOL), var(otel::PROTOCOL)) {
        (Some(p), _) => (otel::LOGS_PROTOCOL, Some(p)),
        (None, Some(p)) => (otel::PROTOCOL, Some(p)),
        (None, None) => ("export.otlp.protocol", cfg.protocol.clone()),
    };
    let protocol = match protocol.as_deref().map(str::trim) {
        None | Some("http/protobuf") => Protocol::Protobuf,
        Some("http/json") => Protocol::Json,
        Some("grpc") => {
            return Err(format!(
                "{protocol_key}: grpc is not supported; use http/protobuf or http/json (a collector's OTLP/HTTP receiver, port 4318)"
            ));
        }
        Some(other) => {
            return Err(format!(
                "{protocol_key}: unknown protocol {other:?}; use http/protobuf or http/json"
            ));
        }
    };

    let timeout = match (var(otel::LOGS_TIMEOUT), var(otel::TIMEOUT)) {
        (Some(t), _) => millis(otel::LOGS_TIMEOUT, &t)?,
        (None, Some(t)) => millis(otel::TIMEOUT, &t)?,
        (None, None) => cfg.timeout.map_or(DEFAULT_TIMEOUT, Duration::from_millis),
    };
    if timeout.is_zero() {
        return Err("the timeout must be above 0 ms".into());
    }

    let mut resource = vec![
        ("service.name".to_owned(), "oath".to_owned()),
        (
            "service.version".to_owned(),
            env!("CARGO_PKG_VERSION").to_owned(),
        ),
    ];
    for (k, v) in &cfg.resource_attributes {
        set(&mut resource, k.clone(), v.clone());
    }
    if let Some(text) = var(otel::RESOURCE_ATTRIBUTES) {
        for (k, v) in pairs(&text).map_err(|e| format!("{}: {e}", otel::RESOURCE_ATTRIBUTES))? {
            set(&mut resource, k, v);
        }
    }
    if let Some(name) = var(otel::SERVICE_NAME) {
        set(&mut resource, "service.name".into(), name);
    }

    let tool_details = cfg.log_tool_details
        || var(otel::LOG_TOOL_DETAILS).is_some_and(|v| matches!(v.trim(), "1" | "true"));
    Ok(Settings {
        url,
        headers,
        protocol,
        timeout,
        resource,
        tool_details,
    })
}

/// Appends `/v1/logs` to a base URL.
fn logs_url(base: &str) -> String {
    format!("{}/v1/logs", base.trim().trim_end_matches('/'))
}

fn millis(key: &str, text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| format!("{key}: {text:?} is not a number of milliseconds"))
}

/// Sets `key` in a list of pairs, replacing an earlier value.
fn set(list: &mut Vec<(String, String)>, key: String, value: String) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 = value,
        None => list.push((key, value)),
    }
}

/// Parses `key=value,key2=value2` (the W3C Baggage form the specification uses), each part
/// URL-decoded and trimmed; empty items are skipped.
pub fn pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for item in text.split(',') {
        if item.trim().is_empty() {
            continue;
        }
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!("{item:?} is not key=value"));
        };
        let k = percent_decode(k.trim())?;
        if k.is_empty() {
            return Err(format!("{item:?} has an empty key"));
        }
        out.push((k, percent_decode(v.trim())?));
    }
    Ok(out)
}

/// Decodes `%XX` escapes (and nothing else: `+` stays, as in the specification's examples).
fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("{s:?} has a bad % escape"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} decodes to invalid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)], cfg: &OtlpConfig) -> Result<Settings, String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        resolve(
            &move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()),
            cfg,
        )
    }

    #[test]
    fn defaults_are_the_specifications() {
        let s = with(&[], &OtlpConfig::default()).unwrap();
        assert_eq!(s.url, "http://localhost:4318/v1/logs");
        assert_eq!(s.protocol, Protocol::Protobuf);
        assert_eq!(s.timeout, Duration::from_secs(10));
        assert_eq!(s.resource[0], ("service.name".into(), "oath".into()));
        assert_eq!(s.resource[1].0, "service.version");
        assert!(s.headers.is_empty() && !s.tool_details);
    }

    #[test]
    fn endpoints_base_and_per_signal() {
        let cfg = OtlpConfig::default();
        let base = [(otel::ENDPOINT, "http://c:4318/")];
        assert_eq!(with(&base, &cfg).unwrap().url, "http://c:4318/v1/logs");
        let both = [
            (otel::ENDPOINT, "http://c:4318"),
            (otel::LOGS_ENDPOINT, "http://l:9/custom"),
        ];
        assert_eq!(with(&both, &cfg).unwrap().url, "http://l:9/custom");
        let cfg = OtlpConfig {
            endpoint: Some("http://from-file:4318".into()),
            ..Default::default()
        };
        assert_eq!(
            with(&[], &cfg).unwrap().url,
            "http://from-file:4318/v1/logs"
        );
        // The variables win over the file.
        assert_eq!(with(&base, &cfg).unwrap().url, "http://c:4318/v1/logs");
        let https = [(otel::ENDPOINT, "https://c")];
        assert!(with(&https, &cfg).unwrap_err().contains("TLS"));
    }

    #[test]
    fn headers_and_resource_are_decoded_and_merged() {
        let mut cfg = OtlpConfig::default();
        cfg.headers.insert("x-file".into(), "1".into());
        cfg.headers.insert("api-key".into(), "file".into());
        cfg.resource_attributes
            .insert("team".into(), "from-file".into());
        let s = with(
            &[
                (otel::HEADERS, "api-key=a%3Db, x-other = 2"),
                (otel::LOGS_HEADERS, "x-other=3"),
                (
                    otel::RESOURCE_ATTRIBUTES,
                    "team=core,deployment.environment=ci%20x",
                ),
                (otel::SERVICE_NAME, "oath-ci"),
            ],
            &cfg,
        )
        .unwrap();
        let h: Vec<(&str, &str)> = s.headers.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(h, [("api-key", "a=b"), ("x-file", "1"), ("x-other", "3")]);
        let r: Vec<(&str, &str)> = s.resource.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(r[0], ("service.name", "oath-ci"));
        assert!(r.contains(&("team", "core")));
        assert!(r.contains(&("deployment.environment", "ci x")));
        assert!(with(&[(otel::HEADERS, "novalue")], &cfg).is_err());
        assert!(with(&[(otel::HEADERS, "k=%zz")], &cfg).is_err());
    }

    #[test]
    fn protocol_and_timeout() {
        let cfg = OtlpConfig {
            protocol: Some("http/json".into()),
            timeout: Some(250),
            ..Default::default()
        };
        let s = with(&[], &cfg).unwrap();
        assert_eq!(
            (s.protocol, s.timeout),
            (Protocol::Json, Duration::from_millis(250))
        );
        let s = with(
            &[
                (otel::PROTOCOL, "http/json"),
                (otel::LOGS_PROTOCOL, "http/protobuf"),
                (otel::TIMEOUT, "100"),
                (otel::LOGS_TIMEOUT, "50"),
            ],
            &cfg,
        )
        .unwrap();
        assert_eq!(
            (s.protocol, s.timeout),
            (Protocol::Protobuf, Duration::from_millis(50))
        );
        let grpc = with(&[(otel::PROTOCOL, "grpc")], &cfg).unwrap_err();
        assert!(grpc.contains("grpc is not supported"), "{grpc}");
        assert!(with(&[(otel::TIMEOUT, "10s")], &cfg).is_err());
        assert!(
            with(&[(otel::LOG_TOOL_DETAILS, "1")], &cfg)
                .unwrap()
                .tool_details
        );
    }
}
