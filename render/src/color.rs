//! The colour types live in `koi_markdown` (so `k` can name them without
//! wgpu); this adds what only the GPU needs: target floats and glyphon's
//! packed colour.

pub use koi_markdown::{Color, NamedColor, Rgb};

/// Conversions from [`Rgb`] to what the GPU pipelines take.
pub(crate) trait RgbGpu: Sized {
    /// The colour as four floats for a render target: linear light when the
    /// target is an sRGB texture (the hardware encodes on write), the raw
    /// sRGB values otherwise.
    fn to_target(self, srgb_target: bool, alpha: f32) -> [f32; 4];

    /// [`RgbGpu::to_target`] with the colour multiplied by `alpha`: what a
    /// translucent window's pixels hold (window systems composite
    /// premultiplied pixels). On an 8-bit target without sRGB encoding
    /// every channel is a whole step of 1/255, so a clear and a drawn
    /// rectangle store the same bytes whichever way the driver rounds.
    fn to_target_premultiplied(self, srgb_target: bool, alpha: f32) -> [f32; 4] {
        let step = |v: f32| {
            if srgb_target {
                v
            } else {
                (v * 255.0).round() / 255.0
            }
        };
        let a = step(alpha.clamp(0.0, 1.0));
        let [r, g, b, _] = self.to_target(srgb_target, a);
        [step(r * a), step(g * a), step(b * a), a]
    }

    /// The colour as glyphon's packed text colour (always sRGB: glyphon
    /// linearises itself when its atlas runs in accurate colour mode).
    fn to_glyphon(self) -> glyphon::Color;
}

impl RgbGpu for Rgb {
    fn to_target(self, srgb_target: bool, alpha: f32) -> [f32; 4] {
        let conv = |c: u8| {
            let v = f32::from(c) / 255.0;
            if srgb_target {
                srgb_to_linear(v)
            } else {
                v
            }
        };
        [conv(self.r), conv(self.g), conv(self.b), alpha]
    }

    fn to_glyphon(self) -> glyphon::Color {
        glyphon::Color::rgb(self.r, self.g, self.b)
    }
}

/// The sRGB transfer function, inverted (IEC 61966-2-1).
fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn premultiplied_channels_are_whole_steps_on_plain_targets() {
        let c = Rgb::new(24, 200, 255);
        assert_eq!(
            c.to_target_premultiplied(false, 1.0),
            c.to_target(false, 1.0)
        );
        let [r, g, b, a] = c.to_target_premultiplied(false, 0.5);
        assert_eq!(a, 128.0 / 255.0);
        for (got, full) in [(r, 24.0), (g, 200.0), (b, 255.0)] {
            let bytes = got * 255.0;
            assert_eq!(bytes, bytes.round(), "{got} is not a whole step");
            assert!((bytes - full * 128.0 / 255.0).abs() <= 0.5);
        }
        assert_eq!(c.to_target_premultiplied(false, 0.0), [0.0; 4]);
    }

    #[test]
    fn linear_conversion_keeps_the_ends() {
        assert_eq!(Rgb::new(0, 0, 0).to_target(true, 1.0), [0.0, 0.0, 0.0, 1.0]);
        let white = Rgb::new(255, 255, 255).to_target(true, 1.0);
        assert!(white.iter().all(|c| (c - 1.0).abs() < 1e-6));
        let mid = Rgb::new(128, 128, 128).to_target(false, 1.0);
        assert!((mid[0] - 128.0 / 255.0).abs() < 1e-6);
    }
}
