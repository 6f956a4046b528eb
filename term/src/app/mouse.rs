//! The mouse: reports to applications that asked for them (Shift bypasses
//! that), otherwise selection (drag, double-click word, triple-click line,
//! Alt-drag block), middle-click paste and wheel scrolling. The pixel to
//! cell mapping and the click counting also serve the assistant panel
//! (`panel_mouse`).

use std::time::{Duration, Instant};

use alacritty_terminal::grid::Scroll;
use alacritty_terminal::index::{Column, Line, Point, Side};
use alacritty_terminal::selection::{Selection, SelectionType};
use alacritty_terminal::term::TermMode;
use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, MouseButton as WButton, MouseScrollDelta};

use super::clipboard::{Clipboard, Kind};
use koi_terminal::input::{
    encode_mouse, encode_paste, Key, KeyEvent, Mods, MouseAction, MouseButton, MouseReport,
};
use koi_terminal::Session;

/// Clicks closer together than this count as a double or triple click.
const MULTI_CLICK: Duration = Duration::from_millis(400);
/// Pixels of touchpad scrolling per line.
const PIXELS_PER_LINE: f64 = 20.0;

/// Where a pane's grid sits in the window, in physical pixels.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub cell_width: u32,
    pub cell_height: u32,
    /// The pixel of the grid's first cell's top-left corner.
    pub origin: (u32, u32),
    pub cols: usize,
    pub rows: usize,
}

impl Geometry {
    /// The viewport cell under `pos` (clamped into the grid) and which half
    /// of the cell it is in.
    pub fn cell_at(&self, pos: PhysicalPosition<f64>) -> (usize, usize, Side) {
        let x = (pos.x - f64::from(self.origin.0)).max(0.0);
        let y = (pos.y - f64::from(self.origin.1)).max(0.0);
        let col_f = x / f64::from(self.cell_width.max(1));
        let col = (col_f as usize).min(self.cols.saturating_sub(1));
        let row =
            ((y / f64::from(self.cell_height.max(1))) as usize).min(self.rows.saturating_sub(1));
        let side = if col_f.fract() < 0.5 {
            Side::Left
        } else {
            Side::Right
        };
        (col, row, side)
    }
}

#[derive(Default)]
pub struct Mouse {
    pub position: PhysicalPosition<f64>,
    pressed: Option<MouseButton>,
    selecting: bool,
    last_click: Option<(Instant, usize, usize, u8)>,
    last_report_cell: Option<(usize, usize)>,
    pixel_scroll: f64,
}

/// What the event loop should do after a mouse event.
#[derive(Default)]
pub struct Outcome {
    pub redraw: bool,
}

pub struct Context<'a> {
    pub session: &'a Session,
    pub clipboard: &'a mut Clipboard,
    pub mods: Mods,
    pub geometry: Geometry,
    pub scroll_multiplier: u8,
}

fn button(b: WButton) -> Option<MouseButton> {
    Some(match b {
        WButton::Left => MouseButton::Left,
        WButton::Middle => MouseButton::Middle,
        WButton::Right => MouseButton::Right,
        WButton::Back => MouseButton::Extra(8),
        WButton::Forward => MouseButton::Extra(9),
        WButton::Other(_) => return None,
    })
}

impl Mouse {
    fn reporting(ctx: &Context<'_>, mode: TermMode) -> bool {
        mode.intersects(TermMode::MOUSE_MODE) && !ctx.mods.shift
    }

    fn report(&self, ctx: &Context<'_>, mode: TermMode, button: MouseButton, action: MouseAction) {
        let (col, row, _) = ctx.geometry.cell_at(self.position);
        let report = MouseReport {
            button,
            action,
            col: col as u32,
            row: row as u32,
            mods: ctx.mods,
        };
        if let Some(bytes) = encode_mouse(&report, mode) {
            ctx.session.write(bytes);
        }
    }

    pub fn moved(&mut self, ctx: &mut Context<'_>, position: PhysicalPosition<f64>) -> Outcome {
        self.position = position;
        let cell = ctx.geometry.cell_at(position);
        let mut term = ctx.session.terminal().lock();
        let mode = *term.mode();
        if self.selecting {
            let point = viewport_point(cell.0, cell.1, term.grid().display_offset());
            if let Some(selection) = term.selection.as_mut() {
                selection.update(point, cell.2);
            }
            return Outcome { redraw: true };
        }
        drop(term);
        if Self::reporting(ctx, mode) && self.last_report_cell != Some((cell.0, cell.1)) {
            self.last_report_cell = Some((cell.0, cell.1));
            let held = self.pressed.unwrap_or(MouseButton::NoButton);
            self.report(ctx, mode, held, MouseAction::Motion);
        }
        Outcome::default()
    }

    pub fn button(
        &mut self,
        ctx: &mut Context<'_>,
        state: ElementState,
        wbutton: WButton,
    ) -> Outcome {
        let Some(button) = button(wbutton) else {
            return Outcome::default();
        };
        let mode = *ctx.session.terminal().lock().mode();
        let pressed = state == ElementState::Pressed;
        self.pressed = if pressed { Some(button) } else { None };
        if Self::reporting(ctx, mode) {
            let action = if pressed {
                MouseAction::Press
            } else {
                MouseAction::Release
            };
            self.report(ctx, mode, button, action);
            return Outcome::default();
        }
        match (button, pressed) {
            (MouseButton::Left, true) => self.start_selection(ctx),
            (MouseButton::Left, false) => {
                self.selecting = false;
                if let Some(text) = ctx.session.terminal().lock().selection_to_string() {
                    ctx.clipboard.store(Kind::Primary, text);
                }
                Outcome::default()
            }
            (MouseButton::Middle, true) => {
                let text = ctx.clipboard.load(Kind::Primary);
                paste(ctx.session, &text);
                Outcome { redraw: true }
            }
            _ => Outcome::default(),
        }
    }

    /// Counts a left press on cell (`col`, `row`): 1, 2 or 3 for a single,
    /// double or triple click (a fourth quick click counts as 1 again).
    pub fn count_click(&mut self, col: usize, row: usize) -> u8 {
        let now = Instant::now();
        let clicks = match self.last_click {
            Some((at, c, r, n)) if now - at < MULTI_CLICK && (c, r) == (col, row) => n % 3 + 1,
            _ => 1,
        };
        self.last_click = Some((now, col, row, clicks));
        clicks
    }

    /// Forgets a press the terminal saw whose release went elsewhere (the
    /// panel opened mid-drag), so moving on does not extend its selection.
    pub fn forget_press(&mut self) {
        self.pressed = None;
        self.selecting = false;
    }

    fn start_selection(&mut self, ctx: &mut Context<'_>) -> Outcome {
        let (col, row, side) = ctx.geometry.cell_at(self.position);
        let clicks = self.count_click(col, row);
        let kind = match clicks {
            2 => SelectionType::Semantic,
            3 => SelectionType::Lines,
            _ if ctx.mods.alt => SelectionType::Block,
            _ => SelectionType::Simple,
        };
        let mut term = ctx.session.terminal().lock();
        let point = viewport_point(col, row, term.grid().display_offset());
        let mut selection = Selection::new(kind, point, side);
        if kind != SelectionType::Simple && kind != SelectionType::Block {
            // Word and line selections are complete on the click itself.
            selection.update(point, side);
        }
        term.selection = Some(selection);
        self.selecting = true;
        Outcome { redraw: true }
    }

    pub fn wheel(&mut self, ctx: &mut Context<'_>, delta: MouseScrollDelta) -> Outcome {
        let lines = match delta {
            MouseScrollDelta::LineDelta(_, y) => f64::from(y) * f64::from(ctx.scroll_multiplier),
            MouseScrollDelta::PixelDelta(p) => {
                self.pixel_scroll += p.y;
                let whole = (self.pixel_scroll / PIXELS_PER_LINE).trunc();
                self.pixel_scroll -= whole * PIXELS_PER_LINE;
                whole
            }
        };
        let steps = lines.abs().min(1000.0) as usize;
        if steps == 0 {
            return Outcome::default();
        }
        let up = lines > 0.0;
        let mut term = ctx.session.terminal().lock();
        let mode = *term.mode();
        if Self::reporting(ctx, mode) {
            drop(term);
            let button = if up {
                MouseButton::WheelUp
            } else {
                MouseButton::WheelDown
            };
            for _ in 0..steps.min(ctx.scroll_multiplier.max(1) as usize * 4) {
                self.report(ctx, mode, button, MouseAction::Press);
            }
            return Outcome::default();
        }
        if mode.contains(TermMode::ALT_SCREEN | TermMode::ALTERNATE_SCROLL) && !ctx.mods.shift {
            // As xterm: in full-screen programs the wheel moves the cursor.
            drop(term);
            let key = KeyEvent::press(if up { Key::Up } else { Key::Down }, Mods::NONE);
            let bytes = koi_terminal::input::encode_key(&key, mode);
            ctx.session.write(bytes.repeat(steps));
            return Outcome::default();
        }
        let delta = i32::try_from(steps).unwrap_or(i32::MAX);
        term.scroll_display(Scroll::Delta(if up { delta } else { -delta }));
        Outcome { redraw: true }
    }
}

/// Paste `text` as the application expects it (bracketed when asked for),
/// returning the view to the bottom as typing does.
pub fn paste(session: &Session, text: &str) {
    if text.is_empty() {
        return;
    }
    let bracketed = {
        let mut term = session.terminal().lock();
        term.scroll_display(Scroll::Bottom);
        term.mode().contains(TermMode::BRACKETED_PASTE)
    };
    session.write(encode_paste(text, bracketed));
}

fn viewport_point(col: usize, row: usize, display_offset: usize) -> Point {
    Point::new(Line(row as i32 - display_offset as i32), Column(col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_found_inside_the_padding() {
        let g = Geometry {
            cell_width: 10,
            cell_height: 20,
            origin: (5, 5),
            cols: 80,
            rows: 24,
        };
        assert_eq!(
            g.cell_at(PhysicalPosition::new(5.0, 5.0)),
            (0, 0, Side::Left)
        );
        assert_eq!(
            g.cell_at(PhysicalPosition::new(14.0, 24.0)),
            (0, 0, Side::Right)
        );
        assert_eq!(
            g.cell_at(PhysicalPosition::new(15.0, 25.0)),
            (1, 1, Side::Left)
        );
        // Outside the grid clamps to its edge.
        assert_eq!(g.cell_at(PhysicalPosition::new(-50.0, 1e6)).1, 23);
        assert_eq!(g.cell_at(PhysicalPosition::new(1e6, 0.0)).0, 79);
    }
}
