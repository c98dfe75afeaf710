//! Condition and update expressions, with every attribute name and value behind a placeholder
//! (`#n0`, `:v0`): no reserved-word surprises (`Name`, `Status`), no values spliced into text.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use keys::attr;

/// Sets a condition expression and every placeholder of the request on an SDK builder. The
/// single-item requests and the parts of a transaction each have their own builder type with
/// the same three setters: this is the one place they are called.
macro_rules! with_expressions {
    ($builder:expr, $condition:expr, $placeholders:expr) => {
        $builder
            .set_condition_expression($condition)
            .set_expression_attribute_names($placeholders.names())
            .set_expression_attribute_values($placeholders.values())
    };
}
pub(crate) use with_expressions;

/// The placeholders of one request's expressions.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    pub names: HashMap<String, String>,
    pub values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    pub fn name(&mut self, name: &str) -> String {
        if let Some((p, _)) = self.names.iter().find(|(_, n)| n.as_str() == name) {
            return p.clone();
        }
        let p = format!("#n{}", self.names.len());
        self.names.insert(p.clone(), name.to_owned());
        p
    }

    pub fn value(&mut self, value: AttributeValue) -> String {
        let p = format!(":v{}", self.values.len());
        self.values.insert(p.clone(), value);
        p
    }

    pub fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }

    pub fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

/// A condition on the item a write touches.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// The item exists.
    Exists,
    /// The item does not exist.
    Absent,
    /// The item has no such attribute.
    AttributeAbsent(&'static str),
    Equals(&'static str, AttributeValue),
    /// The attribute differs from the value (an absent attribute differs from everything).
    Differs(&'static str, AttributeValue),
    AtMost(&'static str, AttributeValue),
    AtLeast(&'static str, AttributeValue),
    /// The item has no attribute of this name (a name made at run time).
    NamedAbsent(String),
    /// The attribute of this name (made at run time) is below the value.
    NamedBelow(String, AttributeValue),
    /// The attribute of this name (made at run time) is the value.
    NamedEquals(String, AttributeValue),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
}

impl Condition {
    pub fn and(self, other: Condition) -> Condition {
        Condition::And(Box::new(self), Box::new(other))
    }

    pub fn or(self, other: Condition) -> Condition {
        Condition::Or(Box::new(self), Box::new(other))
    }

    pub(crate) fn render(&self, p: &mut Placeholders) -> String {
        match self {
            Condition::Exists => format!("attribute_exists({})", p.name(attr::PK)),
            Condition::Absent => format!("attribute_not_exists({})", p.name(attr::PK)),
            Condition::AttributeAbsent(a) => format!("attribute_not_exists({})", p.name(a)),
            Condition::Equals(a, v) => format!("{} = {}", p.name(a), p.value(v.clone())),
            Condition::Differs(a, v) => format!("{} <> {}", p.name(a), p.value(v.clone())),
            Condition::AtMost(a, v) => format!("{} <= {}", p.name(a), p.value(v.clone())),
            Condition::AtLeast(a, v) => format!("{} >= {}", p.name(a), p.value(v.clone())),
            Condition::NamedAbsent(a) => format!("attribute_not_exists({})", p.name(a)),
            Condition::NamedBelow(a, v) => format!("{} < {}", p.name(a), p.value(v.clone())),
            Condition::NamedEquals(a, v) => format!("{} = {}", p.name(a), p.value(v.clone())),
            Condition::And(a, b) => format!("({}) AND ({})", a.render(p), b.render(p)),
            Condition::Or(a, b) => format!("({}) OR ({})", a.render(p), b.render(p)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Set {
    To(AttributeValue),
    IfAbsent(AttributeValue),
}

/// An update expression: `SET` attributes, `ADD` to numbers, `REMOVE` attributes; attributes
/// are named in the code, or at run time (`*_named`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    sets: Vec<(&'static str, Set)>,
    named_sets: Vec<(String, AttributeValue)>,
    /// `name = if_not_exists(attribute, 0) + amount`: what `attribute` holds after an `ADD` of
    /// `amount` in the same update (every operand is the item's value before it).
    named_sums: Vec<(String, &'static str, AttributeValue)>,
    adds: Vec<(&'static str, AttributeValue)>,
    removes: Vec<&'static str>,
    named_removes: Vec<String>,
}

impl Update {
    pub fn new() -> Update {
        Update::default()
    }

    pub fn set(mut self, attribute: &'static str, value: AttributeValue) -> Update {
        self.sets.push((attribute, Set::To(value)));
        self
    }

    /// Sets the attribute only if the item does not have it yet (`if_not_exists`).
    pub fn set_if_absent(mut self, attribute: &'static str, value: AttributeValue) -> Update {
        self.sets.push((attribute, Set::IfAbsent(value)));
        self
    }

    /// Sets an attribute whose name is made at run time.
    pub fn set_named(mut self, attribute: String, value: AttributeValue) -> Update {
        self.named_sets.push((attribute, value));
        self
    }

    /// Sets an attribute whose name is made at run time to `attribute`'s value (0 if absent)
    /// plus `amount`: with `.add(attribute, amount)` in the same update, the value `attribute`
    /// has after it.
    pub fn set_named_to_sum(
        mut self,
        name: String,
        attribute: &'static str,
        amount: i64,
    ) -> Update {
        self.named_sums.push((name, attribute, model::n(amount)));
        self
    }

    /// Removes an attribute whose name is made at run time (nothing happens if it is absent).
    pub fn remove_named(mut self, attribute: String) -> Update {
        self.named_removes.push(attribute);
        self
    }

    /// Adds to a number (creating it at 0 first).
    pub fn add(mut self, attribute: &'static str, amount: i64) -> Update {
        self.adds.push((attribute, model::n(amount)));
        self
    }

    /// Removes an attribute (nothing happens if it is absent).
    pub fn remove(mut self, attribute: &'static str) -> Update {
        self.removes.push(attribute);
        self
    }

    /// Sets an index key's two attributes.
    pub fn set_key<S: keys::KeySpace>(self, key: &keys::Key<S>) -> Update {
        self.set(S::PK, model::s(key.pk()))
            .set(S::SK, model::s(key.sk()))
    }

    /// Sets an index key, or removes it (`None`): the item leaves that index.
    pub fn set_or_remove_key<S: keys::KeySpace>(self, key: Option<&keys::Key<S>>) -> Update {
        match key {
            Some(key) => self.set_key(key),
            None => self.remove(S::PK).remove(S::SK),
        }
    }

    pub(crate) fn render(&self, p: &mut Placeholders) -> String {
        let mut out = Vec::new();
        let mut sets: Vec<String> = self
            .sets
            .iter()
            .map(|(a, v)| {
                let name = p.name(a);
                match v {
                    Set::To(v) => format!("{name} = {}", p.value(v.clone())),
                    Set::IfAbsent(v) => {
                        format!("{name} = if_not_exists({name}, {})", p.value(v.clone()))
                    }
                }
            })
            .collect();
        for (name, value) in &self.named_sets {
            sets.push(format!("{} = {}", p.name(name), p.value(value.clone())));
        }
        for (name, attribute, amount) in &self.named_sums {
            let (name, attribute) = (p.name(name), p.name(attribute));
            let (zero, amount) = (p.value(model::n(0)), p.value(amount.clone()));
            sets.push(format!(
                "{name} = if_not_exists({attribute}, {zero}) + {amount}"
            ));
        }
        if !sets.is_empty() {
            out.push(format!("SET {}", sets.join(", ")));
        }
        if !self.adds.is_empty() {
            let adds: Vec<String> = self
                .adds
                .iter()
                .map(|(a, v)| format!("{} {}", p.name(a), p.value(v.clone())))
                .collect();
            out.push(format!("ADD {}", adds.join(", ")));
        }
        let mut removes: Vec<String> = self.removes.iter().map(|a| p.name(a)).collect();
        for name in &self.named_removes {
            removes.push(p.name(name));
        }
        if !removes.is_empty() {
            out.push(format!("REMOVE {}", removes.join(", ")));
        }
        out.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{n, s};

    #[test]
    fn expressions_use_placeholders_for_every_name_and_value() {
        let mut p = Placeholders::default();
        let cond = Condition::Exists.and(
            Condition::AttributeAbsent("LastEventId").or(Condition::AtMost("LastEventId", s("E"))),
        );
        assert_eq!(
            cond.render(&mut p),
            "(attribute_exists(#n0)) AND ((attribute_not_exists(#n1)) OR (#n1 <= :v0))"
        );
        let update = Update::new()
            .set("Status", s("SHIPPED"))
            .set_if_absent("CreatedAt", s("now"))
            .add("Revision", 1)
            .remove("GSI1PK");
        assert_eq!(
            update.render(&mut p),
            "SET #n2 = :v1, #n3 = if_not_exists(#n3, :v2) ADD #n4 :v3 REMOVE #n5"
        );
        assert_eq!(p.names["#n1"], "LastEventId");
        assert_eq!(p.values[":v3"], n(1));
    }

    #[test]
    fn names_made_at_run_time_take_placeholders_too() {
        let mut p = Placeholders::default();
        let cond = Condition::NamedAbsent("Mark_k1".into())
            .or(Condition::NamedBelow("Mark_k1".into(), s("5")));
        assert_eq!(
            cond.render(&mut p),
            "(attribute_not_exists(#n0)) OR (#n0 < :v0)"
        );
        let update = Update::new()
            .add("Count", 1)
            .set_named("Mark_k1".into(), s("9"))
            .remove_named("Mark_old".into());
        assert_eq!(
            update.render(&mut p),
            "SET #n0 = :v1 ADD #n1 :v2 REMOVE #n2"
        );
        assert_eq!(p.names["#n2"], "Mark_old");
    }
}
