//! Several terminal grids in one frame: each pane's frame placed at its
//! cell offset, the dividers between panes, the tab bar across the top and
//! search highlights over the cells. The grid path draws the result as it
//! draws any frame, so a split window costs what one grid of that size does.
//!
//! Only what changed is copied: a pane's damaged rows (or all of its rows
//! when its highlights or the layout changed), and the result carries the
//! union as its own damage so the renderer re-prepares just those rows.

use crate::chrome::{ChromeColors, TabLabel};
use crate::color::{Color, Rgb};
use crate::frame::{Cell, CellFlags, CursorSpec, Damage, Frame, SelectionSpan};
use crate::overlay::{OverlayLayer, OverlayRect};

/// Where a pane's grid sits in the window's grid, in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellRect {
    /// First column.
    pub col: usize,
    /// First row.
    pub row: usize,
    /// Width in columns.
    pub cols: usize,
    /// Height in rows.
    pub rows: usize,
}

impl CellRect {
    /// Whether (`col`, `row`) is inside.
    pub fn contains(&self, col: usize, row: usize) -> bool {
        (self.col..self.col + self.cols).contains(&col)
            && (self.row..self.row + self.rows).contains(&row)
    }
}

/// A run of cells to highlight on one of a pane's rows (a search match).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Highlight {
    /// Row in the pane (0-based from its top).
    pub row: usize,
    /// First column.
    pub start_col: usize,
    /// One past the last column.
    pub end_col: usize,
    /// The current match, drawn in its own colour.
    pub current: bool,
}

/// One pane as it is to be drawn.
pub struct PaneView<'a> {
    /// The pane's identity: another pane in the same place (a tab switch)
    /// is copied in full.
    pub id: u64,
    /// The pane's own frame (its grid, cursor and selection).
    pub frame: &'a Frame,
    /// Where it goes.
    pub rect: CellRect,
    /// Whether its frame was rebuilt since the last composition; an
    /// unchanged pane copies nothing.
    pub changed: bool,
    /// Whether its cursor is the window's cursor (the focused pane); the
    /// others' are drawn hollow.
    pub focused: bool,
    /// Cells to highlight.
    pub highlights: &'a [Highlight],
}

/// Which way a divider runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DividerAxis {
    /// A column of cells between side-by-side panes.
    Vertical,
    /// A row of cells between stacked panes.
    Horizontal,
}

/// A one-cell line between panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Divider {
    /// First cell's column.
    pub col: usize,
    /// First cell's row.
    pub row: usize,
    /// Length in cells.
    pub len: usize,
    /// Direction.
    pub axis: DividerAxis,
}

/// The tab bar: its labels and the window's row it takes (top or bottom).
#[derive(Debug, Clone, Copy)]
pub struct TabBar<'a> {
    /// One per tab, in order.
    pub labels: &'a [TabLabel],
    /// The row of the window's grid it is drawn on.
    pub row: usize,
}

/// Everything in the window's grid for one frame.
pub struct Scene<'a> {
    /// The window's grid width in cells.
    pub cols: usize,
    /// The window's grid height in cells.
    pub rows: usize,
    /// The tab bar, when shown.
    pub tab_bar: Option<TabBar<'a>>,
    /// Panes of the tab shown.
    pub panes: Vec<PaneView<'a>>,
    /// Lines between them.
    pub dividers: Vec<Divider>,
    /// Colours.
    pub colors: ChromeColors,
}

/// What decides whether the whole frame must be copied again.
#[derive(Debug, Clone, PartialEq, Default)]
struct LayoutKey {
    cols: usize,
    rows: usize,
    rects: Vec<(u64, CellRect)>,
    dividers: Vec<Divider>,
    colors: Option<[Rgb; 10]>,
    /// The bar moving (or going away) leaves cells only a full copy clears.
    bar_row: Option<usize>,
}

/// Builds one frame out of a [`Scene`], reusing its allocations and
/// remembering what it copied last, so unchanged panes cost nothing.
#[derive(Default)]
pub struct Composer {
    frame: Frame,
    key: LayoutKey,
    /// The bar last drawn: its row and labels.
    bar: Option<(usize, Vec<TabLabel>)>,
    highlights: Vec<Vec<Highlight>>,
}

impl Composer {
    /// The frame last composed.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// The frame last composed, for adding overlays.
    pub fn frame_mut(&mut self) -> &mut Frame {
        &mut self.frame
    }

    /// Compose `scene`; returns the frame, its damage set to what changed.
    pub fn compose(&mut self, scene: &Scene<'_>) -> &mut Frame {
        let key = LayoutKey {
            cols: scene.cols,
            rows: scene.rows,
            rects: scene.panes.iter().map(|p| (p.id, p.rect)).collect(),
            dividers: scene.dividers.clone(),
            colors: Some(color_key(&scene.colors)),
            bar_row: scene.tab_bar.map(|bar| bar.row),
        };
        let full = key != self.key;
        if full {
            self.key = key;
            self.frame.cols = scene.cols;
            self.frame.rows = scene.rows;
            self.frame.cells.clear();
            self.frame
                .cells
                .resize(scene.cols.saturating_mul(scene.rows), Cell::default());
            self.bar = None;
            self.highlights.clear();
        }
        self.highlights.resize(scene.panes.len(), Vec::new());
        let mut damaged: Vec<usize> = Vec::new();

        for (index, pane) in scene.panes.iter().enumerate() {
            let lit_changed = self.highlights[index] != pane.highlights;
            let rows: Vec<usize> = if full || lit_changed {
                (0..pane.rect.rows).collect()
            } else if !pane.changed {
                Vec::new()
            } else {
                match &pane.frame.damage {
                    Damage::Full => (0..pane.rect.rows).collect(),
                    Damage::Rows(rows) => rows.clone(),
                }
            };
            for &row in &rows {
                if row < pane.rect.rows {
                    copy_row(&mut self.frame, pane, row, &scene.colors);
                    damaged.push(pane.rect.row + row);
                }
            }
            if lit_changed {
                self.highlights[index] = pane.highlights.to_vec();
            }
        }
        if full {
            for divider in &scene.dividers {
                draw_divider(&mut self.frame, divider, scene.colors.divider);
            }
        }
        let bar = scene.tab_bar.map(|bar| (bar.row, bar.labels.to_vec()));
        if bar != self.bar {
            if let Some((row, labels)) = &bar {
                crate::tab_bar::draw(&mut self.frame, *row, labels, &scene.colors);
                damaged.push(*row);
            }
            self.bar = bar;
        }

        self.frame.cursor = scene
            .panes
            .iter()
            .find(|p| p.focused)
            .and_then(|p| offset_cursor(p.frame.cursor, p.rect));
        self.frame.inactive_cursors.clear();
        self.frame.inactive_cursors.extend(
            scene
                .panes
                .iter()
                .filter(|p| !p.focused)
                .filter_map(|p| offset_cursor(p.frame.cursor, p.rect))
                .map(|cursor| CursorSpec {
                    focused: false,
                    ..cursor
                }),
        );
        self.frame.selection.clear();
        for pane in &scene.panes {
            for span in &pane.frame.selection {
                if span.row >= pane.rect.rows {
                    continue;
                }
                let end = span.end_col.min(pane.rect.cols.saturating_sub(1));
                self.frame.selection.push(SelectionSpan {
                    row: span.row + pane.rect.row,
                    start_col: span.start_col.min(end) + pane.rect.col,
                    end_col: end + pane.rect.col,
                });
            }
        }
        self.frame.pictures.clear();
        for pane in &scene.panes {
            let inside =
                |t: &&crate::picture::PictureTile| t.row < pane.rect.rows && t.col < pane.rect.cols;
            self.frame
                .pictures
                .extend(pane.frame.pictures.iter().filter(inside).map(|t| {
                    crate::picture::PictureTile {
                        col: t.col + pane.rect.col,
                        row: t.row + pane.rect.row,
                        ..t.clone()
                    }
                }));
        }
        self.frame.overlays.clear();
        self.frame.damage = if full {
            Damage::Full
        } else {
            damaged.sort_unstable();
            damaged.dedup();
            Damage::Rows(damaged)
        };
        &mut self.frame
    }
}

fn color_key(c: &ChromeColors) -> [Rgb; 10] {
    [
        c.divider,
        c.bar_background,
        c.bar_foreground,
        c.active_background,
        c.active_foreground,
        c.mark,
        c.failed,
        c.match_background,
        c.current_background,
        c.match_foreground,
    ]
}

fn copy_row(out: &mut Frame, pane: &PaneView<'_>, row: usize, colors: &ChromeColors) {
    let cols = pane.rect.cols.min(pane.frame.cols);
    let src_start = row.saturating_mul(pane.frame.cols);
    let dst_start = (pane.rect.row + row).saturating_mul(out.cols) + pane.rect.col;
    for col in 0..pane.rect.cols {
        let Some(dst) = out.cells.get_mut(dst_start + col) else {
            return;
        };
        match pane.frame.cells.get(src_start + col).filter(|_| col < cols) {
            Some(src) => dst.clone_from(src),
            None => *dst = Cell::default(),
        }
        // A wide character cut by the pane's edge would spill over the
        // divider: draw it as a blank.
        if col + 1 == pane.rect.cols && dst.flags.contains(CellFlags::WIDE) {
            *dst = Cell::default();
        }
    }
    for lit in pane.highlights.iter().filter(|h| h.row == row) {
        let background = if lit.current {
            colors.current_background
        } else {
            colors.match_background
        };
        for col in lit.start_col..lit.end_col.min(pane.rect.cols) {
            if let Some(cell) = out.cells.get_mut(dst_start + col) {
                cell.bg = Color::Rgb(background);
                cell.fg = Color::Rgb(colors.match_foreground);
                cell.flags.set(CellFlags::INVERSE, false);
            }
        }
    }
}

fn draw_divider(out: &mut Frame, divider: &Divider, color: Rgb) {
    let template = Cell {
        fg: Color::Rgb(color),
        ..Cell::default()
    };
    for i in 0..divider.len {
        let (col, row, ch) = match divider.axis {
            DividerAxis::Vertical => (divider.col, divider.row + i, '│'),
            DividerAxis::Horizontal => (divider.col + i, divider.row, '─'),
        };
        if let Some(cell) = out.cell_mut(col, row) {
            *cell = Cell {
                ch,
                ..template.clone()
            };
        }
    }
}

fn offset_cursor(cursor: Option<CursorSpec>, rect: CellRect) -> Option<CursorSpec> {
    let cursor = cursor?;
    (cursor.col < rect.cols && cursor.row < rect.rows).then_some(CursorSpec {
        col: cursor.col + rect.col,
        row: cursor.row + rect.row,
        ..cursor
    })
}

/// Move an overlay laid out for a pane's grid to where the pane sits.
pub fn place_in_pane(layer: &mut OverlayLayer, rect: CellRect, cell_px: (u32, u32)) {
    match &mut layer.rect {
        OverlayRect::Cells { col, row, .. } => {
            *col += rect.col;
            *row += rect.row;
        }
        OverlayRect::Pixels { x, y, .. } => {
            *x += u32::try_from(rect.col).unwrap_or(0) * cell_px.0;
            *y += u32::try_from(rect.row).unwrap_or(0) * cell_px.1;
        }
    }
}

#[cfg(test)]
#[path = "compose_tests.rs"]
mod tests;
