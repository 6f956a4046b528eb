//! Pixel assertions on real wgpu (lavapipe in CI): where backgrounds,
//! glyphs, lines, underlines and the cursor land, and that colours are exact.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use render::{
    wgpu::TextureFormat, CellFlags, Color, CursorShape, CursorSpec, Frame, NamedColor, Rgb, Theme,
    UnderlineStyle,
};

#[test]
fn red_background_cell_is_red_only_in_its_rect() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let mut frame = Frame::blank(6, 3);
    if let Some(c) = frame.cell_mut(2, 1) {
        c.bg = Color::Rgb(RED);
    }
    let img = render(&mut r, &frame);
    let rect = cell_rect(&r, 2, 1, 1);
    let bg = r.theme().background;
    for (x, y, px) in pixels(&img) {
        if inside(rect, x, y) {
            assert_eq!(px, RED, "inside the red cell at ({x},{y})");
        } else {
            assert_eq!(px, bg, "outside the red cell at ({x},{y})");
        }
    }
}

#[test]
fn glyph_ink_falls_inside_its_cell() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let bg = r.theme().background;
    // Wide, descending, tall and round glyphs, each alone on the grid.
    for ch in ['W', 'g', 'j', '@', 'Q', '|', '_'] {
        let mut frame = Frame::blank(5, 3);
        if let Some(c) = frame.cell_mut(2, 1) {
            *c = cell(ch, WHITE, Color::Named(NamedColor::Background));
        }
        let img = render(&mut r, &frame);
        let rect = cell_rect(&r, 2, 1, 1);
        let mut ink = 0;
        for (x, y, px) in pixels(&img) {
            if px != bg {
                assert!(
                    inside(rect, x, y),
                    "{ch:?} has ink outside its cell at ({x},{y})"
                );
                ink += 1;
            }
        }
        assert!(ink > 0, "{ch:?} drew nothing");
    }
}

#[test]
fn wide_char_puts_the_next_char_at_column_three() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let bg = r.theme().background;
    let template = cell(' ', WHITE, Color::Named(NamedColor::Background));

    let mut mixed = Frame::blank(6, 1);
    mixed.write_str(0, 0, "a你b", &template);
    assert!(mixed
        .cell(1, 0)
        .is_some_and(|c| c.flags.contains(CellFlags::WIDE)));
    let mixed_img = render(&mut r, &mixed);

    let mut alone = Frame::blank(6, 1);
    alone.write_str(3, 0, "b", &template);
    let alone_img = render(&mut r, &alone);

    // Column 3 holds exactly the pixels of a lone 'b' at column 3.
    let col3 = cell_rect(&r, 3, 0, 1);
    let mut ink = 0;
    for y in col3.1..col3.3 {
        for x in col3.0..col3.2 {
            let px = mixed_img.rgb(x, y);
            assert_eq!(px, alone_img.rgb(x, y), "column 3 differs at ({x},{y})");
            ink += usize::from(px != Some(bg));
        }
    }
    assert!(ink > 0, "'b' is not at column 3");
    // The wide glyph's ink stays inside columns 1..3.
    let wide = cell_rect(&r, 1, 0, 2);
    let wide_ink = pixels(&mixed_img)
        .filter(|&(x, y, px)| px != bg && inside(wide, x, y))
        .count();
    assert!(wide_ink > 0, "你 drew nothing in columns 1-2");
}

#[test]
fn column_of_box_verticals_is_one_unbroken_line() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let mut frame = Frame::blank(5, 6);
    for row in 0..6 {
        if let Some(c) = frame.cell_mut(2, row) {
            *c = cell('│', WHITE, Color::Named(NamedColor::Background));
        }
    }
    let img = render(&mut r, &frame);
    let top = cell_rect(&r, 2, 0, 1);
    let bottom = cell_rect(&r, 2, 5, 1);
    let line_xs: Vec<u32> = (top.0..top.2)
        .filter(|&x| img.rgb(x, top.1) == Some(WHITE))
        .collect();
    assert!(!line_xs.is_empty(), "no line at the top of the column");
    for &x in &line_xs {
        for y in top.1..bottom.3 {
            assert_eq!(img.rgb(x, y), Some(WHITE), "gap in the line at ({x},{y})");
        }
    }
    // Padding above and below stays background.
    let bg = r.theme().background;
    assert_eq!(img.rgb(line_xs[0], top.1 - 1), Some(bg));
    assert_eq!(img.rgb(line_xs[0], bottom.3), Some(bg));
}

#[test]
fn underline_ink_only_in_bottom_rows_and_only_when_underlined() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let m = r.cell_metrics();
    let bg = r.theme().background;
    for style in [
        UnderlineStyle::Single,
        UnderlineStyle::Double,
        UnderlineStyle::Curly,
        UnderlineStyle::Dotted,
        UnderlineStyle::Dashed,
    ] {
        let mut frame = Frame::blank(5, 1);
        let plain = cell('x', WHITE, Color::Named(NamedColor::Background));
        if let Some(c) = frame.cell_mut(1, 0) {
            *c = plain.clone();
            c.underline = style;
            c.underline_color = Some(Color::Rgb(GREEN));
        }
        if let Some(c) = frame.cell_mut(3, 0) {
            *c = plain.clone();
        }
        let img = render(&mut r, &frame);
        let underlined = cell_rect(&r, 1, 0, 1);
        let unstyled = cell_rect(&r, 3, 0, 1);
        let below_baseline = underlined.1 + m.baseline;
        let mut green = 0;
        for (x, y, px) in pixels(&img) {
            let greenish = px.g > 100 && px.r < 100 && px.b < 100;
            if greenish {
                assert!(
                    inside(underlined, x, y) && y >= below_baseline,
                    "{style:?}: underline ink at ({x},{y}) outside the bottom rows"
                );
                green += 1;
            }
            if inside(unstyled, x, y) && y >= below_baseline {
                assert_eq!(
                    px, bg,
                    "unstyled 'x' has ink in its bottom rows at ({x},{y})"
                );
            }
        }
        assert!(green > 0, "{style:?}: no underline drawn");
    }
}

#[test]
fn cursor_block_is_drawn_at_the_cursor_cell() {
    let gpu = gpu();
    let theme = Theme {
        cursor: Rgb::new(0, 200, 100),
        ..Theme::default()
    };
    let mut r = renderer_with(&gpu, theme.clone(), render::OFFSCREEN_FORMAT);
    let mut frame = Frame::blank(6, 3);
    frame.cursor = Some(CursorSpec {
        col: 3,
        row: 1,
        shape: CursorShape::Block,
        focused: true,
    });
    let img = render(&mut r, &frame);
    let rect = cell_rect(&r, 3, 1, 1);
    for (x, y, px) in pixels(&img) {
        let want = if inside(rect, x, y) {
            theme.cursor
        } else {
            theme.background
        };
        assert_eq!(px, want, "at ({x},{y})");
    }

    // Unfocused: a hollow block, its centre left in the background.
    frame.cursor = frame.cursor.map(|c| CursorSpec {
        focused: false,
        ..c
    });
    let img = render(&mut r, &frame);
    assert_eq!(img.rgb(rect.0, rect.1), Some(theme.cursor));
    assert_eq!(img.rgb(rect.2 - 1, rect.3 - 1), Some(theme.cursor));
    let centre = (u32::midpoint(rect.0, rect.2), u32::midpoint(rect.1, rect.3));
    assert_eq!(img.rgb(centre.0, centre.1), Some(theme.background));
    assert_eq!(img.rgb(rect.2, rect.1), Some(theme.background));
}

#[test]
fn inactive_cursors_are_hollow_next_to_the_focused_block() {
    let gpu = gpu();
    let theme = Theme {
        cursor: Rgb::new(0, 200, 100),
        ..Theme::default()
    };
    let mut r = renderer_with(&gpu, theme.clone(), render::OFFSCREEN_FORMAT);
    let mut frame = Frame::blank(8, 3);
    let spec = |col, shape| CursorSpec {
        col,
        row: 1,
        shape,
        focused: true,
    };
    frame.cursor = Some(spec(1, CursorShape::Block));
    // Even a pane asking for a block (or saying it is focused) gets an
    // outline when it is not the focused pane.
    frame.inactive_cursors = vec![spec(5, CursorShape::Block)];
    let img = render(&mut r, &frame);
    let block = cell_rect(&r, 1, 1, 1);
    let hollow = cell_rect(&r, 5, 1, 1);
    let centre =
        |rect: (u32, u32, u32, u32)| (u32::midpoint(rect.0, rect.2), u32::midpoint(rect.1, rect.3));
    let (bx, by) = centre(block);
    assert_eq!(
        img.rgb(bx, by),
        Some(theme.cursor),
        "the focused block is filled"
    );
    let (hx, hy) = centre(hollow);
    assert_eq!(
        img.rgb(hx, hy),
        Some(theme.background),
        "the other is hollow"
    );
    for (x, y) in [
        (hollow.0, hollow.1),
        (hollow.2 - 1, hollow.1),
        (hollow.0, hollow.3 - 1),
        (hollow.2 - 1, hollow.3 - 1),
        (hx, hollow.1),
        (hollow.0, hy),
    ] {
        assert_eq!(img.rgb(x, y), Some(theme.cursor), "outline at ({x},{y})");
    }
    // Nothing else: every cursor-coloured pixel is in one of the two cells.
    for (x, y, px) in pixels(&img) {
        if px == theme.cursor {
            assert!(
                inside(block, x, y) || inside(hollow, x, y),
                "cursor colour at ({x},{y})"
            );
        }
    }

    // The inactive cursor moving damages where it was and where it went.
    frame.inactive_cursors = vec![spec(6, CursorShape::Block)];
    let img = render(&mut r, &frame);
    assert_eq!(img.rgb(hollow.0, hollow.1), Some(theme.background));
    let moved = cell_rect(&r, 6, 1, 1);
    assert_eq!(img.rgb(moved.0, moved.1), Some(theme.cursor));
}

/// Truecolor backgrounds come out at their exact sRGB values on linear and
/// sRGB targets, RGBA and BGRA alike.
#[test]
fn truecolor_backgrounds_are_exact_srgb() {
    let gpu = gpu();
    for format in [
        TextureFormat::Rgba8Unorm,
        TextureFormat::Rgba8UnormSrgb,
        TextureFormat::Bgra8Unorm,
        TextureFormat::Bgra8UnormSrgb,
    ] {
        let mut r = renderer_with(&gpu, Theme::default(), format);
        let mut frame = Frame::blank(16, 16);
        let colour = |i: usize| Rgb::new(i as u8, 255 - i as u8, (i * 37 % 256) as u8);
        for i in 0..256 {
            if let Some(c) = frame.cell_mut(i % 16, i / 16) {
                c.bg = Color::Rgb(colour(i));
            }
        }
        let img = render(&mut r, &frame);
        for i in 0..256 {
            let (x0, y0, x1, y1) = cell_rect(&r, i % 16, i / 16, 1);
            for (x, y) in [
                (x0, y0),
                (x1 - 1, y1 - 1),
                (u32::midpoint(x0, x1), u32::midpoint(y0, y1)),
            ] {
                assert_eq!(
                    img.rgb(x, y),
                    Some(colour(i)),
                    "{format:?} colour {i} at ({x},{y})"
                );
            }
        }
    }
}

#[test]
fn a_translucent_background_is_premultiplied_and_text_and_colored_cells_stay_opaque() {
    let gpu = gpu();
    let mut opaque = renderer(&gpu);
    let mut frame = Frame::blank(4, 1);
    frame.write_str(0, 0, "W", &render::Cell::new(' '));
    if let Some(c) = frame.cell_mut(2, 0) {
        c.bg = Color::Rgb(RED);
    }
    let solid = render(&mut opaque, &frame);
    opaque.set_background_opacity(1.0);
    assert_eq!(
        render(&mut opaque, &frame),
        solid,
        "opacity 1 changes nothing"
    );

    let mut r = renderer(&gpu);
    r.set_background_opacity(0.25);
    let img = render(&mut r, &frame);
    let bg = Theme::default().background;
    // The padding and the default-background cells: a quarter of the
    // colour and a quarter of alpha, as window systems composite them.
    for (x, y) in [(0, 0), (img.width - 1, img.height - 1)] {
        let [cr, cg, cb, ca] = img.pixel(x, y).expect("in bounds");
        assert!(ca.abs_diff(64) <= 1, "alpha {ca} at {x},{y}");
        for (got, full) in [(cr, bg.r), (cg, bg.g), (cb, bg.b)] {
            let want = (f32::from(full) * 0.25).round() as u8;
            assert!(got.abs_diff(want) <= 1, "{got} vs {want} at {x},{y}");
        }
    }
    // A cell with a colour of its own stays opaque.
    let (x0, y0, x1, y1) = cell_rect(&r, 2, 0, 1);
    let mid = img
        .pixel(x0.midpoint(x1), y0.midpoint(y1))
        .expect("in bounds");
    assert_eq!(mid, [255, 0, 0, 255]);
    // Text is drawn opaque over the translucent background: wherever the
    // glyph covers a pixel fully on an opaque window, the translucent one
    // shows the same solid pixel.
    let fg = Theme::default().foreground;
    let glyph = cell_rect(&r, 0, 0, 1);
    let full_ink: Vec<(u32, u32)> = pixels(&solid)
        .filter(|&(x, y, px)| inside(glyph, x, y) && px == fg)
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(
        full_ink.len() >= 5,
        "the W has {} solid pixels",
        full_ink.len()
    );
    for (x, y) in full_ink {
        assert_eq!(
            img.pixel(x, y),
            Some([fg.r, fg.g, fg.b, 255]),
            "ink at {x},{y}"
        );
    }
}
