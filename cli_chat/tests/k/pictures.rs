//! Pictures an answer names are drawn by `k` on a terminal that draws
//! them: inside a real koi session, the picture lands in koi's own
//! picture store through the kitty graphics protocol; on a terminal that
//! does not, only the answer's text (with the path) is printed.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::{koi_session, wait_until, Home, PtyRun};

/// A 40×20 RGBA PNG (made with the png crate, as a plot script's output).
fn plot_png() -> Vec<u8> {
    let (w, h) = (40u32, 20u32);
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        let pixels: Vec<u8> = (0..w * h)
            .flat_map(|i| [(i % 255) as u8, 0x40, 0xc0, 0xff])
            .collect();
        writer.write_image_data(&pixels).unwrap();
    }
    bytes
}

fn answer() -> FakeProvider {
    FakeProvider::start([ChatStream::new()
        .text("The plot is written:\n\n![the plot](plot.png)\n")
        .stop()
        .reply()])
}

#[test]
fn k_inside_koi_draws_the_picture_an_answer_names() {
    let server = answer();
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("plot.png"), plot_png()).unwrap();
    let s = koi_session(&home);
    assert_eq!(s.graphics().lock().stats().images, 0);
    s.write("k 'show me the plot'; echo \"k-exit\"=$?\n");
    let text = wait_until(&s, "k's exit", |t| t.contains("k-exit="));
    assert!(text.contains("k-exit=0"), "{text}");
    assert!(text.contains("The plot is written"), "{text}");
    let stats = s.graphics().lock().stats();
    assert_eq!(stats.images, 1, "{text}");
    assert!(stats.placements >= 1, "{stats:?}");
    assert_eq!(stats.bytes, 40 * 20 * 4, "the picture's own pixels");
}

#[test]
fn elsewhere_only_the_text_is_printed() {
    let server = answer();
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("plot.png"), plot_png()).unwrap();
    let mut run = PtyRun::start(&home, &["show me the plot"], &[("TERM", "xterm-256color")]);
    assert_eq!(run.wait_exit(std::time::Duration::from_secs(60)), 0);
    let out = run.text();
    assert!(out.contains("plot.png"), "the path is shown: {out:?}");
    assert!(
        !out.contains("\x1b_G") && !out.contains("\x1b]1337"),
        "{out:?}"
    );
}
