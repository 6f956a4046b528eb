//! Following the system's light or dark appearance for a
//! `theme = { light, dark }` pair: the desktop portal on Linux, winit's
//! theme events where there is none.

use super::{App, UserEvent};
use crate::theme::Appearance;

impl App {
    /// Start following the system's appearance. With `wait`, the portal's
    /// current answer (if it gives one at once) is applied before this
    /// returns, so the first frame is drawn in the right scheme.
    pub(super) fn follow_appearance(&mut self, wait: bool) {
        if self.follows_portal {
            return;
        }
        #[cfg(all(unix, not(target_os = "macos")))]
        {
            let proxy = self.proxy.clone();
            let first = crate::theme::portal::watch(move |appearance| {
                koi_terminal::trace::theme::signalled();
                let _ = proxy.send_event(UserEvent::Appearance(appearance));
            });
            self.follows_portal = first.is_some();
            if let Some(appearance) = first {
                if wait {
                    self.options.loaded.config.appearance = appearance;
                } else {
                    self.set_appearance(appearance);
                }
            }
        }
        let _ = wait;
    }

    /// winit's theme event: used where no portal answers.
    pub(super) fn window_theme_changed(&mut self, theme: winit::window::Theme) {
        if !self.follows_portal {
            self.set_appearance(match theme {
                winit::window::Theme::Light => Appearance::Light,
                winit::window::Theme::Dark => Appearance::Dark,
            });
        }
    }

    /// The system's appearance changed: a `theme = { light, dark }` pair
    /// switches to the other scheme at once.
    pub(super) fn set_appearance(&mut self, appearance: Appearance) {
        let config = &mut self.options.loaded.config;
        if config.appearance == appearance {
            return;
        }
        config.appearance = appearance;
        if config.base_theme.follows_appearance() {
            self.apply_theme();
            self.redraw();
        }
    }

    /// Draw, and answer colour queries, in the config's current theme.
    pub(super) fn apply_theme(&mut self) {
        let config = &self.options.loaded.config;
        if let Some(t) = &mut self.terminal {
            let palette = koi_terminal::palette::Palette::from_theme(&config.theme());
            for pane in t.workspace.panes.values() {
                pane.session.set_palette(palette.clone());
            }
            t.display.set_theme(config);
        }
        koi_terminal::trace::theme::applied();
    }
}
