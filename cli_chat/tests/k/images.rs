//! `k --image FILE`: the image reaches the request as the provider's
//! image content and the session log keeps it; a file that is no image
//! is refused before anything is sent.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::Home;

/// The PNG signature and four bytes, and its base64.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\nkoi!";
const PNG_BASE64: &str = "iVBORw0KGgprb2kh";

#[test]
fn an_image_flag_reaches_the_request_and_the_log() {
    let server = FakeProvider::start([ChatStream::new().text("A tiny picture.").stop().reply()]);
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("shot.png"), PNG).unwrap();
    let run = home.run(&["--image", "shot.png", "what is this?"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "A tiny picture.\n");
    let body = server.requests()[0].json();
    let messages = body["messages"].as_array().unwrap();
    let parts = messages.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(parts[0]["type"], "image_url");
    assert_eq!(
        parts[0]["image_url"]["url"],
        format!("data:image/png;base64,{PNG_BASE64}")
    );
    assert!(parts[1]["text"]
        .as_str()
        .unwrap()
        .ends_with("what is this?"));
    let log = std::fs::read_to_string(&home.session_files()[0]).unwrap();
    let user = log
        .lines()
        .find(|l| l.contains(r#""type":"user""#))
        .unwrap();
    assert!(user.contains(PNG_BASE64), "{user}");
    assert!(user.contains(r#""format":"png""#), "{user}");
}

#[test]
fn a_file_that_is_no_image_is_refused_before_sending() {
    let server = FakeProvider::start([]);
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("notes.png"), "plain text").unwrap();
    let run = home.run(&["--image", "notes.png", "what is this?"], None);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr
            .contains("notes.png is not a PNG, JPEG, GIF or WebP image"),
        "{}",
        run.stderr
    );
    let run = home.run(&["--image", "missing.png", "what is this?"], None);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("cannot read image missing.png"),
        "{}",
        run.stderr
    );
    assert_eq!(server.request_count(), 0);
}
