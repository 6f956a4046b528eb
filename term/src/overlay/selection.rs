//! Mouse selection in the panel's conversation, in conversation
//! coordinates (laid-out line, display column) so it stays on the same text
//! while the panel scrolls and answers stream in below it.
//!
//! Semantics follow the terminal's selection: a drag selects from the half
//! of the cell it started in to the half it ends in (a click without a drag
//! selects nothing), a double click selects a word and a triple click a
//! line, and dragging after either extends by words or lines. Words end at
//! the same characters as in the terminal
//! ([`SEMANTIC_ESCAPE_CHARS`]). A wide (CJK) character is two columns and is
//! selected whole when either of its halves is.
//!
//! Copied text is the text as displayed less the layout: trailing spaces
//! and the panel's indent margins are dropped, and a line the layout
//! wrapped into the next joins it again (with the space the wrap replaced),
//! so a long command or paragraph copies as the one line it is.

use std::ops::Range;

use alacritty_terminal::index::Side;
use alacritty_terminal::term::SEMANTIC_ESCAPE_CHARS;
use render::{Break, Span, StyledLine};

use super::style::Palette;
use super::wrap::char_width;

/// A cell of the laid-out conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextPoint {
    /// Line of the whole conversation (0 is the oldest).
    pub line: usize,
    /// Display column (a wide character takes two).
    pub col: usize,
}

impl TextPoint {
    /// The point at `line`, `col`.
    pub fn new(line: usize, col: usize) -> Self {
        Self { line, col }
    }
}

/// What a press selects, from how many quick clicks made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionKind {
    /// Character by character.
    Simple,
    /// Whole words.
    Word,
    /// Whole lines.
    Line,
}

impl SelectionKind {
    /// One click drags characters, two select a word, three a line (a
    /// fourth starts over, as in the terminal).
    pub fn from_clicks(clicks: u8) -> Self {
        match clicks {
            2 => Self::Word,
            3 => Self::Line,
            _ => Self::Simple,
        }
    }
}

/// Selected cells, from `start` to `end` inclusive in reading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectedRange {
    /// First selected cell.
    pub start: TextPoint,
    /// Last selected cell.
    pub end: TextPoint,
}

impl SelectedRange {
    /// The columns selected on `line` of a `width`-column layout, before
    /// widening to whole characters; `None` when the line is outside.
    pub fn columns(&self, line: usize, width: usize) -> Option<Range<usize>> {
        if line < self.start.line || line > self.end.line {
            return None;
        }
        let from = if line == self.start.line {
            self.start.col
        } else {
            0
        };
        let to = if line == self.end.line {
            self.end.col + 1
        } else {
            width
        };
        (from < to).then_some(from..to)
    }

    /// The selected text of `lines` (the whole conversation, indexed by
    /// line): trailing spaces trimmed, wrapped lines joined back, other
    /// lines joined by `\n`.
    pub fn text(&self, lines: &[StyledLine], width: usize) -> String {
        let mut out = String::new();
        for line in self.start.line..=self.end.line {
            let Some(styled) = lines.get(line) else { break };
            let joins = styled.continues.filter(|_| line > self.start.line);
            let text = match self.columns(line, width) {
                Some(cols) => {
                    LineCells::new(styled).text_in(cols.start.max(styled.margin)..cols.end)
                }
                None => String::new(),
            };
            match joins {
                None if line > self.start.line => out.push('\n'),
                Some(Break::Space) => out.push(' '),
                _ => {}
            }
            out.push_str(text.trim_end());
        }
        out
    }
}

/// One end of a selection: the cell and half the pointer was on, and for
/// word and line selections the whole word or line around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pin {
    point: TextPoint,
    side: Side,
    span: (TextPoint, TextPoint),
}

/// A selection being made or made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    kind: SelectionKind,
    anchor: Pin,
    head: Pin,
    /// The layout width the points refer to; a re-wrap invalidates them.
    width: usize,
    /// The button is still down.
    dragging: bool,
}

impl Selection {
    /// Starts a selection at `point` on `line` (the laid-out line under the
    /// pointer) of a `width`-column layout.
    pub fn start(
        kind: SelectionKind,
        point: TextPoint,
        side: Side,
        line: &StyledLine,
        width: usize,
    ) -> Self {
        let pin = Pin::new(kind, point, side, line, width);
        Self {
            kind,
            anchor: pin,
            head: pin,
            width,
            dragging: true,
        }
    }

    /// Moves the free end to `point` on `line`.
    pub fn update(&mut self, point: TextPoint, side: Side, line: &StyledLine) {
        self.head = Pin::new(self.kind, point, side, line, self.width);
    }

    /// The button was released: the selection is made.
    pub fn finish(&mut self) {
        self.dragging = false;
    }

    /// What the press selects.
    pub fn kind(&self) -> SelectionKind {
        self.kind
    }

    /// Whether the button is still down.
    pub fn is_dragging(&self) -> bool {
        self.dragging
    }

    /// The layout width the selection refers to.
    pub fn width(&self) -> usize {
        self.width
    }

    /// What is selected; `None` when nothing is (a click without a drag).
    pub fn range(&self) -> Option<SelectedRange> {
        match self.kind {
            SelectionKind::Simple => self.simple_range(),
            SelectionKind::Word | SelectionKind::Line => Some(SelectedRange {
                start: self.anchor.span.0.min(self.head.span.0),
                end: self.anchor.span.1.max(self.head.span.1),
            }),
        }
    }

    fn simple_range(&self) -> Option<SelectedRange> {
        let key = |p: &Pin| (p.point, p.side == Side::Right);
        let (start, end) = if key(&self.anchor) <= key(&self.head) {
            (self.anchor, self.head)
        } else {
            (self.head, self.anchor)
        };
        if key(&start) == key(&end) {
            return None;
        }
        // A half cell counts only from its middle on: starting on a right
        // half begins at the next cell, ending on a left half stops short.
        let last_col = self.width.saturating_sub(1);
        let mut from = start.point;
        if start.side == Side::Right {
            from = if from.col >= last_col {
                TextPoint::new(from.line + 1, 0)
            } else {
                TextPoint::new(from.line, from.col + 1)
            };
        }
        let mut to = end.point;
        if end.side == Side::Left {
            to = match (to.col, to.line) {
                (0, 0) => return None,
                (0, line) => TextPoint::new(line - 1, last_col),
                (col, line) => TextPoint::new(line, col - 1),
            };
        }
        (from <= to).then_some(SelectedRange {
            start: from,
            end: to,
        })
    }
}

impl Pin {
    fn new(
        kind: SelectionKind,
        point: TextPoint,
        side: Side,
        line: &StyledLine,
        width: usize,
    ) -> Self {
        let span = match kind {
            SelectionKind::Simple => (point, point),
            SelectionKind::Word => {
                let cols = LineCells::new(line).word_at(point.col);
                (
                    TextPoint::new(point.line, cols.start),
                    TextPoint::new(point.line, cols.end.saturating_sub(1).max(cols.start)),
                )
            }
            SelectionKind::Line => (
                TextPoint::new(point.line, 0),
                TextPoint::new(point.line, width.saturating_sub(1)),
            ),
        };
        Self { point, side, span }
    }
}

/// One drawn character: its columns and its text (a base character and the
/// combining marks drawn with it).
#[derive(Debug, Clone)]
struct Glyph {
    col: usize,
    width: usize,
    bytes: Range<usize>,
}

impl Glyph {
    fn cols(&self) -> Range<usize> {
        self.col..self.col + self.width
    }
}

/// A laid-out line as the renderer places it on cells.
struct LineCells {
    text: String,
    glyphs: Vec<Glyph>,
}

impl LineCells {
    fn new(line: &StyledLine) -> Self {
        let mut text = String::new();
        let mut glyphs: Vec<Glyph> = Vec::new();
        let mut col = 0;
        for ch in line.spans.iter().flat_map(|s| s.text.chars()) {
            if ch.is_control() {
                continue;
            }
            let start = text.len();
            text.push(ch);
            let width = char_width(ch);
            match glyphs.last_mut() {
                Some(last) if width == 0 => last.bytes.end = text.len(),
                _ if width == 0 => {}
                _ => {
                    glyphs.push(Glyph {
                        col,
                        width,
                        bytes: start..text.len(),
                    });
                    col += width;
                }
            }
        }
        Self { text, glyphs }
    }

    fn glyph_at(&self, col: usize) -> Option<&Glyph> {
        self.glyphs.iter().find(|g| g.cols().contains(&col))
    }

    fn is_word(&self, g: &Glyph) -> bool {
        self.text[g.bytes.clone()]
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && !SEMANTIC_ESCAPE_CHARS.contains(c))
    }

    /// The columns of the word under `col` (just that cell when it is a
    /// separator or past the end of the text).
    fn word_at(&self, col: usize) -> Range<usize> {
        let Some(i) = self.glyphs.iter().position(|g| g.cols().contains(&col)) else {
            return col..col + 1;
        };
        if !self.is_word(&self.glyphs[i]) {
            return self.glyphs[i].cols();
        }
        let first = self.glyphs[..i]
            .iter()
            .rposition(|g| !self.is_word(g))
            .map_or(0, |p| p + 1);
        let last = self.glyphs[i..]
            .iter()
            .position(|g| !self.is_word(g))
            .map_or(self.glyphs.len(), |p| i + p);
        self.glyphs[first].col..self.glyphs[last - 1].cols().end
    }

    /// `cols` widened so no wide character is cut in half.
    fn widen(&self, cols: Range<usize>) -> Range<usize> {
        let from = self.glyph_at(cols.start).map_or(cols.start, |g| g.col);
        let to = cols
            .end
            .checked_sub(1)
            .and_then(|c| self.glyph_at(c))
            .map_or(cols.end, |g| g.cols().end.max(cols.end));
        from..to
    }

    /// The text of the characters in `cols`, blank cells between them as
    /// spaces.
    fn text_in(&self, cols: Range<usize>) -> String {
        let cols = self.widen(cols);
        let mut out = String::new();
        let mut at = cols.start;
        for g in self.glyphs.iter().filter(|g| g.col >= cols.start) {
            if g.col >= cols.end {
                break;
            }
            out.extend(std::iter::repeat_n(' ', g.col.saturating_sub(at)));
            out.push_str(&self.text[g.bytes.clone()]);
            at = g.cols().end;
        }
        out
    }
}

/// `line` with the cells in `cols` drawn as selected, padded with selected
/// blanks when the selection runs past the text (never beyond `width`).
pub fn highlight(line: &StyledLine, cols: Range<usize>, width: usize, pal: &Palette) -> StyledLine {
    let cols = LineCells::new(line).widen(cols);
    let piece = |span: &Span, text: String, selected: bool| {
        if selected {
            Span {
                text,
                fg: pal.selection_fg.unwrap_or(span.fg),
                bg: Some(pal.selection_bg),
                ..span.clone()
            }
        } else {
            Span {
                text,
                ..span.clone()
            }
        }
    };
    let mut spans: Vec<Span> = Vec::with_capacity(line.spans.len() + 2);
    let mut col = 0;
    // Zero-width characters (combining marks) go with the one before them.
    let mut selected = false;
    for span in &line.spans {
        let mut cur = String::new();
        for ch in span.text.chars() {
            let w = char_width(ch);
            let now = if w == 0 {
                selected
            } else {
                cols.contains(&col)
            };
            if now != selected && !cur.is_empty() {
                spans.push(piece(span, std::mem::take(&mut cur), selected));
            }
            selected = now;
            cur.push(ch);
            col += w;
        }
        if !cur.is_empty() {
            spans.push(piece(span, cur, selected));
        }
    }
    let pad_to = cols.end.min(width);
    if col < pad_to {
        let blank = Span::new("", pal.fg);
        if col < cols.start {
            spans.push(piece(&blank, " ".repeat(cols.start - col), false));
            col = cols.start;
        }
        spans.push(piece(&blank, " ".repeat(pad_to - col), true));
    }
    StyledLine { spans, ..*line }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> StyledLine {
        StyledLine::new(vec![Span::new(text, Palette::default().fg)])
    }

    fn drag(
        lines: &[StyledLine],
        from: (usize, usize, Side),
        to: (usize, usize, Side),
    ) -> Option<String> {
        let width = 20;
        let mut s = Selection::start(
            SelectionKind::Simple,
            TextPoint::new(from.0, from.1),
            from.2,
            &lines[from.0],
            width,
        );
        s.update(TextPoint::new(to.0, to.1), to.2, &lines[to.0]);
        s.range().map(|r| r.text(lines, width))
    }

    #[test]
    fn half_cells_decide_the_ends() {
        let lines = [line("hello world")];
        let l = Side::Left;
        let r = Side::Right;
        assert_eq!(drag(&lines, (0, 0, l), (0, 4, r)).as_deref(), Some("hello"));
        assert_eq!(drag(&lines, (0, 0, r), (0, 4, l)).as_deref(), Some("ell"));
        // Backwards drags select the same.
        assert_eq!(drag(&lines, (0, 4, r), (0, 0, l)).as_deref(), Some("hello"));
        // A click, or a move inside one half, selects nothing.
        assert_eq!(drag(&lines, (0, 3, l), (0, 3, l)), None);
        assert_eq!(drag(&lines, (0, 3, r), (0, 4, l)), None);
    }

    #[test]
    fn wide_characters_are_selected_whole() {
        let lines = [line("ab漢字cd")];
        // Column 3 is the right half of 漢 (columns 2-3); 字 is 4-5.
        assert_eq!(
            drag(&lines, (0, 3, Side::Left), (0, 4, Side::Right)).as_deref(),
            Some("漢字")
        );
        assert_eq!(
            drag(&lines, (0, 3, Side::Left), (0, 4, Side::Left)).as_deref(),
            Some("漢"),
            "the left half of 字 ends the drag before it"
        );
        assert_eq!(
            drag(&lines, (0, 1, Side::Left), (0, 2, Side::Right)).as_deref(),
            Some("b漢")
        );
        let pal = Palette::default();
        let lit = highlight(&lines[0], 3..4, 20, &pal);
        let sel: String = lit
            .spans
            .iter()
            .filter(|s| s.bg == Some(pal.selection_bg))
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(sel, "漢");
    }

    #[test]
    fn words_stop_at_the_terminals_separators() {
        let cells = LineCells::new(&line("  see `src/main.rs` (漢字)"));
        assert_eq!(cells.word_at(3), 2..5);
        assert_eq!(cells.word_at(7), 7..18, "path is one word");
        assert_eq!(cells.word_at(6), 6..7, "a separator selects itself");
        assert_eq!(cells.word_at(22), 21..25, "CJK word, clicked on a half");
        assert_eq!(cells.word_at(40), 40..41, "past the text");
    }

    #[test]
    fn highlight_keeps_the_text_and_pads_to_the_selection() {
        let pal = Palette::default();
        let plain = line("abc");
        let lit = highlight(&plain, 1..6, 5, &pal);
        let text: String = lit.spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(text, "abc  ", "padded to the width, not past it");
        assert_eq!(lit.spans[0].bg, None);
        assert!(lit.spans[1..]
            .iter()
            .all(|s| s.bg == Some(pal.selection_bg)));
        let lit = highlight(&StyledLine::default(), 2..4, 10, &pal);
        assert_eq!(lit.spans[0].text, "  ");
        assert_eq!(lit.spans[0].bg, None);
        assert_eq!(lit.spans[1].text, "  ");
    }
}
