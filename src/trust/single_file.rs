//! The single trust file of earlier versions, `trust-scores.json` (version "2" with the
//! Phase 2a fields, and the v1 shape `{score, successes, failures}`): read until the first
//! update migrates its domains into the trust folder (ADR 0023), each domain's score becoming
//! the low level only (ADR 0025). No oath writes it any more.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{AppliedOutcome, DomainTrust, check_score};
use super::params::TrustParams;

/// The single trust file of earlier versions, one score per domain. Reading accepts version
/// "2" (Phase 2a fields filled in when absent) and the v1 shape `{score, successes,
/// failures}`, migrated into `_global`; it serializes in the version "2" shape (what an
/// earlier oath wrote, and what tests write to stand for one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SingleFile {
    /// Always "2".
    pub version: String,
    /// Last write (ISO 8601).
    pub updated_at: String,
    /// Successes and failures over all domains.
    pub global_operation_count: u64,
    /// Per-domain state, keyed by domain name (unknown names are kept as they are).
    pub domains: BTreeMap<String, DomainTrust>,
    /// Outcomes recently applied, by tool_use_id (oath's addition; readers may ignore it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_outcomes: Vec<AppliedOutcome>,
}

/// Every top-level field of either version, read in one pass (no intermediate `Value` tree:
/// every PreToolUse reads this file).
#[derive(Default)]
struct AnyVersion {
    version: Option<Value>,
    updated_at: Option<String>,
    global_operation_count: u64,
    domains: BTreeMap<String, DomainTrust>,
    recent_outcomes: Vec<AppliedOutcome>,
    // Version 1.
    score: Option<Value>,
    successes: Option<Value>,
    failures: Option<Value>,
}

struct AnyVersionVisitor;

impl<'de> serde::de::Visitor<'de> for AnyVersionVisitor {
    type Value = AnyVersion;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // serde would read a JSON array as the fields of a struct in order: only an object
        // is accepted, so `[1,2,3]` is corrupt rather than a v1 file with score 1.
        f.write_str("the trust file must be a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<AnyVersion, A::Error> {
        let mut out = AnyVersion::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "version" => out.version = Some(map.next_value()?),
                "updated_at" => out.updated_at = map.next_value()?,
                "global_operation_count" => {
                    out.global_operation_count = map.next_value::<Option<u64>>()?.unwrap_or(0);
                }
                "domains" => out.domains = map.next_value::<Option<_>>()?.unwrap_or_default(),
                "recent_outcomes" => {
                    out.recent_outcomes = map.next_value::<Option<_>>()?.unwrap_or_default();
                }
                "score" => out.score = Some(map.next_value()?),
                "successes" => out.successes = Some(map.next_value()?),
                "failures" => out.failures = Some(map.next_value()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for SingleFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let any = d.deserialize_map(AnyVersionVisitor)?;
        match version_of(any.version.as_ref()).map_err(D::Error::custom)? {
            Version::V2 => {
                for (name, d) in &any.domains {
                    check_score(name, d).map_err(D::Error::custom)?;
                }
                Ok(Self {
                    version: "2".into(),
                    updated_at: any.updated_at.unwrap_or_default(),
                    global_operation_count: any.global_operation_count,
                    domains: any.domains,
                    recent_outcomes: any.recent_outcomes,
                })
            }
            Version::V1 => {
                let global =
                    v1_global(any.score, any.successes, any.failures).map_err(D::Error::custom)?;
                let count = global.total_operations;
                let mut domains = BTreeMap::new();
                domains.insert(GLOBAL.to_owned(), global);
                Ok(Self {
                    version: "2".into(),
                    updated_at: String::new(),
                    global_operation_count: count,
                    domains,
                    recent_outcomes: Vec::new(),
                })
            }
        }
    }
}

/// The domain a version 1 file migrates into.
const GLOBAL: &str = "_global";

/// The versions of the trust file this oath reads.
enum Version {
    /// `{score, successes, failures}` (no `version`, or `"1"`).
    V1,
    /// Per-domain state.
    V2,
}

/// Reads the `version` field (a string or a number; absent means version 1).
fn version_of(v: Option<&Value>) -> Result<Version, String> {
    let number;
    let version = match v {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Number(n)) => {
            number = n.to_string();
            Some(number.as_str())
        }
        Some(other) => return Err(format!("version must be a string, found {other}")),
    };
    match version {
        Some("2") => Ok(Version::V2),
        None | Some("1") => Ok(Version::V1),
        Some(other) => Err(format!(
            "version {other:?} is not one this oath understands (it reads versions 1 and 2)"
        )),
    }
}
/// Migrates the fields of a version 1 file into the `_global` domain (a score outside
/// [0, 1] is replaced by the initial one; absent or null counts are 0).
fn v1_global(
    score: Option<Value>,
    successes: Option<Value>,
    failures: Option<Value>,
) -> Result<DomainTrust, String> {
    let count = |v: Option<Value>, name: &str| -> Result<u64, String> {
        match v {
            None | Some(Value::Null) => Ok(0),
            Some(v) => serde_json::from_value(v).map_err(|e| format!("{name}: {e}")),
        }
    };
    let score: Option<f64> = match score {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value(v).map_err(|e| format!("score: {e}"))?),
    };
    let successes = count(successes, "successes")?;
    let failures = count(failures, "failures")?;
    let mut global = DomainTrust::new(&TrustParams::default());
    if let Some(s) = score.filter(|s| s.is_finite() && (0.0..=1.0).contains(s)) {
        global.score = s;
    }
    global.successes = successes;
    global.failures = failures;
    global.total_operations = successes.saturating_add(failures);
    Ok(global)
}

/// Reads one domain of the single file and skips the rest (other domains, remembered
/// outcomes) without building it: PreToolUse needs one domain, and building the whole file
/// (50 domains, the remembered outcomes) was over half of a simple call's instructions.
/// The version is checked and the domain validated as [`SingleFile`] does; the rest is only
/// checked to be JSON syntax (its strings are not checked for UTF-8). A file invalid only
/// there gives the domain's score, not the initial one with a warning, until the next update
/// reads the whole file and moves it aside (the file is a protected path: a tool call that
/// writes it is denied).
/// `None`: the file does not hold the domain.
pub struct OneDomain<'a>(pub &'a str);

impl<'de> serde::de::DeserializeSeed<'de> for OneDomain<'_> {
    type Value = Option<DomainTrust>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for OneDomain<'_> {
    type Value = Option<DomainTrust>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        AnyVersionVisitor.expecting(f)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut version, mut domain) = (None, None);
        let (mut score, mut successes, mut failures) = (None, None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "version" => version = Some(map.next_value()?),
                "domains" => domain = map.next_value_seed(PickDomain(self.0))?,
                "score" => score = Some(map.next_value()?),
                "successes" => successes = Some(map.next_value()?),
                "failures" => failures = Some(map.next_value()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        match version_of(version.as_ref()).map_err(A::Error::custom)? {
            Version::V2 => {
                if let Some(d) = &domain {
                    check_score(self.0, d).map_err(A::Error::custom)?;
                }
                Ok(domain)
            }
            Version::V1 if self.0 == GLOBAL => v1_global(score, successes, failures)
                .map(Some)
                .map_err(A::Error::custom),
            Version::V1 => Ok(None),
        }
    }
}

/// The `domains` object (or null), keeping the one named domain.
struct PickDomain<'a>(&'a str);

impl<'de> serde::de::DeserializeSeed<'de> for PickDomain<'_> {
    type Value = Option<DomainTrust>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> serde::de::Visitor<'de> for PickDomain<'_> {
    type Value = Option<DomainTrust>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map of domains")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 {
                // A repeated name: the last wins, as when the whole map is read.
                found = Some(map.next_value::<DomainTrust>()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

impl SingleFile {
    /// Returns a file holding no domain (what tests fill to stand for an earlier oath's).
    pub fn new(now: crate::clock::Timestamp) -> Self {
        Self {
            version: "2".into(),
            updated_at: now.iso_seconds(),
            global_operation_count: 0,
            domains: BTreeMap::new(),
            recent_outcomes: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_saturate_instead_of_overflowing() {
        let v1: SingleFile = serde_json::from_str(&format!(
            r#"{{"successes":{m},"failures":1}}"#,
            m = u64::MAX
        ))
        .unwrap();
        assert_eq!(v1.global_operation_count, u64::MAX);
        assert_eq!(v1.domains["_global"].total_operations, u64::MAX);
    }

    #[test]
    fn v1_file_migrates_and_unknown_version_is_refused() {
        let f: SingleFile =
            serde_json::from_str(r#"{"score":0.6,"successes":20,"failures":3}"#).unwrap();
        assert_eq!(f.version, "2");
        let g = &f.domains["_global"];
        assert_eq!(
            (g.score, g.successes, g.failures, g.total_operations),
            (0.6, 20, 3, 23)
        );
        assert_eq!(f.global_operation_count, 23);
        let v2_without_2a: SingleFile = serde_json::from_str(
            r#"{"version":"2","updated_at":"x","global_operation_count":1,"domains":{"file_read":{"score":0.4,"successes":1,"failures":0,"total_operations":1,"last_operated_at":"2026-01-01T00:00:00Z","is_warming_up":false,"warmup_remaining":0}}}"#,
        )
        .unwrap();
        let d = &v2_without_2a.domains["file_read"];
        assert_eq!(
            (d.consecutive_failures, d.pre_failure_score, d.is_recovering),
            (0, None, false)
        );
        assert!(serde_json::from_str::<SingleFile>(r#"{"version":"3","domains":{}}"#).is_err());
        assert!(serde_json::from_str::<SingleFile>("[0.9, 2, 3]").is_err());
        let null_version = serde_json::from_str::<SingleFile>(r#"{"version":null,"score":0.9}"#);
        assert!(
            null_version
                .unwrap_err()
                .to_string()
                .contains("version must be a string"),
            "a null version is not read as version 1"
        );
        assert!(
            serde_json::from_str::<SingleFile>(r#"{"version":"2","domains":{"a":{"score":7}}}"#)
                .is_err()
        );
    }

    /// Reads one domain the way PreToolUse does.
    fn one(json: &str, domain: &str) -> Result<Option<DomainTrust>, String> {
        crate::state::from_slice_seed(json.as_bytes(), OneDomain(domain)).map_err(|e| e.to_string())
    }

    #[test]
    fn one_domain_reads_what_the_whole_file_holds() {
        let files = [
            r#"{"version":"2","domains":{"a":{"score":0.4,"successes":3},"b":{"score":0.9}},"recent_outcomes":[{"tool_use_id":"t","outcome":"success"}]}"#,
            r#"{"version":2,"domains":{"a":{"score":0.1},"a":{"score":0.7}}}"#,
            r#"{"domains":{"a":{"score":0.1}},"version":"2","updated_at":"x"}"#,
            r#"{"version":"2","domains":null}"#,
            r#"{"version":"2"}"#,
            r#"{"score":0.6,"successes":20,"failures":3}"#,
            r#"{"version":"1","score":7,"successes":null}"#,
            r#"{"version":"3","domains":{}}"#,
            r#"{"version":null,"score":0.9}"#,
            r#"{"version":"2","domains":[]}"#,
            r#"{"version":"2","domains":{"a":{"score":0.2}},"domains":{"b":{"score":0.3}}}"#,
            r#"{"score":0.6,"domains":{"a":{"score":0.9}}}"#,
            r#"{"version":1,"domains":{"_global":{"score":0.9},"a":{"score":0.9}}}"#,
            "[0.9, 2, 3]",
            r#"{"version":"2","domains":{}} x"#,
        ];
        for json in files {
            let whole = serde_json::from_str::<SingleFile>(json);
            for domain in ["a", "b", "_global", "missing"] {
                let want = whole
                    .as_ref()
                    .map(|f| f.domains.get(domain).cloned())
                    .map_err(|_| ());
                assert_eq!(one(json, domain).map_err(|_| ()), want, "{json} / {domain}");
            }
        }
    }

    #[test]
    fn one_domain_skips_what_it_does_not_read() {
        // Another domain's invalid score or a malformed field it does not read is left for
        // the next update (which reads the whole file) to find.
        let json = r#"{"version":"2","updated_at":5,"domains":{"a":{"score":0.4},"b":{"score":7}},"recent_outcomes":"?"}"#;
        assert!(serde_json::from_str::<SingleFile>(json).is_err());
        assert_eq!(one(json, "a").unwrap().map(|d| d.score), Some(0.4));
        assert!(one(json, "b").is_err(), "the domain read is validated");
        assert!(one(r#"{"version":"2","domains":{"a":{"score":"high"}}}"#, "a").is_err());
        assert!(one(r#"{"version":"2","domains":{"a":{"score":0.4}}"#, "a").is_err());
    }
}
