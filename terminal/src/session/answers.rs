//! The bytes koi sends back for the requests in [`super::requests`], in
//! xterm's formats (ctlseqs), read from the core's state at the request.

use std::fmt::Write as _;

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, Color, CursorShape, Handler, NamedColor, NamedPrivateMode, PrivateMode,
    StandardCharset,
};

use super::requests::{Action, DecStatus, RawRect, Setting, Tracked, WindowReport};
use super::GridSize;

const ST: &str = "\x1b\\";

/// What acting on a request produced.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Response {
    /// koi's reply, queued behind the core's earlier ones.
    pub(crate) reply: Option<String>,
    /// The core's reply to the same request, to withdraw from the queue.
    pub(crate) replaces: Option<String>,
}

impl Response {
    fn reply(text: String) -> Self {
        Self {
            reply: Some(text),
            replaces: None,
        }
    }
}

/// Act on `action` at its place in the stream: answer it, or change the
/// state it changes. OSC marks are the reader's and produce nothing here.
pub(crate) fn respond<T: EventListener>(
    term: &mut Term<T>,
    tracked: &mut Tracked,
    size: GridSize,
    action: Action,
) -> Response {
    match action {
        Action::Marker(_) => Response::default(),
        Action::Checksum { id, rect } => Response::reply(checksum(term, id, rect, tracked)),
        Action::StatusString(setting) => Response::reply(status_string(term, setting, tracked)),
        Action::Mode { private, mode: m } => Response {
            reply: Some(mode(term, private, m)),
            replaces: Some(core_unknown_mode_reply(private, m)),
        },
        Action::Window(report) => Response::reply(window(report, size)),
        Action::Version => Response::reply(version()),
        Action::DecStatus(status) => Response::reply(dec_status(term, status, tracked)),
        Action::CursorPosition => match cursor_report(term, tracked) {
            Some(reply) => Response {
                reply: Some(reply),
                replaces: Some(core_cursor_report(term)),
            },
            None => Response::default(),
        },
        Action::NumericKeypad(on) => {
            if on {
                term.set_keypad_application_mode();
            } else {
                term.unset_keypad_application_mode();
            }
            Response::default()
        }
        Action::SaveCursor(save) => {
            if save {
                term.save_cursor_position();
            } else {
                term.restore_cursor_position();
            }
            Response::default()
        }
        Action::SoftReset => {
            soft_reset(term, tracked);
            Response::default()
        }
        Action::SetMargins { top, bottom } => {
            tracked.set_margins(top, bottom, term.screen_lines());
            Response::default()
        }
        Action::SetLevel(level) => {
            tracked.level = level;
            Response::default()
        }
        Action::FullReset => {
            *tracked = Tracked::default();
            Response::default()
        }
        // The reader hands pictures to the graphics module before this.
        Action::Picture(_) => Response::default(),
        Action::PrimaryAttributes => Response {
            reply: Some(PRIMARY_ATTRIBUTES.into()),
            replaces: Some(CORE_PRIMARY_ATTRIBUTES.into()),
        },
        Action::GraphicsAttribute { item, action } => {
            Response::reply(graphics_attribute(item, action, size))
        }
    }
}

/// DA1: a VT220-class terminal (62) with sixel graphics (4) and ANSI
/// colour (22), as xterm answers when built with sixel support.
const PRIMARY_ATTRIBUTES: &str = "\x1b[?62;4;22c";

/// What alacritty_terminal answers to DA1 on its own.
const CORE_PRIMARY_ATTRIBUTES: &str = "\x1b[?6c";

/// XTSMGRAPHICS: item 1 is the number of colour registers, 2 the sixel
/// geometry, 3 ReGIS (absent). Actions: 1 read, 2 reset, 3 set (koi keeps
/// its fixed values and reports them), 4 read the maximum.
fn graphics_attribute(item: u16, action: u16, size: GridSize) -> String {
    let registers = crate::graphics::SIXEL_REGISTERS;
    let max = crate::graphics::SIXEL_MAX_SIDE;
    match (item, action) {
        (1, 1..=4) => format!("\x1b[?1;0;{registers}S"),
        (2, 1..=3) => {
            let w = u32::from(size.cols) * u32::from(size.cell_width);
            let h = u32::from(size.rows) * u32::from(size.cell_height);
            format!("\x1b[?2;0;{};{}S", w.min(max), h.min(max))
        }
        (2, 4) => format!("\x1b[?2;0;{max};{max}S"),
        (1 | 2, _) => format!("\x1b[?{item};2;0S"),
        _ => format!("\x1b[?{item};1;0S"),
    }
}

/// DECRQM's answer for a mode: 1 set, 2 reset (ctlseqs).
fn mode_state(set: bool) -> u8 {
    if set {
        1
    } else {
        2
    }
}

/// DECRQM's answer for a mode koi can never set.
const PERMANENTLY_RESET: u8 = 4;

/// DECRQM for a mode koi answers instead of the core.
fn mode<T>(term: &Term<T>, private: bool, mode: u16) -> String {
    let state = match (private, mode) {
        (true, 66) => mode_state(term.mode().contains(TermMode::APP_KEYPAD)),
        _ => PERMANENTLY_RESET,
    };
    let marker = if private { "?" } else { "" };
    format!("\x1b[{marker}{mode};{state}$y")
}

/// What the core itself answers for `mode`, so that reply can be dropped.
fn core_unknown_mode_reply(private: bool, mode: u16) -> String {
    let marker = if private { "?" } else { "" };
    format!("\x1b[{marker}{mode};0$y")
}

/// The cursor's row and column as CPR reports them: relative to the
/// scrolling region's top in origin mode (DEC STD 070, xterm).
fn cursor_report_position<T>(term: &Term<T>, tracked: &Tracked) -> (usize, usize) {
    let point = term.grid().cursor.point;
    let row = point.line.0.max(0) as usize + 1;
    let row = if term.mode().contains(TermMode::ORIGIN) {
        let (top, _) = tracked.margins(term.screen_lines());
        row.saturating_sub(top - 1).max(1)
    } else {
        row
    };
    (row, point.column.0 + 1)
}

/// The CPR the core sends for the cursor (absolute, even in origin mode).
fn core_cursor_report<T>(term: &Term<T>) -> String {
    let point = term.grid().cursor.point;
    format!("\x1b[{};{}R", point.line + 1, point.column + 1)
}

/// CPR as DEC terminals send it, or `None` where the core's is already right.
fn cursor_report<T>(term: &Term<T>, tracked: &Tracked) -> Option<String> {
    if !term.mode().contains(TermMode::ORIGIN) {
        return None;
    }
    let (row, col) = cursor_report_position(term, tracked);
    Some(format!("\x1b[{row};{col}R"))
}

/// The DEC status reports, with the answers of a terminal that has no
/// printer, user-defined keys, locator, macros or sessions (ctlseqs).
fn dec_status<T>(term: &Term<T>, status: DecStatus, tracked: &Tracked) -> String {
    match status {
        DecStatus::CursorPosition => {
            let (row, col) = cursor_report_position(term, tracked);
            format!("\x1b[?{row};{col};1R")
        }
        DecStatus::Printer => "\x1b[?13n".into(),
        // koi has no DECUDK, so no key can be defined: locked. (xterm,
        // which has them, says unlocked: ?20n.)
        DecStatus::UserKeys => "\x1b[?21n".into(),
        // North American, ready, LK201: what xterm reports.
        DecStatus::Keyboard => "\x1b[?27;1;0;0n".into(),
        DecStatus::Locator => "\x1b[?53n".into(),
        DecStatus::LocatorType => "\x1b[?57;0n".into(),
        DecStatus::MacroSpace => "\x1b[0000*{".into(),
        DecStatus::MemoryChecksum(id) => format!("\x1bP{id}!~0000{ST}"),
        DecStatus::DataIntegrity => "\x1b[?70n".into(),
        DecStatus::Sessions => "\x1b[?83n".into(),
    }
}

fn version() -> String {
    format!("\x1bP>|koi({}){ST}", env!("CARGO_PKG_VERSION"))
}

fn window(report: WindowReport, size: GridSize) -> String {
    let rows = u32::from(size.rows);
    let cols = u32::from(size.cols);
    let (cw, ch) = (u32::from(size.cell_width), u32::from(size.cell_height));
    match report {
        // A terminal that is drawing is not iconified.
        WindowReport::State => "\x1b[1t".into(),
        // koi does not know where the compositor put it; xterm reports its
        // origin, and 0;0 is the honest "unknown" of a headless screen.
        WindowReport::Position => "\x1b[3;0;0t".into(),
        // koi knows no screen beyond its own window, so the screen reports
        // are the text area: the most an application can use.
        WindowReport::ScreenPixels => format!("\x1b[5;{};{}t", rows * ch, cols * cw),
        WindowReport::CellPixels => format!("\x1b[6;{ch};{cw}t"),
        WindowReport::ScreenChars => format!("\x1b[9;{rows};{cols}t"),
    }
}

/// DECRQSS: `DCS 1 $ r value ST`, or `DCS 0 $ r ST` for a setting koi
/// cannot report (xterm's convention, which inverts the VT420 manual's).
fn status_string<T>(term: &Term<T>, setting: Setting, tracked: &Tracked) -> String {
    let rows = term.screen_lines();
    let value = match setting {
        Setting::Sgr => format!("{}m", sgr(&term.grid().cursor.template)),
        Setting::TopBottomMargins => {
            let (top, bottom) = tracked.margins(rows);
            format!("{top};{bottom}r")
        }
        // The core has no left/right margins: they are the whole width.
        Setting::LeftRightMargins => format!("1;{}s", term.columns()),
        Setting::CursorStyle => {
            let style = term.cursor_style();
            let steady = u8::from(!style.blinking);
            let code = match style.shape {
                CursorShape::Underline => 3 + steady,
                CursorShape::Beam => 5 + steady,
                _ => 1 + steady,
            };
            format!("{code} q")
        }
        // Replies always use 7-bit controls: vte parses no 8-bit ones.
        Setting::ConformanceLevel => format!("{};1\"p", tracked.level),
        // koi's page is its screen.
        Setting::LinesPerPage => format!("{rows}t"),
        Setting::LinesPerScreen => format!("{rows}*|"),
        Setting::ColumnsPerPage => format!("{}$|", term.columns()),
        // No status line: the main display is always the active one.
        Setting::ActiveStatusDisplay => "0$}".into(),
        Setting::StatusLineType => "0$~".into(),
        Setting::Unknown => return format!("\x1bP0$r{ST}"),
    };
    format!("\x1bP1$r{value}{ST}")
}

/// The SGR parameters that recreate `template`, in xterm's order.
fn sgr(template: &Cell) -> String {
    let flags = template.flags;
    let mut out = String::from("0");
    let mut push = |s: &str| {
        out.push(';');
        out.push_str(s);
    };
    if flags.contains(Flags::BOLD) {
        push("1");
    }
    if flags.contains(Flags::UNDERLINE) {
        push("4");
    }
    // Styled underlines (kitty's 4:3…) have no xterm form; report how they
    // are set, so an application reading them back can restore them.
    for (flag, code) in [
        (Flags::UNDERCURL, "4:3"),
        (Flags::DOTTED_UNDERLINE, "4:4"),
        (Flags::DASHED_UNDERLINE, "4:5"),
    ] {
        if flags.contains(flag) {
            push(code);
        }
    }
    for (flag, code) in [
        (Flags::INVERSE, "7"),
        (Flags::HIDDEN, "8"),
        (Flags::DIM, "2"),
        (Flags::ITALIC, "3"),
        (Flags::STRIKEOUT, "9"),
        (Flags::DOUBLE_UNDERLINE, "21"),
    ] {
        if flags.contains(flag) {
            push(code);
        }
    }
    if let Some(fg) = color_param(template.fg, 30, 90, 38) {
        push(&fg);
    }
    if let Some(bg) = color_param(template.bg, 40, 100, 48) {
        push(&bg);
    }
    if let Some(ul) = template
        .underline_color()
        .and_then(|c| color_param(c, 0, 0, 58))
    {
        push(&ul);
    }
    out
}

/// One colour as SGR: `base+n` for the 8 colours, `bright+n` for their
/// bright forms, `extended:5:i` or `extended:2::r:g:b` otherwise (the
/// colon forms xterm reports). `None` for the default colour.
fn color_param(color: Color, base: u8, bright: u8, extended: u8) -> Option<String> {
    match color {
        Color::Named(name) => {
            let index = name as usize;
            match index {
                0..=7 if base != 0 => Some(format!("{}", usize::from(base) + index)),
                8..=15 if bright != 0 => Some(format!("{}", usize::from(bright) + index - 8)),
                0..=15 => Some(format!("{extended}:5:{index}")),
                // Foreground, Background and the other named slots are the
                // defaults SGR 39/49/59 select.
                _ => None,
            }
        }
        Color::Indexed(i) => Some(format!("{extended}:5:{i}")),
        Color::Spec(rgb) => Some(format!("{extended}:2::{}:{}:{}", rgb.r, rgb.g, rgb.b)),
    }
}

/// The value DECRQCRA adds for a cell, as a DEC terminal (and xterm by
/// default) computes it: the character's low 8 bits, plus 0x80 for bold,
/// 0x40 blink, 0x20 inverse and 0x10 underline. Colours, italic and the
/// other attributes do not count; the core has no blink. The second half
/// of a wide character counts as 0xFF, as in xterm.
fn cell_value(cell: &Cell) -> u32 {
    let mut value = if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
        0xff
    } else {
        u32::from(cell.c) & 0xff
    };
    if cell.flags.intersects(Flags::ALL_UNDERLINES) {
        value += 0x10;
    }
    if cell.flags.contains(Flags::INVERSE) {
        value += 0x20;
    }
    if cell.flags.contains(Flags::BOLD) {
        value += 0x80;
    }
    value
}

/// A cell that was never written: DEC terminals leave those out of the sum.
/// The core cannot tell an erased cell from a written space, so a space
/// with default colours and no attributes counts as never written.
fn is_blank(cell: &Cell) -> bool {
    cell.c == ' '
        && (cell.flags - Flags::WRAPLINE).is_empty()
        && cell.fg == Color::Named(NamedColor::Foreground)
        && cell.bg == Color::Named(NamedColor::Background)
        && cell.zerowidth().is_none()
}

/// DECRQCRA: `DCS id ! ~ xxxx ST`, the 16-bit two's complement of the sum
/// over the rectangle (page 1 only: the core has one page). The rectangle
/// is relative to the scrolling region in origin mode and clamped to it;
/// an empty rectangle sums to 0. Like a VT520 and xterm, a blank cell
/// counts only when it is the rectangle's first.
fn checksum<T>(term: &Term<T>, id: u16, rect: RawRect, tracked: &Tracked) -> String {
    let rows = term.screen_lines();
    let cols = term.columns();
    let (first_row, last_row) = if term.mode().contains(TermMode::ORIGIN) {
        tracked.margins(rows)
    } else {
        (1, rows)
    };
    let offset = first_row - 1;
    let edge = |value: u16, default: usize, limit: usize| match value {
        0 => default,
        v => usize::from(v).min(limit),
    };
    let top = edge(rect.top, 1, usize::MAX).saturating_add(offset);
    let bottom = edge(rect.bottom, last_row - offset, usize::MAX).saturating_add(offset);
    let bottom = bottom.min(last_row);
    let left = edge(rect.left, 1, cols);
    let right = edge(rect.right, cols, cols);

    let mut sum: u32 = 0;
    let mut first = true;
    let grid = term.grid();
    if top <= bottom && left <= right {
        for row in top..=bottom {
            let line = Line(row as i32 - 1);
            for col in left..=right {
                let cell = &grid[Point::new(line, Column(col - 1))];
                if first || !is_blank(cell) {
                    sum = sum.wrapping_add(cell_value(cell));
                }
                first = false;
            }
        }
    }
    let checksum = sum.wrapping_neg() & 0xffff;
    let mut out = String::new();
    let _ = write!(out, "\x1bP{id}!~{checksum:04X}{ST}");
    out
}

/// DECSTR as far as the core's handler API reaches: modes (insert, origin,
/// application cursor keys and keypad) reset, the cursor shown, autowrap
/// on (xterm resets it to its resource default, on), the scrolling region
/// the whole screen, SGR normal, every charset ASCII with G0 in use, and
/// the saved cursor at home with normal attributes. The cursor stays where
/// it is, as in xterm.
fn soft_reset<T: EventListener>(term: &mut Term<T>, tracked: &mut Tracked) {
    let point = term.grid().cursor.point;
    term.unset_mode(alacritty_terminal::vte::ansi::Mode::Named(
        alacritty_terminal::vte::ansi::NamedMode::Insert,
    ));
    for mode in [NamedPrivateMode::Origin, NamedPrivateMode::CursorKeys] {
        term.unset_private_mode(PrivateMode::Named(mode));
    }
    for mode in [NamedPrivateMode::ShowCursor, NamedPrivateMode::LineWrap] {
        term.set_private_mode(PrivateMode::Named(mode));
    }
    term.unset_keypad_application_mode();
    term.set_scrolling_region(1, None);
    tracked.reset_margins();
    term.terminal_attribute(Attr::Reset);
    for index in [
        CharsetIndex::G0,
        CharsetIndex::G1,
        CharsetIndex::G2,
        CharsetIndex::G3,
    ] {
        term.configure_charset(index, StandardCharset::Ascii);
    }
    term.set_active_charset(CharsetIndex::G0);
    // Saving at home stores the reset attributes and charsets with it.
    term.goto(0, 0);
    term.save_cursor_position();
    term.goto(point.line.0, point.column.0);
}

#[cfg(test)]
mod tests {
    use alacritty_terminal::term::Config;
    use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};

    use super::*;

    struct NoEvents;
    impl EventListener for NoEvents {}

    fn term_after(bytes: &[u8]) -> Term<NoEvents> {
        let mut term = Term::new(Config::default(), &GridSize::new(80, 24), NoEvents);
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        parser.advance(&mut term, bytes);
        term
    }

    fn rect(top: u16, left: u16, bottom: u16, right: u16) -> RawRect {
        RawRect {
            top,
            left,
            bottom,
            right,
        }
    }

    #[test]
    fn checksum_sums_cells_and_skips_blanks_after_the_first() {
        let t = Tracked::default();
        let term = term_after(b"a\x1b[1;5Hb");
        // 'a' + 'b' = 0xC3; the three blanks between add nothing.
        assert_eq!(
            checksum(&term, 1, rect(1, 1, 1, 5), &t),
            "\x1bP1!~FF3D\x1b\\"
        );
        // A blank first cell counts as a space.
        assert_eq!(
            checksum(&term, 2, rect(1, 2, 1, 5), &t),
            "\x1bP2!~FF7E\x1b\\"
        );
        // Reversed edges make an empty rectangle.
        assert_eq!(
            checksum(&term, 3, rect(2, 1, 1, 1), &t),
            "\x1bP3!~0000\x1b\\"
        );
    }

    #[test]
    fn sgr_report_keeps_styled_underlines_and_their_colour() {
        let term = term_after(b"\x1b[4:3;58:2::10:20:30;38:5:9m");
        assert_eq!(
            status_string(&term, Setting::Sgr, &Tracked::default()),
            "\x1bP1$r0;4:3;38:5:9;58:2::10:20:30m\x1b\\"
        );
    }

    #[test]
    fn a_mode_reply_replaces_the_cores() {
        let mut term = term_after(b"\x1b=");
        let response = respond(
            &mut term,
            &mut Tracked::default(),
            GridSize::default(),
            Action::Mode {
                private: true,
                mode: 66,
            },
        );
        assert_eq!(
            response,
            Response {
                reply: Some("\x1b[?66;1$y".into()),
                replaces: Some("\x1b[?66;0$y".into()),
            }
        );
    }

    #[test]
    fn soft_reset_keeps_the_cursor_and_homes_the_saved_one() {
        let mut term = term_after(b"\x1b[?6h\x1b[5;10r\x1b[3;3H\x1b7\x1b[1m\x1b[?1h");
        let mut tracked = Tracked::default();
        tracked.set_margins(5, 10, 24);
        let before = term.grid().cursor.point;
        soft_reset(&mut term, &mut tracked);
        assert_eq!(term.grid().cursor.point, before);
        assert!(!term
            .mode()
            .intersects(TermMode::ORIGIN | TermMode::APP_CURSOR));
        assert!(term.grid().cursor.template.flags.is_empty());
        assert_eq!(tracked.margins(24), (1, 24));
        term.restore_cursor_position();
        assert_eq!(term.grid().cursor.point, Point::new(Line(0), Column(0)));
    }
}
