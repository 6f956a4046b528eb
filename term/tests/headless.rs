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
    // 124 is the timeout's doing: `sleep 30` left alone exits 0.
    assert!(String::from_utf8_lossy(&out.stdout).contains("waiting"));
}

/// An RGB screenshot, and its width, of what `printf ARGS` leaves on a
/// 10×2 `koi --headless` screen under the config text `config`.
fn screenshot_10x2(config: &str, printf: &str) -> (Vec<[u8; 3]>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("shot.png");
    let config_path = dir.path().join("koi.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = koi(&[
        "--headless",
        "--config",
        config_path.to_str().unwrap(),
        "--cols",
        "10",
        "--rows",
        "2",
        "--screenshot",
        png_path.to_str().unwrap(),
        "-e",
        "printf",
        printf,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let samples = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(samples)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (pixels, info.width as usize)
}

#[test]
fn screenshot_draws_the_final_screen() {
    let (pixels, w) = screenshot_10x2(
        "[colors]\nbackground = \"#102030\"\n[colors.normal]\nred = \"#e01010\"\n[window]\npadding = 0\n",
        "\\033[41m   \\033[0m",
    );
    let h = pixels.len() / w;
    assert_eq!(w % 10, 0, "10 columns, no padding: {w}");
    assert_eq!(h % 2, 0, "2 rows, no padding: {h}");
    let (cell_w, cell_h) = (w / 10, h / 2);
    let px = |x: usize, y: usize| pixels[y * w + x];
    // Columns 0–2 of row 0 have the red background, exactly.
    assert_eq!(px(cell_w / 2, cell_h / 2), [0xe0, 0x10, 0x10]);
    assert_eq!(px(3 * cell_w - 1, 0), [0xe0, 0x10, 0x10]);
    // The rest is the configured background.
    assert_eq!(px(9 * cell_w + cell_w / 2, cell_h / 2), [0x10, 0x20, 0x30]);
    assert_eq!(px(cell_w / 2, cell_h + cell_h / 2), [0x10, 0x20, 0x30]);
}

/// [`screenshot_10x2`] drawn with Fira Code, ligatures on or off.
fn fira_code_shot(ligatures: bool, printf: &str) -> (Vec<[u8; 3]>, usize) {
    screenshot_10x2(
        &format!(
            "[font]\nfamily = \"Fira Code\"\nligatures = {ligatures}\n[window]\npadding = 0\n"
        ),
        printf,
    )
}

/// `[font] ligatures` reaches the screenshot: with Fira Code, `->` on
/// columns 2–3 is drawn differently with ligatures on and nothing else
/// is; with the cursor on the arrow, or ligatures off, it is not joined.
#[test]
fn screenshot_joins_the_arrow_only_with_ligatures_on_and_the_cursor_away() {
    let fonts = render::Fonts::new(&render::FontConfig {
        family: Some("Fira Code".into()),
        ..render::FontConfig::default()
    });
    if fonts.family() != "Fira Code" {
        koi_testkit::skip::skip(
            koi_testkit::skip::PROGRAMS,
            "screenshot_joins_the_arrow_only_with_ligatures_on_and_the_cursor_away",
            "the Fira Code font is not installed (apt-get install fonts-firacode)",
        );
        return;
    }
    let text = "x -> y";
    let (on, width) = fira_code_shot(true, text);
    let (off, _) = fira_code_shot(false, text);
    assert_eq!(on.len(), off.len());
    let cell_w = width / 10;
    let column = |i: usize| (i % width) / cell_w;
    let rows_of_line_0 = on.len() / width / 2;
    let in_arrow = |i: usize| (2..4).contains(&column(i)) && i / width < rows_of_line_0;
    let differ: Vec<usize> = (0..on.len()).filter(|&i| on[i] != off[i]).collect();
    assert!(
        !differ.is_empty(),
        "ligatures on and off drew the same arrow"
    );
    assert!(
        differ.iter().all(|&i| in_arrow(i)),
        "pixels outside the arrow changed: {:?}",
        differ
            .iter()
            .find(|&&i| !in_arrow(i))
            .map(|&i| (i % width, i / width))
    );
    // The cursor back on the `-` (row 1, column 3 in CUP's terms).
    let with_cursor = format!("{text}\\033[1;3H");
    let (on, _) = fira_code_shot(true, &with_cursor);
    let (off, _) = fira_code_shot(false, &with_cursor);
    assert!(on == off, "the arrow under the cursor was joined");
}

/// `KOI_TRACE_BURSTS=1` accounts for every byte of a burst, with the time
/// each stage took.
#[test]
fn the_burst_trace_accounts_for_the_output() {
    const BYTES: usize = 3_000_000;
    let out = Command::new(env!("CARGO_BIN_EXE_koi"))
        .env("KOI_TRACE_BURSTS", "1")
        .args([
            "--headless",
            "--cols",
            "80",
            "--rows",
            "24",
            "-e",
            "sh",
            "-c",
        ])
        .arg(format!("head -c {BYTES} /dev/zero | tr '\\0' x"))
        .output()
        .expect("run koi");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("koi burst"))
        .collect();
    assert!(!lines.is_empty(), "no burst reported: {stderr}");
    // The number that follows `label` in `line`.
    let value = |line: &str, label: &str| -> f64 {
        let at = line
            .find(label)
            .unwrap_or_else(|| panic!("no {label:?} in {line}"));
        let rest = &line[at + label.len()..];
        let end = rest.find(' ').unwrap_or(rest.len());
        rest[..end]
            .parse()
            .unwrap_or_else(|_| panic!("no number after {label:?} in {line}"))
    };
    let mib: f64 = lines.iter().map(|l| value(l, ": ")).sum();
    let want = BYTES as f64 / (1024.0 * 1024.0);
    assert!(
        (mib - want).abs() < 0.02 * lines.len() as f64,
        "{mib} MiB of {want}: {stderr}"
    );
    for line in &lines {
        for stage in [
            "read ",
            "parse ",
            "lock wait ",
            "snapshot ",
            "prepare ",
            "present ",
            "raster ",
        ] {
            assert!(value(line, stage) >= 0.0, "{line}");
        }
        // A headless terminal draws no frames.
        assert!(line.contains("; 0 frames:"), "{line}");
    }
    let parsed: f64 = lines.iter().map(|l| value(l, "parse ")).sum();
    let read: f64 = lines.iter().map(|l| value(l, "read ")).sum();
    assert!(
        parsed > 0.0 && read > 0.0,
        "reading or parsing took no time: {stderr}"
    );
}
