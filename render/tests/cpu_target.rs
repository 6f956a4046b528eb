//! Frames sent to a window as CPU pixel rows: only the rows that changed
//! are sent, and what the window ends up holding is the full frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use render::{wgpu::TextureFormat, Cell, CpuTarget, Frame, PixelRows, Renderer, Theme};

/// A window's pixels as BGRA bytes, updated the way a window system
/// applies `PutImage` requests.
struct Window {
    width: u32,
    pixels: Vec<u8>,
    /// Rows `y..y + rows` of every update received.
    updates: Vec<(u32, u32)>,
}

impl Window {
    fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            pixels: vec![0; (width * height * 4) as usize],
            updates: Vec::new(),
        }
    }

    fn put(&mut self, rows: PixelRows<'_>) {
        assert_eq!(rows.width, self.width);
        assert!(rows.stride >= rows.width * 4);
        assert_eq!(rows.data.len(), (rows.rows * rows.stride) as usize);
        let row_bytes = (self.width * 4) as usize;
        for (i, src) in rows.data.chunks(rows.stride as usize).enumerate() {
            let at = (rows.y as usize + i) * row_bytes;
            self.pixels[at..at + row_bytes].copy_from_slice(&src[..row_bytes]);
        }
        self.updates.push((rows.y, rows.rows));
    }

    fn show(&mut self, r: &mut Renderer, target: &mut CpuTarget, frame: &Frame) {
        let height = (self.pixels.len() / (self.width as usize * 4)) as u32;
        r.render_to_cpu(target, frame, self.width, height, |rows| self.put(rows))
            .expect("render_to_cpu");
    }

    /// The window equals a fresh renderer's image of `frame`.
    fn assert_shows(&self, frame: &Frame) {
        self.assert_shows_at(frame, 1.0);
    }

    /// The window equals a fresh renderer's image of `frame` drawn with
    /// the background at `opacity`.
    fn assert_shows_at(&self, frame: &Frame, opacity: f32) {
        let gpu = gpu();
        let mut fresh = renderer(&gpu);
        fresh.set_background_opacity(opacity);
        let height = (self.pixels.len() / (self.width as usize * 4)) as u32;
        let want = fresh.render_to_image(frame, self.width, height).unwrap();
        let got: Vec<u8> = self
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], p[3]])
            .collect();
        let first = got
            .chunks_exact(4)
            .zip(want.pixels.chunks_exact(4))
            .position(|(a, b)| a != b);
        let at = first.map(|i| {
            let p = |v: &[u8]| <[u8; 4]>::try_from(&v[i * 4..i * 4 + 4]).unwrap_or_default();
            (
                i % self.width as usize,
                i / self.width as usize,
                p(&got),
                p(&want.pixels),
            )
        });
        assert_eq!(
            at, None,
            "the window differs from a full render: (x, y, window, full)"
        );
    }
}

fn text_frame(lines: &[&str]) -> Frame {
    let mut frame = Frame::blank(24, 6);
    for (row, line) in lines.iter().enumerate() {
        frame.write_str(0, row, line, &Cell::new(' '));
    }
    frame
}

#[test]
fn only_changed_rows_reach_the_window_and_it_ends_up_with_the_whole_frame() {
    let gpu = gpu();
    let mut r = renderer_with(&gpu, Theme::default(), TextureFormat::Bgra8Unorm);
    let a = text_frame(&["$ ls", "one two", "$ "]);
    let (w, h) = image_size(&r, &a);
    let mut window = Window::new(w, h);
    let mut target = CpuTarget::new();

    window.show(&mut r, &mut target, &a);
    assert_eq!(window.updates, [(0, h)], "the first frame is sent whole");
    window.assert_shows(&a);

    window.show(&mut r, &mut target, &a);
    assert_eq!(window.updates.len(), 1, "an unchanged frame sends nothing");

    // A key's echo: one row of cells, one band of pixel rows.
    let b = text_frame(&["$ ls", "one two", "$ e"]);
    window.show(&mut r, &mut target, &b);
    let (_, top, _, bottom) = cell_rect(&r, 0, 2, 1);
    assert_eq!(window.updates[1], (top, bottom - top));
    window.assert_shows(&b);

    // Lost pixels (an expose) are sent again in full.
    target.invalidate();
    window.pixels.fill(0);
    window.show(&mut r, &mut target, &b);
    assert_eq!(window.updates[2], (0, h));
    window.assert_shows(&b);

    // A frame drawn elsewhere in between (a screenshot) leaves the target
    // one frame behind: the next one is sent whole, not as damage.
    let c = text_frame(&["$ ls", "one two", "$ ec"]);
    r.render_to_image(&c, w, h).unwrap();
    let d = text_frame(&["$ ls", "one two", "$ ech"]);
    window.show(&mut r, &mut target, &d);
    assert_eq!(window.updates[3], (0, h));
    window.assert_shows(&d);

    // A new size: whole again, at the new size.
    let mut window = Window::new(w + 10, h);
    window.show(&mut r, &mut target, &d);
    assert_eq!(window.updates, [(0, h)]);
}

#[test]
fn a_translucent_background_keeps_its_alpha_through_partial_redraws() {
    let gpu = gpu();
    let mut r = renderer_with(&gpu, Theme::default(), TextureFormat::Bgra8Unorm);
    r.set_background_opacity(0.5);
    let a = text_frame(&["$ ls", "$ "]);
    let (w, h) = image_size(&r, &a);
    let mut window = Window::new(w, h);
    let mut target = CpuTarget::new();
    window.show(&mut r, &mut target, &a);
    // Three echoes redraw the last row over what it held: the background
    // there is painted afresh each time, never blended over itself.
    for line in ["$ e", "$ ec", "$ ech"] {
        let next = text_frame(&["$ ls", line]);
        window.show(&mut r, &mut target, &next);
        window.assert_shows_at(&next, 0.5);
    }
    let (_, top, _, _) = cell_rect(&r, 0, 1, 1);
    assert!(window.updates.iter().skip(1).all(|&(y, _)| y >= top));
    let (x, y) = (w - 1, h - 1);
    let at = ((y * w + x) * 4) as usize;
    let alpha = window.pixels[at + 3];
    assert!(
        alpha.abs_diff(128) <= 1,
        "background alpha {alpha}, want half"
    );
}
