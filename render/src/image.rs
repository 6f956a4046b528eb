//! The offscreen result: an RGBA image and its PNG encoding.

use std::io::Write;
use std::path::Path;

use crate::color::Rgb;
use crate::error::RenderError;

/// A tightly packed 8-bit RGBA image (sRGB-encoded), row-major, top row first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
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

    /// Encodes the image as PNG into `out`.
    pub fn write_png(&self, out: impl Write) -> Result<(), RenderError> {
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
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
}
