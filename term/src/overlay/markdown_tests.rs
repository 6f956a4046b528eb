//! The overlay's markdown tests from before `koi_markdown`, run through it.
//! Changed where the new output is better: a link now shows its target,
//! dimmed, after its text.

use super::*;
use crate::overlay::style::line_text;
use crate::overlay::wrap::line_width;

fn texts(lines: &[StyledLine]) -> Vec<String> {
    lines.iter().map(line_text).collect()
}

#[test]
fn headings_lists_and_quotes() {
    let pal = Palette::default();
    let src = "# Title\n\n- one\n  - nested\n2. second item here\n> quoted";
    let out = render(src, 40, &pal);
    assert_eq!(
        texts(&out),
        [
            "Title",
            "",
            "• one",
            "  • nested",
            "2. second item here",
            "│ quoted"
        ]
    );
    assert!(out[0].spans.iter().all(|s| s.bold && s.fg == pal.accent));
    let narrow = render("- alpha beta gamma", 10, &pal);
    assert_eq!(texts(&narrow), ["• alpha", "  beta", "  gamma"]);
}

#[test]
fn inline_code_bold_italic_links() {
    let pal = Palette::default();
    let out = render(
        "run `ls -l` **now** or *later*: [docs](http://x) snake_case",
        80,
        &pal,
    );
    let spans = &out[0].spans;
    let code = spans.iter().find(|s| s.text == "ls -l").expect("code span");
    assert_eq!(code.bg, Some(pal.code_bg));
    assert!(spans.iter().any(|s| s.text == "now" && s.bold));
    assert!(spans.iter().any(|s| s.text == "later" && s.italic));
    assert!(spans.iter().any(|s| s.text == "docs" && s.underline));
    // New: the link's target follows its text, dimmed.
    assert!(spans
        .iter()
        .any(|s| s.text == " (http://x)" && s.fg == pal.dim));
    assert_eq!(
        line_text(&out[0]),
        "run ls -l now or later: docs (http://x) snake_case"
    );
    // Unclosed markers stay literal (a streaming answer mid-word).
    assert_eq!(
        texts(&render("2 * 3 and **bo", 80, &pal)),
        ["2 * 3 and **bo"]
    );
}

#[test]
fn code_block_background_and_keyword_colour() {
    let pal = Palette::default();
    let src = "text\n```rust\nfn main() {}\n```\nafter";
    let out = render(src, 20, &pal);
    assert_eq!(texts(&out)[0], "text");
    let code_line = &out[2];
    assert_eq!(line_text(code_line).trim_end(), "fn main() {}");
    assert!(code_line.spans.iter().all(|s| s.bg == Some(pal.code_bg)));
    assert_eq!(line_width(code_line), 20, "code lines fill the width");
    assert!(code_line
        .spans
        .iter()
        .any(|s| s.text == "fn" && s.fg == pal.keyword));
    assert_eq!(texts(&out).last().map(String::as_str), Some("after"));
}

#[test]
fn cjk_wraps_within_odd_widths() {
    let pal = Palette::default();
    let src = "# 日本語の見出し\n- 中文列表项目很长很长很长\n普通の文章 with mixed 😀 text\n```\n代码块里的中文\n```";
    for width in [1, 3, 5, 7, 9, 11, 13] {
        for line in render(src, width, &pal) {
            assert!(line_width(&line) <= width, "width {width}: {line:?}");
        }
    }
}

#[test]
fn random_input_never_panics_or_overflows() {
    let pal = Palette::default();
    let alphabet: Vec<char> = "ab `*_#->[](){}<>\\\n\t~1.)日😀\u{301}\u{7}|+ "
        .chars()
        .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..300 {
        let mut s = String::new();
        for _ in 0..(round % 80) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        let width = (round % 17) as usize;
        for line in render(&s, width, &pal) {
            assert!(line_width(&line) <= width, "{s:?} at {width}");
        }
        let _ = code_blocks(&s);
    }
}
