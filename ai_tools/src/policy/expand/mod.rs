//! Word expansion as bash does it, in bash's order: brace expansion,
//! tilde expansion, parameter/command/arithmetic/process substitution,
//! word splitting, pathname expansion, quote removal. What cannot be known
//! at check time (a substitution, most variables, `~user`) makes the word
//! *unknown*: the proof abstains on it, and the floor judges the text as
//! written instead.

pub mod brace;
pub mod pathname;

use std::path::{Path, PathBuf};

use crate::policy::ansi_c::NOT_UTF8;
use crate::policy::shell_parse::{Word, WordPart};

/// Variables whose value the checker can know (secrets are scrubbed from
/// a tool's environment anyway); any other expansion is unknown.
pub const KNOWN_VARS: &[&str] = &[
    "HOME", "PWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "PATH", "TMPDIR",
];

/// One character of a word with its quoting, or an expansion part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'w> {
    /// A character; `true` when quoted (no brace, tilde or glob meaning).
    Ch(char, bool),
    /// A quoted empty string (`""`): keeps an otherwise empty word.
    Null,
    /// A `$…`, `$(…)`, `$((…))`, `<(…)` or backtick part.
    Part(&'w WordPart),
}

/// Where words are expanded: the working directory and home.
#[derive(Debug, Clone)]
pub struct Ctx<'a> {
    /// The command's working directory (for `$PWD`, `~+` and globs).
    pub cwd: &'a Path,
    /// The home directory for `~`.
    pub home: Option<&'a Path>,
}

/// The result of expanding some words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The words bash would pass; where a value is unknown, the text as
    /// written stands in (good enough for the floor's pattern checks).
    pub words: Vec<String>,
    /// Why some value is unknown; `None` means `words` is exact.
    pub unknown: Option<String>,
}

impl Expanded {
    fn note(&mut self, why: impl FnOnce() -> String) {
        if self.unknown.is_none() {
            self.unknown = Some(why());
        }
    }

    /// Append another expansion's words.
    pub fn extend(&mut self, other: Expanded) {
        self.words.extend(other.words);
        if self.unknown.is_none() {
            self.unknown = other.unknown;
        }
    }
}

/// Expand a list of words (a command's argv).
pub fn expand_words(words: &[Word], ctx: &Ctx<'_>) -> Expanded {
    let mut out = Expanded::default();
    for w in words {
        out.extend(expand_word(w, ctx));
    }
    out
}

/// Expand one word into the words bash would make of it.
pub fn expand_word(word: &Word, ctx: &Ctx<'_>) -> Expanded {
    let mut out = Expanded::default();
    let pieces = pieces(word);
    let braced = match brace::expand(&pieces) {
        Ok(b) => b,
        Err(brace::TooMany) => {
            out.note(|| format!("{} expands to too many words", word.lossy()));
            out.words.push(word.lossy());
            return out;
        }
    };
    // bash marks assignment-like words when it parses them; the words
    // brace expansion makes lose the mark.
    let unchanged = braced.len() == 1 && braced[0] == pieces;
    for w in braced {
        let w = tilde(w, unchanged, ctx, &mut out);
        let mut pat: Vec<pathname::PatChar> = Vec::with_capacity(w.len());
        let mut kept = false;
        let mut known = true;
        for p in &w {
            match p {
                Piece::Ch(c, q) => pat.push((*c, *q)),
                Piece::Null => kept = true,
                Piece::Part(part) => match part_value(part, ctx) {
                    Ok(v) => {
                        kept |= !v.is_empty();
                        pat.extend(v.chars().map(|c| (c, true)));
                    }
                    Err(why) => {
                        known = false;
                        out.note(|| why);
                        kept = true;
                        pat.extend(lossy_part(part).chars().map(|c| (c, true)));
                    }
                },
            }
        }
        let text: String = pat.iter().map(|&(c, _)| c).collect();
        if text.contains(NOT_UTF8) {
            out.note(|| format!("{} holds bytes that are not UTF-8", word.lossy()));
        }
        if known && pathname::has_wildcards(&pat) {
            match pathname::expand(&pat, ctx.cwd) {
                Ok(Some(matches)) => {
                    out.words.extend(matches);
                    continue;
                }
                Ok(None) => {}
                Err(e) => out.note(|| format!("the glob {text} could not be expanded ({e:?})")),
            }
        }
        if !text.is_empty() || kept {
            out.words.push(text);
        }
    }
    out
}

/// A word's pieces: literal characters unquoted, quoted text quoted.
pub fn pieces(word: &Word) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    for part in &word.parts {
        match part {
            WordPart::Lit(s) => out.extend(s.chars().map(|c| Piece::Ch(c, false))),
            WordPart::Quoted(s) if s.is_empty() => out.push(Piece::Null),
            WordPart::Quoted(s) => out.extend(s.chars().map(|c| Piece::Ch(c, true))),
            other => out.push(Piece::Part(other)),
        }
    }
    out
}

/// Tilde expansion at the start of the word, and after `=` and `:` in a
/// word that looks like an assignment (bash does that for arguments too).
fn tilde<'w>(
    w: Vec<Piece<'w>>,
    assignment_ok: bool,
    ctx: &Ctx<'_>,
    out: &mut Expanded,
) -> Vec<Piece<'w>> {
    let mut starts = vec![0usize];
    if assignment_ok && is_assignment_like(&w) {
        // After the first `=`, and after every unquoted `:` past it.
        if let Some(eq) = w.iter().position(|p| matches!(p, Piece::Ch('=', false))) {
            starts.push(eq + 1);
            for (i, p) in w.iter().enumerate().skip(eq + 1) {
                if matches!(p, Piece::Ch(':', false)) {
                    starts.push(i + 1);
                }
            }
        }
    }
    let mut result = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        if starts.contains(&i) && matches!(w[i], Piece::Ch('~', false)) {
            // As bash: a quote before the first `/` (before the first `/`
            // or `:` after an assignment's `=` or `:`) makes it no tilde
            // word at all (`~:'a'` stays); the name ends at a `/` or a
            // `:` either way (`~:x` is `$HOME:x`).
            let scan_end = w[i..]
                .iter()
                .position(|p| match p {
                    Piece::Ch('/', false) => true,
                    Piece::Ch(':', false) => i > 0,
                    _ => false,
                })
                .map_or(w.len(), |e| i + e);
            if w[i + 1..scan_end]
                .iter()
                .any(|p| !matches!(p, Piece::Ch(_, false)))
            {
                result.push(w[i].clone());
                i += 1;
                continue;
            }
            let end = w[i..]
                .iter()
                .position(|p| matches!(p, Piece::Ch('/' | ':', false)))
                .map_or(w.len(), |e| i + e);
            let prefix: Option<String> = w[i + 1..end]
                .iter()
                .map(|p| match p {
                    Piece::Ch(c, false) => Some(*c),
                    _ => None,
                })
                .collect();
            if let Some(user) = prefix {
                let value = match user.as_str() {
                    "" => ctx.home.map(|h| h.to_string_lossy().into_owned()),
                    "+" => Some(ctx.cwd.to_string_lossy().into_owned()),
                    _ => None,
                };
                match value {
                    Some(v) => result.extend(v.chars().map(|c| Piece::Ch(c, true))),
                    None => {
                        out.note(|| format!("~{user} names a directory the checker does not know"));
                        result.extend(w[i..end].iter().cloned());
                    }
                }
                i = end;
                continue;
            }
        }
        result.push(w[i].clone());
        i += 1;
    }
    result
}

fn is_assignment_like(w: &[Piece<'_>]) -> bool {
    let name: String = w
        .iter()
        .map_while(|p| match p {
            Piece::Ch(c, false) if *c != '=' => Some(*c),
            _ => None,
        })
        .collect();
    matches!(w.get(name.chars().count()), Some(Piece::Ch('=', false)))
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The value of an expansion part, or why it cannot be known.
fn part_value(part: &WordPart, ctx: &Ctx<'_>) -> Result<String, String> {
    match part {
        WordPart::Var(name) if KNOWN_VARS.contains(&name.as_str()) => {
            let value = match name.as_str() {
                "PWD" => ctx.cwd.to_string_lossy().into_owned(),
                "HOME" => ctx
                    .home
                    .map(|h| h.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                other => std::env::var(other).unwrap_or_default(),
            };
            // Unquoted, a value with blanks or wildcards would be split or
            // globbed; such a value is not worth modelling.
            if value.contains(|c: char| c.is_whitespace() || "*?[".contains(c)) {
                return Err(format!("${name} holds blanks or wildcards"));
            }
            Ok(value)
        }
        WordPart::Var(name) => Err(format!(
            "expands ${name}, whose value the checker cannot know"
        )),
        WordPart::CmdSubst(s) => Err(format!("uses a command substitution $({s})")),
        WordPart::Arith(s) => Err(format!("uses arithmetic $(({s}))")),
        WordPart::ProcSubst(s) => Err(format!("uses a process substitution <({s})")),
        WordPart::Lit(s) | WordPart::Quoted(s) => Ok(s.clone()),
    }
}

fn lossy_part(part: &WordPart) -> String {
    Word {
        parts: vec![part.clone()],
    }
    .lossy()
}

/// The home directory the checker assumes for `~` and `$HOME`.
pub fn home() -> Option<PathBuf> {
    dirs::home_dir()
}

#[cfg(test)]
mod tests;
