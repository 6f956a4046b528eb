//! Selecting the grid with the mouse and copying it: double-click (word),
//! triple-click (line), Alt-drag (block), Ctrl+Shift+C to the clipboard and
//! the primary selection on release, read back with xclip as another
//! program pasting would; and Shift taking the mouse back from an
//! application that asked for mouse reports.

use std::path::Path;
use std::time::{Duration, Instant};

use super::harness::{eventually, Koi, Xvfb};
use super::recording::Recorder;

/// The grid the tests' config asks for.
pub const GRID: (u32, u32) = (40, 10);
const COPY_WAIT: Duration = Duration::from_secs(10);

/// Rows the recorder shows (raw mode: lines end in CR LF).
const SHOWN: &str = "alpha beta-gamma delta\r\nsecond line here\r\n";

pub fn write_config(path: &Path) {
    std::fs::write(
        path,
        format!(
            "[window]\npadding = 0\ncolumns = {}\nlines = {}\n",
            GRID.0, GRID.1
        ),
    )
    .unwrap();
}

/// koi running the recorder with `setup` and [`SHOWN`] on screen, focused.
pub fn koi_with_recorder(x: &Xvfb, dir: &Path, setup: &str) -> (Koi, Recorder) {
    let config = dir.join("koi.toml");
    write_config(&config);
    let recorder = Recorder::new(dir, "app", setup, SHOWN);
    let command = recorder.command();
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    let mut koi = Koi::run(x, dir, &config, &command);
    koi.find_window(x);
    recorder.wait_ready("koi");
    x.xdotool(&["windowfocus", "--sync", &koi.window]);
    (koi, recorder)
}

fn copy_and_read(x: &Xvfb, koi: &Koi, want: &str) {
    koi.keys(x, "ctrl+shift+c");
    let deadline = Instant::now() + COPY_WAIT;
    loop {
        let got = x.selection("clipboard");
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {want:?} on the clipboard; it holds {got:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn clicks_and_alt_drag_select_words_lines_and_blocks() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let (koi, _app) = koi_with_recorder(&x, dir.path(), "");

    // A double click on "gamma" takes the word, hyphen and all.
    let gamma = koi.cell_center(&x, GRID, (12, 0));
    koi.click(&x, gamma, 1, 2, &[]);
    copy_and_read(&x, &koi, "beta-gamma");
    // The release also set the primary selection.
    eventually("the word as PRIMARY", COPY_WAIT, || {
        x.selection("primary") == "beta-gamma"
    });

    // A triple click takes the line, with its newline (as Alacritty copies
    // it: pasted, it runs as the command it was).
    let here = koi.cell_center(&x, GRID, (13, 1));
    koi.click(&x, here, 1, 3, &[]);
    copy_and_read(&x, &koi, "second line here\n");

    // Alt+drag takes a block: from the left half of column 2 to the right
    // half of column 8, on both rows.
    let quarter = koi.size(&x).0 / GRID.0 / 4;
    let (from, to) = (
        koi.cell_center(&x, GRID, (2, 0)),
        koi.cell_center(&x, GRID, (8, 1)),
    );
    x.xdotool(&["keydown", "alt"]);
    koi.drag(&x, (from.0 - quarter, from.1), (to.0 + quarter, to.1));
    x.xdotool(&["keyup", "alt"]);
    copy_and_read(&x, &koi, "pha bet\ncond li");
}

#[test]
fn shift_overrides_the_applications_mouse_mode() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    // Button presses and releases reported, in SGR form.
    let (koi, app) = koi_with_recorder(&x, dir.path(), "\x1b[?1000h\x1b[?1006h");

    // Without Shift the application gets the click (column 7, row 1: SGR
    // counts from 1)…
    let beta = koi.cell_center(&x, GRID, (6, 0));
    koi.click(&x, beta, 1, 1, &[]);
    let report = b"\x1b[<0;7;1M\x1b[<0;7;1m".to_vec();
    eventually("the click's report", COPY_WAIT, || app.bytes() == report);

    // …with Shift it gets nothing, and the double click selects the word.
    koi.click(&x, beta, 1, 2, &["shift"]);
    copy_and_read(&x, &koi, "beta-gamma");
    // A key typed after the clicks arrives after anything they sent.
    koi.keys(&x, "x");
    let mut want = report;
    want.push(b'x');
    eventually("the key after the Shift clicks", COPY_WAIT, || {
        app.bytes().ends_with(b"x")
    });
    assert_eq!(
        String::from_utf8_lossy(&app.bytes()),
        String::from_utf8_lossy(&want),
        "the application saw the Shift clicks"
    );
}
