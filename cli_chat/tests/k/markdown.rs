//! Answers rendered as markdown on a terminal (driven in tmux, attributes
//! read back with `capture-pane -e`), and kept byte for byte on a pipe,
//! with `--raw` and with `NO_COLOR`.

use std::process::Command;
use std::time::Duration;

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::tmux::Tmux;
use koi_testkit::{FakeProvider, RequestKind};

use crate::common::{Home, K};

/// The scripted answer: a heading, bold, a list, fenced Rust and a link.
const ANSWER: &str = "# Plan\n\nThis is **bold** text.\n\n- first item\n- second item\n\n\
```rust\nfn main() {\n    let x = 42;\n}\n```\nSee [docs](https://example.org/docs).\n";

/// Bytes per streamed delta: small, so blocks are seen half-written.
const DELTA: usize = 5;

/// The answer to each of `requests` requests (titles too).
fn provider(requests: impl Into<koi_testkit::Expect>) -> FakeProvider {
    FakeProvider::start_with(requests, |req, _| {
        if req.kind == RequestKind::Title {
            return ChatStream::new().text("Plan").stop().reply().for_title();
        }
        let mut s = ChatStream::new();
        for piece in ANSWER.as_bytes().chunks(DELTA) {
            s = s.text(std::str::from_utf8(piece).unwrap());
        }
        s.stop().reply().chunk_delay(Duration::from_millis(3))
    })
}

/// One cell of a captured pane: its character and the attributes tmux
/// reports for it.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    ch: char,
    bold: bool,
    underline: bool,
    fg: Option<u8>,
}

/// The pane's lines as cells, from `capture-pane -e` output.
fn cells(captured: &str) -> Vec<Vec<Cell>> {
    let mut out = Vec::new();
    let mut style = Cell::default();
    for line in captured.lines() {
        let mut row = Vec::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c != '\x1b' {
                row.push(Cell { ch: c, ..style });
                continue;
            }
            if chars.next() != Some('[') {
                continue;
            }
            let mut params = String::new();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
                params.push(d);
            }
            let mut nums = params.split(';').map(|p| p.parse::<u16>().unwrap_or(0));
            while let Some(n) = nums.next() {
                match n {
                    0 => style = Cell::default(),
                    1 => style.bold = true,
                    4 => style.underline = true,
                    22 => style.bold = false,
                    24 => style.underline = false,
                    30..=37 => style.fg = Some((n - 30) as u8),
                    90..=97 => style.fg = Some((n - 90 + 8) as u8),
                    39 => style.fg = None,
                    38 if nums.next() == Some(5) => style.fg = nums.next().map(|i| i as u8),
                    _ => {}
                }
            }
        }
        out.push(row);
    }
    out
}

fn text(row: &[Cell]) -> String {
    row.iter().map(|c| c.ch).collect()
}

/// The cells of the first occurrence of `needle` on the pane.
fn find<'a>(rows: &'a [Vec<Cell>], needle: &str) -> &'a [Cell] {
    for row in rows {
        let t: Vec<char> = row.iter().map(|c| c.ch).collect();
        let n: Vec<char> = needle.chars().collect();
        if let Some(at) = t.windows(n.len()).position(|w| w == n.as_slice()) {
            return &row[at..at + n.len()];
        }
    }
    panic!("{needle:?} is not on the pane")
}

/// Runs `script` in tmux on a 60×60 terminal, the home's environment
/// without `NO_COLOR` (the test reads the colours), and keeps the pane
/// open after it ends.
fn tmux_script(home: &Home, script: &str) -> Tmux {
    let env: Vec<(String, String)> = home
        .env()
        .into_iter()
        .filter(|(k, _)| k != "NO_COLOR")
        .collect();
    Tmux::start(&home.ws(), &env, &format!("{script}; sleep 60"), 60, 60)
}

#[test]
fn answers_render_on_a_terminal() {
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "this test drives k in tmux: install it (apt-get install tmux)"
    );
    // One answer, and the title k may ask for before it quits.
    let server = provider(1..=2);
    let home = Home::new(Some(&server));
    let t = tmux_script(&home, &format!("{K} --new 'make a plan'; echo K-EXIT=$?"));
    t.wait_for("K-EXIT=", 1);
    let plain = t.pane(false);
    assert!(plain.contains("K-EXIT=0"), "{plain}");
    let rows = cells(&t.pane(true));
    let shown: Vec<String> = rows
        .iter()
        .map(|r| text(r).trim_end().to_string())
        .collect();
    // Rendered: no markup left, the list has bullets, the link its URL.
    for markup in ["**", "```", "# Plan", "- first"] {
        assert!(!plain.contains(markup), "{markup:?} left raw:\n{plain}");
    }
    for line in [
        "Plan",
        "This is bold text.",
        "• first item",
        "• second item",
        "rust",
        "fn main() {",
        "    let x = 42;",
        "See docs (https://example.org/docs).",
    ] {
        assert!(
            shown.iter().any(|l| l == line),
            "no line {line:?}:\n{plain}"
        );
    }
    // Attributes: a bold, underlined heading in the accent (cyan); bold
    // only where the answer said so; cyan bullets; Rust highlighted.
    let heading = find(&rows, "Plan");
    assert!(heading
        .iter()
        .all(|c| c.bold && c.underline && c.fg == Some(6)));
    assert!(find(&rows, "bold").iter().all(|c| c.bold));
    assert!(find(&rows, "This is").iter().all(|c| !c.bold));
    assert_eq!(find(&rows, "• first")[0].fg, Some(6));
    assert!(find(&rows, "fn main")[..2].iter().all(|c| c.fg == Some(5)));
    assert!(find(&rows, "42").iter().all(|c| c.fg == Some(3)));
    assert!(find(&rows, "docs (").iter().take(4).all(|c| c.underline));
}

#[test]
fn raw_text_on_a_pipe_with_raw_and_with_no_color() {
    // Three runs; the first asks for a title.
    let server = provider(3);
    let home = Home::new(Some(&server));
    // A pipe: exactly the streamed bytes (Home's environment has NO_COLOR,
    // so drop it to see that the pipe alone decides).
    let out = home
        .cmd(&["--new", "make a plan"])
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), ANSWER);

    // A terminal with --raw, then with NO_COLOR: the answer as written.
    let t = tmux_script(
        &home,
        &format!(
            "{K} --new --raw 'make a plan'; echo K1-EXIT=$?; \
             NO_COLOR=1 {K} --new 'make a plan'; echo K2-EXIT=$?"
        ),
    );
    t.wait_for("K2-EXIT=", 1);
    let plain = t.pane(false);
    assert!(
        plain.contains("K1-EXIT=0") && plain.contains("K2-EXIT=0"),
        "{plain}"
    );
    assert_eq!(
        plain.matches("This is **bold** text.").count(),
        2,
        "{plain}"
    );
    assert_eq!(plain.matches("```rust").count(), 2, "{plain}");
}
