//! Shared helpers for the pixel tests: a real wgpu device (lavapipe in
//! CI), renderers, and pixel-rectangle queries.
#![allow(dead_code)] // Each test binary uses a different subset.
#![allow(clippy::expect_used)] // Helpers of tests: a broken expectation is a failed test.

use render::{
    wgpu::TextureFormat, Cell, Color, FontConfig, Frame, Gpu, Renderer, Rgb, RgbaImage, Theme,
    OFFSCREEN_FORMAT,
};

/// Padding used by the tests, so "nowhere else" includes the padding.
pub const PAD: u32 = 3;

/// A GPU context, or a failing test that says how to get one.
pub fn gpu() -> Gpu {
    match Gpu::new_headless() {
        Ok(gpu) => {
            eprintln!("adapter: {}", gpu.adapter_summary());
            gpu
        }
        Err(e) => panic!(
            "render tests need a wgpu adapter and found none: {e}\n\
             Install a software rasteriser (apt-get install mesa-vulkan-drivers libvulkan1) \
             or run on a machine with a GPU."
        ),
    }
}

/// A renderer with the embedded font at a fixed size and `PAD` padding.
pub fn renderer_with(gpu: &Gpu, theme: Theme, format: TextureFormat) -> Renderer {
    let font = FontConfig {
        family: None,
        size_pt: 12.0,
        scale_factor: 1.0,
        ..FontConfig::default()
    };
    let mut r = Renderer::new(gpu, font, theme, format).expect("renderer");
    r.set_padding(PAD);
    r
}

/// The default-theme renderer for offscreen images.
pub fn renderer(gpu: &Gpu) -> Renderer {
    renderer_with(gpu, Theme::default(), OFFSCREEN_FORMAT)
}

/// Renders `frame` into an image exactly the size of its grid plus padding.
pub fn render(r: &mut Renderer, frame: &Frame) -> RgbaImage {
    let (w, h) = image_size(r, frame);
    r.render_to_image(frame, w, h).expect("render_to_image")
}

pub fn image_size(r: &Renderer, frame: &Frame) -> (u32, u32) {
    let (cw, ch) = r.cell_size();
    let size = (
        2 * PAD + frame.cols as u32 * cw,
        2 * PAD + frame.rows as u32 * ch,
    );
    assert_eq!(r.size_for_grid(frame.cols, frame.rows), size);
    size
}

/// Pixel rectangle `[x0, x1) × [y0, y1)` of cells `col..col+cols` on `row`.
pub fn cell_rect(r: &Renderer, col: usize, row: usize, cols: usize) -> (u32, u32, u32, u32) {
    let (cw, ch) = r.cell_size();
    let x0 = PAD + col as u32 * cw;
    let y0 = PAD + row as u32 * ch;
    (x0, y0, x0 + cols as u32 * cw, y0 + ch)
}

pub fn inside((x0, y0, x1, y1): (u32, u32, u32, u32), x: u32, y: u32) -> bool {
    (x0..x1).contains(&x) && (y0..y1).contains(&y)
}

/// Every pixel of the image with its coordinates.
pub fn pixels(img: &RgbaImage) -> impl Iterator<Item = (u32, u32, Rgb)> + '_ {
    (0..img.height)
        .flat_map(move |y| (0..img.width).map(move |x| (x, y, img.rgb(x, y).expect("in bounds"))))
}

/// A cell with `ch` in the given colours.
pub fn cell(ch: char, fg: Rgb, bg: Color) -> Cell {
    Cell {
        ch,
        fg: Color::Rgb(fg),
        bg,
        ..Cell::new(' ')
    }
}

pub const WHITE: Rgb = Rgb::new(255, 255, 255);
pub const RED: Rgb = Rgb::new(255, 0, 0);
pub const GREEN: Rgb = Rgb::new(0, 255, 0);
