//! Handlers for requests to other systems: HTTP clients (method, body, uploads, where a
//! download is saved); curl has a grammar of its own (`net/curl.rs`).

mod curl;
mod curl_grammar;

use crate::shell::Word;

use super::super::args::scan;
use super::super::effect::{Effect, Exposed, Request};
use super::super::pack;
use super::super::pack::schema::PathNote;
use super::super::paths::Zone;
use super::super::url::{
    is_loopback_url, is_metadata_url, metadata_finding, payment_url, url_file_name, url_host,
    url_path_words,
};
use super::apply::Handled;
use super::gaps::Who;
use super::{Leaf, Walker};

/// wget's options that take a value.
const WGET_VALUED: &[&str] = &[
    "-O",
    "--output-document",
    "-P",
    "--directory-prefix",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
    "-i",
    "--input-file",
    "--header",
    "-o",
    "--output-file",
    "-a",
    "--append-output",
    "-U",
    "--user-agent",
    "--user",
    "--password",
    "-e",
    "--execute",
    "-T",
    "--timeout",
    "-t",
    "--tries",
    "-w",
    "--wait",
    "-l",
    "--level",
    "-A",
    "-R",
    "--accept",
    "--reject",
    "-D",
    "--domains",
    "--load-cookies",
    "--save-cookies",
];

/// Options that carry a request body.
const BODY: &[&str] = &[
    "-d",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--data-ascii",
    "--json",
    "-F",
    "--form",
    "--post-data",
    "--body-data",
];

impl Walker<'_> {
    /// HTTP clients: the request's method, URL, body and uploads; where the response goes.
    pub(super) fn h_http(&mut self, c: &Handled<'_, '_, '_>, leaf: &mut Leaf) {
        // A secret variable expanded into what is sent (a header, a body, a user, the URL)
        // goes to whichever host the request reaches: a person looks at it.
        if let Some(v) = c
            .args()
            .iter()
            .filter(|a| !a.literal)
            .find_map(|a| super::super::secret_vars::secret_in(&a.text))
        {
            let why = format!("{} sends ${v}, a variable that holds a secret", c.name);
            self.found(
                c,
                Effect::Exposes(Exposed::SecretVariable(v.to_owned())),
                "unexplained",
                &why,
                "",
            );
        }
        if c.name == "curl" {
            return self.h_curl(c, leaf);
        }
        let from = self.out.items.len();
        let (name, args, stdin) = (c.name, c.args(), c.stdin);
        let is_wget = name == "wget";
        let sc = if is_wget {
            scan(args, WGET_VALUED, false)
        } else {
            scan(
                args,
                &["-o", "--output", "-a", "--auth", "-d", "--dir"],
                false,
            )
        };
        let mut urls: Vec<String> = sc.pos.iter().map(|w| w.text.clone()).collect();
        // Every address the request may reach: its URLs (any positional word of httpie's),
        // a proxy, and the addresses `--resolve` and `--connect-to` put behind a name.
        let reaches_metadata = urls.iter().any(|u| is_metadata_url(u))
            || sc
                .values(&["-e", "--execute"])
                .any(|w| is_metadata_url(&w.text));
        if reaches_metadata {
            let f = metadata_finding(&format!("{name} fetches from"));
            self.push(c.t(), f);
        }
        if !is_wget {
            // httpie: `http [METHOD] URL [items]`
            urls.retain(|u| {
                u.contains('.')
                    || u.contains("://")
                    || u.starts_with(':')
                    || u.starts_with("localhost")
            });
            urls.truncate(1);
        }
        // wget takes the last --method.
        let method = sc
            .values(&["--method"])
            .last()
            .map(|w| w.text.to_ascii_uppercase())
            .or_else(|| {
                if is_wget {
                    return None;
                }
                sc.pos
                    .first()
                    .map(|w| w.text.to_ascii_uppercase())
                    .filter(|m| {
                        matches!(
                            m.as_str(),
                            "POST" | "PUT" | "PATCH" | "DELETE" | "GET" | "HEAD"
                        )
                    })
            });
        let data_vals: Vec<&Word> = sc.values(BODY).collect();
        // wget's -T is a timeout.
        let upload_opts: &[&str] = if is_wget {
            &["--post-file", "--body-file"]
        } else {
            &["-T", "--upload-file", "--post-file", "--body-file"]
        };
        let mut upload_files: Vec<Word> = sc.values(upload_opts).cloned().collect();
        // Files whose content goes out without being an upload of them: the URLs wget
        // requests (`-i FILE`).
        let input_files: Vec<Word> = if is_wget {
            sc.values(&["-i", "--input-file"]).cloned().collect()
        } else {
            Vec::new()
        };
        let sent_files = input_files.clone();
        // httpie and xh: `@FILE` (the body), `field@FILE` (a form upload), `field=@FILE`,
        // `field:=@FILE`, `Header:@FILE` (values read from the file).
        if !is_wget {
            for w in &sc.pos {
                if let Some(f) = httpie_file(&w.text) {
                    upload_files.push(Word {
                        text: f.to_owned(),
                        ..(*w).clone()
                    });
                }
            }
        }
        let urlencoded: Vec<&Word> = sc.values(&["--data-urlencode"]).collect();
        for v in &data_vals {
            let x = v.text.as_str();
            let named_file = urlencoded.iter().any(|u| std::ptr::eq(*u, *v))
                && x.find('@').is_some_and(|i| !x[..i].contains('='));
            let file = if let Some(f) = x.strip_prefix('@') {
                Some(f)
            } else if let Some(i) = x.find("=@") {
                Some(&x[i + 2..])
            } else if named_file {
                x.find('@').map(|i| &x[i + 1..])
            } else {
                x.find("=<").map(|i| &x[i + 2..])
            };
            if let Some(f) = file {
                let f = f.split(';').next().unwrap_or(f);
                upload_files.push(Word {
                    text: f.to_owned(),
                    ..(*v).clone()
                });
            }
        }
        let sends_data = !data_vals.is_empty() || !upload_files.is_empty();
        let trade_body = trades(&data_vals);
        let payment = match urls.iter().filter_map(|u| payment_url(u)).max() {
            Some(false) if trade_body => Some(true),
            p => p,
        };
        let method = method.unwrap_or_else(|| {
            if sends_data {
                "POST".into()
            } else {
                "GET".into()
            }
        });
        let secret_file = upload_files
            .iter()
            .chain(&sent_files)
            .filter(|w| w.text != "-")
            .map(|w| self.target(w))
            .find(|t| self.carries_credentials(t));
        let secret_upload = secret_file.is_some()
            || upload_files
                .iter()
                .any(|w| w.text == "-" && stdin.is_some_and(|f| f.secret))
            || self.words_read_secrets(args);
        let loopback = !urls.is_empty() && urls.iter().all(|u| is_loopback_url(u));
        // Where the downloads go: wget saves every URL under its name (in -P's folder) unless
        // the last -O names one file for all; httpie saves nothing unless -o.
        let dir = sc.values(&["-P", "--directory-prefix"]).last().cloned();
        let out_files: Vec<Word> = if is_wget && sc.has(&["--spider"]) {
            Vec::new()
        } else if is_wget {
            match sc.values(&["-O", "--output-document"]).last() {
                Some(w) if w.text == "-" => Vec::new(),
                Some(w) => vec![w.clone()],
                None => urls
                    .iter()
                    .map(|u| {
                        let name = url_file_name(u);
                        Word::lit(match &dir {
                            Some(d) => format!("{}/{name}", d.text.trim_end_matches('/')),
                            None => name,
                        })
                    })
                    .collect(),
            }
        } else {
            sc.value(&["-o", "--output"]).cloned().into_iter().collect()
        };
        // wgetrc commands (`-e`): only settings that change how, not what, wget fetches.
        let executes = is_wget
            && sc
                .values(&["-e", "--execute"])
                .any(|w| !w.literal || !wgetrc_harmless(&w.text));
        if secret_upload {
            let what = match &secret_file {
                Some(t) => format!(
                    "{name} uploads {}: it sends credentials off the machine",
                    t.shown()
                ),
                None => format!("{name} sends credentials off the machine"),
            };
            self.found(c, Effect::Exfiltrate, "exfiltration", &what, "");
        } else {
            let request = Request {
                method,
                host: urls.first().map(|u| url_host(u)).unwrap_or_default(),
                path_words: urls.iter().flat_map(|u| url_path_words(u)).collect(),
                body_words: data_vals
                    .iter()
                    .flat_map(|v| {
                        v.text
                            .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
                            .filter(|w| !w.is_empty())
                            .map(str::to_owned)
                            .collect::<Vec<_>>()
                    })
                    .collect(),
                loopback,
                payment,
                uploads: !upload_files.is_empty(),
                executes,
                // The URLs of `-i FILE` are read at run time.
                computed: urls.is_empty() && !args.iter().all(|a| a.literal)
                    || !input_files.is_empty(),
            };
            self.found(c, Effect::Http(request), "http", name, "");
        }
        if out_files.is_empty() && !loopback {
            leaf.produces.download = true;
        }
        // wget saves a file that is already there as `name.1`, unless told one file (`-O`)
        // or to refresh what it mirrors; httpie's `-o` writes the file anew.
        let replaces = !is_wget
            || sc.has(&[
                "-O",
                "--output-document",
                "-N",
                "--timestamping",
                "-r",
                "--recursive",
                "-p",
                "--page-requisites",
                "-m",
                "--mirror",
            ]) && !args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-nc" | "--no-clobber"));
        let note = replaces.then_some(PathNote::Overwrites);
        for w in out_files.iter().filter(|w| !w.text.is_empty()) {
            {
                let tg = self.target(w);
                if let Some(p) = &tg.path {
                    self.downloaded.push(p.clone());
                }
                if tg.zone != Zone::Harmless {
                    self.found(
                        c,
                        Effect::Write(tg, note),
                        "write",
                        "",
                        "saves a download to",
                    );
                }
            }
        }
        for dir in sc.values(&["-P", "--directory-prefix"]) {
            let tg = self.target(dir);
            self.found(
                c,
                Effect::Write(tg, None),
                "write",
                "",
                "saves downloads into",
            );
        }
        if is_wget {
            // Log files (`-o` anew, `-a` appended to) and the cookies saved.
            for (names, note) in [
                (
                    &["-o", "--output-file", "--save-cookies"][..],
                    Some(PathNote::Overwrites),
                ),
                (&["-a", "--append-output"][..], None),
            ] {
                for f in sc.values(names) {
                    let tg = self.target(f);
                    if tg.zone != Zone::Harmless {
                        self.found(c, Effect::Write(tg, note), "write", "", "writes");
                    }
                }
            }
        }
        // The pack's option lists answer for wget's and httpie's options.
        let chain: Vec<_> = c.place.d.levels.iter().map(|l| l.entry).collect();
        let gaps = pack::account::unknown_options(&chain, &c.level.own);
        let who = Who {
            name,
            pack: c.place.found.pack,
        };
        self.unaccounted(c.s, who, args, &gaps, from, c.depth);
    }
}

/// Returns whether a request body buys or sells (an order that is a trade).
fn trades(vals: &[&Word]) -> bool {
    vals.iter().any(|v| {
        let l = v.text.to_ascii_lowercase();
        l.split(|ch: char| !ch.is_ascii_alphanumeric())
            .any(|w| matches!(w, "buy" | "sell" | "bid" | "ask"))
    })
}

/// Returns whether a wgetrc command given with `-e` only changes how wget fetches (retries,
/// timeouts, robots, output verbosity, certificate checks), not what it fetches, where it
/// saves or what it runs. wget ignores case, `_` and `-` in the names.
fn wgetrc_harmless(cmd: &str) -> bool {
    let Some((name, value)) = cmd.split_once('=') else {
        return false;
    };
    let name: String = name
        .trim()
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        name.as_str(),
        "robots"
            | "tries"
            | "timeout"
            | "readtimeout"
            | "connecttimeout"
            | "dnstimeout"
            | "wait"
            | "waitretry"
            | "randomwait"
            | "quiet"
            | "verbose"
            | "progress"
            | "showprogress"
            | "checkcertificate"
            | "dotstyle"
            | "maxredirect"
            | "retryconnrefused"
            | "limitrate"
            | "inet4only"
            | "inet6only"
            | "httpsonly"
            | "noclobber"
    ) && !value.contains(['$', '`'])
}

/// Returns the file an httpie or xh request item reads: `@FILE` (the body), `field@FILE`
/// (a form upload), `field=@FILE` and `field:=@FILE` (a value read from it),
/// `Header:@FILE`. The first separator decides (`email=a@b` is a plain value).
fn httpie_file(item: &str) -> Option<&str> {
    if let Some(f) = item.strip_prefix('@') {
        return Some(f);
    }
    let i = item.find([':', '=', '@'])?;
    let rest = &item[i..];
    if let Some(f) = rest.strip_prefix('@') {
        return Some(f);
    }
    rest.strip_prefix("=@")
        .or_else(|| rest.strip_prefix(":=@"))
        .or_else(|| rest.strip_prefix(":@"))
        .filter(|f| !f.is_empty())
}

/// Splits `--resolve HOST:PORT:ADDR[,ADDR]` and `--connect-to H1:P1:H2:P2` into their
/// hosts and addresses (bracketed IPv6 kept whole, a leading `+` or `-` dropped).
fn host_fields(v: &str) -> Vec<String> {
    let v = v.trim_start_matches(['+', '-']);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut bracket = false;
    for ch in v.chars() {
        match ch {
            '[' => {
                bracket = true;
                cur.push(ch);
            }
            ']' => {
                bracket = false;
                cur.push(ch);
            }
            ':' | ',' if !bracket => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}
