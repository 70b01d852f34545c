package io.tideline.simulator;

import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.placement.NodeScoring;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs every policy on one seeded scenario and prints the comparison table; writes
 * {@code report.md} and {@code report.csv} into {@code --out}. Options: {@code --days N},
 * {@code --nodes N} (or {@code --gpus N}: {@code ceil(N / gpusPerNode)} nodes, e.g.
 * {@code --gpus 10000} = 1,250 nodes, the 847-host topology replicated), {@code --seed N},
 * {@code --out DIR} (default {@code target/sim}),
 * {@code --jobs FILE} (a job trace CSV, see {@link JobTraceCsv}, instead of the synthetic mix),
 * {@code --policy NAME} (run one policy only, for profiling), {@code --threads N} (policies run
 * in parallel, default one thread per policy; results do not depend on it), {@code
 * --start-eviction RESERVED|MEDIAN|ON_WAIT} (what a reservation's start evicts for, ADR 0039;
 * default the shipped MEDIAN). Also writes the
 * charts ({@link Charts}) and {@code report.html} ({@link HtmlReport}).
 * The wall time reported here is measured in the main only; simulation logic never reads a clock.
 */
public final class SimulatorMain {

  private SimulatorMain() {}

  public static void main(String[] args) throws IOException {
    System.setProperty("java.awt.headless", "true");
    SimConfig d = SimConfig.DEFAULTS;
    long seed = d.seed();
    int days = d.days();
    int nodes = d.nodes();
    Path out = Path.of("target", "sim");
    Path jobs = null;
    String only = null;
    int threads = Policy.ALL.size();
    NodeScoring.Rule scoring = NodeScoring.Rule.BEST_FIT;
    ReservationConfig.StartEviction startEviction = ReservationConfig.DEFAULTS.startEviction();
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--days" -> days = Integer.parseInt(v);
        case "--nodes" -> nodes = Integer.parseInt(v);
        // a fleet of N GPUs: ceil(N / GPUs per node) nodes (10000 = 1,250 nodes, the 847-host
        // Clos table replicated, TopologyCsv.scaleTo)
        case "--gpus" -> nodes = Math.floorDiv(Integer.parseInt(v) + d.gpusPerNode() - 1,
            d.gpusPerNode());
        case "--seed" -> seed = Long.parseLong(v);
        case "--out" -> out = Path.of(v);
        case "--jobs" -> jobs = Path.of(v);
        case "--policy" -> only = v;
        case "--threads" -> threads = Integer.parseInt(v);
        // every policy ranking single-node placements by this rule (ADR 0038)
        case "--node-scoring" -> scoring = NodeScoring.Rule.valueOf(v);
        case "--start-eviction" -> startEviction = ReservationConfig.StartEviction.valueOf(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    SimConfig config = d.with(seed, days, nodes);
    long t0 = System.nanoTime();
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    Scenario scenario;
    if (jobs == null) {
      scenario = Scenario.synthetic(config);
    } else {
      try (var r = Files.newBufferedReader(jobs, StandardCharsets.UTF_8)) {
        scenario = Scenario.of(config, JobTraceCsv.parse(r, config.start()));
      }
    }
    System.out.printf(Locale.ROOT, "%d days, %d nodes × %d GPUs = %d GPUs, seed %d, %d offline "
        + "jobs, online peak %.0f GPUs, trace day share %.1f%%%n", days, nodes,
        config.gpusPerNode(), config.fleetGpus(), seed, scenario.jobs().size(),
        scenario.demand().peakTotal(), 100 * scenario.demand().alignment().dayShare());
    // Policies are independent runs over one immutable scenario: run them on --threads threads;
    // results keep policy order, so the table does not depend on scheduling.
    List<Policy> policies = new ArrayList<>();
    for (Policy p : Policy.ALL) {
      if (only == null || only.equals(p.name())) {
        policies.add(p.withNodeScoring(scoring).withStartEviction(startEviction));
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    List<Future<SimResult>> futures = new ArrayList<>();
    final Scenario sc = scenario;
    for (Policy p : policies) {
      futures.add(pool.submit(() -> {
        long p0 = System.nanoTime();
        long c0 = cpu.getCurrentThreadCpuTime();
        SimResult r = Twin.run(p.name(), Twins.world(sc), Twins.inProcess(sc, p),
            Twin.Settings.of(sc.config()), sc.config().end(), null);
        System.out.printf(Locale.ROOT, "  %-17s wall %6.1f s, cpu %6.1f s%n", p.name(),
            (System.nanoTime() - p0) / 1e9, (cpu.getCurrentThreadCpuTime() - c0) / 1e9);
        return r;
      }));
    }
    List<SimResult> results = new ArrayList<>();
    try {
      for (Future<SimResult> f : futures) {
        results.add(f.get());
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("a policy run failed", e);
    } finally {
      pool.shutdown();
    }
    Report report = new Report(results);
    String md = report.markdown();
    System.out.println();
    System.out.print(md);
    double simWall = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "%nwall time: %.1f s%n", simWall);
    // 4. the files: table (Markdown, CSV), charts (PNG) and the self-contained HTML report
    Files.createDirectories(out);
    Files.writeString(out.resolve("report.md"), md, StandardCharsets.UTF_8);
    Files.writeString(out.resolve("report.csv"), report.csv(), StandardCharsets.UTF_8);
    List<Path> charts = Charts.write(out, results, config.start());
    Path html = out.resolve("report.html");
    HtmlReport.write(html, "Tideline digital twin: " + days + " days, " + config.fleetGpus()
        + " GPUs, seed " + seed, List.of(
            String.format(Locale.ROOT, "Scenario: %d days from %s, %d nodes × %d GPUs = %d GPUs, "
                + "seed %d, %s, %d offline jobs, online peak %.0f GPUs.", days, config.start(),
                nodes, config.gpusPerNode(), config.fleetGpus(), seed,
                jobs == null ? "synthetic workload" : "job trace " + jobs.getFileName(),
                scenario.jobs().size(), scenario.demand().peakTotal()),
            "Command: SimulatorMain " + String.join(" ", args),
            String.format(Locale.ROOT, "Simulation wall time %.1f s on %d threads.", simWall,
                threads)),
        report.html(), charts);
    System.out.println("report: " + html.toAbsolutePath());
  }
}
