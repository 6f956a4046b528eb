//! What an `explore` saves the parent: the parent's request bytes after
//! reading 20 files through one explore call, against reading the same
//! 20 files directly, on the same fake provider. The files are ~2 KB of
//! source each; the child's answer is a summary of a few hundred bytes.
//!
//! Run: `cargo bench -p ai_chat_engine --bench explore_context`

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ai_chat_engine::{AiConfig, Engine, EngineOptions, Event, ProviderKind, UserInput};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RecordedRequest, Reply};

/// Files read in each case.
const FILES: usize = 20;

/// Lines per file: with ~36 bytes a line, about 2 KB, a small module.
const LINES: usize = 56;

/// Longest a turn may take before the bench gives up.
const GIVE_UP: Duration = Duration::from_secs(60);

/// How child requests begin (the brief's first words).
const CHILD_MARK: &str = "You are a read-only helper";

/// What the child answers: a summary with paths, as the brief asks.
const SUMMARY: &str = "The 20 modules under src/ each define one `handler_N` function \
(src/mod_N.rs, lines 1-56) that validates its input, logs it and returns a `Result`. None of \
them touches the network; mod_7 and mod_13 also read the config file (line 12). Error \
handling is uniform: every function maps io errors to `HandlerError::Io` (line 40).";

fn write_files(ws: &Path) {
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    for n in 0..FILES {
        let body: String = (0..LINES)
            .map(|l| format!("    let value_{l:02} = input.field_{l:02}(); // {n}\n"))
            .collect();
        std::fs::write(ws.join(format!("src/mod_{n}.rs")), body).expect("write");
    }
}

/// A round that reads every file.
fn read_all() -> Reply {
    let mut s = ChatStream::new();
    for n in 0..FILES {
        s = s.tool_call(
            &format!("r{n}"),
            "fs_read",
            &format!(r#"{{"path":"src/mod_{n}.rs"}}"#),
        );
    }
    s.tool_calls().reply()
}

fn answer(text: &str) -> Reply {
    ChatStream::new().text(text).stop().reply()
}

fn has_results(req: &RecordedRequest) -> bool {
    req.json()["messages"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"))
}

fn is_child(req: &RecordedRequest) -> bool {
    req.body_str().contains(CHILD_MARK)
}

/// Runs one turn and returns every request the provider saw.
fn turn(server: &FakeProvider, ws: &Path) -> Vec<RecordedRequest> {
    let data = tempfile::tempdir().expect("tempdir");
    let config_dir = tempfile::tempdir().expect("tempdir");
    let config = AiConfig {
        provider: Some(ProviderKind::OpenAi),
        base_url: Some(server.base_url()),
        model: Some("main-model".into()),
        fast_model: Some("fast-model".into()),
        api_key: Some("sk-bench-0123456789".into()),
        ..AiConfig::default()
    };
    let options = EngineOptions {
        mode: Some(Mode::Default),
        data_dir: Some(data.path().to_path_buf()),
        config_dir: Some(config_dir.path().to_path_buf()),
        generate_titles: false,
        probe_local: false,
        ..EngineOptions::default()
    };
    let registry = Arc::new(Registry::standard(RegistryConfig::new(
        Workspace::new(ws).expect("workspace"),
    )));
    let engine = Engine::new(config, registry, options).expect("engine");
    let conv = engine.new_conversation();
    let (rx, _cancel) = engine.submit(&conv, UserInput::text("what do the modules in src do?"));
    loop {
        match rx.recv_timeout(GIVE_UP).expect("the turn did not end") {
            Event::Done => break,
            Event::Error { message: e, .. } => panic!("the turn failed: {e}"),
            _ => {}
        }
    }
    server.requests()
}

fn main() {
    let ws = tempfile::tempdir().expect("tempdir");
    write_files(ws.path());
    let file_bytes: u64 = (0..FILES)
        .map(|n| {
            std::fs::metadata(ws.path().join(format!("src/mod_{n}.rs")))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .sum();

    let direct = FakeProvider::start_with(2, |req, _| {
        if has_results(req) {
            answer(SUMMARY)
        } else {
            read_all()
        }
    });
    let d = turn(&direct, ws.path());
    direct.finish();

    let explored = FakeProvider::start_with(4, |req, _| match (is_child(req), has_results(req)) {
        (false, false) => ChatStream::new()
            .tool_call(
                "e1",
                "explore",
                r#"{"task":"read every module in src/ and say what each does"}"#,
            )
            .tool_calls()
            .reply(),
        (false, true) => answer("Here is what they do."),
        (true, false) => read_all(),
        (true, true) => answer(SUMMARY),
    });
    let e = turn(&explored, ws.path());
    explored.finish();
    let (children, parents): (Vec<_>, Vec<_>) = e.iter().partition(|r| is_child(r));

    let len = |r: &RecordedRequest| r.body.len();
    let direct_first = len(&d[0]);
    let direct_after = len(&d[1]);
    let parent_first = len(parents[0]);
    let parent_after = len(parents[1]);
    let child_after = children.last().map_or(0, |r| len(r));
    println!("{FILES} files, {file_bytes} bytes on disk");
    println!(
        "read directly:   parent request {direct_first} -> {direct_after} bytes (+{})",
        direct_after - direct_first
    );
    println!(
        "through explore: parent request {parent_first} -> {parent_after} bytes (+{})",
        parent_after - parent_first
    );
    println!("                 child's last request {child_after} bytes (dropped with the child)");
    let saved = direct_after.saturating_sub(parent_after);
    println!(
        "saved in the parent's context: {saved} bytes ({:.0}% of the direct growth)",
        100.0 * saved as f64 / (direct_after - direct_first).max(1) as f64
    );
}
