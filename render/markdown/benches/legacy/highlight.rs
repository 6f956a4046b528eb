//! The overlay's markdown renderer before koi_markdown, kept only so the
//! bench can compare the two in one run. Not built into any binary.
#![allow(dead_code)]

//! A small table-driven syntax highlighter for fenced code: keywords,
//! strings, comments and numbers for the languages assistants answer in
//! most. Not a parser; good enough to make code readable at a glance.

use koi_markdown::Span;

use super::style::Palette;

/// How one language looks to the highlighter.
struct Lang {
    keywords: &'static [&'static str],
    line_comment: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    quotes: &'static [char],
}

const RUST: Lang = Lang {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"'],
};
const PYTHON: Lang = Lang {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
        "try", "while", "with", "yield",
    ],
    line_comment: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
};
const JS: Lang = Lang {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "return",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\'', '`'],
};
const SH: Lang = Lang {
    keywords: &[
        "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if",
        "in", "local", "return", "then", "until", "while", "sudo", "cd", "echo",
    ],
    line_comment: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
};
const JSON: Lang = Lang {
    keywords: &["true", "false", "null"],
    line_comment: &[],
    block_comment: None,
    quotes: &['"'],
};
const TOML: Lang = Lang {
    keywords: &["true", "false"],
    line_comment: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
};
const GO: Lang = Lang {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "false",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '`'],
};
const C: Lang = Lang {
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "false",
        "float",
        "for",
        "if",
        "include",
        "int",
        "long",
        "namespace",
        "new",
        "nullptr",
        "private",
        "public",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "true",
        "typedef",
        "union",
        "unsigned",
        "using",
        "void",
        "while",
        "define",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\''],
};

fn lang(name: &str) -> Option<&'static Lang> {
    Some(match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" | "python3" => &PYTHON,
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" | "mjs" => &JS,
        "sh" | "bash" | "zsh" | "shell" | "console" | "fish" => &SH,
        "json" | "jsonc" => &JSON,
        "toml" | "ini" => &TOML,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "cxx" => &C,
        _ => return None,
    })
}

/// Highlights fenced code line by line, carrying block-comment state
/// across lines.
pub struct Highlighter {
    lang: Option<&'static Lang>,
    in_block_comment: bool,
}

impl Highlighter {
    /// A highlighter for a fence's info string (unknown languages are plain).
    pub fn new(info: &str) -> Self {
        Self {
            lang: lang(info),
            in_block_comment: false,
        }
    }

    /// The spans of one line of code (no background set).
    pub fn line(&mut self, text: &str, pal: &Palette) -> Vec<Span> {
        let Some(lang) = self.lang else {
            return vec![Span::new(text, pal.fg)];
        };
        let mut out: Vec<Span> = Vec::new();
        let push = |out: &mut Vec<Span>, s: &str, fg| {
            if s.is_empty() {
                return;
            }
            match out.last_mut() {
                Some(last) if last.fg == fg => last.text.push_str(s),
                _ => out.push(Span::new(s, fg)),
            }
        };
        let mut rest = text;
        while !rest.is_empty() {
            if self.in_block_comment {
                let end = lang.block_comment.map_or("", |b| b.1);
                match rest.find(end).filter(|_| !end.is_empty()) {
                    Some(at) => {
                        push(&mut out, &rest[..at + end.len()], pal.comment);
                        rest = &rest[at + end.len()..];
                        self.in_block_comment = false;
                    }
                    None => {
                        push(&mut out, rest, pal.comment);
                        rest = "";
                    }
                }
                continue;
            }
            if lang.line_comment.iter().any(|c| rest.starts_with(c)) {
                push(&mut out, rest, pal.comment);
                break;
            }
            if let Some((open, _)) = lang.block_comment {
                if rest.starts_with(open) {
                    push(&mut out, open, pal.comment);
                    rest = &rest[open.len()..];
                    self.in_block_comment = true;
                    continue;
                }
            }
            let mut chars = rest.char_indices();
            let Some((_, c)) = chars.next() else { break };
            if lang.quotes.contains(&c) {
                let end = string_end(rest, c);
                push(&mut out, &rest[..end], pal.string);
                rest = &rest[end..];
            } else if c.is_ascii_digit() {
                let end = rest
                    .find(|x: char| !(x.is_ascii_alphanumeric() || x == '.' || x == '_'))
                    .unwrap_or(rest.len());
                push(&mut out, &rest[..end], pal.number);
                rest = &rest[end..];
            } else if c.is_alphabetic() || c == '_' {
                let end = rest
                    .find(|x: char| !(x.is_alphanumeric() || x == '_'))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                let fg = if lang.keywords.contains(&word) {
                    pal.keyword
                } else {
                    pal.fg
                };
                push(&mut out, word, fg);
                rest = &rest[end..];
            } else {
                let end = c.len_utf8();
                push(&mut out, &rest[..end], pal.fg);
                rest = &rest[end..];
            }
        }
        out
    }
}

/// Byte index just past the string literal opening `rest` with `quote`
/// (the line's end when it never closes).
fn string_end(rest: &str, quote: char) -> usize {
    let mut escaped = false;
    for (i, c) in rest.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return i + c.len_utf8();
        }
    }
    rest.len()
}
