//! Wrapping styled text to a width in terminal cells: CJK and emoji take two
//! cells, combining marks none, as a terminal lays them out.

use crate::styled::{Break, Span, StyledLine};
use unicode_width::UnicodeWidthChar;

/// Cells a tab expands to; code is usually indented by four.
const TAB_WIDTH: usize = 4;
/// Drawn in place of a wide character on a line only one cell wide, so no
/// line ever exceeds its width.
const NARROW_STANDIN: char = '…';

/// Display width of one character as the overlay draws it (control
/// characters are dropped when drawn, so they take nothing).
pub fn char_width(ch: char) -> usize {
    if ch.is_control() {
        0
    } else {
        ch.width().unwrap_or(0)
    }
}

/// Display width of a string.
pub fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// How a paragraph wraps.
#[derive(Debug, Clone, Default)]
pub struct WrapOpts<'a> {
    /// Drawn before the first line (a bullet, a prompt).
    pub first_prefix: &'a [Span],
    /// Drawn before every following line (a hanging indent).
    pub cont_prefix: &'a [Span],
    /// Break only at the width, never at spaces (code keeps its columns).
    pub hard: bool,
    /// Pad every line to the full width with this span style (code blocks).
    pub fill: Option<&'a Span>,
}

/// One laid-out row before styling: whether it is the paragraph's first,
/// whether the break before it replaced a space, and its glyphs.
struct Row {
    first: bool,
    at_space: bool,
    glyphs: Vec<Glyph>,
}

/// One styled character.
#[derive(Clone, Copy)]
struct Glyph {
    ch: char,
    style: usize,
    width: usize,
}

/// Wraps `body` to `width` cells. Always returns at least one line; never a
/// line wider than `width` (when `width` is 0 the lines are empty).
pub fn wrap(body: &[Span], width: usize, opts: &WrapOpts<'_>) -> Vec<StyledLine> {
    let mut glyphs = Vec::new();
    for (style, span) in body.iter().enumerate() {
        for ch in span.text.chars() {
            if ch == '\t' {
                for _ in 0..TAB_WIDTH {
                    glyphs.push(Glyph {
                        ch: ' ',
                        style,
                        width: 1,
                    });
                }
            } else if !ch.is_control() {
                glyphs.push(Glyph {
                    ch,
                    style,
                    width: char_width(ch),
                });
            }
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut line: Vec<Glyph> = Vec::new();
    let mut used = 0usize;
    let mut first = true;
    // Whether the break before the row being filled replaced a space.
    let mut at_space = false;
    let push_row = |rows: &mut Vec<Row>, first: bool, at_space: bool, glyphs| {
        rows.push(Row {
            first,
            at_space,
            glyphs,
        });
    };
    let avail = |first: bool| {
        let p = if first {
            opts.first_prefix
        } else {
            opts.cont_prefix
        };
        width - prefix_fits(p, width).1
    };
    if width == 0 {
        return vec![StyledLine::default()];
    }
    for g in glyphs {
        let mut g = g;
        let room = avail(first);
        if g.width > room {
            g.ch = NARROW_STANDIN;
            g.width = 1;
        }
        if g.width == 0 {
            line.push(g);
            continue;
        }
        if used + g.width <= room {
            used += g.width;
            line.push(g);
            continue;
        }
        // Overflow: break the line.
        if !opts.hard && g.ch == ' ' {
            push_row(&mut rows, first, at_space, std::mem::take(&mut line));
            first = false;
            at_space = true;
            used = 0;
            continue;
        }
        let split = if opts.hard {
            None
        } else {
            line.iter().rposition(|x| x.ch == ' ')
        };
        let (carry, split_at_space) = match split {
            Some(at) if at > 0 => {
                let tail = line.split_off(at + 1);
                line.pop();
                (tail, true)
            }
            _ => (Vec::new(), false),
        };
        push_row(&mut rows, first, at_space, std::mem::take(&mut line));
        first = false;
        at_space = split_at_space;
        line = carry;
        used = line.iter().map(|x| x.width).sum();
        if used + g.width > avail(false) {
            push_row(&mut rows, false, at_space, std::mem::take(&mut line));
            at_space = false;
            used = 0;
        }
        used += g.width;
        line.push(g);
    }
    push_row(&mut rows, first, at_space, line);
    // A carried word can still be too long for a narrower continuation
    // line; split such rows hard so no line exceeds the width.
    let mut fitted: Vec<Row> = Vec::with_capacity(rows.len());
    for row in rows {
        let mut room = avail(row.first);
        let mut cur = Vec::new();
        let mut w = 0;
        let (mut head, mut space) = (row.first, row.at_space);
        for mut g in row.glyphs {
            if g.width > avail(false).min(room) {
                g.ch = NARROW_STANDIN;
                g.width = 1;
            }
            if w + g.width > room {
                push_row(&mut fitted, head, space, std::mem::take(&mut cur));
                (head, space) = (false, false);
                room = avail(false);
                w = 0;
            }
            w += g.width;
            cur.push(g);
        }
        push_row(&mut fitted, head, space, cur);
    }
    fitted
        .into_iter()
        .map(
            |Row {
                 first: is_first,
                 at_space,
                 glyphs,
             }| {
                let prefix = if is_first {
                    opts.first_prefix
                } else {
                    opts.cont_prefix
                };
                let (prefix, pw) = prefix_fits(prefix, width);
                let mut spans: Vec<Span> = prefix.to_vec();
                let mut cur: Option<(usize, String)> = None;
                let mut w = pw;
                for g in &glyphs {
                    w += g.width;
                    match &mut cur {
                        Some((style, text)) if *style == g.style => text.push(g.ch),
                        _ => {
                            if let Some((style, text)) = cur.take() {
                                spans.push(restyle(&body[style], text));
                            }
                            cur = Some((g.style, g.ch.to_string()));
                        }
                    }
                }
                if let Some((style, text)) = cur {
                    spans.push(restyle(&body[style], text));
                }
                if let Some(fill) = opts.fill {
                    if w < width {
                        spans.push(restyle(fill, " ".repeat(width - w)));
                    }
                }
                StyledLine {
                    spans,
                    margin: blank_cells(prefix),
                    continues: (!is_first).then_some(if at_space {
                        Break::Space
                    } else {
                        Break::Cut
                    }),
                }
            },
        )
        .collect()
}

/// Cells of leading blanks in `prefix`: a hanging indent is layout, while
/// a bullet or a quote bar is part of what the line says.
fn blank_cells(prefix: &[Span]) -> usize {
    prefix
        .iter()
        .flat_map(|s| s.text.chars())
        .take_while(|c| *c == ' ')
        .count()
}

fn restyle(template: &Span, text: String) -> Span {
    Span {
        text,
        ..template.clone()
    }
}

/// `p` and its width when it leaves room for text on a `width`-cell line;
/// nothing otherwise (a tiny panel drops its indents first).
fn prefix_fits(p: &[Span], width: usize) -> (&[Span], usize) {
    let w: usize = p.iter().map(|s| str_width(&s.text)).sum();
    if w < width {
        (p, w)
    } else {
        (&[], 0)
    }
}

/// Width of a styled line.
pub fn line_width(line: &StyledLine) -> usize {
    line.spans.iter().map(|s| str_width(&s.text)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::{Color, NamedColor};

    fn fg() -> Color {
        Color::Named(NamedColor::Foreground)
    }

    fn texts(lines: &[StyledLine]) -> Vec<String> {
        lines.iter().map(StyledLine::text).collect()
    }

    #[test]
    fn breaks_at_spaces_and_hard_breaks_long_words() {
        let body = [Span::new("hello brave new world", fg())];
        let out = wrap(&body, 11, &WrapOpts::default());
        assert_eq!(texts(&out), ["hello brave", "new world"]);
        let body = [Span::new("abcdefghij", fg())];
        let out = wrap(&body, 4, &WrapOpts::default());
        assert_eq!(texts(&out), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn prefixes_and_fill() {
        let bullet = [Span::new("• ", fg())];
        let hang = [Span::new("  ", fg())];
        let fill = Span::new("", fg());
        let opts = WrapOpts {
            first_prefix: &bullet,
            cont_prefix: &hang,
            fill: Some(&fill),
            ..WrapOpts::default()
        };
        let out = wrap(&[Span::new("one two three", fg())], 9, &opts);
        assert_eq!(texts(&out), ["• one two", "  three  "]);
    }

    #[test]
    fn cjk_never_split_or_overflowing() {
        let body = [Span::new("漢字かな交じり文とemoji😀です", fg())];
        for width in 1..12 {
            for line in wrap(&body, width, &WrapOpts::default()) {
                assert!(line_width(&line) <= width, "width {width}: {line:?}");
            }
        }
        let out = wrap(&body, 5, &WrapOpts::default());
        assert_eq!(texts(&out)[0], "漢字");
    }

    #[test]
    fn combining_marks_stay_with_their_base() {
        let body = [Span::new("e\u{301}e\u{301}e\u{301}", fg())];
        let out = wrap(&body, 2, &WrapOpts::default());
        assert_eq!(texts(&out), ["e\u{301}e\u{301}", "e\u{301}"]);
    }
}
