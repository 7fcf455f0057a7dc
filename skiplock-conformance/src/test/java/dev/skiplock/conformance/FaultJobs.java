package dev.skiplock.conformance;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The jobs of a fault run, enqueued before the workers start, and what the analysis must know
 * about them: which are hostile, and the dependency diamonds.
 *
 * @param total    jobs enqueued
 * @param hostile  ids of the hostile jobs (Java and command)
 * @param diamonds the dependency diamonds
 */
record FaultJobs(int total, Set<String> hostile, List<Diamond> diamonds) {
    /** Priority of the diamonds: claimed as soon as they are runnable, ahead of the backlog. */
    static final int DIAMOND_PRIORITY = 10;

    /** A and B → C → D. With {@code failing}, A always throws (1 attempt): C fails naming A, D naming C. */
    record Diamond(String a, String b, String c, String d, boolean failing) {
    }

    /** Jobs enqueued side by side: one job, or the two parents of a diamond. */
    private record Unit(List<JobRequest> requests, boolean hostile, boolean parents) {
        static Unit of(JobRequest request) {
            return new Unit(List.of(request), false, false);
        }
    }

    static FaultJobs enqueue(Skiplock client, FaultPlan plan, Path ledger) {
        Random random = new Random();
        FaultPlan.Jobs mix = plan.jobs();
        List<Unit> units = new ArrayList<>();
        long window = Math.max(1, plan.faults().window().toMillis());
        Instant enqueuedAt = Instant.now();
        // Some work runs late, a second each, spread over the fault window like the diamonds: the
        // harness's cancels and retries find running and freshly finished work even on a machine
        // that drained the backlog before they were all made (its wait for them would not end).
        int late = plan.faults().retries() + plan.faults().cancels();
        for (int i = 0; i < mix.healthy(); i++) {
            JobRequest work = JobRequest.of("fault.work", new FaultHandlers.Args(ledger.toString(),
                    i < late ? 1000 : 20 + random.nextInt(180))).withMaxAttempts(10);
            units.add(Unit.of(i < late ? work.withRunAt(enqueuedAt.plusMillis(5_000 + random.nextLong(window))) : work));
        }
        for (int i = 0; i < mix.commands(); i++) {
            units.add(Unit.of(command(FaultLedger.commandScript(ledger, "0.3"))));
        }
        for (int i = 0; i < mix.hostileCommands(); i++) {
            units.add(new Unit(List.of(command(FaultLedger.hostileCommandScript(ledger, "0.3"))), true, false));
        }
        FaultHandlers.Args poison = new FaultHandlers.Args(ledger.toString(), 0);
        addCopies(units, mix.throwing(), JobRequest.of("fault.throw", poison).withMaxAttempts(3));
        addCopies(units, mix.hanging(), JobRequest.of("fault.hang", poison).withMaxAttempts(2).withTimeout(Duration.ofSeconds(1)));
        addCopies(units, mix.halting(), JobRequest.of("fault.exit", poison).withMaxAttempts(2));
        FaultHandlers.Args hostile = new FaultHandlers.Args(ledger.toString(), 50);
        for (int i = 0; i < mix.hostile(); i++) {
            units.add(new Unit(List.of(JobRequest.of(i % 2 == 0 ? "fault.hostile" : "fault.hostile.throw", hostile)
                    .withMaxAttempts(i % 2 == 0 ? 10 : 2)), true, false));
        }
        // Both parents of a diamond become runnable at the same moment, spread over the fault window,
        // are claimed ahead of the backlog (by two workers, or one claim), and end at the same
        // instant: their outcomes commit in overlapping transactions (issue #10, fault 2).
        for (int i = 0; i < mix.diamonds(); i++) {
            Instant runAt = enqueuedAt.plusMillis(5_000 + random.nextLong(window));
            JobRequest parent = JobRequest.of("fault.diamond", new FaultHandlers.Args(ledger.toString(), 20,
                    runAt.toEpochMilli() + 400)).withMaxAttempts(10).withPriority(DIAMOND_PRIORITY).withRunAt(runAt);
            JobRequest first = i < mix.failingDiamonds()
                    ? JobRequest.of("fault.throw", poison).withMaxAttempts(1).withPriority(DIAMOND_PRIORITY).withRunAt(runAt)
                    : parent;
            units.add(new Unit(List.of(first, parent), false, true));
        }
        Collections.shuffle(units, random);

        List<JobRequest> requests = units.stream().flatMap(unit -> unit.requests().stream()).toList();
        List<Job> enqueued = new ArrayList<>();
        for (int from = 0; from < requests.size(); from += 1000) {
            enqueued.addAll(client.enqueueMany(requests.subList(from, Math.min(from + 1000, requests.size()))));
        }
        Set<String> hostileIds = new HashSet<>();
        List<Job[]> pairs = new ArrayList<>();
        int index = 0;
        for (Unit unit : units) {
            if (unit.hostile()) {
                hostileIds.add(enqueued.get(index).id().toString());
            }
            if (unit.parents()) {
                pairs.add(new Job[] {enqueued.get(index), enqueued.get(index + 1)});
            }
            index += unit.requests().size();
        }
        return new FaultJobs(requests.size() + 2 * pairs.size(), Set.copyOf(hostileIds),
                children(client, pairs, ledger, random));
    }

    /** C (depends on A and B) for every pair, then D (depends on C). */
    private static List<Diamond> children(Skiplock client, List<Job[]> pairs, Path ledger, Random random) {
        List<Diamond> diamonds = new ArrayList<>();
        for (int from = 0; from < pairs.size(); from += 500) {
            List<Job[]> batch = pairs.subList(from, Math.min(from + 500, pairs.size()));
            List<Job> cs = client.enqueueMany(batch.stream().map(pair -> diamondJob(ledger, random)
                    .withDependsOn(List.of(pair[0].id(), pair[1].id()))).toList());
            List<Job> ds = client.enqueueMany(cs.stream().map(c -> diamondJob(ledger, random)
                    .withDependsOn(List.of(c.id()))).toList());
            for (int i = 0; i < batch.size(); i++) {
                diamonds.add(new Diamond(batch.get(i)[0].id().toString(), batch.get(i)[1].id().toString(),
                        cs.get(i).id().toString(), ds.get(i).id().toString(), batch.get(i)[0].kind().equals("fault.throw")));
            }
        }
        return diamonds;
    }

    private static JobRequest diamondJob(Path ledger, Random random) {
        return JobRequest.of("fault.diamond", new FaultHandlers.Args(ledger.toString(), 20 + random.nextInt(80)))
                .withMaxAttempts(10).withPriority(DIAMOND_PRIORITY);
    }

    private static JobRequest command(String script) {
        return JobRequest.of("command", Map.of("argv", List.of("sh", "-c", script))).withMaxAttempts(10);
    }

    private static void addCopies(List<Unit> units, int copies, JobRequest request) {
        for (int i = 0; i < copies; i++) {
            units.add(Unit.of(request));
        }
    }

    /** Ids of every job of the diamonds. */
    Set<String> diamondIds() {
        return diamonds.stream().flatMap(diamond -> Stream.of(diamond.a(), diamond.b(), diamond.c(),
                diamond.d())).collect(Collectors.toSet());
    }
}
