//! The GPU context: instance, adapter, device and queue, for offscreen
//! rendering or for a window surface the caller created.

use crate::error::RenderError;

/// Environment variable naming the adapter to prefer (a case-insensitive
/// substring of its name, e.g. `llvmpipe` or `lavapipe`); wgpu's own tools
/// use the same name.
pub const ADAPTER_NAME_ENV: &str = "WGPU_ADAPTER_NAME";

/// A device and queue plus the adapter they came from.
#[derive(Debug, Clone)]
pub struct Gpu {
    /// The instance the adapter belongs to (surfaces must come from it).
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// A wgpu instance whose backends honour `WGPU_BACKEND` (e.g. `vulkan`,
    /// `gl`) and the other `WGPU_*` variables. Create window surfaces from
    /// this instance, then pass both to [`Gpu::for_surface`].
    pub fn new_instance() -> wgpu::Instance {
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
    }

    /// Like [`Gpu::new_instance`], connected to the platform's display
    /// (with winit: `event_loop.owned_display_handle()`), which the GL
    /// backend needs to present on Wayland.
    pub fn new_instance_with_display<D>(display: D) -> wgpu::Instance
    where
        D: wgpu::rwh::HasDisplayHandle + std::fmt::Debug + Send + Sync + 'static,
    {
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
            Box::new(display),
        ))
    }

    /// A context with no window: any adapter wgpu finds, hardware first,
    /// then a software fallback (lavapipe / llvmpipe).
    pub fn new_headless() -> Result<Self, RenderError> {
        Self::with_instance(Self::new_instance(), None)
    }

    /// A context whose adapter can present to `surface`, which must have
    /// been created from `instance`.
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, RenderError> {
        Self::with_instance(instance, Some(surface))
    }

    fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, RenderError> {
        let adapter = pollster::block_on(pick_adapter(&instance, surface))?;
        let info = adapter.get_info();
        log::info!(
            "render: using adapter {:?} ({:?}, {:?})",
            info.name,
            info.backend,
            info.device_type
        );
        let desc = wgpu::DeviceDescriptor {
            label: Some("koi render device"),
            required_features: wgpu::Features::empty(),
            // The adapter's own limits: software rasterisers allow large
            // textures, and big windows need them.
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))?;
        // wgpu's default handler panics on any uncaught device error; a
        // terminal must keep running, so such errors are logged instead
        // (operations that can fail on input check themselves and return
        // `RenderError`).
        device.on_uncaptured_error(std::sync::Arc::new(|e: wgpu::Error| {
            log::error!("render: wgpu device error: {e}");
        }));
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// A one-line description of the adapter, for logs and test output.
    pub fn adapter_summary(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }

    /// The largest texture side the device accepts.
    pub fn max_texture_side(&self) -> u32 {
        self.device.limits().max_texture_dimension_2d
    }
}

/// `WGPU_ADAPTER_NAME` first, then a real adapter, then a fallback one.
async fn pick_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, RenderError> {
    let backends = wgpu::Backends::all().with_env();
    if let Ok(wanted) = std::env::var(ADAPTER_NAME_ENV) {
        let wanted = wanted.to_lowercase();
        for adapter in instance.enumerate_adapters(backends).await {
            let name = adapter.get_info().name.to_lowercase();
            let fits = surface.is_none_or(|s| adapter.is_surface_supported(s));
            if fits && name.contains(&wanted) {
                return Ok(adapter);
            }
        }
        log::warn!("render: no adapter matches {ADAPTER_NAME_ENV}={wanted}; picking another");
    }
    for force_fallback_adapter in [false, true] {
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            force_fallback_adapter,
            compatible_surface: surface,
            ..Default::default()
        };
        match instance.request_adapter(&options).await {
            Ok(adapter) => return Ok(adapter),
            Err(e) => {
                log::debug!("render: request_adapter(fallback={force_fallback_adapter}): {e}")
            }
        }
    }
    Err(RenderError::NoAdapter {
        backends: format!("{backends:?}"),
    })
}
