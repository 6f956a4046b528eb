//! `/memory edit` in the panel, end to end: the line it types at the
//! shell's prompt opens the memory file in `$EDITOR`, and what the editor
//! writes is what the next conversation is told.

use std::os::unix::fs::PermissionsExt;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{Scene, MODEL_WAIT};
use koi_testkit::window::TestConfig;
use koi_testkit::FakeProvider;

use crate::harness::eventually;

/// What the scripted editor adds to the file it is given.
const FACT: &str = "- prefers tabs over spaces";

#[test]
fn memory_edit_types_the_editor_line_and_the_edit_reaches_the_next_request() {
    let server = FakeProvider::builder()
        .always(ChatStream::new().text("A title").stop().reply().for_title())
        .always(
            ChatStream::new()
                .text("NOTHING")
                .stop()
                .reply()
                .for_summary(),
        )
        .start_with(1, |_, _| ChatStream::new().text("noted").stop().reply());
    let tools = tempfile::tempdir().unwrap();
    let editor = tools.path().join("editor");
    std::fs::write(&editor, format!("#!/bin/sh\necho '{FACT}' >> \"$1\"\n")).unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = TestConfig::new(100, 30).ai(&server).memory();
    let scene = Scene::start_configured(
        server,
        config,
        &[],
        &[("EDITOR", editor.display().to_string())],
    );
    let (koi, x) = (&scene.koi, &scene.x);

    koi.keys(x, "ctrl+shift+l");
    koi.type_text(x, "/memory edit global");
    scene.wait_for_panel("the command in the input", |o| {
        o.contains("/memory edit global")
    });
    koi.keys(x, "Return");
    // The panel closes and leaves the editor line at the prompt, not run:
    // the Enter below, written after it, runs it.
    let memory = scene.dir.path().join("xdg-data/koi/memory/MEMORY.md");
    scene.wait_for_panel("the panel to close", |o| o.starts_with("overlay: closed"));
    assert!(
        std::fs::read_to_string(&memory)
            .unwrap_or_default()
            .is_empty(),
        "nothing runs before Enter"
    );
    koi.keys(x, "Return");
    eventually("the editor's write", MODEL_WAIT, || {
        std::fs::read_to_string(&memory).is_ok_and(|t| t.contains(FACT))
    });

    // The next question carries the edited memory.
    scene.ask("what do I prefer?");
    scene.wait_for_turns(1);
    let request = scene
        .server
        .requests()
        .into_iter()
        .find(|r| r.body_str().contains("what do I prefer?"))
        .unwrap();
    assert!(request.body_str().contains(FACT), "{}", request.body_str());
    let (_, _) = scene.close_and_exit();
}
