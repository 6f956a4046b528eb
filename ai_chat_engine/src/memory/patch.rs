//! The curator's answer: a patch in a strict line format, parsed whole or
//! refused whole.
//!
//! ```text
//! ADD global: prefers answers without emoji
//! ADD project: the tests run with cargo nextest
//! DROP project: the tests run with make check
//! ```
//!
//! or the single line `NOTHING`. Each line is `ADD` or `DROP`, a scope
//! (`global`: about the user, `project`: about this workspace), a colon
//! and one fact on one line. `DROP` names a line of the current memory as
//! it stands. Anything else (prose, a code fence, a bullet list) refuses
//! the whole answer: a model that does not follow the format is not
//! trusted to have followed the rest of the instructions either.

use std::fmt;

/// Lines a patch may hold: a conversation yields a handful of facts; more
/// means the model is transcribing, not curating.
pub const MAX_PATCH_OPS: usize = 12;

/// Characters one fact may have: one sentence.
pub const MAX_FACT_CHARS: usize = 240;

/// Characters of a refused line quoted back in the error.
const QUOTED_CHARS: usize = 80;

/// The answer that means "nothing worth keeping".
pub const NOTHING: &str = "NOTHING";

/// Which memory file a fact belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryScope {
    /// About the user, in every project.
    Global,
    /// About the workspace the conversation ran in.
    Project,
}

impl MemoryScope {
    /// The word used in patches, logs and `/memory edit`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryScope::Global => "global",
            MemoryScope::Project => "project",
        }
    }

    /// Parses [`MemoryScope::as_str`]'s words.
    pub fn parse(word: &str) -> Option<MemoryScope> {
        match word {
            "global" => Some(MemoryScope::Global),
            "project" => Some(MemoryScope::Project),
            _ => None,
        }
    }
}

impl fmt::Display for MemoryScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// Keep this fact.
    Add {
        /// Where.
        scope: MemoryScope,
        /// The fact.
        text: String,
    },
    /// Remove this line (stale or wrong).
    Drop {
        /// Where.
        scope: MemoryScope,
        /// The line as it stands.
        text: String,
    },
}

/// A parsed patch, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patch {
    /// Its lines.
    pub ops: Vec<PatchOp>,
}

/// Why an answer is not a patch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// Nothing at all came back.
    #[error("the answer is empty (expected patch lines or {NOTHING})")]
    Empty,
    /// A line is not `ADD|DROP global|project: fact`.
    #[error("line {line} is not `ADD|DROP global|project: fact`: {text:?}")]
    BadLine {
        /// 1-based.
        line: usize,
        /// The line, shortened.
        text: String,
    },
    /// A fact is empty, longer than [`MAX_FACT_CHARS`] or holds control
    /// characters.
    #[error("line {line}: {why}")]
    BadFact {
        /// 1-based.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// More than [`MAX_PATCH_OPS`] lines.
    #[error("{ops} changes in one patch (at most {MAX_PATCH_OPS})")]
    TooMany {
        /// How many there were.
        ops: usize,
    },
}

fn quoted(line: &str) -> String {
    let mut q: String = line.chars().take(QUOTED_CHARS).collect();
    if line.chars().count() > QUOTED_CHARS {
        q.push('…');
    }
    q
}

impl Patch {
    /// Parses a whole answer.
    pub fn parse(answer: &str) -> Result<Patch, PatchError> {
        let answer = answer.trim();
        if answer.is_empty() {
            return Err(PatchError::Empty);
        }
        if answer == NOTHING {
            return Ok(Patch::default());
        }
        let mut ops = Vec::new();
        for (n, raw) in answer.lines().enumerate() {
            let line = n + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() {
                continue;
            }
            ops.push(parse_line(trimmed, line)?);
        }
        if ops.len() > MAX_PATCH_OPS {
            return Err(PatchError::TooMany { ops: ops.len() });
        }
        Ok(Patch { ops })
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

fn parse_line(text: &str, line: usize) -> Result<PatchOp, PatchError> {
    let bad = || PatchError::BadLine {
        line,
        text: quoted(text),
    };
    let (verb, rest) = text.split_once(' ').ok_or_else(bad)?;
    let (scope, fact) = rest.split_once(':').ok_or_else(bad)?;
    let scope = MemoryScope::parse(scope.trim()).ok_or_else(bad)?;
    let fact = normalise(fact);
    check_fact(&fact, line)?;
    match verb {
        "ADD" => Ok(PatchOp::Add { scope, text: fact }),
        "DROP" => Ok(PatchOp::Drop { scope, text: fact }),
        _ => Err(bad()),
    }
}

/// A fact as stored: trimmed, without a leading bullet.
pub fn normalise(fact: &str) -> String {
    let t = fact.trim();
    t.strip_prefix("- ").unwrap_or(t).trim().to_string()
}

fn check_fact(fact: &str, line: usize) -> Result<(), PatchError> {
    let why = if fact.is_empty() {
        "the fact is empty".to_string()
    } else if fact.chars().count() > MAX_FACT_CHARS {
        format!("the fact is longer than {MAX_FACT_CHARS} characters")
    } else if fact.chars().any(char::is_control) {
        "the fact holds control characters".to_string()
    } else {
        return Ok(());
    };
    Err(PatchError::BadFact { line, why })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_well_formed_patch_parses_in_order() {
        let p = Patch::parse(
            "ADD global: prefers terse answers\n\n  DROP project: - uses make\nADD project: tests use nextest\n",
        )
        .unwrap();
        assert_eq!(
            p.ops,
            vec![
                PatchOp::Add {
                    scope: MemoryScope::Global,
                    text: "prefers terse answers".into()
                },
                PatchOp::Drop {
                    scope: MemoryScope::Project,
                    text: "uses make".into()
                },
                PatchOp::Add {
                    scope: MemoryScope::Project,
                    text: "tests use nextest".into()
                },
            ]
        );
        assert!(Patch::parse(" NOTHING \n").unwrap().is_empty());
    }

    #[test]
    fn anything_else_is_refused_with_the_line_named() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("Sure! Here is the patch:\nADD global: x", "line 1 is not"),
            ("```\nADD global: x\n```", "line 1 is not"),
            ("ADD global: fine\nADD team: no such scope", "line 2 is not"),
            ("ADD global fine", "line 1 is not"),
            ("add global: lower-case verb", "line 1 is not"),
            ("ADD global:   ", "line 1: the fact is empty"),
            ("- ADD global: bullet", "line 1 is not"),
            ("NOTHING\nADD global: both", "line 1 is not"),
        ];
        for (answer, want) in cases {
            let err = Patch::parse(answer).unwrap_err().to_string();
            assert!(err.contains(want), "{answer:?}: {err}");
        }
        let long = format!("ADD global: {}", "x".repeat(MAX_FACT_CHARS + 1));
        assert!(matches!(
            Patch::parse(&long),
            Err(PatchError::BadFact { line: 1, .. })
        ));
        let many: String = (0..=MAX_PATCH_OPS)
            .map(|i| format!("ADD global: fact {i}\n"))
            .collect();
        assert_eq!(
            Patch::parse(&many),
            Err(PatchError::TooMany {
                ops: MAX_PATCH_OPS + 1
            })
        );
    }
}
