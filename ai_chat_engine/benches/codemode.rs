//! What `run_code` saves: "summarise these 20 files" on the same fake
//! provider, four ways, one run: direct `fs_read` calls all in one round,
//! one `fs_read` per round, one `explore` call, and one `run_code`
//! program that reads the 20 files and prints a digest. For each: model
//! rounds (requests), the bytes of every request together, the last
//! request's bytes (the context the conversation goes on with), and the
//! turn's wall time. Every case offers the same tools.
//!
//! Run: `cargo bench -p ai_chat_engine --bench codemode` (needs `node`).

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::{
    AiConfig, ApprovalReply, Engine, EngineOptions, Event, ProviderKind, UserInput,
};
use ai_tools::tools::run_code::runtime::Runtimes;
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RecordedRequest, Reply};

/// Files summarised in each case.
const FILES: usize = 20;

/// Lines per file: with ~36 bytes a line, about 2 KB, a small module.
const LINES: usize = 56;

/// Longest a turn may take before the bench gives up.
const GIVE_UP: Duration = Duration::from_secs(120);

/// How child requests begin (the brief's first words).
const CHILD_MARK: &str = "You are a read-only helper";

/// The model's closing answer, the same in every case.
const SUMMARY: &str = "The 20 modules under src/ each define one handler that reads 56 \
fields of its input; they differ only in the module number.";

/// The program the model writes: read everything at once, print a digest.
const PROGRAM: &str = r#"
const paths = Array.from({ length: 20 }, (_, n) => `src/mod_${n}.rs`);
const texts = await Promise.all(paths.map((path) => koi.fs_read({ path })));
for (const [i, text] of texts.entries()) {
  const lines = text.split("\n").filter((l) => l.includes("let value_"));
  console.log(`${paths[i]}: ${lines.length} fields, first: ${lines[0]?.trim().slice(0, 60)}`);
}
"#;

fn write_files(ws: &Path) {
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    for n in 0..FILES {
        let body: String = (0..LINES)
            .map(|l| format!("    let value_{l:02} = input.field_{l:02}(); // {n}\n"))
            .collect();
        std::fs::write(ws.join(format!("src/mod_{n}.rs")), body).expect("write");
    }
}

fn read_call(s: ChatStream, n: usize) -> ChatStream {
    s.tool_call(
        &format!("r{n}"),
        "fs_read",
        &format!(r#"{{"path":"src/mod_{n}.rs"}}"#),
    )
}

/// A round that reads every file.
fn read_all() -> Reply {
    (0..FILES)
        .fold(ChatStream::new(), read_call)
        .tool_calls()
        .reply()
}

fn answer(text: &str) -> Reply {
    ChatStream::new().text(text).stop().reply()
}

fn results(req: &RecordedRequest) -> usize {
    req.json()["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count())
}

fn is_child(req: &RecordedRequest) -> bool {
    req.body_str().contains(CHILD_MARK)
}

/// One case's figures.
struct Figures {
    rounds: usize,
    total_bytes: usize,
    last_bytes: usize,
    wall: Duration,
}

/// Runs one turn (approving anything asked) and measures it.
fn turn(server: &FakeProvider, ws: &Path, runtimes: &Runtimes) -> Figures {
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
    let mut tools = RegistryConfig::new(Workspace::new(ws).expect("workspace"));
    tools.code_runtimes = Some(runtimes.clone());
    let engine = Engine::new(config, Arc::new(Registry::standard(tools)), options).expect("engine");
    let conv = engine.new_conversation();
    let began = Instant::now();
    let (rx, handle) = engine.submit(&conv, UserInput::text("summarise the 20 files in src/"));
    loop {
        match rx.recv_timeout(GIVE_UP).expect("the turn did not end") {
            Event::Done => break,
            Event::Error { message: e, .. } => panic!("the turn failed: {e}"),
            Event::ApprovalAsked { id: Some(id), .. } => {
                handle.approve(&id, ApprovalReply::Approve)
            }
            _ => {}
        }
    }
    let wall = began.elapsed();
    let requests = server.requests();
    Figures {
        rounds: requests.len(),
        total_bytes: requests.iter().map(|r| r.body.len()).sum(),
        last_bytes: requests
            .iter()
            .rfind(|r| !is_child(r))
            .map_or(0, |r| r.body.len()),
        wall,
    }
}

fn main() {
    let Some(runtimes) = Runtimes::detect().filter(|r| r.javascript.is_some()) else {
        println!("no node (or deno) on PATH: run_code cannot be measured here");
        return;
    };
    let ws = tempfile::tempdir().expect("tempdir");
    write_files(ws.path());

    let parallel = FakeProvider::start_with(2, |req, _| match results(req) {
        0 => read_all(),
        _ => answer(SUMMARY),
    });
    let p = turn(&parallel, ws.path(), &runtimes);
    parallel.finish();

    let sequential = FakeProvider::start_with(FILES + 1, |req, _| match results(req) {
        n if n < FILES => read_call(ChatStream::new(), n).tool_calls().reply(),
        _ => answer(SUMMARY),
    });
    let s = turn(&sequential, ws.path(), &runtimes);
    sequential.finish();

    let explored = FakeProvider::start_with(4, |req, _| match (is_child(req), results(req)) {
        (false, 0) => ChatStream::new()
            .tool_call(
                "e1",
                "explore",
                r#"{"task":"read every module in src/ and summarise each"}"#,
            )
            .tool_calls()
            .reply(),
        (false, _) => answer(SUMMARY),
        (true, 0) => read_all(),
        (true, _) => answer(SUMMARY),
    });
    let e = turn(&explored, ws.path(), &runtimes);
    explored.finish();

    let coded = FakeProvider::start_with(2, |req, _| match results(req) {
        0 => ChatStream::new()
            .tool_call(
                "c1",
                "run_code",
                &serde_json::json!({"language": "javascript", "code": PROGRAM}).to_string(),
            )
            .tool_calls()
            .reply(),
        _ => answer(SUMMARY),
    });
    let c = turn(&coded, ws.path(), &runtimes);
    coded.finish();

    println!("summarise {FILES} files of {LINES} lines, one run:");
    println!(
        "{:<28} {:>6} {:>15} {:>15} {:>9}",
        "way", "rounds", "request bytes", "last request", "wall"
    );
    for (name, f) in [
        ("fs_read x20 in one round", &p),
        ("fs_read, one per round", &s),
        ("explore (parent + child)", &e),
        ("run_code", &c),
    ] {
        println!(
            "{:<28} {:>6} {:>15} {:>15} {:>8.2}s",
            name,
            f.rounds,
            f.total_bytes,
            f.last_bytes,
            f.wall.as_secs_f64()
        );
    }
}
