//! Control sequences from the model or a file reach the terminal shown,
//! not sent: a reply with OSC 52 (set the clipboard) and `ESC[2J` (clear
//! the screen) is escaped on a terminal, byte-identical in a pipe, and
//! round-trips through `--json`.

use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::{Home, PtyRun};

/// A hostile answer: clipboard write, screen clear, cursor home, bell, an
/// 8-bit CSI, DEL, a carriage return that would overwrite the line.
const HOSTILE: &str =
    "Done.\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[Hall good\u{9b}31m red\x7f\rfake\tok\n";

/// The same text as the terminal must show it.
const SHOWN: &str = "Done.␛]52;c;cm0gLXJmIH4=␇␛[2J␛[Hall good\\x9b31m red␡␍fake\tok";

/// Raw bytes that must never reach a terminal from the model.
fn assert_nothing_raw(out: &str) {
    for bad in ['\x1b', '\x07', '\u{9b}', '\x7f'] {
        assert!(
            !out.contains(bad),
            "raw {bad:?} reached the terminal:\n{out:?}"
        );
    }
}

/// A turn whose reasoning, tool call and answer all carry escapes.
fn hostile_script() -> Vec<Reply> {
    vec![
        ChatStream::new()
            .reasoning("thinking \x1b[2J hard\n")
            .tool_call(
                "c1",
                "fs_read",
                r#"{"path":"no\u001b[2Jsuch\u001b]52;c;eA==\u0007.txt"}"#,
            )
            .tool_calls()
            .reply(),
        ChatStream::new().text(HOSTILE).stop().reply(),
    ]
}

#[test]
fn on_a_terminal_escapes_are_shown_not_sent() {
    let server = FakeProvider::start(hostile_script());
    let home = Home::new(Some(&server));
    let mut k = PtyRun::start(&home, &["hi"], &[("NO_COLOR", "1")]);
    assert_eq!(k.wait_exit(Duration::from_secs(30)), 0, "{}", k.text());
    let out = k.text();
    // The PTY turns each "\n" into "\r\n"; the answer's own CR is escaped.
    assert!(out.contains(SHOWN), "{out:?}");
    assert!(out.contains("thinking ␛[2J hard"), "{out:?}");
    assert!(
        out.contains("→ fs_read no␛[2Jsuch␛]52;c;eA==␇.txt"),
        "{out:?}"
    );
    assert_nothing_raw(&out);
}

#[test]
fn in_a_pipe_the_answer_is_byte_identical_and_stderr_is_escaped() {
    let server = FakeProvider::start(hostile_script());
    let home = Home::new(Some(&server));
    let run = home.run(&["hi"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, HOSTILE);
    assert!(
        run.stderr.contains("thinking ␛[2J hard"),
        "{:?}",
        run.stderr
    );
    assert!(run.stderr.contains("no␛[2Jsuch"), "{:?}", run.stderr);
    assert_nothing_raw(&run.stderr);
}

#[test]
fn json_carries_the_exact_text() {
    let server = FakeProvider::start(hostile_script());
    let home = Home::new(Some(&server));
    let run = home.run(&["--json", "hi"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_nothing_raw(&run.stdout);
    let events = run.events();
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "token")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, HOSTILE);
}

#[test]
fn an_approval_diff_shows_a_files_escapes() {
    let content = "title\n\x1b[2J\x1b[1;1Happroval needed: nothing\x1b]52;c;eA==\x07\n";
    let args = serde_json::json!({
        "path": "notes.txt",
        "content": content,
        "expected_revision": "absent",
    });
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("w1", "fs_write", &args.to_string())
            .tool_calls()
            .reply(),
        ChatStream::new().text("ok").stop().reply(),
    ]);
    let home = Home::new(Some(&server));
    let mut k = PtyRun::start(&home, &["write notes"], &[("NO_COLOR", "1")]);
    k.wait_for("[y/N]", Duration::from_secs(30));
    let shown = k.text();
    assert!(
        shown.contains("+␛[2J␛[1;1Happroval needed: nothing␛]52;c;eA==␇"),
        "{shown:?}"
    );
    for bad in ["\x1b[2J", "\x1b]52", "\x07"] {
        assert!(!shown.contains(bad), "raw {bad:?} in the prompt: {shown:?}");
    }
    k.answer("n");
    assert_eq!(k.wait_exit(Duration::from_secs(30)), 0, "{}", k.text());
    assert!(!home.ws().join("notes.txt").exists());
}
