use super::*;

/// One of every event and op, with every optional field both ways.
fn every_event() -> Vec<Event> {
    let s = |t: &str| t.to_string();
    vec![
        Event::Session {
            id: s("20260101-000000-abcdef"),
            resumed: true,
            provider: s("openai"),
            model: s("m"),
            mode: s("default"),
        },
        Event::AssistantStart,
        Event::Token { text: s("hi\n") },
        Event::Reasoning { text: s("hmm") },
        Event::ToolStart {
            id: s("c1"),
            name: s("fs_read"),
            args_preview: s(r#"{"path":"a"}"#),
            summary: s("a"),
        },
        Event::ToolProgress {
            id: s("c1"),
            text: s("3/10"),
        },
        Event::ToolDone {
            id: s("c1"),
            preview: s("read 1 line"),
        },
        Event::ToolFailed {
            id: s("c1"),
            error: s("no such file"),
        },
        Event::Subagent {
            parent: s("e1"),
            step: SubagentStep::Round { round: 1 },
        },
        Event::Subagent {
            parent: s("e1"),
            step: SubagentStep::ToolStart {
                id: s("r1"),
                name: s("fs_read"),
                summary: s("a"),
            },
        },
        Event::Subagent {
            parent: s("e1"),
            step: SubagentStep::ToolDone {
                id: s("r1"),
                preview: s("ok"),
            },
        },
        Event::Subagent {
            parent: s("e1"),
            step: SubagentStep::ToolFailed {
                id: s("r1"),
                error: s("refused"),
            },
        },
        Event::Subagent {
            parent: s("e1"),
            step: SubagentStep::Finished {
                summary: s("explore: 1 round"),
            },
        },
        Event::ApprovalAsked {
            id: Some(s("c2")),
            summary: s("rm x"),
            detail: s("writes"),
        },
        Event::ApprovalAsked {
            id: None,
            summary: s("rm x"),
            detail: s("writes"),
        },
        Event::ApprovalDecided {
            id: Some(s("c2")),
            approved: false,
            by: DecidedBy::NoTty,
        },
        Event::Uncertain {
            session: s("s"),
            id: s("c3"),
            name: s("shell_exec"),
            arguments: s("{}"),
            started_at: s("2026-01-01T00:00:00Z"),
        },
        Event::Usage {
            input: 10,
            cached_input: 5,
            output: 3,
            reasoning: 1,
        },
        Event::Compaction {
            outcome: CompactionOutcome::Summarised,
            bytes_before: Some(100),
            bytes_after: Some(10),
            message: s("summarised"),
        },
        Event::Compaction {
            outcome: CompactionOutcome::Nothing,
            bytes_before: None,
            bytes_after: None,
            message: s("nothing"),
        },
        Event::Goal {
            status: GoalStatus::CheckFailed,
            message: s("check failed"),
            objective: None,
            check: None,
        },
        Event::Goal {
            status: GoalStatus::Active,
            message: s("goal: tests pass"),
            objective: Some(s("tests pass")),
            check: Some(s("cargo test")),
        },
        Event::Notice { text: s("note") },
        Event::Done,
        Event::Error {
            kind: ErrorKind::RetriesExhausted,
            message: s("gave up"),
        },
    ]
}

fn every_op() -> Vec<Op> {
    vec![
        Op::Submit { text: "hi".into() },
        Op::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Approve,
        },
        Op::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny,
        },
        Op::Cancel,
        Op::Decide {
            call_id: "c3".into(),
            decision: UncertainDecision::Rerun,
        },
        Op::Decide {
            call_id: "c3".into(),
            decision: UncertainDecision::Abandon,
        },
        Op::Compact,
    ]
}

#[test]
fn every_event_round_trips_through_its_line() {
    for event in every_event() {
        let line = event.to_line();
        assert_eq!(Event::from_line(&line).unwrap(), event, "{line}");
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["v"], SCHEMA_VERSION, "{line}");
    }
}

#[test]
fn every_op_round_trips() {
    for op in every_op() {
        let json = serde_json::to_string(&op).unwrap();
        assert_eq!(serde_json::from_str::<Op>(&json).unwrap(), op, "{json}");
    }
}

#[test]
fn lines_keep_their_version_one_shape() {
    assert_eq!(
        Event::Token {
            text: "hi\n".into()
        }
        .to_line(),
        r#"{"v":1,"type":"token","text":"hi\n"}"#
    );
    assert_eq!(Event::Done.to_line(), r#"{"v":1,"type":"done"}"#);
    assert_eq!(
        Event::ApprovalDecided {
            id: None,
            approved: false,
            by: DecidedBy::NoTty,
        }
        .to_line(),
        r#"{"v":1,"type":"approval_decided","id":null,"approved":false,"by":"no_tty"}"#
    );
    assert_eq!(
        serde_json::to_string(&Op::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny
        })
        .unwrap(),
        r#"{"op":"approve","call_id":"c1","decision":"deny"}"#
    );
    assert!(Event::from_line(r#"{"v":2,"type":"done"}"#).is_err());
    assert!(Event::from_line(r#"{"v":1,"type":"token","text":"a","x":1}"#).is_err());
}

#[test]
fn no_control_character_is_left_raw_and_the_text_round_trips() {
    let text: String = (0u32..0x100).filter_map(char::from_u32).collect();
    let l = Event::Token { text: text.clone() }.to_line();
    assert!(!l.chars().any(char::is_control), "{l:?}");
    assert_eq!(Event::from_line(&l).unwrap(), Event::Token { text });
}

#[test]
fn the_schema_has_one_branch_per_event_each_with_the_version() {
    let schema = event_schema();
    let branches = schema["oneOf"].as_array().unwrap();
    let mut types: Vec<&str> = branches
        .iter()
        .map(|b| b["properties"]["type"]["const"].as_str().unwrap())
        .collect();
    types.sort_unstable();
    types.dedup();
    assert_eq!(types.len(), 18, "{types:?}");
    for b in branches {
        assert_eq!(b["properties"]["v"]["const"], SCHEMA_VERSION, "{b}");
        assert_eq!(b["required"][0], "v", "{b}");
    }
    assert!(!schema.to_string().contains("\"format\""));
    assert!(op_schema()["oneOf"].as_array().unwrap().len() >= 5);
}
