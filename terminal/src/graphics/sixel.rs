//! Sixel pictures (`ESC P P1;P2;P3 q … ESC \`): raster attributes, colour
//! registers in HLS and RGB, repeats, graphics carriage return and new line.

use render_types::PicturePixels;

/// Colour registers, as reported to `XTSMGRAPHICS` (xterm's maximum too).
pub(crate) const REGISTERS: usize = 1024;

/// The largest sixel picture side in pixels; drawing past it is dropped,
/// so a huge repeat count or raster size cannot grow memory without bound.
pub(crate) const MAX_SIDE: u32 = 4096;

/// The VT340's default colour map for registers 0–15 (percent RGB).
const VT340: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (20, 20, 80),
    (80, 13, 13),
    (20, 80, 20),
    (80, 20, 80),
    (20, 80, 80),
    (80, 80, 20),
    (53, 53, 53),
    (26, 26, 26),
    (33, 33, 60),
    (60, 26, 26),
    (33, 60, 33),
    (60, 33, 60),
    (33, 60, 60),
    (60, 60, 33),
    (80, 80, 80),
];

fn percent(v: u16) -> u8 {
    (u32::from(v.min(100)) * 255 / 100) as u8
}

/// DEC's HLS (hue 0 is blue, 120 red, 240 green) to RGB.
fn hls(h: u16, l: u16, s: u16) -> [u8; 3] {
    let h = (f64::from(h % 360) + 240.0) % 360.0;
    let l = f64::from(l.min(100)) / 100.0;
    let s = f64::from(s.min(100)) / 100.0;
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [to(r), to(g), to(b)]
}

/// A sixel picture being drawn.
struct Canvas {
    width: u32,
    height: u32,
    /// Row-major RGBA; unpainted pixels are fully transparent.
    pixels: Vec<u8>,
    /// Extent actually drawn or declared.
    used_w: u32,
    used_h: u32,
}

impl Canvas {
    fn new() -> Self {
        Self {
            width: 0,
            height: 0,
            pixels: Vec::new(),
            used_w: 0,
            used_h: 0,
        }
    }

    /// Grows the buffer (geometrically) to hold `w × h`, within [`MAX_SIDE`].
    fn reserve(&mut self, w: u32, h: u32) {
        let w = w.min(MAX_SIDE);
        let h = h.min(MAX_SIDE);
        if w <= self.width && h <= self.height {
            return;
        }
        let new_w = if w > self.width {
            w.max(self.width.saturating_mul(2)).min(MAX_SIDE)
        } else {
            self.width
        };
        let new_h = if h > self.height {
            h.max(self.height.saturating_mul(2)).min(MAX_SIDE)
        } else {
            self.height
        };
        let mut pixels = vec![0u8; new_w as usize * new_h as usize * 4];
        let old_row = self.width as usize * 4;
        for y in 0..self.height as usize {
            let from = y * old_row;
            let to = y * new_w as usize * 4;
            pixels[to..to + old_row].copy_from_slice(&self.pixels[from..from + old_row]);
        }
        self.pixels = pixels;
        self.width = new_w;
        self.height = new_h;
    }

    /// Paints the set bits of `sixel` at column `x`..`x + count` of the band
    /// starting at pixel row `y`, each sixel row `aspect` pixels tall.
    fn paint(&mut self, x: u32, y: u32, count: u32, bits: u8, aspect: u32, color: [u8; 4]) {
        let x_end = x.saturating_add(count).min(MAX_SIDE);
        if x >= x_end || bits == 0 {
            return;
        }
        let y_end = y.saturating_add(6 * aspect).min(MAX_SIDE);
        if y >= y_end {
            return;
        }
        self.reserve(x_end, y_end);
        self.used_w = self.used_w.max(x_end);
        for bit in 0..6 {
            if bits & (1 << bit) == 0 {
                continue;
            }
            for dy in 0..aspect {
                let py = y + bit * aspect + dy;
                if py >= self.height {
                    break;
                }
                self.used_h = self.used_h.max(py + 1);
                let row = py as usize * self.width as usize * 4;
                for px in x..x_end {
                    let i = row + px as usize * 4;
                    self.pixels[i..i + 4].copy_from_slice(&color);
                }
            }
        }
    }
}

/// Decodes a sixel string. `params` are the DCS parameters (P1;P2;P3);
/// `data` is everything after the `q`. `None` when nothing was drawn.
pub(crate) fn decode(params: &[u16], data: &[u8]) -> Option<PicturePixels> {
    let transparent = params.get(1) == Some(&1);
    let mut registers: Vec<[u8; 4]> = (0..REGISTERS)
        .map(|i| match VT340.get(i) {
            Some(&(r, g, b)) => [percent(r.into()), percent(g.into()), percent(b.into()), 255],
            None => [0, 0, 0, 255],
        })
        .collect();
    let mut canvas = Canvas::new();
    let mut color = registers[0];
    let (mut x, mut y) = (0u32, 0u32);
    let mut aspect = 1u32;
    let mut declared = (0u32, 0u32);
    let mut i = 0;
    // Reads `;`-separated numbers from `i`, at most `N`.
    let numbers = |i: &mut usize, out: &mut Vec<u32>| {
        out.clear();
        let mut current: Option<u32> = None;
        while let Some(&b) = data.get(*i) {
            match b {
                b'0'..=b'9' => {
                    let d = u32::from(b - b'0');
                    current = Some(current.unwrap_or(0).saturating_mul(10).saturating_add(d));
                }
                b';' => {
                    out.push(current.take().unwrap_or(0));
                }
                _ => break,
            }
            *i += 1;
        }
        out.push(current.unwrap_or(0));
    };
    let mut args = Vec::with_capacity(8);
    while let Some(&b) = data.get(i) {
        i += 1;
        match b {
            b'?'..=b'~' => {
                canvas.paint(x, y, 1, b - b'?', aspect, color);
                x = x.saturating_add(1);
            }
            b'!' => {
                numbers(&mut i, &mut args);
                let count = args.first().copied().unwrap_or(1).max(1);
                if let Some(&c) = data.get(i) {
                    if (b'?'..=b'~').contains(&c) {
                        i += 1;
                        canvas.paint(x, y, count, c - b'?', aspect, color);
                        x = x.saturating_add(count).min(MAX_SIDE);
                    }
                }
            }
            b'$' => x = 0,
            b'-' => {
                x = 0;
                y = y.saturating_add(6 * aspect).min(MAX_SIDE);
            }
            b'"' => {
                numbers(&mut i, &mut args);
                let pan = args.first().copied().unwrap_or(1).max(1);
                let pad = args.get(1).copied().unwrap_or(1).max(1);
                aspect = (pan / pad).clamp(1, 16);
                let w = args.get(2).copied().unwrap_or(0).min(MAX_SIDE);
                let h = args.get(3).copied().unwrap_or(0).min(MAX_SIDE);
                declared = (w, h);
            }
            b'#' => {
                numbers(&mut i, &mut args);
                let index = args.first().copied().unwrap_or(0) as usize % REGISTERS;
                if args.len() >= 5 {
                    let v = |k: usize| args.get(k).copied().unwrap_or(0).min(360) as u16;
                    let rgb = match args[1] {
                        1 => hls(v(2), v(3), v(4)),
                        2 => [percent(v(2)), percent(v(3)), percent(v(4))],
                        _ => [0, 0, 0],
                    };
                    registers[index] = [rgb[0], rgb[1], rgb[2], 255];
                }
                color = registers[index];
            }
            _ => {}
        }
    }
    let width = canvas.used_w.max(declared.0).min(MAX_SIDE);
    let height = canvas.used_h.max(declared.1).min(MAX_SIDE);
    if width == 0 || height == 0 {
        return None;
    }
    let background = if transparent {
        None
    } else {
        Some(registers[0])
    };
    let mut rgba = vec![0u8; width as usize * height as usize * 4];
    for row in 0..height as usize {
        for col in 0..width as usize {
            let to = (row * width as usize + col) * 4;
            let from = (row * canvas.width as usize + col) * 4;
            let px = if row < canvas.height as usize && col < canvas.width as usize {
                [
                    canvas.pixels[from],
                    canvas.pixels[from + 1],
                    canvas.pixels[from + 2],
                    canvas.pixels[from + 3],
                ]
            } else {
                [0; 4]
            };
            let px = match (px[3], background) {
                (0, Some(bg)) => bg,
                _ => px,
            };
            rgba[to..to + 4].copy_from_slice(&px);
        }
    }
    PicturePixels::new(width, height, rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn px(p: &PicturePixels, x: u32, y: u32) -> [u8; 4] {
        let i = (y * p.width() + x) as usize * 4;
        let s = &p.rgba()[i..i + 4];
        [s[0], s[1], s[2], s[3]]
    }

    #[test]
    fn draws_rgb_and_hls_registers_with_repeats() {
        // Register 1 red (RGB %), register 2 green by DEC HLS (hue 240),
        // 4 columns of full sixels in red, then a new band in green.
        let p = decode(
            &[0, 1],
            b"\"1;1;4;12#1;2;100;0;0#2;1;240;50;100#1!4~-#2~~~~",
        )
        .unwrap();
        assert_eq!((p.width(), p.height()), (4, 12));
        assert_eq!(px(&p, 0, 0), [255, 0, 0, 255]);
        assert_eq!(px(&p, 3, 5), [255, 0, 0, 255]);
        assert_eq!(px(&p, 2, 6), [0, 255, 0, 255]);
    }

    #[test]
    fn a_huge_repeat_is_clamped() {
        let p = decode(&[0, 1], b"#1;2;0;0;100!4000000000~").unwrap();
        assert_eq!((p.width(), p.height()), (MAX_SIDE, 6));
        let p = decode(&[0, 1], b"\"1;1;99999;99999#1~").unwrap();
        assert_eq!((p.width(), p.height()), (MAX_SIDE, MAX_SIDE));
    }

    #[test]
    fn unpainted_pixels_take_register_zero_unless_transparent() {
        let p = decode(&[0, 0], b"#0;2;0;0;100#1;2;100;100;100A").unwrap();
        // 'A' = 0b10: only the second pixel row painted.
        assert_eq!(px(&p, 0, 0), [0, 0, 255, 255]);
        assert_eq!(px(&p, 0, 1), [255, 255, 255, 255]);
        let p = decode(&[0, 1], b"#1;2;100;100;100A").unwrap();
        assert_eq!(px(&p, 0, 0)[3], 0);
    }
}
