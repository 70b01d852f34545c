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
 * One preemption decision over 10,000 running jobs on a 10,000-GPU cluster (1,250 × 8 GPUs),
 * with the test's node-level feasibility probe. Target: p99 < 10 ms.
 *
 * <p>{@code online-8}: an online scale-up needing one whole 8-GPU node; {@code critical-64}: a
 * critical training gang needing 8 whole nodes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PreemptionBenchmark {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final Instant NEXT_TROUGH = Instant.parse("2026-11-03T00:00:00Z");

  @Param({"online-8", "critical-64"})
  public String preemptor;

  private LargeCluster fleet;
  private PreemptionRequest request;
  private final PreemptionPlanner planner = new PreemptionPlanner(PreemptionConfig.DEFAULTS);

  @Setup(Level.Trial)
  public void setUp() {
    fleet = new LargeCluster(42, 1250, 10_000, NOW);
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
            + " GPU-h, %d trace lines, %d probes over %d ids%n", preemptor, fleet.jobs.size(), gpus,
        d.outcome(), d.victims().size(), d.totalCostGpuHours(), d.gainGpuHours(),
        d.trace().size(), fleet.cluster.probes() - before,
        fleet.cluster.idsVisited() - visitedBefore);
  }

  @Benchmark
  public PreemptionDecision decide() {
    return planner.decide(request, fleet.jobs, fleet.cluster, NOW, NEXT_TROUGH);
  }
}
