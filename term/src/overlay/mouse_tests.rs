//! The mouse in the panel: selection (drag, word, line, CJK, scrolling,
//! edges), copying what was drawn, and clicks in the input box.

use ai_chat_engine::Event;
use alacritty_terminal::index::Side;
use render::{OverlayRect, Theme};

use crate::overlay::tests::{key, open_overlay, type_text};
use crate::overlay::{style, wrap, Overlay, OverlayAction, SelectionKind};
use koi_terminal::input::{Key, KeyEvent, Mods};

/// Grid size the selection tests draw at.
const GRID: (usize, usize) = (100, 30);

/// A panel holding one question and `answer`, drawn at [`GRID`].
fn answered(answer: &str) -> Overlay {
    let mut o = open_overlay();
    type_text(&mut o, "q");
    o.handle_key(&key(Key::Enter), None);
    o.apply(&Event::AssistantStart);
    o.apply(&Event::Token {
        text: answer.into(),
    });
    o.apply(&Event::Done);
    o.layers(GRID.0, GRID.1, &Theme::default());
    o
}

/// The grid cell where `needle` is drawn (its first cell), from the
/// panel's drawn text layer.
fn cell_of(o: &mut Overlay, needle: &str) -> (usize, usize) {
    let layers = o.layers(GRID.0, GRID.1, &Theme::default());
    let OverlayRect::Cells { col, row, .. } = layers[1].rect else {
        panic!("cells expected");
    };
    for (i, line) in layers[1].lines.iter().enumerate() {
        let text = style::line_text(line);
        if let Some(at) = text.find(needle) {
            return (col + wrap::str_width(&text[..at]), row + i);
        }
    }
    panic!("{needle:?} is not drawn:\n{}", o.text_dump());
}

/// Press at `from`, drag to `to`, release; what the release selected.
fn drag_select(
    o: &mut Overlay,
    from: (usize, usize, Side),
    to: (usize, usize, Side),
) -> Option<String> {
    o.press(from.0, from.1, from.2, SelectionKind::Simple);
    o.drag(to.0, to.1, to.2);
    o.release()
}

/// The text drawn with the selection background.
fn highlighted(o: &mut Overlay) -> String {
    let pal = style::Palette::default();
    let layers = o.layers(GRID.0, GRID.1, &Theme::default());
    layers[1]
        .lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .filter(|s| s.bg == Some(pal.selection_bg))
                .map(|s| s.text.as_str())
                .collect::<String>()
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("|")
}

fn copy_key() -> KeyEvent {
    KeyEvent::press(Key::Char('C'), Mods::CTRL.with(Mods::SHIFT))
}

#[test]
fn drag_across_lines_selects_and_copies_the_text_without_the_indent() {
    let mut o = answered("alpha beta\ngamma delta\nepsilon zeta");
    let (c0, r0) = cell_of(&mut o, "beta");
    let (c1, r1) = cell_of(&mut o, "epsilon");
    // From the left half of `b` to the right half of the last `n`.
    let text = drag_select(&mut o, (c0, r0, Side::Left), (c1 + 6, r1, Side::Right));
    assert_eq!(text.as_deref(), Some("beta\ngamma delta\nepsilon"));
    // Drawn: the rest of the first line, whole middle line (padded to the
    // panel edge), the start of the last.
    let lit = highlighted(&mut o);
    let parts: Vec<&str> = lit.split('|').collect();
    assert_eq!(parts.len(), 3, "{lit}");
    assert!(parts[0].starts_with("beta"), "{lit}");
    assert!(parts[1].starts_with("  gamma delta  "), "{lit}");
    assert_eq!(parts[2], "  epsilon");
    // Ctrl+Shift+C copies the selection, not the whole answer.
    assert_eq!(
        o.handle_key(&copy_key(), None),
        OverlayAction::Copy("beta\ngamma delta\nepsilon".into())
    );
}

#[test]
fn cjk_counts_two_columns_and_copies_whole_characters() {
    let mut o = answered("答えは漢字です ok");
    let (c, r) = cell_of(&mut o, "漢字");
    // From 漢's second cell to 字's second cell: both characters, whole.
    let text = drag_select(&mut o, (c + 1, r, Side::Left), (c + 3, r, Side::Right));
    assert_eq!(text.as_deref(), Some("漢字"));
    assert_eq!(highlighted(&mut o), "漢字");
    // A drag from before the CJK run to past its end keeps every column.
    let (k, _) = cell_of(&mut o, "ok");
    let text = drag_select(&mut o, (c - 6, r, Side::Left), (k + 1, r, Side::Right));
    assert_eq!(text.as_deref(), Some("答えは漢字です ok"));
}

#[test]
fn double_click_selects_a_word_and_triple_click_a_line() {
    let mut o = answered("run `cargo test --lib` now, please");
    let (c, r) = cell_of(&mut o, "test");
    assert!(o.press(c + 2, r, Side::Left, SelectionKind::Word));
    assert_eq!(o.release().as_deref(), Some("test"));
    assert_eq!(highlighted(&mut o), "test");
    // Dragging after a double click extends by whole words.
    let (n, _) = cell_of(&mut o, "now");
    o.press(c + 2, r, Side::Left, SelectionKind::Word);
    o.drag(n + 1, r, Side::Left);
    assert_eq!(o.release().as_deref(), Some("test --lib now"));
    // Triple click: the whole line, less the panel's indent.
    o.press(c, r, Side::Right, SelectionKind::Line);
    assert_eq!(
        o.release().as_deref(),
        Some("run cargo test --lib now, please"),
        "inline code is drawn without its backticks"
    );
}

#[test]
fn selection_survives_scrolling_and_streaming() {
    let mut o = open_overlay();
    let body: String = (0..60).map(|i| format!("row{i:02} text\n")).collect();
    o.apply(&Event::Token { text: body });
    o.layers(GRID.0, GRID.1, &Theme::default());
    let (c, r) = cell_of(&mut o, "row50");
    let text = drag_select(&mut o, (c, r, Side::Left), (c + 4, r, Side::Right));
    assert_eq!(text.as_deref(), Some("row50"));
    // Scrolled back by five lines, the highlight moves down with its text.
    o.scroll(5);
    assert_eq!(highlighted(&mut o), "row50");
    let (_, moved) = cell_of(&mut o, "row50");
    assert_eq!(moved, r + 5);
    // Streaming more lines (the view follows the bottom) keeps it too.
    o.conversation.scroll_to_bottom();
    o.apply(&Event::Token {
        text: "row60 more\nrow61 more\n".into(),
    });
    assert_eq!(highlighted(&mut o), "row50");
    assert_eq!(
        o.handle_key(&copy_key(), None),
        OverlayAction::Copy("row50".into())
    );
    // Scrolled so far that it is off screen, it still copies.
    o.scroll(-100);
    o.scroll(1000);
    assert_eq!(highlighted(&mut o), "");
    assert_eq!(o.copy_text().as_deref(), Some("row50"));
}

#[test]
fn clicks_esc_typing_and_resizes_drop_the_selection() {
    let answer = "pick one word";
    let mut o = answered(answer);
    let (c, r) = cell_of(&mut o, "one");
    let select = |o: &mut Overlay| drag_select(o, (c, r, Side::Left), (c + 2, r, Side::Right));
    assert_eq!(select(&mut o).as_deref(), Some("one"));
    // A click without a drag selects nothing: the answer is copied again.
    assert!(o.press(c, r, Side::Left, SelectionKind::Simple));
    assert_eq!(o.release(), None);
    assert_eq!(
        o.handle_key(&copy_key(), None),
        OverlayAction::Copy(answer.into())
    );
    // Esc drops a selection first and closes the panel second.
    select(&mut o);
    assert_eq!(o.handle_key(&key(Key::Escape), None), OverlayAction::Redraw);
    assert_eq!(highlighted(&mut o), "");
    assert!(o.is_open());
    // Typing in the input drops it.
    select(&mut o);
    type_text(&mut o, "x");
    assert_eq!(o.copy_text().as_deref(), Some(answer));
    // A press outside the conversation (the input row) starts nothing.
    select(&mut o);
    let (ic, ir) = o.cursor_cell(GRID.0, GRID.1).expect("input cursor");
    assert!(
        o.press(ic, ir, Side::Left, SelectionKind::Simple),
        "dropped"
    );
    assert!(!o.is_selecting());
    assert_eq!(o.copy_text().as_deref(), Some(answer));
    // A resize re-wraps the conversation: the old points mean nothing.
    select(&mut o);
    o.layers(GRID.0 + 20, GRID.1, &Theme::default());
    assert_eq!(o.copy_text().as_deref(), Some(answer));
    // Clearing the conversation drops it as well.
    o.layers(GRID.0, GRID.1, &Theme::default());
    select(&mut o);
    o.conversation_mut().clear();
    assert_eq!(o.selection_text(), None);
}

#[test]
fn dragging_past_the_conversation_clamps_to_its_edges() {
    let mut o = answered("first line\nlast line");
    let (c, r) = cell_of(&mut o, "last");
    // Dragged up over the title: selects to the conversation's first row.
    o.press(c + 2, r, Side::Right, SelectionKind::Simple);
    o.drag(0, 0, Side::Left);
    assert_eq!(
        o.release().as_deref(),
        Some("You\nq\n\nkoi\nfirst line\nlas")
    );
    // Dragged right, off the panel: to the end of the line.
    o.press(c, r, Side::Left, SelectionKind::Simple);
    o.drag(GRID.0 + 5, r, Side::Left);
    assert_eq!(o.release().as_deref(), Some("last line"));
}

/// The cell where `first` starts and the cell where `last` ends.
fn rows_between(o: &mut Overlay, first: &str, last: &str) -> ((usize, usize), (usize, usize)) {
    let start = cell_of(o, first);
    let (c, r) = cell_of(o, last);
    (start, (c + wrap::str_width(last) - 1, r))
}

#[test]
fn wrapped_text_copies_as_the_line_it_was() {
    // A paragraph wider than the panel wraps at spaces; a code line wraps
    // at the width. Both copy back as one line, without the indents.
    let long = "word ".repeat(40);
    let command = format!("echo {}", "x".repeat(150));
    let mut o = answered(&format!(
        "{}end\n\n- item {}tail\n\n```sh\n{command}\n```",
        long,
        "more ".repeat(30)
    ));
    let (from, to) = rows_between(&mut o, "word word", "end");
    assert!(
        to.1 > from.1,
        "the paragraph should wrap:\n{}",
        o.text_dump()
    );
    let text = drag_select(
        &mut o,
        (from.0, from.1, Side::Left),
        (to.0, to.1, Side::Right),
    );
    assert_eq!(text.as_deref(), Some(format!("{long}end").as_str()));

    // A list item keeps its bullet, loses its hanging indent.
    let (from, to) = rows_between(&mut o, "• item", "tail");
    assert!(to.1 > from.1);
    let text = drag_select(
        &mut o,
        (from.0, from.1, Side::Left),
        (to.0, to.1, Side::Right),
    );
    assert_eq!(
        text.as_deref(),
        Some(format!("• item {}tail", "more ".repeat(30)).as_str())
    );

    // The command is cut mid-word by the wrap: no space is added back.
    let (c, r) = cell_of(&mut o, "echo xx");
    let rows = o.text_dump().lines().filter(|l| l.contains("xxx")).count();
    assert!(rows > 1, "the command should wrap:\n{}", o.text_dump());
    let text = drag_select(
        &mut o,
        (c, r, Side::Left),
        (GRID.0 + 5, r + rows - 1, Side::Left),
    );
    assert_eq!(text.as_deref(), Some(command.as_str()));
}

#[test]
fn dragging_past_the_top_scrolls_to_select_more() {
    let answer: Vec<String> = (0..80).map(|i| format!("row{i:02}")).collect();
    let mut o = answered(&answer.join("\n"));
    let shown = |o: &mut Overlay| -> usize {
        let dump = o.text_dump();
        let first = dump
            .lines()
            .find_map(|l| l.trim().strip_prefix("row"))
            .expect("rows drawn");
        first.parse().unwrap_or(0)
    };
    let top = shown(&mut o);
    assert!(top > 20, "the answer should not fit: first shown row{top}");
    let (c, r) = cell_of(&mut o, "row79");
    o.press(c + 4, r, Side::Right, SelectionKind::Simple);
    for _ in 0..10 {
        o.drag(c, 0, Side::Left);
    }
    // Held there, the app keeps scrolling on a timer.
    assert!(o.is_edge_scrolling());
    let text = o.release().expect("a selection");
    assert!(!o.is_edge_scrolling(), "released");
    assert!(
        text.starts_with(&format!("row{:02}\n", top - 10)),
        "{}",
        &text[..40.min(text.len())]
    );
    assert!(text.ends_with("row79"), "{text}");
    o.layers(GRID.0, GRID.1, &Theme::default());
    assert_eq!(shown(&mut o), top - 10, "the view followed the drag");
    // Dragging past the bottom scrolls back down.
    let (c, r) = cell_of(&mut o, &format!("row{:02}", top - 10));
    o.press(c, r, Side::Left, SelectionKind::Simple);
    for _ in 0..4 {
        o.drag(c, GRID.1 + 3, Side::Left);
    }
    o.release();
    o.layers(GRID.0, GRID.1, &Theme::default());
    assert_eq!(shown(&mut o), top - 6);
    // Back inside, or at the very top, there is nothing to repeat.
    let (c, r) = cell_of(&mut o, &format!("row{:02}", top - 3));
    o.press(c, r, Side::Left, SelectionKind::Simple);
    o.drag(c, 0, Side::Left);
    assert!(o.is_edge_scrolling());
    o.drag(c + 1, r, Side::Left);
    assert!(!o.is_edge_scrolling(), "inside again");
    for _ in 0..200 {
        o.drag(c, 0, Side::Left);
    }
    assert!(!o.is_edge_scrolling(), "nothing older to show");
    o.release();
}

#[test]
fn a_click_in_the_input_box_moves_the_caret() {
    let mut o = answered("an answer");
    type_text(&mut o, "hello world");
    o.layers(GRID.0, GRID.1, &Theme::default());
    let (c, r) = cell_of(&mut o, "world");
    assert!(o.press(c, r, Side::Left, SelectionKind::Simple));
    assert_eq!(o.input().cursor(), (0, "hello ".len()));
    assert_eq!(o.release(), None, "a click in the input selects nothing");
    type_text(&mut o, "big ");
    assert_eq!(o.input().text(), "hello big world");
    // On the right half of a cell, the caret goes after that character.
    let (c, r) = cell_of(&mut o, "big");
    o.press(c, r, Side::Right, SelectionKind::Simple);
    assert_eq!(o.input().cursor(), (0, "hello b".len()));
}
