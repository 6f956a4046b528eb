//! One tool call, judged once: the value that carries the effect, the
//! policy's decision and proof, what the call touches and the sandbox
//! level it earns from the policy's analysis to the runner. An [`Approved`]
//! call can only be made from a [`Judged`] one, by the policy's allow or
//! the user's yes, so nothing runs that was not judged.

use crate::access::Footprint;
use crate::effect::Effect;
use crate::mode::Decision;
use crate::policy::Proof;
use crate::sandbox::Level;

/// Why a call may run without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clearance {
    /// The policy proved it read-only, or the mode allows it as it is.
    Policy,
    /// Not proven, but the confidential read-only sandbox contains it:
    /// it runs there, unasked, and can change nothing nor read a secret.
    Contained,
}

/// The judgement of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// What the call would do.
    pub effect: Effect,
    /// Allow, ask or deny.
    pub decision: Decision,
    /// Whether the policy proved it read-only.
    pub proof: Proof,
    /// What it touches, for running independent calls side by side.
    pub footprint: Footprint,
    /// Why it is allowed, when it is.
    pub clearance: Option<Clearance>,
}

/// A call cleared to run, and the sandbox level it runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Approved {
    level: Level,
    proof: Proof,
}

impl Approved {
    /// The sandbox level of the run.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Whether the call was proven read-only (for its start record).
    pub fn proof(&self) -> Proof {
        self.proof
    }
}

impl Judged {
    /// The call as the policy allows it, with no one asked: proven and
    /// contained calls run read-only, calls a mode lets through unproven
    /// (bypass) run workspace-write. `None` unless the decision is Allow.
    pub fn allowed(&self) -> Option<Approved> {
        let level = match (self.clearance?, self.proof) {
            (_, Proof::ReadOnly) | (Clearance::Contained, _) => Level::ReadOnly,
            (Clearance::Policy, Proof::Unproven) => Level::WorkspaceWrite,
        };
        Some(Approved {
            level,
            proof: self.proof,
        })
    }

    /// The call as the user approved it: what the policy asked about runs
    /// workspace-write (a proven call stays read-only). A denied call
    /// cannot be approved.
    pub fn approve(&self) -> Option<Approved> {
        if matches!(self.decision, Decision::Deny { .. }) {
            return None;
        }
        Some(Approved {
            level: self.proof.level(),
            proof: self.proof,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(decision: Decision, proof: Proof, clearance: Option<Clearance>) -> Judged {
        Judged {
            effect: Effect::OwnProcess,
            decision,
            proof,
            footprint: Footprint::Exclusive,
            clearance,
        }
    }

    #[test]
    fn levels_follow_how_a_call_was_cleared() {
        let ask = Decision::Ask {
            summary: "x".into(),
            detail: "y".into(),
        };
        let deny = Decision::Deny {
            reason: "no".into(),
        };
        let proven = judged(Decision::Allow, Proof::ReadOnly, Some(Clearance::Policy));
        assert_eq!(proven.allowed().map(|a| a.level()), Some(Level::ReadOnly));
        assert_eq!(proven.approve().map(|a| a.level()), Some(Level::ReadOnly));
        let contained = judged(Decision::Allow, Proof::Unproven, Some(Clearance::Contained));
        assert_eq!(
            contained.allowed().map(|a| a.level()),
            Some(Level::ReadOnly)
        );
        let bypass = judged(Decision::Allow, Proof::Unproven, Some(Clearance::Policy));
        assert_eq!(
            bypass.allowed().map(|a| a.level()),
            Some(Level::WorkspaceWrite)
        );
        let asked = judged(ask, Proof::Unproven, None);
        assert_eq!(asked.allowed(), None);
        assert_eq!(
            asked.approve().map(|a| a.level()),
            Some(Level::WorkspaceWrite)
        );
        let denied = judged(deny, Proof::Unproven, None);
        assert_eq!(denied.allowed(), None);
        assert_eq!(denied.approve(), None);
    }
}
