package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Names;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.store.CronStore;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.server.CronEntry;
import dev.skiplock.server.CronScheduler;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import dev.skiplock.spi.Driver;
import dev.skiplock.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Periodic jobs (DESIGN §5): each slot enqueued at most once, ever, however many schedulers run it,
 * whenever their timers fire and however their clocks are skewed. Schedulers run on {@link TestClock}s.
 */
abstract class CronContract extends ContractBase {

    private static ServerConfig withCron(List<CronEntry> cron) {
        return new ServerConfig("127.0.0.1", 0, 1 << 20, false, Map.of(), Map.of(), null, cron);
    }

    @Test
    void twoServersWithTheSameScheduleEnqueueEachSlotOnce() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 1s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        try (SkiplockServer first = SkiplockServer.start(skiplock, withCron(cron));
                SkiplockServer second = SkiplockServer.start(client(), withCron(cron))) {
            await().atMost(WAIT).until(() -> skiplock.list(JobQuery.all()).jobs().size() >= 3);
        }
        List<Job> jobs = skiplock.list(JobQuery.all()).jobs();
        Set<String> slots = jobs.stream().map(job -> job.metadata().path("cron").path("slot").asText())
                .collect(Collectors.toSet());
        assertThat(slots).hasSameSizeAs(jobs).doesNotContain("");
        assertThat(jobs).allSatisfy(job -> {
            assertThat(job.kind()).isEqualTo("tick");
            assertThat(job.metadata().path("cron").path("schedule").asText()).isEqualTo("tick");
        });
        assertThat(markers(skiplock)).hasSameSizeAs(jobs);
    }

    /**
     * A server that cannot bind its port starts no schedule. Before, its cron thread was started
     * first and went on enqueuing every slot after the start had failed.
     */
    @Test
    void aServerThatCannotBindItsPortLeavesNoScheduleRunning() throws Exception {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 1s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ServerConfig onTakenPort = new ServerConfig("127.0.0.1", taken.getLocalPort(), 1 << 20, false, Map.of(),
                    Map.of(), null, cron);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> SkiplockServer.start(skiplock, onTakenPort))
                    .isInstanceOf(RuntimeException.class);
        }
        await().atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(thread -> thread.getName().equals("skiplock-cron")));
    }

    /**
     * Two schedulers whose clocks are 3 s apart, and a worker that finishes each slot's job at once:
     * the late scheduler reaches a slot after its job is gone from the live jobs, and must not
     * enqueue it again.
     */
    @Test
    void aSlotIsEnqueuedOnceEvenAfterItsJobFinishedWithClocksSkewedBySeconds() {
        Skiplock worker = started(builder(config -> config.queue("cron", 1))
                .handler("tick", JsonNode.class, context -> JobOutcome.complete()));
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 10s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"cron\"}")));
        Instant slot = nextSlot(Duration.ofSeconds(10));
        TestClock onTime = new TestClock(slot.minusSeconds(1));
        TestClock behind = new TestClock(slot.minusSeconds(1 + 3));
        CronScheduler first = CronScheduler.create(withCron(cron), client(), onTime);
        CronScheduler late = CronScheduler.create(withCron(cron), client(), behind);

        for (int round = 0; round < 2; round++) {
            advance(Duration.ofSeconds(1), onTime, behind); // the slot, on the first scheduler's clock
            assertThat(first.fireDue()).isEqualTo(1);
            assertThat(late.fireDue()).isZero();
            List<Job> jobs = worker.list(JobQuery.all()).jobs();
            assertThat(jobs).hasSize(round + 1);
            awaitStatus(worker, jobs.getFirst().id(), JobStatus.SUCCEEDED);

            advance(Duration.ofSeconds(3), onTime, behind); // the same slot on the late one's clock
            assertThat(late.fireDue()).as("the late scheduler's fire of a finished slot").isZero();
            assertThat(first.fireDue()).isZero();
            assertThat(worker.list(JobQuery.all()).jobs()).hasSize(round + 1);
            advance(Duration.ofSeconds(10 - 1 - 3), onTime, behind); // a second before the next slot
        }
    }

    /** After a pause (or a clock jump) only the last minute's slots fire; older ones are skipped, not replayed. */
    @Test
    void slotsMoreThanAMinuteLateAreSkipped() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 10s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = nextSlot(Duration.ofSeconds(10));
        TestClock clock = new TestClock(slot.minusSeconds(1));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);

        clock.advance(Duration.ofMinutes(5).plusSeconds(1)); // now = slot + 300 s
        assertThat(scheduler.fireDue()).as("slots at +250 s … +300 s").isEqualTo(6);
        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(job -> job.metadata().path("cron").path("slot").asText())
                .containsExactlyInAnyOrder(slot.plusSeconds(250).toString(), slot.plusSeconds(260).toString(),
                        slot.plusSeconds(270).toString(), slot.plusSeconds(280).toString(),
                        slot.plusSeconds(290).toString(), slot.plusSeconds(300).toString());
    }

    /**
     * The night a zone's clocks go back (America/New_York, 2026-11-01: 01:30 EDT is 05:30Z, 01:30
     * EST 06:30Z), a daily slot in the repeated hour fires once: a scheduler started inside that
     * hour, after the slot fired, does not take the hour's second 01:30 for a slot of its own, and
     * neither does one resumed there after a pause. The next night's slot still fires.
     */
    @Test
    void aDailySlotInTheHourTheClocksRepeatFiresOnce() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("nightly", "30 1 * * *", "America/New_York",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        TestClock onTime = new TestClock(Instant.parse("2026-11-01T05:29:00Z"));
        CronScheduler first = CronScheduler.create(withCron(cron), skiplock, onTime);
        TestClock paused = new TestClock(Instant.parse("2026-11-01T05:25:00Z"));
        CronScheduler resumed = CronScheduler.create(withCron(cron), client(), paused);
        onTime.advance(Duration.ofMinutes(1));
        assertThat(first.fireDue()).isEqualTo(1);

        TestClock restarted = new TestClock(Instant.parse("2026-11-01T06:10:00Z")); // 01:10 EST
        CronScheduler second = CronScheduler.create(withCron(cron), client(), restarted);
        paused.advance(Duration.ofMinutes(55)); // 01:20 EST: its 05:30Z slot is more than a minute late
        assertThat(resumed.fireDue()).isZero();
        advance(Duration.ofMinutes(20), restarted, paused); // 01:30 EST
        assertThat(second.fireDue()).as("01:30 came round again, its slot did not").isZero();
        assertThat(resumed.fireDue()).isZero();
        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(job -> job.metadata().path("cron").path("slot").asText())
                .containsExactly("2026-11-01T05:30:00Z");

        restarted.advance(Duration.ofDays(1)); // 2026-11-02 01:30 EST
        assertThat(second.fireDue()).isEqualTo(1);
    }

    /**
     * A weekly slot in the hour the clocks repeat (Europe/Berlin, Sunday 2026-10-25: 02:30 CEST is
     * 00:30Z, 02:30 CET 01:30Z) fires once, in the hour's first occurrence, whether its scheduler
     * ran the week before or started the day before (a deploy). Before, the one started the day
     * before walked from a time that is not a slot, took the second occurrence, and the slot ran
     * twice (cron reviewer).
     */
    @Test
    void aWeeklySlotInTheHourTheClocksRepeatFiresOnceWhenEverItsSchedulersStarted() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("weekly", "30 2 * * 0", "Europe/Berlin",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        TestClock weekBefore = new TestClock(Instant.parse("2026-10-17T12:00:00Z"));
        CronScheduler longRunning = CronScheduler.create(withCron(cron), skiplock, weekBefore);
        weekBefore.advance(Duration.ofDays(7)); // 2026-10-24T12:00Z, as the other starts
        TestClock dayBefore = new TestClock(Instant.parse("2026-10-24T12:00:00Z"));
        CronScheduler deployed = CronScheduler.create(withCron(cron), client(), dayBefore);
        for (int minute = 0; minute < 15 * 60; minute++) { // to 03:00Z, a minute at a time
            advance(Duration.ofMinutes(1), weekBefore, dayBefore);
            deployed.fireDue();
            longRunning.fireDue();
        }

        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(job -> job.metadata().path("cron").path("slot").asText())
                .containsExactly("2026-10-25T00:30:00Z");
    }

    /**
     * A slot's job starts no earlier than its slot by the database's clock: a server whose clock is
     * ahead fired it that much early (cron reviewer). Its runAt is the slot.
     */
    @Test
    void aServerWhoseClockIsAheadStartsNoJobBeforeItsSlot() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("hourly", "0 * * * *", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = Instant.now().plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
        TestClock ahead = new TestClock(slot.minusSeconds(1));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, ahead);
        ahead.advance(Duration.ofSeconds(2));
        assertThat(scheduler.fireDue()).isEqualTo(1);

        Job job = skiplock.list(JobQuery.all()).jobs().getFirst();
        assertThat(job.availableAt()).isEqualTo(slot);
    }

    /**
     * The same for an expression with a fixed slot in each of several hours: 01:30 fires in the
     * hour's first occurrence only, 02:30 and 03:30 as usual. cron-utils' sequence gives 01:30 EDT
     * and 01:30 EST, and the nightly job ran twice (cron reviewer). A wildcard hour ({@code *}{@code /20})
     * runs by the clock: its slots of the repeated hour fire in both occurrences.
     */
    @Test
    void aFixedTimeSlotInTheHourTheClocksRepeatFiresOnceAndAWildcardOneByTheClock() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(
                new CronEntry("nightly", "30 0-3 * * *", "America/New_York",
                        Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")),
                new CronEntry("often", "*/20 * * * *", "America/New_York",
                        Json.read("{\"kind\": \"tock\", \"queue\": \"nobody-works-this\"}")));
        TestClock clock = new TestClock(Instant.parse("2026-11-01T04:29:00Z")); // 00:29 EDT
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);
        for (int minute = 0; minute < 4 * 60 + 2; minute++) { // to 03:31 EST, a minute at a time
            clock.advance(Duration.ofMinutes(1));
            scheduler.fireDue();
        }

        assertThat(skiplock.list(JobQuery.all().withKind("tick")).jobs())
                .extracting(job -> job.metadata().path("cron").path("slot").asText())
                .containsExactlyInAnyOrder("2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:30:00Z",
                        "2026-11-01T08:30:00Z"); // 00:30 EDT, 01:30 EDT, 02:30 EST, 03:30 EST
        assertThat(skiplock.list(JobQuery.all().withKind("tock").withLimit(100)).jobs()).hasSize(12);
    }

    /**
     * A scheduler stopped in the middle of its claim of a slot (its marker inserted, its transaction
     * left open: a paused process) holds up that slot only: the others' claim of it waits a bounded
     * time and fails, the slot is tried again, and the scheduler's other schedules fire. Before, the
     * claim waited until the open transaction ended, and with it every schedule of the scheduler
     * (cron reviewer). SQLite has one writer: its busy timeout bounds the wait.
     */
    @Test
    void aClaimOfASlotLeftOpenElsewhereHoldsUpThatSlotOnly() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock skiplock = client();
        Instant slot = Instant.parse("2026-11-02T10:00:10Z");
        List<CronEntry> cron = List.of(
                new CronEntry("stuck", "@every 10s", "UTC", Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")),
                new CronEntry("other", "@every 10s", "UTC", Json.read("{\"kind\": \"tock\", \"queue\": \"nobody-works-this\"}")));
        TestClock clock = new TestClock(slot.minusSeconds(1));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);
        try (java.sql.Connection paused = skiplock.dataSource().getConnection()) {
            paused.setAutoCommit(false);
            Transactions.update(paused, "INSERT INTO skiplock_cron_slots (tenant, schedule, slot, job_id) VALUES (?, ?, ?, ?)",
                    "default", "stuck", slot.toEpochMilli(), java.util.UUID.randomUUID());
            clock.advance(Duration.ofSeconds(1));

            int fired = java.util.concurrent.CompletableFuture.supplyAsync(scheduler::fireDue)
                    .get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

            assertThat(fired).isEqualTo(1);
            assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(Job::kind).containsExactly("tock");
            paused.rollback(); // the paused scheduler never comes back: the slot is free again
        }
        assertThat(scheduler.fireDue()).isEqualTo(1);
        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(Job::kind).containsExactlyInAnyOrder("tick", "tock");
    }

    /**
     * A slot whose enqueue failed (here its statement, once) is tried again by the next round
     * instead of being passed: the marker and the job commit together, so it is enqueued once.
     */
    @Test
    void aSlotWhoseEnqueueFailedIsTriedAgain() {
        Skiplock skiplock = hookedOnClaims((pool, claim) -> BeforeStatement.dataSource(pool, claim, () -> {
            throw new java.sql.SQLException("the test's failure, once", "08006");
        }));
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 10s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = nextSlot(Duration.ofSeconds(10));
        TestClock clock = new TestClock(slot.minusSeconds(1));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);

        clock.advance(Duration.ofSeconds(1));
        assertThat(scheduler.fireDue()).as("the enqueue failed").isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(scheduler.fireDue()).as("the same slot, a second later").isEqualTo(1);
        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(job -> job.metadata().path("cron").path("slot").asText())
                .containsExactly(slot.toString());
    }

    /**
     * Each slot is checked against the clock as it comes to be fired: the first schedule's enqueue
     * takes two minutes here (as a connection the pool cannot give, or a stalled statement), and the
     * second schedule's slot, now more than a minute late, is skipped. Before, it was checked
     * against the time read at the round's start and fired that late (cron reviewer).
     */
    @Test
    void aSlotThatBecameLateWhileAnotherWasEnqueuedIsSkipped() {
        List<CronEntry> cron = List.of(
                new CronEntry("first", "@every 10s", "UTC", Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")),
                new CronEntry("second", "@every 10s", "UTC", Json.read("{\"kind\": \"tock\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = nextSlot(Duration.ofSeconds(10));
        TestClock clock = new TestClock(slot.minusSeconds(1));
        Skiplock skiplock = hookedOnClaims((pool, claim) -> BeforeStatement.dataSource(pool, claim,
                () -> clock.advance(Duration.ofMinutes(2))));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);

        clock.advance(Duration.ofSeconds(1));
        scheduler.fireDue();

        assertThat(skiplock.list(JobQuery.all().withKind("tock")).jobs()).extracting(job -> job.metadata().path("cron")
                .path("slot").asText()).as("the second schedule's slots of the last minute only")
                .allMatch(fired -> !Instant.parse(fired).isBefore(clock.instant().minus(CronScheduler.MAX_LATENESS)));
    }

    /**
     * A round fires the slots due when it began and ends, even when each enqueue takes longer than
     * the schedule's period (here 2 s each, of an {@code @every 1s}): a round that read the clock for
     * each slot chased the slots the enqueues made due, and never ended (second reader).
     */
    @Test
    void aRoundEndsWhenEnqueuesTakeLongerThanThePeriod() {
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 1s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = nextSlot(Duration.ofSeconds(10));
        TestClock clock = new TestClock(slot.minusMillis(500));
        Skiplock skiplock = hookedOnClaims((pool, claim) -> BeforeStatement.eachTime(pool, claim,
                () -> clock.advance(Duration.ofSeconds(2))));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);
        clock.advance(Duration.ofSeconds(1));

        int fired = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT, scheduler::fireDue);
        assertThat(fired).isEqualTo(1);
    }

    /** An Error while firing (here a stack overflow, once) does not end the scheduler's thread. */
    @Test
    void aSchedulerThatMeetsAnErrorFiresOn() {
        Skiplock skiplock = hookedOnClaims((pool, claim) -> BeforeStatement.dataSource(pool, claim, () -> {
            throw new StackOverflowError("the test's error, thrown preparing claim_cron_slot");
        }));
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 1s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        try (CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, java.time.Clock.systemUTC())
                .start()) {
            await().atMost(WAIT).until(() -> skiplock.list(JobQuery.all()).jobs().size() >= 2);
        }
    }

    /** An instance on this test's database whose pool is {@code hook} of the pool and claim_cron_slot's text. */
    private Skiplock hookedOnClaims(java.util.function.BiFunction<javax.sql.DataSource, String, javax.sql.DataSource> hook) {
        Skiplock client = client();
        javax.sql.DataSource hooked = hook.apply(client.dataSource(), BeforeStatement.sql(client, "cron", "claim_cron_slot"));
        return track(Skiplock.builder().dataSource(hooked).config(fastConfig().build()).build());
    }

    /** A name of the longest allowed length: its slots must not share one truncated key. */
    @Test
    void aScheduleNameOfTheMaximumLengthGetsDistinctSlots() {
        String name = "n".repeat(128);
        Names.check("name", name);
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry(name, "@every 1m", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        Instant slot = nextSlot(Duration.ofMinutes(1));
        TestClock clock = new TestClock(slot.minusSeconds(1));
        CronScheduler scheduler = CronScheduler.create(withCron(cron), skiplock, clock);

        clock.advance(Duration.ofSeconds(1));
        assertThat(scheduler.fireDue()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(1));
        assertThat(scheduler.fireDue()).isEqualTo(1);

        List<Job> jobs = skiplock.list(JobQuery.all()).jobs();
        assertThat(jobs).hasSize(2).extracting(Job::status).containsOnly(JobStatus.QUEUED);
        assertThat(markers(skiplock)).containsExactlyInAnyOrder(name + " " + jobs.get(0).id(),
                name + " " + jobs.get(1).id());
    }

    /**
     * Markers go with the job history: older than the retention → pruned; younger → kept; and never
     * younger than a day, whatever the retention, so clock skew cannot re-fire a pruned slot.
     */
    @Test
    void slotMarkersArePrunedWithTheHistoryButKeptAtLeastADay() {
        Skiplock skiplock = client();
        JobRequest request = JobRequest.of("tick", null).withQueue("nobody-works-this");
        Instant first = Instant.parse("2026-01-01T03:00:00Z");
        Map<String, Duration> ages = Map.of("eight-days", Duration.ofDays(8), "two-days", Duration.ofDays(2),
                "two-hours", Duration.ofHours(2), "fresh", Duration.ZERO);
        ages.forEach((schedule, age) -> {
            assertThat(skiplock.enqueueScheduled(schedule, first, request)).isPresent();
            backdateMarker(skiplock, schedule, age);
        });
        CronStore store = cronStore(skiplock);

        assertThat(store.pruneCronSlots(Duration.ofDays(7), 100)).as("retention 7 days").isEqualTo(1);
        assertThat(markerSchedules(skiplock)).containsExactlyInAnyOrder("two-days", "two-hours", "fresh");
        assertThat(store.pruneCronSlots(Duration.ofHours(1), 100)).as("retention 1 hour: kept a day").isEqualTo(1);
        assertThat(markerSchedules(skiplock)).containsExactlyInAnyOrder("two-hours", "fresh");
        assertThat(skiplock.enqueueScheduled("two-hours", first, request)).isEmpty();
        assertThat(skiplock.enqueueScheduled("fresh", first, request)).isEmpty();
        assertThat(skiplock.list(JobQuery.all()).jobs()).hasSize(4);
    }

    /**
     * A slot whose marker was pruned is not enqueued again, nor is an earlier slot of its schedule
     * (a scheduler whose clock is days behind, or one that stalled that long between its check of
     * the slot's lateness and its claim): before, the pruned marker was the slot's only record, and
     * the slot ran twice. A later slot, another tenant's and another schedule's still are.
     */
    @Test
    void aSlotWhoseMarkerWasPrunedIsNotEnqueuedAgain() {
        Skiplock skiplock = client();
        JobRequest request = JobRequest.of("tick", null).withQueue("nobody-works-this");
        Instant slot = Instant.parse("2026-01-01T03:00:00Z");
        assertThat(skiplock.enqueueScheduled("nightly", slot, request)).isPresent();
        assertThat(skiplock.enqueueScheduled("nightly", slot.plus(Duration.ofDays(1)), request)).isPresent();
        assertThat(skiplock.enqueueScheduled("hourly", slot, request)).isPresent();
        backdateMarker(skiplock, "nightly", slot, Duration.ofDays(2));
        assertThat(cronStore(skiplock).pruneCronSlots(Duration.ofHours(1), 100)).isEqualTo(1);

        assertThat(skiplock.enqueueScheduled("nightly", slot, request)).as("the pruned slot").isEmpty();
        assertThat(skiplock.enqueueScheduled("nightly", slot.minus(Duration.ofDays(1)), request))
                .as("an earlier slot").isEmpty();
        assertThat(skiplock.enqueueScheduled("nightly", slot.plus(Duration.ofDays(1)), request))
                .as("a later slot still recorded").isEmpty();
        assertThat(skiplock.enqueueScheduled("nightly", slot.plus(Duration.ofDays(2)), request)).isPresent();
        assertThat(skiplock.tenant("other").enqueueScheduled("nightly", slot, request)).isPresent();
        assertThat(skiplock.enqueueScheduled("hourly", slot.plusSeconds(3600), request)).isPresent();
        assertThat(skiplock.list(JobQuery.all()).jobs()).hasSize(5);
    }

    /**
     * A slot recorded ahead of its time (a library caller's enqueueScheduled of a slot to come) keeps
     * its marker until the slot is past the retention too: pruned at its record's age, it made every
     * earlier slot of its schedule refused (second reader).
     */
    @Test
    void aSlotRecordedAheadOfItsTimeKeepsItsMarkerUntilThen() {
        Skiplock skiplock = client();
        JobRequest request = JobRequest.of("tick", null).withQueue("nobody-works-this");
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
        assertThat(skiplock.enqueueScheduled("weekly", now.plus(Duration.ofDays(7)), request)).isPresent();
        backdateMarker(skiplock, "weekly", Duration.ofDays(2));

        assertThat(cronStore(skiplock).pruneCronSlots(Duration.ofHours(1), 100)).isZero();
        assertThat(markerSchedules(skiplock)).containsExactly("weekly");
        assertThat(skiplock.enqueueScheduled("weekly", now, request)).as("a slot before it").isPresent();
    }

    @Test
    void enqueueScheduledTakesEachSlotOnceAndRejectsAUniqueKey() {
        Skiplock skiplock = client();
        JobRequest request = JobRequest.of("tick", null).withQueue("nobody-works-this");
        Instant slot = Instant.parse("2026-01-01T03:00:00.123Z");

        Job job = skiplock.enqueueScheduled("nightly", slot, request).orElseThrow();
        assertThat(skiplock.enqueueScheduled("nightly", slot, request)).isEmpty();
        assertThat(skiplock.tenant("other").enqueueScheduled("nightly", slot, request)).as("per tenant").isPresent();
        assertThat(skiplock.enqueueScheduled("nightly", slot.plusMillis(1), request)).isPresent();
        assertThat(skiplock.get(job.id())).isPresent();
        assertThatThrownBy(() -> skiplock.enqueueScheduled("nightly", slot.plusSeconds(1),
                request.withUniqueKey("k"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("uniqueKey:");
        assertThatThrownBy(() -> skiplock.enqueueScheduled("bad name", slot, request))
                .hasMessageStartingWith("schedule:");
    }

    /** {@code "<schedule> <job id>"} per slot marker. */
    private static List<String> markers(Skiplock skiplock) {
        return Jdbc.query(skiplock.dataSource(), "SELECT schedule, job_id FROM skiplock_cron_slots",
                row -> row.getString(1) + " " + row.getString(2));
    }

    private static List<String> markerSchedules(Skiplock skiplock) {
        return Jdbc.query(skiplock.dataSource(), "SELECT schedule FROM skiplock_cron_slots", row -> row.getString(1));
    }

    /** Moves a marker's {@code created_at} back by {@code age} (each database keeps time its own way). */
    private static void backdateMarker(Skiplock skiplock, String schedule, Duration age) {
        String sql = switch (skiplock.driverName()) {
            case "postgres" -> "UPDATE skiplock_cron_slots SET created_at = created_at - CAST(? AS bigint)"
                    + " * interval '1 millisecond' WHERE schedule = ?";
            default -> "UPDATE skiplock_cron_slots SET created_at = created_at - ? WHERE schedule = ?";
        };
        assertThat(Jdbc.update(skiplock.dataSource(), sql, age.toMillis(), schedule)).isEqualTo(1);
    }

    /** As {@link #backdateMarker(Skiplock, String, Duration)}, the marker of one slot of the schedule. */
    static void backdateMarker(Skiplock skiplock, String schedule, Instant slot, Duration age) {
        String sql = switch (skiplock.driverName()) {
            case "postgres" -> "UPDATE skiplock_cron_slots SET created_at = created_at - CAST(? AS bigint)"
                    + " * interval '1 millisecond' WHERE schedule = ? AND slot = ?";
            default -> "UPDATE skiplock_cron_slots SET created_at = created_at - ? WHERE schedule = ? AND slot = ?";
        };
        assertThat(Jdbc.update(skiplock.dataSource(), sql, age.toMillis(), schedule, slot.toEpochMilli())).isEqualTo(1);
    }

    private CronStore cronStore(Skiplock skiplock) {
        return cronStore(skiplock.dataSource());
    }

    /** The cron store of this test's database, on {@code pool}. */
    CronStore cronStore(javax.sql.DataSource pool) {
        Driver driver = ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.acceptsUrl(database.url())).findFirst().orElseThrow();
        return new CronStore(pool, driver, new JobStore(pool, driver));
    }

    /** The first slot of a period at least a few seconds ahead, aligned to the epoch like {@code @every}. */
    private static Instant nextSlot(Duration period) {
        long step = period.toMillis();
        return Instant.ofEpochMilli((System.currentTimeMillis() / step + 2) * step);
    }

    private static void advance(Duration duration, TestClock... clocks) {
        for (TestClock clock : clocks) {
            clock.advance(duration);
        }
    }

    @Test
    void invalidEntriesAreRejectedNamingTheField() {
        Skiplock skiplock = client();
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "61 * * * *", null, Json.read("{\"kind\": \"x\"}"))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cron[0].schedule:");
        // a period whose first slot (aligned to the epoch) lay 114,000 years ahead was taken
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("never", "@every 999999999h", null, Json.read("{\"kind\": \"x\"}"))))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cron[0].schedule: @every must be at most 8784h");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", "Mars/Olympus", Json.read("{\"kind\": \"x\"}"))))))
                .hasMessageStartingWith("cron[0].timezone:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"oops\": 1}"))))))
                .hasMessageStartingWith("cron[0].job.oops:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"uniqueKey\": \"k\"}"))))))
                .hasMessageStartingWith("cron[0].job.uniqueKey:");
        // every slot's job carries its slot as runAt and its own trace, and metadata.cron names its slot
        for (String field : List.of("runAt", "traceparent")) {
            assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(new CronEntry("nightly", "0 3 * * *",
                    null, Json.read("{\"kind\": \"x\", \"" + field + "\": " + (field.equals("runAt")
                            ? "\"2030-01-01T00:00:00Z\"" : "\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"")
                            + "}"))))))
                    .hasMessageStartingWith("cron[0].job." + field + ":");
        }
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"metadata\": {\"cron\": 1}}"))))))
                .hasMessageStartingWith("cron[0].job.metadata.cron:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("never", "0 0 30 2 *", null, Json.read("{\"kind\": \"x\"}"))))))
                .hasMessageStartingWith("cron[0].schedule:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("report", "0 3 * * *", null, Json.read("{\"kind\": \"x\"}")),
                new CronEntry("report", "0 3 * * 1", null, Json.read("{\"kind\": \"y\"}"))))))
                .hasMessageStartingWith("cron[1].name:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"dependsOn\": [\""
                        + java.util.UUID.randomUUID() + "\"]}"))))))
                .hasMessageStartingWith("cron[0].job.dependsOn:");
        // its every slot's enqueue failed, from the first slot on
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"args\": \"a\\u0000b\"}"))))))
                .hasMessageStartingWith("cron[0].job.args:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"metadata\": {\"a\\u0000\": \"b\"}}"))))))
                .hasMessageStartingWith("cron[0].job.metadata:");
    }
}
