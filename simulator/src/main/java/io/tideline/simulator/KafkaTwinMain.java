package io.tideline.simulator;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The through-Kafka mode from the command line (what {@code ./tideline demo} runs): one compressed
 * tidal day against the services on a broker, with a progress bar; then the same scenario through
 * the in-process twin (the same kernels on an in-memory bus), both tables side by side, whether
 * they are equal (exit 3 if not), the charts and {@code report.html}. The run is in lockstep
 * ({@link Twin}, {@link KafkaTransport}): the clock advances only when every service has consumed
 * everything, so the services' table must be the twin's, whatever the broker's latency. Options:
 * {@code --bootstrap} (default {@code 127.0.0.1:9092}), {@code --registry}
 * ({@code http://127.0.0.1:8085}), {@code --nodes} (default 16 nodes = 128 GPUs),
 * {@code --hours} (simulated hours, default 24; or {@code --days}), {@code --step} (the regular
 * tick in simulated minutes, default {@link #DEMO_STEP}), {@code --groups} (the services' consumer groups
 * to wait for, comma-separated; default the four schedulers), {@code --seed} (42), {@code --out}
 * (default {@code target/sim-kafka}), {@code --start} (ISO instant; default 00:00 UTC as many
 * days ago as are played, so every record is in the past: the broker refuses stamps more than an hour ahead),
 * {@code --warm} (the warm fleet, {@link SimConfig#warmStartShare}: training worth this share of
 * the GPUs submitted at the start; default 0.6, so the morning rise must reclaim), {@code --history}
 * (days of online history told to the forecaster before the shown day; default 14).
 *
 * <p>This is an adapter: it reads the wall clock to pace the run and to pick the default start;
 * the twin itself receives both.
 */
public final class KafkaTwinMain {

  private static final int BAR = 30;
  /** The demo's warm fleet: the night's training worth this share of the GPUs at the start. */
  static final double DEMO_WARM_START = 0.6;
  /**
   * The demo's regular tick: every 5 simulated minutes (the study's is 1 minute, production's
   * 10 s). Events still get their tick 1 ms after them (submissions, finishes, demand changes) and
   * cascades their micro-ticks, so this only coarsens what waits for the clock alone (protection
   * and cooldown ends, reservation starts, billing): it halves the lockstep rounds of a day.
   */
  static final Duration DEMO_STEP = Duration.ofMinutes(5);
  /**
   * The demo's history: the two weeks F1 forecasts from, told to the forecaster through
   * {@code gpu.telemetry.batches} before the shown day ({@link SimConfig#historyDays}).
   */
  static final int DEMO_HISTORY_DAYS = 14;
  /**
   * How long a settle may see no service commit anything before the run fails as "a service has
   * stopped". Generous: the first settle of a big fleet applies two weeks of history at one tick,
   * which the forecaster commits only when done.
   */
  static final Duration SETTLE_WITHOUT_PROGRESS = Duration.ofMinutes(10);
  /** Quiet client libraries (held strongly: java.util.logging keeps loggers weakly). */
  private static final List<java.util.logging.Logger> QUIET = new java.util.ArrayList<>();

  private KafkaTwinMain() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    for (String name : List.of("org.apache.kafka", "io.apicurio", "io.vertx", "io.netty",
        "io.kiota", "com.microsoft.kiota")) {
      java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
      l.setLevel(java.util.logging.Level.WARNING);
      QUIET.add(l);
    }
    String bootstrap = env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    String registry = env("TIDELINE_REGISTRY_URL", "http://127.0.0.1:8085");
    int nodes = 16;
    double hours = 24;
    List<String> groups = List.of("placement-svc", "preemption-svc", "quota-svc",
        "forecaster-svc");
    double warm = DEMO_WARM_START;
    Duration step = DEMO_STEP;
    int history = DEMO_HISTORY_DAYS;
    long seed = SimConfig.DEFAULTS.seed();
    Path out = Path.of("target", "sim-kafka");
    Instant start = null;
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--bootstrap" -> bootstrap = v;
        case "--registry" -> registry = v;
        case "--nodes" -> nodes = Integer.parseInt(v);
        case "--hours" -> hours = Double.parseDouble(v);
        case "--days" -> hours = 24 * Double.parseDouble(v);
        case "--groups" -> groups = List.of(v.split(","));
        case "--seed" -> seed = Long.parseLong(v);
        case "--out" -> out = Path.of(v);
        case "--start" -> start = Instant.parse(v);
        case "--warm" -> warm = Double.parseDouble(v);
        case "--history" -> history = Integer.parseInt(v);
        case "--step" -> step = Duration.ofSeconds(Math.round(Double.parseDouble(v) * 60));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    Duration horizon = Duration.ofSeconds((long) (hours * 3600));
    int days = (int) Math.max(1, Math.ceil(hours / 24));
    if (start == null) { // every record in the past, however many days are played
      start = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(days));
    }
    final Instant from = start;
    SimConfig config = SimConfig.DEFAULTS.with(seed, days, nodes).withStart(start)
        .withWarmStart(warm).withHistory(history);
    Scenario scenario = Scenario.synthetic(config);
    PrintStream err = System.err;
    System.out.printf(Locale.ROOT, "through Kafka (%s, registry %s): %.1f simulated hours from %s"
        + " in lockstep (a regular tick every %s) after %d days of history, %d nodes × %d GPUs, seed %d,"
        + " %d offline jobs%n",
        bootstrap, registry, hours, start, step.toString().substring(2).toLowerCase(Locale.ROOT),
        history, nodes, config.gpusPerNode(), seed,
        scenario.jobs().stream().filter(j -> j.submitAt().isBefore(from.plus(horizon))).count());
    long t0 = System.nanoTime();
    Twin.Settings clock = Twin.Settings.of(config).withStep(step);
    SimResult result;
    LockstepLatency latency;
    World world = Twins.world(scenario);
    try (KafkaTransport transport = new KafkaTransport(new KafkaTransport.Settings(bootstrap,
        registry, groups, SETTLE_WITHOUT_PROGRESS, 5), System::currentTimeMillis)) {
      // Ctrl-C: the shutdown hook interrupts the run, which closes the clients (try-with-resources)
      Thread main = Thread.currentThread();
      Thread hook = new Thread(() -> {
        main.interrupt();
        try {
          main.join(10_000);
        } catch (InterruptedException ignored) {
          Thread.currentThread().interrupt();
        }
      });
      Runtime.getRuntime().addShutdownHook(hook);
      result = Twin.run("tideline", world, transport, clock,
          start.plus(horizon), (now, done, w) -> bar(err, now, done, w.runningJobs(), w.waitingJobs(),
              w.decisionsSeen()));
      err.println();
      Runtime.getRuntime().removeShutdownHook(hook);
      latency = transport.latency();
    } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
      err.println();
      err.println("interrupted: stopped");
      return;
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    // the same scenario through the same kernels in process (ADR 0008): the services must agree
    long t1 = System.nanoTime();
    SimResult twin = Twin.run("tideline", Twins.world(scenario),
        Twins.inProcess(scenario, Policy.TIDELINE), clock, start.plus(horizon),
        null);
    double twinWall = (System.nanoTime() - t1) / 1e9;
    boolean same = twin.equals(result);
    result = result.named("services (Kafka)");
    Report report = new Report(List.of(result, twin.named("in-process twin")));
    String md = report.markdown();
    System.out.println();
    System.out.print(md);
    System.out.printf(Locale.ROOT, "%nwall time: %.1f s through Kafka, %.1f s in process%n", wall,
        twinWall);
    System.out.print(latency.summary());
    System.out.println(same
        ? "parity: the services and the in-process twin produced the same table and timeline"
        : "PARITY BROKEN: the services and the in-process twin differ (see the table above)");
    Files.createDirectories(out);
    Files.writeString(out.resolve("report.md"), md, StandardCharsets.UTF_8);
    Files.writeString(out.resolve("report.csv"), report.csv(), StandardCharsets.UTF_8);
    List<Path> charts = Charts.write(out, List.of(result), config.start());
    Path html = out.resolve("report.html");
    HtmlReport.write(html, "Tideline through Kafka: " + hours + " simulated hours, "
        + config.fleetGpus() + " GPUs, seed " + seed, List.of(
            String.format(Locale.ROOT, "Through-Kafka mode: the real services on %s, driven in "
                + "lockstep from %s (%.1f simulated hours in %.0f s wall); %d nodes × %d "
                + "GPUs, seed %d.", bootstrap, start, hours, wall, nodes, config.gpusPerNode(),
                seed),
            "Waits are in simulated time and measure scheduling: the clock advances only when "
                + "every service has consumed everything (lockstep), so transport latency does "
                + "not enter them."),
        report.html(), charts);
    System.out.println("report: " + html.toAbsolutePath());
    if (!same) {
      System.exit(3);
    }
  }

  private static void bar(PrintStream err, Instant now, double done, int running, int queued,
      long decisions) {
    int filled = (int) Math.round(Math.min(1, done) * BAR);
    err.printf(Locale.ROOT, "\r[%s%s] %3.0f%%  %s  running %4d  queued %4d  decisions %6d",
        "#".repeat(filled), ".".repeat(BAR - filled), 100 * Math.min(1, done),
        now.toString().substring(0, 16), running, queued, decisions);
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
