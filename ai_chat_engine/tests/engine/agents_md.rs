//! AGENTS.md: the global file and each one from the repository root down
//! to the workspace form one block right after the system prompt, before
//! the environment message (the longer prefix two conversations in one
//! repository share), fixed
//! for the conversation (an edit changes no earlier byte) and replayed
//! from the log on resume.

use std::path::Path;

use ai_chat_engine::{Engine, ProviderKind};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

fn engine_in(server: &FakeProvider, ws: &Path, data: &Path, cfg: &Path) -> Engine {
    Engine::new(
        config(server, ProviderKind::OpenAi),
        registry(ws),
        options(data, cfg),
    )
    .unwrap()
}

fn messages(server: &FakeProvider, i: usize) -> Vec<serde_json::Value> {
    server.requests()[i].json()["messages"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn nested_files_in_order_fixed_for_the_conversation_and_resumed() {
    let server = FakeProvider::start([
        ChatStream::new().text("one").stop().reply(),
        ChatStream::new().text("two").stop().reply(),
        ChatStream::new().text("three").stop().reply(),
        ChatStream::new().text("fresh").stop().reply(),
    ]);
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("repo");
    let ws = repo.join("crates/app");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let (data, cfg) = (root.path().join("data"), root.path().join("cfg"));
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(cfg.join("AGENTS.md"), "GLOBAL: answer briefly").unwrap();
    std::fs::write(repo.join("AGENTS.md"), "REPO: run cargo test").unwrap();
    std::fs::write(ws.join("AGENTS.md"), "CRATE: this crate is the app").unwrap();

    let engine = engine_in(&server, &ws, &data, &cfg);
    let conv = engine.new_conversation();
    assert!(is_done(&run(&engine, &conv, "hi")));
    let first = messages(&server, 0);
    // system, the instructions block, environment, the question.
    assert_eq!(first.len(), 4, "{first:?}");
    let block = first[1]["content"].as_str().unwrap().to_string();
    assert!(
        block.contains("Project instructions from AGENTS.md"),
        "{block}"
    );
    assert!(
        first[2]["content"]
            .as_str()
            .unwrap()
            .starts_with("<environment>"),
        "{first:?}"
    );
    let at = |w: &str| {
        block
            .find(w)
            .unwrap_or_else(|| panic!("{w} missing: {block}"))
    };
    assert!(
        at("GLOBAL") < at("REPO") && at("REPO") < at("CRATE"),
        "{block}"
    );

    // An edit mid-conversation changes nothing already sent.
    std::fs::write(repo.join("AGENTS.md"), "REPO: edited").unwrap();
    assert!(is_done(&run(&engine, &conv, "again")));
    let second = messages(&server, 1);
    assert_eq!(second[..first.len()], first[..]);
    assert!(!server.requests()[1].body_str().contains("REPO: edited"));

    // A resumed conversation (a new engine, as after a restart) sends the
    // recorded bytes.
    let id = conv.id();
    drop(conv);
    drop(engine);
    let engine = engine_in(&server, &ws, &data, &cfg);
    let conv = engine.load_conversation(&id).unwrap();
    assert!(is_done(&run(&engine, &conv, "resumed")));
    let third = messages(&server, 2);
    assert_eq!(third[..second.len()], second[..]);

    // The next conversation reads the edited file.
    let fresh = engine.new_conversation();
    assert!(is_done(&run(&engine, &fresh, "new")));
    let fourth = messages(&server, 3);
    assert!(fourth[1]["content"]
        .as_str()
        .unwrap()
        .contains("REPO: edited"));
    // Same files, same prefix: the system prompt and the block match
    // another new conversation's byte for byte.
    let other = engine.new_conversation();
    server.push(ChatStream::new().text("other").stop().reply());
    assert!(is_done(&run(&engine, &other, "other")));
    let fifth = messages(&server, 4);
    assert_eq!(fifth[..2], fourth[..2]);
    server.finish();
}
