//! The policy of the network: HTTP requests by method, host and endpoint, URLs the client
//! fetches, the cloud metadata service.

use super::super::effect::{Fetch, Request};
use super::super::rule::Finding;
use super::super::{Domain, Kind, Risk};

/// Returns whether a URL's path names an action that destroys (`delete`, `_delete_by_query`,
/// `doDelete`, `flush`, `drop`, `purge`, `truncate`, `wipe`, `reset`, an `admin` endpoint).
fn destroying_endpoint(path_words: &[String]) -> bool {
    path_words.iter().any(|w| {
        let w = w.to_ascii_lowercase();
        [
            "delete", "destroy", "drop", "purge", "flush", "truncate", "wipe", "reset", "admin",
            "remove", "erase", "_close", "kill", "shutdown", "_cluster",
        ]
        .iter()
        .any(|k| w.contains(k))
    })
}

pub(super) fn http(r: &Request, explain: &str) -> Finding {
    let m = r.method.as_str();
    let reads = m == "GET" || m == "HEAD" || m == "OPTIONS";
    let destroys = m == "DELETE"
        || !reads && (destroying_endpoint(&r.path_words) || destroying_endpoint(&r.body_words));
    let (domain, risk, kind, rule, why) = if r.payment == Some(true) && !reads {
        (
            Domain::NetworkWrite,
            Risk::Critical,
            Kind::Catastrophic,
            "payment-request",
            format!("sends a {m} to a payment, order or trading URL: it may move money"),
        )
    } else if r.payment == Some(false) && !reads {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Irreversible,
            "order-request",
            format!("sends a {m} to an order URL"),
        )
    } else if r.executes {
        (
            Domain::Network,
            Risk::High,
            Kind::NotUnderstood,
            "download",
            "runs wgetrc commands given on the command line".to_owned(),
        )
    } else if destroys {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Irreversible,
            "network-delete",
            if m == "DELETE" {
                format!(
                    "sends a DELETE request{}",
                    if r.loopback {
                        " to a service on this machine"
                    } else {
                        ""
                    }
                )
            } else {
                format!("sends a {m} to an endpoint that deletes, flushes or administers")
            },
        )
    } else if r.loopback {
        (
            Domain::Network,
            Risk::Low,
            Kind::Reversible,
            "loopback",
            "talks to a service on this machine".to_owned(),
        )
    } else if r.uploads {
        (
            Domain::NetworkWrite,
            Risk::High,
            Kind::Reversible,
            "upload-file",
            "uploads local files".to_owned(),
        )
    } else if !reads {
        (
            Domain::NetworkWrite,
            Risk::Medium,
            Kind::Reversible,
            "network-send",
            format!("sends a {m} request"),
        )
    } else if r.computed {
        (
            Domain::Network,
            Risk::Medium,
            Kind::NotUnderstood,
            "download",
            "fetches a URL computed at run time".to_owned(),
        )
    } else {
        (
            Domain::Network,
            Risk::Medium,
            Kind::Reversible,
            "download",
            if r.host.is_empty() {
                "downloads a URL".to_owned()
            } else {
                format!("downloads from {}", r.host)
            },
        )
    };
    let mut f = Finding::new(domain, risk, rule, format!("{explain}: {why}")).kind(kind);
    if destroys && m == "DELETE" {
        f = f.alt("a GET first, to see what would go");
    }
    f
}

/// The finding for a request to a cloud instance metadata service: it hands out the
/// machine's cloud credentials, so fetching from it is reading them (held).
pub(crate) fn metadata_finding(what: &str) -> Finding {
    Finding::new(
        Domain::Network,
        Risk::Critical,
        "cloud-metadata",
        format!(
            "{what} the cloud instance metadata service, which hands out the machine's credentials"
        ),
    )
}

/// Returns the finding for a URL a tool fetches (WebFetch).
pub(super) fn fetch(f: &Fetch) -> Finding {
    if f.secret {
        return Finding::new(
            Domain::Network,
            Risk::Critical,
            "exfiltration",
            "fetches a URL that carries a credential: it leaves the machine",
        );
    }
    if f.metadata {
        return metadata_finding("fetches");
    }
    if !f.http {
        return Finding::new(
            Domain::Network,
            Risk::High,
            "fetch-non-http",
            format!("fetches a non-HTTP URL ({})", f.shown),
        );
    }
    if f.loopback {
        return Finding::new(
            Domain::Global,
            Risk::Low,
            "loopback",
            "fetches from a service on this machine",
        );
    }
    if f.payment {
        return Finding::new(
            Domain::Network,
            Risk::High,
            "payment-url",
            "fetches a payment, order or trading URL with parameters",
        );
    }
    Finding::new(
        Domain::Network,
        Risk::Medium,
        "web-fetch",
        format!("fetches {}", f.host),
    )
}
