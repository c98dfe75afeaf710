//! Each command's flags, declared once in a small table ([`Command`]): the parser and the usage
//! line both read it. A word the table does not name (a typo such as `--dryrun`, a stray
//! argument) is refused before anything runs, exit status 2 with the usage line: a command never
//! goes ahead with a flag it ignored. `--help` prints the usage.

use std::str::FromStr;

/// The flags every command that works on a table takes ([`crate::target`]), before its own
/// ([`Command::target`]).
pub const FLAGS: [Flag; 4] = [
    Flag::value("--endpoint", "URL"),
    Flag::value("--table", "NAME"),
    Flag::value("--stack", "NAME"),
    Flag::value("--confirm", "ACCOUNT"),
];

/// A refusal or a usage error: said on stderr, exit status 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// One flag: its name and, for a flag that takes a value, the value's placeholder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flag {
    pub name: &'static str,
    /// `Some("SECONDS")`: takes a value; `None`: a switch.
    pub value: Option<&'static str>,
}

impl Flag {
    pub const fn switch(name: &'static str) -> Flag {
        Flag { name, value: None }
    }

    pub const fn value(name: &'static str, placeholder: &'static str) -> Flag {
        Flag {
            name,
            value: Some(placeholder),
        }
    }

    fn shown(&self) -> String {
        match self.value {
            Some(v) => format!("{} {v}", self.name),
            None => self.name.to_owned(),
        }
    }
}

/// A command: its name, whether it works on a local or deployed table (then it takes
/// [`FLAGS`] first), and its own flags.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    pub name: &'static str,
    pub target: bool,
    pub flags: &'static [Flag],
    /// `(flag, other)`: `flag` is refused with `other` (a dry run of something that writes), or,
    /// when `other` starts with `!`, without it (a flag that only shapes another).
    pub rules: &'static [(&'static str, &'static str)],
}

/// `--help` was asked for: the usage, on stdout, exit status 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Help(pub String);

impl std::fmt::Display for Help {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Help {}

/// Why parsing stopped: a refusal (exit 2) or `--help` (exit 0).
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    Refused(Refused),
    Help(Help),
}

impl From<Stop> for Box<dyn std::error::Error> {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Refused(r) => Box::new(r),
            Stop::Help(h) => Box::new(h),
        }
    }
}

impl Command {
    /// Every flag the command takes, the target's first.
    fn all(&self) -> impl Iterator<Item = &'static Flag> + '_ {
        let target: &'static [Flag] = if self.target { &FLAGS } else { &[] };
        target.iter().chain(self.flags)
    }

    /// `usage: reconcile (--endpoint URL | --table NAME | --stack NAME) [--confirm ACCOUNT] ...`
    pub fn usage(&self) -> String {
        let mut line = format!("usage: {}", self.name);
        if self.target {
            let [endpoint, table, stack, confirm] = FLAGS;
            line += &format!(
                " ({} | {} | {}) [{}]",
                endpoint.shown(),
                table.shown(),
                stack.shown(),
                confirm.shown()
            );
        }
        for flag in self.flags {
            line += &format!(" [{}]", flag.shown());
        }
        line
    }

    fn refuse(&self, why: String) -> Stop {
        Stop::Refused(Refused(format!("{}: {why}\n{}", self.name, self.usage())))
    }

    /// Reads `args` (without the program name) against the table of flags.
    pub fn parse(&self, args: &[String]) -> Result<Given, Stop> {
        let mut given = Given {
            command: *self,
            values: Vec::new(),
        };
        let mut words = args.iter();
        while let Some(word) = words.next() {
            if word == "--help" || word == "-h" {
                return Err(Stop::Help(Help(self.usage())));
            }
            let Some(flag) = self.all().find(|f| f.name == word) else {
                return Err(self.refuse(self.unknown(word)));
            };
            if given.values.iter().any(|(name, _)| *name == flag.name) {
                return Err(self.refuse(format!("{word} given twice")));
            }
            let value = match flag.value {
                None => None,
                Some(placeholder) => Some(
                    words
                        .next()
                        .filter(|v| !v.starts_with("--"))
                        .cloned()
                        .ok_or_else(|| {
                            self.refuse(format!("{word} needs a value ({placeholder})"))
                        })?,
                ),
            };
            given.values.push((flag.name, value));
        }
        let has = |name: &str| given.values.iter().any(|(n, _)| *n == name);
        for &(flag, other) in self.rules {
            match other.strip_prefix('!') {
                Some(needed) if has(flag) && !has(needed) => {
                    return Err(self.refuse(format!("{flag} is only taken with {needed}")));
                }
                None if has(flag) && has(other) => {
                    return Err(self.refuse(format!("{flag} and {other} cannot go together")));
                }
                _ => {}
            }
        }
        Ok(given)
    }

    /// What to say of a word the command does not take, with the flag it most likely meant.
    fn unknown(&self, word: &str) -> String {
        if !word.starts_with('-') {
            return format!("unexpected argument {word:?}: every value follows its flag");
        }
        let near = self
            .all()
            .map(|f| (edits(word, f.name), f.name))
            .min()
            .filter(|(d, _)| *d <= 2);
        match near {
            Some((_, name)) => format!("unknown flag {word} (did you mean {name}?)"),
            None => format!("unknown flag {word}"),
        }
    }
}

/// `make seed`: DynamoDB Local only, at `--endpoint` (or `AWS_ENDPOINT_URL_DYNAMODB`): named,
/// never a default port, so that a second stack's seed never lands in the first's table.
pub const SEED: Command = Command {
    name: "seed",
    target: false,
    flags: &[
        Flag::value("--endpoint", "URL"),
        Flag::value("--table", "NAME"),
        Flag::value("--size", "small|large"),
        Flag::value("--layout", "one-table|table-per-context"),
    ],
    rules: &[],
};

/// `make compare`: DynamoDB Local only (`AWS_ENDPOINT_URL_DYNAMODB`).
pub const COMPARE: Command = Command {
    name: "compare",
    target: false,
    flags: &[
        Flag::value("--table", "NAME"),
        Flag::value("--size", "small|medium|large"),
    ],
    rules: &[],
};

/// `make reconcile`.
pub const RECONCILE: Command = Command {
    name: "reconcile",
    target: true,
    flags: &[
        Flag::switch("--repair"),
        Flag::value("--settle", "SECONDS"),
        Flag::value("--segments", "N"),
        Flag::value("--layout", "one-table|table-per-context"),
    ],
    rules: &[],
};

/// `make migrate`.
pub const MIGRATE: Command = Command {
    name: "migrate",
    target: true,
    flags: &[
        Flag::switch("--dry-run"),
        Flag::value("--layout", "one-table|table-per-context"),
    ],
    rules: &[],
};

/// `make move-index`; `--readers`, `--writers`, `--customers` and `--switch-early` shape
/// `--rehearse`.
pub const MOVE_INDEX: Command = Command {
    name: "move_index",
    target: true,
    flags: &[
        Flag::switch("--cleanup"),
        Flag::switch("--dry-run"),
        Flag::switch("--rehearse"),
        Flag::value("--readers", "N"),
        Flag::value("--writers", "N"),
        Flag::value("--customers", "N"),
        Flag::switch("--switch-early"),
        Flag::value("--layout", "one-table|table-per-context"),
    ],
    // A rehearsal writes (it moves the indexes of the table given and places orders): it has
    // no dry run, and it runs its own clean-up.
    rules: &[
        ("--rehearse", "--dry-run"),
        ("--rehearse", "--cleanup"),
        ("--readers", "!--rehearse"),
        ("--writers", "!--rehearse"),
        ("--customers", "!--rehearse"),
        ("--switch-early", "!--rehearse"),
    ],
};

/// `make workbench`: no flags (DynamoDB Local at `AWS_ENDPOINT_URL_DYNAMODB`).
pub const WORKBENCH: Command = Command {
    name: "workbench",
    target: false,
    flags: &[],
    rules: &[],
};

/// Every command of `lab/tools/src/bin`, for the docs' check.
pub const COMMANDS: [Command; 5] = [SEED, RECONCILE, MIGRATE, MOVE_INDEX, WORKBENCH];

/// The edit distance between two words (Levenshtein), for the suggestion.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The flags given to a command, each at most once.
#[derive(Debug, Clone)]
pub struct Given {
    command: Command,
    values: Vec<(&'static str, Option<String>)>,
}

impl PartialEq for Given {
    fn eq(&self, other: &Given) -> bool {
        self.values == other.values
    }
}

impl Given {
    fn declared(&self, name: &str) {
        debug_assert!(
            self.command.all().any(|f| f.name == name),
            "{} does not declare {name}",
            self.command.name
        );
    }

    /// Whether the command declares the flag `name`.
    pub fn command_takes(&self, name: &str) -> bool {
        self.command.all().any(|f| f.name == name)
    }

    /// Whether the switch `name` is given.
    pub fn flag(&self, name: &str) -> bool {
        self.declared(name);
        self.values.iter().any(|(n, _)| *n == name)
    }

    /// The value given to the flag `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.declared(name);
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The flag `name`'s value as a number, `default` when it is not given.
    pub fn number<T: FromStr>(&self, name: &str, default: T) -> Result<T, Refused> {
        self.value(name).map_or(Ok(default), |v| {
            v.parse()
                .map_err(|_| Refused(format!("{name} takes a whole number, not {v:?}")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command with a switch and a flag taking a value.
    const TRY: Command = Command {
        name: "migrate",
        target: true,
        flags: &[
            Flag::switch("--dry-run"),
            Flag::value("--settle", "SECONDS"),
        ],
        rules: &[],
    };

    fn parse(words: &str) -> Result<Given, Stop> {
        let args: Vec<String> = words.split_whitespace().map(str::to_owned).collect();
        TRY.parse(&args)
    }

    fn refusal(words: &str) -> String {
        match parse(words) {
            Err(Stop::Refused(Refused(why))) => why,
            other => panic!("{words:?} not refused: {other:?}"),
        }
    }

    #[test]
    fn the_usage_line_comes_from_the_table() {
        assert_eq!(
            TRY.usage(),
            "usage: migrate (--endpoint URL | --table NAME | --stack NAME) [--confirm ACCOUNT] \
             [--dry-run] [--settle SECONDS]"
        );
        assert_eq!(
            SEED.usage(),
            "usage: seed [--endpoint URL] [--table NAME] [--size small|large] \
             [--layout one-table|table-per-context]"
        );
        assert_eq!(WORKBENCH.usage(), "usage: workbench");
    }

    #[test]
    fn known_flags_are_read_and_anything_else_is_refused_with_the_usage() {
        let given = parse("--table t --dry-run --settle 5").unwrap();
        assert!(given.flag("--dry-run"));
        assert_eq!(
            (given.value("--table"), given.value("--settle")),
            (Some("t"), Some("5"))
        );
        assert_eq!(given.number("--settle", 30u64), Ok(5));
        assert!(!parse("--table t").unwrap().flag("--dry-run"));
        let typo = refusal("--table t --dryrun");
        assert!(
            typo.starts_with(
                "migrate: unknown flag --dryrun (did you mean --dry-run?)\nusage: migrate"
            ),
            "{typo}"
        );
        assert!(refusal("--table t --whatever").ends_with(&TRY.usage()));
        assert!(refusal("--table t dry-run").contains("unexpected argument \"dry-run\""));
        assert!(refusal("--table t --settle").contains("--settle needs a value (SECONDS)"));
        assert!(refusal("--settle --dry-run").contains("--settle needs a value"));
        assert!(refusal("--dry-run --dry-run").contains("--dry-run given twice"));
        assert!(refusal("--settle=5").contains("unknown flag --settle=5"));
        assert_eq!(
            parse("--table t --settle x")
                .unwrap()
                .number("--settle", 0u64),
            Err(Refused("--settle takes a whole number, not \"x\"".into()))
        );
        assert_eq!(
            parse("--table t --help"),
            Err(Stop::Help(Help(TRY.usage())))
        );
    }

    #[test]
    fn edits_count_insertions_deletions_and_substitutions() {
        assert_eq!(edits("--dryrun", "--dry-run"), 1);
        assert_eq!(edits("--repiar", "--repair"), 2);
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("same", "same"), 0);
    }

    /// docs/operations.md states every command's usage line as the table makes it.
    #[test]
    fn the_docs_state_every_usage_line() {
        let docs = sam_template::workspace_root().join("docs/operations.md");
        let docs = std::fs::read_to_string(docs).unwrap();
        for command in COMMANDS {
            assert!(docs.contains(&command.usage()), "{}", command.usage());
        }
    }
}
