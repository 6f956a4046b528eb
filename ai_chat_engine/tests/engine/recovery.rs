//! Resuming what a crash left: logs as a crash leaves them (written here
//! record by record), a real engine, real tools, the loopback provider.
//! The kill -9 test of `k` (cli_chat/tests/k/crash.rs) makes such logs for
//! real; these pin down each step of the planner in the engine.

use std::path::Path;

use ai_chat_engine::store::session_log::{read_log, Entry, Record, StartProof, LOG_FORMAT};
use ai_chat_engine::{
    ApprovalReply, EngineError, Event, Message, Step, ToolCall, UncertainDecision,
    ABANDONED_RESULT, REPEAT_UNCERTAIN_RESULT,
};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

const ID: &str = "20260101-000000-cafe01";

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

fn start(c: &ToolCall, proof: StartProof) -> Entry {
    Entry::ToolStart {
        call_id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
        proof,
        run_tag: None,
    }
}

/// A log as a crash leaves it: meta, a question, then `rest`.
fn write_log(h: &Harness, rest: Vec<Entry>) {
    let mut entries = vec![
        Entry::Meta {
            session: ID.into(),
            cwd: h.ws().to_string_lossy().into_owned(),
            provider: "openai".into(),
            model: "m".into(),
            format: LOG_FORMAT,
            forked_from: None,
        },
        Entry::Environment {
            text: "<environment>\ndate: 2026-01-01\n</environment>".into(),
        },
        Entry::User {
            text: "do it".into(),
            attachments: vec![],
            images: vec![],
        },
    ];
    entries.extend(rest);
    let dir = h.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = entries
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let r = Record {
                id: format!("e{}", i + 1),
                ts: format!("2026-01-01T00:00:{i:02}.000Z"),
                entry,
            };
            serde_json::to_string(&r).unwrap() + "\n"
        })
        .collect();
    std::fs::write(dir.join(format!("{ID}.jsonl")), text).unwrap();
}

fn assistant(calls: &[ToolCall]) -> Entry {
    Entry::Assistant {
        text: String::new(),
        reasoning: String::new(),
        tool_calls: calls.to_vec(),
        finish: "tool_calls".into(),
        reasoning_blocks: vec![],
    }
}

fn resume(h: &Harness, conv: &ai_chat_engine::Conversation) -> Vec<Event> {
    let (rx, _cancel) = h.engine.resume(conv);
    collect(&rx)
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn tool_results(conv: &ai_chat_engine::Conversation) -> Vec<(String, String)> {
    conv.messages()
        .into_iter()
        .filter_map(|m| match m {
            Message::ToolResult {
                call_id, content, ..
            } => Some((call_id, content)),
            _ => None,
        })
        .collect()
}

/// A log whose last round started `echo x >> count.txt` (call `c2`, not
/// proven read-only) and never recorded its result; returns the call and
/// the counter file.
fn interrupted_counter(h: &Harness) -> (ToolCall, std::path::PathBuf) {
    let sh = call(
        "c2",
        "shell_exec",
        serde_json::json!({"command": "echo x >> count.txt"}),
    );
    write_log(
        h,
        vec![
            assistant(std::slice::from_ref(&sh)),
            start(&sh, StartProof::Unproven),
        ],
    );
    (sh, h.ws().join("count.txt"))
}

fn bypass(server: &FakeProvider) -> Harness {
    harness_with(server, ai_chat_engine::ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass)
    })
}

#[test]
fn a_log_that_cannot_be_written_means_the_tool_does_not_run() {
    let server = FakeProvider::start([ChatStream::new()
        .tool_call(
            "c1",
            "shell_exec",
            &serde_json::json!({"command": "touch ran"}).to_string(),
        )
        .tool_calls()
        .reply()]);
    let h = bypass(&server);
    // The sessions directory cannot exist: its name is taken by a file.
    std::fs::write(h.sessions_dir(), "not a directory").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "touch it");
    assert_eq!(kind_of(&msgs), ErrorKind::Session, "{msgs:?}");
    let why = message_of(&msgs);
    assert!(why.contains("cannot be written"), "{why}");
    assert!(!h.workspace.path().join("ran").exists(), "the tool ran");
    assert!(conv.log_error().is_some());
    assert_eq!(server.requests().len(), 1, "the turn ended at the start");
    let (_, told) = &tool_results(&conv)[0];
    assert!(told.starts_with("not run: session log"), "{told}");
}

#[test]
fn an_interrupted_read_only_call_runs_again_then_the_turn_goes_on() {
    let server = FakeProvider::start([ChatStream::new().text("Read it.").stop().reply()]);
    let h = bypass(&server);
    std::fs::write(h.ws().join("a.txt"), "alpha\n").unwrap();
    let read = call("c1", "fs_read", serde_json::json!({"path": "a.txt"}));
    write_log(
        &h,
        vec![
            assistant(std::slice::from_ref(&read)),
            start(&read, StartProof::ReadOnly),
        ],
    );
    let conv = h.engine.load_conversation(ID).unwrap();
    assert!(
        conv.uncertain_calls().is_empty(),
        "read-only is never uncertain"
    );
    assert!(matches!(conv.next_step(), Step::RunCalls(ref p) if p[0].rerun));
    let msgs = resume(&h, &conv);
    assert!(is_done(&msgs), "{msgs:?}");
    let results = tool_results(&conv);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("alpha"), "{results:?}");
    assert_eq!(conv.next_step(), Step::Idle);
}

#[test]
fn an_uncertain_call_waits_for_the_user_then_reruns_exactly_once() {
    let server = FakeProvider::start([ChatStream::new().text("Counted.").stop().reply()]);
    let h = bypass(&server);
    let (sh, count) = interrupted_counter(&h);
    let conv = h.engine.load_conversation(ID).unwrap();
    let uncertain = conv.uncertain_calls();
    assert_eq!(uncertain.len(), 1);
    assert_eq!(uncertain[0].call, sh);
    // Neither resuming nor a new question runs anything or calls the model.
    let msgs = resume(&h, &conv);
    assert_eq!(
        error_of(&msgs),
        &EngineError::Uncertain { calls: 1 }.to_event()
    );
    let msgs = run(&h.engine, &conv, "go on");
    assert_eq!(
        error_of(&msgs),
        &EngineError::Uncertain { calls: 1 }.to_event()
    );
    assert_eq!(lines(&count), 0);
    assert!(server.requests().is_empty());
    conv.decide_uncertain("c2", UncertainDecision::Rerun)
        .unwrap();
    let msgs = resume(&h, &conv);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(lines(&count), 1, "rerun runs it exactly once");
    // The model saw the rerun's result, and the decision is in the log.
    let told = server.requests()[0].body_str();
    assert!(told.contains("c2"), "{told}");
    let log = read_log(&conv.log_path().unwrap()).unwrap();
    assert!(log.records.iter().any(|r| matches!(
        &r.entry,
        Entry::UncertainDecided { call_id, decision: UncertainDecision::Rerun } if call_id == "c2"
    )));
    let starts = log
        .records
        .iter()
        .filter(|r| {
            matches!(
                &r.entry,
                Entry::ToolStart {
                    run_tag: Some(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(starts, 1, "the rerun's start carries its run tag");
}

#[test]
fn an_abandoned_call_runs_zero_times_and_the_model_is_told() {
    let server = FakeProvider::start([ChatStream::new().text("Understood.").stop().reply()]);
    let h = bypass(&server);
    let (_, count) = interrupted_counter(&h);
    let conv = h.engine.load_conversation(ID).unwrap();
    conv.decide_uncertain("c2", UncertainDecision::Abandon)
        .unwrap();
    assert!(conv.uncertain_calls().is_empty());
    let msgs = run(&h.engine, &conv, "what now?");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(lines(&count), 0);
    let m = second_or_first_tool_message(&server);
    assert!(
        m.contains("abandoned by the user; its effect is unknown"),
        "{m}"
    );
    assert_eq!(tool_results(&conv)[0].1, ABANDONED_RESULT);
    // A wrong id is refused, not guessed.
    assert!(conv
        .decide_uncertain("nope", UncertainDecision::Rerun)
        .is_err());
}

fn second_or_first_tool_message(server: &FakeProvider) -> String {
    let body = server.requests()[0].json();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect()
}

#[test]
fn an_approval_cut_off_by_a_crash_is_asked_again() {
    let server = FakeProvider::start([ChatStream::new().text("Written.").stop().reply()]);
    let h = harness(&server);
    let write = call(
        "c1",
        "fs_write",
        serde_json::json!({"path": "new.txt", "content": "hi\n", "expected_revision": "absent"}),
    );
    write_log(
        &h,
        vec![
            assistant(std::slice::from_ref(&write)),
            Entry::ApprovalAsked {
                call_id: "c1".into(),
                summary: "write new.txt".into(),
            },
        ],
    );
    let conv = h.engine.load_conversation(ID).unwrap();
    assert_eq!(conv.next_step(), Step::AskAgain(write));
    let (rx, turn) = h.engine.resume(&conv);
    let mut msgs = Vec::new();
    loop {
        let m = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if let Event::ApprovalAsked { id: Some(id), .. } = &m {
            turn.approve(id, ApprovalReply::Approve);
        }
        let end = m.is_terminal();
        msgs.push(m);
        if end {
            break;
        }
    }
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        std::fs::read_to_string(h.ws().join("new.txt")).unwrap(),
        "hi\n"
    );
    let log = read_log(&conv.log_path().unwrap()).unwrap();
    let asked = log
        .records
        .iter()
        .filter(|r| matches!(r.entry, Entry::ApprovalAsked { .. }))
        .count();
    assert_eq!(asked, 2, "asked before the crash and again after");
    assert!(log
        .records
        .iter()
        .any(|r| matches!(r.entry, Entry::ApprovalDecided { approved: true, .. })));
}

#[test]
fn the_model_repeating_an_undecided_call_is_refused() {
    let again = serde_json::json!({"command": "echo x >> count.txt"});
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("c9", "shell_exec", &again.to_string())
            .tool_calls()
            .reply(),
        ChatStream::new().text("I will ask.").stop().reply(),
    ]);
    let h = bypass(&server);
    let sh = call("c2", "shell_exec", again);
    // A format-1 log went on past the interrupted call.
    write_log(
        &h,
        vec![
            assistant(std::slice::from_ref(&sh)),
            start(&sh, StartProof::Unproven),
            Entry::User {
                text: "and?".into(),
                attachments: vec![],
                images: vec![],
            },
            Entry::Assistant {
                text: "Unsure.".into(),
                reasoning: String::new(),
                tool_calls: vec![],
                finish: "stop".into(),
                reasoning_blocks: vec![],
            },
        ],
    );
    let conv = h.engine.load_conversation(ID).unwrap();
    assert_eq!(conv.next_step(), Step::Idle);
    assert_eq!(conv.uncertain_calls().len(), 1);
    let msgs = run(&h.engine, &conv, "try again");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(lines(&h.ws().join("count.txt")), 0, "not repeated");
    let refused = tool_results(&conv)
        .into_iter()
        .find(|(id, _)| id == "c9")
        .unwrap();
    assert_eq!(refused.1, REPEAT_UNCERTAIN_RESULT);
}

#[test]
fn one_writer_read_only_and_fork() {
    let server = FakeProvider::start([
        ChatStream::new().text("Forked answer.").stop().reply(),
        ChatStream::new().text("Hello.").stop().reply(),
    ]);
    let h = bypass(&server);
    write_log(&h, vec![]);
    let first = h.engine.load_conversation(ID).unwrap();
    match h.engine.load_conversation(ID) {
        Err(EngineError::Locked { holder, .. }) => {
            assert!(holder.contains("pid"), "{holder}")
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    let viewer = h.engine.open_read_only(ID).unwrap();
    assert!(viewer.is_read_only());
    assert_eq!(viewer.messages(), first.messages());
    let msgs = run(&h.engine, &viewer, "may I?");
    assert_eq!(kind_of(&msgs), ErrorKind::Session);
    assert!(message_of(&msgs).contains("read-only"), "{msgs:?}");
    let fork = h.engine.fork_conversation(ID).unwrap();
    assert_ne!(fork.id(), ID);
    assert_eq!(fork.forked_from().unwrap().session, ID);
    assert!(is_done(&run(&h.engine, &fork, "go on")));
    let fresh = h.engine.new_conversation();
    assert!(is_done(&run(&h.engine, &fresh, "hi")));
    let ctx = fresh.context();
    assert_eq!(Path::new(&ctx.workspace), h.engine.workspace());
    assert!(ctx.tools.iter().any(|t| t == "shell_exec"), "{ctx:?}");
    let log = read_log(&fork.log_path().unwrap()).unwrap();
    assert!(matches!(
        &log.records[0].entry,
        Entry::Meta { forked_from: Some(o), .. } if o.session == ID
    ));
    // The source is untouched by the fork's turn.
    drop(first);
    let source = read_log(&h.sessions_dir().join(format!("{ID}.jsonl"))).unwrap();
    assert_eq!(source.records.len(), 3);
}

#[test]
fn loading_ends_what_an_interrupted_call_left_running() {
    let server = FakeProvider::start([]);
    let h = bypass(&server);
    let tag = ai_tools::run_tag::RunTag::new();
    // A crashed run's child, still carrying its run's tag.
    let mut stray = std::process::Command::new("sleep")
        .arg("30")
        .env(ai_tools::run_tag::RUN_TAG_VAR, tag.value())
        .spawn()
        .unwrap();
    // `spawn` returns once the child is in `execve`, before the kernel has
    // laid out its new environment: until then /proc shows it empty, and
    // no scan could find the tag. A stray from a crashed run is long past
    // that; wait until this one is too.
    let needle = format!("{}={}", ai_tools::run_tag::RUN_TAG_VAR, tag.value());
    let environ = format!("/proc/{}/environ", stray.id());
    let shows_tag = || {
        std::fs::read(&environ)
            .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == needle.as_bytes()))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !shows_tag() {
        assert!(
            std::time::Instant::now() < deadline,
            "the stray never showed its tag"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let sh = call(
        "c2",
        "shell_exec",
        serde_json::json!({"command": "sleep 30"}),
    );
    write_log(
        &h,
        vec![
            assistant(std::slice::from_ref(&sh)),
            Entry::ToolStart {
                call_id: sh.id.clone(),
                name: sh.name.clone(),
                arguments: sh.arguments.clone(),
                proof: StartProof::Unproven,
                run_tag: Some(tag.value().to_string()),
            },
        ],
    );
    let conv = h.engine.load_conversation(ID).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = stray.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the stray lives on");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!status.success());
    let notes = conv.resume_notes(h.engine.workspace());
    assert!(
        notes
            .iter()
            .any(|n| n.contains("ended 1 process(es)") && n.contains("c2")),
        "{notes:?}"
    );
    // Still uncertain: ending its processes decides nothing.
    assert_eq!(conv.uncertain_calls().len(), 1);
}
