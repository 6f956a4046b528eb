//! Prompt-cache stability: every request starts with the previous
//! request's bytes, and the system prompt is identical across processes.

use std::process::Command;

use ai_chat_engine::ProviderKind;
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

#[test]
fn ten_round_session_is_append_only() {
    let server = FakeProvider::start_with(11, |_, i| match i {
        // Turn 1: 9 tool rounds, then an answer (10 requests).
        0..=8 => ChatStream::new()
            .text(&format!("Step {i}."))
            .tool_call(
                &format!("c{i}"),
                "fs_read",
                &format!(r#"{{"path":"f{}.txt"}}"#, i % 3),
            )
            .tool_calls()
            .usage(1000 + 100 * i as u64, 900 + 100 * i as u64, 10)
            .reply(),
        9 => ChatStream::new().text("All read.").stop().reply(),
        // Turn 2 continues the same prefix.
        _ => ChatStream::new().text("Second answer.").stop().reply(),
    });
    let h = harness(&server);
    for n in 0..3 {
        std::fs::write(
            h.workspace.path().join(format!("f{n}.txt")),
            format!("file {n}\n"),
        )
        .unwrap();
    }
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read the files");
    assert!(is_done(&msgs), "{msgs:?}");
    let msgs = run(&h.engine, &conv, "and now?");
    assert!(is_done(&msgs), "{msgs:?}");
    // The fake provider checks that each request's history continues the
    // previous one's, byte for byte, and the system prompt and tools.
    assert_eq!(server.request_count(), 11);
}

#[test]
fn anthropic_prefix_is_stable_apart_from_the_moving_breakpoint() {
    let server = FakeProvider::start_with(5, |_, i| match i {
        0..=3 => MessagesStream::new(10, 0, 0)
            .tool_use(&format!("t{i}"), "fs_list", r#"{"path":"."}"#)
            .stop("tool_use", 5)
            .reply(),
        _ => MessagesStream::new(10, 0, 0)
            .text("done")
            .stop("end_turn", 1)
            .reply(),
    });
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &conv, "look around")));
    // The fake provider checks that each request's bytes continue the
    // previous one's, the moving breakpoint (cache_control) aside, and that
    // Anthropic's merged user turn keeps its earlier blocks.
    assert_eq!(server.request_count(), 5);
}

/// Set in a child process: print the system prompt and exit.
const CHILD_ENV: &str = "KOI_ENGINE_TEST_PRINT_PROMPT";

#[test]
fn child_prints_system_prompt() {
    let Ok(config_dir) = std::env::var(CHILD_ENV) else {
        return; // only meaningful when spawned by the test below
    };
    let server = FakeProvider::start([]);
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let engine = ai_chat_engine::Engine::new(
        config(&server, ProviderKind::OpenAi),
        registry(workspace.path()),
        options(data.path(), std::path::Path::new(&config_dir)),
    )
    .unwrap();
    println!("<<<PROMPT>>>{}<<<END>>>", engine.system_prompt());
}

fn prompt_from_child(config_dir: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "cache::child_prints_system_prompt",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, config_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let start = stdout
        .find("<<<PROMPT>>>")
        .expect("child printed the prompt")
        + 12;
    let end = stdout.find("<<<END>>>").unwrap();
    stdout[start..end].to_string()
}

#[test]
fn system_prompt_is_identical_across_processes() {
    let config_dir = tempfile::tempdir().unwrap();
    std::fs::write(config_dir.path().join("SOUL.md"), "Prefer Rust examples.\n").unwrap();
    std::fs::write(config_dir.path().join("MEMORY.md"), "changes often\n").unwrap();
    let a = prompt_from_child(config_dir.path());
    let b = prompt_from_child(config_dir.path());
    assert_eq!(a, b);
    assert!(a.contains("Prefer Rust examples."));
    assert!(
        !a.contains("changes often"),
        "MEMORY.md stays out of the system prompt"
    );
    let server = FakeProvider::start([]);
    let data = tempfile::tempdir().unwrap();
    let here = ai_chat_engine::Engine::new(
        config(&server, ProviderKind::OpenAi),
        registry(data.path()),
        options(data.path(), config_dir.path()),
    )
    .unwrap();
    assert_eq!(here.system_prompt(), a);
}

/// Switching the mode or the model between turns changes what is allowed
/// and who answers, never the cached prefix: the strict server fails this
/// test if the second turn's system prompt or tools[] moved.
#[test]
fn a_mode_or_model_switch_keeps_the_prompt_and_tools() {
    for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let reply = |text: &str| match kind {
            ProviderKind::Anthropic => MessagesStream::new(10, 0, 0)
                .text(text)
                .stop("end_turn", 1)
                .reply(),
            _ => ChatStream::new().text(text).stop().reply(),
        };
        let server = FakeProvider::start([reply("one"), reply("two"), reply("three")]);
        let h = harness_with(&server, kind, |_| {});
        let conv = h.engine.new_conversation();
        assert!(is_done(&run(&h.engine, &conv, "first")));
        h.engine.set_mode(ai_tools::Mode::Plan);
        assert!(is_done(&run(&h.engine, &conv, "second")));
        h.engine.set_model("other-model").unwrap();
        assert!(is_done(&run(&h.engine, &conv, "third")));
        let reqs = server.requests();
        assert_eq!(reqs[2].json()["model"], "other-model", "{kind:?}");
        let violations = server.into_violations();
        assert!(violations.is_empty(), "{kind:?}: {violations:#?}");
    }
}
