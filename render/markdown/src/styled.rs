//! Styled lines: what a layout produces and what both front ends draw (the
//! overlay as grid cells, `k` as SGR sequences).

use crate::color::Color;

/// A run of text sharing one style.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    /// The text; control characters are skipped.
    pub text: String,
    /// Text colour.
    pub fg: Color,
    /// Background behind the span; `None` leaves the surface's background.
    pub bg: Option<Color>,
    /// Bold face.
    pub bold: bool,
    /// Italic face.
    pub italic: bool,
    /// Single underline.
    pub underline: bool,
    /// Struck through.
    pub strike: bool,
    /// The target when the span is a link's text (a terminal that knows
    /// OSC 8 makes it clickable).
    pub link: Option<String>,
}

impl Span {
    /// Plain text in `fg`.
    pub fn new(text: impl Into<String>, fg: Color) -> Self {
        Self {
            text: text.into(),
            fg,
            bg: None,
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            link: None,
        }
    }
}

/// One laid-out line: spans left to right on the cell grid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct StyledLine {
    /// The spans, in order.
    pub spans: Vec<Span>,
    /// Leading cells of layout indent: drawn, but not part of the text
    /// (copying skips them).
    pub margin: usize,
    /// Set when the line above was wrapped into this one, so copying can
    /// join them back; not drawn.
    pub continues: Option<Break>,
}

impl StyledLine {
    /// A line of `spans` that starts a new line of text, with no margin.
    pub const fn new(spans: Vec<Span>) -> Self {
        Self {
            spans,
            margin: 0,
            continues: None,
        }
    }

    /// The plain text of the line, margin included.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}

/// How the line above was wrapped into this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Break {
    /// At a space, which the break replaced (word wrap).
    Space,
    /// Inside a word that did not fit (or code, which wraps at the width).
    Cut,
}
