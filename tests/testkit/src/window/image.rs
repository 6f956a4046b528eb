//! Pixels read back: a PNG that koi wrote, or an `xwd` dump of a window.

use std::path::Path;

/// A decoded RGBA/RGB PNG.
#[derive(PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    channels: usize,
    data: Vec<u8>,
}

impl Image {
    pub fn load(path: &Path) -> Self {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(path).expect("png exists"),
        ));
        let mut reader = decoder.read_info().expect("png header");
        let mut data = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut data).expect("png data");
        Self {
            width: info.width as usize,
            height: info.height as usize,
            channels: info.color_type.samples(),
            data,
        }
    }

    /// Decode an `xwd` dump of a 24/32-bit TrueColor window: a big-endian
    /// header, the colour map, then pixels in the server's byte order.
    pub fn from_xwd(bytes: &[u8]) -> Self {
        let field = |i: usize| {
            let b = &bytes[i * 4..i * 4 + 4];
            u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
        };
        let (header_size, width, height) = (field(0), field(4), field(5));
        let (lsb_first, bits_per_pixel, bytes_per_line) = (field(7) == 0, field(11), field(12));
        let masks = [field(14), field(15), field(16)];
        assert_eq!(bits_per_pixel, 32, "a 24-bit screen");
        let pixels = &bytes[header_size + field(19) * 12..];
        let mut data = Vec::with_capacity(width * height * 3);
        for y in 0..height {
            for x in 0..width {
                let b = &pixels[y * bytes_per_line + x * 4..][..4];
                let b = [b[0], b[1], b[2], b[3]];
                let p = if lsb_first {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b)
                } as usize;
                data.extend(masks.map(|m| ((p & m) >> m.trailing_zeros()) as u8));
            }
        }
        Self {
            width,
            height,
            channels: 3,
            data,
        }
    }

    pub fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * self.channels;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }

    /// How many pixels in the rectangle differ from `bg`.
    pub fn ink(&self, x0: usize, y0: usize, w: usize, h: usize, bg: [u8; 3]) -> usize {
        let mut n = 0;
        for y in y0..(y0 + h).min(self.height) {
            for x in x0..(x0 + w).min(self.width) {
                if self.rgb(x, y) != bg {
                    n += 1;
                }
            }
        }
        n
    }
}
