//! The composer's tests: panes at their offsets, damage, highlights, the
//! tab bar and the cursors of focused and unfocused panes.

use super::*;

fn pane_frame(cols: usize, rows: usize, ch: char) -> Frame {
    let mut frame = Frame::blank(cols, rows);
    for row in 0..rows {
        frame.write_str(0, row, &ch.to_string().repeat(cols), &Cell::new(' '));
    }
    frame
}

fn text(frame: &Frame, row: usize) -> String {
    (0..frame.cols)
        .map(|c| frame.cell(c, row).map_or('?', |c| c.ch))
        .collect()
}

#[test]
fn panes_land_at_their_offsets_with_a_divider_between() {
    let (a, b) = (pane_frame(3, 2, 'a'), pane_frame(2, 2, 'b'));
    let mut composer = Composer::default();
    let scene = Scene {
        cols: 6,
        rows: 3,
        tab_bar: None,
        panes: vec![
            PaneView {
                id: 1,
                frame: &a,
                rect: CellRect {
                    col: 0,
                    row: 1,
                    cols: 3,
                    rows: 2,
                },
                changed: true,
                focused: false,
                highlights: &[],
            },
            PaneView {
                id: 2,
                frame: &b,
                rect: CellRect {
                    col: 4,
                    row: 1,
                    cols: 2,
                    rows: 2,
                },
                changed: true,
                focused: true,
                highlights: &[],
            },
        ],
        dividers: vec![Divider {
            col: 3,
            row: 1,
            len: 2,
            axis: DividerAxis::Vertical,
        }],
        colors: ChromeColors::default(),
    };
    let frame = composer.compose(&scene);
    assert_eq!(text(frame, 1), "aaa│bb");
    assert_eq!(text(frame, 2), "aaa│bb");
    assert_eq!(frame.damage, Damage::Full);
}

#[test]
fn unfocused_panes_cursors_are_hollow_at_their_offsets() {
    let cursor = |col, row| {
        Some(CursorSpec {
            col,
            row,
            shape: crate::CursorShape::Beam,
            focused: true,
        })
    };
    let mut frames = [
        pane_frame(3, 2, 'a'),
        pane_frame(3, 2, 'b'),
        pane_frame(3, 2, 'c'),
        pane_frame(3, 2, 'd'),
    ];
    frames[0].cursor = cursor(1, 0);
    frames[1].cursor = cursor(2, 1);
    // Hidden by its application (DECTCEM): none drawn.
    frames[2].cursor = None;
    // Outside the pane's rect (the pane shrank before its grid did).
    frames[3].cursor = cursor(2, 1);
    let rect = |col, row, cols| CellRect {
        col,
        row,
        cols,
        rows: 2,
    };
    let rects = [rect(0, 0, 3), rect(4, 0, 3), rect(0, 3, 3), rect(4, 3, 2)];
    let panes = frames
        .iter()
        .zip(rects)
        .enumerate()
        .map(|(i, (frame, rect))| PaneView {
            id: i as u64,
            frame,
            rect,
            changed: true,
            focused: i == 1,
            highlights: &[],
        })
        .collect();
    let scene = Scene {
        cols: 7,
        rows: 5,
        tab_bar: None,
        panes,
        dividers: Vec::new(),
        colors: ChromeColors::default(),
    };
    let mut composer = Composer::default();
    let frame = composer.compose(&scene);
    let focused = frame.cursor.unwrap();
    assert_eq!((focused.col, focused.row, focused.focused), (6, 1, true));
    assert_eq!(focused.effective_shape(), crate::CursorShape::Beam);
    let inactive: Vec<_> = frame
        .inactive_cursors
        .iter()
        .map(|c| (c.col, c.row, c.effective_shape()))
        .collect();
    assert_eq!(inactive, [(1, 0, crate::CursorShape::HollowBlock)]);
}

#[test]
fn an_unchanged_pane_copies_nothing_and_damage_is_offset() {
    let mut a = pane_frame(2, 2, 'a');
    let b = pane_frame(2, 2, 'b');
    let rect_a = CellRect {
        col: 0,
        row: 0,
        cols: 2,
        rows: 2,
    };
    let rect_b = CellRect {
        col: 0,
        row: 3,
        cols: 2,
        rows: 2,
    };
    let mut composer = Composer::default();
    let mut scene = |a: &'_ Frame, changed: [bool; 2]| -> Frame {
        let view = |frame, rect: CellRect, changed, focused| PaneView {
            id: rect.row as u64,
            frame,
            rect,
            changed,
            focused,
            highlights: &[],
        };
        let scene = Scene {
            cols: 2,
            rows: 5,
            tab_bar: None,
            panes: vec![
                view(a, rect_a, changed[0], true),
                view(&b, rect_b, changed[1], false),
            ],
            dividers: Vec::new(),
            colors: ChromeColors::default(),
        };
        composer.compose(&scene).clone()
    };
    assert_eq!(scene(&a, [true, true]).damage, Damage::Full);
    a.write_str(0, 1, "zz", &Cell::new(' '));
    a.damage = Damage::Rows(vec![1]);
    // Not rebuilt: nothing copied, nothing damaged.
    let frame = scene(&a, [false, false]);
    assert_eq!(frame.damage, Damage::Rows(Vec::new()));
    assert_eq!(text(&frame, 1), "aa");
    let frame = scene(&a, [true, false]);
    assert_eq!(frame.damage, Damage::Rows(vec![1]));
    assert_eq!(text(&frame, 1), "zz");
    assert_eq!(text(&frame, 3), "bb");
}

#[test]
fn highlights_colour_their_cells_and_cursor_follows_the_focused_pane() {
    let mut a = pane_frame(4, 1, 'x');
    a.cursor = Some(CursorSpec {
        col: 1,
        row: 0,
        shape: crate::CursorShape::Block,
        focused: true,
    });
    let lit = [Highlight {
        row: 0,
        start_col: 1,
        end_col: 3,
        current: true,
    }];
    let colors = ChromeColors::default();
    let mut composer = Composer::default();
    let labels = [
        TabLabel {
            title: "one".into(),
            active: true,
            ..TabLabel::default()
        },
        TabLabel {
            title: "two".into(),
            failed: true,
            activity: true,
            ..TabLabel::default()
        },
    ];
    let scene = Scene {
        cols: 40,
        rows: 2,
        tab_bar: Some(TabBar {
            labels: &labels,
            row: 0,
        }),
        panes: vec![PaneView {
            id: 1,
            frame: &a,
            rect: CellRect {
                col: 0,
                row: 1,
                cols: 4,
                rows: 1,
            },
            changed: true,
            focused: true,
            highlights: &lit,
        }],
        dividers: Vec::new(),
        colors,
    };
    let frame = composer.compose(&scene);
    let bg = |c| frame.cell(c, 1).map(|c| c.bg);
    assert_eq!(bg(1), Some(Color::Rgb(colors.current_background)));
    assert_eq!(bg(0), Some(Color::Named(crate::NamedColor::Background)));
    assert_eq!(frame.cursor.map(|c| (c.col, c.row)), Some((1, 1)));
    let bar = text(frame, 0);
    assert!(bar.starts_with(" 1 one "), "{bar}");
    assert!(bar.contains(" 2 two ×• "), "{bar}");
}
#[test]
fn the_tab_bar_is_drawn_on_its_row_and_moving_it_redraws_all() {
    let a = pane_frame(8, 2, 'a');
    let labels = [TabLabel {
        title: "one".into(),
        active: true,
        ..TabLabel::default()
    }];
    let mut composer = Composer::default();
    let mut compose = |bar_row: usize, pane_row: usize| {
        let scene = Scene {
            cols: 8,
            rows: 3,
            tab_bar: Some(TabBar {
                labels: &labels,
                row: bar_row,
            }),
            panes: vec![PaneView {
                id: 1,
                frame: &a,
                rect: CellRect {
                    col: 0,
                    row: pane_row,
                    cols: 8,
                    rows: 2,
                },
                changed: false,
                focused: true,
                highlights: &[],
            }],
            dividers: Vec::new(),
            colors: ChromeColors::default(),
        };
        composer.compose(&scene).clone()
    };
    let bottom = compose(2, 0);
    assert_eq!(text(&bottom, 0), "aaaaaaaa");
    assert_eq!(text(&bottom, 1), "aaaaaaaa");
    assert!(
        text(&bottom, 2).starts_with(" 1 one "),
        "{}",
        text(&bottom, 2)
    );
    let bg = |frame: &Frame, row| frame.cell(7, row).map(|c| c.bg);
    let bar_bg = Some(Color::Rgb(ChromeColors::default().active_background));
    assert_eq!(bg(&bottom, 2), bar_bg);
    let top = compose(0, 1);
    assert_eq!(top.damage, Damage::Full);
    assert!(text(&top, 0).starts_with(" 1 one "), "{}", text(&top, 0));
    assert_eq!(text(&top, 2), "aaaaaaaa", "no bar left behind");
}

#[test]
fn pictures_move_with_their_pane_and_stop_at_its_edge() {
    let pixels = std::sync::Arc::new(
        crate::picture::PicturePixels::new(1, 1, vec![255, 0, 0, 255]).unwrap(),
    );
    let tile = |col, row| crate::picture::PictureTile {
        pixels: pixels.clone(),
        col,
        row,
        dest: [0.0, 0.0, 1.0, 1.0],
        source: [0.0, 0.0, 1.0, 1.0],
        z: 0,
    };
    let mut a = pane_frame(3, 2, 'a');
    // (2, 1) is inside the pane; (3, 0) lies past its right edge.
    a.pictures = vec![tile(0, 0), tile(2, 1), tile(3, 0)];
    let mut composer = Composer::default();
    let scene = Scene {
        cols: 8,
        rows: 4,
        tab_bar: None,
        panes: vec![PaneView {
            id: 1,
            frame: &a,
            rect: CellRect {
                col: 4,
                row: 1,
                cols: 3,
                rows: 2,
            },
            changed: true,
            focused: true,
            highlights: &[],
        }],
        dividers: vec![],
        colors: ChromeColors::default(),
    };
    let frame = composer.compose(&scene);
    let cells: Vec<_> = frame.pictures.iter().map(|t| (t.col, t.row)).collect();
    assert_eq!(cells, [(4, 1), (6, 2)]);
}
