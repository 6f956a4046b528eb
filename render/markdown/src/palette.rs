//! The colours an answer is drawn with. The overlay derives them from the
//! terminal's theme; `k` uses the terminal's own named colours so it looks
//! right on whatever palette the user has.

use crate::color::{Color, NamedColor};

/// Every colour a laid-out answer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Palette {
    /// Normal text.
    pub fg: Color,
    /// Secondary text: link targets, code labels, quote bars, rules.
    pub dim: Color,
    /// Headings, list markers, link text.
    pub accent: Color,
    /// Background of fenced and inline code; `None` draws code on the
    /// surface's own background (and does not pad code lines to the width).
    pub code_bg: Option<Color>,
    /// Language keywords.
    pub keyword: Color,
    /// String literals (and inline code).
    pub string: Color,
    /// Comments.
    pub comment: Color,
    /// Number and other constant literals.
    pub number: Color,
    /// Function names.
    pub function: Color,
    /// Type names.
    pub type_name: Color,
}

impl Palette {
    /// The terminal's named colours, for SGR output: no code background,
    /// since a fixed one clashes with light or dark themes.
    pub fn ansi() -> Self {
        Self {
            fg: Color::Named(NamedColor::Foreground),
            dim: Color::Named(NamedColor::BrightBlack),
            accent: Color::Named(NamedColor::Cyan),
            code_bg: None,
            keyword: Color::Named(NamedColor::Magenta),
            string: Color::Named(NamedColor::Green),
            comment: Color::Named(NamedColor::BrightBlack),
            number: Color::Named(NamedColor::Yellow),
            function: Color::Named(NamedColor::Blue),
            type_name: Color::Named(NamedColor::Cyan),
        }
    }
}

impl Default for Palette {
    fn default() -> Self {
        Self::ansi()
    }
}
