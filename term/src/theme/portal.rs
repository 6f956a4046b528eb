//! The system's light or dark preference on Linux: the XDG desktop
//! portal's `org.freedesktop.appearance` `color-scheme` setting, read once
//! and then watched (its `SettingChanged` signal) over the session bus on
//! a thread of its own.

use std::time::Duration;

use zbus::zvariant::{OwnedValue, Value};

use super::Appearance;

/// The portal's well-known name, object and settings interface.
pub const DESTINATION: &str = "org.freedesktop.portal.Desktop";
pub const PATH: &str = "/org/freedesktop/portal/desktop";
pub const INTERFACE: &str = "org.freedesktop.portal.Settings";
/// The setting's namespace and key.
pub const NAMESPACE: &str = "org.freedesktop.appearance";
pub const KEY: &str = "color-scheme";

/// How long one call to the portal may take: a bus that starts the
/// portal on demand can take a while, and a session without one must not
/// hold the window up for D-Bus's default 25 seconds.
const CALL_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long the window waits for the first answer before drawing in the
/// dark scheme: a portal that is running answers in a few milliseconds.
const FIRST_ANSWER_WAIT: Duration = Duration::from_millis(300);

/// What a `color-scheme` value means: 1 prefers dark, 2 prefers light,
/// 0 (no preference) is light, as GTK and libadwaita read it. The value
/// may come wrapped in variants (the old `Read` method wraps it twice).
pub fn appearance_of(value: &Value<'_>) -> Option<Appearance> {
    match value {
        Value::Value(inner) => appearance_of(inner),
        Value::U32(1) => Some(Appearance::Dark),
        Value::U32(0 | 2) => Some(Appearance::Light),
        _ => None,
    }
}

/// Watch the setting: `on_change` is called on the watching thread with
/// the first value and every change after it. The first value is also
/// returned when it came within [`FIRST_ANSWER_WAIT`] (`None`: no session
/// bus, no portal, or no answer in time).
pub fn watch(on_change: impl Fn(Appearance) + Send + 'static) -> Option<Appearance> {
    let (first_tx, first_rx) = crossbeam_channel::bounded(1);
    let spawned = std::thread::Builder::new()
        .name("koi-appearance".into())
        .spawn(move || {
            if let Err(e) = serve(&first_tx, on_change) {
                log::info!("not following the system's appearance: {e}");
                let _ = first_tx.try_send(None);
            }
        });
    if let Err(e) = spawned {
        log::info!("not following the system's appearance: {e}");
        return None;
    }
    first_rx.recv_timeout(FIRST_ANSWER_WAIT).ok().flatten()
}

fn serve(
    first: &crossbeam_channel::Sender<Option<Appearance>>,
    on_change: impl Fn(Appearance),
) -> zbus::Result<()> {
    let connection = zbus::blocking::connection::Builder::session()?
        .method_timeout(CALL_TIMEOUT)
        .build()?;
    let proxy = zbus::blocking::proxy::Builder::<zbus::blocking::Proxy<'_>>::new(&connection)
        .destination(DESTINATION)?
        .path(PATH)?
        .interface(INTERFACE)?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()?;
    // Subscribe before reading, so a change in between is not lost.
    let changes = proxy.receive_signal_with_args("SettingChanged", &[(0, NAMESPACE), (1, KEY)])?;
    let current = read(&proxy)?;
    let _ = first.try_send(current);
    // Also as a change: the window may have stopped waiting for it.
    if let Some(appearance) = current {
        on_change(appearance);
    }
    for message in changes {
        let Ok((namespace, key, value)) =
            message.body().deserialize::<(String, String, OwnedValue)>()
        else {
            continue;
        };
        if namespace != NAMESPACE || key != KEY {
            continue;
        }
        if let Some(appearance) = appearance_of(&value) {
            on_change(appearance);
        }
    }
    Ok(())
}

/// The current value: `ReadOne` (portal version 2), else the older `Read`.
fn read(proxy: &zbus::blocking::Proxy<'_>) -> zbus::Result<Option<Appearance>> {
    let value: OwnedValue = match proxy.call("ReadOne", &(NAMESPACE, KEY)) {
        Ok(value) => value,
        Err(zbus::Error::MethodError(..)) => proxy.call("Read", &(NAMESPACE, KEY))?,
        Err(e) => return Err(e),
    };
    Ok(appearance_of(&value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_map_to_appearances() {
        assert_eq!(appearance_of(&Value::U32(1)), Some(Appearance::Dark));
        assert_eq!(appearance_of(&Value::U32(2)), Some(Appearance::Light));
        assert_eq!(appearance_of(&Value::U32(0)), Some(Appearance::Light));
        assert_eq!(appearance_of(&Value::U32(7)), None);
        assert_eq!(appearance_of(&Value::from("dark")), None);
        let twice = Value::Value(Box::new(Value::Value(Box::new(Value::U32(1)))));
        assert_eq!(appearance_of(&twice), Some(Appearance::Dark));
    }
}
