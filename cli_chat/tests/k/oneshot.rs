//! One-shot questions: streaming, piped input, tools, JSON, errors.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::{cut_stream, look_around_server, message_texts, Home, SECRET};

#[test]
fn streams_the_answer_to_stdout_and_exits_zero() {
    let server = FakeProvider::start([ChatStream::new()
        .text("The build fails because main is missing.")
        .stop()
        .usage(100, 40, 12)
        .reply()]);
    let home = Home::new(Some(&server));
    let run = home.run(&["why", "does", "this", "fail?"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "The build fails because main is missing.\n");
    let reqs = server.requests();
    assert_eq!(
        reqs.len(),
        1,
        "one request, no title request in one-shot mode"
    );
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    // The key goes on the wire and nowhere else.
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {SECRET}").as_str())
    );
    let users = message_texts(&reqs[0].json(), "user");
    assert!(users.last().unwrap().ends_with("why does this fail?"));
}

#[test]
fn piped_stdin_arrives_marked_untrusted() {
    let server = FakeProvider::start([ChatStream::new().text("E0308 means...").stop().reply()]);
    let home = Home::new(Some(&server));
    let input = "error[E0308]: mismatched types\n --> src/main.rs:2:5\n";
    let run = home.run(&["explain the first error"], Some(input));
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let users = message_texts(&server.requests()[0].json(), "user");
    let last = users.last().unwrap();
    assert!(
        last.starts_with("<untrusted-data kind=\"command-output\""),
        "{last}"
    );
    assert!(last.contains("error[E0308]: mismatched types"));
    assert!(last.contains("</untrusted-data>"));
    assert!(last.ends_with("explain the first error"));

    // With a pipe and no question, k asks about the input.
    let server = FakeProvider::start([ChatStream::new().text("ok").stop().reply()]);
    let home = Home::new(Some(&server));
    let run = home.run(&[], Some("warning: unused variable `x`\n"));
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let users = message_texts(&server.requests()[0].json(), "user");
    assert!(users.last().unwrap().contains("unused variable"));
    assert!(users.last().unwrap().contains("Explain this input"));
}

#[test]
fn a_tool_call_reads_a_file() {
    let server = FakeProvider::start([
        ChatStream::new()
            .tool_call("call_1", "fs_read", r#"{"path":"notes.txt"}"#)
            .tool_calls()
            .reply(),
        ChatStream::new()
            .text("The notes say hello.")
            .stop()
            .reply(),
    ]);
    let home = Home::new(Some(&server));
    std::fs::write(home.ws().join("notes.txt"), "hello from the notes\n").unwrap();
    let run = home.run(&["what do the notes say?"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "The notes say hello.\n");
    assert!(
        run.stderr.contains("→ fs_read notes.txt\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("← read notes.txt → 1 line\n"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("← "), "{}", run.stderr);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let tool = message_texts(&reqs[1].json(), "tool");
    assert!(tool[0].contains("hello from the notes"), "{tool:?}");
}

#[test]
fn json_lines_follow_the_schema() {
    let server = look_around_server();
    let home = Home::new(Some(&server));
    // --mode default with no terminal: the request is asked and refused.
    let run = home.run(&["--json", "--mode", "default", "look around"], None);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let events = run.events();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for e in &events {
        assert_eq!(e["v"], 1, "{e}");
    }
    assert_eq!(types[0], "session");
    assert_eq!(events[0]["model"], "fake-model");
    assert_eq!(events[0]["mode"], "default");
    assert_eq!(*types.last().unwrap(), "done");
    for t in [
        "assistant_start",
        "reasoning",
        "tool_start",
        "tool_done",
        "approval_asked",
        "approval_decided",
        "tool_failed",
        "usage",
        "token",
    ] {
        assert!(types.contains(&t), "no {t} in {types:?}");
    }
    let decided = events
        .iter()
        .find(|e| e["type"] == "approval_decided")
        .unwrap();
    assert_eq!(decided["approved"], false);
    assert_eq!(decided["by"], "no_tty");
    assert_eq!(decided["id"], "call_2");
    let asked = events
        .iter()
        .find(|e| e["type"] == "approval_asked")
        .unwrap();
    // A file that does not exist yet is created, not edited.
    assert_eq!(asked["summary"], "create new.txt");
    let write = events
        .iter()
        .find(|e| e["type"] == "tool_start" && e["name"] == "fs_write")
        .unwrap();
    assert_eq!(write["summary"], "new.txt (1 line)");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "token")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Done looking.");
    assert!(!home.ws().join("new.txt").exists());
}

#[test]
fn provider_errors_are_one_clear_line_and_exit_1() {
    let server = FakeProvider::start([Reply::status(
        401,
        r#"{"error":{"message":"invalid api key"}}"#,
    )]);
    let home = Home::new(Some(&server));
    let run = home.run(&["hi"], None);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(lines[0].starts_with("k: "), "{}", lines[0]);
    assert!(lines[0].contains("401"), "{}", lines[0]);

    // A stream cut mid-answer: partial text, then Err, exit 1.
    let server = FakeProvider::start([cut_stream()]);
    let home = Home::new(Some(&server));
    let run = home.run(&["--json", "hi"], None);
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    // Text already reached the user: the request is not silently retried.
    assert_eq!(server.request_count(), 1);
    let last = run.events().pop().unwrap();
    assert_eq!(last["type"], "error");
    assert!(last["kind"].is_string() && last["message"].is_string());
}

#[test]
fn usage_and_config_errors_exit_2() {
    let home = Home::new(None);
    let run = home.run(&["--mode", "yolo", "hi"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown mode"), "{}", run.stderr);
    let run = home.run(&[], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nothing to ask"), "{}", run.stderr);
    home.write_config("[ai]\napproval_mode = \"yolo\"\n");
    let run = home.run(&["hi"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("koi.toml"), "{}", run.stderr);
    let run = home.run(&["--config", "/nonexistent/koi.toml", "hi"], None);
    assert_eq!(run.code, 2);
    let run = home.run(&["--overlay"], None);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("only inside the koi terminal"));
    let run = home.run(&["--help"], None);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Examples:") && run.stdout.contains("Exit codes"));
}

#[test]
fn config_masks_the_key_and_names_sources() {
    let server = FakeProvider::start([]);
    let home = Home::new(Some(&server));
    let cfg = format!(
        "[ai]\nprovider = \"openai\"\nbase_url = \"{}\"\napi_key = \"{SECRET}\"\n",
        server.base_url()
    );
    home.write_config(&cfg);
    let run = home.run(&["config", "--model", "other-model"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("***"), "{}", run.stdout);
    let model = run
        .stdout
        .lines()
        .find(|l| l.starts_with("model "))
        .unwrap();
    assert!(
        model.contains("other-model") && model.contains("flag --model"),
        "{model}"
    );
    let base = run
        .stdout
        .lines()
        .find(|l| l.starts_with("base_url"))
        .unwrap();
    assert!(base.contains("(config)"), "{base}");
    let run = home.run(&["config", "--json"], None);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["v"], 1);
    assert_eq!(v["type"], "config");
    assert_eq!(server.request_count(), 0);
}

#[test]
fn a_closed_stdout_cancels_quietly_with_1() {
    let mut s = ChatStream::new();
    for i in 0..100 {
        s = s.text(&format!("part{i}\n"));
    }
    let server = FakeProvider::start([s
        .stop()
        .reply()
        .chunk_delay(std::time::Duration::from_millis(20))]);
    let home = Home::new(Some(&server));
    let mut child = home
        .cmd(&["count slowly"])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 5];
    std::io::Read::read_exact(&mut out, &mut first).unwrap();
    assert_eq!(&first, b"part0");
    drop(out); // like `k … | head -c 5`
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(1));
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
