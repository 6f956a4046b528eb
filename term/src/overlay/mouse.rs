//! The panel under the mouse: where the conversation was drawn, and the
//! selection a press and drag make there. The app turns pixels into grid
//! cells and counts clicks (as for the terminal); this maps grid cells to
//! conversation text.

use alacritty_terminal::index::Side;
use render::StyledLine;

use super::selection::{Selection, SelectionKind, TextPoint};
use super::style::Palette;
use super::Overlay;

/// Where the last layout drew a run of laid-out lines (the conversation,
/// the input box), in grid cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextArea {
    /// First grid column of the text.
    pub col: usize,
    /// First grid row.
    pub row: usize,
    /// Width in columns (the width the lines are laid out at).
    pub cols: usize,
    /// Rows shown.
    pub rows: usize,
    /// The laid-out line drawn on the first row.
    pub first_line: usize,
}

impl TextArea {
    fn contains(&self, col: usize, row: usize) -> bool {
        (self.col..self.col + self.cols).contains(&col)
            && (self.row..self.row + self.rows).contains(&row)
    }

    /// The conversation cell drawn at grid cell (`col`, `row`); outside the
    /// area, the nearest edge (a drag past the top selects from the first
    /// visible line's start, past the bottom to the last one's end).
    fn point_at(&self, col: usize, row: usize, side: Side) -> (TextPoint, Side) {
        let last_col = self.cols.saturating_sub(1);
        let last_line = self.first_line + self.rows.saturating_sub(1);
        if row < self.row {
            return (TextPoint::new(self.first_line, 0), Side::Left);
        }
        if row >= self.row + self.rows {
            return (TextPoint::new(last_line, last_col), Side::Right);
        }
        let line = self.first_line + (row - self.row);
        if col < self.col {
            (TextPoint::new(line, 0), Side::Left)
        } else if col >= self.col + self.cols {
            (TextPoint::new(line, last_col), Side::Right)
        } else {
            (TextPoint::new(line, col - self.col), side)
        }
    }
}

impl Overlay {
    /// A left-button press on grid cell (`col`, `row`), on its `side` half;
    /// `kind` comes from the click count. In the conversation it starts a
    /// selection; anywhere else it clears the one there was. True when the
    /// panel needs a redraw.
    pub fn press(&mut self, col: usize, row: usize, side: Side, kind: SelectionKind) -> bool {
        let had = self.selection.take().is_some();
        if let Some(area) = self
            .input_area
            .filter(|a| self.open && a.contains(col, row))
        {
            // In the input box a press puts the caret there.
            let (point, side) = area.point_at(col, row, side);
            let col = point.col + usize::from(side == Side::Right);
            self.input.place_caret(area.cols, point.line, col);
            return true;
        }
        let Some(area) = self.conv_area.filter(|a| self.open && a.contains(col, row)) else {
            return had;
        };
        let (point, side) = area.point_at(col, row, side);
        let line = self.line_for(kind, point.line, area.cols);
        self.selection = Some(Selection::start(kind, point, side, &line, area.cols));
        true
    }

    /// The pointer moved to grid cell (`col`, `row`) with the button held;
    /// true when the selection (or the view) changed. Past the top or
    /// bottom edge each move scrolls one line that way, so a drag can
    /// select more than the panel shows.
    pub fn drag(&mut self, col: usize, row: usize, side: Side) -> bool {
        let Some(mut area) = self.conv_area else {
            return false;
        };
        let Some(kind) = self
            .selection
            .as_ref()
            .filter(|s| s.is_dragging())
            .map(|s| s.kind())
        else {
            return false;
        };
        let scrolled = self.scroll_toward(&mut area, row);
        self.edge_scrolled = scrolled;
        let (point, side) = area.point_at(col, row, side);
        let line = self.line_for(kind, point.line, area.cols);
        match &mut self.selection {
            Some(selection) => {
                let before = selection.range();
                selection.update(point, side, &line);
                scrolled || selection.range() != before
            }
            None => scrolled,
        }
    }

    /// Scrolls one line toward `row` when it lies past the conversation's
    /// top or bottom and there is more that way; keeps `area` (and the
    /// stored one, until the next layout) in step. True when it scrolled.
    fn scroll_toward(&mut self, area: &mut TextArea, row: usize) -> bool {
        let older = row < area.row && area.first_line > 0;
        let newer = row >= area.row + area.rows && self.conversation.scroll_offset() > 0;
        if older {
            self.conversation.scroll(1);
            area.first_line -= 1;
        } else if newer {
            self.conversation.scroll(-1);
            area.first_line += 1;
        } else {
            return false;
        }
        self.conv_area = Some(*area);
        true
    }

    /// The button was released: the selected text (for the primary
    /// selection), or `None` and no selection when the press was a plain
    /// click (or selected only blanks).
    pub fn release(&mut self) -> Option<String> {
        let selection = self.selection.as_mut()?;
        selection.finish();
        let text = self.selection_text();
        if text.is_none() {
            self.selection = None;
        }
        text
    }

    /// Whether a drag is held past the conversation's top or bottom with
    /// more to scroll that way: the app then repeats the drag on a timer,
    /// so holding the pointer still keeps scrolling.
    pub fn is_edge_scrolling(&self) -> bool {
        self.edge_scrolled && self.is_selecting()
    }

    /// Whether a press in the conversation is being dragged.
    pub fn is_selecting(&self) -> bool {
        self.selection.as_ref().is_some_and(Selection::is_dragging)
    }

    /// Drops the selection; true when there was one.
    pub fn clear_selection(&mut self) -> bool {
        self.selection.take().is_some()
    }

    /// The selected text as displayed, `None` when nothing is selected
    /// (or only blank cells are).
    pub fn selection_text(&mut self) -> Option<String> {
        let selection = self.selection.as_ref()?;
        let range = selection.range()?;
        let width = selection.width();
        let pal = Palette::from_theme(&self.last_theme);
        let lines = self.conversation.lines(width, &pal);
        Some(range.text(&lines, width)).filter(|t| !t.trim().is_empty())
    }

    /// What Ctrl+Shift+C copies: the selection when there is one, else the
    /// latest answer's markdown.
    pub fn copy_text(&mut self) -> Option<String> {
        self.selection_text()
            .or_else(|| self.conversation.latest_answer().map(str::to_string))
    }

    /// The laid-out conversation line word selection needs to find word
    /// ends; other kinds need no text, so they skip the layout copy.
    fn line_for(&mut self, kind: SelectionKind, line: usize, width: usize) -> StyledLine {
        if kind != SelectionKind::Word {
            return StyledLine::default();
        }
        let pal = Palette::from_theme(&self.last_theme);
        self.conversation
            .lines(width, &pal)
            .into_iter()
            .nth(line)
            .unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "mouse_tests.rs"]
mod tests;
