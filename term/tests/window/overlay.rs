//! The Ctrl+Shift+L assistant overlay end to end: real keys under Xvfb, the
//! real engine, a scripted model on loopback (koi_testkit).

use std::time::Duration;

use koi_testkit::openai_chat::{title, ChatStream};
use koi_testkit::window::scene::{log_entries, session_logs, Scene, MODEL_WAIT};
use koi_testkit::{FakeProvider, Reply};

use crate::harness::eventually;

/// koi with a model that answers the panel's turns with `script` in order
/// (and titles whenever they are asked for).
fn scripted(script: Vec<Reply>) -> Scene {
    Scene::start(turns_and_titles(script), &[], &[])
}

/// A model that answers the panel's turns with `turns` in order, and any
/// title request with [`title`], wherever it falls.
fn turns_and_titles(turns: Vec<Reply>) -> FakeProvider {
    FakeProvider::builder().always(title()).start(turns)
}

#[test]
fn ask_about_the_screen_and_watch_the_answer_stream() {
    let scene = scripted(vec![ChatStream::new()
        .text("The answer ")
        .text("is forty-two.")
        .stop()
        .reply()]);
    scene
        .koi
        .run_command(&scene.x, "echo visible-marker-9431; false");
    scene.ask("what failed?");
    scene.wait_for_turns(1);

    // The visible screen went to the model inside the untrusted-data wrapper.
    let body = scene.server.requests()[0].body_str();
    let open = body.find("<untrusted-data kind=").expect("wrapper");
    let marker = body
        .find("visible-marker-9431")
        .expect("screen text in the request");
    let close = body[open..].find("</untrusted-data>").expect("wrapper end") + open;
    assert!(
        open < marker && marker < close,
        "the screen is inside the wrapper: {body}"
    );
    assert!(body.contains("what failed?"));
    assert!(
        !body.contains("sk-test-not-secret"),
        "the key never goes in a prompt"
    );

    // The question and the answer are on the screen, as a person reads it.
    scene.assert_reads(
        "ask_about_the_screen_and_watch_the_answer_stream",
        &["what failed?", "The answer is forty-two."],
    );

    // Close the panel, leave the shell; the dump has the panel's text.
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.contains("The answer is forty-two."), "{overlay}");
    assert!(overlay.contains("what failed?"), "{overlay}");
}

#[test]
fn the_panel_is_drawn_over_the_terminal() {
    let scene = scripted(vec![ChatStream::new().text("Drawn answer.").stop().reply()]);
    // The window as the X server shows it: most of it is the plain
    // background before the panel opens, and not once it has answered.
    let bg = [0x10, 0x14, 0x18];
    let covered = || {
        let shot = scene.x.screenshot(&scene.koi.window);
        (
            shot.ink(0, 0, shot.width, shot.height, bg),
            shot.width * shot.height / 10,
        )
    };
    let (before, tenth) = covered();
    assert!(before < tenth, "the bare terminal covers {before} px");
    scene.ask("hello");
    scene.wait_for_turns(1);
    eventually(
        "the panel drawn in the window",
        Duration::from_secs(10),
        || {
            let (ink, tenth) = covered();
            ink > tenth
        },
    );
    scene.assert_reads("the_panel_is_drawn_over_the_terminal", &["Drawn answer."]);
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.contains("Drawn answer."), "{overlay}");
}

fn write_then_answer() -> FakeProvider {
    turns_and_titles(vec![
        ChatStream::new()
            .tool_call(
                "w1",
                "fs_write",
                r#"{"path":"out.txt","content":"written by koi\n","expected_revision":"absent"}"#,
            )
            .tool_calls()
            .reply(),
        ChatStream::new().text("All done.").stop().reply(),
    ])
}

/// What an approval run leaves: the model (for its requests), the
/// directory the tools worked in, the panel's last text, and every
/// decision the log recorded (`approved` of each, in order).
struct ApprovalRun {
    server: FakeProvider,
    base: tempfile::TempDir,
    overlay: String,
    decisions: Vec<bool>,
}

fn approval_run(answer_key: &str) -> ApprovalRun {
    // Tools work in `work`, created before koi starts.
    let base = tempfile::tempdir().unwrap();
    let work = base.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let scene = Scene::start(
        write_then_answer(),
        &["--working-directory", work.to_str().unwrap()],
        &[],
    );
    scene.ask("write the file");
    // The dialog is up (the panel shows its key line); typing other keys
    // must not decide anything: the log's only decision is the answer
    // key's (checked by the callers).
    scene.wait_for_panel("the approval dialog", |o| o.contains("Esc deny"));
    // A person sees what is asked and how to answer.
    scene.assert_reads("approval_run", &["out.txt", "Esc deny"]);
    scene.koi.type_text(&scene.x, "yes");
    scene.koi.keys(&scene.x, answer_key);
    assert!(
        scene.server.wait_for_requests(2, MODEL_WAIT),
        "the model never heard back"
    );
    scene.wait_for_turns(1);
    let decisions = log_entries(scene.dir.path(), "approval_decided")
        .iter()
        .map(|d| d["approved"].as_bool().unwrap())
        .collect();
    let (overlay, server) = scene.close_and_exit();
    ApprovalRun {
        server,
        base,
        overlay,
        decisions,
    }
}

#[test]
fn enter_in_the_approval_dialog_writes_the_file() {
    let run = approval_run("Return");
    assert_eq!(run.decisions, [true], "one decision, Enter's");
    assert_eq!(
        std::fs::read_to_string(run.base.path().join("work/out.txt")).unwrap(),
        "written by koi\n"
    );
    assert!(run.overlay.contains("All done."), "{}", run.overlay);
    let second = run.server.requests()[1].body_str();
    assert!(second.contains("w1"), "the tool result went back: {second}");
}

#[test]
fn escape_in_the_approval_dialog_denies_and_the_model_is_told() {
    let run = approval_run("Escape");
    // Had "yes" approved, a `true` would come first.
    assert_eq!(run.decisions, [false], "one decision, Esc's");
    assert!(
        !run.base.path().join("work/out.txt").exists(),
        "a denied write happened"
    );
    let second = run.server.requests()[1].body_str().to_lowercase();
    assert!(
        second.contains("denied") || second.contains("declined"),
        "the model was not told: {second}"
    );
}

#[test]
fn escape_while_streaming_cancels_the_turn() {
    // The model starts answering, then stalls for good: only cancel can
    // end the turn.
    let stalled = ChatStream::new()
        .text("Thinking ")
        .text("about it")
        .stop()
        .reply()
        .hang_after(2);
    let server = turns_and_titles(vec![stalled]);
    let scene = Scene::start(server, &[], &[]);
    scene.ask("go slowly");
    // Mid-stream: the first piece is shown, the rest never comes.
    scene.wait_for_panel("the first piece of the answer", |o| o.contains("Thinking"));
    scene.koi.keys(&scene.x, "Escape");
    // The first Esc only cancelled (the turn ends, cancelled); the panel is
    // still open, and the second Esc closes it.
    scene.wait_for_turns(1);
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.contains("cancelled"), "{overlay}");
    assert!(
        !overlay.contains("about it"),
        "the stream went on after cancel: {overlay}"
    );
}

/// Types `line` into the panel and sends it; returns once the panel has
/// handled it (a slash command's effect is shown when its Enter is).
fn submit_line(scene: &Scene, line: &str) {
    scene.koi.type_text(&scene.x, line);
    scene.wait_for_panel(&format!("{line:?} in the input"), |o| o.contains(line));
    let typed = scene.overlay();
    scene.koi.keys(&scene.x, "Return");
    scene.wait_for_panel(&format!("{line:?} to be handled"), |o| o != typed);
}

/// Every request whose body contains `needle`.
fn requests_with(server: &FakeProvider, needle: &str) -> Vec<serde_json::Value> {
    server
        .requests()
        .iter()
        .filter(|r| r.body_str().contains(needle))
        .map(|r| r.json())
        .collect()
}

#[test]
fn slash_commands_switch_the_model_and_resume_a_saved_conversation() {
    let server = FakeProvider::builder()
        .always(title())
        .start_with(2, |req, _| {
            let answer = if req.body_str().contains("question two") {
                "second answer beta"
            } else {
                "first answer alpha"
            };
            ChatStream::new().text(answer).stop().reply()
        });
    let scene = Scene::start(server, &[], &[]);
    scene.ask("question one");
    scene.wait_for_turns(1);
    let (koi, x, server) = (&scene.koi, &scene.x, &scene.server);
    let logs = session_logs(scene.dir.path());
    assert_eq!(logs.len(), 1, "one saved session");
    let id = logs[0].0.clone();

    let resume = format!("/resume {id}");
    for line in ["/new", "/sessions", &resume, "/model other-model"] {
        submit_line(&scene, line);
    }
    koi.type_text(x, "question two");
    koi.keys(x, "Return");
    eventually("the second question", MODEL_WAIT, || {
        !requests_with(server, "question two").is_empty()
    });
    scene.wait_for_turns(2);

    // The resumed conversation went on: same history, the new model.
    let second = &requests_with(server, "question two")[0];
    assert_eq!(second["model"], "other-model");
    let history = second["messages"].to_string();
    assert!(history.contains("question one"), "{history}");
    assert!(history.contains("first answer alpha"), "{history}");
    let first = &requests_with(server, "question one")[0];
    assert_eq!(first["model"], "test-model");

    // The view: the restored exchange (once: /new cleared the panel and the
    // resume replaced the session list), then what followed, in order.
    let (overlay, _) = scene.close_and_exit();
    let continuing = format!("continuing session {id}");
    let order: Vec<Option<usize>> = [
        "question one",
        "first answer alpha",
        &continuing,
        "model: other-model",
        "question two",
        "second answer beta",
    ]
    .iter()
    .map(|s| overlay.find(s))
    .collect();
    assert!(
        order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
        "{order:?} in:\n{overlay}"
    );
    assert_eq!(overlay.matches("question one").count(), 1, "{overlay}");
    assert!(!overlay.contains("continue one with"), "{overlay}");
}

#[test]
fn dragging_over_an_answer_word_selects_and_copies_it() {
    let scene = scripted(vec![ChatStream::new()
        .text("Copy pine")
        .text("apple now.")
        .stop()
        .reply()]);
    scene.ask("which fruit?");
    scene.wait_for_turns(1);
    let (koi, x) = (&scene.koi, &scene.x);

    // Where the word is drawn on the 100×30 grid: the panel takes the right
    // 45 columns (55..100), its text starts inside the border at column 56,
    // row 1; title and chips rows, then the conversation from row 3:
    // "You", the question, the attachments note, a blank, "koi", and the
    // answer indented by two. The dump checks this below.
    const WORD: &str = "pineapple";
    let (col, row) = (56 + 2 + "Copy ".len(), 3 + 5);
    let (width, height) = koi.size(x);
    let (cw, ch) = (width / 100, height / 30);
    let y = row as u32 * ch + ch / 2;
    // From the left half of `p` to the right half of the last `e`.
    let from = (col as u32 * cw + 1, y);
    let to = ((col + WORD.len()) as u32 * cw - 2, y);
    koi.drag(x, from, to);
    eventually("the drag in the primary selection", MODEL_WAIT, || {
        x.selection("primary") == WORD
    });
    koi.keys(x, "ctrl+shift+c");
    eventually("the copy on the clipboard", MODEL_WAIT, || {
        x.selection("clipboard") == WORD
    });

    // The first Esc drops the selection, the second closes the panel.
    koi.keys(x, "Escape");
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.starts_with("overlay: closed"), "{overlay}");
    // The dump's first line is the state, then one line per row of the
    // panel's text (grid row 1 on, column 56 on): the answer is where the
    // drag assumed.
    let drawn = overlay.lines().nth(row).unwrap_or_default();
    let at = drawn.find(WORD);
    assert_eq!(
        at.map(|a| 56 + a),
        Some(col),
        "the layout moved; row {row} is {drawn:?} in:\n{overlay}"
    );
}

#[test]
fn holding_a_drag_past_the_panel_top_keeps_scrolling() {
    let rows: Vec<String> = (0..50).map(|i| format!("line{i:02}")).collect();
    let scene = scripted(vec![ChatStream::new()
        .text(&rows.join("\n"))
        .stop()
        .reply()]);
    scene.ask("count");
    scene.wait_for_turns(1);
    let (koi, x) = (&scene.koi, &scene.x);
    // The answer is taller than the panel: it shows the end. Drag from the
    // last line up onto the panel's title row and hold there: the timer
    // scrolls about 20 lines a second until the top.
    let (width, height) = koi.size(x);
    let (cw, ch) = (width / 100, height / 30);
    let last = (57 * cw + cw / 2 + 6 * cw, 26 * ch + ch / 2);
    let above = (70 * cw, ch / 2);
    koi.drag_and_hold(x, last, above, Duration::from_secs(5));
    eventually("the selection in the primary selection", MODEL_WAIT, || {
        !x.selection("primary").is_empty()
    });
    let selected = x.selection("primary");
    // Selected from the conversation's first line to where the drag began.
    assert!(
        selected.starts_with("You\ncount\n") && selected.contains("\nline00\n"),
        "the hold did not scroll to the top: {:?}",
        &selected[..selected.len().min(80)]
    );
    assert!(selected.contains("line48"), "{selected}");
    // The first Esc drops the selection, the second closes the panel.
    koi.keys(x, "Escape");
    let (overlay, _) = scene.close_and_exit();
    // It stays where the drag took it.
    assert!(overlay.contains("line00"), "{overlay}");
}

/// The panel's title in a real window, as wide as the panel allows: whole
/// when it fits, shortened by parts (ending with `…`) when the window
/// narrows, the sandbox's state kept while the panel is 60 columns wide.
#[test]
fn the_panel_title_fits_its_width_and_keeps_the_sandbox_state() {
    // The panel takes 45% of the grid: 134 columns give it 60.
    let scene = Scene::start(
        turns_and_titles(vec![ChatStream::new().text("Hi.").stop().reply()]),
        &["--cols", "134"],
        &[],
    );
    // The model and the sandbox are named once the engine is up.
    scene.ask("hello");
    scene.wait_for_turns(1);
    // The dump: `overlay: open`, then the panel's rows, the title first.
    let title = || {
        scene
            .overlay()
            .lines()
            .nth(1)
            .unwrap_or_default()
            .to_owned()
    };
    scene.wait_for_panel("the title with the sandbox", |text| {
        text.lines().nth(1).is_some_and(|l| l.contains("sandbox"))
    });
    let wide = title();
    let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    assert!(width(&wide) <= 58, "{wide:?}");
    assert!(wide.contains("test-model"), "{wide:?}");

    // Narrower, the window's grid and so the panel shrink: 27 columns.
    let (w, h) = scene.koi.size(&scene.x);
    let cell = w / 134;
    scene.x.xdotool(&[
        "windowsize",
        "--sync",
        &scene.koi.window,
        &(cell * 60).to_string(),
        &h.to_string(),
    ]);
    // The dump is rewritten on the panel's events: a key after the
    // narrower frame has been drawn.
    eventually("the narrow title", Duration::from_secs(10), || {
        scene.koi.type_text(&scene.x, "x");
        width(&title()) <= 25
    });
    let narrow = title();
    let words = |s: &str| -> Vec<String> {
        s.split(' ')
            .filter(|w| !w.is_empty() && *w != "·" && *w != "…")
            .map(str::to_owned)
            .collect()
    };
    let whole = words(&wide);
    for word in words(&narrow) {
        assert!(
            whole.contains(&word),
            "cut word {word:?} in {narrow:?} (of {wide:?})"
        );
    }
    assert!(narrow.ends_with('…'), "{narrow:?}");
    assert!(narrow.contains("sandbox"), "{narrow:?}");
    scene.close_and_exit();
}
