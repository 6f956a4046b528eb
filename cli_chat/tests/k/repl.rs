//! The interactive chat, driven in tmux: a question, a streamed answer,
//! Ctrl+C cancelling a turn, slash commands, `/exit`.

use std::process::Command;
use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RequestKind};

use crate::common::{tmux_k, Home, SECRET};

/// The PNG signature and four bytes, and its base64.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\nkoi!";
const PNG_BASE64: &str = "iVBORw0KGgprb2kh";

#[test]
fn repl_in_tmux() {
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "this test drives k in tmux: install it (apt-get install tmux)"
    );
    let server = FakeProvider::start_with(7, |req, _i| {
        let body = req.body_str();
        if req.kind == RequestKind::Summary {
            ChatStream::new()
                .text("SUMMARY: a greeting and a story.")
                .stop()
                .reply()
                .for_summary()
        } else if body.contains("describe the picture") {
            ChatStream::new().text("A tiny picture.").stop().reply()
        } else if body.contains("tell me a long story") && !body.contains("second question") {
            // A slow stream that Ctrl+C interrupts.
            let mut s = ChatStream::new();
            for i in 0..200 {
                s = s.text(&format!("word{i} "));
            }
            s.stop().reply().chunk_delay(Duration::from_millis(100))
        } else if body.contains("second question") {
            ChatStream::new()
                .text("Second answer.")
                .stop()
                .usage(1000, 750, 10)
                .reply()
        } else if req.kind == RequestKind::Title {
            ChatStream::new()
                .text("Greeting chat")
                .stop()
                .reply()
                .for_title()
        } else {
            ChatStream::new()
                .text("Hello from the fake model.")
                .stop()
                .reply()
        }
    });
    let home = Home::new(Some(&server));
    let t = tmux_k(&home);
    t.wait_for("/help for commands", 1);
    t.type_line("hello there");
    t.wait_for("Hello from the fake model.", 1);

    t.type_line("tell me a long story");
    t.wait_for("word3 ", 1);
    t.keys(&["C-c"]);
    t.wait_for("^C cancelled", 1);
    let before = t.screen();
    assert!(!before.contains("word199"), "the turn kept streaming");

    t.type_line("second question");
    t.wait_for("Second answer.", 1);
    t.type_line("/status");
    t.wait_for("tokens:", 1);
    let screen = t.screen();
    assert!(screen.contains("model: fake-model"), "{screen}");
    assert!(screen.contains("75%"), "cached fraction: {screen}");
    // The sandbox line: active here, or why not.
    assert!(
        screen.contains("sandbox: namespaces + landlock v")
            || screen.contains("sandbox: landlock v")
            || screen.contains("sandbox unavailable: "),
        "{screen}"
    );
    t.type_line("/cost");
    t.wait_for("cost: ", 1);
    let screen = t.screen();
    assert!(
        screen.contains("tokens: 1000 in (750 cached, 75% cache hits), 10 out over 1 round"),
        "{screen}"
    );
    assert!(screen.contains("cost: no price set"), "{screen}");
    t.type_line("/mode plan");
    t.wait_for("mode: plan", 1);
    t.type_line("/model other-model");
    t.wait_for("model: other-model", 1);
    t.type_line("/sessions");
    t.wait_for("TITLE", 1);
    // `/image` attaches to the next message only.
    std::fs::write(home.ws().join("shot.png"), PNG).unwrap();
    std::fs::write(home.ws().join("notes.png"), "plain text").unwrap();
    t.type_line("/image notes.png");
    t.wait_for("is not a PNG, JPEG, GIF or WebP image", 1);
    t.type_line("/image shot.png");
    t.wait_for("attached shot.png (image/png", 1);
    t.type_line("describe the picture");
    t.wait_for("A tiny picture.", 1);
    let pictured = server
        .requests()
        .into_iter()
        .find(|r| r.body_str().contains("describe the picture"))
        .unwrap();
    let url = format!("data:image/png;base64,{PNG_BASE64}");
    assert_eq!(pictured.body_str().matches(&url).count(), 1);
    t.type_line("/exit");
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!t.alive(), "k did not leave on /exit:\n{}", t.screen());
    assert!(!before.contains(SECRET));
    // The three questions went to the same conversation.
    let reqs = server.requests();
    let last_chat = reqs
        .iter()
        .rev()
        .find(|r| r.body_str().contains("second question"))
        .unwrap();
    assert!(last_chat.body_str().contains("hello there"));
    let history = std::fs::read_to_string(home.root().join("data/koi/k_history")).unwrap();
    assert!(history.contains("second question"));
    drop(t);

    // Back in the same directory, k continues the conversation and says
    // where it left off.
    let t = tmux_k(&home);
    t.wait_for("continuing session", 1);
    t.wait_for("you: describe the picture", 1);
    t.wait_for("  A tiny picture.", 1);

    // Compaction and goal mode on the continued conversation.
    t.type_line("/compact");
    t.wait_for("context compacted (asked for)", 1);
    t.type_line("/goal");
    t.wait_for("no goal; set one", 1);
    t.type_line("/goal say hello");
    t.wait_for("a goal needs a check", 1);
    // A bad budget option is said, not read as words of the goal.
    t.type_line("/goal say hello --turns 0 --check true");
    t.wait_for("--turns 0: a goal needs at least 1 of its turns", 1);
    t.type_line("/goal say hello --check true");
    t.wait_for("goal check passed", 1);
    t.wait_for("goal complete", 1);
}
