package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard (issue #14) in headless Chromium against a real server: each page loads without
 * console errors, lists update without a reload, a job's log arrives live, the buttons act through
 * the API, the overview charts each queue's finished jobs and ages its oldest waiting one, and with
 * tokens configured the page asks for one. Screenshots of each page go to
 * {@code target/dashboard-screenshots/}. Needs Debian's {@code chromium} and {@code chromium-driver}
 * ({@code .ci/run} installs them): without them these tests fail, they are not skipped.
 */
abstract class DashboardContract extends ContractBase {
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");
    private static final String ADMIN_TOKEN = "dashboard-admin-token";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static ChromeDriver browser;

    private Skiplock skiplock;
    private SkiplockServer server;
    private Http http;
    private WebDriverWait wait;

    @TempDir
    Path files;

    @BeforeAll
    static void startBrowser() {
        assertThat(CHROMEDRIVER).as("chromedriver is missing: apt-get install -y chromium chromium-driver "
                + "(.ci/run does); the dashboard tests need it and are not skipped without it").isExecutable();
        assertThat(CHROMIUM).as("chromium is missing: apt-get install -y chromium chromium-driver").isExecutable();
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.executeScript("console.error('skiplock console probe')");
        assertThat(browser.manage().logs().get(LogType.BROWSER).getAll()).as("the console check sees an error")
                .anyMatch(entry -> entry.getMessage().contains("skiplock console probe"));
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @BeforeEach
    void startServer() {
        skiplock = started(builder(config -> config.queue("default", 4).maxStepsPerJob(2_000))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner())
                .handler("progress", JsonNode.class, context -> {
                    for (int step = 1; step <= context.args().path("steps").asInt(); step++) {
                        context.progress(Map.of("step", step));
                    }
                    return dev.skiplock.JobOutcome.complete();
                })
                .handler("steps", JsonNode.class, context -> {
                    for (int step = 1; step <= context.args().path("steps").asInt(); step++) {
                        int output = step;
                        context.step("item-" + step, () -> output);
                    }
                    return dev.skiplock.JobOutcome.complete();
                }));
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1024 * 1024, true, Map.of()));
        http = new Http(server.port());
        wait = new WebDriverWait(browser, WAIT);
        browser.manage().window().setSize(new Dimension(1280, 900));
        browser.manage().logs().get(LogType.BROWSER);
    }

    @AfterEach
    void stopServer() {
        browser.get("about:blank");
        server.close();
    }

    @Test
    void theOverviewShowsQueueCountsWithoutConsoleErrors() throws IOException {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"hello\"]}}");
        String failing = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"false\"]}}");
        awaitJob(id, "succeeded");
        awaitJob(failing, "failed");

        open(server.port(), "/");

        WebElement succeeded = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("tr[data-queue='default'] td[data-label='succeeded']")));
        wait.until(ExpectedConditions.textToBePresentInElement(succeeded, "1"));
        assertThat(browser.findElement(By.cssSelector("a[aria-current='page']")).getText()).isEqualTo("Overview");
        screenshot("overview");
        browser.manage().window().setSize(new Dimension(390, 844));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-queue='default'] button")));
        screenshot("overview-phone");
        assertNoConsoleErrors();
    }

    @Test
    void theOverviewChartsAQueuesFinishedJobsAndAgesTheOldestWaitingOne() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"counted\"]}}");
        awaitJob(id, "succeeded");
        submit("{\"kind\": \"parked\", \"queue\": \"unserved\"}");

        open(server.port(), "/");

        // One job finished: in the current minute, or in the one before if a minute began since.
        Map<String, Object> served = wait.until(driver -> {
            Map<String, Object> row = overviewRow("default");
            return row != null && !row.get("label").toString().startsWith("0 ") ? row : null;
        });
        assertThat(served.get("label").toString())
                .matches("1 job finished in the last 15 minutes; [01] in the current minute");
        assertThat(served.get("title")).as("the chart's <title>").isEqualTo(served.get("label"));
        assertThat(served.get("total")).as("the total beside the chart").isEqualTo("1");
        List<Long> counts = longs(served.get("counts"));
        assertThat(counts).as("one bar per minute").hasSize(15);
        assertThat(counts.stream().filter(count -> count > 0)).as("the bars' counts").containsExactly(1L);
        List<Long> heights = longs(served.get("heights"));
        assertThat(heights.indexOf(heights.stream().max(Long::compare).orElseThrow()))
                .as("the tallest bar is the minute with the finished job").isEqualTo(counts.indexOf(1L));
        assertThat(heights.stream().filter(height -> height > 0)).as("bars drawn").hasSize(1);
        assertThat(served.get("oldest")).as("no job waits in default").isEqualTo("—");

        Map<String, Object> unserved = wait.until(driver -> overviewRow("unserved"));
        assertThat(unserved.get("oldest").toString()).as("the parked job's age").matches("\\d+ (s|min|h|d)");
        assertThat(unserved.get("label")).isEqualTo("0 jobs finished in the last 15 minutes; 0 in the current minute");
        assertThat(unserved.get("total")).isEqualTo("0");
        screenshot("overview-activity");

        browser.manage().window().setSize(new Dimension(390, 844));
        WebElement chart = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("tr[data-queue='default'] svg[role='img']")));
        assertThat(chart.getRect().getX() + chart.getRect().getWidth()).as("the chart fits a phone's width")
                .isLessThanOrEqualTo(((Number) browser.executeScript("return window.innerWidth")).intValue());
        screenshot("overview-activity-phone");
        assertNoConsoleErrors();
    }

    @Test
    void aJobSubmittedThroughTheApiAppearsInTheListWithoutAReload() {
        open(server.port(), "/#/jobs");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("table.jobs tbody"), "No jobs match."));
        browser.executeScript("window.skiplockNotReloaded = true");

        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"listed\"]}, \"queue\": \"default\"}");

        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + id + "']")));
        assertThat(browser.executeScript("return window.skiplockNotReloaded === true")).isEqualTo(true);
        screenshot("jobs");
        browser.findElement(By.id("filter-status")).sendKeys("failed");
        browser.findElement(By.cssSelector("form.filters button[type='submit']")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("table.jobs tbody"), "No jobs match."));
        assertThat(browser.getCurrentUrl()).endsWith("#/jobs?status=failed");
        assertNoConsoleErrors();
    }

    @Test
    void aJobsLogLinesStepsAndStatusArriveLiveOnItsPage() {
        Path go = files.resolve("go");
        String script = "echo one; for i in $(seq 600); do [ -e '" + go + "' ] && break; sleep 0.1; done; echo two; "
                + "echo '{\"rows\": 3}' > \"$SKIPLOCK_STEPS/fetch.tmp\" && mv \"$SKIPLOCK_STEPS/fetch.tmp\" \"$SKIPLOCK_STEPS/fetch\"";
        String id = submit(JSON.valueToTree(Map.of("kind", "command", "args", Map.of("argv", List.of("sh", "-c", script)))).toString());

        open(server.port(), "/#/jobs/" + id);

        WebElement log = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("job-log")));
        wait.until(ExpectedConditions.textToBePresentInElement(log, "one"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "running"));
        assertThat(log.getText()).doesNotContain("two");
        screenshot("job-running");
        touch(go);
        wait.until(ExpectedConditions.textToBePresentInElement(log, "two"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "succeeded"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#job-steps li[data-step='fetch']")));
        assertThat(browser.findElement(By.linkText("Download events (NDJSON)")).getAttribute("href"))
                .endsWith("/api/v1/jobs/" + id + "/events/download");
        assertThat(browser.findElement(By.id("job-fields")).getText()).contains("dependsOn", "maxAttempts", "lastError");
        screenshot("job");
        assertNoConsoleErrors();
    }

    /**
     * A job's page keeps its last 10,000 log lines and says how many earlier ones it left out: a job
     * may print millions, and a page holding them all would halt the browser. The download has them all.
     */
    @Test
    void aJobsPageKeepsItsLastTenThousandLogLines() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"seq\", \"12000\"]}}");
        awaitJob(id, "succeeded");

        open(server.port(), "/#/jobs/" + id);

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "The job has finished"));
        wait.until(driver -> "12000".equals(
                browser.executeScript("return document.querySelector('#job-log .line:last-child')?.textContent")));
        assertThat(browser.executeScript("const lines = document.querySelectorAll('#job-log .line');"
                + " return [lines.length, lines[0].textContent, lines[lines.length - 1].textContent];"))
                .isEqualTo(List.of(10_000L, "2001", "12000"));
        assertThat(browser.findElement(By.id("log-trimmed")).getText())
                .startsWith("The first 2,000 lines are not shown here: the last 10,000 are.");
        assertNoConsoleErrors();
    }

    /**
     * A job's page cuts each log line it shows at 2,000 characters, saying how many more there are:
     * the server sends lines of up to 64 KiB, and 10,000 of them halted the browser. Before, a line
     * was shown whole.
     */
    @Test
    void aJobsPageCutsALongLogLine() {
        String id = submit(JSON.valueToTree(Map.of("kind", "command", "args", Map.of("argv", List.of("sh", "-c",
                "head -c 50000 /dev/zero | tr '\\0' x; echo; echo short")))).toString());
        awaitJob(id, "succeeded");

        open(server.port(), "/#/jobs/" + id);

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "The job has finished"));
        wait.until(driver -> "short".equals(
                browser.executeScript("return document.querySelector('#job-log .line:last-child')?.textContent")));
        assertThat(browser.executeScript("return document.querySelector('#job-log .line').textContent"))
                .isEqualTo("x".repeat(2_000) + "… (48,000 characters more)");
        assertNoConsoleErrors();
    }

    /**
     * A job's page whose read of the job fails after the stream ended (a server restarting, a proxy's
     * 502) says so and reads it again until it answers, then shows the job's end. Before, one failed
     * read ended the following for good, the page still saying "Live".
     */
    @Test
    void aJobsPageWhoseReadOfTheJobFailsReadsItAgain() {
        Path go = files.resolve("go");
        String id = shownEchoingOneThenTwoOnceThere(go);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "Live"));

        failReads("/api/v1/jobs/" + id);
        touch(go);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"),
                "Reconnecting (the test failed this read)"));
        assertThat(browser.findElement(By.id("job-status")).getText()).isEqualTo("running");
        readsWork();

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "The job has finished"));
        assertThat(browser.findElement(By.id("job-status")).getText()).isEqualTo("succeeded");
        assertThat(browser.findElement(By.id("job-log")).getText().lines().toList()).containsExactly("one", "two");
        assertThat(browser.findElement(By.id("notice")).getText()).as("the failed reads' error, gone").isEmpty();
    }

    /**
     * A job's page whose event stream cannot be opened says it is reconnecting and why, and says
     * "Live" again once a connection is answered. Before, each failed opening was tried again in
     * silence, the page saying "Live" while it showed nothing new.
     */
    @Test
    void aJobsPageSaysWhenItsStreamCannotBeOpened() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"one\"]}}");
        awaitJob(id, "succeeded");
        open(server.port(), "/");
        failReads("/api/v1/jobs/" + id + "/events/stream");

        browser.executeScript("location.hash = arguments[0]", "#/jobs/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"),
                "Reconnecting (the test failed this read)"));
        assertThat(browser.findElement(By.id("job-log")).getText()).isEmpty();
        readsWork();

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "The job has finished"));
        assertThat(browser.findElement(By.id("job-log")).getText()).isEqualTo("one");
    }

    /**
     * A failed load of a page that reloads itself shows the error until a load works, then takes it
     * away; and the jobs page asks who the caller is again until it answers. Before, the error stayed
     * over fresh figures, and a failed ask left the jobs page a heading for good.
     */
    @Test
    void anErrorOfAFailedLoadGoesWhenALoadWorks() {
        open(server.port(), "/");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-queue='default']")));
        failReads("/api/v1/queues");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Error: the test failed this read"));
        readsWork();
        wait.until(driver -> driver.findElement(By.id("notice")).getText().isEmpty());

        failReads("/api/v1/whoami");
        browser.executeScript("location.hash = '#/jobs'");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Error: the test failed this read"));
        readsWork();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table.jobs")));
        wait.until(driver -> driver.findElement(By.id("notice")).getText().isEmpty());
    }

    /**
     * Submits a command that prints "one", then "two" once {@code go} exists, and opens its page until
     * "one" shows; returns the job's id.
     */
    private String shownEchoingOneThenTwoOnceThere(Path go) {
        String script = "echo one; for i in $(seq 600); do [ -e '" + go + "' ] && break; sleep 0.1; done; echo two";
        String id = submit(JSON.valueToTree(Map.of("kind", "command", "args", Map.of("argv", List.of("sh", "-c", script)))).toString());
        open(server.port(), "/#/jobs/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-log"), "one"));
        return id;
    }

    /**
     * From now on the page fails its reads of {@code path} (a pathname), as a network that drops them
     * does, until {@link #readsWork()}; the page's other calls go through.
     */
    private void failReads(String path) {
        browser.executeScript("""
                if (!window.skiplockFetch) {
                  window.skiplockFetch = window.fetch;
                  window.fetch = (input, init) => new URL(String(input), location.href).pathname === window.skiplockFailing
                      ? Promise.reject(new TypeError('the test failed this read')) : window.skiplockFetch(input, init);
                }
                window.skiplockFailing = arguments[0];""", path);
    }

    private void readsWork() {
        browser.executeScript("window.skiplockFailing = null");
    }

    /**
     * A job's page reads the job once at a time however many status or progress events come: before,
     * it read the job once per event, so a job that reported progress 2,500 times sent 2,500 reads
     * when its page opened, answered in any order.
     */
    @Test
    void aJobsPageReadsTheJobOnceAtATimeWhateverItsEvents() {
        String id = submit("{\"kind\": \"progress\", \"args\": {\"steps\": 2500}}");
        awaitJob(id, "succeeded");
        open(server.port(), "/#/jobs");
        browser.executeScript("performance.setResourceTimingBufferSize(100000); performance.clearResourceTimings()");

        browser.executeScript("location.hash = arguments[0]", "#/jobs/" + id);

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("stream-state"), "The job has finished"));
        Number reads = (Number) browser.executeScript("return performance.getEntriesByType('resource')"
                + ".filter(entry => new URL(entry.name).pathname === arguments[0]).length", "/api/v1/jobs/" + id);
        assertThat(reads.intValue()).isBetween(1, 99);
        assertThat(browser.findElement(By.id("job-progress")).getText()).contains("2500");
        assertNoConsoleErrors();
    }

    /**
     * A job's page whose event stream drops (here the server restarts on its port) follows on from
     * the last event it showed. It used to resume from where its connection had started, and showed
     * each line of that connection again.
     */
    @Test
    void aJobsPageWhoseStreamDropsResumesAfterTheLastLineItShowed() {
        Path go = files.resolve("go");
        shownEchoingOneThenTwoOnceThere(go);
        WebElement log = browser.findElement(By.id("job-log"));

        int port = server.port();
        server.close();
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", port, 1024 * 1024, true, Map.of()));
        touch(go);

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "succeeded"));
        wait.until(ExpectedConditions.textToBePresentInElement(log, "two"));
        assertThat(log.getText().lines().toList()).containsExactly("one", "two");
    }

    @Test
    void theCancelButtonAfterConfirmationStopsARunningCommand() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"30\"]}}");
        awaitJob(id, "running");
        open(server.port(), "/#/jobs/" + id);

        click(By.cssSelector("button[data-action='cancel']"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "cancelled"));
        assertThat(http.get("/api/v1/jobs/" + id).json().get("status").asText()).isEqualTo("cancelled");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("button[data-action='retry']")));
        assertNoConsoleErrors();
    }

    @Test
    void pauseAndResumeOnTheOverviewChangeTheQueue() {
        open(server.port(), "/");
        By button = By.cssSelector("tr[data-queue='default'] button");
        By state = By.cssSelector("tr[data-queue='default'] .queue-state");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(state, "active"));

        click(button);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(state, "paused"));
        assertThat(queuePaused()).isTrue();

        wait.until(ExpectedConditions.textToBePresentInElementLocated(button, "Resume"));
        click(button);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(state, "active"));
        assertThat(queuePaused()).isFalse();
        assertNoConsoleErrors();
    }

    @Test
    void theWorkersPageListsThisServersWorker() {
        open(server.port(), "/#/workers");

        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table.workers tr[data-worker]")));
        assertThat(browser.findElement(By.cssSelector("table.workers tbody")).getText())
                .contains("active", String.valueOf(ProcessHandle.current().pid()), "default", "ago");
        screenshot("workers");
        assertNoConsoleErrors();
    }

    @Test
    void withTokensThePageAsksForATokenThenShowsData() throws Exception {
        submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"hello\"]}}");
        Skiplock secured = started(builder(config -> config.queue("default", 1)));
        try (SkiplockServer withTokens = SkiplockServer.start(secured, new ServerConfig("127.0.0.1", 0, 1024 * 1024,
                false, Map.of(), Map.of(sha256(ADMIN_TOKEN), "*"), null, List.of()))) {
            Http anonymous = new Http(withTokens.port());
            Http.Answer page = anonymous.get("/");
            assertThat(page.status()).as("the dashboard's files need no token").isEqualTo(200);
            assertThat(page.contentType()).startsWith("text/html");
            assertThat(anonymous.get("/api/v1/queues").status()).as("the API still does").isEqualTo(401);
            open(withTokens.port(), "/");

            WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token-input")));
            screenshot("token");
            assertThat(browser.switchTo().activeElement()).as("the token field has the focus").isEqualTo(input);
            input.sendKeys(ADMIN_TOKEN, Keys.ENTER);

            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-queue='default']")));
            assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isFalse();
            assertThat(browser.executeScript("return sessionStorage.getItem('skiplock.token')")).isEqualTo(ADMIN_TOKEN);
            open(withTokens.port(), "/#/workers");
            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table.workers tr[data-worker]")));
            assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isFalse();
            browser.get("about:blank");
        }
    }

    @Test
    void theRetryButtonAfterConfirmationQueuesAFailedJobAgain() {
        // Attempt 1 fails; attempt 2 (the retry) holds until the test lets it go, so the page can be
        // seen showing it running again rather than racing a second failure.
        Path go = files.resolve("go");
        String script = "[ \"$SKIPLOCK_ATTEMPT\" = 1 ] && exit 3; "
                + "for i in $(seq 600); do [ -e '" + go + "' ] && exit 0; sleep 0.1; done; exit 4";
        String id = submit(JSON.valueToTree(Map.of("kind", "command", "maxAttempts", 1,
                "args", Map.of("argv", List.of("sh", "-c", script)))).toString());
        awaitJob(id, "failed");
        open(server.port(), "/#/jobs/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "failed"));

        click(By.cssSelector("button[data-action='retry']"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "running"));
        JsonNode retried = http.get("/api/v1/jobs/" + id).json();
        assertThat(retried.get("status").asText()).isEqualTo("running");
        assertThat(retried.get("attempt").asInt()).isEqualTo(2);
        assertThat(browser.findElement(By.id("notice")).getText()).contains("queued again");
        assertThat(browser.findElements(By.cssSelector("button[data-action='retry']"))).as("a running job has no Retry").isEmpty();
        touch(go);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "succeeded"));
        assertNoConsoleErrors();
    }

    @Test
    void theDeleteButtonAfterConfirmationDeletesAFinishedJobAndReturnsToTheList() {
        String kept = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"kept\"]}}");
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"gone\"]}}");
        awaitJob(id, "succeeded");
        open(server.port(), "/#/jobs/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-status"), "succeeded"));

        click(By.cssSelector("button[data-action='delete']"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        wait.until(ExpectedConditions.urlToBe("http://127.0.0.1:" + server.port() + "/#/jobs"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + kept + "']")));
        assertThat(browser.findElements(By.cssSelector("tr[data-job='" + id + "']"))).as("the deleted job's row").isEmpty();
        assertThat(browser.findElement(By.id("notice")).getText()).contains("deleted");
        assertThat(http.get("/api/v1/jobs/" + id).status()).isEqualTo(404);
        assertNoConsoleErrors();
    }

    @Test
    void theNextPageLinkShowsTheOlderJobsOnceEach() {
        StringBuilder batch = new StringBuilder("{\"jobs\": [");
        for (int i = 0; i < 75; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"kind\": \"parked\", \"queue\": \"unserved\"}");
        }
        Http.Answer created = http.post("/api/v1/jobs/batch", batch.append("]}").toString());
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        List<String> newestFirst = new java.util.ArrayList<>();
        created.json().get("jobs").forEach(job -> newestFirst.addFirst(job.get("id").asText()));
        open(server.port(), "/#/jobs");

        wait.until(driver -> rowIds().size() == 50);
        List<String> first = rowIds();
        click(By.cssSelector("nav.pager a[rel='next']"));
        wait.until(ExpectedConditions.urlContains("cursor="));
        wait.until(driver -> rowIds().size() == 25);
        List<String> second = rowIds();

        assertThat(first).doesNotContainAnyElementsOf(second);
        List<String> both = new java.util.ArrayList<>(first);
        both.addAll(second);
        assertThat(both).containsExactlyElementsOf(newestFirst);
        assertThat(browser.findElements(By.cssSelector("nav.pager a[rel='next']"))).as("the last page").isEmpty();
        assertThat(browser.findElement(By.linkText("First page")).isDisplayed()).isTrue();
        assertNoConsoleErrors();
    }

    @Test
    void anAdminTokenSeesEveryTenantAndFiltersOneWhileATenantTokenSeesItsOwn() throws Exception {
        Skiplock secured = client();
        String acme = secured.tenant("acme").enqueue(JobRequest.of("report", null).withQueue("unserved")).id().toString();
        String globex = secured.tenant("globex").enqueue(JobRequest.of("report", null).withQueue("unserved")).id().toString();
        try (SkiplockServer withTokens = SkiplockServer.start(secured, new ServerConfig("127.0.0.1", 0, 1024 * 1024,
                false, Map.of(), Map.of(sha256(ADMIN_TOKEN), "*", sha256("acme-token"), "acme"), null, List.of()))) {
            open(withTokens.port(), "/#/jobs");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token-input"))).sendKeys(ADMIN_TOKEN, Keys.ENTER);
            wait.until(driver -> rowIds().containsAll(List.of(acme, globex)));
            assertThat(browser.findElement(By.cssSelector("tr[data-job='" + globex + "'] td[data-label='tenant']")).getText())
                    .isEqualTo("globex");
            screenshot("jobs-admin");

            browser.findElement(By.id("filter-tenant")).sendKeys("acme", Keys.ENTER);
            wait.until(ExpectedConditions.urlContains("tenant=acme"));
            wait.until(driver -> rowIds().equals(List.of(acme)));

            browser.executeScript("sessionStorage.clear()");
            open(withTokens.port(), "/#/jobs");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token-input"))).sendKeys("acme-token", Keys.ENTER);
            wait.until(driver -> rowIds().equals(List.of(acme)));
            assertThat(browser.findElements(By.id("filter-tenant"))).as("a tenant token has no tenant filter").isEmpty();
            assertThat(browser.findElements(By.cssSelector("td[data-label='tenant']"))).isEmpty();
            // the browser logs each 401 that made the page ask for a token: expected twice here
            assertNoConsoleErrorsBut("/api/v1/whoami - Failed to load resource: the server responded with a status of 401");
            browser.get("about:blank");
        }
    }

    /**
     * What the overview shows for a queue (null while it has no row): the chart's label, title, bar
     * counts and heights, the total beside it and the oldest waiting job's age. Read in one script,
     * so a row redrawn by the page's refresh is never read half old, half new.
     */
    @SuppressWarnings("unchecked")
    private Map<String, Object> overviewRow(String queue) {
        return (Map<String, Object>) browser.executeScript("""
                const row = [...document.querySelectorAll('table.queues tr[data-queue]')]
                    .find(candidate => candidate.dataset.queue === arguments[0]);
                if (!row) return null;
                const chart = row.querySelector('svg[role="img"]');
                const bars = [...chart.querySelectorAll('rect.bar')];
                return {label: chart.getAttribute('aria-label'), title: chart.querySelector('title').textContent,
                    counts: bars.map(bar => Number(bar.dataset.count)),
                    heights: bars.map(bar => Number(bar.getAttribute('height'))),
                    total: row.querySelector('.throughput-total').textContent,
                    oldest: row.querySelector('.oldest-waiting').textContent};
                """, queue);
    }

    private static List<Long> longs(Object numbers) {
        return ((List<?>) numbers).stream().map(number -> ((Number) number).longValue()).toList();
    }

    /** The job ids of the rows the jobs page shows, top to bottom (a list redrawn meanwhile is read again). */
    private List<String> rowIds() {
        return wait.ignoring(StaleElementReferenceException.class).until(driver ->
                driver.findElements(By.cssSelector("table.jobs tbody tr[data-job]")).stream()
                        .map(row -> row.getAttribute("data-job")).toList());
    }

    /**
     * A job's page keeps its last 1,000 step events and says how many went before: a job allowed more
     * checkpoints (maxStepsPerJob, each output up to 1 MiB) grew the page without bound before.
     */
    @Test
    void aJobsPageKeepsItsLastThousandStepEvents() {
        String id = submit("{\"kind\": \"steps\", \"args\": {\"steps\": 1100}}");
        awaitJob(id, "succeeded");

        open(server.port(), "/#/jobs/" + id);

        WebElement trimmed = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("steps-trimmed")));
        wait.until(driver -> driver.findElements(By.cssSelector("#job-steps > li[data-step='item-1100']")).size() >= 1);
        assertThat(browser.findElements(By.cssSelector("#job-steps > li"))).hasSize(1_000);
        assertThat(trimmed.getText()).contains("are not shown here");
        assertThat(browser.findElements(By.cssSelector("#job-steps > li[data-step='item-1']"))).isEmpty();
        assertNoConsoleErrors();
    }

    /** A hash typed by hand with a bare '%' shows the job's page and the API's answer; before, the router threw and showed nothing. */
    @Test
    void aJobAddressWithABarePercentSignShowsThePage() {
        open(server.port(), "/#/jobs/%");

        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#view h1")));
        // the API's refusal is said once, not read again each second as if the server were away
        // (second reader: it was, the stream line saying "Reconnecting" for good)
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Error: id:"));
        assertThat(browser.findElement(By.id("stream-state")).getText()).doesNotStartWith("Reconnecting");
        assertNoConsoleErrorsBut("/api/v1/jobs/%25");
    }

    /**
     * No other page may frame the dashboard: one on another port of this host could lay its Pause
     * button under a click, and without tokens the framed page's own calls pass the server's check of
     * Host and Origin. Before, the frame loaded the overview.
     */
    @Test
    void anotherPageCannotFrameTheDashboard() throws IOException {
        com.sun.net.httpserver.HttpServer framer = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        byte[] page = ("<!doctype html><title>framer</title><iframe id='dashboard' width='800' height='600' src='"
                + "http://127.0.0.1:" + server.port() + "/'></iframe>").getBytes(StandardCharsets.UTF_8);
        framer.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        framer.start();
        try {
            open(framer.getAddress().getPort(), "/");
            wait.until(ExpectedConditions.frameToBeAvailableAndSwitchToIt("dashboard"));
            wait.until(driver -> "complete".equals(browser.executeScript("return document.readyState")));
            assertThat(browser.findElements(By.cssSelector("main, nav, table"))).as("the framed dashboard's elements")
                    .isEmpty();
            browser.switchTo().defaultContent();
            assertNoConsoleErrorsBut("frame-ancestors");
        } finally {
            browser.switchTo().defaultContent();
            framer.stop(0);
        }
    }

    /** Clicks what locator finds once it is enabled; a list redrawn meanwhile is searched again. */
    private void click(By locator) {
        wait.ignoring(StaleElementReferenceException.class).until(driver -> {
            WebElement element = driver.findElement(locator);
            if (!element.isDisplayed() || !element.isEnabled()) {
                return false;
            }
            element.click();
            return true;
        });
    }

    private void open(int port, String path) {
        browser.get("http://127.0.0.1:" + port + path);
    }

    private String submit(String body) {
        Http.Answer answer = http.post("/api/v1/jobs", body);
        assertThat(answer.status()).as(answer.text()).isEqualTo(201);
        return answer.json().get("id").asText();
    }

    private void awaitJob(String id, String status) {
        await().atMost(WAIT).until(() -> http.get("/api/v1/jobs/" + id).json().get("status").asText(), status::equals);
    }

    private boolean queuePaused() {
        for (JsonNode queue : http.get("/api/v1/queues").json().get("queues")) {
            if (queue.get("name").asText().equals("default")) {
                return queue.get("paused").asBoolean();
            }
        }
        throw new AssertionError("queue default not listed");
    }

    private void assertNoConsoleErrors() {
        assertNoConsoleErrorsBut("(nothing expected)");
    }

    /** As {@link #assertNoConsoleErrors()}, bar the entries containing {@code expected}. */
    private void assertNoConsoleErrorsBut(String expected) {
        List<String> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue())
                .filter(entry -> !entry.getMessage().contains(expected))
                .map(LogEntry::toString).toList();
        assertThat(errors).as("the browser console's warnings and errors").isEmpty();
    }

    private void screenshot(String page) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(getClass().getSimpleName() + "-" + page + ".png"),
                    browser.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void touch(Path file) {
        try {
            Files.writeString(file, "go");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
