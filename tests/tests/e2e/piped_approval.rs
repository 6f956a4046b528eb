//! `cmd | k "edit …"`: stdin is a pipe, yet the approval is asked on the
//! controlling terminal (a real PTY, as a user's shell gives it), and `y`
//! there applies the edit. The piped text reaches the model.

use std::time::Duration;

use ai_tools::tools::fs_common::revision_of;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::pty::PtyRun;
use koi_testkit::window::scene::write_ai_config;

use crate::common::{k_env, message_texts, turn_request, turns_and_titles};

const ORIGINAL: &str = "greeting = hello\n";

#[test]
fn an_edit_from_piped_k_is_approved_on_the_terminal() {
    let args = serde_json::json!({
        "path": "greet.txt",
        "expected_revision": revision_of(ORIGINAL.as_bytes()),
        "edits": [{"old": "hello", "new": "goodbye"}],
    });
    let server = turns_and_titles(vec![
        ChatStream::new()
            .tool_call("call_e", "fs_patch", &args.to_string())
            .tool_calls()
            .reply(),
        ChatStream::new().text("Finished.").stop().reply(),
    ]);
    let dir = tempfile::tempdir().unwrap();
    write_ai_config(dir.path(), &server);
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("greet.txt"), ORIGINAL).unwrap();

    let mut sh = PtyRun::spawn(
        std::path::Path::new("/bin/sh"),
        &["-c", "printf 'piped-context-7\\n' | k 'edit the greeting'"],
        &ws,
        &k_env(dir.path()),
    );
    sh.wait_for("[y/N]", Duration::from_secs(60));
    let shown = sh.text();
    assert!(
        shown.contains("-greeting = hello"),
        "the diff is shown: {shown}"
    );
    assert!(shown.contains("+greeting = goodbye"), "{shown}");
    assert_eq!(
        std::fs::read_to_string(ws.join("greet.txt")).unwrap(),
        ORIGINAL,
        "nothing changed before the answer"
    );
    sh.answer("y");
    assert_eq!(sh.wait_exit(Duration::from_secs(60)), 0, "{}", sh.text());
    assert_eq!(
        std::fs::read_to_string(ws.join("greet.txt")).unwrap(),
        "greeting = goodbye\n"
    );
    assert!(sh.text().contains("Finished."), "{}", sh.text());

    let first = turn_request(&server, "edit the greeting");
    let users = message_texts(&first, "user").join("\n");
    assert!(users.contains("piped-context-7"), "the piped text: {users}");
    let second = turn_request(&server, "call_e").to_string();
    assert!(
        second.contains("\"role\":\"tool\""),
        "the result went back: {second}"
    );
}
