//! curl's command line as curl reads it: every option with the kind of value it takes (short
//! letters, clusters whose first valued letter takes the rest or the next word, long options
//! by their exact name), positionals as URLs, `--` ending the options; what each word is for.

use crate::shell::Word;

/// What an option is for, and so what its value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum K {
    /// A switch with no effect on what is read, written or sent beyond the request.
    Flag,
    /// A value that is data (a timeout, a name, a credential given inline).
    Data,
    /// `--url`.
    Url,
    /// `-X`: the method (the last wins).
    Method,
    /// `-I`: a HEAD request.
    Head,
    /// `-G`: the body goes into the URL, the method is GET.
    Get,
    /// `-o FILE`: the next URL's response is saved to FILE.
    Output,
    /// `-O`: the next URL's response is saved under its remote name.
    RemoteName,
    /// `--remote-name-all`: every URL without an output is saved under its remote name.
    RemoteNameAll,
    /// `--output-dir DIR`.
    OutputDir,
    /// A body: `@FILE` reads a file, `@-` the input.
    Body,
    /// A body taken as written (`--data-raw`, `--form-string`).
    BodyRaw,
    /// `--data-urlencode` and `--url-query`: `@FILE` and `name@FILE` read a file.
    Urlencode,
    /// `-F name=@FILE` and `name=<FILE` read a file.
    Form,
    /// `-H @FILE` sends a file's lines as headers.
    Header,
    /// `-T FILE`: uploads FILE (`-` and `.` the input).
    Upload,
    /// A local file curl uses and neither prints nor sends (a CA bundle, a key, a client
    /// certificate, whose public part alone goes out).
    ReadFile,
    /// A local file whose content curl sends (`--etag-compare`: as a header).
    SendFile,
    /// A local file curl writes (headers, cookies, traces, caches).
    WriteFile,
    /// `-b`: cookies as data (`a=b`), else a cookie file whose cookies are sent.
    Cookie,
    /// `-w`: a format (`@FILE` reads it from a file).
    WriteOut,
    /// A proxy or resolver the request goes through.
    Proxy,
    /// `--resolve`, `--connect-to`: a named host's request goes elsewhere.
    Route,
    /// `-Q`: an FTP or SFTP command sent to the server.
    Quote,
    /// `--unix-socket`: the request goes to a local daemon's socket.
    Socket,
    /// `--proto-default`: the scheme of URLs written without one.
    ProtoDefault,
    /// An option whose effect oath does not model: it takes a value (consumed, so that it
    /// is not taken for a URL), and the command is only partly understood.
    UnknownValued,
    /// A switch whose effect oath does not model.
    UnknownFlag,
}

/// curl's short options: the letter and the long option it stands for.
const SHORT: &[(char, &str)] = &[
    ('#', "--progress-bar"),
    (':', "--next"),
    ('0', "--http1.0"),
    ('1', "--tlsv1"),
    ('2', "--sslv2"),
    ('3', "--sslv3"),
    ('4', "--ipv4"),
    ('6', "--ipv6"),
    ('a', "--append"),
    ('A', "--user-agent"),
    ('b', "--cookie"),
    ('B', "--use-ascii"),
    ('c', "--cookie-jar"),
    ('C', "--continue-at"),
    ('d', "--data"),
    ('D', "--dump-header"),
    ('e', "--referer"),
    ('E', "--cert"),
    ('f', "--fail"),
    ('F', "--form"),
    ('g', "--globoff"),
    ('G', "--get"),
    ('h', "--help"),
    ('H', "--header"),
    ('i', "--include"),
    ('I', "--head"),
    ('j', "--junk-session-cookies"),
    ('J', "--remote-header-name"),
    ('k', "--insecure"),
    ('K', "--config"),
    ('l', "--list-only"),
    ('L', "--location"),
    ('m', "--max-time"),
    ('M', "--manual"),
    ('n', "--netrc"),
    ('N', "--no-buffer"),
    ('o', "--output"),
    ('O', "--remote-name"),
    ('p', "--proxytunnel"),
    ('P', "--ftp-port"),
    ('q', "--disable"),
    ('Q', "--quote"),
    ('r', "--range"),
    ('R', "--remote-time"),
    ('s', "--silent"),
    ('S', "--show-error"),
    ('t', "--telnet-option"),
    ('T', "--upload-file"),
    ('u', "--user"),
    ('U', "--proxy-user"),
    ('v', "--verbose"),
    ('V', "--version"),
    ('w', "--write-out"),
    ('x', "--proxy"),
    ('X', "--request"),
    ('y', "--speed-time"),
    ('Y', "--speed-limit"),
    ('z', "--time-cond"),
    ('Z', "--parallel"),
];

/// curl's long options and what each is for (curl 7.88 and the later ones agents use).
const LONG: &[(&str, K)] = &[
    ("--abstract-unix-socket", K::Socket),
    ("--alt-svc", K::WriteFile),
    ("--anyauth", K::Flag),
    ("--append", K::Flag),
    ("--aws-sigv4", K::Data),
    ("--basic", K::Flag),
    ("--ca-native", K::Flag),
    ("--cacert", K::ReadFile),
    ("--capath", K::ReadFile),
    ("--cert", K::ReadFile),
    ("--cert-status", K::Flag),
    ("--cert-type", K::Data),
    ("--ciphers", K::Data),
    ("--compressed", K::Flag),
    ("--compressed-ssh", K::Flag),
    ("--config", K::UnknownValued),
    ("--connect-timeout", K::Data),
    ("--connect-to", K::Route),
    ("--continue-at", K::Data),
    ("--cookie", K::Cookie),
    ("--cookie-jar", K::WriteFile),
    ("--create-dirs", K::Flag),
    ("--create-file-mode", K::Data),
    ("--crlf", K::Flag),
    ("--crlfile", K::ReadFile),
    ("--curves", K::Data),
    ("--data", K::Body),
    ("--data-ascii", K::Body),
    ("--data-binary", K::Body),
    ("--data-raw", K::BodyRaw),
    ("--data-urlencode", K::Urlencode),
    ("--delegation", K::Data),
    ("--digest", K::Flag),
    ("--disable", K::Flag),
    ("--disable-eprt", K::Flag),
    ("--disable-epsv", K::Flag),
    ("--disallow-username-in-url", K::Flag),
    ("--dns-interface", K::Data),
    ("--dns-ipv4-addr", K::Data),
    ("--dns-ipv6-addr", K::Data),
    ("--dns-servers", K::Route),
    ("--doh-cert-status", K::Flag),
    ("--doh-insecure", K::Flag),
    ("--doh-url", K::Proxy),
    ("--dump-header", K::WriteFile),
    ("--egd-file", K::ReadFile),
    ("--engine", K::UnknownValued),
    ("--etag-compare", K::SendFile),
    ("--etag-save", K::WriteFile),
    ("--expect100-timeout", K::Data),
    ("--fail", K::Flag),
    ("--fail-early", K::Flag),
    ("--fail-with-body", K::Flag),
    ("--false-start", K::Flag),
    ("--form", K::Form),
    ("--form-escape", K::Flag),
    ("--form-string", K::BodyRaw),
    ("--ftp-account", K::Data),
    ("--ftp-alternative-to-user", K::UnknownValued),
    ("--ftp-create-dirs", K::Flag),
    ("--ftp-method", K::Data),
    ("--ftp-pasv", K::Flag),
    ("--ftp-port", K::Data),
    ("--ftp-pret", K::Flag),
    ("--ftp-skip-pasv-ip", K::Flag),
    ("--ftp-ssl-ccc", K::Flag),
    ("--ftp-ssl-ccc-mode", K::Data),
    ("--ftp-ssl-control", K::Flag),
    ("--get", K::Get),
    ("--globoff", K::Flag),
    ("--happy-eyeballs-timeout-ms", K::Data),
    ("--haproxy-protocol", K::Flag),
    ("--head", K::Head),
    ("--header", K::Header),
    ("--help", K::Flag),
    ("--hostpubmd5", K::Data),
    ("--hostpubsha256", K::Data),
    ("--hsts", K::WriteFile),
    ("--http0.9", K::Flag),
    ("--http1.0", K::Flag),
    ("--http1.1", K::Flag),
    ("--http2", K::Flag),
    ("--http2-prior-knowledge", K::Flag),
    ("--http3", K::Flag),
    ("--http3-only", K::Flag),
    ("--ignore-content-length", K::Flag),
    ("--include", K::Flag),
    ("--insecure", K::Flag),
    ("--interface", K::Data),
    ("--ipv4", K::Flag),
    ("--ipv6", K::Flag),
    ("--json", K::Body),
    ("--junk-session-cookies", K::Flag),
    ("--keepalive-time", K::Data),
    ("--key", K::ReadFile),
    ("--key-type", K::Data),
    ("--krb", K::Data),
    ("--libcurl", K::WriteFile),
    ("--limit-rate", K::Data),
    ("--list-only", K::Flag),
    ("--local-port", K::Data),
    ("--location", K::Flag),
    ("--location-trusted", K::Flag),
    ("--login-options", K::Data),
    ("--mail-auth", K::Data),
    ("--mail-from", K::Data),
    ("--mail-rcpt", K::Data),
    ("--mail-rcpt-allowfails", K::Flag),
    ("--manual", K::Flag),
    ("--max-filesize", K::Data),
    ("--max-redirs", K::Data),
    ("--max-time", K::Data),
    ("--metalink", K::UnknownFlag),
    ("--negotiate", K::Flag),
    ("--netrc", K::Flag),
    ("--netrc-file", K::ReadFile),
    ("--netrc-optional", K::Flag),
    ("--next", K::UnknownFlag),
    ("--no-alpn", K::Flag),
    ("--no-buffer", K::Flag),
    ("--no-clobber", K::Flag),
    ("--no-keepalive", K::Flag),
    ("--no-npn", K::Flag),
    ("--no-progress-meter", K::Flag),
    ("--no-sessionid", K::Flag),
    ("--noproxy", K::Data),
    ("--ntlm", K::Flag),
    ("--ntlm-wb", K::Flag),
    ("--oauth2-bearer", K::Data),
    ("--output", K::Output),
    ("--output-dir", K::OutputDir),
    ("--parallel", K::Flag),
    ("--parallel-immediate", K::Flag),
    ("--parallel-max", K::Data),
    ("--pass", K::Data),
    ("--path-as-is", K::Flag),
    ("--pinnedpubkey", K::ReadFile),
    ("--post301", K::Flag),
    ("--post302", K::Flag),
    ("--post303", K::Flag),
    ("--preproxy", K::Proxy),
    ("--progress-bar", K::Flag),
    ("--proto", K::Data),
    ("--proto-default", K::ProtoDefault),
    ("--proto-redir", K::Data),
    ("--proxy", K::Proxy),
    ("--proxy-anyauth", K::Flag),
    ("--proxy-basic", K::Flag),
    ("--proxy-ca-native", K::Flag),
    ("--proxy-cacert", K::ReadFile),
    ("--proxy-capath", K::ReadFile),
    ("--proxy-cert", K::ReadFile),
    ("--proxy-cert-type", K::Data),
    ("--proxy-ciphers", K::Data),
    ("--proxy-crlfile", K::ReadFile),
    ("--proxy-digest", K::Flag),
    ("--proxy-header", K::Header),
    ("--proxy-insecure", K::Flag),
    ("--proxy-key", K::ReadFile),
    ("--proxy-key-type", K::Data),
    ("--proxy-negotiate", K::Flag),
    ("--proxy-ntlm", K::Flag),
    ("--proxy-pass", K::Data),
    ("--proxy-pinnedpubkey", K::ReadFile),
    ("--proxy-service-name", K::Data),
    ("--proxy-ssl-allow-beast", K::Flag),
    ("--proxy-ssl-auto-client-cert", K::Flag),
    ("--proxy-tls13-ciphers", K::Data),
    ("--proxy-tlsauthtype", K::Data),
    ("--proxy-tlspassword", K::Data),
    ("--proxy-tlsuser", K::Data),
    ("--proxy-tlsv1", K::Flag),
    ("--proxy-user", K::Data),
    ("--proxy1.0", K::Proxy),
    ("--proxytunnel", K::Flag),
    ("--pubkey", K::ReadFile),
    ("--quote", K::Quote),
    ("--random-file", K::ReadFile),
    ("--range", K::Data),
    ("--rate", K::Data),
    ("--raw", K::Flag),
    ("--referer", K::Data),
    ("--remote-header-name", K::UnknownFlag),
    ("--remote-name", K::RemoteName),
    ("--remote-name-all", K::RemoteNameAll),
    ("--remote-time", K::Flag),
    ("--remove-on-error", K::Flag),
    ("--request", K::Method),
    ("--request-target", K::Data),
    ("--resolve", K::Route),
    ("--retry", K::Data),
    ("--retry-all-errors", K::Flag),
    ("--retry-connrefused", K::Flag),
    ("--retry-delay", K::Data),
    ("--retry-max-time", K::Data),
    ("--sasl-authzid", K::Data),
    ("--sasl-ir", K::Flag),
    ("--service-name", K::Data),
    ("--show-error", K::Flag),
    ("--silent", K::Flag),
    ("--skip-existing", K::Flag),
    ("--socks4", K::Proxy),
    ("--socks4a", K::Proxy),
    ("--socks5", K::Proxy),
    ("--socks5-basic", K::Flag),
    ("--socks5-gssapi", K::Flag),
    ("--socks5-gssapi-nec", K::Flag),
    ("--socks5-gssapi-service", K::Data),
    ("--socks5-hostname", K::Proxy),
    ("--speed-limit", K::Data),
    ("--speed-time", K::Data),
    ("--ssl", K::Flag),
    ("--ssl-allow-beast", K::Flag),
    ("--ssl-auto-client-cert", K::Flag),
    ("--ssl-no-revoke", K::Flag),
    ("--ssl-reqd", K::Flag),
    ("--ssl-revoke-best-effort", K::Flag),
    ("--sslv2", K::Flag),
    ("--sslv3", K::Flag),
    ("--stderr", K::WriteFile),
    ("--styled-output", K::Flag),
    ("--suppress-connect-headers", K::Flag),
    ("--tcp-fastopen", K::Flag),
    ("--tcp-nodelay", K::Flag),
    ("--telnet-option", K::Data),
    ("--tftp-blksize", K::Data),
    ("--tftp-no-options", K::Flag),
    ("--time-cond", K::Data),
    ("--tls-max", K::Data),
    ("--tls13-ciphers", K::Data),
    ("--tlsauthtype", K::Data),
    ("--tlspassword", K::Data),
    ("--tlsuser", K::Data),
    ("--tlsv1", K::Flag),
    ("--tlsv1.0", K::Flag),
    ("--tlsv1.1", K::Flag),
    ("--tlsv1.2", K::Flag),
    ("--tlsv1.3", K::Flag),
    ("--tr-encoding", K::Flag),
    ("--trace", K::WriteFile),
    ("--trace-ascii", K::WriteFile),
    ("--trace-time", K::Flag),
    ("--unix-socket", K::Socket),
    ("--upload-file", K::Upload),
    ("--url", K::Url),
    ("--url-query", K::Urlencode),
    ("--use-ascii", K::Flag),
    ("--user", K::Data),
    ("--user-agent", K::Data),
    ("--verbose", K::Flag),
    ("--version", K::Flag),
    ("--write-out", K::WriteOut),
    ("--xattr", K::Flag),
];

/// Returns what a long option is for, by its exact name (curl also takes an unambiguous
/// beginning, which oath does not vouch for).
pub(super) fn long(name: &str) -> Option<(&'static str, K)> {
    LONG.iter().find(|(n, _)| *n == name).copied()
}

/// Returns the long option a short option letter stands for, and what it is for.
fn short(c: char) -> Option<(&'static str, K)> {
    SHORT
        .iter()
        .find(|(l, _)| *l == c)
        .and_then(|(_, n)| long(n))
}

/// Returns whether an option of this kind takes a value.
fn valued(k: K) -> bool {
    !matches!(
        k,
        K::Flag | K::Head | K::Get | K::RemoteName | K::RemoteNameAll | K::UnknownFlag
    )
}

/// One option as curl read it.
#[derive(Debug, Clone)]
pub(super) struct Opt {
    /// Its long name.
    pub name: &'static str,
    /// What it is for.
    pub kind: K,
    /// Its value (glued or the next word).
    pub value: Option<Word>,
    /// The word it was written in.
    pub index: usize,
}

/// A curl command line, read.
#[derive(Debug, Default)]
pub(super) struct Line {
    /// Options in order (a cluster gives one per letter).
    pub opts: Vec<Opt>,
    /// The URLs written as positionals, in order, with their index.
    pub urls: Vec<(usize, Word)>,
    /// The words curl does not take as oath reads them (an unknown option, an abbreviation,
    /// `--opt=value`, an option computed at run time, a valued option with no value).
    pub gaps: Vec<usize>,
}

impl Line {
    /// Returns the values of the options of a kind, in order.
    pub fn values(&self, k: K) -> impl Iterator<Item = &Word> {
        self.opts
            .iter()
            .filter(move |o| o.kind == k)
            .filter_map(|o| o.value.as_ref())
    }

    /// Returns whether the option of this long name is given.
    pub fn named(&self, name: &str) -> bool {
        self.opts.iter().any(|o| o.name == name)
    }

    /// Returns whether an option of a kind is given.
    pub fn has(&self, k: K) -> bool {
        self.opts.iter().any(|o| o.kind == k)
    }
}

/// Reads curl's arguments.
pub(super) fn read(args: &[Word]) -> Line {
    let mut line = Line::default();
    let mut i = 0;
    let mut only_urls = false;
    let gap = |line: &mut Line, i: usize| {
        if !line.gaps.contains(&i) {
            line.gaps.push(i);
        }
    };
    while i < args.len() {
        let a = &args[i];
        let t = a.text.as_str();
        if only_urls || !t.starts_with('-') || t == "-" {
            if !a.literal && t.starts_with('-') {
                gap(&mut line, i);
            }
            line.urls.push((i, a.clone()));
            i += 1;
            continue;
        }
        if !a.literal {
            // An option computed at run time (`-$X`, `--$OPT`).
            gap(&mut line, i);
            i += 1;
            continue;
        }
        if t == "--" {
            only_urls = true;
            i += 1;
            continue;
        }
        if t.starts_with("--") {
            match long(t) {
                Some((name, k)) if valued(k) => {
                    let value = args.get(i + 1).cloned();
                    if value.is_none() || matches!(k, K::UnknownValued) {
                        gap(&mut line, i);
                    }
                    line.opts.push(Opt {
                        name,
                        kind: k,
                        value,
                        index: i,
                    });
                    i += 2;
                }
                Some((name, k)) => {
                    if k == K::UnknownFlag {
                        gap(&mut line, i);
                    }
                    line.opts.push(Opt {
                        name,
                        kind: k,
                        value: None,
                        index: i,
                    });
                    i += 1;
                }
                None => {
                    gap(&mut line, i);
                    i += 1;
                }
            }
            continue;
        }
        // A cluster of letters: the first that takes a value takes the rest of the word, or
        // the next word.
        let mut next = i + 1;
        for (k, ch) in t.char_indices().skip(1) {
            let Some((name, kind)) = short(ch) else {
                gap(&mut line, i);
                break;
            };
            if matches!(kind, K::UnknownFlag | K::UnknownValued) {
                gap(&mut line, i);
            }
            if valued(kind) {
                let rest = &t[k + ch.len_utf8()..];
                let value = if rest.is_empty() {
                    next = i + 2;
                    args.get(i + 1).cloned()
                } else {
                    Some(Word {
                        text: rest.to_owned(),
                        ..a.clone()
                    })
                };
                if value.is_none() {
                    gap(&mut line, i);
                }
                line.opts.push(Opt {
                    name,
                    kind,
                    value,
                    index: i,
                });
                break;
            }
            line.opts.push(Opt {
                name,
                kind,
                value: None,
                index: i,
            });
        }
        i = next;
    }
    line
}

/// Returns the scheme curl uses for a URL: the one written, else the one its host's first
/// label names (`ftp.`, `dict.`, `ldap.`, `imap.`, `smtp.`, `pop3.`), else the default.
pub(super) fn scheme(url: &str, default: &str) -> String {
    if let Some(i) = url.find("://") {
        return url[..i].to_ascii_lowercase();
    }
    let host = url.to_ascii_lowercase();
    for s in ["ftp", "dict", "ldap", "imap", "smtp", "pop3"] {
        if host.starts_with(&format!("{s}.")) {
            return s.to_owned();
        }
    }
    default.to_ascii_lowercase()
}

/// Returns the part of a URL before its path (scheme, user, host, port).
pub(super) fn authority(url: &str) -> &str {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |e| start + e);
    &url[..end]
}

/// Returns whether curl's globbing (`{a,b}`, `[1-3]`) can change a URL's scheme or host: a
/// brace or a bracketed range before the path (an IPv6 address in brackets is no range).
pub(super) fn globbed_host(url: &str) -> bool {
    let head = authority(url);
    if head.contains(['{', '}']) {
        return true;
    }
    let mut rest = head;
    while let Some(open) = rest.find('[') {
        let inner = &rest[open + 1..];
        let close = inner.find(']').unwrap_or(inner.len());
        if !inner[..close]
            .chars()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.' | '%'))
        {
            return true;
        }
        rest = &inner[close..];
    }
    false
}

/// Returns the path a `file://` URL reads, percent-decoded as curl decodes it (`None`
/// when it names another host, which curl refuses).
pub(super) fn file_path(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1") {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    Some(percent_decode(path))
}

/// Decodes `%XX` escapes (an invalid one is kept as written).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(h) = s.get(i + 1..i + 3)
            && let Ok(v) = u8::from_str_radix(h, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What an FTP or SFTP command curl sends (`-Q`) does to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// It only reads or sets up the session.
    Reads,
    /// It creates or changes remote files.
    Changes,
    /// It deletes or renames remote files.
    Destroys,
    /// oath does not know it.
    Unknown,
}

/// Classifies an FTP or SFTP command given to `-Q` (a leading `-`, `+` or `*` says when it
/// is sent and whether a failure counts).
pub(super) fn quote(cmd: &str) -> Quote {
    let cmd = cmd.trim_start_matches(['-', '+', '*']).trim_start();
    let verb = cmd.split_whitespace().next().unwrap_or("");
    match verb.to_ascii_uppercase().as_str() {
        "PWD" | "XPWD" | "LIST" | "NLST" | "STAT" | "SIZE" | "MDTM" | "NOOP" | "HELP" | "SYST"
        | "TYPE" | "PASV" | "EPSV" | "CWD" | "XCWD" | "CDUP" | "XCUP" | "FEAT" | "MLST"
        | "MLSD" | "MODE" | "STRU" | "STATVFS" => Quote::Reads,
        "MKD" | "XMKD" | "MKDIR" | "CHMOD" | "CHOWN" | "CHGRP" | "LN" | "SYMLINK" | "ATIME"
        | "MTIME" => Quote::Changes,
        "DELE" | "RMD" | "XRMD" | "RM" | "RMDIR" | "RNFR" | "RNTO" | "RENAME" => Quote::Destroys,
        _ => Quote::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::lit).collect()
    }

    type Read = (Vec<(K, Option<String>)>, Vec<String>, Vec<usize>);
    type Case<'a> = (
        &'a str,
        &'a [(K, Option<&'a str>)],
        &'a [&'a str],
        &'a [usize],
    );

    fn kinds(s: &str) -> Read {
        let l = read(&words(s));
        (
            l.opts
                .iter()
                .map(|o| (o.kind, o.value.as_ref().map(|w| w.text.clone())))
                .collect(),
            l.urls.iter().map(|(_, w)| w.text.clone()).collect(),
            l.gaps,
        )
    }

    #[test]
    fn every_short_letter_names_a_long_option_of_the_table() {
        for (c, n) in SHORT {
            assert!(long(n).is_some(), "-{c} → {n}");
        }
        let mut names: Vec<&str> = LONG.iter().map(|(n, _)| *n).collect();
        let len = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), len, "an option is listed twice");
    }

    #[test]
    fn options_take_their_values_and_urls_are_the_rest() {
        let cases: &[Case<'_>] = &[
            (
                "-o data.json https://a/x",
                &[(K::Output, Some("data.json"))],
                &["https://a/x"],
                &[],
            ),
            (
                "-fsSLo out https://a",
                &[
                    (K::Flag, None),
                    (K::Flag, None),
                    (K::Flag, None),
                    (K::Flag, None),
                    (K::Output, Some("out")),
                ],
                &["https://a"],
                &[],
            ),
            (
                "-oout https://a",
                &[(K::Output, Some("out"))],
                &["https://a"],
                &[],
            ),
            // A value that looks like an option is the value.
            (
                "-o -v https://a",
                &[(K::Output, Some("-v"))],
                &["https://a"],
                &[],
            ),
            (
                "-sXPOST https://a",
                &[(K::Flag, None), (K::Method, Some("POST"))],
                &["https://a"],
                &[],
            ),
            // curl has no --opt=value: the word is an option it does not know.
            ("--request=GET https://a", &[], &["https://a"], &[0]),
            // An abbreviation is not vouched for.
            ("--verb https://a", &[], &["https://a"], &[0]),
            (
                "-sj https://a",
                &[(K::Flag, None), (K::Flag, None)],
                &["https://a"],
                &[],
            ),
            // An unknown letter makes the cluster unknown.
            ("-s%L https://a", &[(K::Flag, None)], &["https://a"], &[0]),
            (
                "-K cfg https://a",
                &[(K::UnknownValued, Some("cfg"))],
                &["https://a"],
                &[0],
            ),
            (
                "-J -O https://a/f",
                &[(K::UnknownFlag, None), (K::RemoteName, None)],
                &["https://a/f"],
                &[0],
            ),
            ("-- -o", &[], &["-o"], &[]),
            ("https://a -d", &[(K::Body, None)], &["https://a"], &[1]),
        ];
        for (line, opts, urls, gaps) in cases {
            let (o, u, g) = kinds(line);
            let want: Vec<(K, Option<String>)> = opts
                .iter()
                .map(|(k, v)| (*k, v.map(str::to_owned)))
                .collect();
            assert_eq!(o, want, "{line}");
            assert_eq!(u, *urls, "{line}");
            assert_eq!(g, *gaps, "{line}");
        }
    }

    #[test]
    fn schemes_hosts_and_files() {
        assert_eq!(scheme("https://a", "http"), "https");
        assert_eq!(scheme("GOPHER://a", "http"), "gopher");
        assert_eq!(scheme("dict.example.com/d:x", "http"), "dict");
        assert_eq!(scheme("example.com", "http"), "http");
        assert_eq!(scheme("example.com", "gopher"), "gopher");
        assert!(globbed_host("http://{a,169.254.169.254}/"));
        assert!(globbed_host("{gopher,http}://a/"));
        assert!(globbed_host("http://10.0.0.[1-9]/"));
        assert!(!globbed_host("http://[::1]:8080/x[1-2]"));
        assert!(!globbed_host("https://a/files/{a,b}.txt"));
        assert_eq!(
            file_path("file:///etc/passwd").as_deref(),
            Some("/etc/passwd")
        );
        assert_eq!(
            file_path("file://localhost/home/u/%2essh/id_rsa").as_deref(),
            Some("/home/u/.ssh/id_rsa")
        );
        assert_eq!(file_path("file://other/x"), None);
    }

    #[test]
    fn ftp_commands_by_what_they_do() {
        assert_eq!(quote("PWD"), Quote::Reads);
        assert_eq!(quote("SIZE file.txt"), Quote::Reads);
        assert_eq!(quote("-DELE file.txt"), Quote::Destroys);
        assert_eq!(quote("*rm /x"), Quote::Destroys);
        assert_eq!(quote("rename a b"), Quote::Destroys);
        assert_eq!(quote("mkdir d"), Quote::Changes);
        assert_eq!(quote("SITE EXEC x"), Quote::Unknown);
    }
}
