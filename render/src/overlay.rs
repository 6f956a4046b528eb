//! Overlay layers: boxes with a background, a border and lines of styled
//! text, drawn above the grid (the chat overlay, error banners).

use std::sync::Arc;

use crate::cell::{Cell, CellFlags, UnderlineStyle};
use crate::color::Color;
use crate::picture::PicturePixels;
pub use koi_markdown::{Break, Span, StyledLine};

/// Where an overlay sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OverlayRect {
    /// Physical pixels from the top-left corner of the target.
    Pixels {
        /// Left edge.
        x: u32,
        /// Top edge.
        y: u32,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// Grid cells, relative to the grid's first cell (inside the padding).
    Cells {
        /// First column.
        col: usize,
        /// First row.
        row: usize,
        /// Width in columns.
        cols: usize,
        /// Height in rows.
        rows: usize,
    },
}

/// A border drawn inside an overlay's rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Border {
    /// Border colour.
    pub color: Color,
    /// Thickness in physical pixels.
    pub width_px: u32,
}

/// A box above the grid. Text is laid out one character per cell (two for
/// wide characters), starting one cell-padding inside the border, and is
/// clipped to the box; the caller wraps long lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OverlayLayer {
    /// Placement.
    pub rect: OverlayRect,
    /// Fill colour.
    pub background: Color,
    /// Optional border.
    pub border: Option<Border>,
    /// Inner padding between the border and the text, in physical pixels.
    pub padding_px: u32,
    /// Text lines, top to bottom.
    pub lines: Vec<StyledLine>,
    /// Pictures drawn over the text area (a picture an answer names).
    pub pictures: Vec<OverlayPicture>,
}

/// A picture inside an overlay's text area: fitted into a box of text
/// cells (its aspect kept, top-left aligned, never larger than its own
/// pixels) and clipped to a band of text rows, so a picture scrolled half
/// out of a panel's conversation shows its remaining half.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OverlayPicture {
    /// The picture; the renderer uploads it once however many frames show it.
    pub pixels: Arc<PicturePixels>,
    /// The box's first column, from the text area's left edge.
    pub col: usize,
    /// The box's first row, from the first text line; negative when it
    /// starts above the text area.
    pub row: isize,
    /// The box's width in cells.
    pub cols: usize,
    /// The box's height in cells.
    pub rows: usize,
    /// The text rows `start..end` the picture may cover; the rest of it is
    /// cut off.
    pub clip_rows: (usize, usize),
}

/// An overlay's text converted to grid cells: `cols × lines.len()`.
pub(crate) struct OverlayCells {
    pub cols: usize,
    pub rows: usize,
    pub cells: Vec<Cell>,
}

/// Lays `lines` out on a grid `cols` wide (at most `max_rows` rows).
pub(crate) fn layout_cells(
    lines: &[StyledLine],
    cols: usize,
    max_rows: usize,
    background: Color,
) -> OverlayCells {
    let rows = lines.len().min(max_rows);
    let mut blank = Cell::new(' ');
    blank.bg = background;
    let mut cells = vec![blank; cols.saturating_mul(rows)];
    for (row, line) in lines.iter().take(rows).enumerate() {
        let mut col = 0usize;
        for span in &line.spans {
            let mut flags = CellFlags::empty();
            flags.set(CellFlags::BOLD, span.bold);
            flags.set(CellFlags::ITALIC, span.italic);
            flags.set(CellFlags::STRIKEOUT, span.strike);
            let template = Cell {
                ch: ' ',
                fg: span.fg,
                bg: span.bg.unwrap_or(background),
                flags,
                underline: if span.underline {
                    UnderlineStyle::Single
                } else {
                    UnderlineStyle::None
                },
                ..Cell::default()
            };
            for ch in span.text.chars() {
                if ch.is_control() {
                    continue;
                }
                let width = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
                if width == 0 || col + width > cols {
                    continue;
                }
                let base = row * cols + col;
                let mut cell = template.clone();
                cell.ch = ch;
                cell.flags.set(CellFlags::WIDE, width == 2);
                cells[base] = cell;
                if width == 2 {
                    let mut spacer = template.clone();
                    spacer.flags |= CellFlags::WIDE_SPACER;
                    cells[base + 1] = spacer;
                }
                col += width;
            }
        }
    }
    OverlayCells { cols, rows, cells }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NamedColor;

    #[test]
    fn spans_lay_out_and_clip() {
        let fg = Color::Named(NamedColor::Foreground);
        let bg = Color::Named(NamedColor::Black);
        let lines = vec![
            StyledLine::new(vec![Span::new("ab", fg), Span::new("你xyz", fg)]),
            StyledLine::default(),
        ];
        let out = layout_cells(&lines, 5, 10, bg);
        assert_eq!((out.cols, out.rows), (5, 2));
        let text: String = out.cells[..5].iter().map(|c| c.ch).collect();
        assert_eq!(text, "ab你 x");
        assert!(out.cells[3].flags.contains(CellFlags::WIDE_SPACER));
        assert_eq!(out.cells[5].bg, bg);
    }
}
