//! The overlay's markdown renderer before koi_markdown, kept only so the
//! bench can compare the two in one run. Not built into any binary.
#![allow(dead_code)]

//! Light markdown for assistant answers, laid out to a width in cells:
//! headings, bullet and numbered lists, quotes, rules, inline code, bold and
//! italic, links as their text, and fenced code on its own background with
//! syntax colouring. Each source line stays its own line (chat answers are
//! written that way); unclosed fences run to the end, so a streaming answer
//! lays out sensibly at every token.

use koi_markdown::{Span, StyledLine};

use super::highlight::Highlighter;
use super::style::Palette;
use koi_markdown::wrap::{wrap, WrapOpts};

/// Cells of indentation per nesting level of a list.
const LIST_INDENT: usize = 2;
/// Deepest list nesting drawn; deeper items draw at this level so a
/// pathological answer cannot push text off the panel.
const MAX_LIST_DEPTH: usize = 6;

/// A fenced code block of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The fence's language (first word of the info string; may be empty).
    pub lang: String,
    /// The code, lines joined by `\n`, no trailing newline.
    pub code: String,
}

/// An opening or closing fence: the marker character and run length, and
/// the info string.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then(|| (c, n, t[n..].trim()))
}

fn closes(line: &str, open: (char, usize)) -> bool {
    matches!(fence(line), Some((c, n, info)) if c == open.0 && n >= open.1 && info.is_empty())
}

/// The fenced code blocks of `src`, in order (an unclosed last block
/// counts, so it can be inserted while it still streams).
pub fn code_blocks(src: &str) -> Vec<CodeBlock> {
    let mut out = Vec::new();
    let mut open: Option<((char, usize), String, Vec<&str>)> = None;
    for line in src.lines() {
        match &mut open {
            Some((marker, _, body)) => {
                if closes(line, *marker) {
                    if let Some((_, lang, body)) = open.take() {
                        out.push(CodeBlock {
                            lang,
                            code: body.join("\n"),
                        });
                    }
                } else {
                    body.push(line);
                }
            }
            None => {
                if let Some((c, n, info)) = fence(line) {
                    let lang = info.split_whitespace().next().unwrap_or("").to_string();
                    open = Some(((c, n), lang, Vec::new()));
                }
            }
        }
    }
    if let Some((_, lang, body)) = open {
        out.push(CodeBlock {
            lang,
            code: body.join("\n"),
        });
    }
    out
}

/// Lays `src` out as lines no wider than `width` cells.
pub fn render(src: &str, width: usize, pal: &Palette) -> Vec<StyledLine> {
    let mut out = Vec::new();
    let mut code: Option<((char, usize), Highlighter)> = None;
    let code_fill = Span {
        bg: Some(pal.code_bg),
        ..Span::new("", pal.fg)
    };
    let mut last_blank = true;
    for line in src.lines() {
        if let Some((marker, hl)) = &mut code {
            if closes(line, *marker) {
                code = None;
                continue;
            }
            let mut spans = hl.line(line, pal);
            for s in &mut spans {
                s.bg = Some(pal.code_bg);
            }
            let opts = WrapOpts {
                hard: true,
                fill: Some(&code_fill),
                ..WrapOpts::default()
            };
            out.extend(wrap(&spans, width, &opts));
            last_blank = false;
            continue;
        }
        if let Some((c, n, info)) = fence(line) {
            let lang = info.split_whitespace().next().unwrap_or("");
            let label = Span {
                bg: Some(pal.code_bg),
                italic: true,
                ..Span::new(if lang.is_empty() { " " } else { lang }, pal.dim)
            };
            let opts = WrapOpts {
                hard: true,
                fill: Some(&code_fill),
                ..WrapOpts::default()
            };
            out.extend(wrap(&[label], width, &opts));
            code = Some(((c, n), Highlighter::new(lang)));
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if !last_blank {
                out.push(StyledLine::default());
            }
            last_blank = true;
            continue;
        }
        last_blank = false;
        out.extend(block_line(line, width, pal));
    }
    out
}

/// One non-code source line.
fn block_line(line: &str, width: usize, pal: &Palette) -> Vec<StyledLine> {
    let trimmed = line.trim_start();
    let hashes = trimmed.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
        let mut spans = inline(trimmed[hashes..].trim(), pal);
        for s in &mut spans {
            s.bold = true;
            if s.bg.is_none() {
                s.fg = pal.accent;
            }
            s.underline |= hashes == 1;
        }
        return wrap(&spans, width, &WrapOpts::default());
    }
    if is_rule(trimmed) {
        return vec![StyledLine::new(vec![Span::new("─".repeat(width), pal.dim)])];
    }
    if let Some(rest) = trimmed.strip_prefix('>') {
        let bar = [Span::new("│ ", pal.dim)];
        let mut spans = inline(rest.trim_start(), pal);
        for s in &mut spans {
            s.italic = true;
        }
        let opts = WrapOpts {
            first_prefix: &bar,
            cont_prefix: &bar,
            ..WrapOpts::default()
        };
        return wrap(&spans, width, &opts);
    }
    let indent = line.len() - trimmed.len();
    let depth = (indent / LIST_INDENT).min(MAX_LIST_DEPTH);
    if let Some((marker, rest)) = list_marker(trimmed) {
        let pad = " ".repeat(depth * LIST_INDENT);
        let first = [Span::new(format!("{pad}{marker} "), pal.accent)];
        let hang = [Span::new(
            " ".repeat(depth * LIST_INDENT + koi_markdown::wrap::str_width(&marker) + 1),
            pal.fg,
        )];
        let opts = WrapOpts {
            first_prefix: &first,
            cont_prefix: &hang,
            ..WrapOpts::default()
        };
        return wrap(&inline(rest, pal), width, &opts);
    }
    wrap(&inline(trimmed, pal), width, &WrapOpts::default())
}

fn is_rule(t: &str) -> bool {
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    compact.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|m| compact.chars().all(|c| c == *m))
}

/// `- x`, `* x`, `+ x` → ("•", "x"); `12. x` / `3) x` → ("12.", "x").
fn list_marker(t: &str) -> Option<(String, &str)> {
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(("•".to_string(), rest.trim_start()));
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let after = &t[digits..];
        for d in [". ", ") "] {
            if let Some(rest) = after.strip_prefix(d) {
                return Some((format!("{}.", &t[..digits]), rest.trim_start()));
            }
        }
    }
    None
}

/// Inline markup of one line: `code`, **bold**, *italic*, _italic_,
/// [text](url) and <url>, with `\` escapes.
pub fn inline(text: &str, pal: &Palette) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Span> = Vec::new();
    let (mut bold, mut italic) = (false, false);
    let mut buf = String::new();
    let flush = |out: &mut Vec<Span>, buf: &mut String, bold: bool, italic: bool| {
        if !buf.is_empty() {
            out.push(Span {
                bold,
                italic,
                ..Span::new(std::mem::take(buf), pal.fg)
            });
        }
    };
    let find = |from: usize, pat: &[char]| -> Option<usize> {
        (from..chars.len()).find(|&i| chars[i..].starts_with(pat))
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\\' && next.is_some_and(|n| n.is_ascii_punctuation()) {
            buf.push(next.unwrap_or('\\'));
            i += 2;
            continue;
        }
        if c == '`' {
            let run = chars[i..].iter().take_while(|x| **x == '`').count();
            let ticks = vec!['`'; run];
            if let Some(end) = find(i + run, &ticks) {
                flush(&mut out, &mut buf, bold, italic);
                let code: String = chars[i + run..end].iter().collect();
                out.push(Span {
                    bg: Some(pal.code_bg),
                    ..Span::new(code.trim().to_string(), pal.string)
                });
                i = end + run;
                continue;
            }
            buf.extend(&ticks);
            i += run;
            continue;
        }
        if (c == '*' || c == '_') && next == Some(c) {
            let closing = [c, c];
            if bold || find(i + 2, &closing).is_some() {
                flush(&mut out, &mut buf, bold, italic);
                bold = !bold;
                i += 2;
                continue;
            }
            // An unmatched pair stays literal rather than opening italics.
            buf.push(c);
            buf.push(c);
            i += 2;
            continue;
        }
        if c == '*' || c == '_' {
            let prev_word = i > 0 && chars[i - 1].is_alphanumeric();
            let opens = !italic
                && next.is_some_and(|n| !n.is_whitespace())
                && !(c == '_' && prev_word)
                && find(i + 1, &[c]).is_some();
            let closes = italic && !(c == '_' && next.is_some_and(char::is_alphanumeric));
            if opens || closes {
                flush(&mut out, &mut buf, bold, italic);
                italic = !italic;
                i += 1;
                continue;
            }
        }
        if c == '[' {
            if let Some(close) = find(i + 1, &[']', '(']) {
                if let Some(end) = find(close + 2, &[')']) {
                    flush(&mut out, &mut buf, bold, italic);
                    let label: String = chars[i + 1..close].iter().collect();
                    let url: String = chars[close + 2..end].iter().collect();
                    let shown = if label.trim().is_empty() { url } else { label };
                    out.push(Span {
                        underline: true,
                        bold,
                        italic,
                        ..Span::new(shown, pal.accent)
                    });
                    i = end + 1;
                    continue;
                }
            }
        }
        if c == '<' {
            if let Some(end) = find(i + 1, &['>']) {
                let url: String = chars[i + 1..end].iter().collect();
                if url.starts_with("http://") || url.starts_with("https://") {
                    flush(&mut out, &mut buf, bold, italic);
                    out.push(Span {
                        underline: true,
                        ..Span::new(url, pal.accent)
                    });
                    i = end + 1;
                    continue;
                }
            }
        }
        buf.push(c);
        i += 1;
    }
    flush(&mut out, &mut buf, bold, italic);
    out
}
