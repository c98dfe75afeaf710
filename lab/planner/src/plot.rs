//! The plan's heat as a chart: the hottest partition keys' peak as a share of their limit.

use crate::sim::{Heat, PARTITION_RCU, PARTITION_WCU};

/// Keys charted.
const KEYS: usize = 16;

/// A bar per hot key: its peak read or write rate (the nearer its limit) in % of that limit, on a
/// log scale; red past the limit, orange past 70%.
pub fn heat_svg(name: &str, heat: &Heat) -> String {
    let rows: Vec<(String, f64, &str)> = heat
        .keys
        .iter()
        .take(KEYS)
        .map(|k| {
            let (r, _) = k.peak_rcu();
            let (w, _) = k.peak_wcu();
            let (pct, what) = if r / PARTITION_RCU >= w / PARTITION_WCU {
                (r / PARTITION_RCU * 100.0, "R")
            } else {
                (w / PARTITION_WCU * 100.0, "W")
            };
            let fill = if pct > 100.0 {
                "#c0392b"
            } else if pct > 70.0 {
                "#e67e22"
            } else {
                "#7f8c8d"
            };
            (format!("{} {} ({what})", k.index.name(), k.pk), pct, fill)
        })
        .collect();
    devkit::svg::bars(
        &format!("{name}: peak % of the partition limit (log scale)"),
        &rows,
    )
}
