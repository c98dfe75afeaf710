//! A committed file that the code generates: held to what it generates, rewritten on request.

use std::path::Path;

/// Passes when the file at `path` is `generated`; with the environment variable `update` set,
/// writes it instead; otherwise fails, naming the first line that differs and `command`, which
/// writes it.
pub fn hold(path: &Path, generated: &str, update: &str, command: &str) {
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os(update).is_some() {
        std::fs::write(path, generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let first = committed
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(committed.lines().count().min(generated.lines().count()));
    panic!(
        "{} is not what the code generates (first difference on line {}): run `{command}` and \
         review the change",
        path.display(),
        first + 1
    );
}
