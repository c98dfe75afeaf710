//! Charts for the reports the project writes (the bench's, the capacity planner's): SVG by hand,
//! no plotting dependency.

use std::fmt::Write as _;

/// A horizontal bar chart on a log scale, one bar per row (label, value, fill colour), its value
/// written beside it.
pub fn bars(title: &str, rows: &[(String, f64, &str)]) -> String {
    let (label_w, bar_w, row_h, top) = (250.0, 480.0, 22.0, 40.0);
    let width = label_w + bar_w + 90.0;
    let height = top + row_h * rows.len() as f64 + 30.0;
    let max = rows.iter().map(|r| r.1).fold(1.0, f64::max);
    let min = rows
        .iter()
        .map(|r| r.1)
        .filter(|v| *v > 0.0)
        .fold(max, f64::min);
    // Decades from below the smallest value to above the largest.
    let (lo, hi) = (
        min.log10().floor() - 0.0,
        max.log10().ceil().max(min.log10().floor() + 1.0),
    );
    let x = |v: f64| label_w + bar_w * ((v.max(10f64.powf(lo)).log10() - lo) / (hi - lo));
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let mut decade = lo;
    while decade <= hi {
        let v = 10f64.powf(decade);
        let gx = x(v);
        let _ = writeln!(
            s,
            r##"<line x1="{gx:.1}" y1="{:.1}" x2="{gx:.1}" y2="{:.1}" stroke="#ddd"/><text x="{gx:.1}" y="{:.1}" text-anchor="middle" fill="#666">{}</text>"##,
            top - 5.0,
            height - 25.0,
            height - 10.0,
            if v >= 1.0 {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        );
        decade += 1.0;
    }
    for (i, (label, value, fill)) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect x="{label_w}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/><text x="{:.1}" y="{:.1}">{:.2}</text>"#,
            label_w - 6.0,
            y + row_h * 0.65,
            escape(label),
            y + 3.0,
            (x(*value) - label_w).max(1.0),
            row_h - 6.0,
            fill,
            x(*value) + 4.0,
            y + row_h * 0.65,
            value
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Text made safe inside SVG (or XML) markup.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
