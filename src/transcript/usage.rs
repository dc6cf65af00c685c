//! Token usage of a transcript, counted as the API bills it: once per API message.
//!
//! Claude Code writes one line per content block of an API response, each repeating the
//! message's `message.id`, the request's `requestId` and a `usage`. The lines of one message
//! are one bill: its usage is counted once, from the line whose four counts add up to the
//! most (a streamed message's first lines carry a partial `output_tokens`; the last carries
//! the final one), the first such line on a tie. This is how ccusage (20.0.24) deduplicates,
//! keyed by `message.id` and `requestId`; a line without `requestId` (a proxy or mock that
//! sends none) is keyed by `message.id` alone, where ccusage would count every line (the
//! client's own `result.json` total agrees with one count per message). A line without a
//! `message.id` is counted by itself.

use std::collections::HashMap;
use std::fmt::Write;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::hash64;

/// Token counts with the API's usage names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tokens {
    /// Input tokens not read from or written to the prompt cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

impl Tokens {
    /// Reads a `usage` object (missing or non-numeric counts are 0).
    pub fn from_usage(usage: &Value) -> Self {
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        Self {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_creation_input_tokens: n("cache_creation_input_tokens"),
            cache_read_input_tokens: n("cache_read_input_tokens"),
        }
    }

    /// Returns the sum of the four counts.
    pub fn total(&self) -> u64 {
        self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
    }

    /// Adds another count to this one.
    pub fn add(&mut self, o: &Tokens) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
    }

    /// Subtracts a count added before.
    fn sub(&mut self, o: &Tokens) {
        self.input_tokens -= o.input_tokens;
        self.output_tokens -= o.output_tokens;
        self.cache_creation_input_tokens -= o.cache_creation_input_tokens;
        self.cache_read_input_tokens -= o.cache_read_input_tokens;
    }
}

/// The usage kept per API message (by the hash of its key), to count each message once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageBook {
    kept: HashMap<u64, Tokens>,
}

impl UsageBook {
    /// Records the usage of an assistant line and updates `sum`, the running total.
    pub fn record(&mut self, line: &serde_json::Map<String, Value>, sum: &mut Tokens) {
        let Some(message) = line.get("message") else {
            return;
        };
        let Some(usage) = message.get("usage").filter(|u| u.is_object()) else {
            return;
        };
        let t = Tokens::from_usage(usage);
        let id = message.get("id").and_then(Value::as_str);
        let request = line.get("requestId").and_then(Value::as_str);
        let Some(id) = id else {
            sum.add(&t);
            return;
        };
        let key = match request {
            Some(r) => hash64(&format!("{id}\u{0}{r}")),
            None => hash64(id),
        };
        match self.kept.get_mut(&key) {
            None => {
                self.kept.insert(key, t);
                sum.add(&t);
            }
            Some(old) if t.total() > old.total() => {
                sum.sub(old);
                sum.add(&t);
                *old = t;
            }
            Some(_) => {}
        }
    }
}

/// Saved as one string: per message `hhhhhhhhhhhhhhhh:in,out,cc,cr;`, sorted by hash.
impl Serialize for UsageBook {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v: Vec<(&u64, &Tokens)> = self.kept.iter().collect();
        v.sort_unstable_by_key(|(k, _)| **k);
        let mut out = String::with_capacity(v.len() * 40);
        for (k, t) in v {
            let _ = write!(
                out,
                "{k:016x}:{},{},{},{};",
                t.input_tokens,
                t.output_tokens,
                t.cache_creation_input_tokens,
                t.cache_read_input_tokens
            );
        }
        s.serialize_str(&out)
    }
}

impl<'de> Deserialize<'de> for UsageBook {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let bad = || serde::de::Error::custom("invalid usage book entry");
        let mut kept = HashMap::new();
        for entry in text.split(';').filter(|e| !e.is_empty()) {
            let (k, counts) = entry.split_once(':').ok_or_else(bad)?;
            let key = u64::from_str_radix(k, 16).map_err(|_| bad())?;
            let n: Vec<u64> = counts
                .split(',')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            let [a, b, c, e] = n[..] else {
                return Err(bad());
            };
            kept.insert(
                key,
                Tokens {
                    input_tokens: a,
                    output_tokens: b,
                    cache_creation_input_tokens: c,
                    cache_read_input_tokens: e,
                },
            );
        }
        Ok(Self { kept })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(
        id: Option<&str>,
        req: Option<&str>,
        i: u64,
        o: u64,
        cc: u64,
    ) -> serde_json::Map<String, Value> {
        let mut m = serde_json::json!({"type": "assistant", "message": {"usage": {
            "input_tokens": i, "output_tokens": o, "cache_creation_input_tokens": cc,
            "cache_read_input_tokens": 0}}});
        if let Some(id) = id {
            m["message"]["id"] = id.into();
        }
        if let Some(r) = req {
            m["requestId"] = r.into();
        }
        m.as_object().unwrap().clone()
    }

    /// The cases ccusage 20.0.24 was run on: per message the line with the largest total
    /// wins, the first on a tie.
    #[test]
    fn one_bill_per_message_the_largest_line_wins() {
        let mut b = UsageBook::default();
        let mut sum = Tokens::default();
        for l in [
            line(Some("m1"), Some("r1"), 5, 100, 0),
            line(Some("m1"), Some("r1"), 500, 7, 0),
            line(Some("m2"), Some("r2"), 5, 100, 0),
            line(Some("m2"), Some("r2"), 50, 7, 0),
            line(Some("m3"), Some("r3"), 5, 10, 0),
            line(Some("m3"), Some("r3"), 5, 10, 3),
            line(Some("m4"), Some("r4"), 5, 10, 0),
            line(Some("m4"), Some("r4"), 10, 5, 0),
        ] {
            b.record(&l, &mut sum);
        }
        assert_eq!(
            (
                sum.input_tokens,
                sum.output_tokens,
                sum.cache_creation_input_tokens
            ),
            (500 + 5 + 5 + 5, 7 + 100 + 10 + 10, 3)
        );
        let saved = serde_json::to_string(&b).unwrap();
        let back: UsageBook = serde_json::from_str(&saved).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn without_request_id_by_message_and_without_id_every_line() {
        let mut b = UsageBook::default();
        let mut sum = Tokens::default();
        for l in [
            line(Some("m1"), None, 10, 5, 0),
            line(Some("m1"), None, 10, 5, 0),
            line(None, None, 1, 1, 0),
            line(None, None, 1, 1, 0),
        ] {
            b.record(&l, &mut sum);
        }
        assert_eq!((sum.input_tokens, sum.output_tokens), (12, 7));
    }
}
