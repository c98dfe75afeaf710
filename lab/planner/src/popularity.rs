//! Which one of a population a request touches: the share of rank k, exactly, and the share of a
//! range of ranks (the tail), from Zipf's law or uniformly.

use crate::workload::Popularity;

/// Ranks below this have their generalised harmonic sums added up exactly; above, the sum is the
/// integral over the midpoints (an error below 1e-9 of the total at this size).
const EXACT: usize = 100_000;

/// The share of each rank of a population of `n`.
#[derive(Debug, Clone)]
pub struct Distribution {
    n: u64,
    s: f64,
    viral: f64,
    /// H(k, s) for k = 0..=min(n, EXACT).
    prefix: Vec<f64>,
    total: f64,
}

impl Distribution {
    pub fn new(n: u64, p: Popularity) -> Distribution {
        let s = p.zipf.unwrap_or(0.0);
        let exact = (n as usize).min(EXACT);
        let mut prefix = Vec::with_capacity(exact + 1);
        let mut h = 0.0;
        prefix.push(0.0);
        for k in 1..=exact {
            h += (k as f64).powf(-s);
            prefix.push(h);
        }
        let mut d = Distribution {
            n,
            s,
            viral: p.viral.unwrap_or(0.0),
            prefix,
            total: 0.0,
        };
        d.total = d.harmonic(n);
        d
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// H(k, s) = sum of i^-s for i in 1..=k.
    fn harmonic(&self, k: u64) -> f64 {
        let k = k.min(self.n);
        if (k as usize) < self.prefix.len() {
            return self.prefix[k as usize];
        }
        let m = (self.prefix.len() - 1) as f64;
        let integral = |x: f64| {
            if (self.s - 1.0).abs() < 1e-12 {
                x.ln()
            } else {
                x.powf(1.0 - self.s) / (1.0 - self.s)
            }
        };
        self.prefix[self.prefix.len() - 1] + integral(k as f64 + 0.5) - integral(m + 0.5)
    }

    /// The share of requests on rank `k` (1-based).
    pub fn mass(&self, k: u64) -> f64 {
        if k == 0 || k > self.n {
            return 0.0;
        }
        let law = (k as f64).powf(-self.s) / self.total;
        let viral = if k == 1 { self.viral } else { 0.0 };
        viral + (1.0 - self.viral) * law
    }

    /// The share of requests on ranks `from..=to`.
    pub fn range(&self, from: u64, to: u64) -> f64 {
        if from > to || from == 0 {
            return 0.0;
        }
        let law = (self.harmonic(to) - self.harmonic(from - 1)) / self.total;
        let viral = if from == 1 { self.viral } else { 0.0 };
        viral + (1.0 - self.viral) * law
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_one_and_fall_with_rank() {
        for (n, s) in [(10, 1.0), (1_000_000, 1.1), (10_000_000, 0.8)] {
            let d = Distribution::new(
                n,
                Popularity {
                    zipf: Some(s),
                    viral: None,
                },
            );
            let top: f64 = (1..=1000).map(|k| d.mass(k)).sum();
            let all = top + d.range(1001, n);
            assert!((all - 1.0).abs() < 1e-6, "{n} {s}: {all}");
            assert!(d.mass(1) > d.mass(2));
        }
    }

    #[test]
    fn uniform_and_viral() {
        let d = Distribution::new(4, Popularity::default());
        assert_eq!(d.mass(3), 0.25);
        let v = Distribution::new(
            4,
            Popularity {
                zipf: None,
                viral: Some(0.6),
            },
        );
        assert!((v.mass(1) - 0.7).abs() < 1e-12);
        assert!((v.range(2, 4) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn zipf_rank_one_of_ten_is_the_harmonic_share() {
        let d = Distribution::new(
            10,
            Popularity {
                zipf: Some(1.0),
                viral: None,
            },
        );
        let h10: f64 = (1..=10).map(|k| 1.0 / k as f64).sum();
        assert!((d.mass(1) - 1.0 / h10).abs() < 1e-12);
    }
}
