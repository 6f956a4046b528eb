//! The offscreen result: an RGBA image and its PNG encoding.

use std::io::Write;
use std::path::Path;

use crate::color::Rgb;
use crate::error::RenderError;

/// A tightly packed 8-bit RGBA image (sRGB-encoded), row-major, top row
/// first. Translucent pixels are premultiplied, as window systems take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

/// Premultiplied RGBA pixels with their colour divided back out of the
/// alpha (PNG's straight alpha); fully transparent pixels become zero.
fn unpremultiplied(pixels: &[u8]) -> Vec<u8> {
    pixels
        .chunks_exact(4)
        .flat_map(|p| {
            let a = u16::from(p[3]);
            let straight = |c: u8| match a {
                0 => 0,
                _ => u8::try_from((u16::from(c) * 255 + a / 2) / a).unwrap_or(u8::MAX),
            };
            [straight(p[0]), straight(p[1]), straight(p[2]), p[3]]
        })
        .collect()
}

impl RgbaImage {
    /// The pixel at (`x`, `y`) as `[r, g, b, a]`, or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// The pixel at (`x`, `y`) without alpha.
    pub fn rgb(&self, x: u32, y: u32) -> Option<Rgb> {
        self.pixel(x, y).map(|[r, g, b, _]| Rgb::new(r, g, b))
    }

    /// Encodes the image as PNG into `out` (with straight alpha, as PNG
    /// stores it).
    pub fn write_png(&self, out: impl Write) -> Result<(), RenderError> {
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header()?;
        if self.pixels.chunks_exact(4).all(|p| p[3] == u8::MAX) {
            writer.write_image_data(&self.pixels)?;
        } else {
            writer.write_image_data(&unpremultiplied(&self.pixels))?;
        }
        writer.finish()?;
        Ok(())
    }

    /// Writes the image as a PNG file (through a temporary file, so a
    /// crash never leaves half a PNG at `path`).
    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<(), RenderError> {
        let path = path.as_ref();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        {
            let file = std::fs::File::create(&tmp)?;
            let mut out = std::io::BufWriter::new(file);
            self.write_png(&mut out)?;
            out.flush()?;
        }
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_has_signature_and_pixels_are_bounds_checked() {
        let img = RgbaImage {
            width: 2,
            height: 1,
            pixels: vec![255, 0, 0, 255, 0, 255, 0, 255],
        };
        assert_eq!(img.rgb(1, 0), Some(Rgb::new(0, 255, 0)));
        assert_eq!(img.pixel(2, 0), None);
        let mut out = Vec::new();
        img.write_png(&mut out).expect("encode");
        assert_eq!(&out[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn a_png_of_translucent_pixels_holds_straight_alpha() {
        let img = RgbaImage {
            width: 3,
            height: 1,
            // Premultiplied: half-alpha grey, a quarter-alpha red, clear.
            pixels: vec![64, 64, 64, 128, 64, 0, 0, 64, 0, 0, 0, 0],
        };
        let mut out = Vec::new();
        img.write_png(&mut out).expect("encode");
        let mut reader = png::Decoder::new(std::io::Cursor::new(out))
            .read_info()
            .expect("decode");
        let mut back = vec![0; reader.output_buffer_size().expect("size")];
        reader.next_frame(&mut back).expect("frame");
        assert_eq!(back, [128, 128, 128, 128, 255, 0, 0, 64, 0, 0, 0, 0]);
    }
}
