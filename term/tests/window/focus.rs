//! Keyboard focus with no window manager: the X server's focus stays
//! `PointerRoot` and keys go to the window under the pointer, as they do
//! for xterm and Alacritty. Nothing here calls `windowfocus`.

use std::time::Duration;

use crate::harness::{eventually, Koi, Xvfb};
use crate::write_config;

/// koi running a shell that reads one line into `typed.txt` in the
/// returned directory, its window found but never focused by the test.
fn line_reader() -> (Xvfb, tempfile::TempDir, Koi) {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let typed = dir.path().join("typed.txt");
    let script = format!("read -r line; printf %s \"$line\" > '{}'", typed.display());
    let mut koi = Koi::run(
        &x,
        dir.path(),
        &config,
        &["bash", "--norc", "--noprofile", "-c", &script],
    );
    koi.find_window(&x);
    (x, dir, koi)
}

#[test]
fn keys_reach_the_window_under_the_pointer_with_no_window_manager() {
    let (x, dir, koi) = line_reader();
    let typed = dir.path().join("typed.txt");
    let focused = || x.xdotool(&["getwindowfocus"]) == koi.window;

    // Pointer outside the window (the screen is 1280×900, koi's window
    // sits at the top left): keys go to the root, not to koi.
    x.xdotool(&["mousemove", "1275", "895"]);
    assert!(!focused(), "koi took the focus with the pointer outside");
    x.xdotool(&["type", "--delay", "15", "lost"]);

    let enter = || {
        x.xdotool(&["mousemove", "--window", &koi.window, "20", "20"]);
        eventually(
            "koi to take the focus under the pointer",
            Duration::from_secs(10),
            focused,
        );
    };
    enter();
    // Leaving gives the focus back to the pointer.
    x.xdotool(&["mousemove", "1275", "895"]);
    eventually(
        "koi to give the focus back",
        Duration::from_secs(10),
        || !focused(),
    );
    enter();
    x.xdotool(&["type", "--delay", "15", "typed"]);
    x.xdotool(&["key", "Return"]);
    eventually("the typed line", Duration::from_secs(10), || typed.exists());
    assert_eq!(std::fs::read_to_string(&typed).unwrap(), "typed");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}

/// A key already down when koi gains the focus was pressed for another
/// window: winit reports it as a synthetic press, and koi must not type it.
#[test]
fn a_key_held_while_the_focus_arrives_is_not_typed() {
    let (x, dir, koi) = line_reader();
    let typed = dir.path().join("typed.txt");
    let focused = || x.xdotool(&["getwindowfocus"]) == koi.window;

    x.xdotool(&["mousemove", "1275", "895"]);
    assert!(!focused(), "koi took the focus with the pointer outside");
    x.xdotool(&["keydown", "o"]);
    x.xdotool(&["mousemove", "--window", &koi.window, "20", "20"]);
    eventually(
        "koi to take the focus under the pointer",
        Duration::from_secs(10),
        focused,
    );
    x.xdotool(&["keyup", "o"]);
    x.xdotool(&["type", "--delay", "15", "typed"]);
    x.xdotool(&["key", "Return"]);
    eventually("the typed line", Duration::from_secs(10), || typed.exists());
    assert_eq!(std::fs::read_to_string(&typed).unwrap(), "typed");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}
