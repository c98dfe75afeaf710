//! Lines of key code, counted from the source as it is: the items (functions, types, impls,
//! constants) a design needs for the patterns compared, and the machinery under them. A line
//! counts if it holds code: blank lines, comments and doc comments do not, nor a file's unit tests.

use std::path::Path;

/// What to count: whole files (their code outside `#[cfg(test)]` modules), or items of a file,
/// each named by the start of its first line.
pub enum Source {
    File(&'static str),
    Items(&'static str, &'static [&'static str]),
}

/// The code lines of `sources`, relative to the workspace root: the total and one line per source.
pub fn count(root: &Path, sources: &[Source]) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut parts = Vec::new();
    for source in sources {
        let (path, n) = match source {
            Source::File(path) => (path, file_lines(&read(root, path))),
            Source::Items(path, items) => {
                let text = read(root, path);
                let n = items
                    .iter()
                    .map(|item| {
                        item_lines(&text, item).unwrap_or_else(|| {
                            panic!("{path} has no `{item}`: update designs::key_code")
                        })
                    })
                    .sum();
                (path, n)
            }
        };
        let what = match source {
            Source::File(_) => "the file".to_owned(),
            Source::Items(_, items) => items
                .iter()
                .map(|i| format!("`{}`", i.trim_end_matches(['(', ' '])))
                .collect::<Vec<_>>()
                .join(", "),
        };
        parts.push(format!("`{path}` ({what}): {n}"));
        total += n;
    }
    (total, parts)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn is_code(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with("//")
}

/// Code lines of a file, leaving out its `#[cfg(test)]` module(s).
fn file_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            i += 1 + block_len(&lines[i + 1..]);
            continue;
        }
        count += usize::from(is_code(lines[i]));
        i += 1;
    }
    count
}

/// How many lines the block starting at `lines[0]` spans: to the line where its braces close, or
/// its first line ending in `;` if it has no braces.
fn block_len(lines: &[&str]) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for c in code.chars() {
            match c {
                '{' | '(' | '[' => {
                    depth += 1;
                    opened = true;
                }
                '}' | ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        if opened
            && depth <= 0
            && (code.trim_end().ends_with('}') || code.trim_end().ends_with(';'))
        {
            return n + 1;
        }
        if !opened && code.trim_end().ends_with(';') {
            return n + 1;
        }
    }
    lines.len()
}

/// Code lines of the item whose first line starts with `item` (`fn occurrences(`, `impl Period `,
/// `enum Period `...; `pub` left out): `None` if the file has no such item.
fn item_lines(text: &str, item: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|line| {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        t.starts_with(item)
    })?;
    let len = block_len(&lines[start..]);
    Some(
        lines[start..start + len]
            .iter()
            .filter(|l| is_code(l))
            .count(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
/// Doc.
pub fn a(x: u32) -> u32 {
    // note
    x + 1
}

const B: &[u32] = &[
    1,
    2,
];

impl Thing {
    fn c() {}
}

#[cfg(test)]
mod tests {
    fn t() {}
}
";

    #[test]
    fn counts_code_lines_of_items_and_files() {
        assert_eq!(item_lines(TEXT, "fn a("), Some(3));
        assert_eq!(item_lines(TEXT, "const B:"), Some(4));
        assert_eq!(item_lines(TEXT, "impl Thing "), Some(3));
        assert_eq!(item_lines(TEXT, "fn ab("), None);
        assert_eq!(file_lines(TEXT), 10);
    }
}
