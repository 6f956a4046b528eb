//! xterm is the reference for keys: every row of koi's key table
//! (`koi_terminal::input::xterm_table`) typed with xdotool into a real xterm and
//! into koi's window under one X server, each running the recorder with the
//! row's modes (DECCKM, DECKPAM) and NumLock state. xterm must send what the
//! table says (so the table is xterm's, not koi's), and koi what the table
//! says koi sends (xterm's bytes, or a documented deviation).

use koi_terminal::input::xterm_table::{Row, Setup, ROWS, XTERM_RESOURCES};
use koi_terminal::input::{Key, Mods};
use term::config::Bindings;

use super::harness::{Koi, Xvfb};
use super::recording::{Recorder, Xterm};

/// Typed after every row to tell one row's bytes from the next: no row
/// sends a `|`.
const SENTINEL: &str = "bar";
const SENTINEL_BYTE: u8 = b'|';

/// Keysyms the table types that X's default keymap lacks, put on keys whose
/// own keysyms (XF86 launcher and media keys) no row needs.
const EXTRA_KEYSYMS: &[(&str, &str)] = &[
    ("FK13", "F13"),
    ("FK14", "F14"),
    ("FK15", "F15"),
    ("FK16", "F16"),
    ("FK17", "F17"),
    ("FK18", "F18"),
    ("FK19", "F19"),
    ("FK20", "F20"),
    ("FK21", "F21"),
    ("FK22", "F22"),
    ("FK23", "F23"),
    ("FK24", "F24"),
    ("I147", "eacute"),
    ("I148", "U4F60"),
];

#[test]
fn keys_send_what_xterm_sends() {
    let x = Xvfb::start();
    x.set_keysyms(EXTRA_KEYSYMS);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    std::fs::write(&config, koi_config()).unwrap();

    let mut setups: Vec<Setup> = Vec::new();
    for row in ROWS {
        if !setups.contains(&row.setup) {
            setups.push(row.setup);
        }
    }
    let mut failures = Vec::new();
    for (i, setup) in setups.iter().enumerate() {
        let rows: Vec<&Row> = ROWS.iter().filter(|r| r.setup == *setup).collect();
        x.set_num_lock(setup.num_lock);

        let recorder = Recorder::new(dir.path(), &format!("xterm-{i}"), &setup.escapes(), "");
        let xterm = Xterm::start(&x, XTERM_RESOURCES, &recorder.command());
        recorder.wait_ready("xterm");
        xterm.focus(&x);
        let from_xterm = type_rows(&x, &recorder, &rows, "xterm");
        drop(xterm);

        let recorder = Recorder::new(dir.path(), &format!("koi-{i}"), &setup.escapes(), "");
        let koi_dir = dir.path().join(format!("koi-{i}"));
        std::fs::create_dir(&koi_dir).unwrap();
        let command = recorder.command();
        let command: Vec<&str> = command.iter().map(String::as_str).collect();
        let mut koi = Koi::run(&x, &koi_dir, &config, &command);
        koi.find_window(&x);
        recorder.wait_ready("koi");
        x.xdotool(&["windowfocus", "--sync", &koi.window]);
        let from_koi = type_rows(&x, &recorder, &rows, "koi");
        drop(koi);

        for ((row, xterm), koi) in rows.iter().zip(&from_xterm).zip(&from_koi) {
            if xterm.as_slice() != row.xterm {
                failures.push(format!(
                    "{} {setup:?}: xterm sent {}, the table says {}",
                    row.typed,
                    show(xterm),
                    show(row.xterm)
                ));
            }
            if koi.as_slice() != row.koi() {
                let why = row.deviation.map(|d| d.why).unwrap_or("as xterm");
                failures.push(format!(
                    "{} {setup:?}: koi sent {}, the table says {} ({why})",
                    row.typed,
                    show(koi),
                    show(row.koi())
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        ROWS.len(),
        failures.join("\n")
    );
}

/// Type each row's chord and the sentinel after it; wait until the
/// recorder has them all and return each row's bytes.
fn type_rows(x: &Xvfb, recorder: &Recorder, rows: &[&Row], terminal: &str) -> Vec<Vec<u8>> {
    let mut args = vec!["key", "--delay", "12"];
    for row in rows {
        args.push(row.typed);
        args.push(SENTINEL);
    }
    x.xdotool(&args);
    let bytes = recorder.wait_for(
        SENTINEL_BYTE,
        rows.len(),
        &format!("{} rows' bytes from {terminal}", rows.len()),
    );
    bytes
        .split(|b| *b == SENTINEL_BYTE)
        .take(rows.len())
        .map(<[u8]>::to_vec)
        .collect()
}

/// koi's config for the test: every default shortcut a row types is
/// unbound, so the chord reaches the encoder as it does in xterm.
fn koi_config() -> String {
    let defaults = Bindings::default();
    let mut text = String::from("[window]\ncolumns = 40\nlines = 10\n[keybindings]\n");
    let mut unbound = Vec::new();
    for row in ROWS {
        if defaults.action_for(row.mods, &row.key).is_none() {
            continue;
        }
        let chord = chord(row.mods, &row.key)
            .unwrap_or_else(|| panic!("{}: a bound key the config cannot name", row.typed));
        if !unbound.contains(&chord) {
            text.push_str(&format!("{chord:?} = \"none\"\n"));
            unbound.push(chord);
        }
    }
    text
}

/// A chord as koi's config writes it.
fn chord(mods: Mods, key: &Key) -> Option<String> {
    let mut out = String::new();
    for (held, name) in [
        (mods.ctrl, "Ctrl+"),
        (mods.alt, "Alt+"),
        (mods.shift, "Shift+"),
        (mods.logo, "Super+"),
    ] {
        if held {
            out.push_str(name);
        }
    }
    let name = match key {
        Key::Char(' ') => "space".to_owned(),
        Key::Char('+') => "plus".to_owned(),
        Key::Char(c) => c.to_string(),
        Key::F(n) => format!("F{n}"),
        Key::Enter => "Enter".into(),
        Key::Tab => "Tab".into(),
        Key::Backspace => "Backspace".into(),
        Key::Escape => "Escape".into(),
        Key::Up => "Up".into(),
        Key::Down => "Down".into(),
        Key::Left => "Left".into(),
        Key::Right => "Right".into(),
        Key::Home => "Home".into(),
        Key::End => "End".into(),
        Key::PageUp => "PageUp".into(),
        Key::PageDown => "PageDown".into(),
        Key::Insert => "Insert".into(),
        Key::Delete => "Delete".into(),
        Key::Begin | Key::Keypad(_) => return None,
    };
    out.push_str(&name);
    Some(out)
}

fn show(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}
