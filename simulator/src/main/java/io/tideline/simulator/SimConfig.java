package io.tideline.simulator;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;

/**
 * Every number of the digital twin, so a run is reproducible from its config and seed and no
 * simulation code carries a literal. Numbers taken from REQUIREMENTS.md name their requirement id;
 * the others are documented modelling choices of the twin. These are the world's numbers only
 * (fleet, workload, demand, measurement): how the schedulers decide is the kernels' policies
 * ({@code PlacementPolicy}, {@code PreemptionPolicy}, {@code QuotaKernelConfig},
 * {@code ForecastKernelConfig}) at their shipped defaults, with one setting changed per baseline
 * ({@link Policy}).
 *
 * @param seed seed of every random draw (workload, demand noise); same seed, same results
 * @param days simulated days
 * @param nodes fleet size in nodes: the 847-host Clos table sorted by switch path and truncated
 *     (or replicated, {@code TopologyCsv.scaleTo}) to this many; default 250
 * @param gpusPerNode GPUs per node (HGX boards); default 8, so 250 nodes = 2,000 GPUs
 * @param gpuModel GPU model of every node; default {@code H100}
 * @param start simulated start instant (local midnight of day 0 in {@link #zone})
 * @param zone zone of local days and times (slots, night window)
 * @param demandStep step of the online demand trace; default 10 min (the ServeGen trace)
 * @param tick controller tick: reservation planner, metric samples, active defrag; default 5 min,
 *     so the F2 reserve instant (slot start − 15 min) is always a tick
 * @param onlinePeakShare W2: the online demand peak as a share of the fleet's GPUs; the trace is
 *     scaled so its maximum needs this share; default 0.5
 * @param services the online services the aggregate demand is split into
 * @param serviceNoise relative amplitude (standard deviation) of each service's seeded
 *     multiplicative noise; default 0.05
 * @param noiseCorrelation step-to-step correlation of that noise (AR(1)); default 0.9
 * @param scaleDownStabilisation an autoscaler scales a service down only to the highest need of
 *     this trailing window (hysteresis, like Kubernetes' HPA stabilisation); default 30 min
 * @param jobsPerDay synthetic training/batch submissions per day; default 450
 * @param tenants tenant names the synthetic generator draws from
 * @param criticalShare W1 share of synthetic training jobs marked critical (they may preempt, W4)
 * @param preemptibleShare W4 share of synthetic training jobs declared preemptible
 * @param batchShare share of synthetic jobs that are batch inference
 * @param exploratoryShare share of synthetic training jobs that are exploratory (lowest tier)
 * @param minDurationHours shortest synthetic training run, hours (W3: hours to days)
 * @param maxDurationHours longest synthetic training run, hours
 * @param medianDurationHours median of the log-normal training duration, hours
 * @param ineffectiveWindow a preemption whose preemptor has not started this long after the
 *     decision counts as ineffective
 * @param nightStart start of the night window (F Result: night shared-pool occupancy)
 * @param nightEnd end (exclusive) of the night window
 * @param onlineGuaranteeFraction Q1 online guaranteed = this × historical peak; default 0.7
 * @param offlineGuaranteeCap Q1 offline guaranteed: each tenant's training queue is floored at the
 *     GPUs of its largest key (non-preemptible) training job, so a key job can always run on its
 *     guarantee; the floors together take at most this share of the GPUs the online floor leaves
 *     (scaled down, in whole GPUs, beyond it); default 0.4
 * @param hardSplitHeadroom hard-split baseline: the inference partition is the online peak × (1 +
 *     this), rounded up to whole nodes; default 0.1
 * @param warmStartShare a warm fleet: training jobs (from the same mix) submitted at the start
 *     whose GPUs add up to this share of the fleet — the night's training already queued or
 *     running when the shown day begins, so the morning rise has something to reclaim; default 0
 *     (the study's fleet starts empty and fills over its first day), the demo uses 0.6
 * @param historyDays the services' history before the start (F1's two weeks), told to the
 *     forecaster on {@code gpu.telemetry.batches} before the first tick: per demand step, one
 *     batch per node with a GPU a service held, from the same demand model run over those days; default 0 (the study runs
 *     its own first two weeks), the demo uses 14 so its one shown day is forecast from history
 */
public record SimConfig(
    long seed,
    int days,
    int nodes,
    int gpusPerNode,
    String gpuModel,
    Instant start,
    ZoneId zone,
    Duration demandStep,
    Duration tick,
    double onlinePeakShare,
    List<OnlineService> services,
    double serviceNoise,
    double noiseCorrelation,
    Duration scaleDownStabilisation,
    double jobsPerDay,
    List<String> tenants,
    double criticalShare,
    double preemptibleShare,
    double batchShare,
    double exploratoryShare,
    double minDurationHours,
    double maxDurationHours,
    double medianDurationHours,
    Duration ineffectiveWindow,
    LocalTime nightStart,
    LocalTime nightEnd,
    double onlineGuaranteeFraction,
    double offlineGuaranteeCap,
    double hardSplitHeadroom,
    double warmStartShare,
    int historyDays) {

  /** The default 14-day, 2,000-GPU study. */
  public static final SimConfig DEFAULTS = new SimConfig(
      42L, 14, 250, 8, "H100",
      Instant.parse("2026-11-02T00:00:00Z"), ZoneOffset.UTC,
      Duration.ofMinutes(10), Duration.ofMinutes(5),
      0.5,
      List.of(
          new OnlineService("svc-chat", 0.45, 1, 1.0),
          new OnlineService("svc-code", 0.25, 2, 1.0),
          new OnlineService("svc-embed", 0.20, 1, 0.5),
          new OnlineService("svc-rerank", 0.10, 1, 0.25)),
      0.05, 0.9, Duration.ofMinutes(30),
      450,
      List.of("tenant-ads", "tenant-search", "tenant-research", "tenant-speech", "tenant-vision"),
      0.05, 0.8, 0.15, 0.3,
      1.0, 72.0, 6.0,
      Duration.ofMinutes(5),
      LocalTime.of(0, 0), LocalTime.of(6, 0),
      0.7, 0.4, 0.1, 0.0, 0);

  public SimConfig {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(zone, "zone");
    services = List.copyOf(services);
    tenants = List.copyOf(tenants);
    if (days <= 0 || nodes <= 0 || gpusPerNode <= 0) {
      throw new IllegalArgumentException("days, nodes and gpusPerNode must be positive");
    }
    if (!(onlinePeakShare > 0 && onlinePeakShare < 1)) {
      throw new IllegalArgumentException("onlinePeakShare must be in (0, 1)");
    }
    if (historyDays < 0) {
      throw new IllegalArgumentException("historyDays must be >= 0");
    }
    if (!(warmStartShare >= 0 && warmStartShare <= 1)) {
      throw new IllegalArgumentException("warmStartShare must be in [0, 1]");
    }
    if (tenants.isEmpty() || services.isEmpty()) {
      throw new IllegalArgumentException("need at least one tenant and one service");
    }
  }

  /** The end of the simulated horizon. */
  public Instant end() {
    return start.plus(Duration.ofDays(days));
  }

  /** Fleet GPUs. */
  public int fleetGpus() {
    return nodes * gpusPerNode;
  }

  /** This config with another submission rate (scenario tests under pressure). */
  public SimConfig withJobsPerDay(double rate) {
    return new SimConfig(seed, days, nodes, gpusPerNode, gpuModel, start, zone, demandStep, tick,
        onlinePeakShare, services, serviceNoise, noiseCorrelation, scaleDownStabilisation, rate,
        tenants, criticalShare, preemptibleShare, batchShare, exploratoryShare, minDurationHours,
        maxDurationHours, medianDurationHours, ineffectiveWindow, nightStart, nightEnd,
        onlineGuaranteeFraction, offlineGuaranteeCap, hardSplitHeadroom, warmStartShare,
        historyDays);
  }

  /** This config starting at {@code at} (the through-Kafka mode puts its day near the present). */
  public SimConfig withStart(Instant at) {
    return new SimConfig(seed, days, nodes, gpusPerNode, gpuModel, at, zone, demandStep, tick,
        onlinePeakShare, services, serviceNoise, noiseCorrelation, scaleDownStabilisation,
        jobsPerDay, tenants, criticalShare, preemptibleShare, batchShare, exploratoryShare,
        minDurationHours, maxDurationHours, medianDurationHours, ineffectiveWindow, nightStart,
        nightEnd, onlineGuaranteeFraction, offlineGuaranteeCap, hardSplitHeadroom, warmStartShare,
        historyDays);
  }

  /** This config with another seed, horizon and fleet size (the main's options). */
  public SimConfig with(long seed, int days, int nodes) {
    return new SimConfig(seed, days, nodes, gpusPerNode, gpuModel, start, zone, demandStep, tick,
        onlinePeakShare, services, serviceNoise, noiseCorrelation, scaleDownStabilisation,
        jobsPerDay * nodes / (double) this.nodes,
        tenants, criticalShare, preemptibleShare, batchShare, exploratoryShare, minDurationHours,
        maxDurationHours, medianDurationHours, ineffectiveWindow, nightStart, nightEnd,
        onlineGuaranteeFraction, offlineGuaranteeCap, hardSplitHeadroom, warmStartShare,
        historyDays);
  }

  /** This config with a warm fleet: training worth {@code share} of the GPUs at the start. */
  public SimConfig withWarmStart(double share) {
    return new SimConfig(seed, days, nodes, gpusPerNode, gpuModel, start, zone, demandStep, tick,
        onlinePeakShare, services, serviceNoise, noiseCorrelation, scaleDownStabilisation,
        jobsPerDay, tenants, criticalShare, preemptibleShare, batchShare, exploratoryShare,
        minDurationHours, maxDurationHours, medianDurationHours, ineffectiveWindow, nightStart,
        nightEnd, onlineGuaranteeFraction, offlineGuaranteeCap, hardSplitHeadroom, share,
        historyDays);
  }

  /**
   * This config with {@code days} of online history before the start: the forecaster is told, on
   * {@code gpu.telemetry.batches} before the first tick, what the services held on each of those days.
   */
  public SimConfig withHistory(int days) {
    return new SimConfig(seed, this.days, nodes, gpusPerNode, gpuModel, start, zone, demandStep,
        tick, onlinePeakShare, services, serviceNoise, noiseCorrelation, scaleDownStabilisation,
        jobsPerDay, tenants, criticalShare, preemptibleShare, batchShare, exploratoryShare,
        minDurationHours, maxDurationHours, medianDurationHours, ineffectiveWindow, nightStart,
        nightEnd, onlineGuaranteeFraction, offlineGuaranteeCap, hardSplitHeadroom, warmStartShare,
        days);
  }
}
