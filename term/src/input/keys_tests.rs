//! The encoder against xterm's behaviour (xterm 390, default resources:
//! `modifyOtherKeys` off, `metaSendsEscape` on, as every terminal ships).

use super::*;
use crate::input::Mods;

fn enc(key: Key, mods: Mods, mode: TermMode) -> Vec<u8> {
    encode_key(&KeyEvent::press(key, mods), mode)
}

const N: Mods = Mods::NONE;
const S: Mods = Mods::SHIFT;
const A: Mods = Mods::ALT;
const C: Mods = Mods::CTRL;

#[test]
fn legacy_table_matches_xterm() {
    let normal = TermMode::empty();
    let app = TermMode::APP_CURSOR;
    let cs = C.with(S);
    let table: &[(Key, Mods, TermMode, &[u8])] = &[
        // Text.
        (Key::Char('a'), N, normal, b"a"),
        (Key::Char('A'), S, normal, b"A"),
        (Key::Char('é'), N, normal, "é".as_bytes()),
        (Key::Char('你'), N, normal, "你".as_bytes()),
        (Key::Char('a'), A, normal, b"\x1ba"),
        (Key::Char('你'), A, normal, "\x1b你".as_bytes()),
        // Ctrl+letter and Ctrl+@[\]^_.
        (Key::Char('a'), C, normal, b"\x01"),
        (Key::Char('c'), C, normal, b"\x03"),
        (Key::Char('z'), C, normal, b"\x1a"),
        (Key::Char('A'), cs, normal, b"\x01"),
        (Key::Char('@'), C, normal, b"\x00"),
        (Key::Char(' '), C, normal, b"\x00"),
        (Key::Char('['), C, normal, b"\x1b"),
        (Key::Char('\\'), C, normal, b"\x1c"),
        (Key::Char(']'), C, normal, b"\x1d"),
        (Key::Char('^'), C, normal, b"\x1e"),
        (Key::Char('_'), C, normal, b"\x1f"),
        (Key::Char('?'), C, normal, b"\x7f"),
        (Key::Char('a'), C.with(A), normal, b"\x1b\x01"),
        // Editing keys.
        (Key::Enter, N, normal, b"\r"),
        (Key::Enter, A, normal, b"\x1b\r"),
        (Key::Tab, N, normal, b"\t"),
        (Key::Tab, S, normal, b"\x1b[Z"),
        (Key::Backspace, N, normal, b"\x7f"),
        (Key::Backspace, C, normal, b"\x08"),
        (Key::Backspace, A, normal, b"\x1b\x7f"),
        (Key::Escape, N, normal, b"\x1b"),
        // Cursor keys: normal, DECCKM, modified.
        (Key::Up, N, normal, b"\x1b[A"),
        (Key::Down, N, normal, b"\x1b[B"),
        (Key::Right, N, normal, b"\x1b[C"),
        (Key::Left, N, normal, b"\x1b[D"),
        (Key::Up, N, app, b"\x1bOA"),
        (Key::Left, N, app, b"\x1bOD"),
        (Key::Right, C, normal, b"\x1b[1;5C"),
        (Key::Right, C, app, b"\x1b[1;5C"),
        (Key::Left, S, normal, b"\x1b[1;2D"),
        (Key::Up, A, normal, b"\x1b[1;3A"),
        (Key::Down, cs, normal, b"\x1b[1;6B"),
        (Key::Up, C.with(A).with(S), normal, b"\x1b[1;8A"),
        (Key::Home, N, normal, b"\x1b[H"),
        (Key::End, N, normal, b"\x1b[F"),
        (Key::Home, N, app, b"\x1bOH"),
        (Key::End, N, app, b"\x1bOF"),
        (Key::Home, C, normal, b"\x1b[1;5H"),
        (Key::End, S, normal, b"\x1b[1;2F"),
        (Key::PageUp, N, normal, b"\x1b[5~"),
        (Key::PageDown, N, normal, b"\x1b[6~"),
        (Key::PageUp, C, normal, b"\x1b[5;5~"),
        (Key::Insert, N, normal, b"\x1b[2~"),
        (Key::Delete, N, normal, b"\x1b[3~"),
        (Key::Delete, S, normal, b"\x1b[3;2~"),
        // Function keys.
        (Key::F(1), N, normal, b"\x1bOP"),
        (Key::F(2), N, normal, b"\x1bOQ"),
        (Key::F(3), N, normal, b"\x1bOR"),
        (Key::F(4), N, normal, b"\x1bOS"),
        (Key::F(1), S, normal, b"\x1b[1;2P"),
        (Key::F(4), C, normal, b"\x1b[1;5S"),
        (Key::F(5), N, normal, b"\x1b[15~"),
        (Key::F(6), N, normal, b"\x1b[17~"),
        (Key::F(7), N, normal, b"\x1b[18~"),
        (Key::F(8), N, normal, b"\x1b[19~"),
        (Key::F(9), N, normal, b"\x1b[20~"),
        (Key::F(10), N, normal, b"\x1b[21~"),
        (Key::F(11), N, normal, b"\x1b[23~"),
        (Key::F(12), N, normal, b"\x1b[24~"),
        (Key::F(5), C, normal, b"\x1b[15;5~"),
        (Key::F(12), S, normal, b"\x1b[24;2~"),
        (Key::F(13), N, normal, b""),
        // Keypad: numeric vs application (DECKPAM).
        (Key::Keypad(KeypadKey::Digit(1)), N, normal, b"1"),
        (
            Key::Keypad(KeypadKey::Digit(1)),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOq",
        ),
        (
            Key::Keypad(KeypadKey::Digit(0)),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOp",
        ),
        (Key::Keypad(KeypadKey::Enter), N, normal, b"\r"),
        (
            Key::Keypad(KeypadKey::Enter),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOM",
        ),
        (
            Key::Keypad(KeypadKey::Add),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOk",
        ),
        (
            Key::Keypad(KeypadKey::Subtract),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOm",
        ),
        (
            Key::Keypad(KeypadKey::Multiply),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOj",
        ),
        (
            Key::Keypad(KeypadKey::Divide),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOo",
        ),
        (
            Key::Keypad(KeypadKey::Decimal),
            N,
            TermMode::APP_KEYPAD,
            b"\x1bOn",
        ),
        (Key::Keypad(KeypadKey::Decimal), N, normal, b"."),
    ];
    for (key, mods, mode, want) in table {
        let got = enc(key.clone(), *mods, *mode);
        assert_eq!(
            got,
            want.to_vec(),
            "{key:?} {mods:?} {mode:?}: got {:?}, want {:?}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want)
        );
    }
}

#[test]
fn releases_send_nothing_without_kitty() {
    let release = KeyEvent {
        key: Key::Char('a'),
        mods: N,
        action: KeyAction::Release,
    };
    assert!(encode_key(&release, TermMode::empty()).is_empty());
}

#[test]
fn kitty_table() {
    let dis = TermMode::DISAMBIGUATE_ESC_CODES;
    let ev = dis | TermMode::REPORT_EVENT_TYPES;
    let all = dis | TermMode::REPORT_ALL_KEYS_AS_ESC;
    let text = all | TermMode::REPORT_ASSOCIATED_TEXT;
    let press = KeyAction::Press;
    let release = KeyAction::Release;
    let repeat = KeyAction::Repeat;
    let table: &[(Key, Mods, KeyAction, TermMode, &[u8])] = &[
        // Disambiguate: plain text and editing keys stay legacy.
        (Key::Char('a'), N, press, dis, b"a"),
        (Key::Char('A'), S, press, dis, b"A"),
        (Key::Enter, N, press, dis, b"\r"),
        (Key::Tab, N, press, dis, b"\t"),
        (Key::Backspace, N, press, dis, b"\x7f"),
        // …while ambiguous ones become CSI u.
        (Key::Escape, N, press, dis, b"\x1b[27u"),
        (Key::Char('a'), C, press, dis, b"\x1b[97;5u"),
        (Key::Char('a'), A, press, dis, b"\x1b[97;3u"),
        (Key::Char('I'), C.with(S), press, dis, b"\x1b[105;6u"),
        (Key::Enter, S, press, dis, b"\x1b[13;2u"),
        (Key::Backspace, C, press, dis, b"\x1b[127;5u"),
        (Key::Up, N, press, dis, b"\x1b[A"),
        (Key::Up, C, press, dis, b"\x1b[1;5A"),
        (Key::F(3), S, press, dis, b"\x1b[13;2~"),
        (Key::Delete, A, press, dis, b"\x1b[3;3~"),
        // Event types.
        (Key::Char('a'), N, release, dis, b""),
        (Key::Up, N, release, ev, b"\x1b[1;1:3A"),
        (Key::Up, N, repeat, ev, b"\x1b[1;1:2A"),
        (Key::Char('a'), C, release, ev, b"\x1b[97;5:3u"),
        (Key::Escape, N, release, ev, b"\x1b[27;1:3u"),
        // All keys as escape codes.
        (Key::Char('a'), N, press, all, b"\x1b[97u"),
        (Key::Enter, N, press, all, b"\x1b[13u"),
        (Key::Tab, S, press, all, b"\x1b[9;2u"),
        (
            Key::Keypad(KeypadKey::Digit(0)),
            N,
            press,
            all,
            b"\x1b[57399u",
        ),
        (Key::Char('a'), N, press, text, b"\x1b[97;;97u"),
        (Key::Char('A'), S, press, text, b"\x1b[97;2;65u"),
    ];
    for (key, mods, action, mode, want) in table {
        let got = encode_key(
            &KeyEvent {
                key: key.clone(),
                mods: *mods,
                action: *action,
            },
            *mode,
        );
        assert_eq!(
            got,
            want.to_vec(),
            "{key:?} {mods:?} {action:?} {mode:?}: got {:?}, want {:?}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want)
        );
    }
}
