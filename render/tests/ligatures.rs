//! Programming ligatures on a real wgpu device with a real ligature font
//! (Fira Code, `fonts-firacode`): `->` is drawn as one glyph over its two
//! cells, and exactly as two glyphs when the cursor sits on it, when a
//! style changes inside it, or when ligatures are off.

#![allow(clippy::expect_used)] // A broken expectation in a test is a failed test.

mod common;

use common::*;
use render::{
    Cell, Color, CursorShape, CursorSpec, FontConfig, Frame, Renderer, Rgb, RgbaImage,
    SelectionSpan, Theme, OFFSCREEN_FORMAT,
};

/// A monospace family with programming ligatures, from Debian's
/// `fonts-firacode` (see `scripts/deps`).
const LIGATURE_FAMILY: &str = "Fira Code";

/// The line every test draws: `->` in columns 2 and 3, letters around it.
const LINE: &str = "x -> y";
const ARROW: usize = 2;

/// A renderer with `family` and ligatures on or off.
fn renderer_for(gpu: &render::Gpu, family: Option<&str>, ligatures: bool) -> Renderer {
    let font = FontConfig {
        family: family.map(str::to_owned),
        size_pt: 12.0,
        scale_factor: 1.0,
        ligatures,
    };
    let mut r = Renderer::new(gpu, font, Theme::default(), OFFSCREEN_FORMAT).expect("renderer");
    r.set_padding(PAD);
    r
}

/// Fira Code renderers with ligatures on and off, or `None` (a recorded
/// skip) where the font is not installed.
fn fira(gpu: &render::Gpu, test: &str) -> Option<(Renderer, Renderer)> {
    let on = renderer_for(gpu, Some(LIGATURE_FAMILY), true);
    if on.font_family() != LIGATURE_FAMILY {
        koi_testkit::skip::skip(
            koi_testkit::skip::PROGRAMS,
            test,
            "the Fira Code font is not installed (apt-get install fonts-firacode)",
        );
        return None;
    }
    let off = renderer_for(gpu, Some(LIGATURE_FAMILY), false);
    Some((on, off))
}

fn line_frame() -> Frame {
    let mut frame = Frame::blank(8, 2);
    frame.write_str(0, 0, LINE, &Cell::new(' '));
    frame
}

/// Whether a pixel carries ink: clearly away from the background.
fn inked(px: Rgb, bg: Rgb) -> bool {
    let d = |a: u8, b: u8| a.abs_diff(b) as u32;
    d(px.r, bg.r) + d(px.g, bg.g) + d(px.b, bg.b) > 150
}

/// The longest horizontal run of ink on any pixel row of `rect` that
/// crosses the vertical line `x = boundary` (ink on both sides of it).
fn longest_run_across(img: &RgbaImage, rect: (u32, u32, u32, u32), boundary: u32) -> u32 {
    let bg = Theme::default().background;
    let ink = |x: u32, y: u32| img.rgb(x, y).is_some_and(|px| inked(px, bg));
    let (x0, y0, x1, y1) = rect;
    (y0..y1)
        .filter(|&y| ink(boundary - 1, y) && ink(boundary, y))
        .map(|y| {
            let left = (x0..boundary).rev().take_while(|&x| ink(x, y)).count();
            let right = (boundary..x1).take_while(|&x| ink(x, y)).count();
            (left + right) as u32
        })
        .max()
        .unwrap_or(0)
}

/// Pixels of `rect` where the two images differ.
fn differing(a: &RgbaImage, b: &RgbaImage, rect: (u32, u32, u32, u32)) -> usize {
    let (x0, y0, x1, y1) = rect;
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| a.rgb(x, y) != b.rgb(x, y))
        .count()
}

/// Asserts two renderings are the same image, pixel for pixel.
fn assert_same(a: &RgbaImage, b: &RgbaImage, what: &str) {
    assert_eq!((a.width, a.height), (b.width, b.height), "{what}: sizes");
    let all = (0, 0, a.width, a.height);
    assert_eq!(differing(a, b, all), 0, "{what}: the images differ");
}

#[test]
fn arrow_is_one_glyph_over_its_two_cells_with_fira_code() {
    let gpu = gpu();
    let Some((mut on, mut off)) =
        fira(&gpu, "arrow_is_one_glyph_over_its_two_cells_with_fira_code")
    else {
        return;
    };
    let frame = line_frame();
    let joined = render(&mut on, &frame);
    let apart = render(&mut off, &frame);
    let arrow = cell_rect(&on, ARROW, 0, 2);
    let (cw, _) = on.cell_size();
    let boundary = arrow.0 + cw;

    assert!(
        differing(&joined, &apart, arrow) > 0,
        "`->` looks the same with ligatures on and off"
    );
    // The ligature's shaft runs straight into its head across the cell
    // boundary; the hyphen and the greater-than sign leave a gap there.
    let across_joined = longest_run_across(&joined, arrow, boundary);
    let across_apart = longest_run_across(&apart, arrow, boundary);
    assert!(
        across_joined >= cw,
        "the joined arrow's ink crosses the boundary for {across_joined} px, less than a cell ({cw} px)"
    );
    assert!(
        across_apart < cw / 2,
        "`-` and `>` drawn apart already touch across the boundary ({across_apart} px)"
    );
    // Everything else, including the cells around the arrow, is unchanged:
    // the ligature stays inside its two cells.
    assert_same_outside(&joined, &apart, arrow);

    // Brackets after the arrow are shaped in the same run; each of their
    // glyphs still lands exactly where it lands when drawn alone, though
    // the font's own advance is not a whole number of pixels.
    let mut frame = Frame::blank(10, 1);
    frame.write_str(0, 0, "x ->)]}) y", &Cell::new(' '));
    let joined = render(&mut on, &frame);
    let apart = render(&mut off, &frame);
    assert!(
        differing(&joined, &apart, arrow) > 0,
        "the arrow before brackets has no ligature"
    );
    assert_same_outside(&joined, &apart, arrow);
}

/// Asserts the images are the same outside `rect`.
fn assert_same_outside(a: &RgbaImage, b: &RgbaImage, rect: (u32, u32, u32, u32)) {
    for (x, y) in (0..a.height).flat_map(|y| (0..a.width).map(move |x| (x, y))) {
        if !inside(rect, x, y) {
            assert_eq!(a.rgb(x, y), b.rgb(x, y), "outside {rect:?} at ({x},{y})");
        }
    }
}

#[test]
fn cursor_on_either_half_of_the_arrow_draws_it_as_two_glyphs() {
    let gpu = gpu();
    let Some((mut on, mut off)) = fira(
        &gpu,
        "cursor_on_either_half_of_the_arrow_draws_it_as_two_glyphs",
    ) else {
        return;
    };
    let mut frame = line_frame();
    for col in [ARROW, ARROW + 1] {
        for shape in [CursorShape::Block, CursorShape::Beam] {
            frame.cursor = Some(CursorSpec {
                col,
                row: 0,
                shape,
                focused: true,
            });
            let joined = render(&mut on, &frame);
            let apart = render(&mut off, &frame);
            assert_same(
                &joined,
                &apart,
                &format!("{shape:?} cursor at column {col}"),
            );
        }
    }
    // The cursor moving off the arrow joins it again (the row is rebuilt).
    frame.cursor = Some(CursorSpec {
        col: 6,
        row: 0,
        shape: CursorShape::Beam,
        focused: true,
    });
    let joined = render(&mut on, &frame);
    let apart = render(&mut off, &frame);
    assert!(differing(&joined, &apart, cell_rect(&on, ARROW, 0, 2)) > 0);
    // So does another pane's cursor, drawn hollow.
    frame.cursor = None;
    frame.inactive_cursors = vec![CursorSpec {
        col: ARROW,
        row: 0,
        shape: CursorShape::Block,
        focused: false,
    }];
    assert_same(
        &render(&mut on, &frame),
        &render(&mut off, &frame),
        "another pane's cursor on the arrow",
    );
}

#[test]
fn a_style_change_or_selection_edge_inside_the_arrow_keeps_it_apart() {
    let gpu = gpu();
    let Some((mut on, mut off)) = fira(
        &gpu,
        "a_style_change_or_selection_edge_inside_the_arrow_keeps_it_apart",
    ) else {
        return;
    };
    let mut coloured = line_frame();
    if let Some(head) = coloured.cell_mut(ARROW + 1, 0) {
        head.fg = Color::Rgb(RED);
    }
    assert_same(
        &render(&mut on, &coloured),
        &render(&mut off, &coloured),
        "`>` in another colour",
    );
    let mut bold = line_frame();
    if let Some(head) = bold.cell_mut(ARROW, 0) {
        head.flags.set(render::CellFlags::BOLD, true);
    }
    assert_same(
        &render(&mut on, &bold),
        &render(&mut off, &bold),
        "`-` in bold",
    );
    let mut half_selected = line_frame();
    half_selected.selection = vec![SelectionSpan {
        row: 0,
        start_col: 0,
        end_col: ARROW + 1,
    }];
    assert_same(
        &render(&mut on, &half_selected),
        &render(&mut off, &half_selected),
        "selection ending on `-`",
    );
    // Selecting the whole arrow keeps it one glyph.
    half_selected.selection[0].end_col = ARROW + 2;
    let joined = render(&mut on, &half_selected);
    let apart = render(&mut off, &half_selected);
    assert!(differing(&joined, &apart, cell_rect(&on, ARROW, 0, 2)) > 0);
}

#[test]
fn turning_ligatures_off_live_draws_exactly_what_a_renderer_without_them_draws() {
    let gpu = gpu();
    let Some((mut on, mut off)) = fira(
        &gpu,
        "turning_ligatures_off_live_draws_exactly_what_a_renderer_without_them_draws",
    ) else {
        return;
    };
    let frame = line_frame();
    let joined = render(&mut on, &frame);
    let apart = render(&mut off, &frame);
    let mut config = on.font_config().clone();
    config.ligatures = false;
    on.set_font(&config);
    assert_same(
        &render(&mut on, &frame),
        &apart,
        "after set_font(ligatures = false)",
    );
    config.ligatures = true;
    on.set_font(&config);
    assert_same(
        &render(&mut on, &frame),
        &joined,
        "after set_font(ligatures = true)",
    );
}

#[test]
fn a_font_without_ligatures_draws_code_exactly_as_with_them_off() {
    let gpu = gpu();
    // The embedded DejaVu Sans Mono has no programming ligatures.
    let mut on = renderer_for(&gpu, None, true);
    let mut off = renderer_for(&gpu, None, false);
    let mut frame = Frame::blank(40, 3);
    let template = Cell::new(' ');
    frame.write_str(0, 0, "if (a->b != c && d >= e) { f(); }", &template);
    frame.write_str(0, 1, "x => y <= z === w !== v :: u // t", &template);
    frame.write_str(0, 2, "<!-- --> |> <| ++ -- ** ... ?? ||", &template);
    let ref_img = render(&mut off, &frame);
    assert_same(&render(&mut on, &frame), &ref_img, "DejaVu Sans Mono");
}

#[test]
fn punctuation_fira_code_does_not_join_is_drawn_as_without_ligatures() {
    let gpu = gpu();
    let Some((mut on, mut off)) = fira(
        &gpu,
        "punctuation_fira_code_does_not_join_is_drawn_as_without_ligatures",
    ) else {
        return;
    };
    let mut frame = Frame::blank(30, 2);
    let template = Cell::new(' ');
    frame.write_str(0, 0, "f(a, b); g[c] = {d}; 'e' \"f\"", &template);
    frame.write_str(0, 1, "x), y], z}, (@) $% ^` ?'", &template);
    assert_same(
        &render(&mut on, &frame),
        &render(&mut off, &frame),
        "code without ligatures",
    );
}
