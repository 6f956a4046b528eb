//! The system clipboard and, on X11/Wayland, the primary selection. A
//! machine without a clipboard (no display server) degrades to a local one
//! so copy and paste inside koi still work.

use arboard::Clipboard as SystemClipboard;

/// Which clipboard an operation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Ctrl+Shift+C / Ctrl+Shift+V.
    Clipboard,
    /// Select to copy, middle-click to paste (Linux).
    Primary,
}

pub struct Clipboard {
    system: Option<SystemClipboard>,
    /// Used when the system clipboard is unavailable.
    local: [String; 2],
}

impl Clipboard {
    pub fn new() -> Self {
        let system = match SystemClipboard::new() {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("no system clipboard ({e}); copy and paste stay inside koi");
                None
            }
        };
        Self {
            system,
            local: Default::default(),
        }
    }

    pub fn store(&mut self, kind: Kind, text: String) {
        self.local[kind as usize] = text.clone();
        let Some(system) = &mut self.system else {
            return;
        };
        let result = match kind {
            Kind::Clipboard => system.set_text(text),
            Kind::Primary => set_primary(system, text),
        };
        if let Err(e) = result {
            log::warn!("could not set the clipboard: {e}");
        }
    }

    pub fn load(&mut self, kind: Kind) -> String {
        let from_system = self.system.as_mut().and_then(|system| match kind {
            Kind::Clipboard => system.get_text().ok(),
            Kind::Primary => get_primary(system),
        });
        from_system.unwrap_or_else(|| self.local[kind as usize].clone())
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
fn set_primary(system: &mut SystemClipboard, text: String) -> Result<(), arboard::Error> {
    use arboard::{LinuxClipboardKind, SetExtLinux};
    system
        .set()
        .clipboard(LinuxClipboardKind::Primary)
        .text(text)
}

#[cfg(all(unix, not(target_os = "macos")))]
fn get_primary(system: &mut SystemClipboard) -> Option<String> {
    use arboard::{GetExtLinux, LinuxClipboardKind};
    system
        .get()
        .clipboard(LinuxClipboardKind::Primary)
        .text()
        .ok()
}

/// Other platforms have no primary selection; keep it inside koi.
#[cfg(not(all(unix, not(target_os = "macos"))))]
fn set_primary(_: &mut SystemClipboard, _: String) -> Result<(), arboard::Error> {
    Ok(())
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn get_primary(_: &mut SystemClipboard) -> Option<String> {
    None
}
