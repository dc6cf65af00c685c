//! curl: what a command line read by curl's own grammar (`curl_grammar.rs`) does — the
//! request (method, hosts, body, uploads), the files it saves, reads and writes, the servers
//! it talks to another way (FTP commands, a daemon's socket, schemes other than HTTP) — and
//! the words it does not account for.

use crate::shell::Word;

use super::super::super::effect::{Effect, Request};
use super::super::super::pack::account::Gap;
use super::super::super::pack::schema::{Act, PathNote};
use super::super::super::paths::Zone;
use super::super::super::url::{
    is_loopback_url, is_metadata_host, is_metadata_url, metadata_finding, payment_url,
    url_file_name, url_host, url_path_words,
};
use super::super::apply::Handled;
use super::super::gaps::Who;
use super::super::{Leaf, Walker};
use super::curl_grammar::{self as g, K, Quote};
use super::{host_fields, trades};

/// Schemes whose transfers are downloads and uploads of files.
const FILE_SCHEMES: &[&str] = &["http", "https", "ftp", "ftps", "sftp", "scp"];

impl Walker<'_> {
    /// curl: the request, the files saved, read and written, and the words left unread.
    pub(super) fn h_curl(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        let from = self.out.items.len();
        let (args, stdin) = (c.args(), c.stdin);
        let line = g::read(args);
        let mut gaps = line.gaps.clone();
        let mut urls: Vec<Word> = line.urls.iter().map(|(_, w)| w.clone()).collect();
        urls.extend(line.values(K::Url).cloned());
        let globoff = line.named("--globoff");
        let default_scheme = line
            .values(K::ProtoDefault)
            .last()
            .map_or_else(|| "http".to_owned(), |w| w.text.clone());
        // Every address the request may reach: its URLs, the proxies, the addresses
        // `--resolve` and `--connect-to` put behind a name.
        let reaches_metadata = urls.iter().any(|u| is_metadata_url(&u.text))
            || line.values(K::Proxy).any(|w| is_metadata_url(&w.text))
            || line.values(K::Route).any(|w| {
                host_fields(&w.text)
                    .iter()
                    .any(|h| is_metadata_host(h) || is_metadata_url(h))
            });
        if reaches_metadata {
            self.push(c.t(), metadata_finding("curl fetches from"));
        }
        // Schemes other than HTTP, FTP and SSH transfers, and hosts globbing chooses.
        let mut local_reads = Vec::new();
        for (i, u) in urls.iter().enumerate() {
            let scheme = g::scheme(&u.text, &default_scheme);
            if !globoff && g::globbed_host(&u.text) {
                let why = format!(
                    "curl expands `{}` into addresses oath does not read (its {{}} and [] globbing)",
                    u.text
                );
                self.found(c, Effect::NotUnderstood, "curl-glob", &why, "");
            } else if scheme == "file" {
                match g::file_path(&u.text) {
                    // `-T FILE file:///PATH` copies FILE there.
                    Some(p) if u.literal && line.has(K::Upload) => {
                        let tg = self.target(&Word::lit(p));
                        self.found(c, Effect::Write(tg, None), "write", "", "curl writes");
                    }
                    Some(p) if u.literal => local_reads.push((i, Word::lit(p))),
                    _ => self.found(
                        c,
                        Effect::NotUnderstood,
                        "curl-file-url",
                        "curl reads a local file oath cannot name (a file:// URL)",
                        "",
                    ),
                }
            } else if !FILE_SCHEMES.contains(&scheme.as_str()) {
                let why = format!(
                    "curl speaks {scheme}:// to {}: not HTTP (gopher and dict reach internal services with whatever bytes the URL holds)",
                    url_host(&u.text)
                );
                self.found(c, Effect::NotUnderstood, "curl-scheme", &why, "");
            }
        }
        // The method: the last -X wins; else -I, -T, -G, a body.
        let bodies: Vec<(K, &Word)> = line
            .opts
            .iter()
            .filter(|o| matches!(o.kind, K::Body | K::BodyRaw | K::Urlencode | K::Form))
            .filter_map(|o| o.value.as_ref().map(|v| (o.kind, v)))
            .collect();
        let uploads_t: Vec<&Word> = line.values(K::Upload).collect();
        let method = line
            .values(K::Method)
            .last()
            .map(|w| w.text.to_ascii_uppercase())
            .unwrap_or_else(|| {
                if line.has(K::Head) {
                    "HEAD".into()
                } else if !uploads_t.is_empty() {
                    "PUT".into()
                } else if line.has(K::Get) || bodies.is_empty() {
                    "GET".into()
                } else {
                    "POST".into()
                }
            });
        // Files whose content goes out.
        let mut upload_files: Vec<Word> = Vec::new();
        let mut stdin_sent = false;
        for w in &uploads_t {
            if w.text == "-" || w.text == "." {
                stdin_sent = true;
            } else if !globoff && w.text.contains(['{', '[']) {
                gaps.extend(
                    line.opts
                        .iter()
                        .filter(|o| o.value.as_ref() == Some(*w))
                        .map(|o| o.index),
                );
            } else {
                upload_files.push((*w).clone());
            }
        }
        for (k, v) in &bodies {
            if let Some(f) = body_file(*k, &v.text) {
                if f == "-" {
                    stdin_sent = true;
                } else {
                    upload_files.push(Word {
                        text: f.to_owned(),
                        ..(*v).clone()
                    });
                }
            }
        }
        let mut sent_files: Vec<Word> = Vec::new();
        for h in line.values(K::Header) {
            if let Some(f) = h.text.strip_prefix('@') {
                sent_files.push(Word {
                    text: f.to_owned(),
                    ..h.clone()
                });
            }
        }
        sent_files.extend(line.values(K::SendFile).cloned());
        for ck in line.values(K::Cookie) {
            if !ck.text.contains('=') {
                sent_files.push(ck.clone());
            }
        }
        let secret_file = upload_files
            .iter()
            .chain(&sent_files)
            .filter(|w| w.text != "-")
            .map(|w| self.target(w))
            .find(|t| self.carries_credentials(t));
        let secret_upload = secret_file.is_some()
            || stdin_sent && stdin.is_some_and(|f| f.secret)
            || self.words_read_secrets(args);
        // The request goes to the URLs that are not local files.
        let is_file = |u: &Word| g::scheme(&u.text, &default_scheme) == "file";
        let file_only = !urls.is_empty() && urls.iter().all(is_file);
        let all_urls = urls.clone();
        urls.retain(|u| !is_file(u));
        let redirected = line.has(K::Proxy) || line.has(K::Route) || line.has(K::Socket);
        let loopback =
            !urls.is_empty() && !redirected && urls.iter().all(|u| is_loopback_url(&u.text));
        let data_words: Vec<String> = bodies
            .iter()
            .flat_map(|(_, v)| {
                v.text
                    .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        let trade_body = trades(&bodies.iter().map(|(_, v)| *v).collect::<Vec<_>>());
        let payment = match urls.iter().filter_map(|u| payment_url(&u.text)).max() {
            Some(false) if trade_body => Some(true),
            p => p,
        };
        let computed = urls.is_empty() && !args.iter().all(|a| a.literal)
            || urls
                .iter()
                .any(|u| !u.literal && g::authority(&u.text).contains(['$', '`', '*', '?']));
        if secret_upload {
            let what = match &secret_file {
                Some(t) => format!(
                    "curl uploads {}: it sends credentials off the machine",
                    t.shown()
                ),
                None => "curl sends credentials off the machine".to_owned(),
            };
            self.found(c, Effect::Exfiltrate, "exfiltration", &what, "");
        } else if file_only {
            // Only local files are read (judged above).
        } else if urls.is_empty() && !computed {
            // With no URL curl only prints its help or version, or fails.
            self.act(
                c,
                Act::ShellHarmless,
                "harmless",
                "curl without a URL only prints its help or version",
            );
        } else {
            let mut path_words: Vec<String> =
                urls.iter().flat_map(|u| url_path_words(&u.text)).collect();
            path_words.extend(
                line.opts
                    .iter()
                    .filter(|o| o.name == "--request-target")
                    .filter_map(|o| o.value.as_ref())
                    .flat_map(|w| url_path_words(&format!("x{}", w.text))),
            );
            let request = Request {
                method,
                host: urls.first().map(|u| url_host(&u.text)).unwrap_or_default(),
                path_words,
                body_words: data_words,
                loopback,
                payment,
                uploads: !upload_files.is_empty() || stdin_sent,
                executes: false,
                computed,
            };
            self.found(c, Effect::Http(request), "http", "curl", "");
        }
        self.curl_saves(c, &line, &all_urls, leaf, loopback);
        self.curl_local_files(c, &line, &local_reads, &mut gaps);
        self.curl_servers(c, &line, &mut gaps);
        // The value of an option left unread is unread too (`-K ~/.aws/credentials`): the
        // check of unexplained words looks at it.
        let values: Vec<usize> = gaps
            .iter()
            .filter(|&&g| {
                line.opts.iter().any(|o| {
                    o.index == g
                        && o.value
                            .as_ref()
                            .is_some_and(|v| args.get(g + 1).is_some_and(|n| n.text == v.text))
                })
            })
            .map(|g| g + 1)
            .collect();
        gaps.extend(values);
        gaps.sort_unstable();
        gaps.dedup();
        let gaps: Vec<Gap> = gaps
            .into_iter()
            .map(|index| Gap {
                index,
                option: args.get(index).is_some_and(|w| w.text.starts_with('-')),
            })
            .collect();
        let who = Who {
            name: "curl",
            pack: c.place.found.pack,
        };
        self.unaccounted(c.s, who, args, &gaps, from, c.depth);
    }

    /// Where responses are saved: each `-o` and `-O` takes the next URL in order (under
    /// `--output-dir` when given), `--remote-name-all` the rest; the others print.
    fn curl_saves(
        &mut self,
        c: &Handled<'_, '_, '_>,
        line: &g::Line,
        urls: &[Word],
        leaf: &mut Leaf,
        loopback: bool,
    ) {
        let dir = line.values(K::OutputDir).last().cloned();
        let outs: Vec<Option<Word>> = line
            .opts
            .iter()
            .filter_map(|o| match o.kind {
                K::Output => Some(o.value.clone()),
                K::RemoteName => Some(None),
                _ => None,
            })
            .collect();
        let all = line.has(K::RemoteNameAll);
        let mut to_stdout = urls.is_empty() && outs.is_empty();
        let n = urls.len().max(outs.len());
        for i in 0..n {
            let name = match (outs.get(i), urls.get(i)) {
                (Some(Some(w)), _) => Some(w.clone()),
                (Some(None), Some(u)) => Some(remote_name(u)),
                (None, Some(u)) if all => Some(remote_name(u)),
                (Some(None), None) => None,
                (None, _) => {
                    to_stdout = true;
                    None
                }
            };
            let Some(w) = name else { continue };
            if w.text == "-" {
                to_stdout = true;
                continue;
            }
            let w = match &dir {
                Some(d) if !w.text.starts_with('/') => Word {
                    text: format!("{}/{}", d.text.trim_end_matches('/'), w.text),
                    literal: d.literal && w.literal,
                    ..w.clone()
                },
                _ => w,
            };
            let tg = self.target(&w);
            if let Some(p) = &tg.path {
                self.downloaded.push(p.clone());
            }
            // curl writes a file that is already there anew.
            if tg.zone != Zone::Harmless {
                self.found(
                    c,
                    Effect::Write(tg, Some(PathNote::Overwrites)),
                    "write",
                    "",
                    "saves a download to",
                );
            }
        }
        if let Some(d) = &dir
            && !outs.is_empty()
        {
            let tg = self.target(d);
            self.found(
                c,
                Effect::Write(tg, None),
                "write",
                "",
                "saves downloads into",
            );
        }
        if to_stdout && !loopback {
            leaf.produces.download = true;
        }
    }

    /// Local files curl prints (a `-w @FILE` format, a `file://` URL) and writes (headers,
    /// cookies, traces, caches).
    fn curl_local_files(
        &mut self,
        c: &Handled<'_, '_, '_>,
        line: &g::Line,
        local_reads: &[(usize, Word)],
        gaps: &mut Vec<usize>,
    ) {
        // The files of certificates and keys are used, never shown: no read to judge.
        let mut reads: Vec<Word> = Vec::new();
        for o in line.opts.iter().filter(|o| o.kind == K::WriteOut) {
            let Some(v) = &o.value else { continue };
            if let Some(f) = v.text.strip_prefix('@') {
                if f != "-" {
                    reads.push(Word {
                        text: f.to_owned(),
                        ..v.clone()
                    });
                }
            } else if v.text.contains("%output{") || !v.literal {
                // `%output{FILE}` writes a file; a computed format may.
                gaps.push(o.index);
            }
        }
        reads.extend(local_reads.iter().map(|(_, w)| w.clone()));
        for w in &reads {
            let tg = self.target(w);
            if tg.zone != Zone::Harmless {
                self.found(c, Effect::Read(tg), "read", "", "curl reads");
            }
        }
        for w in line.values(K::WriteFile) {
            if w.text == "-" || w.text == "%" {
                continue;
            }
            let tg = self.target(w);
            if tg.zone != Zone::Harmless {
                let note = Some(PathNote::Overwrites);
                self.found(c, Effect::Write(tg, note), "write", "", "curl writes");
            }
        }
    }

    /// Servers curl talks to another way: FTP and SFTP commands (`-Q`), a daemon's socket.
    fn curl_servers(&mut self, c: &Handled<'_, '_, '_>, line: &g::Line, gaps: &mut Vec<usize>) {
        for o in line.opts.iter().filter(|o| o.kind == K::Quote) {
            let Some(v) = &o.value else { continue };
            match g::quote(&v.text) {
                _ if !v.literal => gaps.push(o.index),
                Quote::Reads => {}
                Quote::Changes => self.act(
                    c,
                    Act::RemoteChange,
                    "curl-ftp-command",
                    &format!("curl sends `{}`: it changes files on the server", v.text),
                ),
                Quote::Destroys => self.act(
                    c,
                    Act::RemoteDestroy,
                    "curl-ftp-command",
                    &format!(
                        "curl sends `{}`: it deletes or renames files on the server",
                        v.text
                    ),
                ),
                Quote::Unknown => gaps.push(o.index),
            }
        }
        for o in line.opts.iter().filter(|o| o.kind == K::Socket) {
            let Some(v) = &o.value else { continue };
            let l = v.text.to_ascii_lowercase();
            if [
                "docker.sock",
                "podman.sock",
                "containerd.sock",
                "dockershim.sock",
            ]
            .iter()
            .any(|s| l.contains(s))
                || !v.literal
            {
                self.act(
                    c,
                    Act::ContainerPrivileged,
                    "curl-docker-socket",
                    &format!(
                        "curl talks to the container engine through {}: whoever holds that socket is root on the host",
                        v.text
                    ),
                );
            } else {
                gaps.push(o.index);
            }
        }
    }
}

/// Returns the file a body option reads: `@FILE` (`--data`, `--data-binary`, `--json`,
/// `--data-urlencode`), `name@FILE` (`--data-urlencode`, `--url-query`), `name=@FILE` and
/// `name=<FILE` (`-F`); `--data-raw` and `--form-string` read none.
fn body_file(k: K, v: &str) -> Option<&str> {
    let f = match k {
        K::Body => v.strip_prefix('@'),
        K::Urlencode => v.strip_prefix('@').or_else(|| {
            let i = v.find('@')?;
            (!v[..i].contains('=')).then(|| &v[i + 1..])
        }),
        K::Form => {
            let (_, rest) = v.split_once('=')?;
            rest.strip_prefix('@').or_else(|| rest.strip_prefix('<'))
        }
        _ => None,
    }?;
    Some(f.split(';').next().unwrap_or(f))
}

/// Returns the name `-O` saves a URL's response under: its last path segment, else
/// `curl_response`.
fn remote_name(u: &Word) -> Word {
    let name = url_file_name(&u.text);
    Word {
        text: if name == "index.html" && !u.text.ends_with("index.html") {
            "curl_response".to_owned()
        } else {
            name
        },
        literal: u.literal,
        ..Word::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_options_name_the_files_they_read() {
        assert_eq!(body_file(K::Body, "@data.json"), Some("data.json"));
        assert_eq!(body_file(K::Body, "a=@b"), None);
        assert_eq!(body_file(K::BodyRaw, "@data.json"), None);
        assert_eq!(body_file(K::Urlencode, "name@file"), Some("file"));
        assert_eq!(body_file(K::Urlencode, "email=a@b"), None);
        assert_eq!(
            body_file(K::Form, "f=@x.pdf;type=application/pdf"),
            Some("x.pdf")
        );
        assert_eq!(body_file(K::Form, "f=<x.txt"), Some("x.txt"));
        assert_eq!(body_file(K::Form, "f=value"), None);
    }
}
