//! Terminal state → `render::Frame`: the one place alacritty_terminal's cells
//! become the renderer's plain description. Used by the window and by
//! `koi --headless --screenshot`.

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell as TermCell, Flags};
use alacritty_terminal::term::color::Colors;
use alacritty_terminal::term::{Term, TermDamage};
use alacritty_terminal::vte::ansi::{
    Color as TermColor, CursorShape as TermCursorShape, NamedColor as TermNamed,
};
use render::{
    Cell, CellFlags, Color, CursorShape, CursorSpec, Damage, Frame, NamedColor, Rgb, SelectionSpan,
    UnderlineStyle,
};

/// Turns terminal snapshots into frames, reusing one frame's allocations.
#[derive(Default)]
pub struct FrameBuilder {
    frame: Frame,
}

/// What the terminal itself does not know about how to draw the cursor.
#[derive(Clone, Copy, Debug)]
pub struct CursorOptions {
    /// Whether the window has keyboard focus (unfocused: hollow block).
    pub focused: bool,
    /// In the "off" half of a blink cycle.
    pub blinked_off: bool,
}

impl FrameBuilder {
    /// The frame last built.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// The frame last built, for adding overlays.
    pub fn frame_mut(&mut self) -> &mut Frame {
        &mut self.frame
    }

    /// Fill the frame from `term`'s viewport and take its damage.
    pub fn build<T: EventListener>(
        &mut self,
        term: &mut Term<T>,
        cursor: CursorOptions,
    ) -> &mut Frame {
        let damage = match term.damage() {
            TermDamage::Full => Damage::Full,
            TermDamage::Partial(lines) => Damage::Rows(lines.map(|l| l.line).collect()),
        };
        term.reset_damage();
        self.build_from(term, cursor, damage)
    }

    /// Fill the frame without touching the terminal's damage.
    pub fn build_from<T: EventListener>(
        &mut self,
        term: &Term<T>,
        cursor: CursorOptions,
        damage: Damage,
    ) -> &mut Frame {
        let grid = term.grid();
        let (cols, rows) = (grid.columns(), grid.screen_lines());
        let offset = grid.display_offset() as i32;
        let colors = term.colors();
        let frame = &mut self.frame;
        frame.cols = cols;
        frame.rows = rows;
        frame.cells.resize(cols * rows, Cell::default());
        for row in 0..rows {
            let line = &grid[Line(row as i32 - offset)];
            for col in 0..cols {
                convert_cell(
                    &line[Column(col)],
                    colors,
                    &mut frame.cells[row * cols + col],
                );
            }
        }

        let content = term.renderable_content();
        frame.cursor = cursor_spec(
            content.cursor.shape,
            content.cursor.point,
            offset,
            rows,
            cursor,
        );
        frame.selection.clear();
        if let Some(sel) = content.selection {
            for line in sel.start.line.0..=sel.end.line.0 {
                let row = line + offset;
                if row < 0 || row as usize >= rows {
                    continue;
                }
                let (start_col, end_col) = if sel.is_block {
                    (sel.start.column.0, sel.end.column.0)
                } else {
                    let start = if line == sel.start.line.0 {
                        sel.start.column.0
                    } else {
                        0
                    };
                    let end = if line == sel.end.line.0 {
                        sel.end.column.0
                    } else {
                        cols - 1
                    };
                    (start, end)
                };
                frame.selection.push(SelectionSpan {
                    row: row as usize,
                    start_col,
                    end_col,
                });
            }
        }
        frame.damage = damage;
        frame
    }
}

fn cursor_spec(
    shape: TermCursorShape,
    point: Point,
    offset: i32,
    rows: usize,
    options: CursorOptions,
) -> Option<CursorSpec> {
    let row = point.line.0 + offset;
    if row < 0 || row as usize >= rows || options.blinked_off {
        return None;
    }
    let shape = match shape {
        TermCursorShape::Hidden => return None,
        TermCursorShape::Block => CursorShape::Block,
        TermCursorShape::Underline => CursorShape::Underline,
        TermCursorShape::Beam => CursorShape::Beam,
        TermCursorShape::HollowBlock => CursorShape::HollowBlock,
    };
    Some(CursorSpec {
        col: point.column.0,
        row: row as usize,
        shape,
        focused: options.focused,
    })
}

/// Cell flags that map one to one.
const FLAG_MAP: &[(Flags, CellFlags)] = &[
    (Flags::BOLD, CellFlags::BOLD),
    (Flags::ITALIC, CellFlags::ITALIC),
    (Flags::DIM, CellFlags::DIM),
    (Flags::INVERSE, CellFlags::INVERSE),
    (Flags::HIDDEN, CellFlags::HIDDEN),
    (Flags::STRIKEOUT, CellFlags::STRIKEOUT),
    (Flags::WIDE_CHAR, CellFlags::WIDE),
    (Flags::WIDE_CHAR_SPACER, CellFlags::WIDE_SPACER),
    (Flags::LEADING_WIDE_CHAR_SPACER, CellFlags::WIDE_SPACER),
];

fn convert_cell(cell: &TermCell, colors: &Colors, out: &mut Cell) {
    out.ch = cell.c;
    out.zerowidth = cell.zerowidth().map(Into::into);
    if cell.c == koi_terminal::graphics::PLACEHOLDER {
        // A kitty image placeholder: the picture is drawn there, not the
        // private-use character and its row/column marks.
        out.ch = ' ';
        out.zerowidth = None;
    }
    out.fg = convert_color(cell.fg, colors);
    out.bg = convert_color(cell.bg, colors);
    let mut flags = CellFlags::empty();
    for (from, to) in FLAG_MAP {
        if cell.flags.contains(*from) {
            flags |= *to;
        }
    }
    out.flags = flags;
    out.underline = if cell.flags.contains(Flags::DOUBLE_UNDERLINE) {
        UnderlineStyle::Double
    } else if cell.flags.contains(Flags::UNDERCURL) {
        UnderlineStyle::Curly
    } else if cell.flags.contains(Flags::DOTTED_UNDERLINE) {
        UnderlineStyle::Dotted
    } else if cell.flags.contains(Flags::DASHED_UNDERLINE) {
        UnderlineStyle::Dashed
    } else if cell.flags.contains(Flags::UNDERLINE) {
        UnderlineStyle::Single
    } else {
        UnderlineStyle::None
    };
    out.underline_color = cell.underline_color().map(|c| convert_color(c, colors));
    out.hyperlink = cell
        .hyperlink()
        .filter(|h| !koi_terminal::graphics::is_picture_mark(h))
        .map(|h| h.uri().into());
}

/// A colour the application redefined (OSC 4/10/11) wins over the theme.
fn convert_color(color: TermColor, colors: &Colors) -> Color {
    match color {
        TermColor::Spec(rgb) => Color::Rgb(Rgb::new(rgb.r, rgb.g, rgb.b)),
        TermColor::Indexed(i) => match colors[i as usize] {
            Some(rgb) => Color::Rgb(Rgb::new(rgb.r, rgb.g, rgb.b)),
            None => Color::Indexed(i),
        },
        TermColor::Named(named) => match colors[named] {
            Some(rgb) => Color::Rgb(Rgb::new(rgb.r, rgb.g, rgb.b)),
            None => Color::Named(convert_named(named)),
        },
    }
}

fn convert_named(named: TermNamed) -> NamedColor {
    use TermNamed as T;
    match named {
        T::Black => NamedColor::Black,
        T::Red => NamedColor::Red,
        T::Green => NamedColor::Green,
        T::Yellow => NamedColor::Yellow,
        T::Blue => NamedColor::Blue,
        T::Magenta => NamedColor::Magenta,
        T::Cyan => NamedColor::Cyan,
        T::White => NamedColor::White,
        T::BrightBlack => NamedColor::BrightBlack,
        T::BrightRed => NamedColor::BrightRed,
        T::BrightGreen => NamedColor::BrightGreen,
        T::BrightYellow => NamedColor::BrightYellow,
        T::BrightBlue => NamedColor::BrightBlue,
        T::BrightMagenta => NamedColor::BrightMagenta,
        T::BrightCyan => NamedColor::BrightCyan,
        T::BrightWhite => NamedColor::BrightWhite,
        T::Foreground => NamedColor::Foreground,
        T::Background => NamedColor::Background,
        T::Cursor => NamedColor::Cursor,
        T::DimBlack => NamedColor::DimBlack,
        T::DimRed => NamedColor::DimRed,
        T::DimGreen => NamedColor::DimGreen,
        T::DimYellow => NamedColor::DimYellow,
        T::DimBlue => NamedColor::DimBlue,
        T::DimMagenta => NamedColor::DimMagenta,
        T::DimCyan => NamedColor::DimCyan,
        T::DimWhite => NamedColor::DimWhite,
        T::BrightForeground => NamedColor::BrightForeground,
        T::DimForeground => NamedColor::DimForeground,
    }
}

#[cfg(test)]
mod tests {
    use alacritty_terminal::event::VoidListener;
    use alacritty_terminal::term::Config;
    use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
    use koi_terminal::GridSize;

    use super::*;

    /// A kitty image placeholder is drawn as a blank cell: the picture
    /// shows there, not the private-use character and its row/column marks.
    #[test]
    fn placeholders_are_blank() {
        let mut term = Term::new(Config::default(), &GridSize::new(10, 4), VoidListener);
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        parser.advance(
            &mut term,
            "\x1b[2;3H\x1b[38;5;42m\u{10EEEE}\u{305}\u{305}\u{10EEEE}x\x1b[39m".as_bytes(),
        );
        let cursor = CursorOptions {
            focused: true,
            blinked_off: false,
        };
        let frame = FrameBuilder::default()
            .build_from(&term, cursor, Damage::Full)
            .clone();
        for col in [2, 3] {
            let cell = frame.cell(col, 1);
            assert_eq!(cell.map(|c| c.ch), Some(' '), "column {col}");
            assert!(cell.is_some_and(|c| c.zerowidth.is_none()), "column {col}");
        }
        assert_eq!(frame.cell(4, 1).map(|c| c.ch), Some('x'));
    }
}
