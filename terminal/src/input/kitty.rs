//! The kitty keyboard protocol (`CSI code;mods:event u`), used only while the
//! application has pushed its flags. Keys it leaves alone fall back to the
//! legacy encoding by returning `None`.

use std::io::Write as _;

use alacritty_terminal::term::TermMode;

use super::key_event::{function_key_code, Key, KeyAction, KeyEvent, KeypadKey};
use super::Mods;

/// The final byte and number of a key's escape code.
struct Code {
    number: u32,
    suffix: char,
}

const fn code(number: u32, suffix: char) -> Code {
    Code { number, suffix }
}

/// First of the private-use code points kitty assigns to keypad keys.
const KEYPAD_BASE: u32 = 57399;
/// kitty's code point for F13; F14–F24 follow it (F1–F12 keep legacy numbers).
const F13_CODE: u32 = 57376;

fn key_code(key: &Key) -> Option<Code> {
    Some(match key {
        Key::Char(c) => code(u32::from(c.to_lowercase().next().unwrap_or(*c)), 'u'),
        Key::Enter => code(13, 'u'),
        Key::Tab => code(9, 'u'),
        Key::Backspace => code(127, 'u'),
        Key::Escape => code(27, 'u'),
        Key::Up => code(1, 'A'),
        Key::Down => code(1, 'B'),
        Key::Right => code(1, 'C'),
        Key::Left => code(1, 'D'),
        Key::Home => code(1, 'H'),
        Key::End => code(1, 'F'),
        Key::Begin => code(1, 'E'),
        Key::Insert => code(2, '~'),
        Key::Delete => code(3, '~'),
        Key::PageUp => code(5, '~'),
        Key::PageDown => code(6, '~'),
        Key::F(1) => code(1, 'P'),
        Key::F(2) => code(1, 'Q'),
        Key::F(3) => code(13, '~'),
        Key::F(4) => code(1, 'S'),
        Key::F(n @ 5..=12) => code(u32::from(function_key_code(*n)?), '~'),
        Key::F(n @ 13..=24) => code(F13_CODE + u32::from(n - 13), 'u'),
        Key::F(_) => return None,
        Key::Keypad(k) => code(
            KEYPAD_BASE
                + match k {
                    KeypadKey::Digit(d) => u32::from((*d).min(9)),
                    KeypadKey::Decimal => 10,
                    KeypadKey::Divide => 11,
                    KeypadKey::Multiply => 12,
                    KeypadKey::Subtract => 13,
                    KeypadKey::Add => 14,
                    KeypadKey::Enter => 15,
                    KeypadKey::Equal => 16,
                },
            'u',
        ),
    })
}

/// Keys that still type their legacy bytes under "disambiguate" so a shell
/// stays usable if a program dies without popping its flags.
fn is_plain_text_or_editing(event: &KeyEvent) -> bool {
    let only_shift = !(event.mods.ctrl || event.mods.alt || event.mods.logo);
    match event.key {
        Key::Char(_) => only_shift,
        Key::Enter | Key::Tab | Key::Backspace => event.mods.is_empty(),
        Key::Keypad(_) => true,
        _ => false,
    }
}

pub(super) fn encode(event: &KeyEvent, mode: TermMode) -> Option<Vec<u8>> {
    let all_as_esc = mode.contains(TermMode::REPORT_ALL_KEYS_AS_ESC);
    let event_types = mode.contains(TermMode::REPORT_EVENT_TYPES);
    let release = event.action == KeyAction::Release;

    if !all_as_esc && is_plain_text_or_editing(event) {
        // Legacy bytes for presses; releases of text keys are not reported.
        return release.then(Vec::new);
    }
    if release && !event_types {
        return Some(Vec::new());
    }
    let is_functional = !matches!(
        event.key,
        Key::Char(_) | Key::Enter | Key::Tab | Key::Backspace | Key::Escape | Key::Keypad(_)
    );
    let Code { number, suffix } = key_code(&event.key)?;
    if !all_as_esc
        && !mode.contains(TermMode::DISAMBIGUATE_ESC_CODES)
        && event.action == KeyAction::Press
    {
        return None;
    }
    // Unmodified presses of cursor and function keys keep their legacy form.
    if is_functional && event.mods.is_empty() && event.action == KeyAction::Press && !all_as_esc {
        return None;
    }

    let event_type = match event.action {
        KeyAction::Press => None,
        _ if !event_types => None,
        KeyAction::Repeat => Some(2),
        KeyAction::Release => Some(3),
    };
    let text = match (&event.key, mode.contains(TermMode::REPORT_ASSOCIATED_TEXT)) {
        (Key::Char(c), true) if all_as_esc && !event.mods.ctrl && !release => Some(*c),
        _ => None,
    };

    let mut out = Vec::with_capacity(16);
    out.extend_from_slice(b"\x1b[");
    let mods = modifier_field(event.mods, event_type);
    let omit_number =
        number == 1 && suffix != 'u' && suffix != '~' && mods.is_none() && text.is_none();
    if !omit_number {
        let _ = write!(out, "{number}");
    }
    match (mods, text) {
        (Some(m), Some(t)) => {
            let _ = write!(out, ";{m};{}", u32::from(t));
        }
        (None, Some(t)) => {
            let _ = write!(out, ";;{}", u32::from(t));
        }
        (Some(m), None) => {
            let _ = write!(out, ";{m}");
        }
        (None, None) => {}
    }
    let mut buf = [0u8; 4];
    out.extend_from_slice(suffix.encode_utf8(&mut buf).as_bytes());
    Some(out)
}

/// `mods[:event]`, or `None` when both are defaults.
fn modifier_field(mods: Mods, event_type: Option<u8>) -> Option<String> {
    match (mods.param(), event_type) {
        (1, None) => None,
        (m, None) => Some(m.to_string()),
        (m, Some(t)) => Some(format!("{m}:{t}")),
    }
}
