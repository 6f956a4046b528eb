//! The assistant overlay's cost, measured side by side in one run:
//! - keypress → the panel's first frame (open + layout + render, offscreen);
//! - frame time while an answer streams at 200 tokens/s over a full
//!   240×67 terminal, next to the same terminal without the panel (the
//!   terminal underneath keeps changing one row per frame in both).
//!
//! `cargo bench -p term --bench overlay` (needs a wgpu adapter: lavapipe here).

#![allow(clippy::expect_used)] // A benchmark that cannot set up has nothing to measure.
use std::time::{Duration, Instant};

use ai_chat_engine::Event;
use koi_terminal::input::{Key, KeyEvent, Mods};
use render::{Cell, Frame, Gpu, Renderer, Theme, OFFSCREEN_FORMAT};
use term::overlay::{Overlay, OverlayConfig};

const COLS: usize = 240;
const ROWS: usize = 67;
/// 200 tokens/s at 60 frames/s.
const TOKENS_PER_FRAME: usize = 4;
const FRAMES: usize = 120;

fn terminal_frame(step: usize) -> Frame {
    let mut frame = Frame::blank(COLS, ROWS);
    for row in 0..ROWS {
        let text: String = (0..COLS)
            .map(|c| {
                char::from(b'!' + ((row * 7 + c + step * (row == ROWS - 1) as usize) % 90) as u8)
            })
            .collect();
        frame.write_str(0, row, &text, &Cell::new(' '));
    }
    frame
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let gpu =
        Gpu::new_headless().expect("a wgpu adapter (install mesa-vulkan-drivers for lavapipe)");
    let theme = Theme::default();
    let mut renderer = Renderer::new(
        &gpu,
        render::FontConfig::default(),
        theme.clone(),
        OFFSCREEN_FORMAT,
    )
    .expect("renderer");
    let (cw, ch) = renderer.cell_size();
    let (w, h) = (COLS as u32 * cw, ROWS as u32 * ch);
    // Warm the glyph caches with the terminal alone.
    renderer
        .render_to_image(&terminal_frame(0), w, h)
        .expect("render");

    // Keypress → first panel frame.
    let mut overlay = Overlay::new(OverlayConfig::default());
    let start = Instant::now();
    overlay.open();
    let mut frame = terminal_frame(1);
    frame.overlays = overlay.layers(COLS, ROWS, &theme);
    renderer.render_to_image(&frame, w, h).expect("render");
    let first_frame = start.elapsed();

    overlay.handle_key(&KeyEvent::press(Key::Char('q'), Mods::NONE), Some("q"));
    overlay.handle_key(&KeyEvent::press(Key::Enter, Mods::NONE), None);
    overlay.apply(&Event::AssistantStart);

    let words = [
        "The ",
        "build ",
        "fails ",
        "because ",
        "`cargo` ",
        "cannot ",
        "find ",
        "**serde** ",
        "— ",
        "try ",
        "this:\n",
    ];
    let mut plain_prepare = Vec::new();
    let mut panel_prepare = Vec::new();
    let mut plain_frame = Vec::new();
    let mut panel_frame = Vec::new();
    for step in 0..FRAMES {
        // Interleaved, so machine noise hits both alike.
        let plain = terminal_frame(step + 2);
        let t = Instant::now();
        renderer.prepare(&plain, w, h).expect("prepare");
        plain_prepare.push(t.elapsed());
        let t = Instant::now();
        renderer.render_to_image(&plain, w, h).expect("render");
        plain_frame.push(t.elapsed());

        for i in 0..TOKENS_PER_FRAME {
            overlay.apply(&Event::Token {
                text: words[(step * TOKENS_PER_FRAME + i) % words.len()].to_owned(),
            });
        }
        let mut with_panel = terminal_frame(step + 2);
        let t = Instant::now();
        with_panel.overlays = overlay.layers(COLS, ROWS, &theme);
        renderer.prepare(&with_panel, w, h).expect("prepare");
        panel_prepare.push(t.elapsed());
        let t = Instant::now();
        renderer.render_to_image(&with_panel, w, h).expect("render");
        panel_frame.push(t.elapsed());
    }
    let (pp, op) = (median(plain_prepare), median(panel_prepare));
    let (pf, of) = (median(plain_frame), median(panel_frame));
    println!("adapter: {}", gpu.adapter_summary());
    println!(
        "keypress → first panel frame (offscreen): {:.2} ms",
        ms(first_frame)
    );
    println!("{COLS}×{ROWS}, {TOKENS_PER_FRAME} tokens/frame (200 tok/s at 60 fps), median of {FRAMES} frames:");
    println!(
        "  CPU prepare   terminal only {:7.2} ms   with streaming panel {:7.2} ms   ratio {:.2}",
        ms(pp),
        ms(op),
        ms(op) / ms(pp)
    );
    println!(
        "  offscreen end to end       {:7.2} ms                        {:7.2} ms   ratio {:.2}",
        ms(pf),
        ms(of),
        ms(of) / ms(pf)
    );
}
