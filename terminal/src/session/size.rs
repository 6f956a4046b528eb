//! Grid sizes as both portable-pty and alacritty_terminal want them.

use alacritty_terminal::event::WindowSize;
use alacritty_terminal::grid::Dimensions;
use portable_pty::PtySize;

/// The smallest grid koi will create: a zero-sized PTY confuses many programs.
const MIN_DIMENSION: u16 = 1;

/// A terminal grid size in cells, plus the cell size in pixels that some
/// applications ask for (`CSI 14 t`). Headless sessions use a nominal cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSize {
    pub cols: u16,
    pub rows: u16,
    pub cell_width: u16,
    pub cell_height: u16,
}

impl GridSize {
    /// Nominal cell size used when no renderer has measured a real font.
    pub const NOMINAL_CELL: (u16, u16) = (8, 16);

    /// A grid of `cols` × `rows` with the nominal cell size; zero is clamped to one.
    pub fn new(cols: u16, rows: u16) -> Self {
        Self {
            cols: cols.max(MIN_DIMENSION),
            rows: rows.max(MIN_DIMENSION),
            cell_width: Self::NOMINAL_CELL.0,
            cell_height: Self::NOMINAL_CELL.1,
        }
    }

    /// The same grid with a measured cell size in pixels.
    pub fn with_cell_px(mut self, width: u16, height: u16) -> Self {
        self.cell_width = width.max(1);
        self.cell_height = height.max(1);
        self
    }

    pub(crate) fn pty_size(self) -> PtySize {
        PtySize {
            rows: self.rows,
            cols: self.cols,
            pixel_width: self.cols.saturating_mul(self.cell_width),
            pixel_height: self.rows.saturating_mul(self.cell_height),
        }
    }

    pub(crate) fn window_size(self) -> WindowSize {
        WindowSize {
            num_lines: self.rows,
            num_cols: self.cols,
            cell_width: self.cell_width,
            cell_height: self.cell_height,
        }
    }
}

impl Default for GridSize {
    fn default() -> Self {
        Self::new(80, 24)
    }
}

impl Dimensions for GridSize {
    fn total_lines(&self) -> usize {
        self.rows as usize
    }

    fn screen_lines(&self) -> usize {
        self.rows as usize
    }

    fn columns(&self) -> usize {
        self.cols as usize
    }
}
