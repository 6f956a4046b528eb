//! kill -9 at 20 points of a real session, then resume.
//!
//! `k` runs on a PTY against the loopback provider: it writes a file
//! (c1), runs a slow shell command after an approval (c2), reads the file
//! (c3) and answers. The whole process group is SIGKILLed at an exact
//! point (the engine's test pause hook, the approval prompt, or a moment
//! into the slow command); then `k --resume` must show that no durable
//! entry was lost, that the edit is known as done, that exactly the
//! interrupted call is uncertain and nothing reruns until the user
//! decides, and that rerun runs it exactly once and abandon zero times.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ai_chat_engine::store::session_log::{read_log, Entry, Record};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply, RequestKind};

use crate::common::{Home, PtyRun};

/// The slow command: marks its start, sleeps, then leaves its effect.
const SLOW: &str = "echo go > started.mark; sleep 5; echo x >> touches; touch done";

/// Longer than the slow command, so an orphan's late effect shows.
const PAST_SLOW: Duration = Duration::from_secs(6);

/// How long one run may take to reach its kill point.
const REACH: Duration = Duration::from_secs(60);

/// The reply for a request, from what the conversation holds: the same
/// request after a crash gets the same reply. The session is four rounds
/// and a title; a kill can cost the title (k died before it asked) or one
/// round more (k died while it streamed, and the resume asks again).
fn script(requests: impl Into<koi_testkit::Expect>) -> FakeProvider {
    FakeProvider::start_with(requests, |req, _| {
        if req.kind == RequestKind::Title {
            return ChatStream::new().text("Notes").stop().reply().for_title();
        }
        let body = req.json();
        let results: Vec<String> = body["messages"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .filter(|m| m["role"] == "tool")
                    .filter_map(|m| m["tool_call_id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let has = |id: &str| results.iter().any(|r| r == id);
        let step = |text: &str, id: &str, name: &str, args: serde_json::Value| -> Reply {
            ChatStream::new()
                .text(text)
                .tool_call(id, name, &args.to_string())
                .tool_calls()
                .reply()
        };
        if !has("c1") {
            step(
                "Writing the notes.",
                "c1",
                "fs_write",
                serde_json::json!({"path": "notes.txt", "content": "notes\n", "expected_revision": "absent"}),
            )
        } else if !has("c2") {
            step(
                "Running the slow step.",
                "c2",
                "shell_exec",
                serde_json::json!({ "command": SLOW, "escalate": true, "reason": "it writes files" }),
            )
        } else if !has("c3") {
            step(
                "Checking the notes.",
                "c3",
                "fs_read",
                serde_json::json!({"path": "notes.txt"}),
            )
        } else {
            ChatStream::new().text("All done.").stop().reply()
        }
    })
}

/// Where the run is killed.
#[derive(Debug, Clone, Copy)]
enum At {
    /// The engine's pause hook (`POINT#N`).
    Hook(&'static str),
    /// While the approval prompt waits for an answer.
    Prompt,
    /// This long after the slow command started.
    Slow(Duration),
}

/// One kill point: where, which call is then uncertain, what the user
/// chooses for it, and whether the slow command had started.
struct Case {
    at: At,
    uncertain: Option<&'static str>,
    rerun: bool,
    c2_started: bool,
}

const fn case(at: At, uncertain: Option<&'static str>, rerun: bool, c2_started: bool) -> Case {
    Case {
        at,
        uncertain,
        rerun,
        c2_started,
    }
}

/// 20 points spread over the session, in its order.
const CASES: [Case; 20] = [
    case(At::Hook("streaming#1"), None, false, false),
    case(At::Hook("committed#1"), None, false, false),
    case(At::Hook("started#1"), Some("c1"), true, false),
    case(At::Hook("ran#1"), Some("c1"), false, false),
    case(At::Hook("recorded#1"), None, false, false),
    case(At::Hook("streaming#2"), None, false, false),
    case(At::Hook("committed#2"), None, false, false),
    case(At::Hook("approval#1"), None, false, false),
    case(At::Prompt, None, false, false),
    case(At::Hook("started#2"), Some("c2"), true, true),
    case(
        At::Slow(Duration::from_millis(500)),
        Some("c2"),
        false,
        true,
    ),
    case(At::Slow(Duration::from_secs(3)), Some("c2"), true, true),
    case(At::Hook("ran#2"), Some("c2"), false, true),
    case(At::Hook("recorded#2"), None, false, true),
    case(At::Hook("streaming#3"), None, false, true),
    case(At::Hook("committed#3"), None, false, true),
    case(At::Hook("started#3"), None, false, true),
    case(At::Hook("ran#3"), None, false, true),
    case(At::Hook("recorded#3"), None, false, true),
    case(At::Hook("streaming#4"), None, false, true),
];

fn touches(ws: &Path) -> usize {
    std::fs::read_to_string(ws.join("touches"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn the_log(home: &Home) -> PathBuf {
    let files = home.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

fn records(home: &Home) -> Vec<Record> {
    read_log(&the_log(home)).unwrap().records
}

fn starts_of(records: &[Record], id: &str) -> usize {
    records
        .iter()
        .filter(|r| matches!(&r.entry, Entry::ToolStart { call_id, .. } if call_id == id))
        .count()
}

fn result_of<'a>(records: &'a [Record], id: &str) -> Option<&'a Entry> {
    records
        .iter()
        .map(|r| &r.entry)
        .find(|e| matches!(e, Entry::ToolResult { call_id, .. } if call_id == id))
}

/// Runs `k` to the kill point and SIGKILLs its process group. Returns
/// the log as it stood just before the kill.
fn run_and_kill(home: &Home, at: At) -> Vec<Record> {
    let marker = home.root().join("pause.mark");
    let marker_s = marker.display().to_string();
    let hook = match at {
        At::Hook(p) => p,
        // A point that never comes: no pause.
        At::Prompt | At::Slow(_) => "none",
    };
    let mut k = PtyRun::start(
        home,
        &["--mode", "accept-edits", "do the task"],
        &[
            ("KOI_TEST_PAUSE_AT", hook),
            ("KOI_TEST_PAUSE_FILE", &marker_s),
        ],
    );
    let deadline = Instant::now() + REACH;
    let mut answered = false;
    let mut slow_since: Option<Instant> = None;
    loop {
        assert!(
            Instant::now() < deadline,
            "never reached {at:?}:\n{}",
            k.text()
        );
        if let Ok(Some(status)) = k.child.try_wait() {
            panic!("k ended ({status:?}) before {at:?}:\n{}", k.text());
        }
        let prompt = k.text().contains("[y/N]");
        let reached = match at {
            At::Hook(_) => marker.exists(),
            At::Prompt => prompt,
            At::Slow(after) => {
                if slow_since.is_none() && home.ws().join("started.mark").exists() {
                    slow_since = Some(Instant::now());
                }
                slow_since.is_some_and(|t| t.elapsed() >= after)
            }
        };
        if reached {
            break;
        }
        if prompt && !answered {
            answered = true;
            k.answer("y");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let before = records(home);
    let pid = k.child.process_id().expect("pid") as i32;
    // SAFETY: kill only sends a signal, to the group this test started
    // (the PTY child leads its own session and group).
    assert_eq!(unsafe { libc::kill(-pid, libc::SIGKILL) }, 0);
    let _ = k.child.wait();
    before
}

/// What one kill point measured.
struct Measured {
    orphan_effects: usize,
    automatic_reruns: usize,
}

fn one_point(c: &Case) -> Measured {
    let server = script(4..=6);
    let home = Home::new(Some(&server));
    let ws = home.ws();
    let before = run_and_kill(&home, c.at);
    if c.c2_started && c.uncertain == Some("c2") {
        std::thread::sleep(PAST_SLOW);
    }
    let after_kill = records(&home);
    // No durable entry lost: the log holds exactly what it held.
    assert_eq!(
        after_kill, before,
        "{:?}: the log changed across the kill",
        c.at
    );
    let touched_by_orphan = if c.uncertain == Some("c2") && !matches!(c.at, At::Hook("ran#2")) {
        touches(&ws)
    } else {
        0
    };
    let touched = touches(&ws);

    // The edit is known as done once its result is written.
    let edit_done = matches!(
        result_of(&after_kill, "c1"),
        Some(Entry::ToolResult {
            is_error: false,
            ..
        })
    );
    if c.c2_started {
        assert!(edit_done, "{:?}: the edit is not known as done", c.at);
        assert_eq!(
            std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
            "notes\n"
        );
    }

    // Without a decision nothing goes on, and exactly the interrupted
    // call is named.
    let id = the_log(&home)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let resume = ["--resume", &id, "--no-stdin", "--mode", "bypass"];
    let mut automatic_reruns = 0;
    if let Some(call) = c.uncertain {
        let mut args = resume.to_vec();
        args.push("--json");
        let undecided = home.run(&args, None);
        assert_eq!(undecided.code, 1, "{:?}: {}", c.at, undecided.stderr);
        let events = undecided.events();
        // The `uncertain` lines and the `error` that follows them follow
        // the schema generated from koi_protocol::Event.
        let schema = koi_protocol::event_schema();
        for e in &events {
            let errors = koi_testkit::json_schema::check(&schema, e);
            assert!(errors.is_empty(), "{e}: {errors:?}");
        }
        let named: Vec<&str> = events
            .iter()
            .filter(|e| e["type"] == "uncertain")
            .filter_map(|e| e["id"].as_str())
            .collect();
        assert_eq!(named, vec![call], "{:?}: {}", c.at, undecided.stdout);
        let shown = events
            .iter()
            .find(|e| e["type"] == "uncertain")
            .map(|e| e["arguments"].as_str().unwrap_or("").to_string())
            .unwrap_or_default();
        if call == "c2" {
            assert!(shown.contains("sleep 5"), "full arguments shown: {shown}");
        }
        assert!(events
            .iter()
            .any(|e| e["type"] == "error" && e["kind"] == "uncertain"));
        let still = records(&home);
        if starts_of(&still, call) != starts_of(&after_kill, call) || touches(&ws) != touched {
            automatic_reruns += 1;
        }
        assert_eq!(still, after_kill, "{:?}: an undecided resume wrote", c.at);
    }

    // Decide (or just continue) and finish the session.
    let mut args = resume.to_vec();
    if let Some(call) = c.uncertain {
        args.push(if c.rerun { "--rerun" } else { "--abandon" });
        args.push(call);
    }
    let done = home.run(&args, None);
    assert_eq!(
        done.code, 0,
        "{:?}:\n{}\n{}",
        c.at, done.stdout, done.stderr
    );
    assert!(
        done.stdout.contains("All done."),
        "{:?}: {}",
        c.at,
        done.stdout
    );
    let last = records(&home);
    assert!(matches!(
        last.last().map(|r| &r.entry),
        Some(Entry::TurnEnd { outcome }) if outcome == "done"
    ));
    // Rerun runs the interrupted call exactly once, abandon zero times;
    // a call that never started runs once, a finished one never again.
    let c2_runs_now = if c.uncertain == Some("c2") {
        usize::from(c.rerun)
    } else {
        usize::from(!c.c2_started)
    };
    assert_eq!(
        touches(&ws),
        touched + c2_runs_now,
        "{:?}: touches after resume",
        c.at
    );
    assert_eq!(
        starts_of(&last, "c2") - starts_of(&after_kill, "c2"),
        c2_runs_now,
        "{:?}: c2 starts",
        c.at
    );
    if c.uncertain == Some("c1") {
        assert_eq!(
            starts_of(&last, "c1") - starts_of(&after_kill, "c1"),
            usize::from(c.rerun)
        );
    } else if edit_done {
        assert_eq!(starts_of(&last, "c1"), 1, "{:?}: the edit ran again", c.at);
    }
    if c.uncertain.is_some() && !c.rerun {
        let told = result_of(&last, c.uncertain.unwrap_or_default());
        assert!(
            matches!(told, Some(Entry::ToolResult { for_model, .. }) if for_model.contains("abandoned by the user; its effect is unknown")),
            "{told:?}"
        );
    }
    home.assert_logs_have_no_secret();
    Measured {
        orphan_effects: touched_by_orphan,
        automatic_reruns,
    }
}

#[test]
fn kill_9_at_twenty_points_then_resume() {
    // A few at a time: each holds a PTY and, at worst, a 5 s command.
    let mut measured = Vec::new();
    for chunk in CASES.chunks(5) {
        measured.extend(koi_testkit::parallel::map(chunk, one_point));
    }
    let orphans: usize = measured.iter().map(|m| m.orphan_effects).sum();
    let reruns: usize = measured.iter().map(|m| m.automatic_reruns).sum();
    eprintln!(
        "kill points: {} · lost entries: 0 · automatic reruns: {reruns} · late effects of \
         orphaned tool processes: {orphans}",
        CASES.len()
    );
    assert_eq!(reruns, 0);
    // The spawner forks every tool process with PR_SET_PDEATHSIG: a run
    // dies with the `k` that owns it and never finishes its effect late.
    assert_eq!(
        orphans, 0,
        "a killed run's tool process finished its effect"
    );
}

#[test]
fn on_a_terminal_k_asks_rerun_or_abandon_before_going_on() {
    let server = script(5);
    let home = Home::new(Some(&server));
    run_and_kill(&home, At::Hook("ran#2"));
    assert_eq!(touches(&home.ws()), 1);
    let id = the_log(&home)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // With no terminal and no decision, k refuses and says how to decide.
    let refused = home.run(&["--resume", &id, "--no-stdin", "--mode", "bypass"], None);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains(&format!("k --resume {id} --rerun c2")),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("sleep 5"), "{}", refused.stderr);
    // The chat on a terminal, continuing the session.
    let mut k = PtyRun::start(&home, &["--resume", &id, "--mode", "bypass"], &[]);
    k.wait_for("[r/a]", Duration::from_secs(30));
    let shown = k.text();
    assert!(shown.contains("c2 (shell_exec)"), "{shown}");
    assert!(shown.contains("sleep 5"), "the full arguments: {shown}");
    // Neither a run nor a model call while the question waits.
    assert_eq!(server.requests().len(), 2);
    k.answer("a");
    k.wait_for("All done.", Duration::from_secs(30));
    k.send(b"\x04");
    assert_eq!(k.wait_exit(Duration::from_secs(30)), 0, "{}", k.text());
    assert_eq!(touches(&home.ws()), 1, "abandon runs it zero times");
    let told = result_of(&records(&home), "c2").cloned();
    assert!(
        matches!(&told, Some(Entry::ToolResult { for_model, .. }) if for_model.contains("abandoned by the user")),
        "{told:?}"
    );
}
