package io.tideline.core.preemption.bench;

import io.tideline.core.model.WorkloadClass;
import io.tideline.core.preemption.PreemptionConfig;
import io.tideline.core.preemption.PreemptionDecision;
import io.tideline.core.preemption.PreemptionPlanner;
import io.tideline.core.preemption.PreemptionRequest;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One preemption decision over {@code jobs} running jobs on a cluster of {@code jobs / 8} nodes ×
 * 8 GPUs (10,000 jobs: 1,250 nodes, 10,000 GPUs; 100,000 jobs: 12,500 nodes, 100,000 GPUs), with
 * the test's node-level feasibility probe. Targets (issue #22): p99 ≤ 1.5 ms at 10,000 running
 * jobs, ≤ 10 ms at 100,000.
 *
 * <p>{@code online-8}: an online scale-up needing one whole 8-GPU node; {@code critical-64}: a
 * critical training gang needing 8 whole nodes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PreemptionBenchmark {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  /** {@code PreemptionPolicy}'s default trace cap. */
  static final int TRACE_MAX = io.tideline.core.preemption.kernel.PreemptionPolicy
      .defaults("bench").traceCandidatesMax();
  static final Instant NEXT_TROUGH = Instant.parse("2026-11-03T00:00:00Z");

  @Param({"online-8", "critical-64"})
  public String preemptor;

  @Param({"10000", "100000"})
  public int jobs;

  private LargeCluster fleet;
  private PreemptionRequest request;
  private final PreemptionPlanner planner = new PreemptionPlanner(PreemptionConfig.DEFAULTS);

  @Setup(Level.Trial)
  public void setUp() {
    fleet = new LargeCluster(42, jobs / 8, jobs, NOW);
    request = switch (preemptor) {
      case "online-8" -> new PreemptionRequest("inf-scale-up", "search", "bob",
          WorkloadClass.ONLINE_INFERENCE, false, true, 8, 1, 600, 0, 0);
      case "critical-64" -> new PreemptionRequest("release-eval", "search", "carol",
          WorkloadClass.TRAINING, true, true, 64, 8, 3600, 0, 0);
      default -> throw new IllegalArgumentException(preemptor);
    };
    int before = fleet.cluster.probes();
    long visitedBefore = fleet.cluster.idsVisited();
    PreemptionDecision d = decide();
    double gpus = fleet.jobs.stream().mapToDouble(j -> j.gpusHeld()).sum();
    System.out.printf("%n[%s] %d jobs on %.0f GPUs: %s, %d victims, cost %.2f GPU-h, gain %.2f"
            + " GPU-h, %d trace lines %s, %d probes over %d ids%n", preemptor, fleet.jobs.size(),
        gpus, d.outcome(), d.victims().size(), d.totalCostGpuHours(), d.gainGpuHours(),
        d.trace().size(), d.trace().stream().collect(java.util.stream.Collectors.groupingBy(
            e -> e.result(), java.util.TreeMap::new, java.util.stream.Collectors.counting())),
        fleet.cluster.probes() - before,
        fleet.cluster.idsVisited() - visitedBefore);
  }

  /** As the kernel calls it: the trace in words for the first 500 of each capped kind. */
  @Benchmark
  public PreemptionDecision decide() {
    return planner.decide(request, fleet.jobs, fleet.cluster, NOW, NEXT_TROUGH, TRACE_MAX);
  }

  /** Every candidate's line in words (the planner's own default). */
  @Benchmark
  public PreemptionDecision decideFullTrace() {
    return planner.decide(request, fleet.jobs, fleet.cluster, NOW, NEXT_TROUGH);
  }
}
