#!/usr/bin/env python3
"""Where a scale-out drain's CPU goes, per drained job (docs/PERFORMANCE.md, issue #12).

    docs/scale-out/cpu-by-side.py PROCESSES JOBS [--pool-size K] [--waits] [--db JDBC_URL]

Runs `./skiplock --plain bench drain --n JOBS --processes PROCESSES` and, in its timed part only (from
its "(timed)" line for the seconds it reports), counts from /proc, sampled every 50 ms:
- the CPU (user and system) and context switches of every PostgreSQL process: the workers'
  backends, and also the bench's own (it counts the finished jobs ten times a second);
- the same of every thread of the bench's worker processes, by what the thread does.
A thread that ends between two samples keeps its last count; one that lives less than 50 ms is
not seen. Run it on the database's host with nothing else busy.
With --waits it also asks pg_stat_activity every 20 ms, through psql (PGHOST, PGUSER as for psql),
what the active backends wait for, and keeps the answers given within the timed part. Its own
backend is left out of the CPU; its asking costs CPU all the same, so measure CPU without it.
"""
import argparse
import collections
import os
import re
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")
# Thread names as /proc shows them: cut to 15 characters. Handlers run on virtual threads, so
# their CPU is their carriers' (ForkJoinPool-1-worker-N). The launcher's serial collector collects
# in the VM thread.
THREADS = [("C1 Compiler", "jit"), ("C2 Compiler", "jit"), ("GC ", "gc"), ("G1 ", "gc"), ("VM Thread", "gc"),
           ("skiplock-claim", "claimer"), ("skiplock-comple", "completer"), ("ForkJoinPool", "handlers")]
WAITS_QUERY = ("SELECT extract(epoch FROM clock_timestamp()) || ' ' || coalesce(wait_event_type || ':' ||"
               " wait_event, 'on CPU') || ' | ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 45)"
               " FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'"
               " AND pid <> pg_backend_pid() AND state = 'active';")


def side_of(command, thread_name):
    """postgres, worker:<what the thread does>, or None for any other process."""
    if command.split(" ")[0].endswith("postgres") or command.startswith("postgres:"):
        return "postgres"
    if "/java" not in command.split(" ")[0] or "drain-worker" not in command:
        return None
    for prefix, what in THREADS:
        if thread_name.startswith(prefix):
            return "worker:" + what
    return "worker:other"


def read_counts(path):
    """user ticks, system ticks, voluntary and involuntary context switches of /proc/<path>."""
    stat = open(path + "/stat").read().rsplit(")", 1)[1].split()
    status = open(path + "/status").read()
    switches = [int(re.search(r"^%s_ctxt_switches:\s+(\d+)" % kind, status, re.M).group(1))
                for kind in ("voluntary", "nonvoluntary")]
    return (int(stat[11]), int(stat[12]), *switches)


def sample(sides, left_out):
    """{(pid, tid): counts} of every PostgreSQL process and every worker process's thread."""
    counts = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if pid in left_out:
            continue
        try:
            command = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ")
            command = command.decode(errors="replace")
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue  # ended
        for tid in tids:
            path = "/proc/%s/task/%s" % (pid, tid)
            try:
                side = side_of(command, open(path + "/comm").read().strip())
                if side is None:
                    break
                counts[(pid, tid)] = read_counts(path)
                sides[(pid, tid)] = side
            except (OSError, AttributeError):
                continue  # this thread ended while read
    return counts


class WaitSampler:
    """Asks pg_stat_activity through psql every 20 ms until stopped, on a backend left out of the CPU."""

    def __init__(self, database, left_out):
        self.psql = subprocess.Popen(["psql", "-At", "-d", database], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.psql.stdin.write("SELECT pg_backend_pid();\n")
        self.psql.stdin.flush()
        left_out.add(self.psql.stdout.readline().strip())
        self.answers, self.asked, self.stopping = [], 0, threading.Event()
        self.asking = threading.Thread(target=self.ask)
        self.reading = threading.Thread(target=lambda: self.answers.extend(self.psql.stdout))
        self.asking.start()
        self.reading.start()

    def ask(self):
        while not self.stopping.is_set():
            self.psql.stdin.write(WAITS_QUERY + "\n")
            self.psql.stdin.flush()
            self.asked += 1
            time.sleep(0.02)
        self.psql.stdin.close()

    def counts(self, start, end):
        """The answers given between start and end (epoch seconds), counted by wait and statement."""
        self.stopping.set()
        self.asking.join()
        self.reading.join()
        seen = collections.Counter()
        for line in self.answers:
            at, _, what = line.strip().partition(" ")
            if what and start <= float(at) <= end:
                seen[what] += 1
        return seen


def run_bench(args, sides, left_out):
    """Runs the drain while sampling; returns (jobs/s, start, end, samples, wait sampler or None)."""
    samples, done = [], threading.Event()

    def sampler():
        while not done.is_set():
            samples.append((time.time(), sample(sides, left_out)))
            time.sleep(0.05)

    sampling = threading.Thread(target=sampler)
    sampling.start()
    command = [os.path.join(ROOT, "skiplock"), "--plain", "bench", "drain", "--n", str(args.jobs),
               "--processes", str(args.processes), "--db", args.db]
    if args.pool_size:
        command += ["--pool-size", str(args.pool_size)]
    bench = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    start, output, waits = None, [], None
    for line in bench.stdout:
        output.append(line)
        if start is None and "(timed)" in line:
            start = time.time()
            if args.waits:
                waits = WaitSampler(re.search(r"//[^/]+/([^?]+)", args.db).group(1), left_out)
    bench.wait()
    done.set()
    sampling.join()
    text = "".join(output)
    rate = re.search(r'"jobs_per_s"\s*:\s*(\d+)', text)
    seconds = re.search(r'"seconds"\s*:\s*([\d.]+)', text)
    if bench.returncode != 0 or not rate or start is None:
        raise SystemExit("the bench failed:\n" + text)
    return int(rate.group(1)), start, start + float(seconds.group(1)), samples, waits


def counts_at(samples, moment):
    """Each process's and thread's last counts sampled at or before moment."""
    counts = {}
    for taken, snapshot in samples:
        if taken > moment:
            break
        counts.update(snapshot)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("processes", type=int)
    parser.add_argument("jobs", type=int)
    parser.add_argument("--pool-size", type=int)
    parser.add_argument("--waits", action="store_true")
    parser.add_argument("--db", default="jdbc:postgresql://127.0.0.1:5432/bench?user=postgres")
    args = parser.parse_args()
    sides, left_out = {}, set()
    rate, start, end, samples, waits = run_bench(args, sides, left_out)

    before, after = counts_at(samples, start), counts_at(samples, end)
    cpu, kernel, switches = collections.Counter(), collections.Counter(), collections.Counter()
    for key, (user, system, voluntary, involuntary) in after.items():
        user0, system0, voluntary0, involuntary0 = before.get(key, (0, 0, 0, 0))
        cpu[sides[key]] += (user + system - user0 - system0) / TICKS
        kernel[sides[key]] += (system - system0) / TICKS
        switches[sides[key].split(":")[0]] += voluntary + involuntary - voluntary0 - involuntary0
    jobs, window = args.jobs, end - start
    print("%d processes, %d jobs: %d jobs/s; both sides busy %.2f of the window's %.2f s on %d cores"
          % (args.processes, jobs, rate, sum(cpu.values()) / window, window, os.cpu_count()))
    print("CPU per job, us (of it in the kernel):")
    for side in sorted(cpu):
        print("  %-18s %6.1f (%.1f)" % (side, cpu[side] * 1e6 / jobs, kernel[side] * 1e6 / jobs))
    workers = sum(value for side, value in cpu.items() if side.startswith("worker"))
    print("  %-18s %6.1f" % ("workers, all", workers * 1e6 / jobs))
    print("context switches per job: " + ", ".join("%s %.2f" % (side, count / jobs)
                                                   for side, count in sorted(switches.items())))
    if waits is not None:
        seen = waits.counts(start, end)
        print("active backends seen in the timed part, by wait and statement (%d asks in all):" % waits.asked)
        for what, count in seen.most_common():
            print("  %6d  %s" % (count, what))


if __name__ == "__main__":
    main()
