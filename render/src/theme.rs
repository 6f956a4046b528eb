//! How a cell's colours resolve against the theme (the theme itself is
//! plain data in `render_types`, shared with the terminal core).

pub use render_types::theme::{xterm_palette, Theme, DIM_FACTOR};

use crate::color::Rgb;
use crate::frame::{Cell, CellFlags};

/// A cell's final colours after the theme, dim, inverse, hidden, selection
/// and the block cursor are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedColors {
    /// Text (and default decoration) colour.
    pub fg: Rgb,
    /// Background colour.
    pub bg: Rgb,
}

/// A theme's colours for a grid cell.
pub(crate) trait ResolveCell {
    /// The colours a cell is drawn with. `selected` and `block_cursor` come
    /// from the frame's selection and cursor, not from the cell.
    fn resolve_cell(&self, cell: &Cell, selected: bool, block_cursor: bool) -> ResolvedColors;
}

impl ResolveCell for Theme {
    fn resolve_cell(&self, cell: &Cell, selected: bool, block_cursor: bool) -> ResolvedColors {
        let mut fg = self.resolve(cell.fg);
        let mut bg = self.resolve(cell.bg);
        if cell.flags.contains(CellFlags::DIM) {
            fg = fg.scaled(DIM_FACTOR);
        }
        if cell.flags.contains(CellFlags::INVERSE) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if cell.flags.contains(CellFlags::HIDDEN) {
            fg = bg;
        }
        if selected {
            bg = self.selection_background;
            if let Some(sel_fg) = self.selection_foreground {
                fg = sel_fg;
            }
        }
        if block_cursor {
            fg = self.cursor_text.unwrap_or(bg);
            bg = self.cursor;
        }
        ResolvedColors { fg, bg }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::Color;

    #[test]
    fn inverse_hidden_dim_selection_cursor() {
        let theme = Theme::default();
        let red = Rgb::new(200, 0, 0);
        let blue = Rgb::new(0, 0, 200);
        let mut cell = Cell {
            fg: Color::Rgb(red),
            bg: Color::Rgb(blue),
            ..Cell::default()
        };
        let plain = theme.resolve_cell(&cell, false, false);
        assert_eq!((plain.fg, plain.bg), (red, blue));

        cell.flags = CellFlags::INVERSE;
        let inv = theme.resolve_cell(&cell, false, false);
        assert_eq!((inv.fg, inv.bg), (blue, red));

        cell.flags = CellFlags::HIDDEN;
        assert_eq!(theme.resolve_cell(&cell, false, false).fg, blue);

        cell.flags = CellFlags::DIM;
        assert_eq!(
            theme.resolve_cell(&cell, false, false).fg,
            red.scaled(DIM_FACTOR)
        );

        cell.flags = CellFlags::empty();
        let sel = theme.resolve_cell(&cell, true, false);
        assert_eq!((sel.fg, sel.bg), (red, theme.selection_background));

        let cur = theme.resolve_cell(&cell, false, true);
        assert_eq!((cur.fg, cur.bg), (blue, theme.cursor));
    }
}
