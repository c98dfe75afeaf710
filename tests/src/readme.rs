//! Sections of the README that are generated, not written: each lies between two markers, and a
//! test compares it with what the code says, or rewrites it when its variable is set.

/// A generated section of README.md.
pub struct Section {
    pub begin: &'static str,
    pub end: &'static str,
    /// The environment variable that lets the check rewrite the section instead of failing.
    pub update_var: &'static str,
    /// The command a reader runs to bring it up to date (e.g. `make cost`).
    pub command: &'static str,
}

impl Section {
    /// Compares the README's section with `body` (the text between the markers, which are
    /// kept), or writes it when `update_var` is set.
    pub fn check(&self, body: &str) {
        let path = template::workspace_root().join("README.md");
        let readme = std::fs::read_to_string(&path).expect("README.md");
        let (Some(start), Some(end)) = (readme.find(self.begin), readme.find(self.end)) else {
            panic!("README.md has no markers {} ... {}", self.begin, self.end);
        };
        let wanted = format!("{}{body}{}", self.begin, self.end);
        let current = &readme[start..end + self.end.len()];
        if current == wanted {
            return;
        }
        if std::env::var_os(self.update_var).is_some() {
            let updated = format!(
                "{}{wanted}{}",
                &readme[..start],
                &readme[end + self.end.len()..]
            );
            std::fs::write(&path, updated).expect("write README.md");
            return;
        }
        panic!(
            "README.md's section after {} differs from what the code says: run `{}` and review \
             the change.\n--- README\n{current}\n--- generated\n{wanted}",
            self.begin, self.command
        );
    }
}
