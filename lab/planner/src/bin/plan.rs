//! `make plan`: plans every workload under `lab/planner/workloads/` (or the files given) and writes
//! each report to `lab/planner/reports/<workload>.md`. It takes no flags: a word that looks like one
//! (a typo, `--help`) gets the usage, before anything is planned (exit 2; 0 for `--help`).

use std::{io::Write as _, path::PathBuf, time::Instant};

use planner::{Workload, analysis, report, sim};

const USAGE: &str =
    "usage: plan [WORKLOAD.yaml ...]   (default: every lab/planner/workloads/*.yaml)";

fn main() {
    let root = sam_template::workspace_root();
    let words: Vec<String> = std::env::args().skip(1).collect();
    if let Some(flag) = words.iter().find(|w| w.starts_with('-')) {
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            return;
        }
        eprintln!("plan: unknown flag {flag}: the planner takes workload files only\n{USAGE}");
        std::process::exit(2);
    }
    let args: Vec<PathBuf> = words.into_iter().map(PathBuf::from).collect();
    let files = if args.is_empty() {
        let mut f: Vec<PathBuf> = std::fs::read_dir(root.join("lab/planner/workloads"))
            .expect("lab/planner/workloads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        f.sort();
        f
    } else {
        args
    };
    let out = root.join("lab/planner/reports");
    std::fs::create_dir_all(&out).expect("lab/planner/reports");
    let durations = report::Durations::load(&root);
    let mut failed = false;
    for file in files {
        let w = match Workload::load(&file) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("{e}");
                failed = true;
                continue;
            }
        };
        let started = Instant::now();
        let stem = file
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let mut progress = |done: f64, what: &str| {
            if started.elapsed().as_secs() >= 2 {
                eprint!("\r{stem}: {:3.0}% {what:<24}", done * 100.0);
                let _ = std::io::stderr().flush();
            }
        };
        let batch = durations.batch(planner::fanout::COMMERCE_STREAM);
        let heat = sim::run(&w, sim::design(&w), &batch, &mut progress);
        let status = analysis::status_shards(&w, &heat, &batch);
        let counters = analysis::counter_shards(&w, &heat, &batch);
        let svg_name = format!("{stem}.svg");
        std::fs::write(out.join(&svg_name), planner::plot::heat_svg(&w.name, &heat))
            .expect("the plot");
        let relative = format!("../workloads/{stem}.yaml");
        let md = report::markdown(&report::Plan {
            workload: &w,
            file: &relative,
            heat: &heat,
            status: status.as_ref(),
            counters: counters.as_ref(),
            durations: &durations,
            batch: &batch,
            svg: Some(&svg_name),
        });
        std::fs::write(out.join(format!("{stem}.md")), md).expect("the report");
        eprintln!(
            "\r{:60}\r{stem}: planned in {:.1} s -> lab/planner/reports/{stem}.md",
            "",
            started.elapsed().as_secs_f64()
        );
    }
    if failed {
        std::process::exit(1);
    }
}
