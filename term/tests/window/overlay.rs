//! The Ctrl+Shift+L assistant overlay end to end: real keys under Xvfb, the
//! real engine, a scripted model on loopback (koi_testkit).

use std::path::Path;
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::harness::{eventually, Koi, Xvfb};

const EXIT_WAIT: Duration = Duration::from_secs(30);
const MODEL_WAIT: Duration = Duration::from_secs(20);

fn config_for(dir: &Path, server: &FakeProvider) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("cfg")).unwrap();
    let path = dir.join("cfg/koi.toml");
    let text = format!(
        "[colors]\nbackground = \"#101418\"\n[window]\npadding = 0\ncolumns = 100\nlines = 30\n\
         [ai]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\napi_key = \"sk-test-not-secret\"\n",
        server.base_url()
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn read_overlay(dump: &Path) -> String {
    let mut path = dump.as_os_str().to_owned();
    path.push(".overlay");
    std::fs::read_to_string(Path::new(&path)).unwrap_or_default()
}

/// Waits until `n` turns have ended (the engine logs each end before the
/// panel hears of it), then gives the panel a moment to show it: keys sent
/// after that reach an idle panel on any machine load.
fn wait_for_turns(dir: &Path, n: usize) {
    let sessions = dir.join("xdg-data/koi/sessions");
    eventually(&format!("{n} finished turns"), MODEL_WAIT, || {
        let ended: usize = std::fs::read_dir(&sessions)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|log| log.matches("\"type\":\"turn_end\"").count())
            .sum();
        ended >= n
    });
    std::thread::sleep(Duration::from_millis(300));
}

/// Whatever the model is asked after the scripted turn (titles), answer briefly.
/// The answer to any title request the panel makes.
fn title() -> Reply {
    ChatStream::new().text("A title").stop().reply().for_title()
}

/// A model that answers the panel's turns with `turns` in order, and any
/// title request with [`title`], wherever it falls.
fn turns_and_titles(turns: Vec<Reply>) -> FakeProvider {
    FakeProvider::builder().always(title()).start(turns)
}

/// koi under Xvfb, configured to talk to `server`. Fields drop in order:
/// koi before its X server.
struct Scene {
    koi: Koi,
    x: Xvfb,
    dir: tempfile::TempDir,
    server: FakeProvider,
}

impl Scene {
    /// koi with a shell in a fresh directory, talking to `server`; `extra`
    /// are more koi arguments.
    fn start(server: FakeProvider, extra: &[&str]) -> Scene {
        let x = Xvfb::start();
        let dir = tempfile::tempdir().unwrap();
        let config = config_for(dir.path(), &server);
        let koi = Koi::start(&x, dir.path(), &config, extra);
        Scene {
            koi,
            x,
            dir,
            server,
        }
    }

    /// The same, with a model that answers the turns with `script` in
    /// order (and titles whenever they are asked for).
    fn scripted(script: Vec<Reply>) -> Scene {
        Self::start(turns_and_titles(script), &[])
    }

    /// Opens the panel and asks `question`; returns once the model has it.
    fn ask(&self, question: &str) {
        self.koi.keys(&self.x, "ctrl+shift+l");
        self.koi.type_text(&self.x, question);
        self.koi.keys(&self.x, "Return");
        assert!(
            self.server.wait_for_requests(1, MODEL_WAIT),
            "the engine never asked the model"
        );
    }

    /// Closes the panel (the turn has ended) and leaves the shell; returns
    /// the panel's text as koi last drew it, and the model (for its
    /// requests).
    fn close_and_exit(self) -> (String, FakeProvider) {
        self.koi.keys(&self.x, "Escape");
        self.koi.type_line(&self.x, "exit 0");
        let (code, stderr, dump) = self.koi.wait(EXIT_WAIT);
        assert_eq!(code, Some(0), "{stderr}");
        (read_overlay(&dump), self.server)
    }
}

#[test]
fn ask_about_the_screen_and_watch_the_answer_stream() {
    let scene = Scene::scripted(vec![ChatStream::new()
        .text("The answer ")
        .text("is forty-two.")
        .stop()
        .reply()]);
    scene
        .koi
        .run_command(&scene.x, "echo visible-marker-9431; false");
    scene.ask("what failed?");
    wait_for_turns(scene.dir.path(), 1);

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

    // Close the panel, leave the shell; the dump has the panel's text.
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.contains("The answer is forty-two."), "{overlay}");
    assert!(overlay.contains("what failed?"), "{overlay}");
}

#[test]
fn the_panel_is_drawn_over_the_terminal() {
    let scene = Scene::scripted(vec![ChatStream::new().text("Drawn answer.").stop().reply()]);
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
    wait_for_turns(scene.dir.path(), 1);
    eventually(
        "the panel drawn in the window",
        Duration::from_secs(10),
        || {
            let (ink, tenth) = covered();
            ink > tenth
        },
    );
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

fn approval_run(answer_key: &str) -> (FakeProvider, tempfile::TempDir, String) {
    // Tools work in `work`, created before koi starts.
    let base = tempfile::tempdir().unwrap();
    let work = base.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let scene = Scene::start(
        write_then_answer(),
        &["--working-directory", work.to_str().unwrap()],
    );
    scene.ask("write the file");
    // The dialog appears; typing other keys must not approve anything.
    std::thread::sleep(Duration::from_millis(1000));
    scene.koi.type_text(&scene.x, "yes");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !work.join("out.txt").exists(),
        "stray keys approved the write"
    );
    scene.koi.keys(&scene.x, answer_key);
    assert!(
        scene.server.wait_for_requests(2, MODEL_WAIT),
        "the model never heard back"
    );
    wait_for_turns(scene.dir.path(), 1);
    let (overlay, server) = scene.close_and_exit();
    (server, base, overlay)
}

#[test]
fn enter_in_the_approval_dialog_writes_the_file() {
    let (server, dir, overlay) = approval_run("Return");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("work/out.txt")).unwrap(),
        "written by koi\n"
    );
    assert!(overlay.contains("All done."), "{overlay}");
    let second = server.requests()[1].body_str();
    assert!(second.contains("w1"), "the tool result went back: {second}");
}

#[test]
fn escape_in_the_approval_dialog_denies_and_the_model_is_told() {
    let (server, dir, _) = approval_run("Escape");
    assert!(
        !dir.path().join("work/out.txt").exists(),
        "a denied write happened"
    );
    let second = server.requests()[1].body_str().to_lowercase();
    assert!(
        second.contains("denied") || second.contains("declined"),
        "the model was not told: {second}"
    );
}

#[test]
fn escape_while_streaming_cancels_the_turn() {
    let slow = ChatStream::new()
        .text("Thinking ")
        .text("very ")
        .text("slowly ")
        .text("about it")
        .stop()
        .reply();
    let server = turns_and_titles(vec![slow.chunk_delay(Duration::from_millis(700))]);
    let scene = Scene::start(server, &[]);
    scene.ask("go slowly");
    std::thread::sleep(Duration::from_millis(900));
    scene.koi.keys(&scene.x, "Escape");
    // The first Esc only cancelled (the turn ends, cancelled); the panel is
    // still open, and the second Esc closes it.
    wait_for_turns(scene.dir.path(), 1);
    let (overlay, _) = scene.close_and_exit();
    assert!(overlay.contains("cancelled"), "{overlay}");
    assert!(
        !overlay.contains("about it"),
        "the stream went on after cancel: {overlay}"
    );
}

#[test]
fn only_the_session_token_opens_the_overlay_from_the_shell() {
    let server = FakeProvider::start_with(|_, _| ChatStream::new().text("x").stop().reply());
    let x = Xvfb::start();
    // The panel's state after koi ran `script` (which prints and exits).
    let overlay_after = |script: &str| {
        let dir = tempfile::tempdir().unwrap();
        let config = config_for(dir.path(), &server);
        let koi = Koi::run(&x, dir.path(), &config, &["sh", "-c", script]);
        let (code, _, dump) = koi.wait(EXIT_WAIT);
        assert_eq!(code, Some(0));
        eventually("the overlay dump", Duration::from_secs(1), || {
            !read_overlay(&dump).is_empty()
        });
        read_overlay(&dump)
    };
    assert!(
        overlay_after(r"printf '\033]7717;open-overlay;0123456789abcdef\007'; sleep 0.5")
            .starts_with("overlay: closed"),
        "a forged token opened the overlay"
    );
    assert!(
        overlay_after(r#"printf '\033]7717;open-overlay;%s\007' "$KOI_SESSION_TOKEN"; sleep 0.5"#)
            .starts_with("overlay: open"),
        "the real token did not open it"
    );
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
        .start_with(|req, _| {
            let answer = if req.body_str().contains("question two") {
                "second answer beta"
            } else {
                "first answer alpha"
            };
            ChatStream::new().text(answer).stop().reply()
        });
    let scene = Scene::start(server, &[]);
    scene.ask("question one");
    let (koi, x, dir, server) = (&scene.koi, &scene.x, &scene.dir, &scene.server);
    let sessions = dir.path().join("xdg-data/koi/sessions");
    eventually("the saved session", MODEL_WAIT, || {
        std::fs::read_dir(&sessions).is_ok_and(|mut d| d.next().is_some())
    });
    let id = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    wait_for_turns(dir.path(), 1);

    let resume = format!("/resume {id}");
    for line in ["/new", "/sessions", &resume, "/model other-model"] {
        koi.type_text(x, line);
        koi.keys(x, "Return");
        std::thread::sleep(Duration::from_millis(300));
    }
    koi.type_text(x, "question two");
    koi.keys(x, "Return");
    eventually("the second question", MODEL_WAIT, || {
        !requests_with(server, "question two").is_empty()
    });
    wait_for_turns(dir.path(), 2);

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
    let scene = Scene::scripted(vec![ChatStream::new()
        .text("Copy pine")
        .text("apple now.")
        .stop()
        .reply()]);
    scene.ask("which fruit?");
    wait_for_turns(scene.dir.path(), 1);
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
    let scene = Scene::scripted(vec![ChatStream::new()
        .text(&rows.join("\n"))
        .stop()
        .reply()]);
    scene.ask("count");
    wait_for_turns(scene.dir.path(), 1);
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
