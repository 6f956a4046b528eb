//! Tools that come and go while koi runs (an MCP server's), behind one
//! trait so the registry, the policy and the runner treat them like the
//! built-in ones.

use std::ops::Deref;
use std::sync::Arc;

use crate::tool::Tool;

/// A set of tools known only at run time. The registry asks it for any
/// name its own tools do not have.
pub trait ToolSource: Send + Sync {
    /// The tool behind `name`, if this source offers it now.
    fn tool(&self, name: &str) -> Option<Arc<dyn Tool>>;
    /// Every name it offers now, for "unknown tool" messages.
    fn names(&self) -> Vec<String>;
}

/// A tool the registry found: one of its own, or one a source lent it.
pub enum ToolRef<'a> {
    /// A built-in tool.
    Own(&'a (dyn Tool + 'static)),
    /// A tool of a [`ToolSource`].
    Shared(Arc<dyn Tool>),
}

impl Deref for ToolRef<'_> {
    type Target = dyn Tool;

    fn deref(&self) -> &Self::Target {
        match self {
            ToolRef::Own(t) => *t,
            ToolRef::Shared(t) => t.as_ref(),
        }
    }
}
