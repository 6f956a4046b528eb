//! Programming ligatures: which neighbouring cells may be shaped together
//! so the font can join them (`->`, `=>`, `!=` in Fira Code), and which
//! never are (the cursor's cell, a change of colour or attributes).
//!
//! Cells stay the unit of everything else: a joined run is drawn by one
//! glyph batch entry spanning its cells, while backgrounds, decorations,
//! selection and the cursor are still laid out cell by cell.

use crate::frame::{Cell, CellFlags, Frame};

/// How one line treats ligatures.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ligatures<'a> {
    /// One glyph per cell, as the cells were shaped alone.
    Off,
    /// Runs of candidate cells are shaped together, except that the
    /// columns in `unjoined` (under a cursor) are always shaped alone.
    On { unjoined: &'a [usize] },
}

/// Whether `cell` can be part of a ligature. Programming ligatures join
/// ASCII punctuation (`->`, `<=`, `===`, `/*`, `::`); restricting runs to
/// it keeps the cost of ligatures off letters and spaces, which are most
/// of any screen.
pub(crate) fn is_candidate(cell: &Cell) -> bool {
    cell.ch.is_ascii_punctuation()
        && cell.zerowidth.is_none()
        && !cell.flags.contains(CellFlags::HIDDEN)
}

/// Whether two cells are drawn alike (colours and attributes), so one
/// shaped run can draw both.
fn same_look(a: &Cell, b: &Cell) -> bool {
    a.fg == b.fg
        && a.bg == b.bg
        && a.flags == b.flags
        && a.underline == b.underline
        && a.underline_color == b.underline_color
}

/// The end (exclusive) of the run of cells that may be joined with the
/// candidate cell at `start`: neighbours that are candidates too, look the
/// same, share `start`'s selection state (`selected`) and are not under a
/// cursor. A cell under a cursor is a run of its own.
pub(crate) fn run_end(
    cells: &[Cell],
    start: usize,
    unjoined: &[usize],
    selected: impl Fn(usize) -> bool,
) -> usize {
    let Some(first) = cells.get(start) else {
        return start;
    };
    if unjoined.contains(&start) {
        return start + 1;
    }
    let first_selected = selected(start);
    let mut end = start + 1;
    while let Some(next) = cells.get(end) {
        if !is_candidate(next)
            || !same_look(first, next)
            || unjoined.contains(&end)
            || selected(end) != first_selected
        {
            break;
        }
        end += 1;
    }
    end
}

/// For each of `rows` grid rows, the columns no ligature may cover: the
/// cells under the focused cursor and under the other panes' cursors
/// (Kitty's `cursor` strategy, so the cursor still moves one character at
/// a time through `->`).
pub(crate) fn unjoined_columns(frame: &Frame, rows: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); rows];
    for cursor in frame.cursor.iter().chain(&frame.inactive_cursors) {
        if let Some(cols) = out.get_mut(cursor.row) {
            cols.push(cursor.col);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::{Color, NamedColor};

    fn row(text: &str) -> Vec<Cell> {
        text.chars().map(Cell::new).collect()
    }

    #[test]
    fn only_ascii_punctuation_is_a_candidate() {
        for ch in ['-', '>', '=', '!', '|', '/', '*', ':', '<', '&', '.'] {
            assert!(is_candidate(&Cell::new(ch)), "{ch:?}");
        }
        for ch in ['a', 'Z', '0', ' ', '→', '─', '你'] {
            assert!(!is_candidate(&Cell::new(ch)), "{ch:?}");
        }
        let mut hidden = Cell::new('-');
        hidden.flags.set(CellFlags::HIDDEN, true);
        assert!(!is_candidate(&hidden));
        let mut marked = Cell::new('-');
        marked.zerowidth = Some(vec!['\u{301}'].into_boxed_slice());
        assert!(!is_candidate(&marked));
    }

    #[test]
    fn a_run_stops_at_text_a_style_change_the_cursor_and_the_selection() {
        let cells = row("a->b=>=");
        assert_eq!(run_end(&cells, 1, &[], |_| false), 3);
        assert_eq!(run_end(&cells, 4, &[], |_| false), 7);
        // The cursor on `-` leaves `-` alone and `>` starts a run of one.
        assert_eq!(run_end(&cells, 1, &[1], |_| false), 2);
        assert_eq!(run_end(&cells, 4, &[5], |_| false), 5);
        assert_eq!(run_end(&cells, 5, &[5], |_| false), 6);
        // A selection ending inside the run splits it.
        assert_eq!(run_end(&cells, 4, &[], |c| c < 5), 5);

        let mut coloured = row("->");
        coloured[1].fg = Color::Named(NamedColor::Red);
        assert_eq!(run_end(&coloured, 0, &[], |_| false), 1);
        let mut bold = row("->");
        bold[1].flags.set(CellFlags::BOLD, true);
        assert_eq!(run_end(&bold, 0, &[], |_| false), 1);
        let mut underlined = row("->");
        underlined[0].underline = crate::frame::UnderlineStyle::Single;
        assert_eq!(run_end(&underlined, 0, &[], |_| false), 1);
    }

    #[test]
    fn every_cursor_unjoins_its_cell() {
        let mut frame = Frame::blank(10, 3);
        let spec = |col, row| crate::frame::CursorSpec {
            col,
            row,
            shape: crate::frame::CursorShape::Beam,
            focused: true,
        };
        frame.cursor = Some(spec(4, 1));
        frame.inactive_cursors = vec![spec(7, 1), spec(2, 9)];
        assert_eq!(
            unjoined_columns(&frame, 3),
            vec![vec![], vec![4, 7], vec![]]
        );
    }
}
