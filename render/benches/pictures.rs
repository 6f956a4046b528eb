//! Frame cost of a full screen of text with one 800×600 picture on it,
//! against the same screen without it, offscreen end to end (prepare,
//! draw, read back), on the 240×67 grid of the `frame` bench.
//!
//! `cargo bench -p render --bench pictures`

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use render::{
    Cell, CellFlags, Color, FontConfig, Frame, Gpu, PicturePixels, PictureTile, Renderer, Theme,
    OFFSCREEN_FORMAT,
};

const COLS: usize = 240;
const ROWS: usize = 67;
const PAD: u32 = 4;
/// The picture the issue measures.
const PICTURE: (u32, u32) = (800, 600);

fn dense(seed: usize) -> Frame {
    let mut frame = Frame::blank(COLS, ROWS);
    for (i, c) in frame.cells.iter_mut().enumerate() {
        let v = i * 7 + seed;
        c.ch = char::from(b'!' + (v % 94) as u8);
        c.fg = Color::Indexed(16 + (v % 216) as u8);
        if v.is_multiple_of(11) {
            c.bg = Color::Indexed((v % 8) as u8);
        }
        c.flags.set(CellFlags::BOLD, v.is_multiple_of(5));
    }
    frame
}

/// The tiles of an 800×600 gradient drawn at its own size from cell (2, 2).
fn picture_tiles(cell: (u32, u32)) -> Vec<PictureTile> {
    let (w, h) = PICTURE;
    let rgba: Vec<u8> = (0..w * h)
        .flat_map(|i| [(i % w * 255 / w) as u8, (i / w * 255 / h) as u8, 128, 255])
        .collect();
    let pixels = Arc::new(PicturePixels::new(w, h, rgba).expect("picture"));
    let (cw, ch) = (cell.0 as f32, cell.1 as f32);
    let cols = (w as f32 / cw).ceil() as usize;
    let rows = (h as f32 / ch).ceil() as usize;
    let mut tiles = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let x0 = c as f32 * cw;
            let y0 = r as f32 * ch;
            let x1 = (x0 + cw).min(w as f32);
            let y1 = (y0 + ch).min(h as f32);
            tiles.push(PictureTile {
                pixels: pixels.clone(),
                col: 2 + c,
                row: 2 + r,
                dest: [0.0, 0.0, (x1 - x0) / cw, (y1 - y0) / ch],
                source: [x0 / w as f32, y0 / h as f32, x1 / w as f32, y1 / h as f32],
                z: 0,
            });
        }
    }
    tiles
}

fn bench(c: &mut Criterion) {
    let gpu = Gpu::new_headless().unwrap_or_else(|e| panic!("bench needs an adapter: {e}"));
    let font = FontConfig {
        family: None,
        size_pt: 11.0,
        scale_factor: 1.0,
        ..FontConfig::default()
    };
    let mut renderer =
        Renderer::new(&gpu, font, Theme::default(), OFFSCREEN_FORMAT).expect("renderer");
    renderer.set_padding(PAD);
    let (cw, ch) = renderer.cell_size();
    let (w, h) = (COLS as u32 * cw + 2 * PAD, ROWS as u32 * ch + 2 * PAD);
    eprintln!(
        "adapter {}, cell {cw}x{ch}, target {w}x{h}",
        gpu.adapter_summary()
    );
    let plain = [dense(0), dense(1)];
    let tiles = picture_tiles((cw, ch));
    let with_picture = plain.clone().map(|mut f| {
        f.pictures = tiles.clone();
        f
    });
    let edit = |base: &Frame, text: &str| {
        let mut f = base.clone();
        f.write_str(0, 60, text, &Cell::new(' '));
        f
    };
    let plain_edits = [edit(&plain[0], "$ ls"), edit(&plain[0], "$ cd")];
    let picture_edits = [
        edit(&with_picture[0], "$ ls"),
        edit(&with_picture[0], "$ cd"),
    ];
    for f in plain.iter().chain(&with_picture) {
        renderer.render_to_image(f, w, h).expect("warm-up");
    }
    let mut group = c.benchmark_group("offscreen_240x67");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    let mut i = 0usize;
    for (name, frames) in [
        ("all_rows_changed/text", &plain),
        ("all_rows_changed/text+800x600", &with_picture),
        ("one_row_changed/text", &plain_edits),
        ("one_row_changed/text+800x600", &picture_edits),
    ] {
        renderer.render_to_image(&frames[0], w, h).expect("warm-up");
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                renderer
                    .render_to_image(&frames[i % 2], w, h)
                    .expect("render")
            })
        });
    }
    group.finish();
    eprintln!("picture uploads: {:?}", renderer.picture_uploads());
}

criterion_group!(benches, bench);
criterion_main!(benches);
