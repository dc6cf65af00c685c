//! URLs on command lines: the host, whether it is this machine or a cloud's instance
//! metadata service (in any spelling of its address), whether the path names payments or
//! orders, and the file name a download is saved under.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The cloud metadata service's finding is the policy's; handlers name it from here.
pub(crate) use super::policy::metadata_finding;

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

/// Names of instance metadata services (and their aliases in the clouds' own DNS).
const METADATA_NAMES: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "metadata.internal",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.ec2.internal",
    "metadata.azure.internal",
    "metadata.tencentyun.com",
    "api.metadata.cloud.ibm.com",
    "metadata.platformequinix.com",
    "metadata.packet.net",
];

/// Wildcard DNS services whose names resolve to the address written in them
/// (`169.254.169.254.nip.io`, `a9fea9fe.nip.io`).
const WILDCARD_DNS: &[&str] = &["nip.io", "sslip.io", "xip.io", "traefik.me", "local.gd"];

/// Returns whether a host (as written in a URL: any case, with or without brackets, a
/// trailing dot, percent-escapes) is a cloud instance metadata service, which hands out the
/// machine's credentials: its names, and its addresses in every spelling `inet_aton` and URL
/// parsers accept (decimal `2852039166`, hex `0xa9fea9fe`, octal `0251.0376.0251.0376`,
/// short `169.254.43518`, IPv6 `fd00:ec2::254`, IPv4-mapped and -compatible IPv6), all of
/// 169.254.0.0/16 and fe80::/10 (link-local), Alibaba's `100.100.100.200` and Azure's
/// `168.63.129.16`.
pub(crate) fn is_metadata_host(host: &str) -> bool {
    let decoded = percent_decoded(host.trim());
    let h = decoded.trim_end_matches('.').to_ascii_lowercase();
    let h = h.as_str();
    if h.is_empty() {
        return false;
    }
    if METADATA_NAMES.contains(&h) {
        return true;
    }
    // IPv6, with or without brackets, a zone (`%eth0`) dropped.
    let inner = h
        .strip_prefix('[')
        .map(|r| r.strip_suffix(']').unwrap_or(r))
        .unwrap_or(h);
    let inner = inner.split('%').next().unwrap_or(inner);
    if inner.contains(':') {
        return inner.parse::<Ipv6Addr>().is_ok_and(metadata_v6);
    }
    if let Some(ip) = parse_inet_aton(h) {
        return metadata_v4(ip);
    }
    // Digits written in other scripts (fullwidth, circled …): IDNA maps them to ASCII.
    if !h.is_ascii() {
        let mapped = ascii_digits(h);
        return match mapped {
            Some(m) => m != h && is_metadata_host(&m),
            // A numeric character oath cannot map: it may be an address.
            None => true,
        };
    }
    // A wildcard DNS name carrying the address (`169.254.169.254.nip.io`,
    // `169-254-169-254.sslip.io`, `a9fea9fe.nip.io`, `x.169.254.169.254.nip.io`).
    if let Some(base) = WILDCARD_DNS
        .iter()
        .find_map(|d| h.strip_suffix(d).and_then(|r| r.strip_suffix('.')))
    {
        let labels: Vec<&str> = base.split('.').collect();
        for i in 0..labels.len() {
            let rest = labels[i..].join(".");
            let dashed = labels[i..].join(".").replace('-', ".");
            if [rest, dashed]
                .iter()
                .any(|c| parse_inet_aton(c).is_some_and(metadata_v4))
            {
                return true;
            }
            if let Some(last) = labels[i].rsplit('-').next()
                && last.len() == 8
                && u32::from_str_radix(last, 16).is_ok_and(|n| metadata_v4(Ipv4Addr::from(n)))
            {
                return true;
            }
        }
    }
    false
}

/// Returns whether an IPv4 address is a metadata service's (or link-local, where they live).
fn metadata_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    o[0] == 169 && o[1] == 254
        || ip == Ipv4Addr::new(100, 100, 100, 200)
        || ip == Ipv4Addr::new(168, 63, 129, 16)
}

/// Returns whether an IPv6 address is a metadata service's: AWS's `fd00:ec2::254`,
/// link-local `fe80::/10`, or an IPv4 one embedded (mapped `::ffff:a.b.c.d`, compatible
/// `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`).
fn metadata_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        return true;
    }
    if s[0] & 0xffc0 == 0xfe80 {
        return true;
    }
    let low = Ipv4Addr::new(
        (s[6] >> 8) as u8,
        (s[6] & 0xff) as u8,
        (s[7] >> 8) as u8,
        (s[7] & 0xff) as u8,
    );
    let mapped = s[..5].iter().all(|&x| x == 0) && (s[5] == 0xffff || s[5] == 0);
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|&x| x == 0);
    if (mapped || nat64) && metadata_v4(low) {
        return true;
    }
    let six_to_four = Ipv4Addr::new(
        (s[1] >> 8) as u8,
        (s[1] & 0xff) as u8,
        (s[2] >> 8) as u8,
        (s[2] & 0xff) as u8,
    );
    s[0] == 0x2002 && metadata_v4(six_to_four)
}

/// Parses an IPv4 address as `inet_aton` does: one to four parts, each decimal, hex
/// (`0x`) or octal (a leading `0`); the last part fills the bytes left (`169.254.43518`,
/// `2852039166`).
pub(crate) fn parse_inet_aton(s: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::with_capacity(4);
    for p in &parts {
        nums.push(parse_part(p)?);
    }
    let (last, head) = nums.split_last()?;
    if head.iter().any(|&n| n > 255) {
        return None;
    }
    let room = 8 * (4 - head.len() as u32);
    if room < 32 && *last >= 1u64 << room {
        return None;
    }
    if *last > u64::from(u32::MAX) {
        return None;
    }
    let mut v: u64 = 0;
    for (i, n) in head.iter().enumerate() {
        v |= n << (24 - 8 * i as u32);
    }
    v |= last;
    u32::try_from(v).ok().map(Ipv4Addr::from)
}

/// One part of an `inet_aton` address.
fn parse_part(p: &str) -> Option<u64> {
    if p.is_empty() || p.len() > 40 {
        return None;
    }
    let (digits, radix) = if let Some(h) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
        (h, 16)
    } else if p.len() > 1 && p.starts_with('0') {
        (&p[1..], 8)
    } else {
        (p, 10)
    };
    if digits.is_empty() {
        // `0x` alone is 0 to glibc.
        return (radix == 16).then_some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Leading zeros are no value: `0x00000a9fea9fe` is what `0xa9fea9fe` is.
    let trimmed = digits.trim_start_matches('0');
    if trimmed.len() > 16 {
        return None;
    }
    u64::from_str_radix(if trimmed.is_empty() { "0" } else { trimmed }, radix).ok()
}

/// Decodes `%XX` escapes (a host so written means the same to many clients).
fn percent_decoded(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Maps digits and full stops of other scripts to ASCII (`１６９．２５４…`, `①⑥⑨。…`), as
/// IDNA does before a host is read as an address; None when a numeric character is left
/// that it cannot map.
fn ascii_digits(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        let mapped = match u {
            0xff10..=0xff19 => char::from_digit(u - 0xff10, 10),
            0x2460..=0x2468 => char::from_digit(u - 0x2460 + 1, 10),
            0x24ea | 0x24ff => Some('0'),
            0x2474..=0x247c => char::from_digit(u - 0x2474 + 1, 10),
            0x1d7ce..=0x1d7ff => char::from_digit((u - 0x1d7ce) % 10, 10),
            0x2070 => Some('0'),
            0x00b9 => Some('1'),
            0x00b2 => Some('2'),
            0x00b3 => Some('3'),
            0x2074..=0x2079 => char::from_digit(u - 0x2070, 10),
            0x2080..=0x2089 => char::from_digit(u - 0x2080, 10),
            0x3002 | 0xff0e | 0xff61 => Some('.'),
            0xff41..=0xff5a => char::from_u32(u - 0xff41 + u32::from(b'a')),
            0xff21..=0xff3a => char::from_u32(u - 0xff21 + u32::from(b'a')),
            _ if c.is_ascii() => Some(c),
            _ if c.is_numeric() => return None,
            _ => Some(c),
        };
        out.push(mapped?);
    }
    Some(out)
}

/// Returns whether a URL (or `host/path`) points at a cloud instance metadata service: its
/// host, up to text computed at run time (`169.254.170.2$URI`), in every form curl's
/// globbing makes of it (`169.254.169.{1,254}`, `169.254.169.[250-254]`).
pub(crate) fn is_metadata_url(u: &str) -> bool {
    let host = url_host(u);
    let host = match host.find(['$', '`', '"', '\'', '\\']) {
        Some(i) => &host[..i],
        None => host.as_str(),
    };
    if host.contains('{') || host.chars().skip(1).any(|c| c == '[') {
        return match glob_variants(host, 4096) {
            Some(all) => all.iter().any(|h| is_metadata_host(h)),
            // More forms than oath reads: it may be one.
            None => true,
        };
    }
    is_metadata_host(host)
}

/// Returns every text curl's URL globbing makes of `s` (`{a,b}` alternatives, `[1-9]`,
/// `[a-z]` and `[01-10:2]` ranges), None past `limit` texts.
fn glob_variants(s: &str, limit: usize) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut rest = s;
    while !rest.is_empty() {
        let (choices, after): (Vec<String>, &str) = if let Some(r) = rest.strip_prefix('{') {
            match r.find('}') {
                Some(end) => (
                    r[..end].split(',').map(str::to_owned).collect(),
                    &r[end + 1..],
                ),
                None => (vec![rest.to_owned()], ""),
            }
        } else if let Some(r) = rest.strip_prefix('[') {
            match r.find(']') {
                Some(end) => (range_values(&r[..end], limit)?, &r[end + 1..]),
                None => (vec![rest.to_owned()], ""),
            }
        } else {
            let end = rest.find(['{', '[']).unwrap_or(rest.len());
            let end = if end == 0 { 1 } else { end };
            (vec![rest[..end].to_owned()], &rest[end..])
        };
        if out.len().saturating_mul(choices.len()) > limit {
            return None;
        }
        out = out
            .iter()
            .flat_map(|p| choices.iter().map(move |c| format!("{p}{c}")))
            .collect();
        rest = after;
    }
    Some(out)
}

/// The values of a curl glob range (`1-9`, `001-100`, `a-z`, `0-100:10`).
fn range_values(spec: &str, limit: usize) -> Option<Vec<String>> {
    let (range, step) = match spec.split_once(':') {
        Some((r, st)) => (r, st.parse::<usize>().ok()?.max(1)),
        None => (spec, 1),
    };
    let (a, b) = range.split_once('-')?;
    if let (Ok(x), Ok(y)) = (a.parse::<u64>(), b.parse::<u64>()) {
        let width = if a.starts_with('0') { a.len() } else { 0 };
        let n = y.checked_sub(x)? / step as u64 + 1;
        if n as usize > limit {
            return None;
        }
        return Some(
            (x..=y)
                .step_by(step)
                .map(|v| format!("{v:0width$}"))
                .collect(),
        );
    }
    let (mut ca, mut cb) = (a.chars(), b.chars());
    match (ca.next(), ca.next(), cb.next(), cb.next()) {
        (Some(x), None, Some(y), None) if x <= y => {
            Some((x..=y).step_by(step).map(String::from).collect())
        }
        _ => Some(vec![format!("[{spec}]")]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_hosts_in_every_spelling() {
        for h in [
            "169.254.169.254",
            "169.254.169.254.",
            "2852039166",
            "0xa9fea9fe",
            "0XA9FEA9FE",
            "0x00a9fea9fe",
            "0251.0376.0251.0376",
            "0251.254.169.254",
            "0xa9.0xfe.0xa9.0xfe",
            "169.254.43518",
            "169.16689662",
            "0xa9.16689662",
            "169.254.170.2",
            "169.254.0.1",
            "100.100.100.200",
            "168.63.129.16",
            "[fd00:ec2::254]",
            "fd00:ec2::254",
            "[FD00:EC2:0:0:0:0:0:254]",
            "[::ffff:169.254.169.254]",
            "[::ffff:a9fe:a9fe]",
            "[0:0:0:0:0:ffff:a9fe:a9fe]",
            "[::169.254.169.254]",
            "[64:ff9b::a9fe:a9fe]",
            "[2002:a9fe:a9fe::]",
            "[fe80::1%25eth0]",
            "[fe80::1]",
            "metadata",
            "METADATA.google.internal",
            "metadata.google.internal.",
            "metadata.goog",
            "instance-data",
            "instance-data.ec2.internal",
            "%31%36%39.254.169.254",
            "169.254.169.254.nip.io",
            "169-254-169-254.sslip.io",
            "a9fea9fe.nip.io",
            "app-a9fea9fe.nip.io",
            "x.169.254.169.254.nip.io",
            "\u{ff11}\u{ff16}\u{ff19}\u{ff0e}\u{ff12}\u{ff15}\u{ff14}\u{ff0e}\u{ff11}\u{ff16}\u{ff19}\u{ff0e}\u{ff12}\u{ff15}\u{ff14}",
            "\u{2460}\u{2465}\u{2468}.\u{2461}\u{2464}\u{2463}.\u{2460}\u{2465}\u{2468}.\u{2461}\u{2464}\u{2463}",
        ] {
            assert!(is_metadata_host(h), "{h}");
        }
        for h in [
            "169.25.4.1",
            "10.0.0.1",
            "example.com",
            "1.2.3.4",
            "127.0.0.1",
            "localhost",
            "[::1]",
            "[2001:db8::1]",
            "[fd00:ec2::253]",
            "metadata.example.com",
            "169.254.example.com",
            "0251.0376.0251.08",
            "169.254.169.254.5",
            "4294967296",
            "256.254.169.254",
            "github.com",
            "api.github.com",
            "1.2.3.4.nip.io",
            "",
            "0x",
        ] {
            assert!(!is_metadata_host(h), "{h}");
        }
    }

    #[test]
    fn metadata_urls() {
        for u in [
            "http://169.254.169.254/latest/meta-data/",
            "http://user@169.254.169.254:80/x",
            "http://[fd00:ec2::254]/latest/",
            "169.254.169.254/latest",
            "https://metadata.google.internal/computeMetadata/v1/",
            "http://2852039166/",
        ] {
            assert!(is_metadata_url(u), "{u}");
        }
        assert!(!is_metadata_url("https://example.com/169.254.169.254"));
        for u in [
            "169.254.170.2$AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "http://169.254.169.{1,254}/latest",
            "http://169.254.169.[250-254]/latest",
            "http://{example.com,169.254.169.254}/",
            "http://[fd00:ec2::254]/",
        ] {
            assert!(is_metadata_url(u), "{u}");
        }
        for u in [
            "http://{a,b}.example.com/",
            "http://example[1-3].com/",
            "http://[::1]/",
            "http://$HOST/latest",
        ] {
            assert!(!is_metadata_url(u), "{u}");
        }
    }

    #[test]
    fn inet_aton_forms() {
        for (s, want) in [
            ("1.2.3.4", Some(Ipv4Addr::new(1, 2, 3, 4))),
            ("1", Some(Ipv4Addr::new(0, 0, 0, 1))),
            ("1.2", Some(Ipv4Addr::new(1, 0, 0, 2))),
            ("1.2.3", Some(Ipv4Addr::new(1, 2, 0, 3))),
            ("0x7f.1", Some(Ipv4Addr::new(127, 0, 0, 1))),
            ("017700000001", Some(Ipv4Addr::new(127, 0, 0, 1))),
            ("1.2.65536", None),
            ("1.16777216", None),
            ("1.2.3.4.5", None),
            ("09", None),
            ("1..2", None),
            ("a.b.c.d", None),
        ] {
            assert_eq!(parse_inet_aton(s), want, "{s}");
        }
    }
}
