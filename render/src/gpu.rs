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

/// The backends tried in turn unless `WGPU_BACKEND` names some: each
/// platform's own API (Vulkan, Metal, DX12), then GL. Starting GL's driver
/// beside Vulkan's when Vulkan has an adapter only costs time: on a
/// software stack it loads a second driver, 20–25 ms of CPU per launch.
const BACKEND_ORDER: [wgpu::Backends; 2] = [wgpu::Backends::PRIMARY, wgpu::Backends::GL];

/// The error when no backend was tried, or one made no surface.
fn no_adapter(backends: impl Into<String>) -> RenderError {
    RenderError::NoAdapter {
        backends: backends.into(),
    }
}

/// Tries `attempt` with each backend in turn: the first hardware adapter
/// wins. A software one is kept while a later backend may still find
/// hardware (a GPU that has a GL driver and no Vulkan one), and taken when
/// none does.
fn first_adapter<T>(
    mut attempt: impl FnMut(wgpu::Backends) -> Result<(Gpu, T), RenderError>,
) -> Result<(Gpu, T), RenderError> {
    let mut software = None;
    let mut last = None;
    for backends in backend_order() {
        if software.is_some() && !a_gpu_may_be_present() {
            break;
        }
        match attempt(backends) {
            Ok(found) if !found.0.is_cpu() => return Ok(found),
            Ok(found) => {
                software.get_or_insert(found);
            }
            Err(err) => {
                log::debug!("render: {backends:?}: {err}");
                last = Some(err);
            }
        }
    }
    software.ok_or_else(|| last.unwrap_or_else(|| no_adapter("none")))
}

/// Whether the machine may have a GPU at all. On Linux a GPU driver (GL or
/// Vulkan) opens a node under `/dev/dri`, or NVIDIA's own `/dev/nvidiactl`;
/// with neither, a software adapter is the best any backend can offer.
fn a_gpu_may_be_present() -> bool {
    if cfg!(target_os = "linux") {
        std::fs::read_dir("/dev/dri").is_ok_and(|mut nodes| nodes.next().is_some())
            || std::path::Path::new("/dev/nvidiactl").exists()
    } else {
        true
    }
}

/// The backends to try, in order.
fn backend_order() -> Vec<wgpu::Backends> {
    match wgpu::Backends::from_env() {
        Some(chosen) => vec![chosen],
        None => BACKEND_ORDER.to_vec(),
    }
}

impl Gpu {
    /// A wgpu instance for `backends`, with the other options from the
    /// `WGPU_*` variables.
    fn instance(backends: wgpu::Backends) -> wgpu::Instance {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = backends;
        wgpu::Instance::new(desc)
    }

    /// A context with no window: any adapter wgpu finds, hardware first,
    /// then a software fallback (lavapipe / llvmpipe).
    pub fn new_headless() -> Result<Self, RenderError> {
        first_adapter(|backends| Ok((Self::with_instance(Self::instance(backends), None)?, ())))
            .map(|(gpu, ())| gpu)
    }

    /// A context for a window, and the window's surface. `display` is the
    /// platform's display connection (with winit: a clone of
    /// `event_loop.owned_display_handle()`), which the GL backend needs to
    /// present on Wayland; `surface` makes the window's surface from an
    /// instance. The backends are tried in turn until one has an adapter
    /// that can present to the window.
    pub fn for_window<D, E>(
        display: impl Fn() -> D,
        surface: impl Fn(&wgpu::Instance) -> Result<wgpu::Surface<'static>, E>,
    ) -> Result<(Self, wgpu::Surface<'static>), RenderError>
    where
        D: wgpu::rwh::HasDisplayHandle + std::fmt::Debug + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        first_adapter(|backends| {
            let mut desc =
                wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(display()));
            desc.backends = backends;
            let instance = wgpu::Instance::new(desc);
            let made = surface(&instance)
                .map_err(|err| no_adapter(format!("{backends:?} (no surface: {err})")))?;
            Ok((Self::with_instance(instance, Some(&made))?, made))
        })
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

    /// Whether the adapter is a CPU rasteriser (lavapipe, llvmpipe): it
    /// draws on the cores everything else needs, and its pixels are in
    /// memory already.
    pub fn is_cpu(&self) -> bool {
        self.adapter.get_info().device_type == wgpu::DeviceType::Cpu
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
