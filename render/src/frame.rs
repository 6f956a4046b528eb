//! The plain description of one frame: the grid of cells, cursor,
//! selection and overlay layers. The terminal fills it from a snapshot;
//! nothing here knows about PTYs or VT parsing.

pub use crate::cell::{Cell, CellFlags, UnderlineStyle};
use crate::overlay::OverlayLayer;

/// The shape the cursor is drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CursorShape {
    /// A filled cell; the text under it takes the background colour.
    #[default]
    Block,
    /// A thin vertical bar at the cell's left edge.
    Beam,
    /// A bar along the cell's bottom edge.
    Underline,
    /// The outline of a block (also drawn for any shape when unfocused).
    HollowBlock,
}

/// Where and how to draw the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CursorSpec {
    /// Column (0-based).
    pub col: usize,
    /// Row (0-based, from the top of the visible grid).
    pub row: usize,
    /// Shape when the window is focused.
    pub shape: CursorShape,
    /// Whether the window has focus; unfocused cursors are hollow blocks.
    pub focused: bool,
}

impl CursorSpec {
    /// The shape actually drawn, after the focus rule.
    pub fn effective_shape(&self) -> CursorShape {
        if self.focused {
            self.shape
        } else {
            CursorShape::HollowBlock
        }
    }
}

/// Selected cells on one row: columns `start_col..end_col` (end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SelectionSpan {
    /// Row (0-based, from the top of the visible grid).
    pub row: usize,
    /// First selected column.
    pub start_col: usize,
    /// One past the last selected column.
    pub end_col: usize,
}

/// How much of the grid the caller knows to have changed since the
/// previous frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Damage {
    /// Unknown: the renderer compares every row with the previous frame.
    #[default]
    Full,
    /// Only these rows may differ (e.g. from alacritty_terminal's damage);
    /// the renderer compares just these and trusts the rest unchanged.
    /// Cursor and selection changes are always detected by the renderer.
    Rows(Vec<usize>),
}

/// Everything needed to draw one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    /// Grid width in cells.
    pub cols: usize,
    /// Grid height in cells.
    pub rows: usize,
    /// `cols * rows` cells, row-major. Missing cells draw as blanks; extra
    /// cells are ignored.
    pub cells: Vec<Cell>,
    /// The cursor, if visible.
    pub cursor: Option<CursorSpec>,
    /// The cursors of panes without the focus, drawn as hollow blocks
    /// whatever their shape, so a split shows where each shell's cursor is.
    pub inactive_cursors: Vec<CursorSpec>,
    /// Selected ranges, any order.
    pub selection: Vec<SelectionSpan>,
    /// Boxes drawn above the grid, in order (later ones on top).
    pub overlays: Vec<OverlayLayer>,
    /// A hint about which rows changed.
    pub damage: Damage,
    /// Parts of pictures shown in grid cells (kitty graphics, sixel,
    /// iTerm2 images), any order.
    pub pictures: Vec<crate::picture::PictureTile>,
}

impl Frame {
    /// A blank frame of `cols × rows` default cells.
    pub fn blank(cols: usize, rows: usize) -> Self {
        let len = cols.saturating_mul(rows);
        Self {
            cols,
            rows,
            cells: vec![Cell::new(' '); len],
            ..Self::default()
        }
    }

    /// The cell at (`col`, `row`), if the frame has it.
    pub fn cell(&self, col: usize, row: usize) -> Option<&Cell> {
        if col >= self.cols {
            return None;
        }
        self.cells
            .get(row.checked_mul(self.cols)?.checked_add(col)?)
    }

    /// Mutable access to the cell at (`col`, `row`), if the frame has it.
    pub fn cell_mut(&mut self, col: usize, row: usize) -> Option<&mut Cell> {
        if col >= self.cols {
            return None;
        }
        self.cells
            .get_mut(row.checked_mul(self.cols)?.checked_add(col)?)
    }

    /// The cells of `row` (possibly shorter than `cols` if the frame is
    /// short of cells).
    pub(crate) fn row_cells(&self, row: usize) -> &[Cell] {
        let start = row.saturating_mul(self.cols).min(self.cells.len());
        let end = start.saturating_add(self.cols).min(self.cells.len());
        &self.cells[start..end]
    }

    /// Writes `text` from (`col`, `row`) with `template`'s colours and flags,
    /// one cell per character and two (wide + spacer) for double-width ones.
    /// Stops at the end of the row. Handy for tests and banners.
    pub fn write_str(&mut self, col: usize, row: usize, text: &str, template: &Cell) {
        let mut col = col;
        // Where the previous character went, for combining marks.
        let mut last: Option<usize> = None;
        for ch in text.chars() {
            if ch.is_control() {
                continue;
            }
            let width = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if width == 0 {
                if let Some(cell) = last.and_then(|c| self.cell_mut(c, row)) {
                    let mut marks = cell.zerowidth.take().map(Vec::from).unwrap_or_default();
                    marks.push(ch);
                    cell.zerowidth = Some(marks.into_boxed_slice());
                }
                continue;
            }
            if col + width > self.cols {
                break;
            }
            let mut flags = template.flags;
            flags.set(CellFlags::WIDE, width == 2);
            flags.set(CellFlags::WIDE_SPACER, false);
            if let Some(cell) = self.cell_mut(col, row) {
                *cell = Cell {
                    ch,
                    flags,
                    ..template.clone()
                };
            }
            if width == 2 {
                if let Some(spacer) = self.cell_mut(col + 1, row) {
                    *spacer = Cell {
                        ch: ' ',
                        flags: flags | CellFlags::WIDE_SPACER,
                        ..template.clone()
                    };
                    spacer.flags.set(CellFlags::WIDE, false);
                }
            }
            last = Some(col);
            col += width;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_set_and_clear() {
        let mut f = CellFlags::BOLD | CellFlags::ITALIC;
        assert!(f.contains(CellFlags::BOLD));
        f.set(CellFlags::BOLD, false);
        assert!(!f.contains(CellFlags::BOLD) && f.contains(CellFlags::ITALIC));
    }

    #[test]
    fn write_str_marks_wide_cells() {
        let mut frame = Frame::blank(5, 1);
        frame.write_str(0, 0, "a你b", &Cell::new(' '));
        assert_eq!(frame.cell(1, 0).map(|c| c.ch), Some('你'));
        assert!(frame
            .cell(1, 0)
            .is_some_and(|c| c.flags.contains(CellFlags::WIDE)));
        assert!(frame
            .cell(2, 0)
            .is_some_and(|c| c.flags.contains(CellFlags::WIDE_SPACER)));
        assert_eq!(frame.cell(3, 0).map(|c| c.ch), Some('b'));
    }

    #[test]
    fn short_and_huge_frames_do_not_panic() {
        let frame = Frame {
            cols: usize::MAX,
            rows: 3,
            ..Frame::default()
        };
        assert!(frame.cell(5, 2).is_none());
        assert!(frame.row_cells(2).is_empty());
    }
}
