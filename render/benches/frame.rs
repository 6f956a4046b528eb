//! Frame cost on a 240×67 grid of dense coloured text: CPU `prepare` for a
//! frame where every row changed vs one where one row changed, and the
//! same two cases end to end offscreen (prepare, draw, read back).
//!
//! `cargo bench -p render --bench frame`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use render::{Cell, CellFlags, Color, FontConfig, Frame, Gpu, Renderer, Theme, OFFSCREEN_FORMAT};

/// The grid the issue measures: a maximised window on a large monitor.
const COLS: usize = 240;
const ROWS: usize = 67;
/// Padding like a real window's.
const PAD: u32 = 4;

/// Dense text: a printable character in every cell, a palette colour per
/// cell, some backgrounds and bold. `seed` shifts every cell, so frames
/// with different seeds differ on every row.
fn dense(seed: usize) -> Frame {
    let mut frame = Frame::blank(COLS, ROWS);
    for (i, c) in frame.cells.iter_mut().enumerate() {
        let v = i * 7 + seed;
        c.ch = char::from(b'!' + (v % 94) as u8);
        c.fg = Color::Indexed(16 + (v % 216) as u8);
        if v % 11 == 0 {
            c.bg = Color::Indexed((v % 8) as u8);
        }
        c.flags.set(CellFlags::BOLD, v % 5 == 0);
    }
    frame
}

/// `base` with one row rewritten.
fn one_row_changed(base: &Frame, row: usize, text: &str) -> Frame {
    let mut frame = base.clone();
    frame.write_str(0, row, text, &Cell::new(' '));
    frame
}

fn setup() -> (Gpu, Renderer, u32, u32) {
    let gpu = Gpu::new_headless().unwrap_or_else(|e| panic!("bench needs an adapter: {e}"));
    let font = FontConfig {
        family: None,
        size_pt: 11.0,
        scale_factor: 1.0,
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
    (gpu, renderer, w, h)
}

fn bench(c: &mut Criterion) {
    let (gpu, mut renderer, w, h) = setup();
    let frames = [dense(0), dense(1)];
    let edits = [
        one_row_changed(&frames[0], 33, "$ cargo build --release"),
        one_row_changed(&frames[0], 33, "$ cargo test --workspace"),
    ];
    // Warm the shape cache and glyph atlas so both cases measure steady state.
    for f in frames.iter().chain(&edits) {
        renderer.render_to_image(f, w, h).expect("warm-up");
    }

    let mut group = c.benchmark_group("prepare_240x67");
    group.measurement_time(Duration::from_secs(8));
    let mut i = 0usize;
    group.bench_function("all_rows_changed", |b| {
        b.iter(|| {
            i += 1;
            let stats = renderer.prepare(&frames[i % 2], w, h).expect("prepare");
            debug_assert_eq!(stats.rows_prepared, ROWS);
            // Flush the staged uploads so they do not pile up.
            gpu.queue.submit([]);
        })
    });
    group.bench_function("one_row_changed", |b| {
        b.iter(|| {
            i += 1;
            let stats = renderer.prepare(&edits[i % 2], w, h).expect("prepare");
            debug_assert_eq!(stats.rows_prepared, 1);
            gpu.queue.submit([]);
        })
    });
    group.finish();

    let mut group = c.benchmark_group("offscreen_240x67");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("all_rows_changed", |b| {
        b.iter(|| {
            i += 1;
            renderer.render_to_image(&frames[i % 2], w, h).expect("render")
        })
    });
    group.bench_function("one_row_changed", |b| {
        b.iter(|| {
            i += 1;
            renderer.render_to_image(&edits[i % 2], w, h).expect("render")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
