//! The planner's model of each pattern held to the code (issue 38, section 3): the function's
//! sample request, as `lab/planner/profiles.json` records what the code sent (the tests crate's
//! `samples` fails when the code and the file differ), against what the model says one call of
//! the same shape sends: read and write units on the table and on each index, the request's own
//! and its stream handlers'. A change to a function's requests the model does not follow fails
//! here. Each is held in each `IndexDesign` its function was profiled in: the samples of the
//! functions whose requests depend on it are measured in the other design too (on that design's
//! table, with it as their setting).

use std::collections::BTreeMap;

use keys::indexes::IndexDesign;
use planner::{
    Workload,
    model::{self, Sizes},
    profile::{self, Profile, Sent},
    sim,
    workload::{MODELLED, PatternLoad},
};

/// Units by (index, read or write, the request's or its stream handlers').
type Units = BTreeMap<(String, &'static str, &'static str), f64>;

fn measured(p: &Profile) -> Units {
    let mut u = Units::new();
    let mut add = |sent: &[Sent], by: &'static str| {
        for s in sent {
            if s.read_units > 0.0 {
                *u.entry((s.index.clone(), "read", by)).or_default() += s.read_units;
            }
            for w in &s.writes {
                *u.entry((w.index.clone(), "write", by)).or_default() += w.units;
            }
        }
    };
    add(&p.requests, "request");
    add(&p.fanout, "stream");
    u
}

/// The pattern as the sample sends it: its items, lines and rep, from what the code read.
fn shaped(id: &str, p: &Profile, design: IndexDesign) -> PatternLoad {
    let items = |op: &str| -> u64 {
        p.requests
            .iter()
            .filter(|s| s.operation == op)
            .map(|s| s.items as u64)
            .sum()
    };
    let mut load = PatternLoad {
        id: id.to_owned(),
        rps: 1.0,
        daily: None,
        items: None,
        lines: None,
        rep_share: None,
        replace_share: None,
        popularity: Default::default(),
        shape: None,
    };
    match id {
        // A Query of the user's reviews' keys, then the reviews and the user fetched.
        "R2" if design == IndexDesign::Dedicated => load.items = Some(items("Query")),
        // The collection's head item, then the rest.
        "C1" | "C5" | "R1" | "R2" => load.items = Some(items("Query") - 1),
        "O5" | "O8" | "O14" => load.items = Some(items("Query")),
        "C3" => {
            load.lines = Some(items("BatchGetItem") as u32);
            load.rep_share = Some(if under_rep(p) { 1.0 } else { 0.0 });
        }
        "C6" => load.rep_share = Some(if under_rep(p) { 1.0 } else { 0.0 }),
        "R3" => {
            let replaces = p
                .requests
                .iter()
                .flat_map(|s| &s.writes)
                .any(|w| w.action == "delete");
            load.replace_share = Some(if replaces { 1.0 } else { 0.0 });
        }
        _ => {}
    }
    load
}

/// Whether the rep's quarterly sales did not exist yet: the stream handler's read of them found
/// nothing (the sample runs in the quarter of the day it runs).
fn first_sale_of_the_quarter(p: &Profile) -> bool {
    p.fanout.iter().any(|s| {
        s.operation == "GetItem"
            && s.reads.iter().any(|r| r.starts_with("SALESPERIOD#"))
            && s.items == 0
    })
}

/// Whether the sample's order is under an account rep: it or its stream handlers write a
/// partition of the rep's in GSI1.
fn under_rep(p: &Profile) -> bool {
    p.requests
        .iter()
        .chain(&p.fanout)
        .flat_map(|s| &s.writes)
        .any(|w| w.pk.starts_with("REP#"))
}

fn modelled(load: &PatternLoad, design: IndexDesign) -> Units {
    let w = Workload::parse(&format!(
        "
name: one call
design: {{index_design: {}}}
entities:
  customers: {{count: 1}}
  products: {{count: 1}}
  orders: {{count: 1}}
  reps: {{count: 1}}
  books: {{count: 1}}
  users: {{count: 1}}
  students: {{count: 1}}
  courses: {{count: 1}}
patterns: []
",
        design.as_str()
    ))
    .unwrap();
    let d = sim::design(&w);
    let sizes = Sizes::of(&w, d);
    let mut u = Units::new();
    for draw in model::draws(load, &w, d, &sizes) {
        for t in (draw.touches)(1) {
            let by = if t.handler { "stream" } else { "request" };
            if t.rcu > 0.0 {
                *u.entry((t.index.name().to_owned(), "read", by))
                    .or_default() += t.rcu * draw.per_call;
            }
            if t.wcu > 0.0 {
                *u.entry((t.index.name().to_owned(), "write", by))
                    .or_default() += t.wcu * draw.per_call;
            }
            if let Some(a) = &t.also {
                *u.entry((a.index.name().to_owned(), "write", "stream"))
                    .or_default() += a.wcu * draw.per_call;
            }
        }
    }
    u
}

/// Each modelled pattern's function, profiled in `design`: the pattern id the planner knows it
/// by.
fn modelled_profiles(design: IndexDesign) -> Vec<(&'static str, &'static Profile)> {
    MODELLED
        .iter()
        .filter_map(|id| {
            let function = planner::report::function_of(id);
            let p = profile::of_in(function, design)?;
            // A function serving several patterns was sampled on one of them.
            (p.pattern == *id || p.pattern == "—" || !id.starts_with(char::is_uppercase))
                .then_some((*id, p))
        })
        .collect()
}

/// Where the model of each pattern profiled in `design` differs from what its function sent.
fn differences(design: IndexDesign) -> Vec<String> {
    let mut wrong = Vec::new();
    for (id, p) in modelled_profiles(design) {
        let (code, mut model) = (measured(p), modelled(&shaped(id, p, design), design));
        if id == "C3" && first_sale_of_the_quarter(p) {
            // The model plans the steady state, a rep's ranking key moved (a delete and a put
            // in GSI1); the sample's rep has no sales yet this quarter, so it is only put: one
            // entry's write less (1 unit: an index entry is billed once in a transaction).
            let key = ("GSI1".to_owned(), "write", "stream");
            *model.get_mut(&key).expect("the ranking's move") -= 1.0;
        }
        let keys: std::collections::BTreeSet<_> = code.keys().chain(model.keys()).collect();
        for k in keys {
            let (c, m) = (
                code.get(k).copied().unwrap_or(0.0),
                model.get(k).copied().unwrap_or(0.0),
            );
            if (c - m).abs() > 1e-9 {
                wrong.push(format!(
                    "{id} ({}, {}): {} {} {}: code {c}, model {m}",
                    p.request,
                    design.as_str(),
                    k.0,
                    k.2,
                    k.1
                ));
            }
        }
    }
    wrong
}

#[test]
fn every_modelled_pattern_sends_what_its_function_sends() {
    let wrong = differences(planner::inputs::index_design_default());
    assert!(
        wrong.is_empty(),
        "the model differs from the code:\n{}",
        wrong.join("\n")
    );
}

/// The other index designs' model against the samples measured in them: every modelled
/// pattern whose function takes the design as its setting (R2, O8, R3, C3 for `dedicated`) has
/// its profile there, and the model sends what the code sent (the others' requests are the
/// default deployment's, held above).
#[test]
fn every_modelled_pattern_sends_what_its_function_sends_in_the_other_index_designs() {
    for design in IndexDesign::ALL
        .into_iter()
        .filter(|d| *d != planner::inputs::index_design_default())
    {
        let measured: Vec<&str> = modelled_profiles(design)
            .iter()
            .filter(|(_, p)| p.design.as_deref() == Some(design.as_str()))
            .map(|(id, _)| *id)
            .collect();
        for id in MODELLED {
            let function = planner::report::function_of(id);
            let takes_it = catalogue::function(function)
                .is_some_and(|f| f.needs.settings.contains(&store::INDEX_DESIGN));
            assert_eq!(
                takes_it,
                measured.contains(id),
                "{id} ({function}) in {}: profiled {measured:?}: run `make cost`",
                design.as_str()
            );
        }
        let wrong = differences(design);
        assert!(
            wrong.is_empty(),
            "the model differs from the code in {}:\n{}",
            design.as_str(),
            wrong.join("\n")
        );
    }
}

#[test]
fn most_modelled_patterns_have_a_profile_to_be_held_to() {
    let held: Vec<&str> = modelled_profiles(planner::inputs::index_design_default())
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert!(
        held.len() >= MODELLED.len() - 1,
        "held: {held:?} of {MODELLED:?}"
    );
}
