//! winit keyboard events → koi's [`koi_terminal::input`] keys.

use winit::event::{ElementState, KeyEvent};
use winit::keyboard::{Key as WKey, KeyCode, KeyLocation, ModifiersState, NamedKey, PhysicalKey};

use koi_terminal::input::key_event::KeypadKey;
use koi_terminal::input::{Key, KeyAction, KeyEvent as InputKey, Mods};

pub fn mods(state: ModifiersState) -> Mods {
    Mods {
        shift: state.shift_key(),
        alt: state.alt_key(),
        ctrl: state.control_key(),
        logo: state.super_key(),
    }
}

/// What a key press should do: an encodable key, or text to send as is
/// (compose results and other multi-character input).
pub enum Translated {
    Key(InputKey),
    Text(String),
}

pub fn translate(event: &KeyEvent, mods: Mods) -> Option<Translated> {
    let action = match (event.state, event.repeat) {
        (ElementState::Released, _) => KeyAction::Release,
        (ElementState::Pressed, true) => KeyAction::Repeat,
        (ElementState::Pressed, false) => KeyAction::Press,
    };
    let numpad = event.location == KeyLocation::Numpad;
    let key = match &event.logical_key {
        WKey::Named(named) => named_key(*named, numpad)?,
        WKey::Character(s) => {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if numpad => {
                    keypad_char(c).map(Key::Keypad).unwrap_or(Key::Char(c))
                }
                (Some(c), None) => Key::Char(c),
                _ => {
                    return (action != KeyAction::Release).then(|| Translated::Text(s.to_string()));
                }
            }
        }
        // winit names no key for KP_Begin, the keypad's 5 with NumLock off.
        WKey::Unidentified(_) if event.physical_key == PhysicalKey::Code(KeyCode::Numpad5) => {
            Key::Begin
        }
        _ => {
            let text = event.text.as_ref().filter(|t| !t.is_empty())?;
            return (action != KeyAction::Release).then(|| Translated::Text(text.to_string()));
        }
    };
    Some(Translated::Key(InputKey { key, mods, action }))
}

fn named_key(named: NamedKey, numpad: bool) -> Option<Key> {
    Some(match named {
        NamedKey::Enter if numpad => Key::Keypad(KeypadKey::Enter),
        NamedKey::Enter => Key::Enter,
        NamedKey::Tab => Key::Tab,
        NamedKey::Backspace => Key::Backspace,
        NamedKey::Escape => Key::Escape,
        NamedKey::Space => Key::Char(' '),
        NamedKey::ArrowUp => Key::Up,
        NamedKey::ArrowDown => Key::Down,
        NamedKey::ArrowLeft => Key::Left,
        NamedKey::ArrowRight => Key::Right,
        NamedKey::Home => Key::Home,
        NamedKey::End => Key::End,
        NamedKey::PageUp => Key::PageUp,
        NamedKey::PageDown => Key::PageDown,
        NamedKey::Insert => Key::Insert,
        NamedKey::Delete => Key::Delete,
        NamedKey::F1 => Key::F(1),
        NamedKey::F2 => Key::F(2),
        NamedKey::F3 => Key::F(3),
        NamedKey::F4 => Key::F(4),
        NamedKey::F5 => Key::F(5),
        NamedKey::F6 => Key::F(6),
        NamedKey::F7 => Key::F(7),
        NamedKey::F8 => Key::F(8),
        NamedKey::F9 => Key::F(9),
        NamedKey::F10 => Key::F(10),
        NamedKey::F11 => Key::F(11),
        NamedKey::F12 => Key::F(12),
        NamedKey::F13 => Key::F(13),
        NamedKey::F14 => Key::F(14),
        NamedKey::F15 => Key::F(15),
        NamedKey::F16 => Key::F(16),
        NamedKey::F17 => Key::F(17),
        NamedKey::F18 => Key::F(18),
        NamedKey::F19 => Key::F(19),
        NamedKey::F20 => Key::F(20),
        NamedKey::F21 => Key::F(21),
        NamedKey::F22 => Key::F(22),
        NamedKey::F23 => Key::F(23),
        NamedKey::F24 => Key::F(24),
        _ => return None,
    })
}

fn keypad_char(c: char) -> Option<KeypadKey> {
    Some(match c {
        '0'..='9' => KeypadKey::Digit(c as u8 - b'0'),
        '.' | ',' => KeypadKey::Decimal,
        '/' => KeypadKey::Divide,
        '*' => KeypadKey::Multiply,
        '-' => KeypadKey::Subtract,
        '+' => KeypadKey::Add,
        '=' => KeypadKey::Equal,
        _ => return None,
    })
}
