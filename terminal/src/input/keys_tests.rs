//! The encoder against xterm's behaviour: the legacy encoding against the
//! rows recorded from xterm (`xterm_table`), the kitty protocol against its
//! specification.

use super::*;
use crate::input::xterm_table::ROWS;
use crate::input::Mods;

fn enc(key: Key, mods: Mods, mode: TermMode) -> Vec<u8> {
    encode_key(&KeyEvent::press(key, mods), mode)
}

const N: Mods = Mods::NONE;
const S: Mods = Mods::SHIFT;
const A: Mods = Mods::ALT;
const C: Mods = Mods::CTRL;

#[test]
fn legacy_encoding_is_xterms() {
    // The rows come from a real xterm; the window test `xterm_keys` checks
    // them against one.
    let mut failures = Vec::new();
    for row in ROWS {
        let got = encode_key(
            &KeyEvent::press(row.key.clone(), row.mods),
            row.setup.mode(),
        );
        if got != row.koi() {
            failures.push(format!(
                "{} {:?}: got {:?}, want {:?}",
                row.typed,
                row.setup,
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(row.koi())
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_deviation_from_xterm_differs_and_says_why() {
    for row in ROWS {
        if let Some(d) = row.deviation {
            assert_ne!(d.sends, row.xterm, "{}: not a deviation", row.typed);
            assert!(!d.why.is_empty(), "{}: no reason", row.typed);
        }
    }
}

#[test]
fn the_table_covers_every_function_key_and_mode() {
    for n in 1..=24 {
        assert!(
            ROWS.iter().any(|r| r.key == Key::F(n) && r.mods.is_empty()),
            "no row for F{n}"
        );
    }
    for app_cursor in [false, true] {
        for app_keypad in [false, true] {
            assert!(
                ROWS.iter()
                    .any(|r| (r.setup.app_cursor, r.setup.app_keypad) == (app_cursor, app_keypad)),
                "no row with DECCKM {app_cursor} DECKPAM {app_keypad}"
            );
        }
    }
}

#[test]
fn function_keys_past_f24_send_nothing() {
    assert!(enc(Key::F(25), N, TermMode::empty()).is_empty());
    assert!(enc(Key::F(0), C, TermMode::empty()).is_empty());
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
