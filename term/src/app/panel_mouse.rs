//! The mouse while the assistant panel is open. The keyboard is the
//! panel's then, and so is the mouse: a left press in the conversation
//! selects there (released, the text becomes the primary selection), a
//! press anywhere else only drops that selection, and a middle click pastes
//! the primary selection into the panel's input. Nothing reaches the
//! terminal underneath (no selection, no mouse reports to its application)
//! until the panel closes; the wheel scrolls the panel (see `mod.rs`).

use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, MouseButton};

use super::clipboard::Kind;
use super::App;
use crate::overlay::SelectionKind;

impl App {
    /// A button pressed or released while the panel is open.
    pub(super) fn panel_button(&mut self, state: ElementState, button: MouseButton) {
        let Some(t) = &self.terminal else { return };
        let (col, row, side) = t.geometry().cell_at(self.mouse.position);
        self.mouse.forget_press();
        let redraw = match (button, state) {
            (MouseButton::Left, ElementState::Pressed) => {
                let clicks = self.mouse.count_click(col, row);
                self.overlay
                    .press(col, row, side, SelectionKind::from_clicks(clicks))
            }
            (MouseButton::Left, ElementState::Released) => {
                if let Some(text) = self.overlay.release() {
                    self.clipboard.store(Kind::Primary, text);
                }
                true
            }
            (MouseButton::Middle, ElementState::Pressed) => {
                let text = self.clipboard.load(Kind::Primary);
                self.overlay.paste(&text);
                true
            }
            _ => false,
        };
        if redraw {
            self.redraw();
        }
    }

    /// The pointer moved while the panel is open: extends a selection being
    /// dragged.
    pub(super) fn panel_moved(&mut self, position: PhysicalPosition<f64>) {
        self.mouse.position = position;
        if !self.overlay.is_selecting() {
            return;
        }
        let Some(t) = &self.terminal else { return };
        let (col, row, side) = t.geometry().cell_at(position);
        if self.overlay.drag(col, row, side) {
            self.redraw();
        }
    }
}
