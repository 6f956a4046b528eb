//! Goal mode against the strict fake provider: the runtime's check (not
//! the model) decides completion; failures pause, a spent budget or the
//! model's "cannot continue" block; a resumed session comes back paused.

use ai_chat_engine::protocol::GoalStatus;
use ai_chat_engine::store::session_log::{read_log, Entry};
use ai_chat_engine::{
    EngineError, Event, GoalBudget, GoalCommand, GoalSpec, GoalState, SlashCommand,
};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::*;

fn spec(check: &str, max_turns: u32) -> GoalSpec {
    GoalSpec {
        objective: "make the counter reach three".into(),
        check: check.into(),
        budget: GoalBudget {
            max_turns,
            ..GoalBudget::default()
        },
    }
}

fn answer(text: &str) -> koi_testkit::Reply {
    ChatStream::new()
        .text(text)
        .stop()
        .usage(100, 0, 10)
        .reply()
}

/// The goal events' statuses and messages.
fn goal_reports(msgs: &[Event]) -> Vec<(GoalStatus, String)> {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Goal {
                status, message, ..
            } => Some((*status, message.clone())),
            _ => None,
        })
        .collect()
}

fn checks(msgs: &[Event]) -> Vec<bool> {
    goal_reports(msgs)
        .into_iter()
        .filter_map(|(status, _)| match status {
            GoalStatus::CheckPassed => Some(true),
            GoalStatus::CheckFailed => Some(false),
            _ => None,
        })
        .collect()
}

/// Counts its runs in the workspace and passes from the third on.
const COUNTING_CHECK: &str = "n=$(cat .goal_n 2>/dev/null || echo 0); n=$((n+1)); \
echo $n > .goal_n; echo \"attempt $n\"; test \"$n\" -ge 3";

#[test]
fn a_three_turn_goal_completes_when_its_check_passes_on_the_third_run() {
    let server = FakeProvider::start([
        answer("I changed the counter."),
        answer("Changed it again; it must work now."),
        answer("Third change."),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, _c) = h.engine.start_goal(&conv, spec(COUNTING_CHECK, 5));
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{:?}", msgs.last());
    // The model said "it must work now" after turn 2; only the check counts.
    assert_eq!(checks(&msgs), [false, false, true]);
    let goal = conv.goal().unwrap();
    assert_eq!(goal.state, GoalState::Complete);
    assert_eq!(goal.used.turns, 3);
    assert_eq!(goal.used.tokens, 330);
    assert_eq!(
        std::fs::read_to_string(h.ws().join(".goal_n")).unwrap(),
        "3\n"
    );
    let bodies: Vec<String> = server.requests().iter().map(|r| r.body_str()).collect();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[0].contains("[goal] make the counter reach three"));
    assert!(bodies[0].contains("exits 0"));
    assert!(bodies[1].contains("attempt 1") && bodies[1].contains("exit code 1"));
    assert!(bodies[1].contains("untrusted-data"));
    assert!(bodies[2].contains("attempt 2") && !bodies[2].contains("attempt 3"));
    let log = read_log(&conv.log_path().unwrap()).unwrap().records;
    let goal_records = log
        .iter()
        .filter(|r| matches!(r.entry, Entry::Goal(_)))
        .count();
    // set, active, three checks, complete.
    assert_eq!(goal_records, 6);
}

#[test]
fn an_interrupt_pauses_the_goal_and_resume_goes_on() {
    let server = FakeProvider::start([
        answer("thinking very slowly").hang_after(2),
        answer("done now"),
    ]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, cancel) = h.engine.start_goal(&conv, spec("true", 5));
    while !matches!(rx.recv_timeout(TURN_TIMEOUT).unwrap(), Event::Token { .. }) {}
    cancel.cancel();
    let msgs = collect(&rx);
    assert_eq!(msgs.last(), Some(&EngineError::Cancelled.to_event()));
    assert!(
        matches!(conv.goal().unwrap().state, GoalState::Paused { ref reason } if reason.contains("cancelled")),
        "{:?}",
        conv.goal()
    );
    let (rx, _c) = h.engine.continue_goal(&conv);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(checks(&msgs), [true]);
    assert_eq!(conv.goal().unwrap().state, GoalState::Complete);
}

#[test]
fn a_resumed_session_brings_an_active_goal_back_paused() {
    let server = FakeProvider::start([answer("working on it")]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, _c) = h.engine.start_goal(&conv, spec("true", 5));
    assert!(is_done(&collect(&rx)));
    let (id, path) = (conv.id(), conv.log_path().unwrap());
    drop(conv);
    // koi died after the turn, before the check: the log ends there.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .position(|l| l.contains("\"type\":\"turn_end\""))
        .unwrap();
    std::fs::write(&path, lines[..=end].join("\n") + "\n").unwrap();

    let loaded = load_when_free(&h.engine, &id);
    let goal = loaded.goal().unwrap();
    assert!(
        matches!(&goal.state, GoalState::Paused { reason } if reason.contains("resumed")),
        "{goal:?}"
    );
    assert!(loaded
        .resume_notes(&h.ws())
        .iter()
        .any(|n| n.contains("goal paused")));
    // Continuing the conversation does not continue the goal.
    let (rx, _c) = h.engine.resume(&loaded);
    assert!(is_done(&collect(&rx)));
    assert_eq!(server.requests().len(), 1);
    // The pause is in the log: a second load agrees.
    drop(loaded);
    let again = load_when_free(&h.engine, &id);
    assert!(matches!(
        again.goal().unwrap().state,
        GoalState::Paused { .. }
    ));
}

#[test]
fn a_spent_budget_blocks_the_goal_with_the_reason() {
    let server = FakeProvider::start([answer("try 1"), answer("try 2")]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, _c) = h.engine.start_goal(&conv, spec("echo not yet; false", 2));
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(checks(&msgs), [false, false]);
    let state = conv.goal().unwrap().state;
    assert!(
        matches!(&state, GoalState::Blocked { reason } if reason.contains("2 of 2 turns")),
        "{state:?}"
    );
    let (status, message) = goal_reports(&msgs).pop().unwrap();
    assert_eq!(status, GoalStatus::Blocked);
    assert!(message.contains("blocked: budget spent"), "{message}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_budget_set_with_slash_goal_is_the_one_that_blocks_the_goal() {
    // One answer is scripted: under the default budget (10 turns) the
    // failed check would send a second request, which the strict fake
    // provider refuses; `--turns 1` stops after the first.
    let server = FakeProvider::start([answer("try 1")]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let line = "/goal make the counter reach three --turns 1 --check echo not yet; false";
    let SlashCommand::Goal(GoalCommand::Set {
        objective,
        check,
        limits,
    }) = SlashCommand::parse(line)
    else {
        panic!("{line:?} does not set a goal");
    };
    let spec = GoalSpec::new(&objective, check.as_deref(), limits).unwrap();
    assert_eq!(
        spec.budget,
        GoalBudget {
            max_turns: 1,
            ..GoalBudget::default()
        }
    );
    let (rx, _c) = h.engine.start_goal(&conv, spec);
    let msgs = collect(&rx);
    assert!(is_done(&msgs), "{msgs:?}");
    assert_eq!(checks(&msgs), [false]);
    let goal = conv.goal().unwrap();
    assert_eq!(goal.spec.check, "echo not yet; false");
    assert!(
        matches!(&goal.state, GoalState::Blocked { reason } if reason == "budget spent: 1 of 1 turns"),
        "{:?}",
        goal.state
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn the_model_saying_it_cannot_continue_blocks_without_a_check() {
    let server = FakeProvider::start([answer(
        "I looked around.\nGOAL BLOCKED: the counter lives on a server I cannot reach",
    )]);
    let h = harness(&server);
    let conv = h.engine.new_conversation();
    let (rx, _c) = h.engine.start_goal(&conv, spec("true", 5));
    let msgs = collect(&rx);
    assert!(is_done(&msgs));
    assert!(checks(&msgs).is_empty());
    assert!(matches!(
        conv.goal().unwrap().state,
        GoalState::Blocked { ref reason } if reason.contains("server I cannot reach")
    ));
    assert!(h.engine.clear_goal(&conv).unwrap());
    assert!(conv.goal().is_none());
}
