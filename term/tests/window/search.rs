//! Scrollback search end to end: a match 50k lines up is found, scrolled
//! to and drawn in the highlight colour, and Tab makes it the selection.

use std::time::Duration;

use crate::harness::{eventually, Koi, Xvfb};
use crate::write_config;

#[test]
fn a_match_fifty_thousand_lines_up_is_found_highlighted_and_selected() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "[scrolling]\nhistory = 100000\n");
    let koi = Koi::start(&x, dir.path(), &config, &[]);
    // The output says needle-42; the command line itself does not.
    koi.run_command(&x, "echo needle-$((6*7)); seq 1 50000");
    // Behind the current match (render/src/chrome.rs).
    let current_match = crate::chrome_rgb(|c| c.current_background);
    let count_pixels = || {
        let shot = x.screenshot(&koi.window);
        let mut n = 0;
        for y in 0..shot.height {
            for x in 0..shot.width {
                if shot.rgb(x, y) == current_match {
                    n += 1;
                }
            }
        }
        n
    };
    assert_eq!(count_pixels(), 0, "nothing highlighted before searching");
    koi.keys(&x, "ctrl+shift+f");
    koi.type_text(&x, "needle-42");
    eventually(
        "the match to be scrolled to and highlighted",
        Duration::from_secs(30),
        || count_pixels() > 50,
    );
    // Tab: the match becomes the selection; copy it.
    koi.keys(&x, "Tab");
    koi.keys(&x, "ctrl+shift+c");
    eventually(
        "the match on the clipboard",
        Duration::from_secs(10),
        || x.selection("clipboard") == "needle-42",
    );
    // The bar is closed: keys reach the shell again.
    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
}
