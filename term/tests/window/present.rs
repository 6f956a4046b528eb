//! How frames reach the X window. On a CPU rasteriser koi puts only the
//! rows that changed into the window (`PutImage`); what the window shows
//! must be exactly what the wgpu surface shows after the same keys.

use std::time::{Duration, Instant};

use crate::harness::{Image, Koi, Xvfb};

/// What koi's window showed once the typed line had settled.
struct Typed {
    screen: Image,
    stderr: String,
    /// Whether koi had loaded a GL driver (Mesa's EGL) by then.
    gl_loaded: bool,
}

/// What koi's window shows once the typed line has settled, with `env`
/// added to koi's environment.
fn typed_screen(x: &Xvfb, env: &[(&str, &str)]) -> Typed {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    std::fs::write(
        &config,
        "[colors]\nbackground = \"#101418\"\n[window]\npadding = 3\ncolumns = 30\nlines = 6\n\
         [cursor]\nblink = false\n",
    )
    .unwrap();
    let env: Vec<(&str, String)> = [("KOI_REPORT_FRAMES", "1")]
        .iter()
        .chain(env)
        .map(|&(name, value)| (name, value.to_string()))
        .collect();
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
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", koi.pid())).unwrap();
    koi.keys(x, "ctrl+u");
    koi.type_line(x, "exit");
    let (code, stderr, _) = koi.wait(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr}");
    Typed {
        screen: settled,
        stderr,
        gl_loaded: maps.contains("libEGL_mesa"),
    }
}

#[test]
fn rows_put_into_the_window_add_up_to_what_the_surface_shows() {
    let x = Xvfb::start();
    let auto = typed_screen(&x, &[("KOI_PRESENT", "auto")]);
    let (put, log) = (auto.screen, auto.stderr);
    let surface = typed_screen(&x, &[("KOI_PRESENT", "surface")]);
    let (surface, surface_log) = (surface.screen, surface.stderr);
    // Vulkan had an adapter, so GL's driver was never started beside it.
    if log.contains("(Vulkan, ") {
        assert!(!auto.gl_loaded, "GL was loaded next to Vulkan:\n{log}");
    }
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

/// Vulkan is tried first and GL only when Vulkan has no adapter: with no
/// Vulkan driver to load, koi still opens, on GL, and draws the line.
#[test]
fn with_no_vulkan_driver_the_window_draws_with_gl() {
    let x = Xvfb::start();
    let none = tempfile::tempdir().unwrap();
    let missing = none.path().join("no_icd.json");
    let missing = missing.to_str().unwrap();
    let typed = typed_screen(
        &x,
        &[("VK_ICD_FILENAMES", missing), ("VK_DRIVER_FILES", missing)],
    );
    let (screen, log) = (typed.screen, typed.stderr);
    assert!(log.contains("Gl, "), "koi did not fall back to GL:\n{log}");
    assert!(typed.gl_loaded);
    let bg = [0x10, 0x14, 0x18];
    let row = screen.height / 6;
    assert!(screen.ink(0, 3, screen.width, row, bg) > 0, "no text drawn");
}
