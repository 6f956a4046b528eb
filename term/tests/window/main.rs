//! The koi window end to end: a real X server (Xvfb), real keystrokes
//! (xdotool), a real shell, real wgpu presentation (lavapipe/llvmpipe);
//! and a real Wayland compositor (weston, headless).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fix;
mod focus;
mod harness;
mod ime;
mod links;
mod overlay;
mod pane_overlay;
mod paste_image;
mod present;
mod search;
mod tabs;
mod wayland;

use std::path::Path;
use std::time::Duration;

use harness::{eventually, Image, Koi, Xvfb};

const EXIT_WAIT: Duration = Duration::from_secs(30);

fn write_config(path: &Path, background: &str, extra: &str) {
    // Write and rename, as editors do.
    let tmp = path.with_extension("tmp");
    let text = format!("[colors]\nbackground = \"{background}\"\n[window]\npadding = 0\ncolumns = 40\nlines = 10\n{extra}");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
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
    koi.type_line(&x, "echo $((6*7)); exit");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");

    let text = std::fs::read_to_string(&dump).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let row = lines
        .iter()
        .position(|l| *l == "42")
        .unwrap_or_else(|| panic!("no 42 in:\n{text}"));

    let mut png = dump.as_os_str().to_owned();
    png.push(".png");
    let image = Image::load(Path::new(&png));
    assert_eq!(
        image.width % 40,
        0,
        "40 columns, no padding: {}",
        image.width
    );
    assert_eq!(
        image.height % 10,
        0,
        "10 rows, no padding: {}",
        image.height
    );
    let (cw, ch) = (image.width / 40, image.height / 10);
    let bg = [0x10, 0x14, 0x18];
    assert_eq!(image.rgb(image.width - 1, image.height - 1), bg);
    // The glyphs of "42" have ink in their cells; the rest of the row is blank.
    assert!(image.ink(0, row * ch, cw, ch, bg) > 0, "no ink for '4'");
    assert!(image.ink(cw, row * ch, cw, ch, bg) > 0, "no ink for '2'");
    assert_eq!(
        image.ink(3 * cw, row * ch, 30 * cw, ch, bg),
        0,
        "ink after \"42\""
    );
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

    koi.type_line(&x, "exit");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(
        code,
        Some(0),
        "koi kept running through the bad config: {stderr}"
    );
    let mut png = dump.as_os_str().to_owned();
    png.push(".png");
    let image = Image::load(Path::new(&png));
    let corner = image.rgb(image.width - 1, image.height - 1);
    assert_eq!(
        hex(corner),
        "#304050",
        "the live edit applied and the bad one did not"
    );
    // The error banner is drawn across the top row.
    let top = image.rgb(image.width - 1, 2);
    assert_ne!(hex(top), "#304050", "no error banner");
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
