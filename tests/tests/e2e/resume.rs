//! One conversation, two front ends: the overlay resumes what `k`
//! started, and `k --resume` goes on with what the overlay started. Both
//! read the same session log; the follow-up request carries the whole
//! history, and the strict model server checks that the system prompt and
//! tools stayed byte-identical across the two processes.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{session_logs, Scene, MODEL_WAIT};
use koi_testkit::FakeProvider;

use crate::common::{message_texts, run_k, title, turn_request};

/// A model that answers "question one" with alpha and "question two" with
/// beta, whichever front end asks.
fn two_answers() -> FakeProvider {
    FakeProvider::builder()
        .always(title())
        .start_with(2, |req, _| {
            let answer = if req.body_str().contains("question two") {
                "second answer beta"
            } else {
                "first answer alpha"
            };
            ChatStream::new().text(answer).stop().reply()
        })
}

/// koi working in a directory of its own (`work`, where `k` runs too).
fn scene_in(work: &tempfile::TempDir) -> Scene {
    Scene::start(
        two_answers(),
        &["--working-directory", work.path().to_str().unwrap()],
        &[],
    )
}

/// The one session the test made so far.
fn only_session(scene: &Scene) -> String {
    let logs = session_logs(scene.dir.path());
    assert_eq!(logs.len(), 1, "one saved session: {logs:?}");
    logs[0].0.clone()
}

/// The history the second question was sent with.
fn second_history(server: &FakeProvider) -> String {
    let second = turn_request(server, "question two");
    let users = message_texts(&second, "user");
    let assistants = message_texts(&second, "assistant");
    format!("{users:?} {assistants:?}")
}

#[test]
fn the_overlay_resumes_a_conversation_that_k_started() {
    let work = tempfile::tempdir().unwrap();
    let scene = scene_in(&work);
    let out = run_k(scene.dir.path(), work.path(), &["question one"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("first answer alpha"));
    let id = only_session(&scene);

    scene.koi.keys(&scene.x, "ctrl+shift+l");
    scene.koi.type_text(&scene.x, &format!("/resume {id}"));
    scene.koi.keys(&scene.x, "Return");
    scene.wait_for_panel("the resumed conversation", |o| {
        o.contains(&format!("continuing session {id}")) && o.contains("first answer alpha")
    });
    let before = scene.server.request_count();
    scene.koi.type_text(&scene.x, "question two");
    scene.koi.keys(&scene.x, "Return");
    assert!(scene.server.wait_for_requests(before + 1, MODEL_WAIT));
    scene.wait_for_turns(2);
    let (overlay, server) = scene.close_and_exit();
    assert!(overlay.contains("second answer beta"), "{overlay}");
    let history = second_history(&server);
    assert!(
        history.contains("question one") && history.contains("first answer alpha"),
        "the overlay went on without k's history: {history}"
    );
}

#[test]
fn k_resumes_a_conversation_that_the_overlay_started() {
    let work = tempfile::tempdir().unwrap();
    let scene = scene_in(&work);
    scene.ask("question one");
    scene.wait_for_turns(1);
    let id = only_session(&scene);
    let dir = scene.dir.path().to_path_buf();
    // koi lets go of the conversation when it exits; the tempdir stays
    // until `_dir` drops.
    let Scene {
        koi,
        x,
        dir: _dir,
        server,
    } = scene;
    koi.keys(&x, "Escape");
    koi.type_line(&x, "exit 0");
    let (code, stderr, _) = koi.wait(koi_testkit::window::scene::EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");

    let out = run_k(&dir, work.path(), &["--resume", &id, "question two"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("second answer beta"));
    let history = second_history(&server);
    assert!(
        history.contains("question one") && history.contains("first answer alpha"),
        "k went on without the overlay's history: {history}"
    );
}
