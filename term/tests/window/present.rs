//! How frames reach the X window. On a CPU rasteriser koi puts only the
//! rows that changed into the window (`PutImage`); what the window shows
//! must be exactly what the wgpu surface shows after the same keys.

use std::time::{Duration, Instant};

use crate::harness::{Image, Koi, Xvfb};

/// What `KOI_PRESENT=<present>` koi's window shows once the typed line has
/// settled, and koi's stderr.
fn typed_screen(x: &Xvfb, present: &str) -> (Image, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    std::fs::write(
        &config,
        "[colors]\nbackground = \"#101418\"\n[window]\npadding = 3\ncolumns = 30\nlines = 6\n\
         [cursor]\nblink = false\n",
    )
    .unwrap();
    let env = [
        ("KOI_PRESENT", present.to_string()),
        ("KOI_REPORT_FRAMES", "1".to_string()),
    ];
    let koi = Koi::start_with_env(x, dir.path(), &config, &[], &env);
    let first = x.screenshot(&koi.window);
    // One key at a time: every echo is a frame of one changed row.
    koi.type_text(x, "echo rows");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut last = x.screenshot(&koi.window);
    let settled = loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = x.screenshot(&koi.window);
        if now == last && now != first {
            break now;
        }
        assert!(Instant::now() < deadline, "the window never settled");
        last = now;
    };
    koi.keys(x, "ctrl+u");
    koi.type_line(x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
    (settled, stderr)
}

#[test]
fn rows_put_into_the_window_add_up_to_what_the_surface_shows() {
    let x = Xvfb::start();
    let (put, log) = typed_screen(&x, "auto");
    let (surface, surface_log) = typed_screen(&x, "surface");
    assert!(
        surface_log.contains("presented with the surface"),
        "{surface_log}"
    );
    assert!(
        put.width == surface.width && put.height == surface.height,
        "window sizes differ: {}x{} and {}x{}",
        put.width,
        put.height,
        surface.width,
        surface.height
    );
    let bg = [0x10, 0x14, 0x18];
    // "$ echo rows" and the cursor: ink on the first row, none below.
    let row = surface.height / 6;
    assert!(
        surface.ink(0, 3, surface.width, row, bg) > 0,
        "no text drawn"
    );
    assert_eq!(surface.ink(0, 3 + row, surface.width, 4 * row, bg), 0);
    assert!(
        put == surface,
        "the rows put into the window differ from the surface's frame"
    );
    // On lavapipe (CI) frames went through PutImage; with a real GPU both
    // windows came from the surface and the comparison above is trivial.
    if log.contains("Cpu)") {
        assert!(
            log.contains("presented with PutImage"),
            "a CPU adapter and no PutImage:\n{log}"
        );
    }
}
