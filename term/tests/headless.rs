//! `koi --headless` as a script would use it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn koi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_koi"))
        .args(args)
        .output()
        .expect("run koi")
}

#[test]
fn prints_the_screen_and_propagates_the_status() {
    let out = koi(&[
        "--headless",
        "--cols",
        "20",
        "--rows",
        "4",
        "-e",
        "sh",
        "-c",
        "echo one; printf 'two\\033[31m red'; exit 5",
    ]);
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one\ntwo red\n");
}

#[test]
fn json_dump_has_cell_attributes() {
    let out = koi(&[
        "--headless",
        "--cols",
        "8",
        "--rows",
        "2",
        "--dump",
        "json",
        "-e",
        "printf",
        "\\033[1;38;2;255;0;0mX",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["cols"], 8);
    assert_eq!(v["rows"], 2);
    assert_eq!(v["lines"][0], "X");
    let cell = &v["cells"][0][0];
    assert_eq!(cell["text"], "X");
    assert_eq!(cell["fg"]["rgb"], "#ff0000");
    assert_eq!(cell["flags"][0], "bold");
    assert_eq!(v["cursor"]["col"], 1);
}

#[test]
fn long_lines_wrap_at_the_requested_width() {
    let out = koi(&[
        "--headless",
        "--cols",
        "5",
        "--rows",
        "3",
        "-e",
        "printf",
        "abcdefgh",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "abcde\nfgh\n");
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = koi(&["--headless"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a command"));
    let out = koi(&["--headless", "-e", "/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/definitely/not/here"));
    let out = koi(&["--headless", "--cols", "0", "-e", "true"]);
    assert_eq!(out.status.code(), Some(2));
    let out = koi(&["--headless", "--timeout", "-1", "-e", "true"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn timeout_hangs_up_a_stuck_command() {
    let started = std::time::Instant::now();
    let out = koi(&[
        "--headless",
        "--timeout",
        "0.5",
        "-e",
        "sh",
        "-c",
        "echo waiting; sleep 30",
    ]);
    assert_eq!(out.status.code(), Some(124));
    assert!(String::from_utf8_lossy(&out.stdout).contains("waiting"));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}
