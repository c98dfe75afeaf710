//! Sections of the documentation that are generated, not written: each lies between two markers
//! in a Markdown file, and a test compares it with what the code says, or rewrites it when its
//! variable is set.

/// A generated section of a Markdown file of the workspace.
pub struct Section {
    /// The file that holds it, relative to the workspace root (e.g. `docs/access-patterns.md`).
    pub file: &'static str,
    pub begin: &'static str,
    pub end: &'static str,
    /// The environment variable that lets the check rewrite the section instead of failing.
    pub update_var: &'static str,
    /// The command a reader runs to bring it up to date (e.g. `make cost`).
    pub command: &'static str,
}

impl Section {
    /// Compares the file's section with `body` (the text between the markers, which are kept),
    /// or writes it when `update_var` is set.
    pub fn check(&self, body: &str) {
        let file = self.file;
        let path = sam_template::workspace_root().join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let (Some(start), Some(end)) = (text.find(self.begin), text.find(self.end)) else {
            panic!("{file} has no markers {} ... {}", self.begin, self.end);
        };
        let wanted = format!("{}{body}{}", self.begin, self.end);
        let current = &text[start..end + self.end.len()];
        if current == wanted {
            return;
        }
        if std::env::var_os(self.update_var).is_some() {
            let updated = format!(
                "{}{wanted}{}",
                &text[..start],
                &text[end + self.end.len()..]
            );
            std::fs::write(&path, updated).unwrap_or_else(|e| panic!("write {file}: {e}"));
            return;
        }
        panic!(
            "{file}'s section after {} differs from what the code says: run `{}` and review \
             the change.\n--- {file}\n{current}\n--- generated\n{wanted}",
            self.begin, self.command
        );
    }
}
