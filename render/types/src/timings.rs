//! When each step of a frame finished, as the renderer reports it to the
//! latency and burst traces.

use std::time::Instant;

/// When each step of the last `Renderer::render_to_surface` finished, for
/// latency traces: four clock reads a frame, nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTimings {
    /// The call began.
    pub started: Instant,
    /// The surface gave a texture to draw into.
    pub acquired: Instant,
    /// The CPU side of the frame (shaping, instance uploads) was done.
    pub prepared: Instant,
    /// The GPU commands were submitted.
    pub submitted: Instant,
    /// The texture was handed back to the window system.
    pub presented: Instant,
}

impl FrameTimings {
    /// Every step stamped with the same moment: a frame that has not
    /// begun yet.
    pub fn starting_now() -> Self {
        let now = Instant::now();
        Self {
            started: now,
            acquired: now,
            prepared: now,
            submitted: now,
            presented: now,
        }
    }
}
