//! The words and redirect operators a command line is made of, and why one
//! could not be read: what the lexer produces and the parser arranges.

use std::fmt;

/// One piece of a shell word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordPart {
    /// Unquoted literal text (may hold glob characters or a leading `~`).
    Lit(String),
    /// Text that was quoted or backslash-escaped: no globbing, no expansion.
    Quoted(String),
    /// A parameter expansion: `$NAME`, `${NAME…}`, `$1`, `$@`.
    Var(String),
    /// A command substitution `$( … )` or `` ` … ` ``, raw inner text.
    CmdSubst(String),
    /// Arithmetic expansion `$(( … ))`, raw inner text.
    Arith(String),
    /// Process substitution `<( … )` or `>( … )`, raw inner text.
    ProcSubst(String),
}

/// A shell word: the concatenation of its parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The parts in order.
    pub parts: Vec<WordPart>,
}

impl Word {
    /// The word's text when it contains no expansions at all.
    pub fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                WordPart::Lit(s) | WordPart::Quoted(s) => out.push_str(s),
                _ => return None,
            }
        }
        Some(out)
    }

    /// The text with expansions shown as written (for messages and for
    /// conservative pattern checks).
    pub fn lossy(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                WordPart::Lit(s) | WordPart::Quoted(s) => out.push_str(s),
                WordPart::Var(v) => {
                    out.push('$');
                    out.push_str(v);
                }
                WordPart::CmdSubst(s) => {
                    out.push_str("$(");
                    out.push_str(s);
                    out.push(')');
                }
                WordPart::Arith(s) => {
                    out.push_str("$((");
                    out.push_str(s);
                    out.push_str("))");
                }
                WordPart::ProcSubst(s) => {
                    out.push_str("<(");
                    out.push_str(s);
                    out.push(')');
                }
            }
        }
        out
    }

    /// Does an unquoted part hold glob or brace characters?
    pub fn has_glob(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, WordPart::Lit(s) if s.contains(['*', '?', '[', '{'])))
    }

    /// Does the word start with an unquoted `~`?
    pub fn has_tilde(&self) -> bool {
        matches!(self.parts.first(), Some(WordPart::Lit(s)) if s.starts_with('~'))
    }

    /// Variables expanded in this word.
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            WordPart::Var(v) => Some(v.as_str()),
            _ => None,
        })
    }

    /// Inner texts of command/process substitutions and arithmetic.
    pub fn substitutions(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            WordPart::CmdSubst(s) | WordPart::ProcSubst(s) | WordPart::Arith(s) => Some(s.as_str()),
            _ => None,
        })
    }

    /// True if the word was written as a single unquoted literal equal to `s`.
    pub fn is_bare(&self, s: &str) -> bool {
        matches!(self.parts.as_slice(), [WordPart::Lit(t)] if t == s)
    }
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lossy())
    }
}

/// The kind of a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    In,
    /// `>` or `>|`
    Out,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<<` or `<<-`
    HereDoc,
    /// `<<<`
    HereString,
    /// `>&` (dup an output fd, or with a file name: both streams to it)
    DupOut,
    /// `<&`
    DupIn,
    /// `&>` or `&>>`: stdout and stderr to a file
    OutErr,
}

/// Why a command line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A quote, `$(`, `${` or backtick was never closed.
    #[error("unterminated {0}")]
    Unterminated(&'static str),
    /// An operator where a command was expected.
    #[error("unexpected {0:?}")]
    Unexpected(String),
    /// Too deeply nested or too long to judge.
    #[error("command too long or too deeply nested")]
    TooComplex,
}
