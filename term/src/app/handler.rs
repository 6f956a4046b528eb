//! winit's side of the app: window, user and idle events, each turned into
//! the [`App`] method that owns it.

use super::*;

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.terminal.is_some() {
            return;
        }
        match startup::open(event_loop, &self.options, &self.proxy) {
            Ok(terminal) => {
                let refresh = terminal
                    .display
                    .window
                    .current_monitor()
                    .and_then(|m| m.refresh_rate_millihertz())
                    .filter(|&mhz| mhz > 0)
                    .map_or(pacing::DEFAULT_REFRESH, |mhz| {
                        std::time::Duration::from_secs(1000).div_f64(f64::from(mhz))
                    });
                self.pacer = pacing::FramePacer::from_env(refresh, terminal.display.drawn_by_cpu());
                #[cfg(all(unix, not(target_os = "macos")))]
                {
                    self.pointer_focus = pointer_focus::PointerFocus::new(&terminal.display.window);
                }
                let window_theme = terminal.display.window.theme();
                self.terminal = Some(terminal);
                // Where no portal answered: the window system's theme.
                if let Some(theme) = window_theme {
                    self.window_theme_changed(theme);
                }
                self.reset_blink();
            }
            Err(err) => {
                self.fatal = Some(err);
                event_loop.exit();
            }
        }
    }

    fn user_event(&mut self, _event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::Wakeup => {
                latency::hop(Hop::Wakeup);
                self.handle_session_events();
                self.schedule_frame();
            }
            UserEvent::Config(result) => self.reload(*result),
            UserEvent::Assistant => {
                self.with_overlay(|ctx| {
                    ctx.pump();
                });
            }
            UserEvent::Suggestion => self.suggestions_finished(),
            UserEvent::Appearance(appearance) => self.set_appearance(appearance),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let mods = self.mods();
        match event {
            WindowEvent::CloseRequested => self.exit(event_loop),
            WindowEvent::RedrawRequested => self.draw(),
            WindowEvent::ThemeChanged(theme) => self.window_theme_changed(theme),
            WindowEvent::Resized(size) => {
                if let Some(t) = &mut self.terminal {
                    t.display.resize(size);
                    let grid = t.display.grid_size();
                    self.resize_grid(grid);
                }
            }
            WindowEvent::ScaleFactorChanged { .. } => {
                let config = self.config().clone();
                if let Some(t) = &mut self.terminal {
                    let grid = t.display.scale_factor_changed(&config);
                    self.resize_grid(grid);
                }
            }
            WindowEvent::Focused(focused) => {
                if let Some(t) = &mut self.terminal {
                    t.display.cursor.focused = focused;
                    let mode = *t.session().terminal().lock().mode();
                    if mode.contains(alacritty_terminal::term::TermMode::FOCUS_IN_OUT) {
                        t.session().write(if focused {
                            &b"\x1b[I"[..]
                        } else {
                            &b"\x1b[O"[..]
                        });
                    }
                }
                self.reset_blink();
            }
            WindowEvent::ModifiersChanged(m) => {
                self.modifiers = m.state();
                if !self.overlay.is_open() {
                    self.update_hover();
                }
            }
            #[cfg(all(unix, not(target_os = "macos")))]
            WindowEvent::CursorEntered { .. } => {
                if let Some(focus) = &mut self.pointer_focus {
                    focus.entered();
                }
            }
            #[cfg(all(unix, not(target_os = "macos")))]
            WindowEvent::CursorLeft { .. } => {
                if let Some(focus) = &mut self.pointer_focus {
                    focus.left();
                }
            }
            // winit makes up a press for every key already down when the
            // window gains focus. Those keys were pressed for another window
            // (or, on a loaded machine, are the very press still queued
            // behind the focus event): typing them would send them twice.
            WindowEvent::KeyboardInput {
                event,
                is_synthetic,
                ..
            } if !(is_synthetic && event.state.is_pressed()) => self.key(event),
            WindowEvent::KeyboardInput { .. } => {}
            WindowEvent::Ime(ime) => {
                let Some(t) = &mut self.terminal else { return };
                if self.overlay.is_open() {
                    match ime {
                        Ime::Preedit(text, _) => {
                            self.overlay.set_preedit((!text.is_empty()).then_some(text))
                        }
                        Ime::Commit(text) => {
                            self.overlay.set_preedit(None);
                            self.overlay.paste(&text);
                        }
                        Ime::Enabled | Ime::Disabled => self.overlay.set_preedit(None),
                    }
                    t.display.window.request_redraw();
                    return;
                }
                match ime {
                    Ime::Preedit(text, _) => t.display.preedit = (!text.is_empty()).then_some(text),
                    Ime::Commit(text) => {
                        t.display.preedit = None;
                        show_live_screen(&mut t.session().terminal().lock(), false);
                        t.session().write(text.into_bytes());
                    }
                    Ime::Enabled | Ime::Disabled => t.display.preedit = None,
                }
                t.display.window.request_redraw();
            }
            WindowEvent::CursorMoved { position, .. } if self.overlay.is_open() => {
                self.panel_moved(position)
            }
            WindowEvent::CursorMoved { position, .. } if self.drag_divider(position) => {
                self.mouse.position = position;
            }
            WindowEvent::CursorMoved { position, .. } => {
                let config = self.options.loaded.config.clone();
                let Some(t) = &self.terminal else { return };
                let mut ctx = Self::mouse_context(t, &mut self.clipboard, mods, &config);
                if self.mouse.moved(&mut ctx, position).redraw {
                    self.redraw();
                }
                self.update_hover();
            }
            WindowEvent::MouseInput { state, button, .. } if self.overlay.is_open() => {
                self.panel_button(state, button)
            }
            WindowEvent::MouseInput { state, button, .. }
                if self.link_button(state, button) || self.chrome_button(state, button) =>
            {
                self.redraw();
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let config = self.options.loaded.config.clone();
                let Some(t) = &self.terminal else { return };
                let mut ctx = Self::mouse_context(t, &mut self.clipboard, mods, &config);
                if self.mouse.button(&mut ctx, state, button).redraw
                    || state == ElementState::Pressed
                {
                    self.redraw();
                }
            }
            WindowEvent::MouseWheel { delta, .. } if self.overlay.is_open() => {
                let lines = match delta {
                    winit::event::MouseScrollDelta::LineDelta(_, y) => (y * 3.0) as isize,
                    winit::event::MouseScrollDelta::PixelDelta(p) => (p.y / 20.0) as isize,
                };
                self.overlay.scroll(lines);
                self.redraw();
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let config = self.options.loaded.config.clone();
                let Some(t) = &self.terminal else { return };
                let mut ctx = Self::mouse_context(t, &mut self.clipboard, mods, &config);
                if self.mouse.wheel(&mut ctx, delta).redraw {
                    self.redraw();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.closing {
            self.exit(event_loop);
            return;
        }
        let wake = [self.run_timers(), self.rearm_hidden()]
            .into_iter()
            .flatten()
            .min();
        event_loop.set_control_flow(match wake {
            Some(at) => ControlFlow::WaitUntil(at),
            None => ControlFlow::Wait,
        });
    }
}
