//! Compaction policies on the same scripted 200-round coding session
//! (koi_testkit's `LongSession`: investigation, edits, test runs) against
//! the loopback fake provider: bytes sent, the cache-eligible share (the
//! bytes each request shares as a prefix with the previous request to the
//! same model), the number of compactions, and the approximate input cost
//! at a cached:uncached price ratio of 0.1.
//!
//! Run: `cargo bench -p ai_chat_engine --bench compaction` (the figures
//! are byte counts, the same in any build profile).

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::collections::HashMap;
use std::sync::Arc;

use ai_chat_engine::compaction::{CompactionToml, BYTES_PER_TOKEN};
use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{
    AiConfig, CompactionPolicy, Engine, EngineOptions, Event, ProviderKind, UserInput,
};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::long_session::LongSession;
use koi_testkit::FakeProvider;

/// Model rounds in the session.
const ROUNDS: usize = 200;

/// Price of a cached input token relative to an uncached one.
const CACHED_RATIO: f64 = 0.1;

/// The pre-issue-17 policy's budget.
const OLD_BUDGET_BYTES: usize = 120 * 1024;

struct Run {
    label: String,
    requests: usize,
    bytes: usize,
    eligible: usize,
    compactions: usize,
    trims: usize,
    largest: usize,
}

fn session(label: &str, window_tokens: u64, policy: CompactionPolicy) -> Run {
    let workspace = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    let script = Arc::new(LongSession::new(ROUNDS));
    script.prepare(workspace.path()).expect("prepare");
    let answer = Arc::clone(&script);
    // Every round's turn, and at most a summary each: how many depends on
    // the policy this run measures.
    let server = FakeProvider::start_with(ROUNDS..=2 * ROUNDS, move |req, _| answer.reply(req));
    let mut compaction = CompactionToml::default();
    compaction
        .windows
        .insert("main-model".into(), window_tokens);
    let cfg = AiConfig {
        provider: Some(ProviderKind::OpenAi),
        base_url: Some(server.base_url()),
        model: Some("main-model".into()),
        fast_model: Some("fast-model".into()),
        api_key: Some("sk-bench-123456".into()),
        compaction: Some(compaction),
        ..AiConfig::default()
    };
    let registry = Arc::new(Registry::standard(RegistryConfig::new(
        Workspace::new(workspace.path()).expect("workspace"),
    )));
    let options = EngineOptions {
        mode: Some(Mode::Bypass),
        data_dir: Some(data.path().to_path_buf()),
        config_dir: Some(data.path().join("config")),
        generate_titles: false,
        probe_local: false,
        compaction: policy,
        ..EngineOptions::default()
    };
    let engine = Engine::new(cfg, registry, options).expect("engine");
    let conv = engine.new_conversation();
    for t in 0..script.turns() {
        let (rx, _cancel) = engine.submit(&conv, UserInput::text(script.prompt(t)));
        for msg in rx {
            match msg {
                Event::Done => break,
                Event::Error { message: e, .. } => panic!("turn {t} failed: {e}"),
                _ => {}
            }
        }
    }
    let records = read_log(&conv.log_path().expect("log"))
        .expect("read log")
        .records;
    let count = |f: fn(&Entry) -> bool| records.iter().filter(|r| f(&r.entry)).count();
    let compactions = count(|e| matches!(e, Entry::Summary { .. }));
    let trims = count(|e| matches!(e, Entry::Trimmed { .. }));
    let mut last_by_model: HashMap<String, String> = HashMap::new();
    let (mut bytes, mut eligible, mut largest) = (0, 0, 0);
    let requests = server.requests();
    for r in &requests {
        let body = r.body_str();
        let model = r.json()["model"].as_str().unwrap_or("").to_string();
        if let Some(prev) = last_by_model.get(&model) {
            eligible += common_prefix(prev, &body);
        }
        bytes += body.len();
        largest = largest.max(body.len());
        last_by_model.insert(model, body);
    }
    Run {
        label: label.to_string(),
        requests: requests.len(),
        bytes,
        eligible,
        compactions,
        trims,
        largest,
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Input cost in millions of uncached-token equivalents.
fn cost(r: &Run) -> f64 {
    let uncached = (r.bytes - r.eligible) as f64;
    let cached = r.eligible as f64;
    (uncached + cached * CACHED_RATIO) / BYTES_PER_TOKEN as f64 / 1e6
}

fn main() {
    let runs = [
        session(
            "old: fixed 120 KB, fast model",
            128_000,
            CompactionPolicy::FixedBudget {
                budget_bytes: OLD_BUDGET_BYTES,
            },
        ),
        session(
            "new: 128k-token window",
            128_000,
            CompactionPolicy::Adaptive,
        ),
        session("new: 64k-token window", 64_000, CompactionPolicy::Adaptive),
        session(
            "new: 200k-token window",
            200_000,
            CompactionPolicy::Adaptive,
        ),
    ];
    println!(
        "{ROUNDS}-round session (koi_testkit LongSession), cached:uncached price {CACHED_RATIO}"
    );
    println!(
        "| policy | requests | MB sent | cache-eligible | summaries | trims | largest KB | cost (M uncached-token eq.) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &runs {
        println!(
            "| {} | {} | {:.2} | {:.1} % | {} | {} | {} | {:.3} |",
            r.label,
            r.requests,
            r.bytes as f64 / 1e6,
            100.0 * r.eligible as f64 / r.bytes as f64,
            r.compactions,
            r.trims,
            r.largest / 1024,
            cost(r)
        );
    }
}
