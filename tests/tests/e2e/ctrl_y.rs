//! Ctrl+Y in the panel types the answer's code block at the shell's
//! prompt without a newline: the user can still edit it before it runs.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::window::scene::{Scene, EXIT_WAIT};

use crate::common::{message_texts, turn_request, turns_and_titles};

#[test]
fn ctrl_y_types_the_code_block_without_running_it() {
    let answer = "Run this:\n\n```sh\necho first-$((1+1))\n```\n";
    let server = turns_and_titles(vec![ChatStream::new().text(answer).stop().reply()]);
    let scene = Scene::start(server, &[], &[]);
    scene.ask("how do I print two?");
    scene.wait_for_turns(1);
    scene.koi.keys(&scene.x, "ctrl+y");
    scene.wait_for_panel("the panel to close", |o| o.starts_with("overlay: closed"));
    // Typed on after the insert, on the same line: had the insert ended
    // in a newline, `echo first-2` would have run alone and ` second`
    // would be a command of its own.
    scene.koi.run_command(&scene.x, " second");
    scene.koi.type_line(&scene.x, "exit 0");
    let Scene { koi, server, .. } = scene;
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    let screen = std::fs::read_to_string(&dump).unwrap();
    assert!(
        screen.lines().any(|l| l == "first-2 second"),
        "the inserted command and the typed rest ran as one line:\n{screen}"
    );
    assert!(!screen.contains("command not found"), "{screen}");
    let users = message_texts(&turn_request(&server, "how do I print two?"), "user");
    assert!(
        users.iter().any(|u| u.contains("how do I print two?")),
        "{users:?}"
    );
}
