//! A picture an answer names, drawn inside the assistant panel: a real
//! window under Xvfb, the real engine, a strict scripted model on
//! loopback answering with a markdown image of a PNG the test wrote.

use std::path::Path;
use std::time::Duration;

use koi_testkit::openai_chat::{title, ChatStream};
use koi_testkit::window::scene::Scene;
use koi_testkit::window::Image;
use koi_testkit::FakeProvider;

use koi_testkit::poll::until;

/// The squares of the test picture, left to right.
const SQUARES: [[u8; 3]; 3] = [[230, 30, 40], [40, 200, 60], [50, 80, 230]];
/// Each square's side in pixels.
const SIDE: u32 = 48;

/// Writes a PNG of [`SQUARES`] side by side.
fn write_squares(path: &Path) {
    let (w, h) = (SIDE * SQUARES.len() as u32, SIDE);
    let mut rgba = Vec::new();
    for _ in 0..h {
        for x in 0..w {
            let [r, g, b] = SQUARES[(x / SIDE) as usize];
            rgba.extend_from_slice(&[r, g, b, 255]);
        }
    }
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = png::Encoder::new(file, w, h);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&rgba).unwrap();
}

/// koi whose model answers the first question with `answer`.
fn answering(answer: &str) -> Scene {
    let server = FakeProvider::builder()
        .always(title())
        .start(vec![ChatStream::new().text(answer).stop().reply()]);
    Scene::start(server, &[], &[])
}

/// Where each colour shows in `shot`: the pixels within a small tolerance
/// of it (a scaled edge blends), as (count, least x, greatest x).
fn find(shot: &Image, color: [u8; 3]) -> (usize, usize, usize) {
    let near = |p: [u8; 3]| (0..3).all(|i| p[i].abs_diff(color[i]) <= 6);
    let (mut n, mut lo, mut hi) = (0, usize::MAX, 0);
    for y in 0..shot.height {
        for x in 0..shot.width {
            if near(shot.rgb(x, y)) {
                n += 1;
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    (n, lo, hi)
}

/// The panel's text has a line that is just `caption` (a picture's).
fn has_caption(panel: &str, caption: &str) -> bool {
    panel.lines().any(|l| l.trim() == caption)
}

#[test]
fn a_picture_an_answer_names_is_drawn_in_the_panel() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("squares.png");
    write_squares(&png);
    let target = png.display().to_string();
    let scene = answering(&format!(
        "Here it is:\n\n![squares]({target})\n\nThree squares."
    ));
    // Nothing of the picture's colours shows before it is named.
    let before = scene.x.screenshot(&scene.koi.window);
    for color in SQUARES {
        assert_eq!(find(&before, color).0, 0, "{color:?} before the answer");
    }
    scene.ask("draw me squares");
    scene.wait_for_turns(1);
    scene.wait_for_panel("the picture's caption", |p| has_caption(p, &target));
    // Each square shows whole (a 48×48 picture fits the panel at its own
    // size), in order, inside the panel, which takes the right 45% of
    // the window.
    until("the squares in the panel", Duration::from_secs(10), || {
        let shot = scene.x.screenshot(&scene.koi.window);
        let found = SQUARES.map(|c| find(&shot, c));
        let whole = found.iter().all(|f| f.0 >= (SIDE * SIDE) as usize * 9 / 10);
        let ordered = found[0].2 < found[1].1 && found[1].2 < found[2].1;
        let in_panel = found[0].1 > shot.width / 2;
        if whole && ordered && in_panel {
            Ok(())
        } else {
            Err(format!(
                "(pixels, least x, greatest x) of each square: {found:?}; window {} px wide",
                shot.width
            ))
        }
    });
    let (panel, _) = scene.close_and_exit();
    assert!(panel.contains("Three squares."), "{panel}");
}

#[test]
fn a_missing_or_broken_picture_shows_only_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.png").display().to_string();
    let broken = dir.path().join("broken.png");
    // A PNG's signature and then nothing a decoder can read.
    std::fs::write(&broken, b"\x89PNG\r\n\x1a\nthis is not a picture").unwrap();
    let broken = broken.display().to_string();
    let scene = answering(&format!(
        "First ![gone]({missing}) then ![bad]({broken}) and done."
    ));
    scene.ask("draw me squares");
    scene.wait_for_turns(1);
    scene.wait_for_panel("the answer", |p| p.contains("done."));
    let panel = scene.overlay();
    // The paths show in the answer's text; no picture or caption is added.
    let flat: String = panel.split_whitespace().collect();
    for path in [&missing, &broken] {
        assert!(flat.contains(path.as_str()), "{path} in:\n{panel}");
        assert!(
            !has_caption(&panel, path),
            "no caption for {path}:\n{panel}"
        );
    }
    // koi is whole: the shell exits and koi with it, status 0.
    let (panel, _) = scene.close_and_exit();
    assert!(panel.contains("done."), "{panel}");
}
