//! Inline spans that may still open: a delimiter (`**`, `_`, `~~`, a
//! backtick, `[`) the parser left as plain text because its closer has not
//! arrived yet. If the closer comes on a later line of the same paragraph,
//! the line with the opener changes (the `**` disappears and its words turn
//! bold), so a streaming front end must not treat that line as final.

use std::ops::Range;

use pulldown_cmark::{Event, Tag, TagEnd};

/// Where a possible opener sits in the source.
pub(crate) type Offset = usize;

/// The source offsets of delimiter runs in the last inline run of `events`
/// (the text since the last block-level start) that could still open a
/// span. Events from `complete` on (the line still arriving) are ignored:
/// what that line turns out to be is not known yet.
pub(crate) fn open_delimiters(
    src: &str,
    events: &[(Event<'_>, Range<usize>)],
    complete: usize,
) -> Vec<Offset> {
    let mut open = Vec::new();
    let mut in_code = false;
    for (event, range) in events {
        if range.start >= complete {
            break;
        }
        match event {
            Event::Start(tag) if !is_inline(tag) => {
                // Inline content never spans a block boundary.
                open.clear();
                in_code = matches!(tag, Tag::CodeBlock(_));
            }
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(_) if !in_code => {
                scan(src, range.start..range.end.min(complete), &mut open)
            }
            _ => {}
        }
    }
    open
}

fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// Adds the possible openers in `src[range]` (text the parser left
/// literal) to `open`.
fn scan(src: &str, range: Range<usize>, open: &mut Vec<Offset>) {
    let bytes = src.as_bytes();
    let end = range.end.min(bytes.len());
    let mut i = range.start;
    while i < end {
        let b = bytes[i];
        if escaped(bytes, i) {
            // An escaped delimiter is text for good.
            i += 1;
            continue;
        }
        match b {
            b'*' | b'_' | b'~' | b'`' => {
                let run_start = run_start(bytes, i);
                let run_end = i + bytes[i..].iter().take_while(|&&c| c == b).count();
                let can = b == b'`' || can_open(src, b, run_start, run_end);
                if can && open.last() != Some(&run_start) {
                    open.push(run_start);
                }
                i = run_end;
                continue;
            }
            b'[' => {
                // A bracket closed on its own line cannot become a link's
                // text later (the destination must follow the `]` at once).
                let line_end = src[i..].find('\n').map_or(src.len(), |n| i + n);
                if !src[i..line_end].contains(']') {
                    open.push(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether `bytes[at]` follows an odd number of backslashes (a text event
/// for an escaped character starts after its backslash).
fn escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count()
        % 2
        == 1
}

/// Where the run of `bytes[at]` that `at` is in begins (a run may be split
/// over two text events).
fn run_start(bytes: &[u8], at: usize) -> usize {
    let c = bytes[at];
    let mut s = at;
    while s > 0 && bytes[s - 1] == c {
        s -= 1;
    }
    s
}

/// CommonMark's rule for a `*`, `_` or `~` run that can open emphasis: it
/// is left-flanking, and an `_` run inside a word cannot open.
fn can_open(src: &str, delim: u8, start: usize, end: usize) -> bool {
    let before = src[..start].chars().next_back();
    let after = src[end..].chars().next();
    let white = |c: Option<char>| c.is_none_or(char::is_whitespace);
    let punct = |c: Option<char>| c.is_some_and(|c| c.is_ascii_punctuation());
    let left = !white(after) && (!punct(after) || white(before) || punct(before));
    let right = !white(before) && (!punct(before) || white(after) || punct(after));
    match delim {
        b'_' => left && (!right || punct(before)),
        _ => left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::Parser;

    fn open(src: &str) -> Vec<usize> {
        let events: Vec<_> = Parser::new_ext(src, crate::layout::options())
            .into_offset_iter()
            .collect();
        let complete = src.rfind('\n').map_or(0, |i| i + 1);
        open_delimiters(src, &events, complete)
    }

    #[test]
    fn unclosed_openers_are_found_and_closed_ones_are_not() {
        assert_eq!(open("**bold\nstill\n"), [0]);
        assert_eq!(open("a *b* and ~~c\n"), [10]);
        assert_eq!(open("run `cargo\n"), [4]);
        assert_eq!(open("see [the\n"), [4]);
        assert!(open("**done** here\n").is_empty());
        assert!(open("[x] and [y](z)\n").is_empty());
    }

    #[test]
    fn stray_delimiters_that_cannot_open_are_ignored() {
        // Spaced, intraword `_`, closing-only, escaped.
        assert!(open("5 * 3 = 15\n").is_empty());
        assert!(open("snake_case_name\n").is_empty());
        assert!(open("done*\n").is_empty());
        assert!(open("\\*not\n").is_empty());
    }

    #[test]
    fn a_block_boundary_ends_what_is_open() {
        assert!(open("**a\n\nb\n").is_empty());
        assert!(open("- *a\n- b\n").is_empty());
        assert!(open("```\n**x\n```\n").is_empty());
        // The line still arriving is not a boundary yet: `#x` continues
        // the paragraph, though `#` alone would be a heading.
        assert_eq!(open("**a\n#"), [0]);
    }
}
