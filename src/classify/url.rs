//! URLs on command lines: the host, whether it is this machine, whether the path names
//! payments or orders, and the file name a download is saved under.

/// Returns whether a URL points at this machine.
pub(crate) fn is_loopback_url(u: &str) -> bool {
    let host = url_host(u);
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "[::1]"
        || host == "0.0.0.0"
}

/// Returns the host of a URL (or of `host/path` without a scheme), lowercase.
pub(crate) fn url_host(u: &str) -> String {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let hostport = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = hostport.rsplit('@').next().unwrap_or(hostport);
    let host = if hostport.starts_with('[') {
        hostport
            .split(']')
            .next()
            .map(|h| format!("{h}]"))
            .unwrap_or_default()
    } else {
        hostport.split(':').next().unwrap_or("").to_owned()
    };
    host.to_ascii_lowercase()
}

/// Returns whether a URL's path names payments, orders or trading.
pub(crate) fn is_payment_url(u: &str) -> bool {
    payment_url(u).is_some()
}

/// Classifies a URL's path: `Some(true)` when it names moving money (payments, checkout,
/// transfers, trading), `Some(false)` when it names orders (a common REST resource).
pub(crate) fn payment_url(u: &str) -> Option<bool> {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => "",
    };
    let mut found = None;
    for seg in path
        .to_ascii_lowercase()
        .split(['/', '?', '&', '=', '.', '-', '_'])
    {
        match seg {
            "pay" | "payment" | "payments" | "checkout" | "buy" | "sell" | "trade" | "trades"
            | "trading" | "purchase" | "transfer" | "transfers" | "withdraw" | "withdrawal"
            | "withdrawals" | "charge" | "charges" | "payout" | "payouts" => return Some(true),
            "order" | "orders" => found = Some(false),
            _ => {}
        }
    }
    found
}

pub(crate) fn url_file_name(u: &str) -> String {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    match path.find('/') {
        Some(i) => {
            let name = path[i..].rsplit('/').next().unwrap_or("");
            if name.is_empty() {
                "index.html".into()
            } else {
                name.to_owned()
            }
        }
        None => "index.html".into(),
    }
}

/// Returns the words of a URL's path and query, split at `/`, `?`, `&`, `=`, `.` and `,`.
pub(crate) fn url_path_words(u: &str) -> Vec<String> {
    let rest = match u.find("://") {
        Some(i) => &u[i + 3..],
        None => u,
    };
    let path = match rest.find(['/', '?']) {
        Some(i) => &rest[i..],
        None => "",
    };
    path.split(['/', '?', '&', '=', '.', ','])
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}
