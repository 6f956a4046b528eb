//! Unit tests of the input box: editing keys, history, layout and caret
//! placement.

use super::*;
use crate::overlay::style::line_text;
use crate::overlay::wrap::line_width;

fn key(k: Key) -> KeyEvent {
    KeyEvent::press(k, Mods::NONE)
}
fn ctrl(c: char) -> KeyEvent {
    KeyEvent::press(Key::Char(c), Mods::CTRL)
}
fn typed(b: &mut InputBox, s: &str) {
    for c in s.chars() {
        b.handle_key(&key(Key::Char(c)), None);
    }
}

#[test]
fn editing_keys() {
    let mut b = InputBox::new();
    typed(&mut b, "hello wörld");
    b.handle_key(&key(Key::Backspace), None);
    assert_eq!(b.text(), "hello wörl");
    b.handle_key(&key(Key::Left), None);
    b.handle_key(&key(Key::Left), None);
    b.handle_key(&key(Key::Delete), None);
    assert_eq!(b.text(), "hello wöl");
    b.handle_key(&ctrl('a'), None);
    typed(&mut b, ">");
    b.handle_key(&ctrl('e'), None);
    typed(&mut b, "d");
    assert_eq!(b.text(), ">hello wöld");
    b.handle_key(&ctrl('w'), None);
    assert_eq!(b.text(), ">hello ");
    b.handle_key(&key(Key::Home), None);
    b.handle_key(&key(Key::Right), None);
    b.handle_key(&ctrl('k'), None);
    assert_eq!(b.text(), ">");
    b.handle_key(&ctrl('u'), None);
    assert!(b.is_empty());
    assert_eq!(b.handle_key(&ctrl('x'), None), Edit::Unhandled);
}

#[test]
fn multiline_paste_and_vertical_moves() {
    let mut b = InputBox::new();
    b.paste("first line\r\nsecond\rthird");
    assert_eq!(b.text(), "first line\nsecond\nthird");
    assert_eq!(b.cursor(), (2, 5));
    b.handle_key(&key(Key::Up), None);
    assert_eq!(b.cursor(), (1, 5));
    b.handle_key(&key(Key::Up), None);
    assert_eq!(b.cursor(), (0, 5));
    b.handle_key(&KeyEvent::press(Key::Enter, Mods::SHIFT), None);
    assert_eq!(b.text(), "first\n line\nsecond\nthird");
    b.handle_key(&KeyEvent::press(Key::Enter, Mods::ALT), None);
    assert_eq!(b.lines.len(), 5);
    b.handle_key(&key(Key::Backspace), None);
    b.handle_key(&key(Key::Backspace), None);
    assert_eq!(b.text(), "first line\nsecond\nthird");
}

#[test]
fn submit_and_history() {
    let mut b = InputBox::new();
    assert_eq!(
        b.handle_key(&key(Key::Enter), None),
        Edit::Changed,
        "empty: nothing sent"
    );
    typed(&mut b, "one");
    assert_eq!(
        b.handle_key(&key(Key::Enter), None),
        Edit::Submit("one".into())
    );
    assert!(b.is_empty());
    b.paste("two\nlines");
    assert_eq!(
        b.handle_key(&key(Key::Enter), None),
        Edit::Submit("two\nlines".into())
    );
    b.handle_key(&key(Key::Up), None);
    assert_eq!(b.text(), "two\nlines");
    // At the first line while browsing, Up walks further back.
    b.handle_key(&key(Key::Up), None);
    b.handle_key(&key(Key::Up), None);
    assert_eq!(b.text(), "one");
    b.handle_key(&key(Key::Up), None);
    assert_eq!(b.text(), "one", "stays at the oldest");
    b.handle_key(&key(Key::Down), None);
    assert_eq!(b.text(), "two\nlines");
    b.handle_key(&key(Key::Down), None);
    b.handle_key(&key(Key::Down), None);
    assert!(b.is_empty(), "back to the empty draft");
    assert_eq!(b.history(), ["one", "two\nlines"]);
    typed(&mut b, "draft");
    b.handle_key(&key(Key::Up), None);
    assert_eq!(
        b.text(),
        "draft",
        "Up on a non-empty single line does not browse"
    );
}

#[test]
fn a_click_places_the_caret_on_what_was_drawn_there() {
    let pal = Palette::default();
    let mut b = InputBox::new();
    typed(&mut b, "abcdef漢字");
    b.insert("\nsecond");
    // Laid out 6 wide: "› abcd", "  ef漢", "  字", "  second".
    b.place_caret(6, 0, 4);
    assert_eq!(b.cursor(), (0, 2), "on `c`: before it");
    b.place_caret(6, 1, 4);
    assert_eq!(b.cursor(), (0, 6), "on 漢's first cell");
    b.place_caret(6, 1, 5);
    assert_eq!(b.cursor(), (0, 6), "on 漢's second cell");
    b.place_caret(6, 2, 5);
    assert_eq!(b.cursor(), (0, "abcdef漢字".len()), "past the end");
    b.place_caret(6, 3, 0);
    assert_eq!(b.cursor(), (1, 0), "left of the text: its start");
    b.place_caret(6, 9, 3);
    assert_eq!(b.cursor(), (1, "second".len()), "below: the very end");
    // Typing goes where the caret is.
    b.place_caret(6, 0, 3);
    typed(&mut b, "X");
    assert_eq!(b.text(), "aXbcdef漢字\nsecond");
    let (_, cursor) = b.layout(6, &pal);
    assert_eq!(cursor, (4, 0));
}

#[test]
fn layout_wraps_and_places_cursor_with_preedit() {
    let pal = Palette::default();
    let mut b = InputBox::new();
    typed(&mut b, "abcdef漢字");
    let (lines, cursor) = b.layout(6, &pal);
    for l in &lines {
        assert!(line_width(l) <= 6, "{l:?}");
    }
    assert_eq!(
        lines.iter().map(line_text).collect::<Vec<_>>(),
        ["› abcd", "  ef漢", "  字"]
    );
    assert_eq!(cursor, (4, 2));
    b.handle_key(&key(Key::Home), None);
    b.set_preedit(Some("にほ".into()));
    let (lines, cursor) = b.layout(20, &pal);
    assert_eq!(line_text(&lines[0]), "› にほabcdef漢字");
    assert!(lines[0]
        .spans
        .iter()
        .any(|s| s.text == "にほ" && s.underline));
    assert_eq!(cursor, (6, 0));
}
