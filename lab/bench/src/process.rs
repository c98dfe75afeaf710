//! A measured process at Lambda's CPU share. Lambda gives a function CPU in proportion to its
//! memory, one vCPU at 1,769 MB; a cgroup (v1) CPU quota does the same here: 128 MB gets 7.2 ms
//! of CPU in every 100 ms. The process joins its cgroups between fork and exec, so even its first
//! instruction runs at the share, and `cpuacct.usage` counts the CPU of all its threads in ns.

use std::{
    ffi::CString,
    fs,
    io::{self, Read},
    os::fd::{AsRawFd, FromRawFd},
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// Lambda's memory size for one full vCPU.
pub const MB_PER_VCPU: f64 = 1769.0;
const PERIOD_US: u64 = 100_000;
/// Long enough for the quota to refill: a period boundary passes with no process in the cgroup.
pub const QUOTA_REFILL: Duration = Duration::from_micros(PERIOD_US + PERIOD_US / 10);
const CPU_ROOT: &str = "/sys/fs/cgroup/cpu";
const CPUACCT_ROOT: &str = "/sys/fs/cgroup/cpuacct";

/// A pair of cgroups (cpu for the quota, cpuacct for the count), removed on drop.
pub struct Cgroup {
    cpu: PathBuf,
    cpuacct: PathBuf,
}

impl Cgroup {
    /// A cgroup holding its processes to the CPU share of `memory_mb` (`None`: no quota).
    pub fn new(name: &str, memory_mb: Option<u32>) -> io::Result<Cgroup> {
        let cgroup = Cgroup {
            cpu: Path::new(CPU_ROOT).join(name),
            cpuacct: Path::new(CPUACCT_ROOT).join(name),
        };
        for dir in [&cgroup.cpu, &cgroup.cpuacct] {
            if !dir.exists() {
                fs::create_dir(dir).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "cannot create the cgroup {} ({e}); the benchmark needs cgroup v1's \
                             cpu and cpuacct controllers and root",
                            dir.display()
                        ),
                    )
                })?;
            }
        }
        fs::write(cgroup.cpu.join("cpu.cfs_period_us"), PERIOD_US.to_string())?;
        cgroup.limit(memory_mb)?;
        Ok(cgroup)
    }

    /// Holds the cgroup's processes to the CPU share of `memory_mb` from now on (`None`: no
    /// quota), as when Lambda's init ends and its invoke phase begins at another share.
    pub fn limit(&self, memory_mb: Option<u32>) -> io::Result<()> {
        let quota = match memory_mb {
            Some(mb) => quota_us(mb).to_string(),
            None => "-1".to_owned(),
        };
        fs::write(self.cpu.join("cpu.cfs_quota_us"), quota)
    }

    /// CPU time used by every process that was in the cgroup, in ns.
    pub fn usage_ns(&self) -> u64 {
        fs::read_to_string(self.cpuacct.join("cpuacct.usage"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Resets the CPU count.
    pub fn reset(&self) {
        let _ = fs::write(self.cpuacct.join("cpuacct.usage"), "0");
    }

    /// Starts `command` inside the cgroup; also returns when the child stood at its exec, on
    /// this process's clock. The time before it is the fork of this harness (a copy of its own
    /// address space, from 0.5 to 17 ms here depending on its state), and no part of a Lambda
    /// cold start; the time after `spawn` returns is no better a start, as this thread may be
    /// descheduled while the child runs its whole init.
    pub fn spawn(&self, command: &mut Command) -> io::Result<(Child, Instant)> {
        let procs: Vec<CString> = [&self.cpu, &self.cpuacct]
            .iter()
            .map(|d| CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes()))
            .collect::<Result<_, _>>()
            .map_err(io::Error::other)?;
        // The child writes its clock reading, just before exec, into this pipe.
        let mut fds = [0; 2];
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let (read_end, write_end) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        let clock_fd = write_end.as_raw_fd();
        // Between fork and exec only async-signal-safe calls: open, write, close,
        // clock_gettime. Writing "0" to cgroup.procs moves the writing process itself.
        unsafe {
            command.pre_exec(move || {
                for path in &procs {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                    libc::close(fd);
                    if written != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                let ns = monotonic_ns().to_ne_bytes();
                if libc::write(clock_fd, ns.as_ptr().cast(), ns.len()) != ns.len() as isize {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        // `Instant` reads the same clock (CLOCK_MONOTONIC): one reading of each maps the child's.
        let (reference, reference_ns) = (Instant::now(), monotonic_ns());
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        drop(write_end);
        let mut ns = [0u8; 8];
        std::fs::File::from(read_end).read_exact(&mut ns)?;
        let at_exec = reference + Duration::from_nanos(u64::from_ne_bytes(ns) - reference_ns);
        Ok((child, at_exec))
    }
}

/// CLOCK_MONOTONIC in ns (async-signal-safe).
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = fs::remove_dir(&self.cpu);
        let _ = fs::remove_dir(&self.cpuacct);
    }
}

/// The CFS quota of `memory_mb`'s share, per 100 ms period.
pub fn quota_us(memory_mb: u32) -> u64 {
    ((memory_mb as f64 / MB_PER_VCPU) * PERIOD_US as f64).round() as u64
}

/// The process's peak resident set (`VmHWM`), in bytes.
pub fn peak_rss(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quota_is_the_memory_share_of_one_vcpu() {
        assert_eq!(quota_us(1769), 100_000);
        assert_eq!(quota_us(128), 7_236);
        assert_eq!(quota_us(1024), 57_886);
    }

    #[test]
    fn peak_rss_reads_this_process() {
        let rss = peak_rss(std::process::id()).expect("VmHWM of this process");
        assert!(rss > 1024 * 1024, "{rss}");
    }
}
