//! Pictures anchored to grid cells.
//!
//! Each cell a placement covers carries a private mark (in the cell's
//! hyperlink slot, under an id no escape sequence can produce: OSC strings
//! cannot hold control characters) naming the placement and which of its
//! tiles the cell shows. The picture therefore moves with its text into the
//! scrollback, is cut by anything that rewrites or erases the cells (clear,
//! erase, overwriting text, resize), lives on the alternate screen only
//! while that screen does, and needs no scroll bookkeeping of its own.

use std::collections::HashSet;

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Hyperlink};
use alacritty_terminal::term::Term;
use alacritty_terminal::vte::ansi::Handler;

/// The hyperlink id of a picture mark. The leading control character keeps
/// applications from forging one with OSC 8.
const MARK_ID: &str = "\u{1}koi-picture";

/// What a marked cell shows: tile (`col`, `row`) of placement `key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) key: u64,
    pub(crate) row: u32,
    pub(crate) col: u32,
}

/// Whether `link` is a picture mark rather than an application's link
/// (link hovering, snapshots and copies leave marks out).
pub fn is_picture_mark(link: &Hyperlink) -> bool {
    link.id() == MARK_ID
}

/// The mark a cell carries, if any.
pub(crate) fn read(cell: &Cell) -> Option<Mark> {
    cell.extra.as_ref()?;
    let link = cell.hyperlink()?;
    if !is_picture_mark(&link) {
        return None;
    }
    let mut parts = link.uri().split(':');
    let key = parts.next()?.parse().ok()?;
    let row = parts.next()?.parse().ok()?;
    let col = parts.next()?.parse().ok()?;
    Some(Mark { key, row, col })
}

fn write(cell: &mut Cell, mark: Mark) {
    let uri = format!("{}:{}:{}", mark.key, mark.row, mark.col);
    cell.set_hyperlink(Some(Hyperlink::new(Some(MARK_ID), uri)));
}

/// How the cursor moves after a placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CursorMove {
    /// Stay where it was (kitty `C=1`); rows below the screen are cut.
    Stay,
    /// Kitty: to the column after the picture on its last row, scrolling
    /// as needed.
    AfterLastColumn,
    /// Sixel and iTerm2: to the line below the picture, same column.
    LineBelow,
}

/// Marks `cols × rows` cells from the cursor with placement `key`,
/// scrolling the screen when the picture reaches below it (unless the
/// cursor stays), and moves the cursor as `motion` says.
pub(crate) fn put<T: EventListener>(
    term: &mut Term<T>,
    key: u64,
    cols: u32,
    rows: u32,
    motion: CursorMove,
) {
    let columns = term.columns();
    let screen = term.screen_lines();
    let start = term.grid().cursor.point;
    let start_col = start.column.0;
    let mut line = start.line;
    for row in 0..rows {
        if row > 0 {
            if motion == CursorMove::Stay {
                if line.0 + 1 >= screen as i32 {
                    break;
                }
                line += 1;
            } else {
                term.linefeed();
                line = term.grid().cursor.point.line;
            }
        }
        let grid = term.grid_mut();
        for col in 0..cols {
            let x = start_col + col as usize;
            if x >= columns {
                break;
            }
            write(&mut grid[line][Column(x)], Mark { key, row, col });
        }
    }
    match motion {
        CursorMove::Stay => term.grid_mut().cursor.point = start,
        CursorMove::AfterLastColumn => {
            let x = start_col + cols as usize;
            if x >= columns {
                term.carriage_return();
                term.linefeed();
            } else {
                term.grid_mut().cursor.point.column = Column(x);
            }
        }
        CursorMove::LineBelow => {
            term.linefeed();
            term.grid_mut().cursor.point.column = Column(start_col.min(columns - 1));
        }
    }
}

/// A marked cell on screen: its row (0 at the top of what is shown), its
/// column and its mark.
pub(crate) type ScreenMark = (usize, usize, Mark);

/// Marks on the screen as displayed (the viewport, scrolled back or not).
pub(crate) fn visible<T>(term: &Term<T>) -> Vec<ScreenMark> {
    let grid = term.grid();
    let offset = grid.display_offset() as i32;
    let mut out = Vec::new();
    for row in 0..term.screen_lines() {
        let line = Line(row as i32 - offset);
        for (col, cell) in grid[line].into_iter().enumerate().take(term.columns()) {
            if let Some(mark) = read(cell) {
                out.push((row, col, mark));
            }
        }
    }
    out
}

/// Marks on the active screen (ignoring any scrollback view), for deletes
/// that name cells.
pub(crate) fn on_screen<T>(term: &Term<T>) -> Vec<ScreenMark> {
    let grid = term.grid();
    let mut out = Vec::new();
    for row in 0..term.screen_lines() {
        for (col, cell) in grid[Line(row as i32)]
            .into_iter()
            .enumerate()
            .take(term.columns())
        {
            if let Some(mark) = read(cell) {
                out.push((row, col, mark));
            }
        }
    }
    out
}

/// Every placement key still on the grid, scrollback included.
pub(crate) fn live_keys<T>(term: &Term<T>) -> HashSet<u64> {
    let grid = term.grid();
    let top = -(grid.history_size() as i32);
    let mut keys = HashSet::new();
    for line in top..term.screen_lines() as i32 {
        for cell in grid[Line(line)].into_iter().take(term.columns()) {
            if let Some(mark) = read(cell) {
                keys.insert(mark.key);
            }
        }
    }
    keys
}
