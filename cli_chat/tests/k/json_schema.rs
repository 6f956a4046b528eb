//! `k --json` against its schema (`cli_chat/schema/k-json.schema.json`),
//! which is generated from `koi_protocol::Event`: the file must be what
//! the type generates, every line of real runs that produce each kind of
//! event must validate, the schema must name every event the README
//! documents, and a line that breaks it must be caught.

use koi_testkit::json_schema::check;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;
use serde_json::{json, Value};

use crate::common::{cut_stream, look_around_server, Home, Run};

const SCHEMA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/k-json.schema.json");

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(SCHEMA_FILE).unwrap()).unwrap()
}

#[test]
fn the_schema_file_is_the_one_the_protocol_generates() {
    let generated = koi_protocol::event_schema();
    let text = format!("{}\n", serde_json::to_string_pretty(&generated).unwrap());
    if std::env::var_os("KOI_UPDATE_SCHEMA").is_some() {
        std::fs::write(SCHEMA_FILE, &text).unwrap();
    }
    assert!(
        schema() == generated,
        "{SCHEMA_FILE} is not what koi_protocol::Event generates: run \
         KOI_UPDATE_SCHEMA=1 cargo test -p cli_chat --test k json_schema"
    );
}

/// Checks every line of `run` against the schema; returns their types.
fn validate(run: &Run) -> Vec<String> {
    let schema = schema();
    run.events()
        .iter()
        .map(|e| {
            let errors = check(&schema, e);
            assert!(
                errors.is_empty(),
                "{e} breaks the schema:\n{}",
                errors.join("\n")
            );
            e["type"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn every_line_of_a_tool_turn_and_a_failed_turn_follows_the_schema() {
    let server = look_around_server();
    let home = Home::new(Some(&server));
    let run = home.run(&["--json", "--mode", "default", "look around"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let mut seen = validate(&run);
    // The requests that run caused: the question, then both results.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let second = reqs[1].body_str();
    assert!(
        second.contains("call_1") && second.contains("call_2"),
        "{second}"
    );

    // A stream cut mid-answer ends with an `error` line.
    let server = FakeProvider::start([cut_stream()]);
    let home = Home::new(Some(&server));
    let run = home.run(&["--json", "hi"], None);
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    seen.extend(validate(&run));
    assert_eq!(server.request_count(), 1);

    for t in [
        "session",
        "assistant_start",
        "reasoning",
        "tool_start",
        "tool_done",
        "approval_asked",
        "approval_decided",
        "tool_failed",
        "usage",
        "token",
        "done",
        "error",
    ] {
        assert!(seen.iter().any(|s| s == t), "no {t} line in {seen:?}");
    }
}

#[test]
fn the_schema_names_every_documented_event_and_catches_a_broken_line() {
    let schema = schema();
    let defined: Vec<&str> = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["properties"]["type"]["const"].as_str().unwrap())
        .collect();
    let readme = include_str!("../../README.md");
    let table = &readme[readme.find("## `--json` event schema").unwrap()..];
    let table = &table[..table.find("\n\n`error.kind`").unwrap()];
    let documented: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    assert!(documented.len() > 10, "{documented:?}");
    for t in &documented {
        assert!(
            defined.iter().any(|d| d == t),
            "{t} is documented, not in the schema"
        );
    }
    for d in &defined {
        assert!(
            documented.contains(d),
            "{d} is in the schema, not documented"
        );
    }
    // Every error kind the schema allows is documented, and no other.
    let kinds: Vec<&str> = schema["$defs"]["ErrorKind"]["oneOf"]
        .as_array()
        .map(|b| b.iter().filter_map(|k| k["const"].as_str()).collect())
        .unwrap_or_else(|| {
            schema["$defs"]["ErrorKind"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect()
        });
    let listed = &readme[readme.find("`error.kind` is one of").unwrap()..];
    let listed = &listed[..listed.find("\n\n").unwrap()];
    // The kinds, with the notes in parentheses left out.
    let mut depth = 0;
    let listed: String = listed
        .chars()
        .filter(|&c| {
            depth += i32::from(c == '(') - i32::from(c == ')');
            depth == 0 && c != ')'
        })
        .collect();
    let listed: Vec<&str> = listed.split('`').skip(3).step_by(2).collect();
    let (mut a, mut b) = (kinds.clone(), listed.clone());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "error kinds in the schema vs the README");

    // Field by field: a missing field, a wrong type, an extra field, a
    // value outside its enum and a wrong version are each caught.
    let good =
        json!({"v": 1, "type": "approval_decided", "id": "c1", "approved": true, "by": "user"});
    assert_eq!(check(&schema, &good), Vec::<String>::new());
    let broken = [
        json!({"v": 1, "type": "approval_decided", "id": "c1", "by": "user"}),
        json!({"v": 1, "type": "approval_decided", "id": "c1", "approved": "yes", "by": "user"}),
        json!({"v": 1, "type": "approval_decided", "id": "c1", "approved": true, "by": "user", "x": 1}),
        json!({"v": 1, "type": "approval_decided", "id": "c1", "approved": true, "by": "robot"}),
        json!({"v": 2, "type": "approval_decided", "id": "c1", "approved": true, "by": "user"}),
        json!({"v": 1, "type": "usage", "input": -1, "cached_input": 0, "output": 0, "reasoning": 0}),
        json!({"v": 1, "type": "no_such_event"}),
    ];
    for line in broken {
        assert!(!check(&schema, &line).is_empty(), "{line} passed");
    }
}

/// The brief every explore child's request starts with
/// (ai_chat_engine/src/explore): how the fake model tells child from parent.
const CHILD_MARK: &str = "You are a read-only helper";

#[test]
fn an_explore_call_streams_its_subagent_steps_in_the_schema() {
    let server = FakeProvider::start_with(4, |req, _| {
        let body = req.body_str();
        let answered = body.contains("\"role\":\"tool\"");
        match (body.contains(CHILD_MARK), answered) {
            (false, false) => ChatStream::new()
                .tool_call("e1", "explore", r#"{"task":"what does a.txt say?"}"#)
                .tool_calls()
                .reply(),
            (false, true) => ChatStream::new().text("It says hello.").stop().reply(),
            (true, false) => ChatStream::new()
                .tool_call("r1", "fs_read", r#"{"path":"a.txt"}"#)
                .tool_calls()
                .reply(),
            (true, true) => ChatStream::new()
                .text("a.txt greets the reader.")
                .stop()
                .reply(),
        }
    });
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("a.txt"), "hello\n").unwrap();
    let run = home.run(&["--json", "summarise a.txt"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let seen = validate(&run);
    assert!(seen.iter().any(|t| t == "subagent"), "{seen:?}");

    // The child's own steps, in order, all for the parent's call.
    let events = run.events();
    let steps: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "subagent")
        .inspect(|e| assert_eq!(e["parent"], "e1", "{e}"))
        .map(|e| &e["step"])
        .collect();
    let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["round", "tool_start", "tool_done", "round", "finished"],
        "{steps:?}"
    );
    assert_eq!(steps[1]["name"], "fs_read");
    // Only the child's answer reached the parent's next request.
    let last = server.requests().pop().unwrap().body_str();
    assert!(last.contains("a.txt greets the reader."), "{last}");
    assert!(!last.contains("\"r1\""), "{last}");
}
