//! The `explore` subagent: a scripted parent and child on the loopback
//! provider. Child requests are told apart by the brief they start with;
//! the handler answers each by what it asks.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use ai_chat_engine::{EngineError, Event, Message, SubagentStep, UserInput};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, RecordedRequest, Reply};

use crate::common::*;

/// How every child request begins (the brief's first words).
const CHILD_MARK: &str = "You are a read-only helper";

fn is_child(req: &RecordedRequest) -> bool {
    req.body_str().contains(CHILD_MARK)
}

/// The `role: tool` messages of a request, in order.
fn tool_results(req: &RecordedRequest) -> Vec<String> {
    req.json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn tool_names(req: &RecordedRequest) -> Vec<String> {
    req.json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn explore_call(id: &str, task: &str) -> (String, String) {
    (
        id.to_string(),
        serde_json::json!({ "task": task }).to_string(),
    )
}

/// A parent round asking for these explores.
fn parent_calls(calls: &[(String, String)]) -> Reply {
    let mut s = ChatStream::new();
    for (id, args) in calls {
        s = s.tool_call(id, "explore", args);
    }
    s.tool_calls().reply()
}

fn text_reply(text: &str) -> Reply {
    ChatStream::new()
        .text(text)
        .stop()
        .usage(100, 0, 20)
        .reply()
}

/// The subagent steps nested under `parent`, in order.
fn steps_of<'a>(msgs: &'a [Event], parent: &str) -> Vec<&'a SubagentStep> {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Subagent { parent: p, step } if p == parent => Some(step),
            _ => None,
        })
        .collect()
}

fn tool_result_count(conv: &ai_chat_engine::Conversation) -> usize {
    conv.messages()
        .iter()
        .filter(|m| matches!(m, Message::ToolResult { .. }))
        .count()
}

#[test]
fn only_the_answer_enters_the_parent() {
    let server = FakeProvider::start_with(4, |req, _| {
        let results = tool_results(req);
        match (is_child(req), results.len()) {
            (false, 0) => parent_calls(&[explore_call("e1", "what does a.txt say?")]),
            (false, _) => text_reply("It says hello."),
            (true, 0) => ChatStream::new()
                .tool_call("r1", "fs_read", r#"{"path":"a.txt"}"#)
                .tool_calls()
                .usage(300, 0, 10)
                .reply(),
            (true, _) => text_reply("a.txt line 1 greets the reader."),
        }
    });
    let h = harness(&server);
    std::fs::write(h.ws().join("a.txt"), "hello FILE-BODY-MARKER\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "summarise a.txt");
    assert!(is_done(&msgs), "{msgs:?}");

    // Exactly one tool result: the child's answer and its totals.
    assert_eq!(tool_result_count(&conv), 1);
    let history = conv.messages();
    let Some(Message::ToolResult {
        call_id, content, ..
    }) = history
        .iter()
        .find(|m| matches!(m, Message::ToolResult { .. }))
    else {
        unreachable!()
    };
    assert_eq!(call_id, "e1");
    assert!(
        content.contains("a.txt line 1 greets the reader."),
        "{content}"
    );
    assert!(
        content.contains("[explore: 2 rounds, 1 tool call, 400 input + 30 output tokens]"),
        "{content}"
    );

    // The file went to the child, never to the parent or the log.
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let (children, parents): (Vec<_>, Vec<_>) = requests.iter().partition(|r| is_child(r));
    assert!(tool_results(children[1])[0].contains("FILE-BODY-MARKER"));
    assert!(parents
        .iter()
        .all(|r| !r.body_str().contains("FILE-BODY-MARKER")));
    let log =
        std::fs::read_to_string(h.sessions_dir().join(format!("{}.jsonl", conv.id()))).unwrap();
    assert!(!log.contains("FILE-BODY-MARKER"));
    assert!(log.contains("a.txt line 1 greets the reader."));

    // Same model and system prompt; the child's tools only read.
    let (parent, child) = (parents[0].json(), children[0].json());
    assert_eq!(parent["model"], child["model"]);
    assert_eq!(parent["messages"][0], child["messages"][0]);
    assert!(tool_names(parents[0]).contains(&"explore".to_string()));
    let child_tools = tool_names(children[0]);
    for read in ["fs_read", "fs_list", "grep_search", "shell_exec"] {
        assert!(child_tools.contains(&read.to_string()), "{child_tools:?}");
    }
    for banned in [
        "explore",
        "fs_write",
        "fs_patch",
        "fs_delete",
        "shell_bg",
        "http_request",
    ] {
        assert!(
            !child_tools.contains(&banned.to_string()),
            "{child_tools:?}"
        );
    }

    // The steps arrive nested under the parent call, ending with the totals.
    let steps = steps_of(&msgs, "e1");
    assert!(matches!(steps[0], SubagentStep::Round { round: 1 }));
    assert!(steps
        .iter()
        .any(|s| matches!(s, SubagentStep::ToolStart { name, .. } if name == "fs_read")));
    assert!(steps
        .iter()
        .any(|s| matches!(s, SubagentStep::ToolDone { id, .. } if id == "r1")));
    let Some(SubagentStep::Finished { summary }) = steps.last() else {
        panic!("{steps:?}")
    };
    // Answered (no reason it stopped), after two rounds and one call.
    assert!(
        summary.starts_with("explore: 2 rounds, 1 tool call,") && !summary.contains(';'),
        "{summary}"
    );
}

#[test]
fn a_child_that_asks_for_a_write_is_refused() {
    let server = FakeProvider::start_with(4, |req, _| {
        let results = tool_results(req);
        match (is_child(req), results.len()) {
            (false, 0) => parent_calls(&[explore_call("e1", "tidy up")]),
            (false, _) => text_reply("done"),
            (true, 0) => ChatStream::new()
                .tool_call(
                    "w1",
                    "fs_write",
                    r#"{"path":"a.txt","content":"gone\n","expected_revision":"absent"}"#,
                )
                .tool_call("w2", "shell_exec", r#"{"command":"touch made.txt"}"#)
                .tool_call("w3", "fs_delete", r#"{"path":"a.txt"}"#)
                .tool_call("r1", "shell_exec", r#"{"command":"cat a.txt"}"#)
                .tool_calls()
                .reply(),
            (true, _) => text_reply("I could only read."),
        }
    });
    // Bypass: the parent could write without asking; its child still cannot.
    let h = harness_with(&server, ai_chat_engine::ProviderKind::OpenAi, |o| {
        o.mode = Some(ai_tools::Mode::Bypass);
    });
    std::fs::write(h.ws().join("a.txt"), "keep me\n").unwrap();
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "tidy up");
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(
        std::fs::read_to_string(h.ws().join("a.txt")).unwrap(),
        "keep me\n"
    );
    assert!(!h.ws().join("made.txt").exists());
    assert_eq!(
        count(&msgs, |m| matches!(m, Event::ApprovalAsked { .. })),
        0
    );

    let requests = server.requests();
    let second_child = requests.iter().filter(|r| is_child(r)).nth(1).unwrap();
    let results = tool_results(second_child);
    assert_eq!(results.len(), 4);
    assert!(
        results[0].contains("not one of your tools"),
        "{}",
        results[0]
    );
    assert!(results[1].starts_with("denied:"), "{}", results[1]);
    assert!(
        results[2].contains("not one of your tools"),
        "{}",
        results[2]
    );
    // A proven read-only command runs, sandboxed as shell_exec runs it.
    assert!(results[3].contains("keep me"), "{}", results[3]);

    let steps = steps_of(&msgs, "e1");
    let failed: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            SubagentStep::ToolFailed { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(failed, ["w1", "w2", "w3"]);
    assert_eq!(tool_result_count(&conv), 1);
}

#[test]
fn explore_cannot_run_inside_explore() {
    let server = FakeProvider::start_with(4, |req, _| {
        let results = tool_results(req);
        match (is_child(req), results.len()) {
            (false, 0) => parent_calls(&[explore_call("e1", "look around")]),
            (false, _) => text_reply("done"),
            (true, 0) => parent_calls(&[explore_call("n1", "look deeper")]),
            (true, _) => text_reply("I looked myself."),
        }
    });
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "look around");
    assert!(is_done(&msgs), "{msgs:?}");
    let requests = server.requests();
    // One child only: the nested call started none.
    let children: Vec<_> = requests.iter().filter(|r| is_child(r)).collect();
    assert_eq!(children.len(), 2);
    assert!(!children[0].body_str().contains("look deeper"));
    let results = tool_results(children[1]);
    assert!(
        results[0].contains("explore cannot run inside explore"),
        "{results:?}"
    );
    assert!(steps_of(&msgs, "e1")
        .iter()
        .any(|s| matches!(s, SubagentStep::ToolFailed { id, .. } if id == "n1")));
}

#[test]
fn cancel_stops_the_parent_and_its_child() {
    let server = FakeProvider::start_with(2, |req, _| {
        if is_child(req) {
            // A child that stalls for longer than the turn timeout: only
            // the cancel can end it in time.
            ChatStream::new()
                .text("reading slowly")
                .stop()
                .reply()
                .hang_after(1)
        } else {
            parent_calls(&[explore_call("e1", "take your time")])
        }
    });
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.submit(&conv, UserInput::text("explore slowly"));
    loop {
        let msg = rx.recv_timeout(TURN_TIMEOUT).unwrap();
        if matches!(
            msg,
            Event::Subagent {
                step: SubagentStep::Round { .. },
                ..
            }
        ) {
            break;
        }
    }
    assert!(server.wait_for_requests(2, TURN_TIMEOUT));
    cancel.cancel();
    let rest = collect(&rx);
    assert_eq!(error_of(&rest), &EngineError::Cancelled.to_event());
    // The child ended (cancelled) before the turn did.
    let finished = rest.iter().position(|m| {
        matches!(
            m,
            Event::Subagent {
                step: SubagentStep::Finished { summary },
                ..
            } if summary.ends_with("; cancelled")
        )
    });
    assert!(finished.is_some_and(|i| i + 1 < rest.len()), "{rest:?}");
    assert_eq!(server.request_count(), 2);
    let history = conv.messages();
    assert!(matches!(
        history.last(),
        Some(Message::ToolResult { is_error: true, content, .. }) if content.contains("cancelled")
    ));
}

/// Child requests arrived, and whether all three were waiting at once.
#[derive(Default)]
struct Gate {
    arrived: Mutex<usize>,
    all_in: Condvar,
}

/// Longest a child reply waits for its siblings: only reached when the
/// children do not run at the same time (then the test fails).
const SIBLING_WAIT: Duration = Duration::from_secs(10);

#[test]
fn three_explores_run_in_parallel() {
    let gate = Arc::new(Gate::default());
    let met = Arc::new(Mutex::new(false));
    let (g, m) = (Arc::clone(&gate), Arc::clone(&met));
    let server = FakeProvider::start_with(5, move |req, _| {
        let results = tool_results(req);
        if !is_child(req) {
            return if results.is_empty() {
                parent_calls(&[
                    explore_call("e1", "task-1"),
                    explore_call("e2", "task-2"),
                    explore_call("e3", "task-3"),
                ])
            } else {
                text_reply("all three answered")
            };
        }
        // Each child answers only once all three are asking: run one
        // after another, the first would wait alone.
        let mut n = g.arrived.lock().unwrap();
        *n += 1;
        g.all_in.notify_all();
        let (n, _) = g
            .all_in
            .wait_timeout_while(n, SIBLING_WAIT, |n| *n < 3)
            .unwrap();
        if *n >= 3 {
            *m.lock().unwrap() = true;
        }
        let body = req.body_str();
        let task = ["task-1", "task-2", "task-3"]
            .into_iter()
            .find(|t| body.contains(&format!("Task: {t}")))
            .unwrap();
        text_reply(&format!("answer for {task}"))
    });
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "three questions");
    assert!(is_done(&msgs), "{msgs:?}");
    assert!(
        *met.lock().unwrap(),
        "the three children never asked at once"
    );

    // Every child started before any finished.
    let index = |want: fn(&SubagentStep) -> bool| -> Vec<usize> {
        msgs.iter()
            .enumerate()
            .filter_map(|(i, m)| match m {
                Event::Subagent { step, .. } if want(step) => Some(i),
                _ => None,
            })
            .collect()
    };
    let starts = index(|s| matches!(s, SubagentStep::Round { round: 1 }));
    let ends = index(|s| matches!(s, SubagentStep::Finished { .. }));
    assert_eq!((starts.len(), ends.len()), (3, 3));
    assert!(starts.iter().max() < ends.iter().min(), "{msgs:?}");

    // One result per call, in call order.
    let results: Vec<(String, String)> = conv
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult {
                call_id, content, ..
            } => Some((call_id.clone(), content.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 3);
    for (n, (id, content)) in results.iter().enumerate() {
        assert_eq!(id, &format!("e{}", n + 1));
        assert!(
            content.contains(&format!("answer for task-{}", n + 1)),
            "{content}"
        );
    }
}

#[test]
fn a_child_that_never_answers_stops_at_its_round_limit() {
    use ai_chat_engine::budgets::EXPLORE_MAX_ROUNDS;
    let server = FakeProvider::start_with(EXPLORE_MAX_ROUNDS + 2, |req, i| {
        let results = tool_results(req);
        match (is_child(req), results.len()) {
            (false, 0) => parent_calls(&[explore_call("e1", "read forever")]),
            (false, _) => text_reply("it gave up"),
            // A fresh call id every round: ids answer one call each.
            (true, _) => ChatStream::new()
                .tool_call(&format!("r{i}"), "fs_list", "{}")
                .tool_calls()
                .reply(),
        }
    });
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "read forever");
    assert!(is_done(&msgs), "{msgs:?}");
    let requests = server.requests();
    let children: Vec<_> = requests.iter().filter(|r| is_child(r)).collect();
    assert_eq!(children.len(), EXPLORE_MAX_ROUNDS);
    // The last round was told to answer; only it was.
    let told = |r: &RecordedRequest| r.body_str().contains("Your budget for this task is spent");
    assert!(told(children.last().unwrap()));
    assert_eq!(children.iter().filter(|r| told(r)).count(), 1);
    let history = conv.messages();
    let content = history
        .iter()
        .find_map(|m| match m {
            Message::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(content.contains("stopped at its round limit"), "{content}");
    assert_eq!(tool_result_count(&conv), 1);
}
