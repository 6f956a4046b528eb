//! Fenced code coloured with syntect's parser and bat's grammars (syntect's
//! own set plus the ones it lacks that answers are full of: TOML,
//! TypeScript, Dockerfile, Kotlin, Swift, Zig, Nix…), as `two-face` ships
//! them. Only the parser is used: scopes map to the answer [`Palette`], so
//! code matches the terminal's theme instead of a bundled one.
//!
//! The grammars load on first use, not at start-up: `k` answering a
//! question without code never pays for them.

use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, ScopeStackOp, SyntaxReference, SyntaxSet};

use crate::palette::Palette;
use crate::styled::Span;

/// The bundled grammars (bat's set, built for the pure-Rust regex
/// engine), deserialised on first use.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(two_face::syntax::extra_newlines)
}

/// What a token is, as far as colour goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Plain,
    Keyword,
    String,
    Comment,
    Number,
    Function,
    Type,
}

/// Scope prefixes and the class each gives, most telling first within a
/// scope; the innermost scope with a match wins.
const CLASSES: &[(&str, Class)] = &[
    ("comment", Class::Comment),
    ("string", Class::String),
    ("constant.character", Class::String),
    ("constant.numeric", Class::Number),
    ("constant.language", Class::Keyword),
    ("variable.language", Class::Keyword),
    // Operators read as punctuation, not as keywords.
    ("keyword.operator", Class::Plain),
    ("keyword", Class::Keyword),
    ("storage", Class::Keyword),
    ("entity.name.function", Class::Function),
    ("support.function", Class::Function),
    ("variable.function", Class::Function),
    ("entity.name.type", Class::Type),
    ("entity.name.class", Class::Type),
    ("entity.name.struct", Class::Type),
    ("entity.name.enum", Class::Type),
    ("entity.name.trait", Class::Type),
    // TOML's `[section]` headers.
    ("entity.name.table", Class::Type),
    ("support.type", Class::Type),
    ("support.class", Class::Type),
];

fn class_scopes() -> &'static [(Scope, Class)] {
    static SCOPES: OnceLock<Vec<(Scope, Class)>> = OnceLock::new();
    SCOPES.get_or_init(|| {
        CLASSES
            .iter()
            .filter_map(|(name, class)| Scope::new(name).ok().map(|s| (s, *class)))
            .collect()
    })
}

fn classify(stack: &ScopeStack) -> Class {
    let table = class_scopes();
    for scope in stack.as_slice().iter().rev() {
        if let Some((_, class)) = table.iter().find(|(p, _)| p.is_prefix_of(*scope)) {
            return *class;
        }
    }
    Class::Plain
}

fn colour(class: Class, pal: &Palette) -> crate::Color {
    match class {
        Class::Plain => pal.fg,
        Class::Keyword => pal.keyword,
        Class::String => pal.string,
        Class::Comment => pal.comment,
        Class::Number => pal.number,
        Class::Function => pal.function,
        Class::Type => pal.type_name,
    }
}

/// Fence names people write that no grammar knows as a name or file
/// extension, and the grammar token they mean. Tried only after the name
/// itself, so a grammar added to the set wins over its alias here.
const ALIASES: &[(&str, &str)] = &[
    ("shell", "bash"),
    ("console", "bash"),
    ("shellsession", "bash"),
    ("terminal", "bash"),
    ("jsonc", "json"),
    ("json5", "json"),
    ("mjs", "js"),
    ("cjs", "js"),
    ("golang", "go"),
    ("c++", "cpp"),
    ("cxx", "cpp"),
    ("hpp", "cpp"),
    ("py3", "py"),
    ("python3", "py"),
    ("patch", "diff"),
    ("docker", "dockerfile"),
    ("containerfile", "dockerfile"),
    ("hcl", "terraform"),
];

/// The grammar for a fence's info string (its first word), if any.
fn syntax_for(info: &str) -> Option<&'static SyntaxReference> {
    let word = info
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if word.is_empty() {
        return None;
    }
    let set = syntaxes();
    set.find_syntax_by_token(&word).or_else(|| {
        let (_, alias) = ALIASES.iter().find(|(name, _)| *name == word)?;
        set.find_syntax_by_token(alias)
    })
}

/// Parser state between lines.
type State = (ParseState, ScopeStack);

/// Highlights one code block line by line, remembering every line it has
/// done with the parser state after it, so a block that grows while an
/// answer streams only parses its new lines.
pub struct CodeHighlighter {
    syntax: Option<&'static SyntaxReference>,
    /// Lines done: the text, its spans, and the state after it (`None`
    /// once the grammar failed; the rest of the block is plain).
    done: Vec<(String, Vec<Span>, Option<State>)>,
}

impl std::fmt::Debug for CodeHighlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeHighlighter")
            .field("syntax", &self.syntax.map(|s| s.name.as_str()))
            .field("lines", &self.done.len())
            .finish()
    }
}

impl CodeHighlighter {
    /// A highlighter for a fence's info string; unknown languages are plain
    /// (and load no grammars).
    pub fn new(info: &str) -> Self {
        Self {
            syntax: syntax_for(info),
            done: Vec::new(),
        }
    }

    /// The spans of each of `lines` (no background set), reusing the lines
    /// already done that are unchanged.
    pub fn lines(&mut self, lines: &[&str], pal: &Palette) -> Vec<Vec<Span>> {
        let same = self
            .done
            .iter()
            .zip(lines)
            .take_while(|((text, _, _), line)| text == *line)
            .count();
        self.done.truncate(same);
        for line in &lines[same..] {
            let state = match self.done.last() {
                Some((_, _, state)) => state.clone(),
                None => self.syntax.map(|s| (ParseState::new(s), ScopeStack::new())),
            };
            let (spans, after) = match state {
                Some(state) => highlight_line(line, state, pal),
                None => (vec![Span::new(*line, pal.fg)], None),
            };
            self.done.push(((*line).to_string(), spans, after));
        }
        self.done
            .iter()
            .map(|(_, spans, _)| spans.clone())
            .collect()
    }
}

/// One line through the grammar; `None` state after it when the grammar
/// fails (the line is then plain).
fn highlight_line(line: &str, state: State, pal: &Palette) -> (Vec<Span>, Option<State>) {
    let (mut parse, mut stack) = state;
    // The bundled grammars expect each line with its newline.
    let with_nl = format!("{line}\n");
    let Ok(ops) = parse.parse_line(&with_nl, syntaxes()) else {
        return (vec![Span::new(line, pal.fg)], None);
    };
    let mut out: Vec<Span> = Vec::new();
    let mut at = 0usize;
    let push = |out: &mut Vec<Span>, text: &str, class: Class| {
        let text = text.strip_suffix('\n').unwrap_or(text);
        if text.is_empty() {
            return;
        }
        let fg = colour(class, pal);
        match out.last_mut() {
            Some(last) if last.fg == fg => last.text.push_str(text),
            _ => out.push(Span::new(text, fg)),
        }
    };
    for (pos, op) in &ops {
        let pos = (*pos).min(with_nl.len());
        if pos > at {
            if let Some(piece) = with_nl.get(at..pos) {
                push(&mut out, piece, classify(&stack));
            }
            at = pos;
        }
        if apply(&mut stack, op).is_err() {
            let rest = with_nl.get(at..).unwrap_or("");
            push(&mut out, rest, Class::Plain);
            return (out, None);
        }
    }
    if let Some(rest) = with_nl.get(at..) {
        push(&mut out, rest, classify(&stack));
    }
    (out, Some((parse, stack)))
}

fn apply(stack: &mut ScopeStack, op: &ScopeStackOp) -> Result<(), ()> {
    stack.apply(op).map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colour_of(spans: &[Span], text: &str) -> Option<crate::Color> {
        spans.iter().find(|s| s.text.contains(text)).map(|s| s.fg)
    }

    #[test]
    fn rust_keywords_strings_comments_numbers() {
        let pal = Palette::ansi();
        let mut h = CodeHighlighter::new("rust");
        let src = r#"let x = "a\"b" + 42; // done"#;
        let spans = h.lines(&[src], &pal).remove(0);
        assert_eq!(colour_of(&spans, "let"), Some(pal.keyword));
        assert_eq!(colour_of(&spans, "a\\\"b"), Some(pal.string));
        assert_eq!(colour_of(&spans, "42"), Some(pal.number));
        assert_eq!(colour_of(&spans, "done"), Some(pal.comment));
        let joined: String = spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(joined, src);
    }

    #[test]
    fn block_comments_span_lines_and_unknown_is_plain() {
        let pal = Palette::ansi();
        let mut h = CodeHighlighter::new("c");
        let out = h.lines(&["int a; /* start", "still */ return 1;"], &pal);
        assert_eq!(colour_of(&out[1], "still"), Some(pal.comment));
        assert_eq!(colour_of(&out[1], "return"), Some(pal.keyword));
        let mut plain = CodeHighlighter::new("brainfuck");
        assert_eq!(
            plain.lines(&["if x"], &pal),
            vec![vec![Span::new("if x", pal.fg)]]
        );
        let mut py = CodeHighlighter::new("Python");
        let out = py.lines(&["def f(): # c"], &pal);
        assert_eq!(colour_of(&out[0], "def"), Some(pal.keyword));
        let mut sh = CodeHighlighter::new("shell");
        let out = sh.lines(&["echo \"hi\" # c"], &pal);
        assert_eq!(colour_of(&out[0], "hi"), Some(pal.string));
    }

    #[test]
    fn fence_names_people_write_find_their_grammar() {
        let cases = [
            ("toml", "TOML"),
            ("ts", "TypeScript"),
            ("typescript", "TypeScript"),
            ("tsx", "TypeScriptReact"),
            ("dockerfile", "Dockerfile"),
            ("Dockerfile", "Dockerfile"),
            ("yaml", "YAML"),
            ("yml", "YAML"),
            ("sh", "Bourne Again Shell (bash)"),
            ("zsh", "Bourne Again Shell (bash)"),
            ("shell", "Bourne Again Shell (bash)"),
            ("console", "Bourne Again Shell (bash)"),
            ("rs", "Rust"),
            ("py", "Python"),
            ("js", "JavaScript"),
            ("json", "JSON"),
            ("jsonc", "JSON"),
            ("kt", "Kotlin"),
            ("kts", "Kotlin"),
            ("tf", "Terraform"),
            ("hcl", "Terraform"),
            ("proto", "Protocol Buffer"),
            ("fish", "Fish"),
            ("kotlin", "Kotlin"),
            ("swift", "Swift"),
            ("zig", "Zig"),
            ("nix", "Nix"),
            ("go", "Go"),
            ("golang", "Go"),
            ("c++", "C++"),
            ("diff", "Diff"),
        ];
        let mut wrong = Vec::new();
        for (fence, want) in cases {
            let got = syntax_for(fence).map(|s| s.name.as_str());
            if got != Some(want) {
                wrong.push(format!("{fence}: {got:?}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        let dead: Vec<_> = ALIASES
            .iter()
            .filter(|(name, _)| syntax_for(name).is_none())
            .collect();
        assert!(dead.is_empty(), "aliases to no grammar: {dead:?}");
        assert!(syntax_for("no-such-language").is_none());
        assert!(syntax_for("").is_none());
    }

    #[test]
    fn toml_and_typescript_are_coloured() {
        let pal = Palette::ansi();
        let mut toml = CodeHighlighter::new("toml");
        let out = toml.lines(&["[package]", "name = \"koi\" # c", "n = 3"], &pal);
        assert_eq!(colour_of(&out[0], "package"), Some(pal.type_name));
        assert_eq!(colour_of(&out[1], "koi"), Some(pal.string));
        assert_eq!(colour_of(&out[1], "# c"), Some(pal.comment));
        assert_eq!(colour_of(&out[2], "3"), Some(pal.number));
        let mut ts = CodeHighlighter::new("ts");
        let out = ts.lines(&["const n: number = 1; // c"], &pal);
        assert_eq!(colour_of(&out[0], "const"), Some(pal.keyword));
        assert_eq!(colour_of(&out[0], "// c"), Some(pal.comment));
    }

    #[test]
    fn growing_block_reuses_done_lines() {
        let pal = Palette::ansi();
        let mut h = CodeHighlighter::new("rs");
        let first = h.lines(&["/* a", "b"], &pal);
        let again = h.lines(&["/* a", "b */ fn x() {}", "let"], &pal);
        assert_eq!(first[0], again[0]);
        assert_eq!(colour_of(&again[1], "fn"), Some(pal.keyword));
        let mut fresh = CodeHighlighter::new("rs");
        assert_eq!(fresh.lines(&["/* a", "b */ fn x() {}", "let"], &pal), again);
    }
}
