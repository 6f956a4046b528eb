//! The layout of a corpus of answers, against snapshots at 40 and 100
//! columns, and the streaming property: every prefix of every answer lays
//! out without panicking and within the width, the streamed layout of each
//! prefix equals its one-shot layout, and the lines a streaming front end
//! is told are settled never change afterwards.
//!
//! `KOI_UPDATE_SNAPSHOTS=1 cargo test -p koi_markdown --test layout`
//! rewrites the snapshots (review the diff before committing).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::PathBuf;

use koi_markdown::wrap::line_width;
use koi_markdown::{render, Break, Color, Palette, Renderer, Span, StyledLine};

/// The widths the snapshots are taken at: a narrow panel and a wide one.
const WIDTHS: [usize; 2] = [40, 100];

/// A palette whose every role has its own colour, so the snapshots can
/// name the role of each span.
fn palette() -> Palette {
    let c = Color::Indexed;
    Palette {
        fg: c(1),
        dim: c(2),
        accent: c(3),
        code_bg: Some(c(4)),
        keyword: c(5),
        string: c(6),
        comment: c(7),
        number: c(8),
        function: c(9),
        type_name: c(10),
    }
}

fn role(color: Color) -> &'static str {
    match color {
        Color::Indexed(1) => "fg",
        Color::Indexed(2) => "dim",
        Color::Indexed(3) => "accent",
        Color::Indexed(4) => "code",
        Color::Indexed(5) => "kw",
        Color::Indexed(6) => "str",
        Color::Indexed(7) => "comment",
        Color::Indexed(8) => "num",
        Color::Indexed(9) => "fn",
        Color::Indexed(10) => "type",
        _ => "?",
    }
}

/// A span as `[tags:text]`, or its bare text when it is plain.
fn span_markup(s: &Span) -> String {
    let mut tags = Vec::new();
    if s.fg != Color::Indexed(1) {
        tags.push(role(s.fg).to_string());
    }
    if let Some(bg) = s.bg {
        tags.push(format!("bg={}", role(bg)));
    }
    for (on, tag) in [
        (s.bold, "b"),
        (s.italic, "i"),
        (s.underline, "u"),
        (s.strike, "s"),
        (s.link.is_some(), "link"),
    ] {
        if on {
            tags.push(tag.to_string());
        }
    }
    if tags.is_empty() {
        s.text.clone()
    } else {
        format!("[{}:{}]", tags.join(","), s.text)
    }
}

/// One line per laid-out line: how it continues the one above (`~` at a
/// space, `+` cut), its margin, then its spans.
fn snapshot(lines: &[StyledLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let cont = match l.continues {
            None => ' ',
            Some(Break::Space) => '~',
            Some(Break::Cut) => '+',
        };
        let body: String = l.spans.iter().map(span_markup).collect();
        let _ = writeln!(out, "{cont}{:>2}|{body}", l.margin);
    }
    out
}

fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

fn corpus() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir("corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(out.len() >= 6, "the corpus is missing");
    out
}

#[test]
fn corpus_matches_snapshots() {
    let update = std::env::var_os("KOI_UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for (name, src) in corpus() {
        for width in WIDTHS {
            let lines = render(&src, width, &palette());
            for l in &lines {
                assert!(line_width(l) <= width, "{name} at {width}: {l:?}");
            }
            let got = snapshot(&lines);
            let path = dir("snapshots").join(format!("{name}.{width}.txt"));
            if update {
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path).unwrap_or_default();
            if got != want {
                failures.push(format!("{}:\n{got}", path.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "layouts differ from their snapshots (KOI_UPDATE_SNAPSHOTS=1 rewrites them):\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_prefix_streams_like_one_shot_and_settled_lines_stay() {
    let pal = palette();
    for (name, src) in corpus() {
        for width in WIDTHS {
            let full = render(&src, width, &pal);
            let mut streamed = Renderer::new();
            let cuts = (1..=src.len()).filter(|&i| src.is_char_boundary(i));
            for cut in cuts {
                let prefix = &src[..cut];
                let layout = streamed.layout(prefix, width, &pal);
                for l in &layout.lines {
                    assert!(line_width(l) <= width, "{name}[..{cut}] at {width}");
                }
                // Every 7th prefix against a fresh one-shot layout (all of
                // them would be quadratic in debug builds for no more cover).
                if cut % 7 == 0 || cut == src.len() {
                    assert_eq!(
                        layout.lines,
                        render(prefix, width, &pal),
                        "{name}[..{cut}] at {width}: streamed differs from one-shot"
                    );
                }
                let settled = layout.settled_lines();
                assert_eq!(
                    layout.lines[..settled],
                    full[..settled],
                    "{name}[..{cut}] at {width}: a settled line changed later"
                );
            }
            // The whole answer in hand, all but its last block or two have
            // settled (so the property above did not hold vacuously).
            let settled = streamed.layout(&src, width, &pal).settled_lines();
            assert!(
                settled + 2 >= full.len(),
                "{name} at {width}: {settled} settled"
            );
            assert_eq!(
                streamed.render(&src, width, &pal),
                full,
                "{name} at {width}"
            );
        }
    }
}

#[test]
fn an_open_span_holds_its_line_only_for_a_few_lines() {
    let pal = palette();
    // Each source ends in a partial line that cannot underline the one
    // before it, so only open spans hold lines back.
    let settled = |src: &str| Renderer::new().layout(src, 40, &pal).settled_lines();
    // Closed on its own line: the line settles once it ends.
    assert_eq!(settled("a **b** c\nd\nz"), 2);
    // Open: its line, and those after it, wait for the closer…
    assert_eq!(settled("x\na **b\nc\nz"), 1);
    assert_eq!(settled("x\na **b\nc\nd\ne\nz"), 1);
    // …until four lines have ended since it opened, or its paragraph did.
    assert_eq!(settled("x\na **b\nc\nd\ne\nf\nz"), 6);
    assert_eq!(settled("x\na **b\n\nc\nz"), 4);
}
