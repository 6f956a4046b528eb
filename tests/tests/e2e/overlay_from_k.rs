//! The real `k --overlay`, typed in koi's shell, opens the panel; the same
//! sequence with a forged token does not. (It replaces a test that faked
//! `k` with `printf`.)

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::poll::eventually;
use koi_testkit::window::scene::{Scene, MODEL_WAIT};

use crate::common::{message_texts, path_with_bins, turn_request, turns_and_titles};

#[test]
fn k_overlay_typed_in_the_shell_opens_the_panel_and_a_forged_token_does_not() {
    let server = turns_and_titles(vec![ChatStream::new().text("Opened by k.").stop().reply()]);
    let scene = Scene::start(server, &[], &[("PATH", path_with_bins())]);
    let (koi, x) = (&scene.koi, &scene.x);

    // A forged token, then a title change: koi handles the shell's output
    // in order, so once the title shows, the forged request was judged.
    koi.run_command(
        x,
        r"printf '\033]7717;open-overlay;0123456789abcdef\007\033]2;after-forged\007'",
    );
    eventually("the title after the forged token", MODEL_WAIT, || {
        x.xdotool(&["getwindowname", &koi.window]) == "after-forged"
    });
    assert!(
        !scene.overlay().starts_with("overlay: open"),
        "a forged token opened the panel: {}",
        scene.overlay()
    );

    // The real thing: `k` finds koi's token in its environment. (Had the
    // forged token opened the panel, these keys would go to it, and the
    // command would never finish: the UI handles keys after the output
    // batch that set the title.)
    koi.run_command(x, "k --overlay");
    scene.wait_for_panel("k --overlay to open the panel", |o| {
        o.starts_with("overlay: open")
    });
    // It is the panel, taking keys and asking the model.
    koi.type_text(x, "opened from the shell?");
    koi.keys(x, "Return");
    assert!(scene.server.wait_for_requests(1, MODEL_WAIT), "no request");
    scene.wait_for_turns(1);
    let (overlay, server) = scene.close_and_exit();
    assert!(overlay.contains("Opened by k."), "{overlay}");
    let users = message_texts(&turn_request(&server, "opened from the shell?"), "user");
    assert!(
        users.iter().any(|u| u.contains("opened from the shell?")),
        "{users:?}"
    );
}
