//! A plain, serializable copy of what the terminal shows: the text of the
//! viewport and every cell's attributes. Used by `koi --headless --dump`,
//! `--dump-on-exit` and tests.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use serde::Serialize;

/// The viewport at one moment.
#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub cols: usize,
    pub rows: usize,
    pub cursor: CursorPos,
    pub alt_screen: bool,
    /// One string per row, trailing blanks trimmed; a wide character is one
    /// `char` and its spacer cell is skipped.
    pub lines: Vec<String>,
    /// Row-major cells.
    pub cells: Vec<Vec<CellSnapshot>>,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct CursorPos {
    pub row: usize,
    pub col: usize,
    pub visible: bool,
}

/// One cell: its text (the character plus any combining characters) and style.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CellSnapshot {
    pub text: String,
    pub fg: ColorSnapshot,
    pub bg: ColorSnapshot,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub underline_color: Option<ColorSnapshot>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hyperlink: Option<String>,
}

/// A colour as the application specified it, before theme resolution.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ColorSnapshot {
    Named(String),
    Indexed(u8),
    /// `#rrggbb`.
    Rgb(String),
}

impl From<Color> for ColorSnapshot {
    fn from(color: Color) -> Self {
        match color {
            Color::Named(named) => ColorSnapshot::Named(named_color_name(named).to_owned()),
            Color::Indexed(i) => ColorSnapshot::Indexed(i),
            Color::Spec(rgb) => {
                ColorSnapshot::Rgb(format!("#{:02x}{:02x}{:02x}", rgb.r, rgb.g, rgb.b))
            }
        }
    }
}

/// Cell flags by the names the JSON dump uses.
const FLAG_NAMES: &[(Flags, &str)] = &[
    (Flags::BOLD, "bold"),
    (Flags::ITALIC, "italic"),
    (Flags::DIM, "dim"),
    (Flags::UNDERLINE, "underline"),
    (Flags::DOUBLE_UNDERLINE, "double_underline"),
    (Flags::UNDERCURL, "curly_underline"),
    (Flags::DOTTED_UNDERLINE, "dotted_underline"),
    (Flags::DASHED_UNDERLINE, "dashed_underline"),
    (Flags::INVERSE, "inverse"),
    (Flags::HIDDEN, "hidden"),
    (Flags::STRIKEOUT, "strikeout"),
    (Flags::WIDE_CHAR, "wide"),
    (Flags::WIDE_CHAR_SPACER, "wide_spacer"),
    (Flags::LEADING_WIDE_CHAR_SPACER, "leading_wide_spacer"),
    (Flags::WRAPLINE, "wrapped"),
];

impl CellSnapshot {
    fn from_cell(cell: &Cell) -> Self {
        let mut text = String::from(cell.c);
        if let Some(zw) = cell.zerowidth() {
            text.extend(zw);
        }
        Self {
            text,
            fg: cell.fg.into(),
            bg: cell.bg.into(),
            flags: FLAG_NAMES
                .iter()
                .filter(|(flag, _)| cell.flags.contains(*flag))
                .map(|(_, name)| *name)
                .collect(),
            underline_color: cell.underline_color().map(Into::into),
            hyperlink: cell
                .hyperlink()
                .filter(|h| !crate::graphics::is_picture_mark(h))
                .map(|h| h.uri().to_owned()),
        }
    }

    /// Whether the cell carries `flag` (by its JSON name, e.g. `"bold"`).
    pub fn has(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }
}

impl Snapshot {
    /// Copy the viewport (honouring the scrollback position) of `term`.
    pub fn capture<T>(term: &Term<T>) -> Self {
        let grid = term.grid();
        let (cols, rows) = (grid.columns(), grid.screen_lines());
        let offset = grid.display_offset() as i32;
        let mut lines = Vec::with_capacity(rows);
        let mut cells = Vec::with_capacity(rows);
        for row in 0..rows {
            let line = &grid[Line(row as i32 - offset)];
            let mut text = String::with_capacity(cols);
            let mut row_cells = Vec::with_capacity(cols);
            for col in 0..cols {
                let cell = &line[Column(col)];
                if !cell
                    .flags
                    .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
                {
                    text.push(cell.c);
                    if let Some(zw) = cell.zerowidth() {
                        text.extend(zw);
                    }
                }
                row_cells.push(CellSnapshot::from_cell(cell));
            }
            lines.push(text.trim_end().to_owned());
            cells.push(row_cells);
        }
        let point = grid.cursor.point;
        Snapshot {
            cols,
            rows,
            cursor: CursorPos {
                row: (point.line.0 + offset).max(0) as usize,
                col: point.column.0,
                visible: term.mode().contains(TermMode::SHOW_CURSOR),
            },
            alt_screen: term.mode().contains(TermMode::ALT_SCREEN),
            lines,
            cells,
        }
    }

    /// The viewport as text, one line per row, trailing empty rows dropped.
    pub fn text(&self) -> String {
        let last = self
            .lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        let mut out = self.lines[..last].join("\n");
        out.push('\n');
        out
    }

    /// The cell at `row`, `col`, if inside the grid.
    pub fn cell(&self, row: usize, col: usize) -> Option<&CellSnapshot> {
        self.cells.get(row)?.get(col)
    }

    /// Whether any row contains `needle`.
    pub fn contains(&self, needle: &str) -> bool {
        self.lines.iter().any(|l| l.contains(needle))
    }
}

fn named_color_name(color: NamedColor) -> &'static str {
    use NamedColor::*;
    match color {
        Black => "black",
        Red => "red",
        Green => "green",
        Yellow => "yellow",
        Blue => "blue",
        Magenta => "magenta",
        Cyan => "cyan",
        White => "white",
        BrightBlack => "bright_black",
        BrightRed => "bright_red",
        BrightGreen => "bright_green",
        BrightYellow => "bright_yellow",
        BrightBlue => "bright_blue",
        BrightMagenta => "bright_magenta",
        BrightCyan => "bright_cyan",
        BrightWhite => "bright_white",
        Foreground => "foreground",
        Background => "background",
        Cursor => "cursor",
        DimBlack => "dim_black",
        DimRed => "dim_red",
        DimGreen => "dim_green",
        DimYellow => "dim_yellow",
        DimBlue => "dim_blue",
        DimMagenta => "dim_magenta",
        DimCyan => "dim_cyan",
        DimWhite => "dim_white",
        BrightForeground => "bright_foreground",
        DimForeground => "dim_foreground",
    }
}
