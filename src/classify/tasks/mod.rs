//! Task files a command runs the recipes of: a Makefile for `make`, `package.json`'s
//! scripts for `npm test` and `npm run X`. Pure readers: given the file's text and what the
//! command asks for, they return the shell commands that would run, which the walker
//! judges as if they were on the line.

pub(crate) mod make;
pub(crate) mod npm;

/// The shell commands a task runs, or why oath cannot tell.
pub(crate) type Plan = Result<Vec<String>, Unread>;

/// Why oath cannot tell what a task file makes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unread {
    /// The makefile includes or loads other files.
    Include,
    /// The makefile evaluates text it computes (`$(eval …)`).
    Eval,
    /// The makefile runs its recipes with a program that is not a shell.
    Shell,
    /// More targets than oath follows.
    TooComplex,
    /// The file is not what its format says (`package.json` that is not JSON).
    Malformed,
}

impl Unread {
    /// Says why, for messages.
    pub(crate) fn says(self) -> &'static str {
        match self {
            Self::Include => "it includes other makefiles",
            Self::Eval => "it evaluates text it computes ($(eval …))",
            Self::Shell => "its recipes run in a program that is not a shell",
            Self::TooComplex => "it has more targets than oath follows",
            Self::Malformed => "it does not parse",
        }
    }
}
