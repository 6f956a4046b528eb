//! `k --goal TEXT --check COMMAND`: turns until the check exits 0.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::{goal_turns, message_texts, Home};

#[test]
fn a_goal_runs_until_its_check_passes_and_exits_zero() {
    let server = FakeProvider::start(goal_turns());
    let home = Home::new(Some(&server));
    let run = home.run(
        &[
            "--goal",
            "create done.txt",
            "--check",
            "test -f done.txt",
            "--mode",
            "accept-edits",
            "--json",
        ],
        None,
    );
    assert_eq!(run.code, 0, "stderr: {} stdout: {}", run.stderr, run.stdout);
    // Every line, goal reports included, follows the schema generated
    // from koi_protocol::Event.
    let schema = koi_protocol::event_schema();
    for e in run.events() {
        let errors = koi_testkit::json_schema::check(&schema, &e);
        assert!(errors.is_empty(), "{e}: {errors:?}");
    }
    let statuses: Vec<String> = run
        .events()
        .iter()
        .filter(|e| e["type"] == "goal")
        .map(|e| e["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        statuses,
        ["active", "check_failed", "check_passed", "complete"]
    );
    assert!(home.ws().join("done.txt").is_file());
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let second = message_texts(&reqs[1].json(), "user");
    assert!(second
        .last()
        .unwrap()
        .contains("The check `test -f done.txt` failed"));
}

#[test]
fn a_goal_whose_budget_runs_out_fails_with_the_reason() {
    let server = FakeProvider::start([ChatStream::new().text("Trying.").stop().reply()]);
    let home = Home::new(Some(&server));
    let run = home.run(
        &[
            "--goal",
            "the impossible",
            "--check",
            "false",
            "--goal-turns",
            "1",
        ],
        None,
    );
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains("budget spent: 1 of 1 turns"),
        "{}",
        run.stderr
    );
    // Without a check there is nothing to prove a goal done.
    let run = home.run(&["--goal", "anything"], None);
    assert_eq!(run.code, 2, "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains("a goal needs a check"),
        "{}",
        run.stderr
    );
}
