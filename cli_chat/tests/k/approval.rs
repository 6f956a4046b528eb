//! Approvals on a pseudo-terminal (`y` / `N`), refusal with no terminal,
//! Ctrl+C in one-shot mode, and `--overlay`.

use std::time::Duration;

use ai_tools::tools::fs_common::revision_of;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::{Home, PtyRun};

const ORIGINAL: &str = "greeting = hello\n";

/// The model patches `greet.txt`, then answers.
fn edit_script() -> Vec<Reply> {
    let args = serde_json::json!({
        "path": "greet.txt",
        "expected_revision": revision_of(ORIGINAL.as_bytes()),
        "edits": [{"old": "hello", "new": "goodbye"}],
    });
    vec![
        ChatStream::new()
            .tool_call("call_e", "fs_patch", &args.to_string())
            .tool_calls()
            .reply(),
        ChatStream::new().text("Finished.").stop().reply(),
    ]
}

fn edit_home(server: &FakeProvider) -> Home {
    let home = Home::new(Some(server));
    std::fs::write(home.ws().join("greet.txt"), ORIGINAL).unwrap();
    home
}

fn read(home: &Home) -> String {
    std::fs::read_to_string(home.ws().join("greet.txt")).unwrap()
}

#[test]
fn an_edit_approved_with_y_changes_the_file() {
    let server = FakeProvider::start(edit_script());
    let home = edit_home(&server);
    let mut k = PtyRun::start(&home, &["change the greeting"], &[]);
    k.wait_for("[y/N]", Duration::from_secs(30));
    let shown = k.text();
    assert!(shown.contains("greet.txt"), "{shown}");
    assert!(
        shown.contains("-greeting = hello"),
        "the diff is shown: {shown}"
    );
    assert!(shown.contains("+greeting = goodbye"), "{shown}");
    k.answer("y");
    assert_eq!(k.wait_exit(Duration::from_secs(30)), 0, "{}", k.text());
    assert_eq!(read(&home), "greeting = goodbye\n");
    assert!(k.text().contains("Finished."));
}

#[test]
fn an_edit_refused_with_n_leaves_the_file() {
    let server = FakeProvider::start(edit_script());
    let home = edit_home(&server);
    let mut k = PtyRun::start(&home, &["change the greeting"], &[]);
    k.wait_for("[y/N]", Duration::from_secs(30));
    k.answer("N");
    assert_eq!(k.wait_exit(Duration::from_secs(30)), 0, "{}", k.text());
    assert_eq!(read(&home), ORIGINAL);
    let reqs = server.requests();
    let tool_msg = reqs[1].body_str();
    assert!(
        tool_msg.contains("declined"),
        "the model is told: {tool_msg}"
    );
}

#[test]
fn with_no_tty_the_edit_is_denied() {
    let server = FakeProvider::start(edit_script());
    let home = edit_home(&server);
    let run = home.run(&["change the greeting"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(read(&home), ORIGINAL);
    assert!(run.stderr.contains("dont-ask"), "{}", run.stderr);
    assert_eq!(run.stdout, "Finished.\n");
}

#[test]
fn ctrl_c_cancels_a_one_shot_turn_with_130() {
    // The model starts answering, then stalls.
    let server = FakeProvider::start([ChatStream::new()
        .text("Thinking about it")
        .reply()
        .hang_after(2)]);
    let home = Home::new(Some(&server));
    let mut k = PtyRun::start(&home, &["a slow question"], &[]);
    k.wait_for("Thinking", Duration::from_secs(30));
    k.send(b"\x03");
    // The stream stalls for a minute: exiting within the wait is Ctrl+C's
    // doing (how fast cancel is, benches/cancel.rs measures).
    assert_eq!(k.wait_exit(Duration::from_secs(10)), 130, "{}", k.text());
    assert!(k.text().contains("interrupted"));
}

#[test]
fn overlay_writes_the_token_sequence_to_the_terminal() {
    let home = Home::new(None);
    let mut k = PtyRun::start(
        &home,
        &["--overlay"],
        &[("TERM_PROGRAM", "koi"), ("KOI_SESSION_TOKEN", "00c0ffee42")],
    );
    assert_eq!(k.wait_exit(Duration::from_secs(10)), 0, "{}", k.text());
    assert!(
        k.text().contains("\x1b]7717;open-overlay;00c0ffee42\x07"),
        "{:?}",
        k.text()
    );
    assert_eq!(
        cli_chat::overlay::open_sequence("00c0ffee42").unwrap(),
        b"\x1b]7717;open-overlay;00c0ffee42\x07"
    );
}
