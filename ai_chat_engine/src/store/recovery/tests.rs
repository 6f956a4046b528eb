//! Every prefix of several recorded sessions is a case: a crash can leave
//! the log cut after any record, and for each cut the planner must name
//! the one safe step.

use super::*;
use crate::store::session_log::{Decider, StartProof};

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: format!(r#"{{"id":"{id}"}}"#),
    }
}

fn rec(i: usize, entry: Entry) -> Record {
    Record {
        id: format!("e{i}"),
        ts: format!("2026-01-01T00:00:{i:02}.000Z"),
        entry,
    }
}

fn meta() -> Entry {
    Entry::Meta {
        session: "s".into(),
        cwd: "/w".into(),
        provider: "openai".into(),
        model: "m".into(),
        format: crate::store::session_log::LOG_FORMAT,
        forked_from: None,
    }
}

fn user(t: &str) -> Entry {
    Entry::User {
        text: t.into(),
        attachments: vec![],
        images: vec![],
    }
}

fn draft(round: usize) -> Entry {
    Entry::Draft { round }
}

fn answer(calls: &[ToolCall]) -> Entry {
    Entry::Assistant {
        text: String::new(),
        reasoning: String::new(),
        tool_calls: calls.to_vec(),
        finish: if calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
        .into(),
        reasoning_blocks: vec![],
    }
}

fn start(c: &ToolCall, proof: StartProof) -> Entry {
    Entry::ToolStart {
        call_id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
        proof,
        run_tag: Some(format!("tag-{}", c.id)),
    }
}

fn result(c: &ToolCall) -> Entry {
    Entry::ToolResult {
        call_id: c.id.clone(),
        name: c.name.clone(),
        is_error: false,
        for_model: "ok".into(),
        full: "ok".into(),
    }
}

fn asked(c: &ToolCall) -> Entry {
    Entry::ApprovalAsked {
        call_id: c.id.clone(),
        summary: format!("run {}", c.name),
    }
}

fn decided(c: &ToolCall, approved: bool) -> Entry {
    Entry::ApprovalDecided {
        call_id: c.id.clone(),
        approved,
        by: Decider::User,
    }
}

fn choose(c: &ToolCall, decision: UncertainDecision) -> Entry {
    Entry::UncertainDecided {
        call_id: c.id.clone(),
        decision,
    }
}

fn end() -> Entry {
    Entry::TurnEnd {
        outcome: "done".into(),
    }
}

fn run(calls: &[(&ToolCall, bool, bool)]) -> Step {
    Step::RunCalls(
        calls
            .iter()
            .map(|(c, approved, rerun)| PendingCall {
                call: (*c).clone(),
                approved: *approved,
                rerun: *rerun,
            })
            .collect(),
    )
}

/// The uncertain step for `calls`, each started at record index `at`.
fn uncertain(calls: &[(&ToolCall, usize)]) -> Step {
    Step::ResolveUncertain(
        calls
            .iter()
            .map(|(c, at)| UncertainCall {
                call: (*c).clone(),
                started_at: format!("2026-01-01T00:00:{at:02}.000Z"),
                run_tag: Some(format!("tag-{}", c.id)),
            })
            .collect(),
    )
}

/// Checks the planner after every prefix: `session[i].1` is the step
/// expected once records `0..=i` are on disk.
fn check(session: Vec<(Entry, Step)>) {
    let mut records = Vec::new();
    // An empty log (a crash before the meta line was synced) is idle.
    assert_eq!(plan(&records), Step::Idle);
    for (i, (entry, want)) in session.into_iter().enumerate() {
        records.push(rec(i, entry));
        assert_eq!(
            plan(&records),
            want,
            "after record {i} ({:?})",
            records[i].entry
        );
    }
}

#[test]
fn an_edit_then_a_slow_command() {
    let edit = call("c1", "fs_patch");
    let sh = call("c2", "shell_exec");
    check(vec![
        (meta(), Step::Idle),
        (Entry::Environment { text: "env".into() }, Step::Idle),
        (user("edit then build"), Step::CallModel),
        (draft(1), Step::DiscardDraft),
        (
            answer(std::slice::from_ref(&edit)),
            run(&[(&edit, false, false)]),
        ),
        (asked(&edit), Step::AskAgain(edit.clone())),
        (decided(&edit, true), run(&[(&edit, true, false)])),
        (start(&edit, StartProof::Unproven), uncertain(&[(&edit, 7)])),
        (result(&edit), Step::CallModel),
        (
            Entry::Usage {
                model: "m".into(),
                input: 1,
                cached_input: 0,
                output: 1,
                reasoning: 0,
            },
            Step::CallModel,
        ),
        (draft(2), Step::DiscardDraft),
        (
            answer(std::slice::from_ref(&sh)),
            run(&[(&sh, false, false)]),
        ),
        (start(&sh, StartProof::Unproven), uncertain(&[(&sh, 12)])),
        (result(&sh), Step::CallModel),
        (draft(3), Step::DiscardDraft),
        (answer(&[]), Step::Idle),
        (end(), Step::Idle),
        (
            Entry::Title {
                text: "build".into(),
            },
            Step::Idle,
        ),
    ]);
}

#[test]
fn a_read_only_call_interrupted_runs_again_but_an_unproven_one_waits() {
    let read = call("r1", "fs_read");
    let grep = call("r2", "grep");
    let sh = call("s1", "shell_exec");
    check(vec![
        (meta(), Step::Idle),
        (user("look around"), Step::CallModel),
        (draft(1), Step::DiscardDraft),
        (Entry::DraftDiscarded, Step::CallModel),
        (draft(1), Step::DiscardDraft),
        (
            answer(&[read.clone(), grep.clone(), sh.clone()]),
            run(&[
                (&read, false, false),
                (&grep, false, false),
                (&sh, false, false),
            ]),
        ),
        (
            start(&read, StartProof::ReadOnly),
            run(&[
                (&read, false, true),
                (&grep, false, false),
                (&sh, false, false),
            ]),
        ),
        (
            start(&grep, StartProof::ReadOnly),
            run(&[
                (&read, false, true),
                (&grep, false, true),
                (&sh, false, false),
            ]),
        ),
        (
            result(&grep),
            run(&[(&read, false, true), (&sh, false, false)]),
        ),
        (result(&read), run(&[(&sh, false, false)])),
        (start(&sh, StartProof::Unproven), uncertain(&[(&sh, 10)])),
        (result(&sh), Step::CallModel),
    ]);
}

#[test]
fn rerun_and_abandon_decisions() {
    let a = call("a", "shell_exec");
    let b = call("b", "fs_write");
    check(vec![
        (meta(), Step::Idle),
        (user("two effects"), Step::CallModel),
        (
            answer(&[a.clone(), b.clone()]),
            run(&[(&a, false, false), (&b, false, false)]),
        ),
        (start(&a, StartProof::Unproven), uncertain(&[(&a, 3)])),
        // Crash: the user chooses to rerun a.
        (
            choose(&a, UncertainDecision::Rerun),
            run(&[(&a, true, true), (&b, false, false)]),
        ),
        (start(&a, StartProof::Unproven), uncertain(&[(&a, 5)])),
        // Crashed again during the rerun: this time, abandon.
        (
            choose(&a, UncertainDecision::Abandon),
            Step::Close {
                call: a.clone(),
                reason: CloseReason::Abandoned,
            },
        ),
        (result(&a), run(&[(&b, false, false)])),
        (asked(&b), Step::AskAgain(b.clone())),
        (
            decided(&b, false),
            Step::Close {
                call: b.clone(),
                reason: CloseReason::Denied,
            },
        ),
        (result(&b), Step::CallModel),
        (draft(2), Step::DiscardDraft),
        (answer(&[]), Step::Idle),
    ]);
}

#[test]
fn an_earlier_call_runs_before_a_later_approval_is_asked_again() {
    let first = call("f", "fs_read");
    let second = call("s", "shell_exec");
    let third = call("t", "fs_list");
    check(vec![
        (meta(), Step::Idle),
        (user("q"), Step::CallModel),
        (
            answer(&[first.clone(), second.clone(), third.clone()]),
            run(&[
                (&first, false, false),
                (&second, false, false),
                (&third, false, false),
            ]),
        ),
        // The read-only call waits in a batch while the next one asks.
        (asked(&second), run(&[(&first, false, false)])),
        (
            start(&first, StartProof::ReadOnly),
            run(&[(&first, false, true)]),
        ),
        (result(&first), Step::AskAgain(second.clone())),
        (
            decided(&second, true),
            run(&[(&second, true, false), (&third, false, false)]),
        ),
        (
            start(&second, StartProof::Unproven),
            uncertain(&[(&second, 7)]),
        ),
        (result(&second), run(&[(&third, false, false)])),
        (result(&third), Step::CallModel),
        (
            Entry::TurnEnd {
                outcome: "cancelled".into(),
            },
            Step::Idle,
        ),
    ]);
}

#[test]
fn a_format_one_log_that_went_on_leaves_a_legacy_uncertain_call() {
    let rm = call("k1", "shell_exec");
    let ls = call("k2", "fs_list");
    let records: Vec<Record> = vec![
        meta(),
        user("delete the cache"),
        answer(&[rm.clone(), ls]),
        start(&rm, StartProof::Unproven),
        user("what happened?"),
        answer(&[]),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, e)| rec(i, e))
    .collect();
    // The first four records alone block on the uncertain call.
    assert_eq!(plan(&records[..4]), uncertain(&[(&rm, 3)]));
    // Once a format-1 log went on, the round is closed: idle, but the
    // call stays unresolved (the model may not issue it again) until the
    // user decides.
    assert_eq!(plan(&records), Step::Idle);
    let open = unresolved_uncertain(&records);
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].call, rm);
    let mut decided = records;
    decided.push(rec(6, choose(&rm, UncertainDecision::Abandon)));
    assert!(unresolved_uncertain(&decided).is_empty());
    assert_eq!(plan(&decided), Step::Idle);
}

#[test]
fn two_turns_with_a_wrap_up_notice_a_summary_and_a_cancel() {
    let grep = call("g1", "grep");
    let sh = call("s1", "shell_exec");
    check(vec![
        (meta(), Step::Idle),
        (user("first"), Step::CallModel),
        (draft(1), Step::DiscardDraft),
        (answer(&[]), Step::Idle),
        (end(), Step::Idle),
        (user("second"), Step::CallModel),
        (
            Entry::Summary {
                text: "so far".into(),
                keep_from: 2,
                method: crate::store::session_log::CompactionMethod::Summary,
                trigger: None,
                bytes_before: 0,
                bytes_after: 0,
            },
            Step::CallModel,
        ),
        (draft(1), Step::DiscardDraft),
        (
            answer(&[grep.clone(), sh.clone()]),
            run(&[(&grep, false, false), (&sh, false, false)]),
        ),
        (
            start(&grep, StartProof::ReadOnly),
            run(&[(&grep, false, true), (&sh, false, false)]),
        ),
        (result(&grep), run(&[(&sh, false, false)])),
        (start(&sh, StartProof::Unproven), uncertain(&[(&sh, 11)])),
        // Cancelled: the runner gives it a result, then the turn ends.
        (result(&sh), Step::CallModel),
        (
            Entry::TurnEnd {
                outcome: "cancelled".into(),
            },
            Step::Idle,
        ),
        (
            Entry::Notice {
                text: "cwd changed".into(),
            },
            Step::Idle,
        ),
        (user("third"), Step::CallModel),
        (
            Entry::Notice {
                text: "wrap up".into(),
            },
            Step::CallModel,
        ),
        (draft(20), Step::DiscardDraft),
        (answer(&[]), Step::Idle),
    ]);
}

#[test]
fn a_paused_round_waits_for_the_model_until_one_answers() {
    let paused = Entry::Assistant {
        text: "Searching.".into(),
        reasoning: String::new(),
        tool_calls: vec![],
        finish: crate::model::providers::anthropic::PAUSE_TURN.into(),
        reasoning_blocks: vec![],
    };
    check(vec![
        (meta(), Step::Idle),
        (user("search"), Step::CallModel),
        (draft(1), Step::DiscardDraft),
        (paused.clone(), Step::CallModel),
        (draft(2), Step::DiscardDraft),
        (paused, Step::CallModel),
        (answer(&[]), Step::Idle),
        (end(), Step::Idle),
    ]);
}
