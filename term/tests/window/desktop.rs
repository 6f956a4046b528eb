//! How koi's window meets the desktop: its X class names koi.desktop (so
//! the installed entry's icon and name go with it), and the shell in the
//! window gets `TERM=koi` when koi's terminfo entry can be found.

use std::process::Command;

use crate::harness::{Koi, Xvfb};
use crate::{write_config, EXIT_WAIT};

/// The entry's source in the repository.
const SOURCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../assets/terminfo/koi.terminfo"
);

#[test]
fn the_window_is_koi_and_its_shell_gets_term_koi() {
    const TEST: &str = "the_window_is_koi_and_its_shell_gets_term_koi";
    let dir = tempfile::tempdir().unwrap();
    let terminfo = dir.path().join("terminfo");
    let compiled = Command::new("tic")
        .args(["-x", "-o"])
        .arg(&terminfo)
        .arg(SOURCE)
        .status();
    if !compiled.is_ok_and(|s| s.success()) {
        koi_testkit::skip::skip(
            koi_testkit::skip::PROGRAMS,
            TEST,
            "tic (ncurses-bin) cannot compile koi's entry here",
        );
        return;
    }
    let x = Xvfb::start();
    let config = dir.path().join("koi.toml");
    write_config(&config, "#101418", "");
    let env = [("TERMINFO_DIRS", terminfo.display().to_string())];
    let koi = Koi::start_with_env(&x, dir.path(), &config, &[], &env);

    let class = Command::new("xprop")
        .args(["-id", &koi.window, "WM_CLASS"])
        .env("DISPLAY", &x.display)
        .output()
        .expect("xprop (x11-utils)");
    let class = String::from_utf8_lossy(&class.stdout);
    assert_eq!(class.trim(), r#"WM_CLASS(STRING) = "koi", "koi""#);

    let out = dir.path().join("term.txt");
    koi.run_command(
        &x,
        &format!(
            "{{ echo \"$TERM\"; tput Smulx 3 | od -An -tx1 | tr -d ' '; }} > '{}'",
            out.display()
        ),
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // ESC [ 4 : 3 m, the curly underline koi draws.
    assert_eq!(lines, ["koi", "1b5b343a336d"], "{text}");

    koi.type_line(&x, "exit");
    let (code, stderr, _) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
}
