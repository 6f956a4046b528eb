//! Frame cost on a 240×67 grid of dense coloured text: CPU `prepare` for a
//! frame where every row changed vs one where one row changed, and the
//! same two cases end to end offscreen (prepare, draw, read back); and a
//! screen of source code in one colour with Fira Code, ligatures on and
//! off, where runs of operators are shaped together.
//!
//! `cargo bench -p render --bench frame`

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use render::{
    wgpu, Cell, CellFlags, Color, Damage, FontConfig, Frame, Gpu, Renderer, Theme, OFFSCREEN_FORMAT,
};

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
        if v.is_multiple_of(11) {
            c.bg = Color::Indexed((v % 8) as u8);
        }
        c.flags.set(CellFlags::BOLD, v.is_multiple_of(5));
    }
    frame
}

/// `base` with one row rewritten.
fn one_row_changed(base: &Frame, row: usize, text: &str) -> Frame {
    let mut frame = base.clone();
    frame.write_str(0, row, text, &Cell::new(' '));
    frame
}

/// Source code in one colour: operators the font may join, in runs that
/// shift with `seed` so frames with different seeds differ on every row.
fn code(seed: usize) -> Frame {
    const LINES: [&str; 4] = [
        "    if (a->b != c && d >= e) { return f => g; } ",
        "    let x = y <= z || w === v; // done /* x */ ",
        "    <!-- x --> |> <| ++ -- ** ... ?? :: www ",
        "    fn main() -> Result<(), Error> { Ok(()) } ",
    ];
    let mut frame = Frame::blank(COLS, ROWS);
    for row in 0..ROWS {
        let line = LINES[(row + seed) % LINES.len()];
        let text: String = line.chars().cycle().skip(seed).take(COLS).collect();
        frame.write_str(0, row, &text, &Cell::new(' '));
    }
    frame
}

/// CPU `prepare` of a full screen of code with Fira Code, ligatures on
/// and off; skipped where the font is not installed.
fn bench_ligatures(c: &mut Criterion, gpu: &Gpu) {
    let frames = [code(0), code(1)];
    let mut group = c.benchmark_group("prepare_code_240x67");
    group.measurement_time(Duration::from_secs(8));
    for ligatures in [true, false] {
        let font = FontConfig {
            family: Some("Fira Code".into()),
            size_pt: 11.0,
            scale_factor: 1.0,
            ligatures,
        };
        let mut renderer =
            Renderer::new(gpu, font, Theme::default(), OFFSCREEN_FORMAT).expect("renderer");
        if renderer.font_family() != "Fira Code" {
            eprintln!("Fira Code is not installed: prepare_code_240x67 skipped");
            return;
        }
        renderer.set_padding(PAD);
        let (w, h) = renderer.size_for_grid(COLS, ROWS);
        for f in &frames {
            renderer.render_to_image(f, w, h).expect("warm-up");
        }
        let mut i = 0usize;
        let name = if ligatures {
            "ligatures_on"
        } else {
            "ligatures_off"
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                renderer.prepare(&frames[i % 2], w, h).expect("prepare");
                gpu.queue.submit([]);
            })
        });
    }
    group.finish();
}

fn setup() -> (Gpu, Renderer, u32, u32) {
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
    (gpu, renderer, w, h)
}

fn bench(c: &mut Criterion) {
    let (gpu, mut renderer, w, h) = setup();
    bench_ligatures(c, &gpu);
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
    // The floor under a damage-only frame: diff every row, rebuild the
    // rectangle list, upload, submit.
    group.bench_function("nothing_changed", |b| {
        b.iter(|| {
            let stats = renderer.prepare(&edits[0], w, h).expect("prepare");
            debug_assert_eq!(stats.rows_prepared, 0);
            gpu.queue.submit([]);
        })
    });
    let mut hinted = edits.clone();
    for f in &mut hinted {
        f.damage = Damage::Rows(vec![33]);
    }
    // With alacritty_terminal's damage as a hint, unchanged rows are not
    // even compared.
    group.bench_function("one_row_changed_with_damage_hint", |b| {
        b.iter(|| {
            i += 1;
            let stats = renderer.prepare(&hinted[i % 2], w, h).expect("prepare");
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
            renderer
                .render_to_image(&frames[i % 2], w, h)
                .expect("render")
        })
    });
    group.bench_function("one_row_changed", |b| {
        b.iter(|| {
            i += 1;
            renderer
                .render_to_image(&edits[i % 2], w, h)
                .expect("render")
        })
    });
    group.finish();

    // Without the read-back: prepare, draw into a texture, wait for the GPU.
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("bench target"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: OFFSCREEN_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let mut group = c.benchmark_group("draw_no_readback_240x67");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(15));
    for (name, set) in [("all_rows_changed", &frames), ("one_row_changed", &edits)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                renderer
                    .render_to_view(&view, w, h, &set[i % 2])
                    .expect("render");
                gpu.device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .expect("poll");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
