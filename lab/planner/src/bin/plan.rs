//! `make plan`: plans every workload under `lab/planner/workloads/` (or the files given) and writes
//! each report: a shipped workload's to `lab/planner/reports/<workload>.md`, any other's beside its
//! file as `<workload>.plan.md`, so that trying a workload never overwrites a shipped report. It
//! takes no flags: a word that looks like one (a typo, `--help`) gets the usage, before anything is
//! planned (exit 2; 0 for `--help`).

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    time::Instant,
};

use planner::{Workload, analysis, report, sim};

const USAGE: &str =
    "usage: plan [WORKLOAD.yaml ...]   (default: every lab/planner/workloads/*.yaml)
  a shipped workload's report goes to lab/planner/reports/<name>.md and .svg;
  any other's beside it, as <dir>/<name>.plan.md and .plan.svg";

/// Where a workload's report goes: its directory, the report's and the chart's file names, and
/// the workload's path as the report links it.
struct Out {
    dir: PathBuf,
    md: String,
    svg: String,
    workload: String,
}

fn out(root: &Path, file: &Path, stem: &str) -> Out {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let shipped = root.join("lab/planner/workloads");
    if canonical(&dir).is_some_and(|d| Some(d) == canonical(&shipped)) {
        Out {
            dir: root.join("lab/planner/reports"),
            md: format!("{stem}.md"),
            svg: format!("{stem}.svg"),
            workload: format!("../workloads/{name}"),
        }
    } else {
        Out {
            dir,
            md: format!("{stem}.plan.md"),
            svg: format!("{stem}.plan.svg"),
            workload: name,
        }
    }
}

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
        let to = out(&root, &file, &stem);
        let mut progress = |done: f64, what: &str| {
            if started.elapsed().as_secs() >= 2 {
                eprint!("\r{stem}: {:3.0}% {what:<24}", done * 100.0);
                let _ = std::io::stderr().flush();
            }
        };
        let streams = sim::Streams::of(&w, &durations);
        let design = sim::design(&w);
        let heat = sim::run(&w, design, &streams, &mut progress);
        // The same workload in the other index design, for its cost.
        let others = report::other_designs(&w, design, &streams);
        let status = analysis::status_shards(&w, &heat, &streams);
        let counters = analysis::counter_shards(&w, &heat, &streams);
        let md = report::markdown(&report::Plan {
            workload: &w,
            file: &to.workload,
            heat: &heat,
            status: status.as_ref(),
            counters: counters.as_ref(),
            durations: &durations,
            streams: &streams,
            svg: Some(&to.svg),
            other_designs: &others,
        });
        let written = std::fs::create_dir_all(&to.dir)
            .and_then(|()| {
                std::fs::write(
                    to.dir.join(&to.svg),
                    planner::plot::heat_svg(&w.name, &heat),
                )
            })
            .and_then(|()| std::fs::write(to.dir.join(&to.md), md));
        let report = to.dir.join(&to.md);
        let shown = report.strip_prefix(&root).unwrap_or(&report).display();
        match written {
            Ok(()) => eprintln!(
                "\r{:60}\r{stem}: planned in {:.1} s -> {shown}",
                "",
                started.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("\r{:60}\r{stem}: {shown}: {e}", "");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
