//! docs/capacity.md's example workload is a workload the planner reads and plans, and the
//! patterns it says have a model of their own are the ones that do.

use planner::{
    Workload,
    sim::{self, Streams},
    workload::MODELLED,
};

fn doc() -> String {
    std::fs::read_to_string(sam_template::workspace_root().join("docs/capacity.md")).unwrap()
}

#[test]
fn the_docs_example_workload_plans() {
    let doc = doc();
    let from = doc.find("## Writing a workload").expect("the section");
    let start = doc[from..].find("```yaml\n").expect("its example") + from + 8;
    let end = doc[start..].find("```").expect("its end") + start;
    let w = Workload::parse(&doc[start..end]).unwrap_or_else(|e| panic!("{e}"));
    let streams = Streams::uniform(100, 1.0, 20.0, "the test's");
    let heat = sim::run(&w, sim::design(&w), &streams, &mut |_, _| {});
    assert_eq!(heat.rps.len(), w.patterns.len());
}

#[test]
fn the_docs_name_the_modelled_patterns() {
    let doc = doc().split_whitespace().collect::<Vec<_>>().join(" ");
    let listed = MODELLED
        .iter()
        .map(|id| {
            if id.contains('-') {
                format!("`{id}`")
            } else {
                (*id).to_owned()
            }
        })
        .collect::<Vec<_>>();
    let (last, rest) = listed.split_last().unwrap();
    let sentence = format!("{} and {last}", rest.join(", "));
    assert!(
        doc.contains(&sentence),
        "docs/capacity.md does not list: {sentence}"
    );
}
