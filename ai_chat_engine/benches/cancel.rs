//! Measures how long cancel takes to end a turn: mid-stream, mid-tool,
//! while an approval waits, and during a retry wait. The tests prove that
//! cancel ends each of these (by events); this says how fast, without a
//! threshold that a loaded machine would trip.
//!
//! Run: `cargo bench -p ai_chat_engine --bench cancel`

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::{AiConfig, Engine, EngineOptions, Event, ProviderKind, UserInput};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

/// Cancels timed per case; the median and the worst are reported.
const RUNS: usize = 9;

/// Longest a turn may take to end after cancel before the bench gives up.
const GIVE_UP: Duration = Duration::from_secs(30);

/// Where the turn is when cancel comes.
#[derive(Debug, Clone, Copy)]
enum Case {
    MidStream,
    MidTool,
    WaitingForApproval,
    RetryWait,
}

impl Case {
    fn reply(self) -> Reply {
        match self {
            Case::MidStream => ChatStream::new()
                .text("thinking very slowly")
                .stop()
                .reply()
                .hang_after(2),
            Case::MidTool => ChatStream::new()
                .tool_call("s", "shell_exec", r#"{"command":"sleep 60"}"#)
                .tool_calls()
                .reply(),
            Case::WaitingForApproval => ChatStream::new()
                .tool_call(
                    "w",
                    "fs_write",
                    r#"{"path":"out.txt","content":"x","expected_revision":"absent"}"#,
                )
                .tool_calls()
                .reply(),
            Case::RetryWait => Reply::status(503, "{}").header("retry-after", "45"),
        }
    }

    /// Whether the turn has reached the point where cancel is timed.
    fn reached(self, msg: &Event) -> bool {
        match self {
            Case::MidStream => matches!(msg, Event::Token { .. }),
            Case::MidTool => matches!(msg, Event::ToolStart { .. }),
            Case::WaitingForApproval => matches!(msg, Event::ApprovalAsked { .. }),
            // Nothing is streamed while the engine waits to retry.
            Case::RetryWait => true,
        }
    }
}

fn cancel_once(case: Case) -> Duration {
    let workspace = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    // The cancelled turn never uses the reply after its first; the check
    // is not what is measured here.
    let server = FakeProvider::start([case.reply()]);
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
        approval_timeout: Some(Duration::from_secs(60)),
        data_dir: Some(data.path().to_path_buf()),
        generate_titles: false,
        probe_local: false,
        ..EngineOptions::default()
    };
    let engine = Engine::new(cfg, Arc::new(registry), opts).expect("engine");
    let conv = engine.new_conversation();
    let (rx, cancel) = engine.submit(&conv, UserInput::text("go"));
    // Holds the approval's reply sender: dropping it would deny at once.
    let mut keep = Vec::new();
    if let Case::RetryWait = case {
        assert!(server.wait_for_requests(1, GIVE_UP), "the first attempt");
        // Let the engine read the 503 and start waiting.
        std::thread::sleep(Duration::from_millis(100));
    } else {
        loop {
            let msg = rx.recv_timeout(GIVE_UP).expect("turn reached its point");
            let reached = case.reached(&msg);
            keep.push(msg);
            if reached {
                break;
            }
        }
    }
    let t0 = Instant::now();
    cancel.cancel();
    loop {
        let msg = rx.recv_timeout(GIVE_UP).expect("turn ended after cancel");
        if msg.is_terminal() {
            return t0.elapsed();
        }
    }
}

fn main() {
    for case in [
        Case::MidStream,
        Case::MidTool,
        Case::WaitingForApproval,
        Case::RetryWait,
    ] {
        let mut times: Vec<Duration> = (0..RUNS).map(|_| cancel_once(case)).collect();
        times.sort();
        println!(
            "cancel {:<20} median {:?}, max {:?} ({RUNS} runs)",
            format!("{case:?}:"),
            times[RUNS / 2],
            times[RUNS - 1]
        );
    }
}
