//! A screenshot on the X clipboard, pasted into the assistant panel with
//! Ctrl+Shift+V, goes with the next message as the provider's image
//! content.

use std::process::Command;
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{log_count, panel_idle, read_overlay};
use koi_testkit::FakeProvider;

use crate::harness::{eventually, Koi, TestConfig, Xvfb};

const MODEL_WAIT: Duration = Duration::from_secs(30);

#[test]
fn an_image_pasted_into_the_panel_reaches_the_request() {
    let question = paste_and_ask(b"\x89PNG\r\n\x1a\nkoi!");
    // The PNG's bytes, base64, as an image part of the question.
    assert_eq!(
        question
            .matches("data:image/png;base64,iVBORw0KGgprb2kh")
            .count(),
        1,
        "{question}"
    );
}

#[test]
fn a_large_pasted_image_arrives_whole() {
    // 1.5 MB, near the provider's cap: every byte must come across.
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend((0..1_500_000u32).map(|i| (i % 251) as u8));
    let question = paste_and_ask(&png);
    let prefix = "data:image/png;base64,";
    let at = question.find(prefix).expect("an image part") + prefix.len();
    let data_len = question[at..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        .unwrap();
    assert_eq!(data_len, png.len().div_ceil(3) * 4);
}

/// Puts `png` on the clipboard, pastes it into the panel, asks a
/// question; returns the body of the question's request.
fn paste_and_ask(png_bytes: &[u8]) -> String {
    let title = || ChatStream::new().text("A title").stop().reply().for_title();
    let server = FakeProvider::builder()
        .always(title())
        .start(vec![ChatStream::new().text("A screenshot.").stop().reply()]);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("cfg/koi.toml");
    TestConfig::new(100, 30)
        .shell("bash", &["--norc", "--noprofile"])
        .ai(&server)
        .write(&config);
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    koi.run_command(&x, "echo READY");

    // Another program owns the clipboard with PNG data, as a screenshot
    // tool would (xclip keeps serving it in the background).
    let png = dir.path().join("shot.png");
    std::fs::write(&png, png_bytes).unwrap();
    let status = Command::new("xclip")
        .args(["-selection", "clipboard", "-t", "image/png", "-i"])
        .arg(&png)
        .env("DISPLAY", &x.display)
        .status()
        .expect("xclip (apt-get install xclip; .ci/run installs it)");
    assert!(status.success());

    koi.keys(&x, "ctrl+shift+l");
    koi.keys(&x, "ctrl+shift+v");
    koi.type_text(&x, "what is this?");
    koi.keys(&x, "Return");
    assert!(server.wait_for_requests(1, MODEL_WAIT), "no request");
    // The turn ends (logged, then shown) before the panel closes.
    eventually("the turn's end", MODEL_WAIT, || {
        log_count(dir.path(), "turn_end") >= 1 && panel_idle(&read_overlay(&koi.dump))
    });
    koi.keys(&x, "Escape");
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(MODEL_WAIT);
    assert_eq!(code, Some(0), "{stderr}");

    server
        .requests()
        .iter()
        .map(|r| r.body_str())
        .find(|b| b.contains("what is this?"))
        .expect("the question's request")
}
