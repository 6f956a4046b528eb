//! Fixing a failed command end to end: a plain bash with koi's shell
//! integration (OSC 133) injected as koi does for users (no rc edit), real
//! keys under Xvfb, the hint as drawn pixels, the real engine and a
//! scripted model on loopback (koi_testkit).

use std::path::{Path, PathBuf};
use std::time::Duration;

use koi_testkit::openai_chat::{title, ChatStream};
use koi_testkit::poll;
use koi_testkit::window::ocr;
use koi_testkit::window::scene::{log_count, panel_idle, read_overlay};
use koi_testkit::FakeProvider;

use crate::harness::{eventually, Image, Koi, TestConfig, Xvfb};

const EXIT_WAIT: Duration = Duration::from_secs(30);
const MODEL_WAIT: Duration = Duration::from_secs(20);
/// How long the hint may take to be drawn after the prompt is up.
const HINT_WAIT: Duration = Duration::from_secs(10);
/// A duration no other test sleeps for: its process is this test's.
const SLEEP_SECONDS: &str = "10.417";
/// Typed at the prompt to prove a frame was drawn after a command ended.
const PROBE: &str = "probe";

/// The hint's background (render/src/chrome.rs): no other pixel of this
/// test's window has it.
fn hint_background() -> [u8; 3] {
    crate::chrome_rgb(|c| c.hint_background)
}

fn config_for(dir: &Path, server: Option<&FakeProvider>) -> PathBuf {
    let path = dir.join("cfg/koi.toml");
    let config = TestConfig::new(100, 30);
    match server {
        Some(server) => config.ai(server),
        None => config,
    }
    .write(&path);
    path
}

/// koi running a plain `bash` (`$SHELL`, no `[shell]` in the config), so
/// koi injects its integration as users get it; the user's own ~/.bashrc
/// only sets a prompt and touches the ready marker at each one.
fn start(x: &Xvfb, dir: &Path, config: &Path) -> Koi {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ready = dir.join("prompt-ready");
    std::fs::write(
        home.join(".bashrc"),
        format!("PS1='$ '\nPROMPT_COMMAND=\": > '{}'\"\n", ready.display()),
    )
    .unwrap();
    let env = [
        ("HOME", home.display().to_string()),
        ("SHELL", "bash".to_owned()),
    ];
    Koi::start_shell(x, dir, config, &home, &env, &ready)
}

fn hint_pixels(shot: &Image) -> usize {
    let hint = hint_background();
    let mut n = 0;
    for py in 0..shot.height {
        for px in 0..shot.width {
            if shot.rgb(px, py) == hint {
                n += 1;
            }
        }
    }
    n
}

fn wait_for_hint(x: &Xvfb, koi: &Koi, what: &str) {
    eventually(what, HINT_WAIT, || {
        hint_pixels(&x.screenshot(&koi.window)) > 0
    });
}

/// The hint that was there goes away (the frame after the event is drawn
/// a moment later) and stays away.
fn assert_hint_goes(x: &Xvfb, koi: &Koi, what: &str) {
    eventually(&format!("the hint to go after {what}"), HINT_WAIT, || {
        hint_pixels(&x.screenshot(&koi.window)) == 0
    });
    assert_no_hint(x, koi, what);
}

/// No hint after `what`, proven by an event rather than by watching for a
/// while: a probe typed at the prompt is echoed after the shell reported
/// the command's end (OSC 133;D comes before its prompt), so the first
/// frame that shows the probe was drawn from the state that decides the
/// hint. That frame has none. The probe is then erased.
fn assert_no_hint(x: &Xvfb, koi: &Koi, what: &str) {
    koi.type_text(x, PROBE);
    let shot = poll::until(
        &format!("the probe at the prompt after {what}"),
        HINT_WAIT,
        || {
            let shot = x.screenshot(&koi.window);
            match ocr::read(&shot, "fix::assert_no_hint") {
                Some(read) if !ocr::shows(&read, PROBE) => Err(format!("tesseract read:\n{read}")),
                _ => Ok(shot),
            }
        },
    );
    assert_eq!(hint_pixels(&shot), 0, "a hint after {what}");
    koi.keys(x, "ctrl+u");
}

/// Waits until the engine has logged `n` finished turns and the panel
/// shows the turn ended.
fn wait_for_turns(koi: &Koi, dir: &Path, n: usize) {
    eventually(&format!("{n} finished turns"), MODEL_WAIT, || {
        log_count(dir, "turn_end") >= n
    });
    eventually("the panel to show the turn ended", MODEL_WAIT, || {
        panel_idle(&read_overlay(&koi.dump))
    });
}

#[test]
fn a_failed_command_gets_a_hint_and_ctrl_shift_e_asks_for_its_fix() {
    let server = FakeProvider::builder().always(title()).start(vec![ChatStream::new()
        .text("`/nonexistent` does not exist. List a directory that does:\n\n```sh\necho fixed-by-koi\n```\n")
        .stop()
        .reply()]);
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), Some(&server));
    let koi = start(&x, dir.path(), &config);

    koi.run_command(&x, "ls /nonexistent");
    wait_for_hint(&x, &koi, "the fix hint under `ls /nonexistent`");

    koi.keys(&x, "ctrl+shift+e");
    assert!(
        server.wait_for_requests(1, MODEL_WAIT),
        "the engine never asked the model"
    );
    wait_for_turns(&koi, dir.path(), 1);
    let requests = server.requests();
    let body = requests
        .iter()
        .map(|r| r.body_str())
        .find(|b| b.contains("failed command"))
        .unwrap_or_else(|| panic!("no fix request among {} requests", requests.len()));
    let open = body
        .find("<untrusted-data kind=\\\"command-output\\\"")
        .expect("wrapper");
    let close = body[open..].find("</untrusted-data>").expect("wrapper end") + open;
    let inside = &body[open..close];
    for want in [
        "$ ls /nonexistent",
        "No such file or directory",
        "[exit status 2]",
    ] {
        assert!(inside.contains(want), "{want:?} not fenced in: {body}");
    }
    assert!(body.contains("What is the cause"), "{body}");
    assert!(!body.contains("sk-test-not-secret"));

    // Ctrl+Y types the answer's command at the prompt without running it;
    // the rest of the line is typed by hand.
    koi.keys(&x, "ctrl+y");
    // koi writes the fix to the shell and closes the panel in one step;
    // keys typed after it reach the shell after the fix.
    eventually("Ctrl+Y to close the panel", MODEL_WAIT, || {
        read_overlay(&koi.dump).starts_with("overlay: closed")
    });
    koi.type_line(&x, "; exit 0");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    let screen = std::fs::read_to_string(&dump).unwrap();
    assert!(
        screen.contains("$ echo fixed-by-koi; exit 0"),
        "the fix was not put at the prompt:\n{screen}"
    );
    let overlay = read_overlay(&dump);
    assert!(overlay.contains("does not exist"), "{overlay}");
    drop(server);
}

#[test]
fn no_hint_for_interrupts_empty_lines_ignored_commands_or_after_esc() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), None);
    let koi = start(&x, dir.path(), &config);

    // The hint shows here, so its absence below means something.
    koi.run_command(&x, "false");
    wait_for_hint(&x, &koi, "the hint under `false`");
    // An empty line ran nothing, and the hint is gone.
    koi.run_command(&x, "");
    assert_hint_goes(&x, &koi, "an empty line");

    // Ctrl+C: exit status 130 is no failure.
    koi.type_line(&x, &format!("sleep {SLEEP_SECONDS}"));
    // Ctrl+C must reach the command, not the line editor: wait for it.
    eventually("the sleep to start", EXIT_WAIT, || {
        std::process::Command::new("pgrep")
            .args(["-f", &format!("^sleep {SLEEP_SECONDS}$")])
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    let marker = dir.path().join("prompt-ready");
    let _ = std::fs::remove_file(&marker);
    koi.keys(&x, "ctrl+c");
    eventually("the prompt after Ctrl+C", EXIT_WAIT, || marker.exists());
    assert_no_hint(&x, &koi, "Ctrl+C");

    // grep's "no match" is in the default ignore list.
    koi.run_command(&x, "grep no-such-text /dev/null");
    assert_no_hint(&x, &koi, "an ignored command");

    // Esc dismisses it.
    koi.run_command(&x, "false");
    wait_for_hint(&x, &koi, "the hint under the second `false`");
    koi.keys(&x, "Escape");
    assert_hint_goes(&x, &koi, "Esc");
    // …and the Esc did not reach the shell (as a Meta prefix it would
    // have eaten the next key).
    koi.type_line(&x, "echo after-esc; exit 0");
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    let screen = std::fs::read_to_string(&dump).unwrap();
    assert!(screen.contains("\nafter-esc"), "{screen}");
}
