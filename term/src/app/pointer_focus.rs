//! Keyboard focus on an X server with no window manager.
//!
//! There the input focus stays `PointerRoot`: the server sends key events
//! to whichever window the pointer is over, and never a FocusIn. winit
//! delivers keys only to the window it saw focused, so it drops them all.
//! xterm and Alacritty take keys in that setup, and so must koi: while the
//! focus is `PointerRoot` and the pointer enters the window, koi takes the
//! focus (reverting to `PointerRoot`), and gives it back when the pointer
//! leaves. That is exactly what `PointerRoot` means, made visible to winit.
//! With a window manager the focus is never `PointerRoot`, so this does
//! nothing.

use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
use winit::window::Window;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, InputFocus};
use x11rb::rust_connection::RustConnection;
use x11rb::CURRENT_TIME;

/// The focus "window" that means "wherever the pointer is" (`PointerRoot`
/// in the X protocol).
const POINTER_ROOT: u32 = 1;

/// Follows the pointer with the focus while the server's focus is
/// `PointerRoot`. A connection of its own, opened on first use.
pub(super) struct PointerFocus {
    window: u32,
    conn: Option<RustConnection>,
    /// Whether koi holds the focus because the pointer entered.
    holding: bool,
}

impl PointerFocus {
    /// `None` unless `window` is an X11 window.
    pub(super) fn new(window: &Window) -> Option<Self> {
        let id = match window.window_handle().ok()?.as_raw() {
            RawWindowHandle::Xlib(h) => u32::try_from(h.window).ok()?,
            RawWindowHandle::Xcb(h) => h.window.get(),
            _ => return None,
        };
        Some(Self {
            window: id,
            conn: None,
            holding: false,
        })
    }

    fn conn(&mut self) -> Option<&RustConnection> {
        if self.conn.is_none() {
            match RustConnection::connect(None) {
                Ok((conn, _)) => self.conn = Some(conn),
                Err(e) => log::debug!("pointer focus: no X connection: {e}"),
            }
        }
        self.conn.as_ref()
    }

    fn focus(&mut self) -> Option<u32> {
        let conn = self.conn()?;
        Some(conn.get_input_focus().ok()?.reply().ok()?.focus)
    }

    fn set_focus(&mut self, to: u32) {
        let Some(conn) = self.conn() else { return };
        let sent = conn
            .set_input_focus(InputFocus::POINTER_ROOT, to, CURRENT_TIME)
            .map(|cookie| cookie.ignore_error())
            .and_then(|()| conn.flush());
        if let Err(e) = sent {
            log::debug!("pointer focus: {e}");
        }
    }

    /// The pointer entered the window.
    pub(super) fn entered(&mut self) {
        if self.focus() == Some(POINTER_ROOT) {
            self.set_focus(self.window);
            self.holding = true;
        }
    }

    /// The pointer left the window.
    pub(super) fn left(&mut self) {
        if std::mem::take(&mut self.holding) && self.focus() == Some(self.window) {
            self.set_focus(POINTER_ROOT);
        }
    }
}
