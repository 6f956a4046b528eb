//! Behaviour beyond single pixels: damage tracking, zoom, overlays, and
//! inputs that must not panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use render::{
    Border, Cell, CellFlags, Color, CursorShape, CursorSpec, Damage, FontConfig, Frame, NamedColor,
    OverlayLayer, OverlayRect, RenderError, Rgb, SelectionSpan, Span, StyledLine,
};

fn dense_frame(cols: usize, rows: usize, seed: usize) -> Frame {
    let mut frame = Frame::blank(cols, rows);
    for (i, c) in frame.cells.iter_mut().enumerate() {
        let v = i + seed;
        c.ch = char::from(b'!' + (v % 90) as u8);
        c.fg = Color::Indexed((v % 200) as u8 + 16);
        if v.is_multiple_of(7) {
            c.bg = Color::Indexed((v % 13) as u8);
        }
        c.flags.set(CellFlags::BOLD, v.is_multiple_of(5));
    }
    frame
}

#[test]
fn only_changed_rows_are_prepared_and_the_result_matches_a_full_render() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let a = dense_frame(30, 8, 0);
    let (w, h) = image_size(&r, &a);
    r.render_to_image(&a, w, h).expect("first frame");
    assert!(r.last_stats().full);
    assert_eq!(r.last_stats().rows_prepared, 8);

    r.render_to_image(&a, w, h).expect("same frame");
    assert_eq!(r.last_stats().rows_prepared, 0);
    assert_eq!(r.last_stats().changed_px_rows, Some((0, 0)));

    let mut b = a.clone();
    b.write_str(4, 5, "changed!", &Cell::new(' '));
    let partial = r.render_to_image(&b, w, h).expect("one row changed");
    assert_eq!(r.last_stats().rows_prepared, 1);
    assert!(!r.last_stats().full);
    let (_, row5_top, _, row5_bottom) = cell_rect(&r, 0, 5, 1);
    assert_eq!(
        r.last_stats().changed_px_rows,
        Some((row5_top, row5_bottom))
    );

    let mut fresh = renderer(&gpu);
    let full = fresh.render_to_image(&b, w, h).expect("fresh");
    assert!(
        partial == full,
        "a partial update differs from a full render"
    );

    // The damage hint limits which rows are compared.
    let mut c = b.clone();
    c.write_str(0, 2, "xy", &Cell::new(' '));
    c.damage = Damage::Rows(vec![2]);
    r.render_to_image(&c, w, h).expect("hinted");
    assert_eq!(r.last_stats().rows_prepared, 1);

    // Moving a block cursor re-prepares the row it left and the row it entered.
    let mut d = c.clone();
    d.damage = Damage::Full;
    d.cursor = Some(CursorSpec {
        col: 1,
        row: 1,
        shape: CursorShape::Block,
        focused: true,
    });
    r.render_to_image(&d, w, h).expect("cursor on");
    assert_eq!(r.last_stats().rows_prepared, 1);
    d.cursor = d.cursor.map(|cur| CursorSpec { row: 6, ..cur });
    let img = r.render_to_image(&d, w, h).expect("cursor moved");
    assert_eq!(r.last_stats().rows_prepared, 2);
    assert_matches_fresh(&gpu, &d, &img);

    // Beam and hollow cursors are drawn over the text: no row rebuilds,
    // yet the image (redrawn only where the cursor was and is) is right.
    d.cursor = d.cursor.map(|cur| CursorSpec {
        shape: CursorShape::Beam,
        ..cur
    });
    r.render_to_image(&d, w, h).expect("beam");
    d.cursor = d.cursor.map(|cur| CursorSpec {
        row: 2,
        col: 7,
        focused: false,
        ..cur
    });
    let img = r.render_to_image(&d, w, h).expect("hollow moved");
    assert_matches_fresh(&gpu, &d, &img);

    // A selection change re-prepares its rows only.
    d.selection = vec![SelectionSpan {
        row: 3,
        start_col: 2,
        end_col: 9,
    }];
    r.render_to_image(&d, w, h).expect("selection");
    assert_eq!(r.last_stats().rows_prepared, 1);
    let img = r.render_to_image(&d, w, h).expect("selection again");
    let (x0, y0, _, _) = cell_rect(&r, 2, 3, 1);
    assert_eq!(img.rgb(x0, y0), Some(r.theme().selection_background));
    assert_matches_fresh(&gpu, &d, &img);
}

/// `img` (from a renderer that drew earlier frames) equals what a new
/// renderer draws for `frame` from scratch.
fn assert_matches_fresh(gpu: &render::Gpu, frame: &Frame, img: &render::RgbaImage) {
    let mut fresh = renderer(gpu);
    let want = fresh
        .render_to_image(frame, img.width, img.height)
        .expect("fresh render");
    let diff = pixels(img)
        .zip(pixels(&want))
        .find(|(a, b)| a != b)
        .map(|(a, b)| {
            format!(
                "first difference at ({},{}): {:?} vs {:?}",
                a.0, a.1, a.2, b.2
            )
        });
    assert!(
        diff.is_none(),
        "incremental frame differs from a full render: {diff:?}"
    );
}

#[test]
fn zoom_changes_the_cell_size_and_still_renders() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let (w0, h0) = r.cell_size();
    let mut frame = Frame::blank(4, 2);
    frame.write_str(0, 0, "ab", &Cell::new(' '));
    render(&mut r, &frame);
    let (w1, h1) = r.set_font(&FontConfig {
        family: None,
        size_pt: 24.0,
        scale_factor: 1.0,
        ..FontConfig::default()
    });
    assert!(w1 > w0 && h1 > h0, "zoom did not grow the cell");
    let img = render(&mut r, &frame);
    assert!(r.last_stats().full);
    let bg = r.theme().background;
    let a = cell_rect(&r, 0, 0, 1);
    assert!(pixels(&img).any(|(x, y, px)| px != bg && inside(a, x, y)));
    // HiDPI: scale factor 2 doubles the cell.
    let (w2, h2) = r.set_font(&FontConfig {
        family: None,
        size_pt: 12.0,
        scale_factor: 2.0,
        ..FontConfig::default()
    });
    assert!(w2.abs_diff(2 * w0) <= 1 && h2.abs_diff(2 * h0) <= 1);
    assert_eq!(
        r.grid_size_for(2 * PAD + 10 * w2, 2 * PAD + 5 * h2),
        (10, 5)
    );
}

#[test]
fn overlay_box_has_border_fill_and_text_on_top() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let mut frame = Frame::blank(20, 8);
    frame.write_str(0, 3, "under the overlay", &Cell::new(' '));
    let fill = Rgb::new(10, 20, 90);
    let border = Rgb::new(200, 180, 0);
    frame.overlays.push(OverlayLayer {
        rect: OverlayRect::Cells {
            col: 2,
            row: 1,
            cols: 14,
            rows: 5,
        },
        background: Color::Rgb(fill),
        border: Some(Border {
            color: Color::Rgb(border),
            width_px: 2,
        }),
        padding_px: 4,
        lines: vec![StyledLine::new(vec![Span::new("hi 你", Color::Rgb(WHITE))])],
        pictures: Vec::new(),
    });
    let img = render(&mut r, &frame);
    let (x0, y0, x1, y1) = cell_rect(&r, 2, 1, 14);
    let y1 = y1 + 4 * r.cell_size().1;
    assert_eq!(img.rgb(x0, y0), Some(border));
    assert_eq!(img.rgb(x1 - 1, y1 - 1), Some(border));
    assert_eq!(img.rgb(x0 + 3, y1 - 3), Some(fill));
    // The grid text under the box is hidden; the overlay's own text shows.
    let (gx0, gy0, gx1, gy1) = cell_rect(&r, 3, 3, 12);
    for y in gy0..gy1 {
        for x in gx0..gx1 {
            assert_eq!(
                img.rgb(x, y),
                Some(fill),
                "grid text shows through at ({x},{y})"
            );
        }
    }
    let text_row = (y0 + 6, y0 + 6 + r.cell_size().1);
    let ink = (x0..x1)
        .flat_map(|x| (text_row.0..text_row.1).map(move |y| (x, y)))
        .filter(|&(x, y)| img.rgb(x, y).is_some_and(|p| p.r > 150 && p.b > 150))
        .count();
    assert!(ink > 0, "overlay text missing");
}

#[test]
fn bad_sizes_are_errors_and_odd_frames_do_not_panic() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let frame = Frame::blank(3, 3);
    assert!(matches!(
        r.render_to_image(&frame, 0, 10),
        Err(RenderError::InvalidSize { .. })
    ));
    assert!(matches!(
        r.render_to_image(&frame, 10, u32::MAX),
        Err(RenderError::InvalidSize { .. })
    ));

    // Zero-size grid: just the background.
    let empty = Frame::default();
    let img = r.render_to_image(&empty, 20, 10).expect("empty frame");
    let bg = r.theme().background;
    assert!(pixels(&img).all(|(_, _, px)| px == bg));

    // Fewer cells than cols*rows, a huge declared grid, odd characters,
    // cursor and selection out of range, and an overlay off screen.
    let mut odd = Frame {
        cols: 1_000_000,
        rows: 1_000_000,
        ..Frame::default()
    };
    let weird = [
        '\0',
        '\u{7}',
        '\t',
        '\u{301}',
        '\u{FFFF}',
        '\u{10FFFF}',
        '\u{200D}',
        '😀',
        '🇯',
        'ﷺ',
        '\u{FEFF}',
        '⠿',
        '╳',
        '▒',
    ];
    for (i, ch) in weird.iter().enumerate() {
        let mut c = Cell::new(*ch);
        c.flags = if i % 2 == 0 {
            CellFlags::WIDE
        } else {
            CellFlags::WIDE_SPACER
        };
        c.zerowidth = (i % 3 == 0).then(|| vec!['\u{301}', '\u{FE0F}'].into_boxed_slice());
        c.underline = render::UnderlineStyle::Curly;
        odd.cells.push(c);
    }
    odd.cursor = Some(CursorSpec {
        col: usize::MAX,
        row: usize::MAX,
        shape: CursorShape::Beam,
        focused: true,
    });
    odd.selection.push(SelectionSpan {
        row: 0,
        start_col: 5,
        end_col: usize::MAX,
    });
    odd.overlays.push(OverlayLayer {
        rect: OverlayRect::Cells {
            col: usize::MAX,
            row: 3,
            cols: usize::MAX,
            rows: 2,
        },
        background: Color::Named(NamedColor::Blue),
        border: None,
        padding_px: u32::MAX,
        lines: vec![StyledLine::default()],
        pictures: Vec::new(),
    });
    r.render_to_image(&odd, 300, 40).expect("odd frame renders");
}

#[test]
fn emoji_and_cjk_stay_within_their_two_cells() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let bg = r.theme().background;
    for text in ["😀", "你", "가"] {
        let mut frame = Frame::blank(6, 1);
        frame.write_str(
            2,
            0,
            text,
            &cell(' ', WHITE, Color::Named(NamedColor::Background)),
        );
        let img = render(&mut r, &frame);
        let rect = cell_rect(&r, 2, 0, 2);
        let mut ink = 0;
        for (x, y, px) in pixels(&img) {
            if px != bg {
                assert!(
                    inside(rect, x, y),
                    "{text}: ink outside its cells at ({x},{y})"
                );
                ink += 1;
            }
        }
        assert!(ink > 0, "{text} drew nothing");
    }
}

#[test]
fn missing_font_family_falls_back_to_the_embedded_font() {
    let gpu = gpu();
    let font = FontConfig {
        family: Some("No Such Font Family 12345".into()),
        size_pt: f32::NAN,
        scale_factor: f64::INFINITY,
        ..FontConfig::default()
    };
    let r = render::Renderer::new(
        &gpu,
        font,
        render::Theme::default(),
        render::OFFSCREEN_FORMAT,
    )
    .expect("renderer");
    assert_eq!(r.font_family(), render::FALLBACK_FAMILY);
    let (w, h) = r.cell_size();
    assert!(w >= 1 && h >= 1 && w < 100 && h < 200, "odd cell {w}x{h}");
}

#[test]
fn renderer_and_gpu_can_move_to_a_render_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<render::Renderer>();
    assert_send::<render::Gpu>();
    assert_send::<render::Frame>();
}

#[test]
fn an_overlay_that_goes_away_leaves_no_pixels_behind() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let mut frame = Frame::blank(20, 6);
    frame.write_str(0, 0, "$ false", &Cell::new(' '));
    let with_hint = {
        let mut f = frame.clone();
        f.overlays.push(OverlayLayer {
            rect: OverlayRect::Cells {
                col: 9,
                row: 0,
                cols: 6,
                rows: 1,
            },
            background: Color::Rgb(Rgb::new(0x5c, 0x2b, 0x2b)),
            border: None,
            padding_px: 0,
            lines: vec![StyledLine::new(vec![Span::new("fix", Color::Rgb(WHITE))])],
            pictures: Vec::new(),
        });
        f
    };
    let (w, h) = image_size(&r, &frame);
    r.render_to_image(&with_hint, w, h)
        .expect("with the overlay");
    // The next frame changes another row only, and the overlay is gone.
    frame.write_str(0, 1, "$", &Cell::new(' '));
    let img = r.render_to_image(&frame, w, h).expect("without it");
    assert_matches_fresh(&gpu, &frame, &img);
}

#[test]
fn a_warmed_up_renderer_draws_what_a_cold_one_draws() {
    let gpu = gpu();
    let mut warmed = renderer(&gpu);
    warmed.warm_up().expect("warm-up");
    let frame = dense_frame(12, 4, 3);
    let (cw, ch) = warmed.cell_size();
    let img = warmed
        .render_to_image(&frame, 12 * cw, 4 * ch)
        .expect("render after warm-up");
    // Nothing of the warm-up's frame (an x on a coloured cell) is left.
    assert_matches_fresh(&gpu, &frame, &img);
    // A second frame is incremental again, and still exact.
    let next = dense_frame(12, 4, 4);
    let img = warmed
        .render_to_image(&next, 12 * cw, 4 * ch)
        .expect("render");
    assert_matches_fresh(&gpu, &next, &img);
}
