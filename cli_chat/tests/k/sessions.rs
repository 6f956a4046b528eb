//! Conversations continue per directory; `--new`, `--resume`, `k sessions`.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::{message_texts, Home};

fn answer(text: &str) -> koi_testkit::Reply {
    ChatStream::new().text(text).stop().reply()
}

#[test]
fn resume_carries_the_earlier_turns() {
    let server = FakeProvider::start([
        answer("Noted: 42."),
        answer("It was 42."),
        answer("Fresh start."),
        answer("Still 42."),
    ]);
    let home = Home::new(Some(&server));
    assert_eq!(home.run(&["remember the number 42"], None).code, 0);
    // By default the directory's conversation continues.
    assert_eq!(home.run(&["which number?"], None).code, 0);
    let reqs = server.requests();
    let second = reqs[1].json();
    let users = message_texts(&second, "user");
    assert!(users.iter().any(|u| u.contains("remember the number 42")));
    let assistants = message_texts(&second, "assistant");
    assert!(assistants.iter().any(|a| a.contains("Noted: 42.")));
    // Request 2 starts with request 1's messages, byte for byte.
    let m1 = reqs[0].json()["messages"].as_array().unwrap().clone();
    let m2 = second["messages"].as_array().unwrap().clone();
    assert_eq!(m1[..], m2[..m1.len()]);

    // --new starts fresh.
    assert_eq!(home.run(&["--new", "hello"], None).code, 0);
    let third = server.requests()[2].json();
    assert!(!message_texts(&third, "user")
        .iter()
        .any(|u| u.contains("42")));
    assert_eq!(home.session_files().len(), 2);

    // --resume ID goes back to the first conversation.
    let list = home.run(&["sessions", "--json"], None);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let sessions: Vec<serde_json::Value> = list
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(sessions.len(), 2);
    let old = sessions
        .iter()
        .find(|s| s["session"]["turns"] == 2)
        .unwrap();
    let id = old["session"]["id"].as_str().unwrap();
    assert_eq!(old["session"]["title"], "remember the number 42");
    assert_eq!(old["session"]["here"], true);
    assert_eq!(home.run(&["--resume", id, "and now?"], None).code, 0);
    let fourth = server.requests()[3].json();
    assert!(message_texts(&fourth, "user")
        .iter()
        .any(|u| u.contains("remember the number 42")));

    let text = home.run(&["sessions"], None);
    assert!(text.stdout.contains(id), "{}", text.stdout);
    assert!(text.stdout.contains("TITLE"), "{}", text.stdout);

    let bad = home.run(&["--resume", "no-such-session", "hi"], None);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("k sessions"), "{}", bad.stderr);
}
