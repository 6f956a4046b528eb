//! Keys to bytes, as xterm (and therefore every TUI) expects them.

use std::io::Write as _;

use alacritty_terminal::term::TermMode;

use super::key_event::{function_key_code, Key, KeyAction, KeyEvent, KeypadKey};
use super::{kitty, Mods};

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
