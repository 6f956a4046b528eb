//! What a key press is, by meaning rather than position: the model the
//! legacy (xterm) and kitty encoders both read.

use super::Mods;

/// A key, by what it means rather than where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// A key that produces text; the character is what the layout gives with
    /// the current modifiers (so Shift+a is `'A'`).
    Char(char),
    Enter,
    Tab,
    Backspace,
    Escape,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    /// F1–F24 (other numbers are not sent).
    F(u8),
    /// The keypad's middle key (5) with NumLock off: xterm's `KP_Begin`.
    Begin,
    /// A key on the numeric keypad.
    Keypad(KeypadKey),
}

/// Keys of the numeric keypad as they come with NumLock on (with NumLock off
/// the digits arrive as the cursor and editing keys printed on them). The
/// kitty protocol tells them from their main-keyboard twins; the legacy
/// encoding sends their characters (see [`keypad`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeypadKey {
    Digit(u8),
    Decimal,
    Divide,
    Multiply,
    Subtract,
    Add,
    Enter,
    Equal,
}

/// Press, auto-repeat or release. Only the kitty protocol reports releases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyAction {
    #[default]
    Press,
    Repeat,
    Release,
}

/// One keyboard event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyEvent {
    pub key: Key,
    pub mods: Mods,
    pub action: KeyAction,
}

impl KeyEvent {
    pub fn press(key: Key, mods: Mods) -> Self {
        Self {
            key,
            mods,
            action: KeyAction::Press,
        }
    }
}

/// The `CSI n ~` number of F5–F24: the VT220's numbering, which skips 16,
/// 22, 27, 30 and 35–41 (xterm continues with 42 after F20).
pub(super) fn function_key_code(n: u8) -> Option<u8> {
    Some(match n {
        5 => 15,
        6..=10 => n + 11,
        11..=14 => n + 12,
        15 | 16 => n + 13,
        17..=20 => n + 14,
        21..=24 => n + 21,
        _ => return None,
    })
}
