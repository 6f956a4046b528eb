//! The panel's side of crash recovery, against the loopback provider: an
//! interrupted call is decided in the approval row, a conversation open
//! elsewhere is refused by name, and /fork continues a copy.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::protocol::ErrorKind;
use ai_chat_engine::store::session_log::{read_log, Entry, Record, StartProof, LOG_FORMAT};
use ai_chat_engine::{Event, ToolCall};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use super::Assistant;

const ID: &str = "20260101-000000-0ver1a";

struct Fixture {
    _server: FakeProvider,
    root: tempfile::TempDir,
}

impl Fixture {
    /// A model that notes each of `requests` turn requests.
    fn new(requests: usize) -> Fixture {
        let noted = || ChatStream::new().text("Noted.").stop().reply();
        // The panel asks for a title after a first turn, at no fixed point.
        let server = FakeProvider::builder()
            .always(noted().for_title())
            .start_with(requests, move |_, _| noted());
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("ws")).unwrap();
        std::fs::write(
            root.path().join("koi.toml"),
            format!(
                "[ai]\nmemory = false\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\napproval_mode = \"bypass\"\n",
                server.base_url()
            ),
        )
        .unwrap();
        Fixture {
            _server: server,
            root,
        }
    }

    fn ws(&self) -> std::path::PathBuf {
        self.root.path().join("ws").canonicalize().unwrap()
    }

    fn sessions(&self) -> std::path::PathBuf {
        self.root.path().join("data/sessions")
    }

    fn assistant(&self) -> Assistant {
        Assistant::new(Some(self.root.path().join("koi.toml")), Arc::new(|| {}))
            .with_data_dir(&self.root.path().join("data"))
    }

    /// A log a crash left: a shell call started, no result.
    fn crashed_log(&self, command: &str) {
        let call = ToolCall {
            id: "c1".into(),
            name: "shell_exec".into(),
            arguments: serde_json::json!({ "command": command }).to_string(),
        };
        let entries = vec![
            Entry::Meta {
                session: ID.into(),
                cwd: self.ws().to_string_lossy().into_owned(),
                provider: "openai".into(),
                model: "m".into(),
                format: LOG_FORMAT,
                forked_from: None,
            },
            Entry::User {
                text: "count".into(),
                attachments: vec![],
                images: vec![],
            },
            Entry::Assistant {
                text: String::new(),
                reasoning: String::new(),
                tool_calls: vec![call.clone()],
                finish: "tool_calls".into(),
                reasoning_blocks: vec![],
            },
            Entry::ToolStart {
                call_id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments,
                proof: StartProof::Unproven,
                run_tag: None,
            },
        ];
        std::fs::create_dir_all(self.sessions()).unwrap();
        let text: String = entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| {
                let r = Record {
                    id: format!("e{}", i + 1),
                    ts: "2026-01-01T00:00:00.000Z".into(),
                    entry,
                };
                serde_json::to_string(&r).unwrap() + "\n"
            })
            .collect();
        std::fs::write(self.sessions().join(format!("{ID}.jsonl")), text).unwrap();
    }
}

/// Drains the running turn until it ends.
fn finish(a: &mut Assistant) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut out = Vec::new();
    while a.is_busy() {
        assert!(Instant::now() < deadline, "the turn did not end: {out:?}");
        out.extend(a.drain());
        std::thread::sleep(Duration::from_millis(10));
    }
    out
}

/// This test binary's name, as a lock file records its holder.
fn program() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap()
}

fn count(ws: &Path) -> usize {
    std::fs::read_to_string(ws.join("count.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn the_approval_row_decides_an_interrupted_call_then_the_turn_goes_on() {
    let f = Fixture::new(1);
    f.crashed_log("echo x >> count.txt");
    let mut a = f.assistant();
    let (_, notes) = a.resume(ID, &f.ws()).unwrap();
    assert!(notes.iter().any(|n| n.contains("interrupted")), "{notes:?}");
    // Nothing goes on while the row waits.
    assert!(!a.continue_interrupted());
    let (summary, detail) = a.next_uncertain().unwrap();
    assert!(summary.contains("shell_exec") && summary.contains("run it again"));
    assert!(
        detail.contains("echo x >> count.txt"),
        "full arguments: {detail}"
    );
    a.decide(true, false);
    assert!(a.next_uncertain().is_none());
    assert!(a.continue_interrupted());
    let msgs = finish(&mut a);
    assert!(matches!(msgs.last(), Some(Event::Done)), "{msgs:?}");
    assert_eq!(count(&f.ws()), 1, "rerun runs it exactly once");
}

#[test]
fn abandon_in_the_row_runs_nothing_and_the_log_says_so() {
    let f = Fixture::new(1);
    f.crashed_log("echo x >> count.txt");
    let mut a = f.assistant();
    a.resume(ID, &f.ws()).unwrap();
    a.next_uncertain().unwrap();
    a.decide(false, false);
    assert!(a.continue_interrupted());
    finish(&mut a);
    assert_eq!(count(&f.ws()), 0);
    let log = read_log(&f.sessions().join(format!("{ID}.jsonl"))).unwrap();
    assert!(log.records.iter().any(|r| matches!(
        &r.entry,
        Entry::ToolResult { for_model, .. } if for_model.contains("abandoned by the user")
    )));
}

#[test]
fn a_second_panel_is_refused_by_name_and_fork_continues_a_copy() {
    let f = Fixture::new(1);
    f.crashed_log("echo x >> count.txt");
    let mut first = f.assistant();
    first.resume(ID, &f.ws()).unwrap();
    // Resuming it again in the same panel is no conflict.
    first.resume(ID, &f.ws()).unwrap();
    let mut second = f.assistant();
    let (transcript, notes) = second.resume(ID, &f.ws()).unwrap();
    assert!(!transcript.is_empty());
    let holder = format!("open in {}, pid {}", program(), std::process::id());
    assert!(
        notes[0].starts_with("read-only here")
            && notes[0].contains(&holder)
            && notes[0].contains("/fork"),
        "{notes:?}"
    );
    // Read-only: no row, no continuation, and a question is refused.
    assert!(second.is_read_only());
    assert!(second.next_uncertain().is_none());
    assert!(!second.continue_interrupted());
    second
        .submit("may I?".into(), vec![], (80, 24), &f.ws())
        .unwrap();
    let msgs = finish(&mut second);
    assert!(
        matches!(
            msgs.last(),
            Some(Event::Error { kind: ErrorKind::Session, message }) if message.contains("read-only")
        ),
        "{msgs:?}"
    );
    let (new_id, _, notes) = second.fork(Some(ID), &f.ws()).unwrap();
    assert_ne!(new_id, ID);
    assert!(notes.iter().any(|n| n.contains(ID)), "{notes:?}");
    // The copy never runs the original's interrupted call.
    assert!(second.next_uncertain().is_none());
    assert!(second.continue_interrupted());
    finish(&mut second);
    assert_eq!(count(&f.ws()), 0);
}

/// A provider that answers each question with one `fs_write` of the file
/// the question names, and the tool's result with "Done.".
/// Six requests: two questions, each a write, its result, and one more.
fn writer_provider() -> FakeProvider {
    let done = || ChatStream::new().text("Done.").stop().reply();
    FakeProvider::builder()
        .always(done().for_title())
        .start_with(6, move |req, _| {
            let json = req.json();
            let messages = json["messages"].as_array().cloned().unwrap_or_default();
            let last = messages.last().cloned().unwrap_or_default();
            if last["role"] == "tool" {
                return done();
            }
            let text = last["content"].to_string();
            let file = if text.contains("first") {
                "a.txt"
            } else {
                "b.txt"
            };
            let args = serde_json::json!({
                "path": file, "content": "x\n", "expected_revision": "absent"
            });
            ChatStream::new()
                .tool_call("w1", "fs_write", &args.to_string())
                .tool_calls()
                .reply()
        })
}

/// Runs the turn, answering its approvals with `answer` (approve, for the
/// conversation); returns how many approvals were asked.
fn run_answering(a: &mut Assistant, answer: (bool, bool)) -> usize {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut asked = 0;
    while a.is_busy() {
        assert!(Instant::now() < deadline, "the turn did not end");
        for msg in a.drain() {
            if matches!(msg, Event::ApprovalAsked { .. }) {
                asked += 1;
                a.decide(answer.0, answer.1);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    asked
}

#[test]
fn allow_edits_for_this_conversation_ends_with_the_conversation() {
    let server = writer_provider();
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let ws = ws.canonicalize().unwrap();
    std::fs::write(
        root.path().join("koi.toml"),
        format!(
            "[ai]\nmemory = false\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\napproval_mode = \"default\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    let mut a = Assistant::new(Some(root.path().join("koi.toml")), Arc::new(|| {}))
        .with_data_dir(&root.path().join("data"));
    a.submit("write the first file".into(), vec![], (80, 24), &ws)
        .unwrap();
    assert_eq!(run_answering(&mut a, (true, true)), 1, "the edit asks once");
    assert!(ws.join("a.txt").exists());
    assert!(
        a.describe().unwrap().ends_with("accept-edits"),
        "{:?}",
        a.describe()
    );
    // Another edit in the same conversation runs unasked.
    a.submit("write the second file".into(), vec![], (80, 24), &ws)
        .unwrap();
    assert_eq!(
        run_answering(&mut a, (false, false)),
        0,
        "granted for this one"
    );
    assert!(ws.join("b.txt").exists());
    std::fs::remove_file(ws.join("b.txt")).unwrap();

    // /new: the grant is gone, and the same edit asks again.
    a.new_conversation();
    assert!(
        a.describe().unwrap().ends_with("default"),
        "{:?}",
        a.describe()
    );
    a.submit("write the second file".into(), vec![], (80, 24), &ws)
        .unwrap();
    assert_eq!(
        run_answering(&mut a, (false, false)),
        1,
        "asks in a new conversation"
    );
    assert!(!ws.join("b.txt").exists(), "denied");
}

#[test]
fn a_broad_directory_reads_only_until_cd_names_one() {
    let f = Fixture::new(0);
    let mut a = f.assistant();
    let root = Path::new("/");
    // The fixture's bypass mode is not taken up in `/`: plan (reads only).
    let refused = a.set_mode(ai_tools::Mode::Default, root);
    assert!(
        refused.is_err_and(|e| e.contains("/cd")),
        "writes refused in /"
    );
    assert!(
        a.describe().unwrap().ends_with("plan"),
        "{:?}",
        a.describe()
    );
    let named = a.name_dir(&f.ws().display().to_string(), root).unwrap();
    assert_eq!(named, f.ws());
    assert_eq!(
        a.workspace_for(root),
        f.ws(),
        "/cd wins over the pane's cwd"
    );
    a.set_mode(ai_tools::Mode::Default, &a.workspace_for(root))
        .unwrap();
    assert!(
        a.describe().unwrap().ends_with("default"),
        "{:?}",
        a.describe()
    );
    // /new: back to the pane's directory.
    a.new_conversation();
    assert_eq!(a.workspace_for(root), root);
    assert!(a.name_dir("no-such-dir", &f.ws()).is_err());
}

#[test]
fn cost_shows_the_conversations_tokens_cache_hits_and_money() {
    let reply = || {
        ChatStream::new()
            .text("Noted.")
            .stop()
            .usage(2_000_000, 1_500_000, 100_000)
            .reply()
    };
    let server = FakeProvider::builder()
        .always(ChatStream::new().text("T").stop().reply().for_title())
        .start([reply(), reply()]);
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("ws")).unwrap();
    std::fs::write(
        root.path().join("koi.toml"),
        format!(
            "[ai]\nmemory = false\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"m-large-2026\"\n\
             [ai.prices]\n\"m-large\" = {{ input = 2.0, cached_input = 0.5, output = 8.0 }}\n",
            server.base_url()
        ),
    )
    .unwrap();
    let ws = root.path().join("ws");
    let mut a = Assistant::new(Some(root.path().join("koi.toml")), Arc::new(|| {}))
        .with_data_dir(&root.path().join("data"));
    assert!(a.usage_report().contains("none used"));
    for q in ["one", "two"] {
        a.submit(q.into(), Vec::new(), (80, 24), &ws).unwrap();
        finish(&mut a);
    }
    // Per round: 0.5M×2 + 1.5M×0.5 + 0.1M×8 = 2.55; two rounds.
    assert_eq!(
        a.usage_report(),
        "tokens: 4000000 in (3000000 cached, 75% cache hits), 200000 out over 2 rounds\n\
         cost: $5.1000"
    );
}

#[test]
fn the_panel_runs_a_goal_to_its_check_and_compacts_on_request() {
    use ai_chat_engine::protocol::{CompactionOutcome, GoalStatus};
    use ai_chat_engine::{BudgetLimits, GoalSpec};

    use super::Job;

    let f = Fixture::new(1);
    let mut a = f.assistant();
    // No conversation yet: nothing to compact.
    assert!(a.start_job(Job::Compact, &f.ws()).is_err());
    let spec = GoalSpec::new("note the plan", Some("test -d ."), BudgetLimits::default()).unwrap();
    a.start_job(Job::Goal(spec), &f.ws()).unwrap();
    let msgs = finish(&mut a);
    assert!(matches!(msgs.last(), Some(Event::Done)), "{msgs:?}");
    assert!(msgs.iter().any(|m| matches!(
        m,
        Event::Goal {
            status: GoalStatus::Complete,
            ..
        }
    )));
    assert!(
        a.goal_text().starts_with("goal complete"),
        "{}",
        a.goal_text()
    );
    a.start_job(Job::Compact, &f.ws()).unwrap();
    let msgs = finish(&mut a);
    assert!(msgs.iter().any(|m| matches!(
        m,
        Event::Compaction {
            outcome: CompactionOutcome::Nothing,
            ..
        }
    )));
    assert_eq!(a.clear_goal().unwrap(), "goal cleared");
    assert!(a.goal_text().starts_with("no goal"));
}

#[test]
fn an_image_attached_with_slash_image_goes_with_the_next_message_only() {
    let server = FakeProvider::builder()
        .always(ChatStream::new().text("T").stop().reply().for_title())
        .start([
            ChatStream::new().text("A picture.").stop().reply(),
            ChatStream::new().text("Text.").stop().reply(),
        ]);
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        root.path().join("koi.toml"),
        format!(
            "[ai]\nmemory = false\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    std::fs::write(ws.join("shot.png"), b"\x89PNG\r\n\x1a\nkoi!").unwrap();
    std::fs::write(ws.join("notes.txt"), "words").unwrap();
    let mut a = Assistant::new(Some(root.path().join("koi.toml")), Arc::new(|| {}))
        .with_data_dir(&root.path().join("data"));
    let refused = a.attach_image("notes.txt", &ws).unwrap_err();
    assert!(
        refused.contains("is not a PNG, JPEG, GIF or WebP image"),
        "{refused}"
    );
    let line = a.attach_image("shot.png", &ws).unwrap();
    assert!(line.starts_with("attached shot.png (image/png"), "{line}");
    assert!(a.pending_images().contains("shot.png"));
    for q in ["what is this?", "and now?"] {
        a.submit(q.into(), Vec::new(), (80, 24), &ws).unwrap();
        finish(&mut a);
    }
    let url = "data:image/png;base64,iVBORw0KGgprb2kh";
    let reqs = server.requests();
    let first = reqs[0].body_str();
    assert_eq!(first.matches(url).count(), 1);
    // The second request carries the history (the image once), nothing new.
    let second = reqs
        .iter()
        .rev()
        .find(|r| r.body_str().contains("and now?"))
        .unwrap();
    assert_eq!(second.body_str().matches(url).count(), 1);
    assert!(a.pending_images().starts_with("no image attached"));
}

/// The panel builds its engine from the `[ai]` table koi's config loader
/// parsed (and reloads), not from a second read of the file: the file
/// here names another model, and a reload reaches the next engine.
#[test]
fn the_engine_comes_from_the_tables_the_app_parsed() {
    // The tables name another server: this fixture's is never asked.
    let f = Fixture::new(0);
    let ai = |model: &str| -> toml::Table {
        format!(
            "memory = false\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"{model}\"\n"
        )
        .parse()
        .unwrap()
    };
    let tables = Arc::new(parking_lot::RwLock::new(super::AiTables {
        ai: Some(ai("parsed-by-koi")),
        mcp: None,
    }));
    let mut a = f.assistant().with_tables(tables.clone());
    a.warm_up(&f.ws());
    assert!(a.describe().is_none(), "no MCP server: nothing to warm up");
    a.engine(&f.ws()).unwrap();
    assert!(a.describe().unwrap().starts_with("parsed-by-koi"));
    *tables.write() = super::AiTables {
        ai: Some(ai("reloaded")),
        mcp: None,
    };
    let mut b = f.assistant().with_tables(tables);
    b.engine(&f.ws()).unwrap();
    assert!(b.describe().unwrap().starts_with("reloaded"));
}
