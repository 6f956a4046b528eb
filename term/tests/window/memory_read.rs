//! `memory_read` reads one memory wherever it is asked: the koi panel and
//! `k` are handed the same files, the ones the curator keeps and the
//! environment message shows (`ai_chat_engine::memory`).

use std::process::Command;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{Scene, MODEL_WAIT};
use koi_testkit::window::TestConfig;
use koi_testkit::{FakeProvider, RecordedRequest, RequestKind};

use crate::harness::eventually;

/// The fact in the global memory file.
const FACT: &str = "- prefers tabs over spaces";

/// The `memory_read` result a request carries, if it carries one.
fn tool_result(request: &RecordedRequest) -> Option<String> {
    let body = request.json();
    let messages = body["messages"].as_array()?;
    messages
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .map(str::to_owned)
}

#[test]
fn memory_read_in_the_panel_reads_the_memory_k_reads() {
    // Four turn requests: a memory_read call and the answer to its result,
    // in the panel and again in `k`. Each front end may also ask for a
    // title and run the memory curator, at no fixed point.
    let server = FakeProvider::builder().start_with(4..=8, |req, _| match req.kind {
        RequestKind::Title => ChatStream::new().text("Memory").stop().reply().for_title(),
        RequestKind::Memory => ChatStream::new()
            .text("NOTHING")
            .stop()
            .reply()
            .for_memory(),
        _ if tool_result(req).is_some() => {
            ChatStream::new().text("You prefer tabs.").stop().reply()
        }
        _ => ChatStream::new()
            .tool_call("m1", "memory_read", "{}")
            .tool_calls()
            .reply(),
    });
    let config = TestConfig::new(100, 30).ai(&server).memory();
    let scene = Scene::start_configured(server, config, &[], &[]);
    let global = scene.dir.path().join("xdg-data/koi/memory/MEMORY.md");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    std::fs::write(&global, format!("{FACT}\n")).unwrap();

    scene.ask("what do you remember about me?");
    scene.wait_for_turns(1);
    scene.assert_reads(
        "memory_read_in_the_panel_reads_the_memory_k_reads",
        &["what do you remember about me?", "You prefer tabs."],
    );
    let read_by = |question: &str| {
        let requests = scene.server.requests();
        let asked = requests
            .iter()
            .position(|r| r.body_str().contains(question))
            .unwrap_or_else(|| panic!("no request asked {question:?}"));
        requests[asked..]
            .iter()
            .find_map(tool_result)
            .unwrap_or_else(|| panic!("no memory_read result after {question:?}"))
    };
    let in_panel = read_by("what do you remember about me?");
    assert!(in_panel.contains(FACT), "{in_panel}");
    assert!(
        in_panel.contains(&global.display().to_string()),
        "{in_panel}"
    );

    // `k`, in the directory koi's shell started in, with koi's config and
    // data dirs: the same tool answer, byte for byte.
    let before = scene.server.request_count();
    let k = Command::new(koi_testkit::bins::k())
        .args(["--new", "and what does k remember?"])
        .env("XDG_CONFIG_HOME", scene.dir.path().join("xdg"))
        .env("XDG_DATA_HOME", scene.dir.path().join("xdg-data"))
        .env_remove("KOI_API_KEY")
        .output()
        .unwrap();
    assert!(k.status.success(), "{}", String::from_utf8_lossy(&k.stderr));
    eventually("k's requests", MODEL_WAIT, || {
        scene.server.request_count() >= before + 2
    });
    assert_eq!(read_by("and what does k remember?"), in_panel);
    let (_, _) = scene.close_and_exit();
}
