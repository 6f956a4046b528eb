//! Talking to a model: the provider-neutral client, the providers' wire
//! formats, the HTTP transport with its SSE parser, the thinking setting
//! each provider is asked for, and the probe that finds a local server.

pub(crate) mod client;
pub mod probe;
pub(crate) mod providers;
pub mod sse;
pub mod thinking;
pub(crate) mod transport;
