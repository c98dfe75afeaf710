//! Every relative link of the documentation leads somewhere: README.md, CONTRIBUTING.md and every
//! page under docs/. A link or image `[text](target)` whose target is a path must name a file or
//! directory that exists, relative to the page that links it; a `#fragment`, on its own or after
//! a Markdown file, must be the anchor GitHub gives one of that file's headings. Web addresses
//! (`http://`, `https://`, `mailto:`) are not followed. Code (fenced blocks and `inline spans`)
//! holds no links.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The pages whose links are checked, relative to the workspace root.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The lines of a page outside fenced code blocks, with inline code spans blanked out.
fn prose(text: &str) -> Vec<String> {
    let mut fence: Option<String> = None;
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            lines.push(String::new());
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed
                .chars()
                .take_while(|&c| c == '`' || c == '~')
                .collect();
            fence = Some(marker);
            lines.push(String::new());
            continue;
        }
        lines.push(without_code_spans(line));
    }
    lines
}

/// `line` with the contents of every code span replaced by spaces (a span opened by N backticks
/// closes at the next run of exactly N).
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let n = chars[j..].iter().take_while(|&&c| c == '`').count();
                if n == run {
                    close = Some(j);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                out.extend(std::iter::repeat_n(' ', j + run - i));
                i = j + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The targets of the inline links and images `[text](target "title")` of a line of prose, and
/// of a reference definition `[label]: target`.
fn targets(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(close) = trimmed.find("]:")
    {
        let target = trimmed[close + 2..].split_whitespace().next().unwrap_or("");
        if !target.is_empty() {
            found.push(target.trim_matches(['<', '>']).to_owned());
        }
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(at) = line[i..].find("](") {
        let start = i + at + 2;
        // The target ends at the parenthesis that closes the one after `]` (targets may hold
        // balanced parentheses), or at a space before a title.
        let mut depth = 0;
        let mut end = start;
        while end < bytes.len() {
            match bytes[end] {
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b' ' if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let target = line[start..end].trim_matches(['<', '>']);
        if !target.is_empty() {
            found.push(target.to_owned());
        }
        i = end.max(start);
    }
    found
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, every other character that is not
/// a letter, a digit, `-` or `_` dropped (links in the heading count by their text).
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](target)` counts as `text`.
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a page: one per heading (a repeated one gets `-1`, `-2`, ... as on GitHub),
/// and any `<a name="...">` or `id="..."` it declares.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for line in prose(text) {
        let trimmed = line.trim_start();
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && trimmed[level..].starts_with(' ') {
            let base = slug(trimmed[level..].trim().trim_end_matches('#').trim());
            let mut anchor = base.clone();
            let mut n = 0;
            while anchors.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            anchors.insert(anchor);
        }
        for attr in ["name=\"", "id=\""] {
            let mut rest = line.as_str();
            while let Some(at) = rest.find(attr) {
                rest = &rest[at + attr.len()..];
                if let Some(end) = rest.find('"') {
                    anchors.insert(rest[..end].to_owned());
                }
            }
        }
    }
    anchors
}

fn is_external(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    ["http://", "https://", "mailto:", "ftp://"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
}

/// `%20` and the like, as a browser reads a link's path.
fn percent_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        if let (b'%', Some(Ok(b))) = (bytes[i], hex.map(|h| u8::from_str_radix(h, 16))) {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What is wrong with each relative link of `page` (empty: nothing).
fn broken_links(root: &Path, page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let name = page
        .strip_prefix(root)
        .unwrap_or(page)
        .display()
        .to_string();
    let dir = page.parent().expect("a page is in a directory");
    let mut broken = Vec::new();
    for (n, line) in prose(&text).iter().enumerate() {
        for target in targets(line) {
            if is_external(&target) {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let path = path.split('?').next().unwrap_or_default();
            let file = if path.is_empty() {
                page.to_path_buf()
            } else if let Some(from_root) = path.strip_prefix('/') {
                root.join(percent_decoded(from_root))
            } else {
                dir.join(percent_decoded(path))
            };
            let at = format!("{name}:{}: ({target})", n + 1);
            if !file.exists() {
                broken.push(format!("{at}: no such file {}", file.display()));
                continue;
            }
            let Some(fragment) = fragment.filter(|f| !f.is_empty()) else {
                continue;
            };
            if file.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let target_text = std::fs::read_to_string(&file).unwrap_or_default();
            if !anchors(&target_text).contains(&percent_decoded(fragment).to_lowercase()) {
                broken.push(format!(
                    "{at}: {} has no heading whose anchor is #{fragment}",
                    file.strip_prefix(root).unwrap_or(&file).display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_documentation_leads_somewhere() {
    let root = sam_template::workspace_root();
    let pages = pages(&root);
    assert!(
        pages.iter().any(|p| p.starts_with(root.join("docs"))),
        "docs/ has pages"
    );
    let broken: Vec<String> = pages
        .iter()
        .filter(|page| page.exists())
        .flat_map(|page| broken_links(&root, page))
        .collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug("GSI1, overloaded"), "gsi1-overloaded");
    assert_eq!(
        slug("Sign-in and who may do what"),
        "sign-in-and-who-may-do-what"
    );
    assert_eq!(
        slug("Learning (built; seed 001)"),
        "learning-built-seed-001"
    );
    assert_eq!(slug("`make run` and snake_case"), "make-run-and-snake_case");
    assert_eq!(slug("See [the page](x.md) now"), "see-the-page-now");
    assert_eq!(slug("C1–C7: what’s built"), "c1c7-whats-built");
}

#[test]
fn repeated_headings_are_numbered_and_code_holds_no_headings() {
    let text = "# A\n## Notes\n```sh\n# not a heading\n```\n## Notes\n<a name=\"here\"></a>\n";
    let anchors = anchors(text);
    let expected: BTreeSet<String> = ["a", "notes", "notes-1", "here"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(anchors, expected);
}

#[test]
fn links_are_found_outside_code_only() {
    let lines = prose(
        "See [a](docs/a.md#x) and ![img](b.svg \"title\"), not `[c](d.md)`.\n```\n[e](f.md)\n```\n[ref]: g.md\n",
    );
    let found: Vec<String> = lines.iter().flat_map(|l| targets(l)).collect();
    assert_eq!(found, ["docs/a.md#x", "b.svg", "g.md"]);
    assert_eq!(percent_decoded("a%20b.md"), "a b.md");
}
