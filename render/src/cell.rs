//! One cell of the grid: its text, colours and attributes.

use std::sync::Arc;

use crate::color::Color;

/// Cell attribute bits (SGR state and wide-character bookkeeping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellFlags(u16);

impl CellFlags {
    /// Bold face.
    pub const BOLD: Self = Self(1);
    /// Italic face.
    pub const ITALIC: Self = Self(1 << 1);
    /// Dim (faint) text.
    pub const DIM: Self = Self(1 << 2);
    /// Foreground and background swapped.
    pub const INVERSE: Self = Self(1 << 3);
    /// Text drawn in the background colour (invisible, still selectable).
    pub const HIDDEN: Self = Self(1 << 4);
    /// A line through the middle of the text.
    pub const STRIKEOUT: Self = Self(1 << 5);
    /// The cell holds a double-width character that also covers the next cell.
    pub const WIDE: Self = Self(1 << 6);
    /// The cell is the right half of the wide character before it; it draws
    /// no text of its own.
    pub const WIDE_SPACER: Self = Self(1 << 7);

    /// No flags.
    pub const fn empty() -> Self {
        Self(0)
    }

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Set or clear the bits of `other`.
    pub fn set(&mut self, other: Self, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
}

impl std::ops::BitOr for CellFlags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for CellFlags {
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}

/// How a cell is underlined (SGR 4 and its colon sub-parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnderlineStyle {
    /// Not underlined.
    #[default]
    None,
    /// One straight line.
    Single,
    /// Two straight lines.
    Double,
    /// A wave.
    Curly,
    /// A dotted line.
    Dotted,
    /// A dashed line.
    Dashed,
}

/// One grid cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The base character; `' '` (or `'\0'`) draws no text.
    pub ch: char,
    /// Zero-width characters (combining marks, variation selectors, ZWJ
    /// sequences) drawn together with `ch`.
    pub zerowidth: Option<Box<[char]>>,
    /// Foreground colour before attributes are applied.
    pub fg: Color,
    /// Background colour before attributes are applied.
    pub bg: Color,
    /// Attribute bits.
    pub flags: CellFlags,
    /// Underline style.
    pub underline: UnderlineStyle,
    /// Underline colour (SGR 58); `None` uses the text colour.
    pub underline_color: Option<Color>,
    /// The OSC 8 hyperlink this cell belongs to. The renderer draws nothing
    /// special for it; the caller underlines a hovered link through
    /// `underline`.
    pub hyperlink: Option<Arc<str>>,
}

impl Default for Cell {
    /// A blank in the default colours.
    fn default() -> Self {
        Self {
            ch: ' ',
            zerowidth: None,
            fg: Color::Named(crate::NamedColor::Foreground),
            bg: Color::Named(crate::NamedColor::Background),
            flags: CellFlags::empty(),
            underline: UnderlineStyle::None,
            underline_color: None,
            hyperlink: None,
        }
    }
}

impl Cell {
    /// A cell holding `ch` in the default colours.
    pub fn new(ch: char) -> Self {
        Self {
            ch,
            ..Self::default()
        }
    }

    /// Whether the cell draws any glyph.
    pub(crate) fn has_text(&self) -> bool {
        !self.flags.contains(CellFlags::WIDE_SPACER) && self.ch != ' ' && !self.ch.is_control()
    }
}
