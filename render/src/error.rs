//! The renderer's error type.

/// Everything that can go wrong between a frame description and pixels.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No adapter at all: no GPU driver and no software rasteriser.
    #[error(
        "no wgpu adapter found (backends: {backends}); install a Vulkan or GL driver \
         (on Debian/Ubuntu `mesa-vulkan-drivers` provides the lavapipe CPU rasteriser), \
         or pick a backend with WGPU_BACKEND=vulkan|gl"
    )]
    NoAdapter {
        /// The backends that were searched.
        backends: String,
    },
    /// The adapter refused to create a device.
    #[error("creating the wgpu device failed: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    /// A target size of zero or above the device's texture limit.
    #[error("target size {width}x{height} is outside 1..={max} pixels per side")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The device's largest texture side.
        max: u32,
    },
    /// The renderer cannot draw into this texture format.
    #[error("texture format {0:?} is not supported (use an 8-bit RGBA or BGRA format)")]
    UnsupportedFormat(wgpu::TextureFormat),
    /// A target whose format differs from the one the renderer was built for.
    #[error("target format {target:?} differs from the renderer's {renderer:?}")]
    FormatMismatch {
        /// The renderer's format.
        renderer: wgpu::TextureFormat,
        /// The target's format.
        target: wgpu::TextureFormat,
    },
    /// The glyph atlas could not hold one frame's glyphs even after eviction.
    #[error("the glyph atlas is full even after eviction")]
    AtlasFull,
    /// Reading the rendered image back from the GPU failed.
    #[error("reading the frame back from the GPU failed: {0}")]
    Readback(String),
    /// The window surface could not give a texture to draw into.
    #[error("the window surface is unavailable: {0}")]
    Surface(String),
    /// Writing a PNG failed.
    #[error("writing the PNG failed: {0}")]
    Png(#[from] png::EncodingError),
    /// A file could not be written.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}
