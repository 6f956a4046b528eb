//! Picture tiles on real wgpu (lavapipe in CI): where they land, how they
//! stack with text, and that a picture is uploaded once, not per frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::*;
use render::{
    Color, Frame, OverlayLayer, OverlayPicture, OverlayRect, PicturePixels, PictureTile, Rgb,
};

/// A `w × h` picture, left half red, right half blue.
fn halves(w: u32, h: u32) -> Arc<PicturePixels> {
    let mut rgba = Vec::new();
    for _ in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(if x < w / 2 {
                &[255, 0, 0, 255]
            } else {
                &[0, 0, 255, 255]
            });
        }
    }
    Arc::new(PicturePixels::new(w, h, rgba).unwrap())
}

/// Tiles showing `pixels` over `cols × rows` cells from (`col`, `row`).
fn tiles(
    pixels: &Arc<PicturePixels>,
    col: usize,
    row: usize,
    cols: usize,
    rows: usize,
    z: i32,
) -> Vec<PictureTile> {
    let mut out = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let (fc, fr) = (cols as f32, rows as f32);
            out.push(PictureTile {
                pixels: pixels.clone(),
                col: col + c,
                row: row + r,
                dest: [0.0, 0.0, 1.0, 1.0],
                source: [
                    c as f32 / fc,
                    r as f32 / fr,
                    (c + 1) as f32 / fc,
                    (r + 1) as f32 / fr,
                ],
                z,
            });
        }
    }
    out
}

const BLUE: Rgb = Rgb::new(0, 0, 255);

#[test]
fn a_picture_fills_its_cells_and_nothing_else() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let mut frame = Frame::blank(8, 4);
    let picture = halves(64, 64);
    frame.pictures = tiles(&picture, 2, 1, 4, 2, 0);
    let img = render(&mut r, &frame);
    let (x0, y0, x1, _) = cell_rect(&r, 2, 1, 4);
    let (_, _, _, y2) = cell_rect(&r, 2, 2, 4);
    let mid = u32::midpoint(x0, x1);
    let bg = r.theme().background;
    for (x, y, px) in pixels(&img) {
        let inside_picture = (x0..x1).contains(&x) && (y0..y2).contains(&y);
        if !inside_picture {
            assert_eq!(px, bg, "outside the picture at ({x},{y})");
        } else if x + 2 < mid {
            assert_eq!(px, RED, "left half at ({x},{y})");
        } else if x > mid + 2 {
            assert_eq!(px, BLUE, "right half at ({x},{y})");
        }
    }
}

#[test]
fn z_decides_whether_text_and_cell_backgrounds_show_over_a_picture() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let (cw, ch) = r.cell_size();
    let picture = halves(16, 16);
    let cell_pixels = |img: &render::RgbaImage, col: u32| -> Vec<Rgb> {
        (0..cw)
            .flat_map(|x| (0..ch).map(move |y| (x, y)))
            .map(|(x, y)| img.rgb(PAD + col * cw + x, PAD + y).unwrap())
            .collect()
    };
    // Cells 0 and 2 hold a white M; cell 4 has a green background.
    let mut frame = Frame::blank(6, 1);
    for col in [0, 2] {
        if let Some(c) = frame.cell_mut(col, 0) {
            c.ch = 'M';
            c.fg = Color::Rgb(Rgb::new(255, 255, 255));
        }
    }
    if let Some(c) = frame.cell_mut(4, 0) {
        c.bg = Color::Rgb(GREEN);
    }
    // z = 0 over text, z < 0 under text but over backgrounds, and far
    // below zero under backgrounds.
    frame.pictures = tiles(&picture, 0, 0, 1, 1, 0);
    frame.pictures.extend(tiles(&picture, 2, 0, 1, 1, -5));
    frame
        .pictures
        .extend(tiles(&picture, 4, 0, 1, 1, -1_073_741_825));
    let img = render(&mut r, &frame);
    let white = Rgb::new(255, 255, 255);
    let over = cell_pixels(&img, 0);
    assert!(
        over.iter().all(|&p| p == RED || p == BLUE),
        "z = 0 hides the glyph"
    );
    let under = cell_pixels(&img, 2);
    assert!(
        under.contains(&white),
        "z < 0: the glyph shows over the picture"
    );
    assert!(
        under.contains(&RED),
        "z < 0: the picture shows around the glyph"
    );
    assert!(
        cell_pixels(&img, 4).iter().all(|&p| p == GREEN),
        "under the background"
    );
    // Between -1073741824 and 0 a picture covers a cell background.
    let mut frame = Frame::blank(2, 1);
    if let Some(c) = frame.cell_mut(0, 0) {
        c.bg = Color::Rgb(GREEN);
    }
    frame.pictures = tiles(&picture, 0, 0, 1, 1, -5);
    let img = render(&mut r, &frame);
    assert!(!cell_pixels(&img, 0).contains(&GREEN));
}

#[test]
fn a_picture_is_uploaded_once_across_frames() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let picture = halves(32, 32);
    let mut frame = Frame::blank(8, 4);
    frame.pictures = tiles(&picture, 0, 0, 2, 2, 0);
    for row in 0..3 {
        // The picture moves (scrolls) and text changes: same texture.
        frame.pictures = tiles(&picture, 0, row, 2, 2, 0);
        frame.write_str(3, 3, &format!("frame {row}"), &render::Cell::new(' '));
        render(&mut r, &frame);
    }
    let (uploads, bytes) = r.picture_uploads();
    assert_eq!(uploads, 1);
    assert_eq!(bytes, 32 * 32 * 4);
    // A second picture is one more upload.
    frame.pictures.extend(tiles(&halves(8, 8), 5, 0, 1, 1, 0));
    render(&mut r, &frame);
    assert_eq!(r.picture_uploads().0, 2);
}

/// A panel over cells 2..10 × 1..7 holding `picture` in its box from text
/// row `row`, shown on text rows `clip`.
fn panel(picture: &Arc<PicturePixels>, row: isize, clip: (usize, usize)) -> OverlayLayer {
    OverlayLayer {
        rect: OverlayRect::Cells {
            col: 2,
            row: 1,
            cols: 8,
            rows: 6,
        },
        background: Color::Rgb(GREEN),
        border: None,
        padding_px: 0,
        lines: Vec::new(),
        pictures: vec![OverlayPicture {
            pixels: picture.clone(),
            col: 1,
            row,
            cols: 4,
            rows: 4,
            clip_rows: clip,
        }],
    }
}

#[test]
fn an_overlay_picture_is_drawn_in_its_box_cut_to_its_rows_and_uploaded_once() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let (cw, ch) = r.cell_size();
    // Wider than its box: fitted to the box's width, aspect kept.
    let picture = halves(cw * 8, ch * 4);
    let mut frame = Frame::blank(12, 8);
    frame.overlays.push(panel(&picture, 1, (0, 6)));
    let img = render(&mut r, &frame);
    // The box is 4 cells wide from panel column 1 (grid column 3), so the
    // picture is drawn at half size: 4 cells by 2 rows, from grid row 2.
    let (x0, y0) = (PAD + 3 * cw, PAD + 2 * ch);
    let (x1, y1) = (x0 + 4 * cw, y0 + 2 * ch);
    let mid = u32::midpoint(x0, x1);
    let halves_at = |img: &render::RgbaImage, top: u32, bottom: u32| {
        for (x, y, px) in pixels(img) {
            let in_panel =
                (PAD + 2 * cw..PAD + 10 * cw).contains(&x) && (PAD + ch..PAD + 7 * ch).contains(&y);
            let in_picture = (x0..x1).contains(&x) && (top..bottom).contains(&y);
            let inner = y > top + 1 && y + 2 < bottom;
            if in_picture && inner && x + 2 < mid {
                assert_eq!(px, RED, "left half at ({x},{y})");
            } else if in_picture && inner && x > mid + 2 {
                assert_eq!(px, BLUE, "right half at ({x},{y})");
            } else if in_panel && (x + 1 < x0 || x > x1 || y + 1 < top || y > bottom) {
                assert_eq!(px, GREEN, "the panel around the picture at ({x},{y})");
            }
        }
    };
    halves_at(&img, y0, y1);
    // Its first row is outside the rows it may show (a panel's title, say):
    // only its second row shows, and it is the same texture.
    frame.overlays = vec![panel(&picture, 1, (2, 6))];
    let img = render(&mut r, &frame);
    halves_at(&img, y0 + ch, y1);
    // Scrolled a row up: the same texture again.
    frame.overlays = vec![panel(&picture, 0, (0, 6))];
    let img = render(&mut r, &frame);
    halves_at(&img, y0 - ch, y1 - ch);
    assert_eq!(r.picture_uploads(), (1, (cw * 8 * ch * 4 * 4) as usize));
}

#[test]
fn a_texture_goes_once_nobody_holds_its_picture() {
    let gpu = gpu();
    let mut r = renderer(&gpu);
    let picture = halves(32, 32);
    let mut frame = Frame::blank(8, 4);
    frame.pictures = tiles(&picture, 0, 0, 2, 2, 0);
    render(&mut r, &frame);
    // Scrolled off the screen but still held (in the scrollback): kept,
    // so scrolling back does not upload it again.
    frame.pictures.clear();
    render(&mut r, &frame);
    assert_eq!(r.picture_uploads(), (1, 32 * 32 * 4));
    // The terminal's store let it go (evicted, or out of the scrollback).
    drop(picture);
    render(&mut r, &frame);
    assert_eq!(r.picture_uploads(), (1, 0));
}
