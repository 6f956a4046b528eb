//! The assistant follows the focus: opened over the right split, its
//! request carries that pane's screen and directory, and its tool call
//! runs there.

use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{log_count, panel_idle, read_overlay};
use koi_testkit::FakeProvider;

use crate::harness::{eventually, Koi, TestConfig, Xvfb};

const MODEL_WAIT: Duration = Duration::from_secs(30);

#[test]
fn the_overlay_over_the_right_split_sees_and_works_in_that_pane() {
    let title = || ChatStream::new().text("A title").stop().reply().for_title();
    let server = FakeProvider::builder().always(title()).start(vec![
        ChatStream::new()
            .tool_call("c1", "shell_exec", r#"{"command": "pwd"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new().text("Done.").stop().reply(),
    ]);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let left = dir.path().join("left-dir");
    let right = dir.path().join("right-dir");
    std::fs::create_dir_all(&left).unwrap();
    std::fs::create_dir_all(&right).unwrap();
    let config = dir.path().join("cfg/koi.toml");
    TestConfig::new(100, 30)
        .shell("bash", &["--norc", "--noprofile"])
        .ai(&server)
        .write(&config);
    let left_arg = left.display().to_string();
    let koi = Koi::start(&x, dir.path(), &config, &["--working-directory", &left_arg]);
    koi.run_command(&x, "echo LEFT$((100+1))");
    let marker = dir.path().join("prompt-ready");
    let _ = std::fs::remove_file(&marker);
    koi.keys(&x, "ctrl+shift+d");
    eventually("the split's prompt", MODEL_WAIT, || marker.exists());
    koi.run_command(
        &x,
        &format!("cd '{}' && echo RIGHT$((100+2))", right.display()),
    );

    koi.keys(&x, "ctrl+shift+l");
    koi.type_text(&x, "where am I?");
    koi.keys(&x, "Return");
    assert!(
        server.wait_for_requests(2, MODEL_WAIT),
        "no tool round trip"
    );
    // The turn ends (logged, then shown) before leaving.
    eventually("the turn's end", MODEL_WAIT, || {
        log_count(dir.path(), "turn_end") >= 1 && panel_idle(&read_overlay(&koi.dump))
    });
    koi.keys(&x, "Escape");
    leave_pane(&koi, &x, 1);
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(MODEL_WAIT);
    assert_eq!(code, Some(0), "{stderr}");

    let requests: Vec<String> = server.requests().iter().map(|r| r.body_str()).collect();
    let first = requests
        .iter()
        .find(|b| b.contains("where am I?") && !b.contains("\"role\":\"tool\""))
        .expect("the question's request");
    assert!(
        first.contains("RIGHT102"),
        "the right pane's screen: {first}"
    );
    assert!(!first.contains("LEFT101"), "not the left pane's screen");
    let right_canon = right.canonicalize().unwrap().display().to_string();
    assert!(
        first.contains(&right_canon),
        "the right pane's cwd in the request"
    );
    // The tool ran in the right pane's directory: pwd printed it.
    let second = requests
        .iter()
        .find(|b| b.contains("\"role\":\"tool\""))
        .expect("the tool result's request");
    let result_at = second.find("\"role\":\"tool\"").expect("a tool result");
    assert!(
        second[result_at..].contains(&right_canon),
        "pwd ran in {right_canon}: {}",
        &second[result_at..]
    );
}

#[test]
fn each_tab_keeps_its_own_conversation() {
    let title = || ChatStream::new().text("A title").stop().reply().for_title();
    let server = FakeProvider::builder().always(title()).start(vec![
        ChatStream::new().text("Alpha answer.").stop().reply(),
        ChatStream::new().text("Beta answer.").stop().reply(),
    ]);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("cfg/koi.toml");
    TestConfig::new(100, 30)
        .shell("bash", &["--norc", "--noprofile"])
        .ai(&server)
        .write(&config);
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    let ask = |question: &str, n: usize| {
        koi.keys(&x, "ctrl+shift+l");
        koi.type_text(&x, question);
        koi.keys(&x, "Return");
        assert!(
            server.wait_for_requests(n, MODEL_WAIT),
            "no request for {question}"
        );
        eventually("the turn's end", MODEL_WAIT, || {
            panel_idle(&read_overlay(&koi.dump)) && read_overlay(&koi.dump).contains(question)
        });
        koi.keys(&x, "Escape");
    };
    ask("alpha question", 1);
    let marker = dir.path().join("prompt-ready");
    let _ = std::fs::remove_file(&marker);
    koi.keys(&x, "ctrl+shift+t");
    eventually("the new tab's prompt", MODEL_WAIT, || marker.exists());
    let before = server.requests().len();
    ask("beta question", before + 1);
    // Leave tab 2; tab 1 and its panel come back.
    leave_pane(&koi, &x, 1);
    koi.type_line(&x, "exit");
    let (code, stderr, dump) = koi.wait(MODEL_WAIT);
    assert_eq!(code, Some(0), "{stderr}");

    let bodies: Vec<String> = server.requests().iter().map(|r| r.body_str()).collect();
    let beta = bodies
        .iter()
        .find(|b| b.contains("beta question"))
        .expect("the second tab's request");
    assert!(
        !beta.contains("alpha question"),
        "tab 2 started its own conversation"
    );
    let mut overlay = dump.as_os_str().to_owned();
    overlay.push(".overlay");
    let shown = std::fs::read_to_string(std::path::Path::new(&overlay)).unwrap();
    assert!(
        shown.contains("Alpha answer."),
        "tab 1's panel is back: {shown}"
    );
    assert!(!shown.contains("Beta answer."), "{shown}");
}

/// Types `exit` in the focused pane and waits until koi has closed it: the
/// `closed`th pane's screen is in `--dump-on-exit`'s PATH.panes.
fn leave_pane(koi: &Koi, x: &Xvfb, closed: usize) {
    koi.type_line(x, "exit");
    let mut panes = koi.dump.as_os_str().to_owned();
    panes.push(".panes");
    eventually("the pane to close", MODEL_WAIT, || {
        std::fs::read_to_string(std::path::Path::new(&panes))
            .is_ok_and(|t| t.matches("== pane ").count() >= closed)
    });
}
