#!/usr/bin/env python3
"""Where a scale-out drain's CPU goes, per drained job (docs/PERFORMANCE.md, issue #12).

    docs/scale-out/cpu-by-side.py PROCESSES JOBS [--pool-size K] [--waits] [--db JDBC_URL]

Runs `./skiplock --plain bench drain --n JOBS --processes PROCESSES` and, in its timed part only (from
its "(timed)" line for the seconds it reports), counts from /proc, sampled every 50 ms:
- the CPU (user and system) of every PostgreSQL process, and of every thread of the bench's worker
  processes by what it does (claimer, completer, handlers, JIT compilers, GC, the rest);
- their context switches.
A process or thread that ends between two samples keeps its last count. Run it on the database's host
with nothing else busy. With --waits it also samples pg_stat_activity every 20 ms through psql
(PGHOST, PGUSER as for psql) and prints what the active backends waited for, per statement.
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
# Thread names as /proc shows them: cut to 15 characters.
THREADS = [("C1 Compiler", "jit"), ("C2 Compiler", "jit"), ("GC ", "gc"), ("VM Thread", "gc"),
           ("skiplock-claim", "claimer"), ("skiplock-comple", "completer"),
           ("ForkJoinPool", "handlers"), ("skiplock-job", "handlers")]
WAITS_QUERY = ("SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') || ' | '"
               " || left(regexp_replace(query, '\\s+', ' ', 'g'), 45) FROM pg_stat_activity"
               " WHERE datname = current_database() AND backend_type = 'client backend'"
               " AND pid <> pg_backend_pid() AND state = 'active';")


def side_of(command, thread_name):
    """postgres, worker:<what the thread does>, or None for any other process."""
    if command.startswith("postgres"):
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


def sample(sides):
    """{(pid, tid): counts} of every PostgreSQL process and every worker process's thread."""
    counts = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode(errors="replace")
            tids = [pid] if command.startswith("postgres") else os.listdir("/proc/%s/task" % pid)
            for tid in tids:
                path = "/proc/%s/task/%s" % (pid, tid)
                side = side_of(command, open(path + "/comm").read().strip())
                if side is None:
                    break
                counts[(pid, tid)] = read_counts(path)
                sides[(pid, tid)] = side
        except (OSError, AttributeError):
            continue  # ended while read
    return counts


def sample_waits(database, done):
    """Samples the active backends' waits through psql until done; returns a function that waits
    for the last sample and gives their counts."""
    psql = subprocess.Popen(["psql", "-At", "-d", database], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    seen = collections.Counter()

    def ask():
        while not done.is_set():
            psql.stdin.write(WAITS_QUERY + "\n")
            psql.stdin.flush()
            time.sleep(0.02)
        psql.stdin.close()

    def read():
        for line in psql.stdout:
            seen[line.strip()] += 1

    asking, reading = threading.Thread(target=ask), threading.Thread(target=read)
    asking.start()
    reading.start()

    def counts():
        asking.join()
        reading.join()
        return seen

    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("processes", type=int)
    parser.add_argument("jobs", type=int)
    parser.add_argument("--pool-size", type=int)
    parser.add_argument("--waits", action="store_true")
    parser.add_argument("--db", default="jdbc:postgresql://127.0.0.1:5432/bench?user=postgres")
    args = parser.parse_args()

    sides, samples, done = {}, [], threading.Event()

    def sampler():
        while not done.is_set():
            samples.append((time.time(), sample(sides)))
            time.sleep(0.05)

    threading.Thread(target=sampler, daemon=True).start()
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
                waits = sample_waits(re.search(r"//[^/]+/([^?]+)", args.db).group(1), done)
    bench.wait()
    done.set()
    text = "".join(output)
    rate = re.search(r'"jobs_per_s"\s*:\s*(\d+)', text)
    seconds = re.search(r'"seconds"\s*:\s*([\d.]+)', text)
    if bench.returncode != 0 or not rate or start is None:
        raise SystemExit("the bench failed:\n" + text)
    end = start + float(seconds.group(1))

    def at(moment):
        counts = {}
        for taken, snapshot in samples:
            if taken > moment:
                break
            counts.update(snapshot)
        return counts

    before, after = at(start), at(end)
    cpu, system, switches = collections.Counter(), collections.Counter(), collections.Counter()
    for key, (user, sys, voluntary, involuntary) in after.items():
        user0, sys0, voluntary0, involuntary0 = before.get(key, (0, 0, 0, 0))
        side = sides[key]
        cpu[side] += (user + sys - user0 - sys0) / TICKS
        system[side] += (sys - sys0) / TICKS
        switches[side.split(":")[0]] += voluntary + involuntary - voluntary0 - involuntary0
    jobs, window = args.jobs, end - start
    print("%d processes, %d jobs: %s jobs/s; both sides busy %.2f of the window's %.2f s on %d cores"
          % (args.processes, jobs, rate.group(1), sum(cpu.values()) / window, window, os.cpu_count()))
    print("CPU per job, us (of it in the kernel):")
    for side in sorted(cpu):
        print("  %-18s %6.1f (%.1f)" % (side, cpu[side] * 1e6 / jobs, system[side] * 1e6 / jobs))
    workers = sum(value for side, value in cpu.items() if side.startswith("worker"))
    print("  %-18s %6.1f" % ("workers, all", workers * 1e6 / jobs))
    print("context switches per job: " + ", ".join("%s %.2f" % (side, count / jobs)
                                                   for side, count in sorted(switches.items())))
    if waits is not None:
        seen = waits()
        print("active backends sampled every 20 ms, by wait and statement:")
        for what, count in seen.most_common(15):
            print("  %6d  %s" % (count, what))


if __name__ == "__main__":
    main()
