//! What a conversation has used and cost: read from its session log's
//! usage records (the truth, so a resumed conversation counts its earlier
//! rounds too), priced with what the user configured per model. One
//! report serves `/cost` in `k` and in the overlay.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::store::session_log::Entry;

/// Prices are per this many tokens, as providers publish them.
const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// What one model costs, per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    /// Input read from the prompt cache (defaults to `input`).
    #[serde(default)]
    pub cached_input: Option<f64>,
    /// Output, reasoning included.
    pub output: f64,
}

impl ModelPrice {
    fn check(&self, model: &str) -> Result<(), String> {
        let fields = [
            ("input", Some(self.input)),
            ("cached_input", self.cached_input),
            ("output", Some(self.output)),
        ];
        for (name, value) in fields {
            if let Some(v) = value.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(format!(
                    "prices.{model:?}.{name} = {v} must be a price of zero or more"
                ));
            }
        }
        Ok(())
    }
}

/// The configured prices, by model name or name prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Prices(pub BTreeMap<String, ModelPrice>);

impl Prices {
    /// Every price is a number of zero or more and names a model.
    pub fn validate(&self) -> Result<(), String> {
        for (model, price) in &self.0 {
            if model.trim().is_empty() {
                return Err("prices: a model name is empty".into());
            }
            price.check(model)?;
        }
        Ok(())
    }

    /// The price of `model`: its own entry, else the longest entry its
    /// name begins with (a family's price covers its dated releases).
    pub fn of(&self, model: &str) -> Option<&ModelPrice> {
        self.0.get(model).or_else(|| {
            self.0
                .iter()
                .filter(|(k, _)| model.starts_with(k.as_str()))
                .max_by_key(|(k, _)| k.len())
                .map(|(_, p)| p)
        })
    }
}

/// A conversation's token use and, where priced, its cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageReport {
    /// Model rounds that reported usage.
    pub rounds: u64,
    /// Input tokens, cached included.
    pub input: u64,
    /// Input tokens read from the provider's cache.
    pub cached_input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Of the output, reasoning tokens.
    pub reasoning: u64,
    /// The cost of the priced rounds (`None` when no round was priced).
    pub cost: Option<f64>,
    /// Models used that have no price, with their rounds.
    pub unpriced: BTreeMap<String, u64>,
}

impl UsageReport {
    /// Sums the usage records among `entries`.
    pub fn from_entries<'a>(
        entries: impl IntoIterator<Item = &'a Entry>,
        prices: &Prices,
    ) -> UsageReport {
        let mut r = UsageReport::default();
        for e in entries {
            let Entry::Usage {
                model,
                input,
                cached_input,
                output,
                reasoning,
            } = e
            else {
                continue;
            };
            // Saturating: a log may hold any numbers.
            r.rounds += 1;
            r.input = r.input.saturating_add(*input);
            r.cached_input = r.cached_input.saturating_add(*cached_input);
            r.output = r.output.saturating_add(*output);
            r.reasoning = r.reasoning.saturating_add(*reasoning);
            match prices.of(model) {
                Some(p) => {
                    let cached = (*cached_input).min(*input);
                    let money = ((input - cached) as f64 * p.input
                        + cached as f64 * p.cached_input.unwrap_or(p.input)
                        + *output as f64 * p.output)
                        / TOKENS_PER_PRICE_UNIT;
                    *r.cost.get_or_insert(0.0) += money;
                }
                None => *r.unpriced.entry(model.clone()).or_default() += 1,
            }
        }
        r
    }

    /// The share of input served from the cache, when there was input.
    pub fn cache_hit_share(&self) -> Option<f64> {
        (self.input > 0).then(|| self.cached_input as f64 / self.input as f64)
    }
}

impl fmt::Display for UsageReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rounds == 0 {
            return f.write_str("tokens: none used yet in this conversation");
        }
        let share = self
            .cache_hit_share()
            .map(|s| format!("{:.0}% cache hits", 100.0 * s))
            .unwrap_or_else(|| "no input".into());
        write!(
            f,
            "tokens: {} in ({} cached, {share}), {} out",
            self.input, self.cached_input, self.output
        )?;
        if self.reasoning > 0 {
            write!(f, " ({} reasoning)", self.reasoning)?;
        }
        let rounds = if self.rounds == 1 { "round" } else { "rounds" };
        write!(f, " over {} {rounds}", self.rounds)?;
        match self.cost {
            Some(c) => write!(f, "\ncost: ${c:.4}")?,
            None => write!(f, "\ncost: no price set ([ai.prices] in koi.toml)")?,
        }
        if self.cost.is_some() && !self.unpriced.is_empty() {
            let names: Vec<String> = self
                .unpriced
                .iter()
                .map(|(m, n)| format!("{m} ({n})"))
                .collect();
            write!(f, ", not counting unpriced rounds of {}", names.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(model: &str, input: u64, cached: u64, output: u64, reasoning: u64) -> Entry {
        Entry::Usage {
            model: model.into(),
            input,
            cached_input: cached,
            output,
            reasoning,
        }
    }

    fn prices() -> Prices {
        let mut m = BTreeMap::new();
        m.insert(
            "claude-sonnet-4-5".into(),
            ModelPrice {
                input: 3.0,
                cached_input: Some(0.3),
                output: 15.0,
            },
        );
        m.insert(
            "claude-sonnet-4-5-2025".into(),
            ModelPrice {
                input: 4.0,
                cached_input: None,
                output: 20.0,
            },
        );
        Prices(m)
    }

    #[test]
    fn sums_rounds_and_prices_cached_input_apart() {
        let entries = [
            usage("claude-sonnet-4-5", 1_000_000, 800_000, 10_000, 0),
            Entry::Notice { text: "x".into() },
            usage("claude-sonnet-4-5", 1_000_000, 1_000_000, 0, 0),
            usage("local-model", 500, 0, 50, 20),
        ];
        let r = UsageReport::from_entries(&entries, &prices());
        assert_eq!(
            (r.rounds, r.input, r.cached_input),
            (3, 2_000_500, 1_800_000)
        );
        assert_eq!((r.output, r.reasoning), (10_050, 20));
        // 0.2M×3 + 0.8M×0.3 + 0.01M×15, then 1M×0.3.
        let want = 0.6 + 0.24 + 0.15 + 0.3;
        assert!((r.cost.unwrap() - want).abs() < 1e-9, "{:?}", r.cost);
        assert_eq!(r.unpriced.get("local-model"), Some(&1));
        let shown = r.to_string();
        assert!(shown.contains("90% cache hits"), "{shown}");
        assert!(shown.contains("(20 reasoning)"), "{shown}");
        assert!(shown.contains("cost: $1.2900"), "{shown}");
        assert!(shown.contains("local-model (1)"), "{shown}");
    }

    #[test]
    fn the_longest_matching_name_prices_a_model() {
        let p = prices();
        assert_eq!(p.of("claude-sonnet-4-5").unwrap().input, 3.0);
        assert_eq!(p.of("claude-sonnet-4-5-20250929").unwrap().input, 4.0);
        assert!(p.of("claude-opus-4-6").is_none());
        let r = UsageReport::from_entries(&[usage("m", 10, 0, 1, 0)], &p);
        assert!(r.to_string().contains("no price set"), "{r}");
        assert!(UsageReport::default().to_string().contains("none used"));
    }

    #[test]
    fn prices_must_be_numbers_of_zero_or_more() {
        let mut p = prices();
        assert!(p.validate().is_ok());
        p.0.insert(
            "bad".into(),
            ModelPrice {
                input: -1.0,
                cached_input: None,
                output: 1.0,
            },
        );
        assert!(p.validate().unwrap_err().contains("input"));
    }
}
