//! koi's terminfo entry (assets/terminfo/koi.terminfo) against a real koi
//! session: compiled with the system's `tic`, read back with `tput` inside
//! koi's PTY, and every string it claims is sent to koi, which must set the
//! cell attribute or mode the capability names. Without the entry, programs
//! get `xterm-256color`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use alacritty_terminal::term::TermMode;
use alacritty_terminal::vte::ansi::CursorShape;
use common::*;
use koi_terminal::snapshot::{ColorSnapshot, Snapshot};
use koi_terminal::{GridSize, Session, SessionOptions};

/// The entry's source in the repository.
const SOURCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../assets/terminfo/koi.terminfo"
);

/// Compiles the entry into a fresh directory with `tic -x`; `None` (a
/// recorded skip) when ncurses' tools are not installed.
fn compiled(test: &str) -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("tic")
        .args(["-x", "-o"])
        .arg(dir.path())
        .arg(SOURCE)
        .output();
    match out {
        Ok(out) => {
            assert!(
                out.status.success(),
                "tic rejected {SOURCE}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(dir.path().join("k/koi").is_file());
            Some(dir)
        }
        Err(e) => {
            koi_testkit::skip::skip(
                koi_testkit::skip::PROGRAMS,
                test,
                &format!("tic (ncurses-bin) cannot run: {e}"),
            );
            None
        }
    }
}

/// `script` in `sh` inside koi, with `HOME` empty and `TERMINFO_DIRS`
/// naming `terminfo` when given; returns the session after it exited.
fn run_in_koi(home: &Path, terminfo: Option<&Path>, script: &str) -> Session {
    run_in_koi_with(home, terminfo, &[], script)
}

/// [`run_in_koi`] with more environment for the child, as the config's
/// `[env]` table gives it.
fn run_in_koi_with(
    home: &Path,
    terminfo: Option<&Path>,
    extra: &[(&str, &str)],
    script: &str,
) -> Session {
    let mut env = vec![("HOME".to_owned(), home.display().to_string())];
    env.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    if let Some(dir) = terminfo {
        env.push(("TERMINFO_DIRS".to_owned(), dir.display().to_string()));
    }
    let options = SessionOptions {
        command: Some(vec!["sh".into(), "-c".into(), script.into()]),
        size: GridSize::new(80, 24),
        env,
        ..SessionOptions::default()
    };
    let session = Session::spawn(options, || {}).expect("spawn session");
    session.wait_exit(Some(WAIT)).expect("the script exits");
    session
}

fn cell(snap: &Snapshot, row: usize, col: usize) -> koi_terminal::snapshot::CellSnapshot {
    snap.cell(row, col).unwrap().clone()
}

#[test]
fn with_the_entry_installed_programs_get_term_koi_and_its_strings_work() {
    let Some(terminfo) = compiled("with_the_entry_installed_programs_get_term_koi") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    // Row 0: $TERM. Row 1: a curly underline, a single underline coloured
    // #090807, a dotted one, and a direct-colour foreground from koi-direct.
    // Row 2: Sync's two strings as bytes. Modes and cursor shape stay set.
    let script = r#"
        echo "$TERM"
        tput Smulx 3; printf A; tput sgr0
        tput smul; tput Setulc 0x090807; printf B; tput sgr0
        tput Smulx 4; printf C; tput sgr0
        tput -T koi-direct setaf 0x102030; printf D
        tput -T koi-direct setaf 1; printf E; tput sgr0
        echo
        { tput Sync 1; tput Sync 2; } | od -An -c | tr -d ' \n'; echo
        tput fe; tput BE; tput Ss 5
    "#;
    let session = run_in_koi(home.path(), Some(terminfo.path()), script);
    let snap = snapshot(&session);
    assert_eq!(snap.lines[0], "koi", "screen:\n{}", snap.text());
    assert_eq!(snap.lines[1], "ABCDE", "screen:\n{}", snap.text());
    assert!(cell(&snap, 1, 0).has("curly_underline"));
    assert!(cell(&snap, 1, 1).has("underline"));
    assert_eq!(
        cell(&snap, 1, 1).underline_color,
        Some(ColorSnapshot::Rgb("#090807".into()))
    );
    assert!(cell(&snap, 1, 2).has("dotted_underline"));
    assert_eq!(cell(&snap, 1, 3).fg, ColorSnapshot::Rgb("#102030".into()));
    assert_eq!(cell(&snap, 1, 4).fg, ColorSnapshot::Named("red".into()));
    // The begin and end of a synchronized update (mode 2026), which koi's
    // reader holds frames for.
    assert_eq!(snap.lines[2], r"033[?2026h033[?2026l");
    let term = session.terminal().lock();
    assert!(term.mode().contains(TermMode::FOCUS_IN_OUT));
    assert!(term.mode().contains(TermMode::BRACKETED_PASTE));
    let style = term.cursor_style();
    assert_eq!((style.shape, style.blinking), (CursorShape::Beam, true));
}

#[test]
fn se_restores_the_configured_cursor_and_bd_fd_turn_the_modes_off() {
    let Some(terminfo) = compiled("se_restores_the_configured_cursor") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let session = run_in_koi(
        home.path(),
        Some(terminfo.path()),
        "tput fe; tput BE; tput Ss 4; tput fd; tput BD; tput Se",
    );
    let term = session.terminal().lock();
    assert!(!term.mode().contains(TermMode::FOCUS_IN_OUT));
    assert!(!term.mode().contains(TermMode::BRACKETED_PASTE));
    let default = alacritty_terminal::term::Config::default().default_cursor_style;
    assert_eq!(term.cursor_style(), default);
}

#[test]
fn without_the_entry_programs_get_xterm_256color() {
    // koi's own install is not beside the test's koi, and HOME is empty:
    // only a system-wide entry could be found, which CI machines lack.
    if PathBuf::from("/usr/share/terminfo/k/koi").exists()
        || PathBuf::from("/lib/terminfo/k/koi").exists()
        || PathBuf::from("/etc/terminfo/k/koi").exists()
    {
        koi_testkit::skip::skip(
            koi_testkit::skip::PROGRAMS,
            "without_the_entry_programs_get_xterm_256color",
            "koi's terminfo entry is installed system-wide on this machine",
        );
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let session = run_in_koi(
        home.path(),
        None,
        r#"echo "$TERM"; tput Smulx 3 >/dev/null 2>&1; echo "smulx=$?""#,
    );
    let snap = snapshot(&session);
    assert_eq!(snap.lines[0], "xterm-256color");
    // xterm-256color has no styled underlines (tput fails on an absent capability).
    assert_ne!(snap.lines[1], "smulx=0");
}

#[test]
fn the_configs_env_table_may_still_choose_term() {
    let Some(terminfo) = compiled("the_configs_env_table_may_still_choose_term") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let session = run_in_koi_with(
        home.path(),
        Some(terminfo.path()),
        &[("TERM", "xterm-256color")],
        r#"echo "$TERM""#,
    );
    assert_eq!(snapshot(&session).lines[0], "xterm-256color");
}
