//! The koi window end to end: a real X server (Xvfb), real keystrokes
//! (xdotool), a real shell, real wgpu presentation (lavapipe/llvmpipe);
//! and a real Wayland compositor (weston, headless).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod answer_pictures;
mod desktop;
mod fix;
mod focus;
mod harness;
mod ime;
mod links;
mod memory;
mod memory_read;
mod overlay;
mod pane_overlay;
mod paste;
mod paste_image;
mod present;
mod recording;
mod search;
mod selection;
mod startup;
mod suggest;
mod tabs;
mod theme;
mod wayland;
mod xterm_keys;

use std::path::Path;
use std::time::Duration;

use harness::{eventually, Koi, Xvfb};

const EXIT_WAIT: Duration = Duration::from_secs(30);

fn write_config(path: &Path, background: &str, extra: &str) {
    // Write and rename, as editors do.
    let tmp = path.with_extension("tmp");
    let text = format!("[colors]\nbackground = \"{background}\"\n[window]\npadding = 0\ncolumns = 40\nlines = 10\n{extra}");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A colour of koi's chrome as the window tests see it: koi's own theme
/// on [`harness::TestConfig::BACKGROUND`] (render/src/chrome.rs derives
/// the chrome from the theme).
fn chrome_rgb(pick: impl Fn(&render::ChromeColors) -> render::Rgb) -> [u8; 3] {
    let theme = render::Theme {
        background: render::Rgb::from_hex(0x101418),
        ..render::Theme::default()
    };
    let c = pick(&render::ChromeColors::from_theme(&theme));
    [c.r, c.g, c.b]
}

fn hex(rgb: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

#[test]
fn typed_command_runs_and_its_output_is_drawn() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    koi.run_command(&x, "echo $((6*7))");

    // The window as the X server shows it: "42" on the row below the
    // command line, with nothing after it.
    let (w, h) = koi.size(&x);
    assert_eq!(w % 40, 0, "40 columns, no padding: {w}");
    assert_eq!(h % 10, 0, "10 rows, no padding: {h}");
    let (cw, ch) = (w as usize / 40, h as usize / 10);
    let bg = [0x10, 0x14, 0x18];
    eventually("42 drawn in the window", Duration::from_secs(10), || {
        let shot = x.screenshot(&koi.window);
        shot.rgb(shot.width - 1, shot.height - 1) == bg
            && shot.ink(0, ch, cw, ch, bg) > 0
            && shot.ink(cw, ch, cw, ch, bg) > 0
            && shot.ink(3 * cw, ch, 30 * cw, ch, bg) == 0
    });

    koi.type_line(&x, "exit");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    // The text agrees: the prompt's row, then 42.
    let text = std::fs::read_to_string(&dump).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.get(1), Some(&"42"), "{text}");
}

#[test]
fn resizing_the_window_resizes_the_pty() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    let size_file = dir.path().join("size.txt");
    let pty_size = || -> (u32, u32) {
        koi.run_command(&x, &format!("stty size > '{}'", size_file.display()));
        let text = std::fs::read_to_string(&size_file).unwrap();
        let mut it = text.split_whitespace().map(|n| n.parse().unwrap());
        (it.next().unwrap(), it.next().unwrap())
    };
    assert_eq!(pty_size(), (10, 40), "the configured grid");
    x.xdotool(&["windowsize", "--sync", &koi.window, "1000", "700"]);
    // The resize reaches the PTY as soon as koi handles the event.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let (rows, cols) = loop {
        let (rows, cols) = pty_size();
        if (rows > 10 && cols > 40) || std::time::Instant::now() > deadline {
            break (rows, cols);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        rows > 10 && cols > 40,
        "the PTY still has the old size: {rows} {cols}"
    );
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn config_edits_apply_while_running_and_bad_ones_keep_the_last_good() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    // The config in a directory of its own, as ~/.config/koi is.
    std::fs::create_dir(dir.path().join("cfg")).unwrap();
    let config = dir.path().join("cfg/koi.toml");
    write_config(&config, "#102030", "");
    let koi = Koi::start(&x, dir.path(), &config, &[]);

    // The edit carries an unknown key, so koi says on stderr when it has
    // loaded it.
    write_config(&config, "#304050", "reload_marker_304050 = 1\n");
    eventually("the live edit", Duration::from_secs(10), || {
        koi.stderr().contains("reload_marker_304050")
    });
    // An invalid file: koi keeps #304050 and says why on stderr.
    std::fs::write(&config, "[colors]\nbackground = \"not a colour\"\n").unwrap();
    eventually(
        "the config error on stderr",
        Duration::from_secs(10),
        || koi.stderr().contains("config not applied"),
    );
    assert!(koi.stderr().contains("#rrggbb"), "{}", koi.stderr());

    // In the window: the live edit's background, and the error banner
    // across the top row.
    eventually(
        "the edit and the banner drawn",
        Duration::from_secs(10),
        || {
            let shot = x.screenshot(&koi.window);
            let corner = shot.rgb(shot.width - 1, shot.height - 1);
            let top = shot.rgb(shot.width - 1, 2);
            hex(corner) == "#304050" && hex(top) != "#304050"
        },
    );

    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(EXIT_WAIT);
    assert_eq!(
        code,
        Some(0),
        "koi kept running through the bad config: {stderr}"
    );
}

#[test]
fn non_zero_shell_exit_is_reported() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    koi.type_line(&x, "exit 3");
    let (code, stderr, _) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(3));
    assert!(stderr.contains("exit status 3"), "{stderr}");
}
