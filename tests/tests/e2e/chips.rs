//! The panel's context chips reach the request: a selection made in the
//! grid and the last command the shell integration (OSC 133) reported,
//! each in its own untrusted-data wrapper in the user message.

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::poll::eventually;
use koi_testkit::window::scene::{Scene, MODEL_WAIT};

use crate::common::{message_texts, turn_request, turns_and_titles};

/// koi's bash integration, as a user's ~/.bashrc sources it.
const KOI_BASH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/shell/koi.bash");

#[test]
fn the_selection_and_last_command_chips_reach_the_request() {
    let server = turns_and_titles(vec![ChatStream::new().text("I see both.").stop().reply()]);
    let scene = Scene::start(server, &[], &[]);
    let (koi, x) = (&scene.koi, &scene.x);
    koi.run_command(x, &format!("source '{KOI_BASH}'; clear"));
    // Row 0: the command; row 1: its output; row 2: the next prompt.
    koi.run_command(x, "echo chip-output-$((40+2)); false");

    // Select the output word with a drag along row 1 (100×30, no padding).
    const WORD: &str = "chip-output-42";
    let (width, height) = koi.size(x);
    let (cw, ch) = (width / 100, height / 30);
    let y = ch + ch / 2;
    koi.drag(x, (1, y), (WORD.len() as u32 * cw - 2, y));
    eventually("the drag in the primary selection", MODEL_WAIT, || {
        x.selection("primary") == WORD
    });

    koi.keys(x, "ctrl+shift+l");
    // The chips row (cut at the panel's width): screen, selection, last
    // command; the request below shows what each held.
    scene.wait_for_panel("both chips", |o| {
        o.contains("[selection ✓]") && o.contains("[last")
    });
    koi.type_text(x, "what do you see?");
    koi.keys(x, "Return");
    assert!(scene.server.wait_for_requests(1, MODEL_WAIT), "no request");
    scene.wait_for_turns(1);
    let (_, server) = scene.close_and_exit();

    let users = message_texts(&turn_request(&server, "what do you see?"), "user");
    let asked = users
        .iter()
        .find(|u| u.contains("what do you see?"))
        .unwrap();
    let selection = format!(
        "<untrusted-data kind=\"selection\" label=\"selection\">\n{WORD}\n</untrusted-data>"
    );
    assert!(asked.contains(&selection), "no selection chip in: {asked}");
    let last = "<untrusted-data kind=\"command-output\" label=\"last command\">\n\
                $ echo chip-output-$((40+2)); false (exit 1)\nchip-output-42\n</untrusted-data>";
    assert!(asked.contains(last), "no last-command chip in: {asked}");
}
