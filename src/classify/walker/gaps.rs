//! Words no rule accounts for (issue 41): the command is only partly understood, which is
//! never allowed, and each such word is checked, whatever the program does with it, for what
//! a person must see: a protected path, a credential file or variable, the home folder, `/` or
//! a system folder, a cloud metadata address, or shell code.

use crate::shell::{Simple, Word};

use super::super::effect::{Effect, Exposed};
use super::super::pack::account::Gap;
use super::super::paths::{self, Zone};
use super::super::policy;
use super::super::{Domain, Kind, Risk};
use super::Walker;

/// The command a gap is in, as explanations name it, and the pack that describes it.
#[derive(Clone, Copy)]
pub(super) struct Who<'a> {
    pub name: &'a str,
    pub pack: &'a str,
}

impl Walker<'_> {
    /// Pushes, for a command some of whose words no rule accounts for, the finding that it
    /// is partly understood (in the domain of the worst finding the command made so far,
    /// from `from` on) and what the check of each such word finds.
    pub(super) fn unaccounted(
        &mut self,
        s: &Simple,
        who: Who<'_>,
        args: &[Word],
        gaps: &[Gap],
        from: usize,
        depth: usize,
    ) {
        let Who { name, pack } = who;
        if gaps.is_empty() {
            return;
        }
        // A program no pack describes is partly understood already: its words are checked.
        let said = self.out.items[from.min(self.out.items.len())..]
            .iter()
            .any(|(_, f)| f.kind == Kind::PartlyUnderstood);
        if said {
            for g in gaps {
                if let Some(w) = args.get(g.index) {
                    let why = format!("`{name}`");
                    self.check_word(s, w, &why, depth);
                }
            }
            return;
        }
        let program = name.split(' ').next().unwrap_or(name);
        let words = runs(args, gaps)
            .into_iter()
            .map(|r| shown(program, &r))
            .collect();
        let explain = if gaps.iter().all(|g| g.option) {
            format!("`{name}` with options the {pack} pack does not describe")
        } else {
            format!("`{name}` with words no rule of the {pack} pack reads")
        };
        let found = &self.out.items[from.min(self.out.items.len())..];
        let f = self.own(
            &Effect::Unexplained(words),
            "partly-understood",
            &explain,
            "",
        );
        let mut f = policy::beside(f, found.iter().map(|(_, f)| f));
        if self.ctx.details() {
            f.source = Some(format!("{pack}: {name} (words no rule accounts for)"));
        }
        self.push(&s.text, f);
        for g in gaps {
            if let Some(w) = args.get(g.index) {
                self.check_word(s, w, &explain, depth);
            }
        }
    }

    /// Holds the credentials and protected paths among the words a pack accounts for as data
    /// (options and their values, data a rule takes): a second net, whatever the program.
    pub(super) fn data_words(&mut self, s: &Simple, name: &str, args: &[Word], data: &[usize]) {
        for &i in data {
            let Some(w) = args.get(i) else { continue };
            if let Some(
                e @ (Exposed::Protected(_) | Exposed::Credential(_) | Exposed::Metadata(_)),
            ) = self.exposed(w)
            {
                let explain = format!("`{name}` takes it as data");
                let f = self.own(&Effect::Exposes(e), "unexplained", &explain, "");
                self.push(&s.text, f);
            }
        }
    }

    /// The net under the handlers (programs whose words a handler reads rather than the
    /// pack's roles, which the accounting nets): a word (an argument, an option's value
    /// after `=` or glued to it) that names a path oath protects, or a folder of the project
    /// or the home that holds one, which the handler never read as a path (judged by an
    /// effect, or looked at: paths the walker resolved from `mark` on) is held, whatever the
    /// program (a database file, an operand the handler takes for something else).
    pub(super) fn unjudged_protected(&mut self, s: &Simple, words: &[Word], mark: usize) {
        for w in words {
            if !w.literal && (w.text.contains(['$', '`']) || !w.subs.is_empty()) {
                continue;
            }
            let text = w.text.as_str();
            let mut candidates = vec![text];
            if let Some((_, v)) = text.split_once('=') {
                candidates.push(v);
            }
            if let Some(glued) = text.strip_prefix('-').and_then(|r| r.get(1..))
                && !text.starts_with("--")
                && glued.starts_with(['.', '/', '~'])
            {
                candidates.push(glued);
            }
            for c in candidates {
                if c.is_empty() || c.contains("://") || !path_like(c) {
                    continue;
                }
                let resolved = paths::resolve(c, !w.literal, self.cwd.as_deref(), self.ctx);
                let t = paths::target(resolved, self.ctx);
                let Some(p) = t.path.as_deref() else { continue };
                let holds = t.holds_protected
                    && !t.is_home()
                    && (t.in_project() || matches!(t.zone, Zone::Home | Zone::HomeTop));
                if !t.protected && !holds {
                    continue;
                }
                let seen = self
                    .judged
                    .borrow()
                    .get(mark..)
                    .is_some_and(|j| j.iter().any(|j| paths::path_is_under(j, p)));
                if seen {
                    continue;
                }
                let name = s.words.first().map_or("", |n| n.text.as_str());
                let explain =
                    format!("`{name}` gives it a role that says nothing of what happens to it");
                let f = self.own(
                    &Effect::Exposes(Exposed::Protected(t)),
                    "unexplained",
                    &explain,
                    "",
                );
                self.push(&s.text, f);
                break;
            }
        }
    }

    /// Checks one word no rule accounts for and pushes what it names that a person must see.
    pub(super) fn check_word(&mut self, s: &Simple, w: &Word, explain: &str, depth: usize) {
        if let Some(e) = self.exposed(w) {
            let f = self.own(&Effect::Exposes(e), "unexplained", explain, "");
            self.push(&s.text, f);
            return;
        }
        if w.literal {
            self.code_in(s, &w.text, explain, depth);
        }
    }

    /// Returns what a word names that a person must see, whatever the program does with it:
    /// the word itself, what follows an option's `=`, or a file named after `@`.
    fn exposed(&self, w: &Word) -> Option<Exposed> {
        let text = w.text.as_str();
        if !w.literal
            && let Some(v) = secret_variables(text).into_iter().next()
        {
            return Some(Exposed::SecretVariable(v));
        }
        let mut candidates = vec![text];
        if let Some((_, v)) = text.split_once('=') {
            candidates.push(v);
        }
        for c in candidates.clone() {
            // A file named after `@` (curl, httpie) or as a `file://` URL (aws, gcloud).
            for prefix in ["@", "file://", "fileb://"] {
                if let Some(f) = c.strip_prefix(prefix) {
                    candidates.push(f);
                }
            }
        }
        for c in candidates {
            if let Some(h) = metadata_host(c) {
                return Some(Exposed::Metadata(h));
            }
            // A bare word (`secret`, `get-token`) is a name, not a file: only a word written
            // as a path is looked up.
            if !w.literal
                || c.is_empty()
                || c.starts_with('-')
                || c.contains("://")
                || !path_like(c)
            {
                continue;
            }
            let t = self.target(&Word::lit(c));
            if t.path.is_none() {
                continue;
            }
            if t.protected {
                return Some(Exposed::Protected(t));
            }
            // A credential says more than the place it lies in (another user's home, /root,
            // /etc): it is what a person must see.
            if t.credential {
                return Some(Exposed::Credential(t));
            }
            match t.zone {
                Zone::HomeTop => return Some(Exposed::Home(t)),
                Zone::Root | Zone::Device | Zone::OtherHome => return Some(Exposed::System(t)),
                Zone::System if system_folder(c) => return Some(Exposed::System(t)),
                _ => {}
            }
            if t.holds_protected {
                return Some(Exposed::Protected(t));
            }
            if t.account_db {
                return Some(Exposed::Credential(t));
            }
        }
        None
    }

    /// Pushes what shell code in a word finds, judged as if it ran: a catastrophic finding
    /// as it is (denied), anything held, or code that runs a program a pack describes, as a
    /// word a person looks at.
    fn code_in(&mut self, s: &Simple, text: &str, explain: &str, depth: usize) {
        let markers = ["; ", ";", "|", "&&", "$(", "`", "\n", ">"]
            .iter()
            .any(|m| text.contains(m));
        let spaced = text.trim().contains(' ');
        if !markers && !spaced {
            return;
        }
        let mut inner = Walker::new(self.ctx);
        inner.cwd.clone_from(&self.cwd);
        inner.cd_searches = self.cd_searches;
        inner.line(text, depth + 1);
        let c = inner.out.into_classification();
        let real = c.parts.iter().any(|p| {
            p.domain != Domain::Unknown
                && p.kind != Kind::PartlyUnderstood
                && p.rule != "unknown-program"
                && p.risk > Risk::Low
        });
        if c.kind == Kind::Catastrophic {
            let mut f = policy::carried(
                c.domain,
                c.risk,
                c.kind,
                c.rule.clone(),
                format!(
                    "{explain}: a word oath cannot place holds code that {}",
                    c.reason
                ),
            );
            f.alternative = c.alternative.clone().map(Into::into);
            self.push(&s.text, f);
        } else if c.kind >= Kind::NotUnderstood || c.risk >= Risk::High || markers && real {
            let f = self.own(
                &Effect::Exposes(Exposed::Code(c.reason)),
                "unexplained",
                explain,
                "",
            );
            self.push(&s.text, f);
        }
    }
}

/// Returns whether a word is written as a path: with a folder, from the home, relative with
/// a dot, or a file name with an extension.
fn path_like(t: &str) -> bool {
    t.contains('/')
        || t.starts_with('~')
        || t.starts_with('.')
        || t.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// Returns whether a path is a system folder itself or lies in one whose files configure the
/// machine (`/etc`, `/boot`).
fn system_folder(t: &str) -> bool {
    let t = t.trim_end_matches('/');
    t.matches('/').count() <= 1 || t.starts_with("/etc") || t.starts_with("/boot")
}

/// Returns the host of a cloud metadata address a word names, if it names one.
fn metadata_host(t: &str) -> Option<String> {
    let host = super::super::url::url_host(t);
    // A bare word is a host only when it reads as an address (`metadata` alone is a word).
    if host.is_empty() && !t.contains(['.', ':']) {
        return None;
    }
    let host = if host.is_empty() { t } else { host.as_str() };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let named = host.starts_with("169.254.")
        || matches!(
            host,
            "metadata.google.internal" | "metadata" | "fd00:ec2::254" | "100.100.100.200"
        );
    named.then(|| host.to_owned())
}

/// Returns the variables a word expands (`$NAME`, `${NAME}`) whose names say they hold a
/// secret.
fn secret_variables(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let braced = rest.strip_prefix('{');
        let body = braced.unwrap_or(rest);
        let end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let name = &body[..end];
        if secret_name(name) {
            out.push(name.to_owned());
        }
        rest = &body[end..];
    }
    out
}

/// Returns whether a variable's name says it holds a secret.
fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    if n.is_empty() || matches!(n.as_str(), "PWD" | "OLDPWD" | "SSH_AUTH_SOCK" | "GPG_TTY") {
        return false;
    }
    if n.ends_with("_KEY_ID") {
        return false;
    }
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "ACCESS_KEY",
    ]
    .iter()
    .any(|k| n.contains(k))
        || n.ends_with("_KEY")
        || n.ends_with("_DSN")
        || n.ends_with("DATABASE_URL")
}

/// Returns the unaccounted words as runs: neighbours in the command are one run, as they
/// were written (`set aws_secret_access_key VALUE`), so that what the run says is read as
/// the command says it, by a person and by the redaction of what oath writes.
fn runs(args: &[Word], gaps: &[Gap]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<usize> = None;
    for g in gaps {
        let Some(w) = args.get(g.index) else { continue };
        match out.last_mut() {
            Some(run) if last.is_some_and(|l| l + 1 == g.index) => {
                run.push(' ');
                run.push_str(&w.text);
            }
            _ => out.push(w.text.clone()),
        }
        last = Some(g.index);
    }
    out
}

/// Returns a run of a program's words as oath shows and writes it: redacted as the words of
/// that program are (`-pPASSWORD` is a password to mysql, not in general).
pub(super) fn shown(program: &str, run: &str) -> String {
    let whole = format!("{program} {run}");
    match crate::redact::redact_str(&whole) {
        std::borrow::Cow::Borrowed(_) => run.to_owned(),
        std::borrow::Cow::Owned(r) => r
            .strip_prefix(program)
            .map(|r| r.trim_start().to_owned())
            .unwrap_or(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_variables_table() {
        for (t, want) in [
            ("$GITHUB_TOKEN", vec!["GITHUB_TOKEN"]),
            ("a${AWS_SECRET_ACCESS_KEY}b", vec!["AWS_SECRET_ACCESS_KEY"]),
            ("$HOME/x", vec![]),
            ("$PWD", vec![]),
            ("$AWS_ACCESS_KEY_ID", vec![]),
            (
                "$STRIPE_KEY $DATABASE_URL",
                vec!["STRIPE_KEY", "DATABASE_URL"],
            ),
        ] {
            assert_eq!(secret_variables(t), want, "{t}");
        }
    }

    #[test]
    fn metadata_hosts_table() {
        for (t, want) in [
            ("http://169.254.169.254/latest/meta-data", true),
            ("169.254.170.2", true),
            ("http://metadata.google.internal/x", true),
            ("http://[fd00:ec2::254]/", true),
            ("https://example.com", false),
            ("10.0.0.1", false),
        ] {
            assert_eq!(metadata_host(t).is_some(), want, "{t}");
        }
    }
}
