//! The terminal core against a real shell in a real PTY.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use koi_terminal::snapshot::ColorSnapshot;
use koi_terminal::{GridSize, SessionEvent};

#[test]
fn echo_lands_on_the_grid() {
    let s = sh("echo hello koi");
    let snap = run_to_exit(&s);
    assert_eq!(snap.lines[0], "hello koi");
    assert_eq!(snap.cell(0, 6).unwrap().text, "k");
}

#[test]
fn exit_status_propagates() {
    for code in [0u32, 1, 7, 42] {
        let s = sh(&format!("exit {code}"));
        let status = s.wait_exit(Some(WAIT)).expect("exit");
        assert_eq!(status.code, code);
        assert_eq!(status.success(), code == 0);
    }
}

#[test]
fn killed_child_reports_its_signal() {
    let s = sh("kill -KILL $$");
    let status = s.wait_exit(Some(WAIT)).expect("exit");
    assert!(!status.success());
    assert!(status.signal.is_some(), "{status:?}");
}

#[test]
fn sgr_colours_and_attributes_land_in_cells() {
    let s = sh(
        r"printf '\033[31mA\033[0m\033[38;5;196mB\033[0m\033[38;2;1;2;3mC\033[0m\033[48;2;250;0;10mD\033[0m\033[1mE\033[0m\033[3mF\033[0m\033[4mG\033[0m\033[4:3mH\033[0m\033[9mI\033[0m\033[7mJ\033[0m\033[2mK\033[0m\033[58;2;9;8;7;4mL\033[0m\n'",
    );
    let snap = run_to_exit(&s);
    assert_eq!(snap.lines[0], "ABCDEFGHIJKL");
    let cell = |col| snap.cell(0, col).unwrap().clone();
    assert_eq!(cell(0).fg, ColorSnapshot::Named("red".into()));
    assert_eq!(cell(1).fg, ColorSnapshot::Indexed(196));
    assert_eq!(cell(2).fg, ColorSnapshot::Rgb("#010203".into()));
    assert_eq!(cell(3).bg, ColorSnapshot::Rgb("#fa000a".into()));
    assert!(cell(4).has("bold") && !cell(4).has("italic"));
    assert!(cell(5).has("italic"));
    assert!(cell(6).has("underline"));
    assert!(cell(7).has("curly_underline"));
    assert!(cell(8).has("strikeout"));
    assert!(cell(9).has("inverse"));
    assert!(cell(10).has("dim"));
    assert_eq!(
        cell(11).underline_color,
        Some(ColorSnapshot::Rgb("#090807".into()))
    );
    assert!(cell(11).has("underline"));
    // Attributes were reset: the next cell is plain.
    assert!(cell(12).flags.is_empty());
}

#[test]
fn cjk_wide_characters_take_two_cells() {
    let s = sh("printf 'a你b\\n'");
    let snap = run_to_exit(&s);
    assert_eq!(snap.lines[0], "a你b");
    assert_eq!(snap.cell(0, 1).unwrap().text, "你");
    assert!(snap.cell(0, 1).unwrap().has("wide"));
    assert!(snap.cell(0, 2).unwrap().has("wide_spacer"));
    assert_eq!(snap.cell(0, 3).unwrap().text, "b");
}

#[test]
fn cursor_position_report_is_answered() {
    let reply = query_reply(r"\033[3;5H\033[6n");
    assert_eq!(reply, b"\x1b[3;5R");
}

#[test]
fn device_attributes_and_status_are_answered() {
    let da1 = query_reply(r"\033[c");
    assert!(
        da1.starts_with(b"\x1b[?") && da1.ends_with(b"c"),
        "DA1 {:?}",
        String::from_utf8_lossy(&da1)
    );
    let da2 = query_reply(r"\033[>c");
    assert!(
        da2.starts_with(b"\x1b[>") && da2.ends_with(b"c"),
        "DA2 {:?}",
        String::from_utf8_lossy(&da2)
    );
    assert_eq!(query_reply(r"\033[5n"), b"\x1b[0n");
}

#[test]
fn decrqm_reports_modes() {
    // Bracketed paste (2004) is reset by default: reply Ps=2 ("reset").
    assert_eq!(query_reply(r"\033[?2004$p"), b"\x1b[?2004;2$y");
    assert_eq!(query_reply(r"\033[?2004h\033[?2004$p"), b"\x1b[?2004;1$y");
}

#[test]
fn colour_queries_report_the_theme() {
    let palette = koi_terminal::palette::Palette::default();
    let bg = palette.get(257);
    let reply = query_reply(r"\033]11;?\033\\");
    let want = format!(
        "\x1b]11;rgb:{0:02x}{0:02x}/{1:02x}{1:02x}/{2:02x}{2:02x}\x1b\\",
        bg.r, bg.g, bg.b
    );
    assert_eq!(String::from_utf8_lossy(&reply), want);
    let fg_reply = query_reply(r"\033]10;?\007");
    assert!(
        String::from_utf8_lossy(&fg_reply).starts_with("\x1b]10;rgb:"),
        "{fg_reply:?}"
    );
    // An application-set colour is reported back as set.
    let set = query_reply(r"\033]11;#102030\007\033]11;?\007");
    assert_eq!(
        String::from_utf8_lossy(&set),
        "\x1b]11;rgb:1010/2020/3030\x07"
    );
}

#[test]
fn text_area_size_is_reported() {
    assert_eq!(query_reply(r"\033[18t"), b"\x1b[8;24;80t");
    // 14t: pixels, from the nominal 8×16 cell.
    assert_eq!(query_reply(r"\033[14t"), b"\x1b[4;384;640t");
}

#[test]
fn resize_changes_stty_size() {
    let s = sh("stty size; read line; stty size; read line");
    wait_text(&s, "24 80");
    s.resize(GridSize::new(100, 30));
    s.write("\n");
    wait_text(&s, "30 100");
    assert_eq!(s.size(), GridSize::new(100, 30));
    let snap = snapshot(&s);
    assert_eq!((snap.cols, snap.rows), (100, 30));
    s.write("\n");
    run_to_exit(&s);
}

#[test]
fn alternate_screen_is_entered_and_left() {
    let s = sh(
        r"echo primary; printf '\033[?1049h\033[HALT SCREEN'; read line; printf '\033[?1049l'; echo back",
    );
    let alt = wait_text(&s, "ALT SCREEN");
    assert!(alt.alt_screen);
    assert!(!alt.contains("primary"));
    s.write("\n");
    let snap = run_to_exit(&s);
    assert!(!snap.alt_screen);
    assert!(snap.contains("primary") && snap.contains("back"));
    assert!(!snap.contains("ALT SCREEN"));
}

#[test]
fn title_and_bell_events_arrive_in_order() {
    let s = sh(r"printf '\033]2;my title\007\007'");
    s.wait_exit(Some(WAIT)).unwrap();
    let events: Vec<_> = s.events().try_iter().collect();
    let title = events
        .iter()
        .position(|e| *e == SessionEvent::Title("my title".into()));
    let bell = events.iter().position(|e| *e == SessionEvent::Bell);
    assert!(
        title.is_some() && bell.is_some() && title < bell,
        "{events:?}"
    );
    assert!(
        matches!(events.last(), Some(SessionEvent::Exited(_))),
        "{events:?}"
    );
}

#[test]
fn osc52_store_reaches_the_owner_but_load_is_refused() {
    // "aGk=" is base64 for "hi". The load request must get no reply at all.
    let s = sh(r"printf '\033]52;c;aGk=\007'");
    s.wait_exit(Some(WAIT)).unwrap();
    let events: Vec<_> = s.events().try_iter().collect();
    assert!(
        events.contains(&SessionEvent::ClipboardStore {
            primary: false,
            text: "hi".into()
        }),
        "{events:?}"
    );
    assert_eq!(query_reply(r"\033]52;c;?\007"), b"");
}

#[test]
fn input_reaches_the_application_in_order() {
    let s = sh("read a; read b; echo \"got:$a:$b\"");
    s.write("first\n");
    s.write(koi_terminal::input::encode_paste("second\n", false));
    let snap = run_to_exit(&s);
    assert!(snap.contains("got:first:second"), "{}", snap.text());
}

#[test]
fn bracketed_paste_cannot_be_ended_by_pasted_text() {
    // cat -v shows what the application received: exactly one start and one end marker.
    let s = sh(
        r"printf '\033[?2004h'; stty raw -echo; dd bs=1 count=40 2>/dev/null | od -An -c | tr -s ' ' ; stty sane",
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut paste = koi_terminal::input::encode_paste("ab\x1b[201~cd", true);
    // Pad to the byte count dd waits for.
    paste.resize(40, b'z');
    s.write(paste);
    let snap = run_to_exit(&s);
    // od -c separates characters with blanks; squeeze them out.
    let text: String = snap.text().split_whitespace().collect();
    assert!(text.contains("033[200~ab[201~cd033[201~"), "{text}");
    assert_eq!(
        text.matches("033").count(),
        2,
        "only the two markers carry ESC: {text}"
    );
}

#[test]
fn synchronized_updates_are_released_by_their_timeout() {
    // Begin a synchronized update and never end it: content must still show
    // once the timeout (150 ms) passes.
    let s = sh(r"printf '\033[?2026hSYNCED'; sleep 5");
    wait_text(&s, "SYNCED");
}

#[test]
fn synchronized_updates_are_atomic() {
    let s = sh(r"printf '\033[?2026hONE'; sleep 0.05; printf ' TWO\033[?2026l'; sleep 5");
    let snap = wait_text(&s, "ONE");
    assert!(
        snap.contains("ONE TWO"),
        "a half-drawn synchronized update was visible: {}",
        snap.text()
    );
}

#[test]
fn wakeups_are_coalesced_until_rearmed() {
    let calls = Arc::new(AtomicUsize::new(0));
    let options = koi_terminal::SessionOptions {
        command: Some(vec![
            "sh".into(),
            "-c".into(),
            "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; done; sleep 0.3; echo done; read x".into(),
        ]),
        ..Default::default()
    };
    let counter = calls.clone();
    let s = koi_terminal::Session::spawn(options, move || {
        counter.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    wait_text(&s, "10");
    // Without rearming, the burst of output called back at most once.
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    s.rearm_wakeup();
    wait_text(&s, "done");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // The exit calls back although nothing rearmed the wake-up since
    // "done": an owner holding a frame back must still learn of it now.
    s.write(b"\n".to_vec());
    s.wait_exit(Some(WAIT)).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[test]
fn twenty_megabytes_arrive_complete_under_concurrent_snapshots() {
    const LINES: usize = 400_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..LINES {
        // 52 bytes a line: 400k lines ≈ 20.8 MB.
        writeln!(file, "line {i:09} the quick brown fox jumps over a dog").unwrap();
    }
    file.flush().unwrap();
    drop(file);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 20_000_000);

    let s = spawn(&["cat", path.to_str().unwrap()], 80, 24);
    let done = Arc::new(AtomicBool::new(false));
    let snapshots = std::thread::scope(|scope| {
        let snapper = scope.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                let snap = snapshot(&s);
                // Every complete row is one whole line of the file.
                for line in snap.lines.iter().filter(|l| l.len() == 51) {
                    assert!(
                        line.starts_with("line ") && line.ends_with(" dog"),
                        "torn row: {line:?}"
                    );
                }
                n += 1;
            }
            n
        });
        s.wait_exit(Some(Duration::from_secs(120)))
            .expect("cat finished");
        done.store(true, Ordering::Relaxed);
        snapper.join().unwrap()
    });
    // The PTY turns each \n into \r\n: exactly one extra byte per line.
    assert_eq!(s.bytes_read(), size + LINES as u64);
    let snap = snapshot(&s);
    assert!(
        snap.contains(&format!("line {:09}", LINES - 1)),
        "{}",
        snap.text()
    );
    assert!(snapshots > 1, "the UI side got to look while parsing ran");
}

#[test]
fn bad_commands_and_directories_are_clear_errors() {
    let err = koi_terminal::Session::spawn(
        koi_terminal::SessionOptions {
            command: Some(vec!["/no/such/program".into()]),
            ..Default::default()
        },
        || {},
    )
    .err()
    .expect("must fail");
    assert!(err.to_string().contains("/no/such/program"), "{err}");
    let err = koi_terminal::Session::spawn(
        koi_terminal::SessionOptions {
            command: Some(vec!["true".into()]),
            working_directory: Some("/no/such/dir".into()),
            ..Default::default()
        },
        || {},
    )
    .err()
    .expect("must fail");
    assert!(err.to_string().contains("/no/such/dir"), "{err}");
    let empty = koi_terminal::Session::spawn(
        koi_terminal::SessionOptions {
            command: Some(vec![]),
            ..Default::default()
        },
        || {},
    );
    assert!(empty.is_err());
}

#[test]
fn environment_identifies_koi() {
    let s = sh("echo \"$TERM|$COLORTERM|$TERM_PROGRAM|${TERM_PROGRAM_VERSION:+set}\"");
    let snap = run_to_exit(&s);
    assert_eq!(snap.lines[0], "xterm-256color|truecolor|koi|set");
}

#[test]
fn shell_integration_reports_the_last_command_and_cwd() {
    let snippet = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/shell/koi.bash");
    let options = koi_terminal::SessionOptions {
        command: Some(vec![
            "bash".into(),
            "--norc".into(),
            "--noprofile".into(),
            "-i".into(),
        ]),
        env: vec![
            ("TERM_PROGRAM".into(), "koi".into()),
            ("PS1".into(), "$ ".into()),
        ],
        working_directory: Some("/tmp".into()),
        ..Default::default()
    };
    let s = koi_terminal::Session::spawn(options, || {}).unwrap();
    s.write(format!("source {snippet}\n"));
    s.write("echo hello-from-cmd; echo second line; false\n");
    wait_for(&s, "the command's output", |snap| {
        snap.contains("second line")
    });
    let deadline = std::time::Instant::now() + WAIT;
    let last = loop {
        if let Some(last) = s
            .last_command()
            .filter(|l| l.command.contains("hello-from-cmd"))
        {
            break last;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no command mark; screen:\n{}",
            snapshot(&s).text()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(last.command, "echo hello-from-cmd; echo second line; false");
    assert_eq!(last.output, "hello-from-cmd\nsecond line");
    assert_eq!(last.exit_code, Some(1));
    assert_eq!(s.cwd().as_deref(), Some("/tmp"));
    s.write("exit\n");
    s.wait_exit(Some(WAIT)).unwrap();
}

/// An rc file that sets a plain prompt (the system's bash.bashrc may set
/// its own) and loads koi's integration.
fn koi_rc(dir: &std::path::Path) -> String {
    let koi = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/shell/koi.bash");
    let rc = dir.join("rc.bash");
    std::fs::write(&rc, format!("PS1='$ '\nsource '{koi}'\n")).unwrap();
    rc.display().to_string()
}

/// bash with koi's integration sourced from its rc file, with a marker
/// file touched at every prompt.
fn integrated_bash(dir: &std::path::Path, token: Option<String>) -> koi_terminal::Session {
    let rc = koi_rc(dir);
    let options = koi_terminal::SessionOptions {
        command: Some(
            ["bash", "--rcfile", &rc, "--noprofile", "-i"]
                .map(String::from)
                .to_vec(),
        ),
        env: vec![(
            "PROMPT_COMMAND".into(),
            format!(": > '{}'", dir.join("ready").display()),
        )],
        working_directory: Some(dir.to_path_buf()),
        size: GridSize::new(200, 40),
        overlay_token: token,
        ..Default::default()
    };
    koi_terminal::Session::spawn(options, || {}).unwrap()
}

/// Waits for the next prompt: the marker file bash touches, then one
/// more `$` line on the screen (koi has parsed up to it). `seen` counts
/// the prompts so far.
fn wait_prompt(s: &koi_terminal::Session, dir: &std::path::Path, seen: &mut usize) {
    let ready = dir.join("ready");
    let deadline = std::time::Instant::now() + WAIT;
    while !ready.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no prompt:\n{}",
            snapshot(s).text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_file(&ready).unwrap();
    *seen += 1;
    let want = *seen;
    wait_for(s, "the prompt drawn", |snap| {
        snap.lines.iter().filter(|l| l.starts_with('$')).count() >= want
    });
}

#[test]
fn a_failed_command_is_a_fresh_block_until_the_next_line() {
    let dir = tempfile::tempdir().unwrap();
    let s = integrated_bash(dir.path(), None);
    let mut seen = 0;
    wait_prompt(&s, dir.path(), &mut seen);
    assert!(s.fresh_block().is_none(), "the first prompt ran nothing");

    s.write("ls /nonexistent\n");
    wait_prompt(&s, dir.path(), &mut seen);
    let fresh = s.fresh_block().expect("a block");
    assert_eq!(fresh.command, "ls /nonexistent");
    assert_eq!(fresh.exit_code, Some(2));
    assert_eq!(fresh.row, Some(1), "the error line, under the command");
    assert!(fresh.wants_fix(&[]));
    let last = s.last_command().unwrap();
    assert!(
        last.output.contains("No such file or directory"),
        "{last:?}"
    );

    // An empty line: no C mark, nothing ran, and the block is no longer fresh.
    s.write("\n");
    wait_prompt(&s, dir.path(), &mut seen);
    assert!(s.fresh_block().is_none());
    assert_eq!(s.last_command().unwrap().command, "ls /nonexistent");

    // Ctrl+C: a block with status 130, never a failure to fix.
    s.write("sleep 10\n");
    wait_text(&s, "sleep 10");
    std::thread::sleep(Duration::from_millis(300));
    s.write("\x03");
    wait_prompt(&s, dir.path(), &mut seen);
    let fresh = s.fresh_block().expect("the interrupted block");
    assert_eq!(fresh.exit_code, Some(130));
    assert!(!fresh.wants_fix(&[]));

    // Dismissed: gone until the next command.
    s.write("false\n");
    wait_prompt(&s, dir.path(), &mut seen);
    assert!(s.fresh_block().is_some_and(|f| f.wants_fix(&[])));
    s.dismiss_fresh_block();
    assert!(s.fresh_block().is_none());
    s.write("exit\n");
    s.wait_exit(Some(WAIT)).unwrap();
}

#[test]
fn koi_answers_the_last_command_request_only_with_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let token = koi_terminal::overlay_token::new_token();
    let s = integrated_bash(dir.path(), Some(token));
    let mut seen = 0;
    wait_prompt(&s, dir.path(), &mut seen);
    s.write("ls /nonexistent\n");
    wait_prompt(&s, dir.path(), &mut seen);
    // The shell asks as `k fix` does (echo off before the request, so a
    // quick reply is never echoed) and prints the reply's fields.
    let ask = |tok: &str| {
        format!(
            "stty -echo; printf '\\e]7717;last-command;%s\\a' {tok}; \
             IFS= read -r -d $'\\a' -t 3 r; stty echo; echo \"got:${{r#*last-command;}}:end\"\n"
        )
    };
    // While a command runs, the last block is the one before it.
    s.write(ask("\"$KOI_SESSION_TOKEN\""));
    wait_prompt(&s, dir.path(), &mut seen);
    s.write(ask("0123abcd"));
    wait_prompt(&s, dir.path(), &mut seen);
    let text = snapshot(&s).text();
    let replies: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("got:"))
        .collect();
    assert_eq!(replies.len(), 2, "{text}");
    assert_eq!(replies[1], ":end", "a wrong token gets no answer");
    let payload = replies[0].strip_suffix(":end").unwrap();
    let block = ai_chat_engine::FailedCommand::parse_reply(&format!("7717;last-command;{payload}"))
        .unwrap()
        .expect("a block");
    assert_eq!(block.command.as_deref(), Some("ls /nonexistent"));
    assert_eq!(block.exit_code, Some(2));
    assert!(
        block.output.contains("No such file or directory"),
        "{block:?}"
    );
    s.write("exit\n");
    s.wait_exit(Some(WAIT)).unwrap();
}

#[test]
fn overlay_requests_need_the_session_token() {
    let token = koi_terminal::overlay_token::new_token();
    let options = koi_terminal::SessionOptions {
        command: Some(vec![
            "sh".into(),
            "-c".into(),
            // A forged token, then the one from the environment.
            r#"printf '\033]7717;open-overlay;forged\007'; printf '\033]7717;open-overlay;%s\007' "$KOI_SESSION_TOKEN""#.into(),
        ]),
        overlay_token: Some(token),
        ..Default::default()
    };
    let s = koi_terminal::Session::spawn(options, || {}).unwrap();
    s.wait_exit(Some(WAIT)).unwrap();
    let opened = s
        .events()
        .try_iter()
        .filter(|e| *e == SessionEvent::OpenOverlay)
        .count();
    assert_eq!(
        opened, 1,
        "exactly the request carrying the real token opens the overlay"
    );

    // Without a token configured, nothing can open it.
    let s = sh(r"printf '\033]7717;open-overlay;\007'");
    s.wait_exit(Some(WAIT)).unwrap();
    assert!(!s
        .events()
        .try_iter()
        .any(|e| e == SessionEvent::OpenOverlay));
}
