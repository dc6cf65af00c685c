//! Passwords given on a command line by option, per command (`mysql -pSECRET`, `redis-cli -a
//! SECRET`, `docker login -p SECRET`, `htpasswd -b file user SECRET`): the option rules of
//! `rules.yaml`. A command named anywhere in a shell command (after `sudo`, `docker exec … --`,
//! a pipe) makes its rules apply to the words after it, up to the end of that command (`;`,
//! `&&`, `|`, a line break, a parenthesis or backquote).

use super::MASK;
use super::engine::Masked;
use super::table::{OPTION_COMMANDS, OPTION_RULES, OptionRule, OptionValue};

/// One word of a command: where it is, and its text without its quotes.
#[derive(Clone, Copy)]
struct Word<'a> {
    /// Start and end of the text inside the quotes (the whole word when unquoted).
    start: usize,
    end: usize,
    text: &'a str,
}

/// Returns the rules of a command word (`/usr/bin/mysql` is `mysql`, and so is `:"mysql` in
/// JSON text).
fn rules_of(word: &str) -> u64 {
    let base = word
        .rsplit(['/', '"', '\'', ':', '=', '{', '[', ','])
        .next()
        .unwrap_or(word);
    if base.is_empty() || base.len() > 24 {
        return 0;
    }
    OPTION_COMMANDS
        .binary_search_by(|(c, _)| (*c).cmp(base))
        .map_or(0, |i| OPTION_COMMANDS[i].1)
}

/// The rules in a bit set (bit `i` for `OPTION_RULES[i]`).
fn each(mask: u64) -> impl Iterator<Item = &'static OptionRule> {
    OPTION_RULES
        .iter()
        .enumerate()
        .filter(move |(i, _)| mask & (1 << i) != 0)
        .map(|(_, r)| r)
}

/// Masks passwords given by option to the commands of the rule table.
pub(super) fn redact_options(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Masked::new(s);
    // The rules of the commands seen in this command, those whose `after` word was seen, and
    // those whose password is the command's last word.
    let mut active = 0u64;
    let mut after_seen = 0u64;
    let mut last_pending = false;
    let mut last_word: Option<Word<'_>> = None;
    // The rule whose value is the next word, and how.
    let mut pending: Option<&OptionRule> = None;
    let mut i = 0;
    let end_command = |out: &mut Masked<'_>, last_pending: bool, last_word: Option<Word<'_>>| {
        if last_pending
            && let Some(w) = last_word
            && maskable(w.text)
        {
            out.replace(w.start, w.end, MASK);
        }
    };
    while i < bytes.len() {
        let c = bytes[i];
        // A line break escaped in JSON text (`\n`) ends a command too, and so does the end of
        // a JSON string (`"` then `,`, `}`, `]` or `:`).
        let escaped_break = c == b'\\' && matches!(bytes.get(i + 1), Some(b'n' | b'r'));
        if escaped_break
            || json_string_end(bytes, i)
            || matches!(c, b';' | b'&' | b'|' | b'\n' | b'(' | b')' | b'`')
        {
            end_command(&mut out, last_pending, last_word);
            (active, after_seen, last_pending, last_word, pending) = (0, 0, false, None, None);
            i += 1 + usize::from(escaped_break);
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Quotes group the words of an option's value (`-p 'a b'`); elsewhere they may hold
        // a whole command (`sh -c "mysql -pX"`, a JSON string), whose words are read one by one.
        let word = read_word(s, i, pending.is_some());
        i = word.next;
        let w = word.word;
        if let Some(rule) = pending.take() {
            mask_value(&mut out, s, rule, w);
            last_word = Some(w);
            continue;
        }
        last_word = Some(w);
        let new = rules_of(w.text);
        if new != 0 {
            active |= new;
            after_seen &= !new;
            continue;
        }
        if active == 0 {
            continue;
        }
        for rule in each(active) {
            if let Some(after) = rule.after {
                if w.text == after {
                    after_seen |= rules_bit(rule);
                }
                if after_seen & rules_bit(rule) == 0 {
                    continue;
                }
            }
            let glued = w.text.len() > rule.option.len()
                && w.text.starts_with(rule.option)
                && !w.text.starts_with("--");
            match rule.value {
                OptionValue::Glued | OptionValue::Both if glued => {
                    let from = w.start + rule.option.len();
                    if maskable(&s[from..w.end]) {
                        out.replace(from, w.end, MASK);
                    }
                }
                OptionValue::Spaced | OptionValue::Both | OptionValue::UserPass
                    if w.text == rule.option =>
                {
                    pending = Some(rule);
                }
                OptionValue::Last => {
                    let letter = rule.option.as_bytes()[1];
                    let cluster = w.text.len() >= 2
                        && w.text.as_bytes()[0] == b'-'
                        && w.text.as_bytes()[1] != b'-'
                        && w.text[1..].bytes().all(|b| b.is_ascii_alphabetic());
                    if cluster && w.text.as_bytes().contains(&letter) {
                        last_pending = true;
                    }
                }
                _ => {}
            }
        }
    }
    end_command(&mut out, last_pending, last_word);
    out.finish()
}

fn rules_bit(rule: &OptionRule) -> u64 {
    OPTION_RULES
        .iter()
        .position(|r| std::ptr::eq(r, rule))
        .map_or(0, |i| 1 << i)
}

/// Masks the value word of a spaced option (after its `prefix`, or after the user name).
fn mask_value(out: &mut Masked<'_>, s: &str, rule: &OptionRule, w: Word<'_>) {
    let from = match (rule.value, rule.prefix) {
        (_, Some(prefix)) if w.text.starts_with(prefix) => w.start + prefix.len(),
        (_, Some(_)) => return,
        (OptionValue::UserPass, None) => match w.text.find([':', '%']) {
            Some(sep) if sep > 0 => w.start + sep + 1,
            _ => return,
        },
        _ if w.text.starts_with('-') => return,
        _ => w.start,
    };
    if maskable(&s[from..w.end]) {
        out.replace(from, w.end, MASK);
    }
}

/// Whether a value is a password to mask (not empty, not a variable, not already masked).
fn maskable(v: &str) -> bool {
    !v.is_empty() && !v.starts_with('$') && !v.starts_with(MASK)
}

/// Whether the `"` at `i` closes a JSON string (a `,`, `}`, `]` or `:` follows it).
fn json_string_end(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'"' && matches!(bytes.get(i + 1), Some(b',' | b'}' | b']' | b':'))
}

/// A word read at a position, and where the scan goes on.
struct ReadWord<'a> {
    word: Word<'a>,
    next: usize,
}

/// Reads the word at `i`: up to whitespace, a command separator or the end of a JSON string;
/// when `quoted`, a word opening with a quote goes to its closing quote, and its text is what
/// the quotes hold.
fn read_word(s: &str, i: usize, quoted: bool) -> ReadWord<'_> {
    let bytes = s.as_bytes();
    let quote = (quoted && matches!(bytes[i], b'"' | b'\'')).then_some(bytes[i]);
    if let Some(q) = quote {
        let start = i + 1;
        let mut k = start;
        while k < bytes.len() && bytes[k] != q {
            if bytes[k] == b'\\' && q == b'"' {
                k += 1;
            }
            k += 1;
        }
        let end = k.min(bytes.len());
        return ReadWord {
            word: Word {
                start,
                end,
                text: &s[start..end],
            },
            next: (end + 1).min(bytes.len()),
        };
    }
    // A glued quoted value (`-p"secret"`, `-p'se cret'`): the quotes are part of an option's
    // word. A word ends at an escape that ends a JSON string or line (`\"`, `\n`), and
    // quotes and commas closing a JSON string are not part of it.
    let option = bytes[i] == b'-';
    let mut k = i;
    while k < bytes.len()
        && !bytes[k].is_ascii_whitespace()
        && !matches!(bytes[k], b';' | b'&' | b'|' | b'(' | b')' | b'`')
    {
        if json_string_end(bytes, k) {
            break;
        }
        match bytes[k] {
            q @ (b'"' | b'\'') if option => {
                k += 1;
                while k < bytes.len() && bytes[k] != q {
                    k += 1;
                }
            }
            // `-p\"secret\"` in JSON text: to the closing escaped quote.
            b'\\' if option && bytes.get(k + 1) == Some(&b'"') => {
                k += 2;
                while k + 1 < bytes.len() && !(bytes[k] == b'\\' && bytes[k + 1] == b'"') {
                    k += 1;
                }
                k += 1;
            }
            b'\\' if matches!(bytes.get(k + 1), Some(b'n' | b'r' | b't' | b'"')) => break,
            _ => {}
        }
        k += 1;
    }
    // Always a step forward, even on a lone escape.
    let k = k.min(bytes.len()).max(i + 1);
    let mut end = k;
    while end > i && !option && matches!(bytes[end - 1], b'"' | b',' | b'}' | b']') {
        end -= 1;
    }
    ReadWord {
        word: Word {
            start: i,
            end,
            text: &s[i..end],
        },
        next: k,
    }
}

#[cfg(test)]
mod tests {
    use super::super::redact_str;

    #[test]
    fn passwords_given_by_option_are_masked() {
        for (input, want) in [
            (
                "mysql -u root -pS3cretPw db",
                "mysql -u root -p[REDACTED] db",
            ),
            ("mysql -u root -p db", "mysql -u root -p db"),
            (
                "docker exec -it db mysqldump -uroot -p'Pw 1' x",
                "docker exec -it db mysqldump -uroot -p[REDACTED] x",
            ),
            (
                "docker login -u bob -p Dk3rPassw0rd registry.io",
                "docker login -u bob -p [REDACTED] registry.io",
            ),
            (
                "docker run -p 8080:80 -u 1000 nginx",
                "docker run -p 8080:80 -u 1000 nginx",
            ),
            (
                "redis-cli -h cache -a R3disPass ping",
                "redis-cli -h cache -a [REDACTED] ping",
            ),
            (
                "sshpass -p 'Ssh P4ss' ssh u@h",
                "sshpass -p '[REDACTED]' ssh u@h",
            ),
            (
                "htpasswd -bc /etc/nginx/.htpasswd admin Htp4ssw0rd",
                "htpasswd -bc /etc/nginx/.htpasswd admin [REDACTED]",
            ),
            (
                "htpasswd -c /etc/nginx/.htpasswd admin",
                "htpasswd -c /etc/nginx/.htpasswd admin",
            ),
            (
                "smbclient //srv/share -U alice%Smb4Pass",
                "smbclient //srv/share -U alice%[REDACTED]",
            ),
            (
                "openssl rsa -in k.pem -passin pass:0pensslPw -out x",
                "openssl rsa -in k.pem -passin pass:[REDACTED] -out x",
            ),
            (
                "openssl rsa -in k.pem -passin env:PW -out x",
                "openssl rsa -in k.pem -passin env:PW -out x",
            ),
            (
                "sudo /usr/bin/mysql -pMy5qlPw && mysql -p",
                "sudo /usr/bin/mysql -p[REDACTED] && mysql -p",
            ),
            (
                "ldapsearch -x -D cn=admin -w Ld4pPw",
                "ldapsearch -x -D cn=admin -w [REDACTED]",
            ),
            (
                "keytool -list -storepass St0rePw",
                "keytool -list -storepass [REDACTED]",
            ),
            ("7z a -pZ1pPassw0rd x.7z dir", "7z a -p[REDACTED] x.7z dir"),
            (
                "mongosh -u admin -p M0ngoPw",
                "mongosh -u admin -p [REDACTED]",
            ),
            (
                "sqlcmd -S db -U sa -P Sq1Passw0rd",
                "sqlcmd -S db -U sa -P [REDACTED]",
            ),
            (
                "http -a bob:Htt9ieP4ss GET x",
                "http -a bob:[REDACTED] GET x",
            ),
            ("mysql -p$MYSQL_PWD", "mysql -p$MYSQL_PWD"),
            (
                r#"{"a": "htpasswd -b f u Htpw9x", "b": "htpasswd -b f u Htpw8y"}"#,
                r#"{"a": "htpasswd -b f u [REDACTED]", "b": "htpasswd -b f u [REDACTED]"}"#,
            ),
            (
                "ssh h \"sshpass -p Sp4ss9 ssh x\"",
                "ssh h \"sshpass -p [REDACTED] ssh x\"",
            ),
            // JSON text: a command inside a string, escaped quotes and line breaks.
            (
                r#"{"command":"mysql -uroot -pJs0nPw\nls","x":"htpasswd -b f u Htpw9x"}"#,
                r#"{"command":"mysql -uroot -p[REDACTED]\nls","x":"htpasswd -b f u [REDACTED]"}"#,
            ),
            (
                r#"{"c":"mysql -p\"Esc Pw9\" db"}"#,
                r#"{"c":"mysql -p[REDACTED] db"}"#,
            ),
        ] {
            assert_eq!(redact_str(input), want, "{input}");
        }
    }
}
