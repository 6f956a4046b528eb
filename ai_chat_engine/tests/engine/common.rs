//! Shared fixtures.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use ai_chat_engine::protocol::ErrorKind;
use ai_chat_engine::{
    AiConfig, Conversation, Engine, EngineOptions, Event, ProviderKind, UserInput,
};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use crossbeam_channel::Receiver;
use koi_testkit::FakeProvider;
use tempfile::TempDir;

/// The messages of the second request the server saw (the one after the
/// first round's tool calls ran).
pub fn second_request_messages(server: &FakeProvider) -> Vec<serde_json::Value> {
    server.requests()[1].json()["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// Longest any test waits for a turn to end.
pub const TURN_TIMEOUT: Duration = Duration::from_secs(30);

/// A workspace, a data dir, a config dir, and an engine talking to a fake server.
pub struct Harness {
    pub engine: Engine,
    pub workspace: TempDir,
    pub data: TempDir,
    pub _config_dir: TempDir,
}

impl Harness {
    pub fn ws(&self) -> PathBuf {
        self.workspace.path().canonicalize().unwrap()
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data.path().join("sessions")
    }
}

pub fn options(data: &Path, config_dir: &Path) -> EngineOptions {
    EngineOptions {
        mode: Some(Mode::Default),
        approval_timeout: Some(Duration::from_secs(10)),
        data_dir: Some(data.to_path_buf()),
        config_dir: Some(config_dir.to_path_buf()),
        persist: true,
        generate_titles: false,
        probe_local: false,
        demo_word_delay: Duration::ZERO,
        ..EngineOptions::default()
    }
}

pub fn config(server: &FakeProvider, provider: ProviderKind) -> AiConfig {
    AiConfig {
        provider: Some(provider),
        base_url: Some(server.base_url()),
        model: Some("main-model".into()),
        fast_model: Some("fast-model".into()),
        api_key: Some("sk-test-SECRET-123".into()),
        ..AiConfig::default()
    }
}

pub fn registry(ws: &Path) -> Arc<Registry> {
    Arc::new(Registry::standard(RegistryConfig::new(
        Workspace::new(ws).unwrap(),
    )))
}

/// An engine for `provider` at `server`, options adjusted by `tweak`.
pub fn harness_with(
    server: &FakeProvider,
    provider: ProviderKind,
    tweak: impl FnOnce(&mut EngineOptions),
) -> Harness {
    harness_configured(server, provider, |_| {}, tweak)
}

/// [`harness_with`], the `[ai]` config adjusted by `configure` too.
pub fn harness_configured(
    server: &FakeProvider,
    provider: ProviderKind,
    configure: impl FnOnce(&mut AiConfig),
    tweak: impl FnOnce(&mut EngineOptions),
) -> Harness {
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let mut opts = options(data.path(), config_dir.path());
    tweak(&mut opts);
    let mut cfg = config(server, provider);
    configure(&mut cfg);
    let engine = Engine::new(cfg, registry(workspace.path()), opts).unwrap();
    Harness {
        engine,
        workspace,
        data,
        _config_dir: config_dir,
    }
}

pub fn harness(server: &FakeProvider) -> Harness {
    harness_with(server, ProviderKind::OpenAi, |_| {})
}

/// Collects a turn's messages up to and including its terminal one, and
/// checks that exactly one terminal message arrives and nothing follows.
pub fn collect(rx: &Receiver<Event>) -> Vec<Event> {
    let deadline = Instant::now() + TURN_TIMEOUT;
    let mut out = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = rx.recv_timeout(left).expect("turn did not end in time");
        let end = msg.is_terminal();
        out.push(msg);
        if end {
            break;
        }
    }
    // Nothing after the terminal message (the sender is dropped soon after).
    let extra = rx.recv_timeout(Duration::from_millis(300));
    assert!(
        !matches!(extra, Ok(ref m) if m.is_terminal()),
        "a second terminal message: {extra:?}"
    );
    out
}

/// Submits and collects.
pub fn run(engine: &Engine, conv: &Conversation, text: &str) -> Vec<Event> {
    let (rx, _cancel) = engine.submit(conv, UserInput::text(text));
    collect(&rx)
}

pub fn tokens(msgs: &[Event]) -> String {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Token { text: t } => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Each round's usage as (input, cached input, output) tokens, in order.
pub fn usage(msgs: &[Event]) -> Vec<(u64, u64, u64)> {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Usage {
                input,
                cached_input,
                output,
                ..
            } => Some((*input, *cached_input, *output)),
            _ => None,
        })
        .collect()
}

pub fn reasoning(msgs: &[Event]) -> String {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Reasoning { text: t } => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

pub fn is_done(msgs: &[Event]) -> bool {
    matches!(msgs.last(), Some(Event::Done))
}

/// The error event a turn ended with (compare it with an
/// `EngineError`'s `to_event()`: its kind and a message naming every
/// field).
pub fn error_of(msgs: &[Event]) -> &Event {
    match msgs.last() {
        Some(e @ Event::Error { .. }) => e,
        other => panic!("expected Error, got {other:?}"),
    }
}

/// The kind of error a turn ended with.
pub fn kind_of(msgs: &[Event]) -> ai_chat_engine::protocol::ErrorKind {
    match error_of(msgs) {
        Event::Error { kind, .. } => *kind,
        _ => unreachable!("error_of returns an error"),
    }
}

/// The message of the error a turn ended with.
pub fn message_of(msgs: &[Event]) -> &str {
    match error_of(msgs) {
        Event::Error { message, .. } => message,
        _ => unreachable!("error_of returns an error"),
    }
}

pub fn count<F: Fn(&Event) -> bool>(msgs: &[Event], f: F) -> usize {
    msgs.iter().filter(|m| f(m)).count()
}

/// The raw text of a request body's `messages` array (OpenAI chat), without
/// its closing bracket: the part the next request must start with.
pub fn messages_prefix(body: &str) -> &str {
    let start = body.find("\"messages\":[").expect("messages array");
    let inner = &body[start..];
    inner
        .strip_suffix("]}")
        .expect("messages is the last field")
}

/// Loads a saved conversation once the turn thread that just ended has
/// let go of it (its handle drops a moment after the terminal message).
pub fn load_when_free(engine: &Engine, id: &str) -> Conversation {
    let deadline = Instant::now() + TURN_TIMEOUT;
    loop {
        match engine.load_conversation(id) {
            Err(ai_chat_engine::EngineError::Locked { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other.unwrap(),
        }
    }
}
