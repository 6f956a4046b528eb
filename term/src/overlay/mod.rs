//! The Cmd+L overlay's model and layout, free of any window: markdown
//! ([`markdown`]), the input box ([`input_box`]), the conversation view
//! ([`conversation`]) and the panel that ties them to keys and to
//! [`render::OverlayLayer`]s ([`panel`]).

pub mod config;
pub mod conversation;
pub mod highlight;
pub mod input_box;
pub mod markdown;
pub mod panel;
pub mod style;
pub mod wrap;
