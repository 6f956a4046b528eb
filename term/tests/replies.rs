//! The replies koi answers itself (DECRQCRA, DECRQSS, DECRQM, XTWINOPS,
//! XTVERSION) and DECSTR, each asked from a real shell in a real PTY and
//! compared with the bytes xterm sends for the same request.
//!
//! The expected bytes were recorded from XTerm(379) (`allowWindowOps: true`,
//! `boldColors: false`, 80×24) and agree with ctlseqs. The table is not
//! the last word: `replies_match_a_live_xterm` asks a real xterm under
//! Xvfb every request of it, as koi is asked, and both the table and koi
//! must agree with what xterm answers. Where koi differs on purpose the
//! test says so, and `term/CONFORMANCE.md` lists it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use koi_testkit::poll::eventually;
use koi_testkit::window::Xvfb;

/// Clear the screen and home the cursor before drawing a checksum case.
const CLEAR: &str = r"\033[2J\033[H";

fn reply_text(setup: &str, request: &str) -> String {
    String::from_utf8_lossy(&query_reply(&format!("{setup}{request}"))).into_owned()
}

/// (name, setup, request, what xterm answers)
const SAME_AS_XTERM: &[(&str, &str, &str, &str)] = &[
    // DECRQCRA: the negated 16-bit sum of the cells' values.
    (
        "checksum of text",
        "abc",
        r"\033[1;1;1;1;1;3*y",
        "\x1bP1!~FEDA\x1b\\",
    ),
    (
        "checksum of a blank area counts its first cell",
        "",
        r"\033[2;1;5;5;5;10*y",
        "\x1bP2!~FFE0\x1b\\",
    ),
    (
        "checksum of one character",
        "a",
        r"\033[4;1;1;1;1;1*y",
        "\x1bP4!~FF9F\x1b\\",
    ),
    (
        "bold adds 0x80",
        r"\033[1mA\033[0m",
        r"\033[5;1;1;1;1;1*y",
        "\x1bP5!~FF3F\x1b\\",
    ),
    (
        "underline adds 0x10",
        r"\033[4mA\033[0m",
        r"\033[6;1;1;1;1;1*y",
        "\x1bP6!~FFAF\x1b\\",
    ),
    (
        "inverse adds 0x20",
        r"\033[7mA\033[0m",
        r"\033[7;1;1;1;1;1*y",
        "\x1bP7!~FF9F\x1b\\",
    ),
    (
        "colour and italic do not count",
        r"\033[31;3mA\033[0m",
        r"\033[9;1;1;1;1;1*y",
        "\x1bP9!~FFBF\x1b\\",
    ),
    (
        "latin-1 counts its code",
        "\u{e9}",
        r"\033[10;1;1;1;1;1*y",
        "\x1bP10!~FF17\x1b\\",
    ),
    (
        "wider codes count their low byte",
        "\u{2192}",
        r"\033[11;1;1;1;1;1*y",
        "\x1bP11!~FF6E\x1b\\",
    ),
    (
        "cells erased with a colour count",
        r"\033[44m\033[K\033[0m",
        r"\033[13;1;1;1;1;3*y",
        "\x1bP13!~FFA0\x1b\\",
    ),
    (
        "rectangle clamped to the screen",
        "x",
        r"\033[14;1;1;1;99;999*y",
        "\x1bP14!~FF88\x1b\\",
    ),
    (
        "empty rectangle",
        "x",
        r"\033[15;1;5;5;1;1*y",
        "\x1bP15!~0000\x1b\\",
    ),
    (
        "blanks between characters count nothing",
        r"a\033[1;5Hb",
        r"\033[21;1;1;1;1;5*y",
        "\x1bP21!~FF3D\x1b\\",
    ),
    (
        "blanks across rows count nothing",
        r"a\033[2;1Hb",
        r"\033[22;1;1;1;2;3*y",
        "\x1bP22!~FF3D\x1b\\",
    ),
    (
        "a leading blank counts",
        r"\033[1;3Ha",
        r"\033[23;1;1;1;1;3*y",
        "\x1bP23!~FF7F\x1b\\",
    ),
    (
        "a wide character and its spacer",
        "\u{4e2d}",
        r"\033[24;1;1;1;1;2*y",
        "\x1bP24!~FED4\x1b\\",
    ),
    (
        "a wide character's spacer alone",
        "\u{4e2d}",
        r"\033[25;1;1;2;1;2*y",
        "\x1bP25!~FF01\x1b\\",
    ),
    (
        "DEC line drawing",
        r"\033(0q\033(B",
        r"\033[27;1;1;1;1;1*y",
        "\x1bP27!~0000\x1b\\",
    ),
    (
        "origin mode offsets the rectangle",
        r"\033[3;5r\033[?6h\033[Hz",
        r"\033[30;1;1;1;1;1*y",
        "\x1bP30!~FF86\x1b\\",
    ),
    (
        "an empty page parameter",
        "q",
        r"\033[31;;1;1;1;1*y",
        "\x1bP31!~FF8F\x1b\\",
    ),
    (
        "a bold space is not blank",
        r"\033[1m \033[0m",
        r"\033[32;1;1;1;1;2*y",
        "\x1bP32!~FF60\x1b\\",
    ),
    // DECRQSS.
    (
        "SGR",
        r"\033[0;1;4;31m",
        r"\033P$qm\033\\",
        "\x1bP1$r0;1;4;31m\x1b\\",
    ),
    (
        "SGR plain",
        r"\033[0m",
        r"\033P$qm\033\\",
        "\x1bP1$r0m\x1b\\",
    ),
    (
        "SGR direct and indexed colours",
        r"\033[0;38;2;1;2;3;48;5;200m",
        r"\033P$qm\033\\",
        "\x1bP1$r0;38:2::1:2:3;48:5:200m\x1b\\",
    ),
    (
        "SGR attribute order",
        r"\033[0;2;3;8;9;53;32;44m",
        r"\033P$qm\033\\",
        "\x1bP1$r0;8;2;3;9;32;44m\x1b\\",
    ),
    (
        "SGR bright colours",
        r"\033[0;95;104m",
        r"\033P$qm\033\\",
        "\x1bP1$r0;95;104m\x1b\\",
    ),
    (
        "DECSTBM",
        r"\033[3;10r",
        r"\033P$qr\033\\",
        "\x1bP1$r3;10r\x1b\\",
    ),
    (
        "DECSTBM default",
        r"\033[r",
        r"\033P$qr\033\\",
        "\x1bP1$r1;24r\x1b\\",
    ),
    (
        "DECSCUSR",
        r"\033[4 q",
        r"\033P$q q\033\\",
        "\x1bP1$r4 q\x1b\\",
    ),
    ("DECSCL", "", r#"\033P$q"p\033\\"#, "\x1bP1$r64;1\"p\x1b\\"),
    ("DECSLRM", "", r"\033P$qs\033\\", "\x1bP1$r1;80s\x1b\\"),
    (
        "DECRQSS for something unknown",
        "",
        r"\033P$qx\033\\",
        "\x1bP0$r\x1b\\",
    ),
    // DECRQM for DECNKM, which the core tracks but reports as unknown.
    ("DECNKM set", r"\033=", r"\033[?66$p", "\x1b[?66;1$y"),
    ("DECNKM reset", r"\033>", r"\033[?66$p", "\x1b[?66;2$y"),
    (
        "DECNKM set with DECSET",
        r"\033[?66h",
        r"\033[?66$p",
        "\x1b[?66;1$y",
    ),
    (
        "DECNKM reset with DECRESET",
        r"\033[?66h\033[?66l",
        r"\033[?66$p",
        "\x1b[?66;2$y",
    ),
    (
        "mode 1048 saves and restores the cursor",
        r"\033[3;4H\033[?1048h\033[9;9H\033[?1048l",
        r"\033[6n",
        "\x1b[3;4R",
    ),
    // Device status reports.
    ("DECXCPR", r"\033[5;6H", r"\033[?6n", "\x1b[?5;6;1R"),
    (
        "CPR and DECXCPR in origin mode are relative to the region",
        r"\033[3;10r\033[?6h\033[2;2H",
        r"\033[?6n\033[6n",
        "\x1b[?2;2;1R\x1b[2;2R",
    ),
    ("no printer", "", r"\033[?15n", "\x1b[?13n"),
    ("keyboard", "", r"\033[?26n", "\x1b[?27;1;0;0n"),
    (
        "no DEC locator",
        "",
        r"\033[?53n\033[?55n",
        "\x1b[?53n\x1b[?53n",
    ),
    ("locator type", "", r"\033[?56n", "\x1b[?57;0n"),
    ("no macro space", "", r"\033[?62n", "\x1b[0000*{"),
    (
        "macro memory checksum",
        "",
        r"\033[?63;123n",
        "\x1bP123!~0000\x1b\\",
    ),
    ("data integrity", "", r"\033[?75n", "\x1b[?70n"),
    ("no sessions", "", r"\033[?85n", "\x1b[?83n"),
    // ANSI modes no terminal of this kind implements: permanently reset.
    ("GATM", "", r"\033[1$p", "\x1b[1;4$y"),
    ("FEAM", "", r"\033[13$p", "\x1b[13;4$y"),
    ("EBM", "", r"\033[19$p", "\x1b[19;4$y"),
    // XTWINOPS reports that have one right answer.
    ("not iconified", "", r"\033[11t", "\x1b[1t"),
    ("text area in characters", "", r"\033[18t", "\x1b[8;24;80t"),
    // DECSTR resets modes, margins and SGR but leaves the cursor.
    (
        "DECSTR resets modes margins and SGR",
        r"\033[?6h\033[5;10r\033[1;4;7m\033=\033[4h\033[!p",
        r"\033[?6$p\033[4$p\033[?66$p\033P$qm\033\\\033P$qr\033\\",
        "\x1b[?6;2$y\x1b[4;2$y\x1b[?66;2$y\x1bP1$r0m\x1b\\\x1bP1$r1;24r\x1b\\",
    ),
    (
        "DECSTR keeps the cursor",
        r"\033[5;7H\033[!p",
        r"\033[6n",
        "\x1b[5;7R",
    ),
    (
        "DECSTR sets autowrap as xterm does",
        r"\033[?7l\033[!p",
        r"\033[?7$p",
        "\x1b[?7;1$y",
    ),
    (
        "DECSTR homes the saved cursor",
        r"\033[3;3H\0337\033[H\033[!p\033[6;6H\0338",
        r"\033[6n",
        "\x1b[1;1R",
    ),
];

#[test]
fn replies_match_xterm() {
    let mut failures = Vec::new();
    for (name, setup, request, want) in SAME_AS_XTERM {
        let setup = if request.contains("*y") {
            format!("{CLEAR}{setup}")
        } else {
            (*setup).to_owned()
        };
        let got = reply_text(&setup, request);
        if got != *want {
            failures.push(format!("{name}: got {got:?}, xterm sends {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The resources the table was recorded with.
const XTERM_REPLY_RESOURCES: &[&str] = &["XTerm*allowWindowOps: true", "XTerm*boldColors: false"];

/// Longest one xterm may take to start, answer and exit.
const XTERM_WAIT: Duration = Duration::from_secs(60);

/// How many xterms ask at once: each is a process and a window.
const XTERMS_AT_ONCE: usize = 4;

/// What a fresh 80×24 xterm under `x` answers to `setup` then `request`
/// (printf's escapes), read raw until it has been quiet for a second: a
/// loaded xterm may answer several queries in more than one write.
fn live_xterm_reply(x: &Xvfb, dir: &std::path::Path, n: usize, printf: &str) -> Vec<u8> {
    let out = dir.join(format!("reply-{n}.hex"));
    let script = format!(
        "stty raw -echo min 0 time 10; printf '{printf}'; \
         while c=$(dd bs=256 count=1 2>/dev/null | od -An -tx1 | tr -d ' \\n') \
         && [ -n \"$c\" ]; do printf %s \"$c\"; done > '{tmp}'; \
         stty sane; mv '{tmp}' '{out}'",
        tmp = out.with_extension("tmp").display(),
        out = out.display(),
    );
    let mut args: Vec<String> = Vec::new();
    for resource in XTERM_REPLY_RESOURCES {
        args.extend(["-xrm".to_string(), (*resource).to_string()]);
    }
    args.extend(["-geometry", "80x24", "-e", "sh", "-c", &script].map(String::from));
    let mut xterm = std::process::Command::new("xterm")
        .args(&args)
        .env("DISPLAY", &x.display)
        .env("LC_ALL", "C.UTF-8")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("xterm is the reference terminal (apt-get install xterm; scripts/deps lists it)");
    eventually(&format!("xterm's reply to {printf:?}"), XTERM_WAIT, || {
        out.exists()
    });
    let _ = xterm.kill();
    let _ = xterm.wait();
    let hex = std::fs::read_to_string(&out).unwrap();
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn replies_match_a_live_xterm() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let asked: Vec<(usize, &str, String, &str)> = SAME_AS_XTERM
        .iter()
        .enumerate()
        .map(|(n, (name, setup, request, want))| {
            let setup = if request.contains("*y") {
                format!("{CLEAR}{setup}")
            } else {
                (*setup).to_owned()
            };
            (n, *name, format!("{setup}{request}"), *want)
        })
        .collect();
    let mut failures = Vec::new();
    for batch in asked.chunks(XTERMS_AT_ONCE) {
        let live = koi_testkit::parallel::map(batch, |(n, _, printf, _)| {
            live_xterm_reply(&x, dir.path(), *n, printf)
        });
        for ((_, name, printf, table), xterm) in batch.iter().zip(live) {
            let xterm = String::from_utf8_lossy(&xterm).into_owned();
            if xterm != *table {
                failures.push(format!(
                    "{name}: the table says {table:?}, xterm sends {xterm:?}"
                ));
            }
            let koi = String::from_utf8_lossy(&query_reply(printf)).into_owned();
            if koi != xterm {
                failures.push(format!("{name}: koi sends {koi:?}, xterm sends {xterm:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn window_reports_use_xterms_formats_with_koi_sizes() {
    // Sizes differ from xterm's (fonts, screen); the formats do not. The
    // nominal headless cell is 8×16.
    assert_eq!(reply_text("", r"\033[13t"), "\x1b[3;0;0t");
    assert_eq!(reply_text("", r"\033[14t"), "\x1b[4;384;640t");
    assert_eq!(reply_text("", r"\033[15t"), "\x1b[5;384;640t");
    assert_eq!(reply_text("", r"\033[16t"), "\x1b[6;16;8t");
    assert_eq!(reply_text("", r"\033[19t"), "\x1b[9;24;80t");
}

#[test]
fn title_report_and_window_changes_stay_off() {
    // 21 would echo the title back as input; 8 and 4 would resize. xterm's
    // defaults refuse them too. The 5n after them proves the PTY answered.
    assert_eq!(
        reply_text(
            r"\033]2;rm -rf ~\007",
            r"\033[21t\033[8;40;100t\033[4;100;100t\033[5n"
        ),
        "\x1b[0n"
    );
    assert_eq!(reply_text("", r"\033[18t"), "\x1b[8;24;80t");
}

#[test]
fn xtversion_names_koi() {
    let want = format!("\x1bP>|koi({})\x1b\\", env!("CARGO_PKG_VERSION"));
    assert_eq!(reply_text("", r"\033[>q"), want);
    assert_eq!(reply_text("", r"\033[>0q"), want);
}

#[test]
fn a_mode_koi_answers_gets_exactly_one_reply() {
    // The core answers ?66 with "0" (unknown); only koi's reply may arrive.
    assert_eq!(reply_text("", r"\033[?66$p\033[5n"), "\x1b[?66;2$y\x1b[0n");
    // Modes the core reports itself are untouched.
    assert_eq!(reply_text("", r"\033[?1$p"), "\x1b[?1;2$y");
}

#[test]
fn replies_keep_the_order_of_the_requests() {
    assert_eq!(
        reply_text(
            "",
            r"\033[6n\033[1;1;1;1;1;1*y\033[2;2H\033[6n\033P$qr\033\\\033[5n"
        ),
        "\x1b[1;1R\x1bP1!~FFE0\x1b\\\x1b[2;2R\x1bP1$r1;24r\x1b\\\x1b[0n"
    );
}

#[test]
fn a_request_split_across_writes_is_answered() {
    let reply = query_reply_script(
        r"printf '\033[3;5'; sleep 0.2; printf 'r\033P$'; sleep 0.2; printf 'qr\033'; sleep 0.2; printf '\\'",
    );
    assert_eq!(String::from_utf8_lossy(&reply), "\x1bP1$r3;5r\x1b\\");
}

#[test]
fn a_checksum_inside_a_synchronized_update_sees_what_came_before() {
    assert_eq!(
        reply_text(&format!(r"{CLEAR}\033[?2026hA"), r"\033[1;1;1;1;1;1*y"),
        "\x1bP1!~FFBF\x1b\\"
    );
}

#[test]
fn differences_from_xterm_are_the_documented_ones() {
    // Each of these is listed in term/CONFORMANCE.md.
    // The core cannot tell a written space from an erased cell, so written
    // trailing spaces count as blanks (xterm: 0xFFA0).
    assert_eq!(
        reply_text(&format!("{CLEAR}   "), r"\033[3;1;1;1;1;3*y"),
        "\x1bP3!~FFE0\x1b\\"
    );
    // The core has no blink attribute (xterm adds 0x40: 0xFF7F).
    assert_eq!(
        reply_text(&format!(r"{CLEAR}\033[5mA\033[0m"), r"\033[8;1;1;1;1;1*y"),
        "\x1bP8!~FFBF\x1b\\"
    );
    // Combining marks are not composed: e + U+0301 counts as e (xterm
    // composes it to U+00E9: 0xFF17).
    assert_eq!(
        reply_text(&format!("{CLEAR}e\u{301}"), r"\033[26;1;1;1;1;1*y"),
        "\x1bP26!~FF9B\x1b\\"
    );
    // With only Pi and Pg, xterm 379 reads them as the rectangle's top and
    // left; koi takes the whole page, as the VT420 manual says.
    assert_eq!(
        reply_text(&format!("{CLEAR}hello"), r"\033[12;1*y"),
        "\x1bP12!~FDEC\x1b\\"
    );
    // The core reads SGR 21 as "bold off" (ECMA-48 allows either); xterm
    // as double underline. koi reports a double underline (set with 4:2)
    // as 21, which xterm reads back as set.
    assert_eq!(
        reply_text(r"\033[0;1;21m", r"\033P$qm\033\\"),
        "\x1bP1$r0m\x1b\\"
    );
    assert_eq!(
        reply_text(r"\033[0;4:2m", r"\033P$qm\033\\"),
        "\x1bP1$r0;21m\x1b\\"
    );
    // Modes xterm can set but koi never can are permanently reset (4);
    // xterm, which could set them, says reset (2).
    assert_eq!(
        reply_text("", r"\033[?3$p\033[?5$p\033[?69$p"),
        "\x1b[?3;4$y\x1b[?5;4$y\x1b[?69;4$y"
    );
    // koi has no status line: the main display is active and the line's
    // type is "none". xterm 379 refuses both (0$r); later xterms report
    // these values.
    assert_eq!(reply_text("", r"\033P$q$}\033\\"), "\x1bP1$r0$}\x1b\\");
    assert_eq!(reply_text("", r"\033P$q$~\033\\"), "\x1bP1$r0$~\x1b\\");
    // koi has no user-defined keys, so they are locked (xterm: ?20n).
    assert_eq!(reply_text("", r"\033[?25n"), "\x1b[?21n");
    // koi's default cursor is a steady block (xterm reports 1, blinking).
    assert_eq!(
        reply_text(r"\033[0 q", r"\033P$q q\033\\"),
        "\x1bP1$r2 q\x1b\\"
    );
}
