//! Keys to bytes, as xterm (and therefore every TUI) expects them.

use std::io::Write as _;

use alacritty_terminal::term::TermMode;

use super::{kitty, Mods};

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

const ESC: u8 = 0x1b;

/// The bytes to send for `event` given the terminal's `mode`; empty when the
/// event sends nothing (a release without the kitty protocol, F13…).
pub fn encode_key(event: &KeyEvent, mode: TermMode) -> Vec<u8> {
    if mode.intersects(TermMode::KITTY_KEYBOARD_PROTOCOL) {
        if let Some(bytes) = kitty::encode(event, mode) {
            return bytes;
        }
    }
    if event.action == KeyAction::Release {
        return Vec::new();
    }
    legacy(&event.key, event.mods, mode)
}

/// xterm's encoding with `modifyOtherKeys` off, the default everywhere.
/// `super::xterm_table` holds what xterm sends for each key, and a window
/// test types those keys into a real xterm to keep it true.
pub(super) fn legacy(key: &Key, mods: Mods, mode: TermMode) -> Vec<u8> {
    let app_cursor = mode.contains(TermMode::APP_CURSOR);
    let mut out = Vec::new();
    match key {
        Key::Char(c) => return char_bytes(*c, mods),
        Key::Enter => return alt_prefixed(mods, b"\r"),
        Key::Tab if mods.shift => out.extend_from_slice(b"\x1b[Z"),
        Key::Tab => return alt_prefixed(mods, b"\t"),
        Key::Backspace if mods.ctrl => return alt_prefixed(mods, b"\x08"),
        Key::Backspace => return alt_prefixed(mods, b"\x7f"),
        Key::Escape => return alt_prefixed(mods, b"\x1b"),
        Key::Up => cursor_key(&mut out, b'A', mods, app_cursor),
        Key::Down => cursor_key(&mut out, b'B', mods, app_cursor),
        Key::Right => cursor_key(&mut out, b'C', mods, app_cursor),
        Key::Left => cursor_key(&mut out, b'D', mods, app_cursor),
        Key::Home => cursor_key(&mut out, b'H', mods, app_cursor),
        Key::End => cursor_key(&mut out, b'F', mods, app_cursor),
        Key::Begin => cursor_key(&mut out, b'E', mods, app_cursor),
        Key::Insert => tilde_key(&mut out, 2, mods),
        Key::Delete => tilde_key(&mut out, 3, mods),
        Key::PageUp => tilde_key(&mut out, 5, mods),
        Key::PageDown => tilde_key(&mut out, 6, mods),
        Key::F(n @ 1..=4) => {
            let letter = b"PQRS"[usize::from(n - 1)];
            if mods.is_empty() {
                out.extend_from_slice(&[ESC, b'O', letter]);
            } else {
                let _ = write!(out, "\x1b[1;{}", mods.param());
                out.push(letter);
            }
        }
        Key::F(n) => {
            if let Some(code) = function_key_code(*n) {
                tilde_key(&mut out, code, mods);
            }
        }
        Key::Keypad(k) => return keypad(*k, mods),
    }
    out
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

fn alt_prefixed(mods: Mods, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 1);
    if mods.alt {
        out.push(ESC);
    }
    out.extend_from_slice(bytes);
    out
}

/// Text keys: Ctrl maps to C0 control bytes, Alt prefixes ESC.
fn char_bytes(c: char, mods: Mods) -> Vec<u8> {
    let mut buf = [0u8; 4];
    let control = if mods.ctrl { control_byte(c) } else { None };
    match control {
        Some(byte) => alt_prefixed(mods, &[byte]),
        None => alt_prefixed(mods, c.encode_utf8(&mut buf).as_bytes()),
    }
}

/// The control byte xterm sends for Ctrl+`c`, if it has one.
pub(super) fn control_byte(c: char) -> Option<u8> {
    Some(match c {
        '@' | ' ' | '2' | '`' => 0x00,
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' => 0x1f,
        '8' | '?' => 0x7f,
        _ => return None,
    })
}

/// Arrows, Home and End: `CSI X`, `SS3 X` in application cursor mode,
/// `CSI 1;m X` with modifiers.
fn cursor_key(out: &mut Vec<u8>, letter: u8, mods: Mods, app_cursor: bool) {
    if !mods.is_empty() {
        let _ = write!(out, "\x1b[1;{}", mods.param());
    } else if app_cursor {
        out.extend_from_slice(b"\x1bO");
    } else {
        out.extend_from_slice(b"\x1b[");
    }
    out.push(letter);
}

/// `CSI n ~`, or `CSI n;m ~` with modifiers.
fn tilde_key(out: &mut Vec<u8>, code: u8, mods: Mods) {
    if mods.is_empty() {
        let _ = write!(out, "\x1b[{code}~");
    } else {
        let _ = write!(out, "\x1b[{code};{}~", mods.param());
    }
}

/// The keypad's characters, in application keypad mode (DECKPAM) too: xterm
/// (with its default `numLock` resource) ignores DECKPAM while NumLock is on,
/// and a keypad digit reaching koi means NumLock is on. NumLock's state is
/// not visible for the operator keys (winit reports no lock state), so koi
/// sends theirs as with NumLock on, where xterm with NumLock off would send
/// `SS3 k` and the like; `xterm_table` records that difference.
fn keypad(key: KeypadKey, mods: Mods) -> Vec<u8> {
    let text = match key {
        KeypadKey::Digit(d) => char::from(b'0' + d.min(9)),
        KeypadKey::Decimal => '.',
        KeypadKey::Divide => '/',
        KeypadKey::Multiply => '*',
        KeypadKey::Subtract => '-',
        KeypadKey::Add => '+',
        KeypadKey::Enter => '\r',
        KeypadKey::Equal => '=',
    };
    char_bytes(text, mods)
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
