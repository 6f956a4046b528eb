//! What xterm sends for each key koi's legacy encoder handles, recorded from
//! a real xterm (379, configured by [`XTERM_RESOURCES`]) typed with xdotool
//! under Xvfb. The encoder's unit tests compare [`super::encode_key`] with
//! every row, and the window test `term/tests/window/xterm_keys.rs` types
//! every row into a real xterm and into koi's window, so the table cannot
//! drift from xterm, nor koi's window from the table.
//!
//! Where koi sends something else on purpose, the row says what and why
//! ([`Row::deviation`]).

use alacritty_terminal::term::TermMode;

use super::key_event::Key;
use super::Mods;

mod rows;
pub use rows::ROWS;

/// The X resources xterm runs with (`-xrm`), each one what koi follows.
pub const XTERM_RESOURCES: &[&str] = &[
    // The legacy encoding koi implements: modified text keys send their
    // control byte or ESC prefix, not `CSI 27;m;c ~`.
    "XTerm*modifyOtherKeys: 0",
    // Modified cursor and function keys as `CSI 1;m X` and `CSI n;m ~`.
    "XTerm*modifyCursorKeys: 2",
    "XTerm*modifyFunctionKeys: 2",
    // Alt prefixes ESC rather than setting the eighth bit, as every other
    // terminal does.
    "XTerm*metaSendsEscape: true",
    // Backspace sends DEL and Ctrl+Backspace BS, what Linux's `stty erase`
    // expects; Delete sends `CSI 3 ~`.
    "XTerm*backarrowKey: false",
    "XTerm*deleteIsDEL: false",
    // PC-style function keys, xterm's default: F1–F4 as `SS3 P`–`SS3 S`,
    // F5 and up as the VT220's `CSI n ~`.
    "XTerm*keyboardType: unknown",
    // xterm's default: with NumLock on the keypad sends its characters
    // whatever DECKPAM says.
    "XTerm*numLock: true",
    // xterm's own shortcuts (Alt+Enter full screen, Shift+PageUp scrolling,
    // Shift+Insert paste, Shift+keypad font size…) off, so every chord
    // reaches its encoder.
    "XTerm*omitTranslation: fullscreen,scroll-lock,shift-fonts,paging,keypad-fonts,popup-menu,reset,select,wheel-mouse",
];

/// The terminal state a row is typed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// DECCKM (`CSI ? 1 h`).
    pub app_cursor: bool,
    /// DECKPAM (`ESC =`).
    pub app_keypad: bool,
    /// NumLock, which only the keypad rows depend on.
    pub num_lock: bool,
}

impl Setup {
    /// The modes an application sets to get here.
    pub fn mode(self) -> TermMode {
        let mut mode = TermMode::empty();
        mode.set(TermMode::APP_CURSOR, self.app_cursor);
        mode.set(TermMode::APP_KEYPAD, self.app_keypad);
        mode
    }

    /// The escape sequences that set [`Setup::mode`].
    pub fn escapes(self) -> String {
        let mut out = String::new();
        if self.app_cursor {
            out.push_str("\x1b[?1h");
        }
        if self.app_keypad {
            out.push_str("\x1b=");
        }
        out
    }
}

/// Why koi sends something other than xterm.
#[derive(Clone, Copy, Debug)]
pub struct Deviation {
    pub sends: &'static [u8],
    pub why: &'static str,
}

/// One key in one terminal state.
#[derive(Clone, Debug)]
pub struct Row {
    /// The chord as xdotool types it: X keysyms joined by `+`.
    pub typed: &'static str,
    pub key: Key,
    pub mods: Mods,
    pub setup: Setup,
    /// What xterm sends.
    pub xterm: &'static [u8],
    pub deviation: Option<Deviation>,
}

impl Row {
    /// What koi sends: xterm's bytes unless the row documents otherwise.
    pub fn koi(&self) -> &'static [u8] {
        self.deviation.map_or(self.xterm, |d| d.sends)
    }

    const fn differs(mut self, sends: &'static [u8], why: &'static str) -> Row {
        self.deviation = Some(Deviation { sends, why });
        self
    }
}

const fn row(typed: &'static str, key: Key, mods: Mods, setup: Setup, xterm: &'static [u8]) -> Row {
    Row {
        typed,
        key,
        mods,
        setup,
        xterm,
        deviation: None,
    }
}

const fn setup(app_cursor: bool, app_keypad: bool, num_lock: bool) -> Setup {
    Setup {
        app_cursor,
        app_keypad,
        num_lock,
    }
}
