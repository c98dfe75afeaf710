//! The tables of a deployment's `TableLayout`, by context: one table for every context, or each
//! context's own (`sam_template::context_table`), named from one base name as the local stack
//! names them (`sam_template::local_table_name`: `local-table`, `local-table-reviews`, ...).
//! What the loaders write goes to the table of the context whose item it is.

use keys::{Space, registry};
use model::Item;
use store::Table;

use crate::flags::Refused;

pub use sam_template::layout::{ONE_TABLE, TABLE_PER_CONTEXT};

/// Each context's table (the same one four times with one table).
#[derive(Debug, Clone)]
pub struct Tables {
    pub commerce: Table,
    pub reviews: Table,
    pub learning: Table,
    pub hr: Table,
}

impl Tables {
    /// Every context in `table`.
    pub fn one(table: &Table) -> Tables {
        Tables {
            commerce: table.clone(),
            reviews: table.clone(),
            learning: table.clone(),
            hr: table.clone(),
        }
    }

    /// The tables `layout` gives a stack whose `Table` is `table`.
    pub fn of_layout(table: &Table, layout: &str) -> Result<Tables, Refused> {
        let of = |context: &str| {
            let logical = sam_template::context_table(context);
            table.named(sam_template::local_table_name(table.name(), &logical))
        };
        match layout {
            ONE_TABLE => Ok(Tables::one(table)),
            TABLE_PER_CONTEXT => Ok(Tables {
                commerce: table.clone(),
                reviews: of("reviews"),
                learning: of("learning"),
                hr: of("hr"),
            }),
            other => Err(Refused(format!(
                "--layout: {ONE_TABLE} or {TABLE_PER_CONTEXT}, not {other}"
            ))),
        }
    }

    /// The table of `context` (`keys`' names); the site-wide counts (`derived`) are commerce's.
    pub fn of_context(&self, context: &str) -> &Table {
        match context {
            "reviews" => &self.reviews,
            "learning" => &self.learning,
            "hr" => &self.hr,
            _ => &self.commerce,
        }
    }

    /// The table `item` belongs in: its key's context, by the registry.
    pub fn of_item(&self, item: &Item) -> &Table {
        let text = |a: &str| item.get(a).and_then(|v| v.as_s().ok()).map(String::as_str);
        let (pk, sk) = (text(keys::attr::PK), text(keys::attr::SK));
        let kinds = registry::classify(Space::Base, pk.unwrap_or(""), sk.unwrap_or(""));
        self.of_context(kinds.first().map_or("commerce", |k| k.context))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_item_goes_to_its_context_s_table() {
        let base = Table::new(devkit::client(), "local-table");
        let tables = Tables::of_layout(&base, TABLE_PER_CONTEXT).unwrap();
        let names = [
            &tables.commerce,
            &tables.reviews,
            &tables.learning,
            &tables.hr,
        ]
        .map(|t| t.name().to_owned());
        assert_eq!(
            names,
            [
                "local-table",
                "local-table-reviews",
                "local-table-learning",
                "local-table-hr"
            ]
        );
        let item = |pk: &str, sk: &str| -> Item {
            [(keys::attr::PK, pk), (keys::attr::SK, sk)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), model::s(v)))
                .collect()
        };
        let at = |pk, sk| tables.of_item(&item(pk, sk)).name().to_owned();
        assert_eq!(at("CUSTOMER#123", "A"), "local-table");
        assert_eq!(at("EMPLOYEE#E1", "A"), "local-table-hr");
        assert_eq!(
            at("BOOK#9780261102354", "BOOK#9780261102354"),
            "local-table-reviews"
        );
        let one = Tables::of_layout(&base, ONE_TABLE).unwrap();
        assert_eq!(one.of_item(&item("EMPLOYEE#E1", "A")).name(), "local-table");
        assert!(Tables::of_layout(&base, "two").is_err());
    }
}
