//! Reading a text of statements the way a server reads it: comments, quoted text, the
//! client's own commands and the statements' ends. Servers disagree (MySQL runs the code in
//! `/*! … */`, ends `--` comments only before a blank and escapes quotes with `\`;
//! PostgreSQL nests comments and quotes with `$$`; SQLite and SQL Server quote names in
//! `[…]`), and a text can be written so that one reading hides what another runs: every text
//! is read in each [`READINGS`] and judged by the worst.

/// One piece of a statement, outside blanks and comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// A keyword, name or number, in lower case.
    Word(String),
    /// A quoted name (`"x"`, `` `x` ``, `[x]`), in lower case.
    Ident(String),
    /// A string literal's content.
    Str(String),
    /// A dollar-quoted body (`$$ … $$`, `$fn$ … $fn$`): a function's code, or a string.
    Body(String),
    /// A value only known when it runs: a client's variable (`:name`, `$(name)`), an escape
    /// oath does not decode.
    Var,
    /// Any other character.
    Punct(char),
}

/// A statement: SQL, or a client's own command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Stmt {
    /// SQL (or a NoSQL shell's code), as tokens.
    Sql(Vec<Tok>),
    /// A client's own command as written, from its sign on (`\o file`, `.shell cmd`,
    /// `:!! cmd`): it ends at the end of its line.
    Client(String),
}

/// How one kind of server (or client) reads a text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dialect {
    /// `/* /* */ */` is one comment (PostgreSQL, SQL Server).
    nested_comments: bool,
    /// `#` starts a comment (MySQL).
    hash_comments: bool,
    /// `--` starts a comment only before a blank (MySQL: `1--1` is `1 - -1`).
    dash_needs_blank: bool,
    /// `--` starts a comment at all (not in JavaScript).
    dash_comments: bool,
    /// `//` starts a comment (JavaScript).
    slash_comments: bool,
    /// `\` escapes the next character in `'…'` and `"…"` (MySQL, JavaScript).
    backslash_escapes: bool,
    /// `"…"` is a string, not a name (JavaScript).
    double_quote_strings: bool,
    /// `[…]` quotes a name (SQLite, SQL Server).
    brackets: bool,
    /// `$tag$ … $tag$` quotes a body (PostgreSQL).
    dollar_quotes: bool,
    /// `/*! … */` and `/*M! … */` hold code that runs (MySQL, MariaDB).
    versioned_comments: bool,
    /// `E'…'` escapes with `\` (PostgreSQL).
    e_strings: bool,
    /// `:name` is a client's variable, put in before the text is sent (psql).
    colon_vars: bool,
    /// A client's own commands: `\cmd` anywhere, `.cmd`, `:cmd` and `!!` at a line's start.
    client_commands: bool,
    /// `$` may be part of a name (JavaScript's `$out`).
    dollar_names: bool,
    /// `` `…` `` is a string, not a name (JavaScript).
    backtick_strings: bool,
}

const SQL: Dialect = Dialect {
    nested_comments: false,
    hash_comments: false,
    dash_needs_blank: false,
    dash_comments: true,
    slash_comments: false,
    backslash_escapes: false,
    double_quote_strings: false,
    brackets: false,
    dollar_quotes: false,
    versioned_comments: false,
    e_strings: false,
    colon_vars: false,
    client_commands: true,
    dollar_names: false,
    backtick_strings: false,
};

/// PostgreSQL and psql.
pub(super) const POSTGRES: Dialect = Dialect {
    nested_comments: true,
    dollar_quotes: true,
    e_strings: true,
    colon_vars: true,
    ..SQL
};

/// MySQL, MariaDB and their client.
pub(super) const MYSQL: Dialect = Dialect {
    hash_comments: true,
    dash_needs_blank: true,
    backslash_escapes: true,
    versioned_comments: true,
    ..SQL
};

/// SQLite, DuckDB and their shells.
pub(super) const SQLITE: Dialect = Dialect {
    brackets: true,
    ..SQL
};

/// SQL Server and sqlcmd.
pub(super) const SQLSERVER: Dialect = Dialect {
    nested_comments: true,
    brackets: true,
    ..SQL
};

/// JavaScript, as MongoDB's shells read it.
pub(super) const JAVASCRIPT: Dialect = Dialect {
    dash_comments: false,
    slash_comments: true,
    backslash_escapes: true,
    double_quote_strings: true,
    client_commands: false,
    dollar_names: true,
    backtick_strings: true,
    ..SQL
};

/// The readings every SQL text is judged in.
pub(super) const READINGS: [Dialect; 4] = [POSTGRES, MYSQL, SQLITE, SQLSERVER];

/// Splits a text into statements as a server of dialect `d` reads it: comments dropped,
/// quoted text kept as one token, keywords and names in lower case; a statement ends at `;`,
/// and where a client's own command starts.
pub(super) fn statements(text: &str, d: Dialect) -> Vec<Stmt> {
    Lexer {
        c: text.chars().collect(),
        i: 0,
        d,
        out: Vec::new(),
        cur: Vec::new(),
        versioned: false,
    }
    .run()
}

struct Lexer {
    c: Vec<char>,
    i: usize,
    d: Dialect,
    out: Vec<Stmt>,
    cur: Vec<Tok>,
    /// Inside `/*! … */`: its `*/` ends nothing but itself.
    versioned: bool,
}

fn name_start(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Lexer {
    fn at(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn end_statement(&mut self) {
        if !self.cur.is_empty() {
            self.out.push(Stmt::Sql(std::mem::take(&mut self.cur)));
        }
    }

    fn run(mut self) -> Vec<Stmt> {
        let mut line_start = true;
        while let Some(c) = self.at(0) {
            if c == '\n' {
                line_start = true;
                self.i += 1;
                continue;
            }
            if c.is_whitespace() {
                self.i += 1;
                continue;
            }
            let starts_line = std::mem::take(&mut line_start);
            if self.d.client_commands && self.client_command(c, starts_line) {
                line_start = true;
                continue;
            }
            self.token(c);
        }
        self.end_statement();
        self.out
    }

    /// Reads a client's own command starting at `c`, if one does; returns whether it did.
    fn client_command(&mut self, c: char, starts_line: bool) -> bool {
        let next = self.at(1);
        let starts = c == '\\'
            || starts_line
                && (c == '.' && next.is_some_and(char::is_alphabetic)
                    || c == ':' && next.is_some_and(|n| n.is_alphabetic() || n == '!')
                    || c == '!' && next == Some('!'));
        if !starts {
            return false;
        }
        self.end_statement();
        let from = self.i;
        self.i += 1;
        // psql's `\\` ends a command and goes back to SQL on the same line.
        while let Some(n) = self.at(0) {
            if n == '\n' || n == '\\' && self.at(1) == Some('\\') {
                break;
            }
            self.i += 1;
        }
        let text: String = self.c[from..self.i].iter().collect();
        self.out.push(Stmt::Client(text.trim().to_owned()));
        if self.at(0) == Some('\\') {
            self.i += 2;
        }
        true
    }

    fn token(&mut self, c: char) {
        let next = self.at(1);
        match c {
            '-' if self.d.dash_comments
                && next == Some('-')
                && (!self.d.dash_needs_blank || self.at(2).is_none_or(char::is_whitespace)) =>
            {
                self.skip_line()
            }
            '#' if self.d.hash_comments => self.skip_line(),
            '/' if self.d.slash_comments && next == Some('/') => self.skip_line(),
            '/' if next == Some('*') => self.block_comment(),
            '*' if self.versioned && next == Some('/') => {
                self.versioned = false;
                self.i += 2;
            }
            ';' => {
                self.i += 1;
                self.end_statement();
            }
            '\'' => {
                self.i += 1;
                let s = self.quoted('\'', self.d.backslash_escapes);
                self.cur.push(Tok::Str(s));
            }
            '"' => {
                self.i += 1;
                let s = self.quoted('"', self.d.backslash_escapes);
                if self.d.double_quote_strings {
                    self.cur.push(Tok::Str(s));
                } else {
                    // MySQL's `"…"` is a string, but it is read as a name here: only its
                    // ends (escapes included) matter, and a name is never taken for a file.
                    self.cur.push(Tok::Ident(s.to_lowercase()));
                }
            }
            '`' => {
                self.i += 1;
                if self.d.backtick_strings {
                    let s = self.quoted('`', self.d.backslash_escapes);
                    self.cur.push(Tok::Str(s));
                } else {
                    let s = self.quoted('`', false);
                    self.cur.push(Tok::Ident(s.to_lowercase()));
                }
            }
            '[' if self.d.brackets => {
                self.i += 1;
                let s = self.quoted(']', false);
                self.cur.push(Tok::Ident(s.to_lowercase()));
            }
            '$' if self.d.dollar_quotes && self.dollar_body() => {}
            '$' if next == Some('(') => {
                // sqlcmd's `$(name)`: put in before the text is sent.
                while let Some(n) = self.at(0) {
                    self.i += 1;
                    if n == ')' {
                        break;
                    }
                }
                self.cur.push(Tok::Var);
            }
            ':' if next == Some(':') => {
                self.cur.push(Tok::Punct(':'));
                self.cur.push(Tok::Punct(':'));
                self.i += 2;
            }
            ':' if self.d.colon_vars
                && next.is_some_and(|n| n.is_alphabetic() || n == '_' || n == '\'' || n == '"') =>
            {
                self.i += 1;
                match self.at(0) {
                    Some(q @ ('\'' | '"')) => {
                        self.i += 1;
                        self.quoted(q, false);
                    }
                    _ => {
                        while self.at(0).is_some_and(name_start) {
                            self.i += 1;
                        }
                    }
                }
                self.cur.push(Tok::Var);
            }
            '\\' => {
                // Outside a client (JavaScript): an escape in a name (`\u0064rop`).
                self.i += 1;
                self.cur.push(Tok::Var);
            }
            c if name_start(c) || self.d.dollar_names && c == '$' => self.word(),
            c => {
                self.i += 1;
                self.cur.push(Tok::Punct(c));
            }
        }
    }

    fn word(&mut self) {
        let from = self.i;
        while self
            .at(0)
            .is_some_and(|n| name_start(n) || n == '$' && (self.i > from || self.d.dollar_names))
        {
            self.i += 1;
        }
        let w: String = self.c[from..self.i]
            .iter()
            .collect::<String>()
            .to_lowercase();
        if self.at(0) == Some('\'') && self.d.e_strings && w == "e" {
            self.i += 1;
            let s = self.quoted('\'', true);
            self.cur.push(Tok::Str(s));
            return;
        }
        self.cur.push(Tok::Word(w));
    }

    fn skip_line(&mut self) {
        while self.at(0).is_some_and(|n| n != '\n') {
            self.i += 1;
        }
    }

    fn block_comment(&mut self) {
        let versioned = self.d.versioned_comments
            && (self.at(2) == Some('!') || self.at(2) == Some('M') && self.at(3) == Some('!'));
        if versioned {
            // `/*!50000 DROP */` runs `DROP` on servers of that version on.
            self.i += if self.at(2) == Some('!') { 3 } else { 4 };
            let mut digits = 0;
            while digits < 6 && self.at(0).is_some_and(|n| n.is_ascii_digit()) {
                self.i += 1;
                digits += 1;
            }
            self.versioned = true;
            return;
        }
        self.i += 2;
        let mut depth = 1;
        while let Some(n) = self.at(0) {
            if n == '*' && self.at(1) == Some('/') {
                self.i += 2;
                depth -= 1;
                if depth == 0 {
                    return;
                }
                continue;
            }
            if self.d.nested_comments && n == '/' && self.at(1) == Some('*') {
                self.i += 2;
                depth += 1;
                continue;
            }
            self.i += 1;
        }
    }

    /// Reads quoted text up to `close` (doubled, it stands for itself); returns its content.
    fn quoted(&mut self, close: char, escapes: bool) -> String {
        let mut s = String::new();
        while let Some(n) = self.at(0) {
            self.i += 1;
            if escapes && n == '\\' {
                if let Some(e) = self.at(0) {
                    s.push(e);
                    self.i += 1;
                }
                continue;
            }
            if n == close {
                if self.at(0) == Some(close) {
                    s.push(close);
                    self.i += 1;
                    continue;
                }
                return s;
            }
            s.push(n);
        }
        s
    }

    /// Reads a dollar-quoted body at `$`, if one starts here; returns whether it did.
    fn dollar_body(&mut self) -> bool {
        let mut k = 1;
        while self
            .at(k)
            .is_some_and(|n| n.is_alphabetic() || n == '_' || k > 1 && n.is_ascii_digit())
        {
            k += 1;
        }
        if self.at(k) != Some('$') {
            return false;
        }
        let tag: Vec<char> = self.c[self.i..=self.i + k].to_vec();
        self.i += k + 1;
        let from = self.i;
        while self.i < self.c.len() {
            if self.c[self.i..].starts_with(&tag) {
                let body: String = self.c[from..self.i].iter().collect();
                self.i += tag.len();
                self.cur.push(Tok::Body(body));
                return true;
            }
            self.i += 1;
        }
        let body: String = self.c[from..].iter().collect();
        self.cur.push(Tok::Body(body));
        true
    }
}
