//! Where the cursor goes: a block is drawn as its cells' colours (so the
//! text under it takes the cursor-text colour); beam, underline and hollow
//! block are rectangles over the text.

use crate::color::Rgb;
use crate::font::CellMetrics;
use crate::frame::{CellFlags, CursorShape, CursorSpec, Frame};
use crate::rects::RectInstance;

/// Thinnest beam or underline cursor in pixels, so it stays visible when
/// the font's stroke is a single pixel.
const MIN_BAR: f32 = 2.0;

/// The grid as laid out on the target.
pub(crate) struct GridGeometry {
    pub padding: u32,
    pub metrics: CellMetrics,
    /// Columns and rows on screen.
    pub cols: usize,
    pub rows: usize,
}

/// The columns a cursor at (`col`, `row`) covers: two for a wide character
/// (whichever half it sits on), one otherwise.
fn cursor_cols(frame: &Frame, col: usize, row: usize) -> (usize, usize) {
    let flags = |c: usize| frame.cell(c, row).map(|cell| cell.flags);
    match flags(col) {
        Some(f) if f.contains(CellFlags::WIDE) && col + 1 < frame.cols => (col, col + 2),
        Some(f) if f.contains(CellFlags::WIDE_SPACER) && col > 0 => (col - 1, col + 1),
        _ => (col, col + 1),
    }
}

/// (row, first col, end col) of a focused block cursor.
pub(crate) fn block_cursor(frame: &Frame) -> Option<(usize, usize, usize)> {
    let cursor = frame.cursor?;
    if cursor.effective_shape() != CursorShape::Block || cursor.col >= frame.cols {
        return None;
    }
    let (start, end) = cursor_cols(frame, cursor.col, cursor.row);
    Some((cursor.row, start, end))
}

/// Appends the rectangles of a beam, underline or hollow cursor.
pub(crate) fn overlay_rects(
    out: &mut Vec<RectInstance>,
    frame: &Frame,
    cursor: CursorSpec,
    grid: &GridGeometry,
    color: Rgb,
    srgb: bool,
) {
    if cursor.row >= grid.rows || cursor.col >= grid.cols {
        return;
    }
    let m = grid.metrics;
    let (start, end) = cursor_cols(frame, cursor.col, cursor.row);
    let pad = grid.padding as f32;
    let x = pad + start as f32 * m.width as f32;
    let y = pad + cursor.row as f32 * m.height as f32;
    let w = (end - start) as f32 * m.width as f32;
    let h = m.height as f32;
    let s = m.stroke.max(1) as f32;
    let bar = s.max(MIN_BAR);
    let rect = |x, y, w, h| RectInstance::new(x, y, w, h, color, srgb);
    match cursor.effective_shape() {
        CursorShape::Block => {} // Drawn as the cells' colours.
        CursorShape::Beam => out.push(rect(x, y, bar.min(w), h)),
        CursorShape::Underline => out.push(rect(x, y + h - bar, w, bar)),
        CursorShape::HollowBlock => {
            out.push(rect(x, y, w, s));
            out.push(rect(x, y + h - s, w, s));
            out.push(rect(x, y, s, h));
            out.push(rect(x + w - s, y, s, h));
        }
    }
}
