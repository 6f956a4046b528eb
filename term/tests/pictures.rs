//! Pictures drawn by real programs (chafa, img2sixel, timg, kitty's icat)
//! into `koi --headless --screenshot`: the picture's pixels land in its
//! cells and the text around it stays. Plus the replies koi sends to the
//! graphics queries, asked from a real PTY.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;

use common::query_reply;
use koi_testkit::skip::{skip, PROGRAMS};

/// The test picture: four 32×32 squares, red, green / blue, yellow.
const QUADRANTS: [[u8; 3]; 4] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]];

/// The configured background, unlike any quadrant.
const BACKGROUND: [u8; 3] = [0x10, 0x20, 0x30];

/// Scaling and dithering may move a channel this far.
const TOLERANCE: i32 = 48;

const COLS: usize = 40;
const ROWS: usize = 14;

fn write_test_png(path: &Path) {
    let (w, h) = (64u32, 64u32);
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            let quadrant = (y / 32 * 2 + x / 32) as usize;
            rgb.extend_from_slice(&QUADRANTS[quadrant]);
        }
    }
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&rgb)
        .unwrap();
}

/// A decoded screenshot.
struct Shot {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Shot {
    fn load(path: &Path) -> Self {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let samples = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(samples)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Self {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    fn px(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter()
        .zip(b)
        .all(|(&x, y)| (i32::from(x) - i32::from(y)).abs() <= TOLERANCE)
}

/// Runs `script` in `koi --headless` with a screenshot; returns the
/// screen's text and the screenshot.
fn draw(script: &str, dir: &Path) -> (String, Shot) {
    let config = dir.join("koi.toml");
    std::fs::write(
        &config,
        "[colors]\nbackground = \"#102030\"\n[window]\npadding = 0\n",
    )
    .unwrap();
    let shot = dir.join("shot.png");
    let out = Command::new(env!("CARGO_BIN_EXE_koi"))
        .args(["--headless", "--config", config.to_str().unwrap()])
        .args(["--cols", &COLS.to_string(), "--rows", &ROWS.to_string()])
        .args(["--timeout", "60", "--screenshot", shot.to_str().unwrap()])
        .args(["-e", "sh", "-c", script])
        .current_dir(dir)
        .output()
        .expect("run koi");
    assert!(
        out.status.success(),
        "koi failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        Shot::load(&shot),
    )
}

/// Checks that the test picture is on screen below the line `ABOVE` with
/// `END` below it, and returns its pixel box.
fn assert_picture(name: &str, text: &str, shot: &Shot) -> (usize, usize, usize, usize) {
    let cell_w = shot.width / COLS;
    let cell_h = shot.height / ROWS;
    let lines: Vec<&str> = text.lines().collect();
    let above = lines.iter().position(|l| l.starts_with("ABOVE"));
    let end = lines.iter().position(|l| l.starts_with("END"));
    let (Some(above), Some(end)) = (above, end) else {
        panic!("{name}: the text around the picture is missing:\n{text}");
    };
    // The picture's top-left corner: the first red pixel in column 3.
    let x = 3;
    let top = (0..shot.height)
        .find(|&y| near(shot.px(x, y), QUADRANTS[0]))
        .unwrap_or_else(|| panic!("{name}: no picture on screen:\n{text}"));
    let mid_y = top + 2;
    let right = (x..shot.width)
        .find(|&px| near(shot.px(px, mid_y), BACKGROUND))
        .unwrap_or(shot.width);
    let bottom = (top..shot.height)
        .find(|&y| near(shot.px(x, y), BACKGROUND))
        .unwrap_or(shot.height);
    let (w, h) = (right, bottom - top);
    assert!(w >= 40 && h >= 40, "{name}: picture only {w}×{h} px");
    // Square within the tolerance of cell rounding.
    assert!(
        (w as i64 - h as i64).abs() <= (cell_w.max(cell_h) * 2) as i64,
        "{name}: {w}×{h} is not square"
    );
    for (quadrant, want) in QUADRANTS.iter().enumerate() {
        let qx = w / 4 + (quadrant % 2) * w / 2;
        let qy = top + h / 4 + (quadrant / 2) * h / 2;
        let got = shot.px(qx, qy);
        assert!(
            near(got, *want),
            "{name}: quadrant {quadrant} at ({qx},{qy}) is {got:?}, want {want:?}"
        );
    }
    // The text around it: ABOVE above the picture, END below it, and the
    // background right of the picture untouched.
    assert!(
        above * cell_h < top,
        "{name}: ABOVE at row {above}, picture at y {top}"
    );
    assert!(
        end * cell_h >= bottom - cell_h,
        "{name}: END at row {end} overlaps the picture ending at y {bottom}"
    );
    assert!(near(shot.px(shot.width - 2, top + h / 2), BACKGROUND));
    (0, top, w, h)
}

/// (name, program that must exist, the command drawing `sq.png`)
const CLIENTS: &[(&str, &str, &str)] = &[
    (
        "chafa kitty",
        "chafa",
        "chafa --format=kitty --size=16x8 sq.png",
    ),
    (
        "chafa sixels",
        "chafa",
        "chafa --format=sixels --size=16x8 sq.png",
    ),
    ("img2sixel", "img2sixel", "img2sixel sq.png"),
    ("timg kitty", "timg", "timg -pk -g16x8 sq.png"),
    ("timg sixel", "timg", "timg -ps -g16x8 sq.png"),
    ("timg iterm2", "timg", "timg -pi -g16x8 sq.png"),
    // icat (kitty 0.26) asks before it turns the tty's echo off: a reply
    // that comes back faster than that is echoed and lost, and icat then
    // says the terminal has no graphics. Turning echo off first keeps the
    // reply for icat to read.
    (
        "kitty icat",
        "kitty",
        "stty -echo -icanon; kitty +kitten icat --align left sq.png; stty sane",
    ),
];

fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn real_clients_draw_the_test_picture() {
    let mut failures = Vec::new();
    for (name, program, command) in CLIENTS {
        if !installed(program) {
            skip(
                PROGRAMS,
                "real_clients_draw_the_test_picture",
                &format!("{program} is not installed (scripts/deps installs it)"),
            );
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        write_test_png(&dir.path().join("sq.png"));
        // kitty's icat decides on its own clock whether the terminal draws
        // pictures (its query, then a 10 s wait); on a loaded machine that
        // check, not koi's drawing, is what misses. It is asked again,
        // up to three times; what is drawn is checked in full each time.
        let mut attempt = 0;
        let (text, shot) = loop {
            attempt += 1;
            let (text, shot) = draw(&format!("echo ABOVE; {command}; echo END"), dir.path());
            if attempt < 3 && text.contains("does not support") {
                continue;
            }
            break (text, shot);
        };
        if let Err(e) = std::panic::catch_unwind(|| assert_picture(name, &text, &shot)) {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| format!("{name}: failed"));
            failures.push(why);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn graphics_queries_are_answered() {
    // kitty's query: OK, then an error with the spec's text, then quiet.
    assert_eq!(
        query_reply(r"\033_Ga=q,i=31,s=1,v=1,f=24;AAAA\033\\"),
        b"\x1b_Gi=31;OK\x1b\\"
    );
    assert_eq!(
        query_reply(r"\033_Ga=q,i=32,s=2,v=2,f=24;AAAA\033\\\033[5n"),
        b"\x1b_Gi=32;ENODATA:Insufficient image data: 3 < 12\x1b\\\x1b[0n"
    );
    assert_eq!(
        query_reply(r"\033_Ga=q,i=33,s=1,v=1,f=24,q=1;AAAA\033\\\033[5n"),
        b"\x1b[0n"
    );
    // DA1 announces sixel (4), once.
    assert_eq!(query_reply(r"\033[c"), b"\x1b[?62;4;22c");
    // XTSMGRAPHICS: colour registers, the current and the largest sixel
    // geometry (80×24 nominal 8×16 cells), and no ReGIS.
    assert_eq!(query_reply(r"\033[?1;1;0S"), b"\x1b[?1;0;1024S");
    assert_eq!(query_reply(r"\033[?2;1;0S"), b"\x1b[?2;0;640;384S");
    assert_eq!(query_reply(r"\033[?2;4;0S"), b"\x1b[?2;0;4096;4096S");
    assert_eq!(query_reply(r"\033[?3;1;0S"), b"\x1b[?3;1;0S");
}

/// Resident memory of this process (the session runs in it), in MiB.
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// 100 pictures of 800×600 shown, scrolled into the scrollback, then out
/// of it: the store holds them while they can be scrolled back to, within
/// the budget, and frees them once their lines are gone.
#[test]
fn a_hundred_pictures_scrolled_away_are_freed() {
    use koi_terminal::{GridSize, Session, SessionOptions};
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("big.png");
    let (w, h) = (800u32, 600u32);
    let rgb: Vec<u8> = (0..w * h)
        .flat_map(|i| [(i % w) as u8, (i / w) as u8, 99])
        .collect();
    let file = std::fs::File::create(&png).unwrap();
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&rgb)
        .unwrap();
    let path = base64_path(&png);
    let before = rss_mib();
    let scrollback = 2_000;
    let script = format!(
        "for i in $(seq 100); do printf '\\033_Ga=T,t=f,f=100,c=20,r=10;{path}\\033\\\\\\n'; done; echo SHOWN; sleep 2; seq 1 {} ; echo GONE; sleep 8",
        scrollback + 100
    );
    let session = Session::spawn(
        SessionOptions {
            command: Some(vec!["sh".into(), "-c".into(), script]),
            size: GridSize::new(80, 24),
            scrollback_lines: scrollback,
            ..SessionOptions::default()
        },
        || {},
    )
    .unwrap();
    common::wait_text(&session, "SHOWN");
    let shown = session.graphics().lock().stats();
    let shown_rss = rss_mib();
    common::wait_text(&session, "GONE");
    // The reader sweeps at most once a second, also when output stops
    // (the script waits 8 s after GONE, so the sweep is the idle one).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while session.graphics().lock().stats().images > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let gone = session.graphics().lock().stats();
    let gone_rss = rss_mib();

    eprintln!(
        "100 pictures of 800x600: shown {shown:?}, RSS {before:.0} -> {shown_rss:.0} MiB; \
         scrolled out of the scrollback {gone:?}, RSS {gone_rss:.0} MiB"
    );
    assert_eq!(shown.images, 100);
    assert_eq!(shown.bytes, 100 * 800 * 600 * 4);
    assert!(shown.bytes <= koi_terminal::graphics::DEFAULT_BUDGET_BYTES);
    assert_eq!(gone.images, 0, "{gone:?}");
    assert_eq!(gone.bytes, 0);
}

fn base64_path(path: &Path) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(path.to_str().unwrap())
}
