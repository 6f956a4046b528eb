//! Measures a scripted 25-round session against the loopback fake provider:
//! how much of each request repeats the previous request's prefix
//! (cache-eligible), the bytes sent, and the engine's own time per round
//! (the fake model answers instantly; tool time is subtracted).
//!
//! Run: `cargo bench -p ai_chat_engine --bench session`

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ai_chat_engine::budgets::MAX_ROUNDS;
use ai_chat_engine::{AiConfig, Engine, EngineOptions, Event, ProviderKind, UserInput};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

/// Sessions timed; the median is reported.
const RUNS: usize = 5;

struct Figures {
    bodies: Vec<String>,
    wall: Duration,
    tool_time: Duration,
    /// What the fake provider spent checking the requests before it
    /// answered (its schemas and history checks): the instrument's time,
    /// not the engine's.
    provider_checks: Duration,
    /// Per round after the first: last ToolDone seen by the front end →
    /// next request received by the provider.
    result_to_request: Vec<Duration>,
}

fn session() -> Figures {
    let workspace = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    for n in 0..4 {
        let text: String = (0..40)
            .map(|l| format!("file {n} line {l}: some source text\n"))
            .collect();
        std::fs::write(workspace.path().join(format!("f{n}.txt")), text).expect("write");
    }
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&arrivals);
    let server = FakeProvider::start_with(MAX_ROUNDS, move |_, i| {
        seen.lock().expect("lock").push(Instant::now());
        if i + 1 < MAX_ROUNDS {
            ChatStream::new()
                .text(&format!("Round {i}: reading the next file."))
                .tool_call(
                    &format!("c{i}"),
                    "fs_read",
                    &format!(r#"{{"path":"f{}.txt"}}"#, i % 4),
                )
                .tool_calls()
                .usage(1000, 900, 20)
                .reply()
        } else {
            ChatStream::new()
                .text("Done reading everything.")
                .stop()
                .reply()
        }
    });
    let cfg = AiConfig {
        provider: Some(ProviderKind::OpenAi),
        base_url: Some(server.base_url()),
        model: Some("bench-model".into()),
        ..AiConfig::default()
    };
    let registry = Registry::standard(RegistryConfig::new(
        Workspace::new(workspace.path()).expect("ws"),
    ));
    let opts = EngineOptions {
        mode: Some(Mode::Default),
        data_dir: Some(data.path().to_path_buf()),
        config_dir: None,
        generate_titles: false,
        probe_local: false,
        ..EngineOptions::default()
    };
    let engine = Engine::new(cfg, Arc::new(registry), opts).expect("engine");
    let conv = engine.new_conversation();
    let t0 = Instant::now();
    let (rx, _cancel) = engine.submit(&conv, UserInput::text("read all the files, one per round"));
    let mut tool_time = Duration::ZERO;
    let mut started = None;
    let mut tool_done = Vec::new();
    loop {
        match rx
            .recv_timeout(Duration::from_secs(60))
            .expect("turn ended")
        {
            Event::ToolStart { .. } => started = Some(Instant::now()),
            Event::ToolDone { .. } | Event::ToolFailed { .. } => {
                if let Some(s) = started.take() {
                    tool_time += s.elapsed();
                }
                tool_done.push(Instant::now());
            }
            Event::Done => break,
            Event::Error { message: e, .. } => panic!("session failed: {e}"),
            _ => {}
        }
    }
    let wall = t0.elapsed();
    let arrivals = arrivals.lock().expect("lock").clone();
    let result_to_request = tool_done
        .iter()
        .zip(arrivals.iter().skip(1))
        .map(|(done, next)| next.saturating_duration_since(*done))
        .collect();
    let requests = server.requests();
    Figures {
        bodies: requests.iter().map(|r| r.body_str()).collect(),
        wall,
        tool_time,
        provider_checks: requests.iter().map(|r| r.checked_in).sum(),
        result_to_request,
    }
}

impl Figures {
    /// The session's time that is the engine's own: the wall time less the
    /// tools' and the fake provider's checking.
    fn engine_time(&self) -> Duration {
        self.wall
            .saturating_sub(self.tool_time + self.provider_checks)
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn main() {
    let mut runs: Vec<Figures> = (0..RUNS).map(|_| session()).collect();
    runs.sort_by_key(Figures::engine_time);
    let f = &runs[RUNS / 2];
    let total: usize = f.bodies.iter().map(String::len).sum();
    let repeated: usize = f
        .bodies
        .windows(2)
        .map(|w| {
            // The previous body minus its closing `]}` is what can repeat.
            let prev = w[0].strip_suffix("]}").unwrap_or(&w[0]);
            common_prefix(prev, &w[1])
        })
        .sum();
    let later: usize = f.bodies.iter().skip(1).map(String::len).sum();
    let rounds = f.bodies.len();
    let overhead = f.engine_time() / rounds as u32;
    println!(
        "scripted session: {rounds} rounds (24 fs_read tool rounds + answer), OpenAI chat dialect"
    );
    println!("requests sent:                       {rounds}");
    println!("total request bytes:                 {total}");
    println!("first request bytes:                 {}", f.bodies[0].len());
    println!(
        "last request bytes:                  {}",
        f.bodies[rounds - 1].len()
    );
    println!(
        "bytes repeating previous prefix:     {repeated} ({:.1}% of all bytes, {:.1}% of requests 2..{rounds})",
        100.0 * repeated as f64 / total as f64,
        100.0 * repeated as f64 / later as f64
    );
    println!("session wall time (median of {RUNS}):  {:?}", f.wall);
    println!("tool time:                           {:?}", f.tool_time);
    println!(
        "fake provider's checks:              {:?}",
        f.provider_checks
    );
    println!("engine overhead per round:           {overhead:?} (wall - tools - the provider's checks, instant model, loopback HTTP)");
    let mut gaps = f.result_to_request.clone();
    gaps.sort();
    if !gaps.is_empty() {
        println!(
            "tool result -> next request at provider: median {:?}, max {:?} (commit, log, build, send)",
            gaps[gaps.len() / 2],
            gaps[gaps.len() - 1]
        );
    }
}
