//! What the planner's tests share: a workload from text, planned on uniform streams, and its
//! whole report.

use planner::{
    Workload, report,
    sim::{self, Heat, Streams},
};

pub fn parse(text: &str) -> Workload {
    Workload::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

pub fn streams() -> Streams {
    Streams::uniform(100, 1.0, 20.0, "the test's")
}

pub fn plan(w: &Workload) -> Heat {
    sim::run(w, sim::design(w), &streams(), &mut |_, _| {})
}

pub fn markdown(w: &Workload, heat: &Heat) -> String {
    report::markdown(&report::Plan {
        workload: w,
        file: "test.yaml",
        heat,
        status: None,
        counters: None,
        durations: &report::Durations::load(&sam_template::workspace_root()),
        streams: &streams(),
        svg: None,
        other_designs: &[],
    })
}
