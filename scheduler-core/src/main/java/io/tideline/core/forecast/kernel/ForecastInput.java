package io.tideline.core.forecast.kernel;

import io.tideline.core.kernel.Tick;
import io.tideline.core.kernel.Timed;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.Objects;

/**
 * What the {@link ForecastKernel} is told: facts derived record by record from the topics the
 * forecaster reads (the platform's {@code ForecastHost} maps each Avro record to one input), and
 * the clock. Facts rank by kind among inputs of one instant (nodes, jobs, holidays, GPUs); the
 * order only matters for ties, every fact here commutes with the others of its tick.
 */
public sealed interface ForecastInput extends Timed {

  /** Event time of facts that carry none (a tombstone, a holiday): due at the next tick. */
  Instant TIMELESS = Instant.EPOCH;

  private static String text(String s) {
    return s == null || s.isBlank() ? "" : s;
  }

  /**
   * One GPU seen in one minute ({@code gpu.telemetry}): a sample as it is, or the earliest of
   * several samples of the same GPU and minute ({@link #first}), which is what the forecaster's
   * telemetry stage forwards. The kernel keeps the {@link #first} of everything it is told for a
   * GPU-minute, so one sample per input or one input per GPU-minute decide identically.
   *
   * @param gpuId the GPU
   * @param nodeId its node ("" unknown)
   * @param sampledAt event time of the sample
   * @param stale whether the scrape failed (SampleState.STALE): figures absent, never 0 usage
   * @param serviceId the online service the GPU is attributed to, "" none
   * @param jobId the job the GPU is attributed to, "" none
   */
  record GpuObserved(String gpuId, String nodeId, Instant sampledAt, boolean stale,
      String serviceId, String jobId) implements ForecastInput {

    /** OK before STALE, then earlier, then by attribution: a total order, so {@link #first} commutes. */
    private static final Comparator<GpuObserved> PRECEDENCE =
        Comparator.comparing(GpuObserved::stale).thenComparing(GpuObserved::sampledAt)
            .thenComparing(GpuObserved::serviceId).thenComparing(GpuObserved::jobId)
            .thenComparing(GpuObserved::nodeId);

    public GpuObserved {
      Objects.requireNonNull(gpuId, "gpuId");
      Objects.requireNonNull(sampledAt, "sampledAt");
      nodeId = text(nodeId);
      serviceId = text(serviceId);
      jobId = text(jobId);
      if (gpuId.isBlank()) {
        throw new IllegalArgumentException("gpuId is empty");
      }
    }

    /** The epoch minute of the sample. */
    public long minute() {
      return Math.floorDiv(sampledAt.toEpochMilli(), 60_000L);
    }

    /**
     * Which of two observations of one GPU-minute stands for the minute: an OK one before a STALE
     * one (fresh figures beat absent ones), then the earlier, then by attribution. Commutative,
     * associative and idempotent, so any grouping of a minute's samples gives the same result.
     */
    public static GpuObserved first(GpuObserved a, GpuObserved b) {
      if (!a.gpuId.equals(b.gpuId) || a.minute() != b.minute()) {
        throw new IllegalArgumentException("not the same GPU-minute: " + a + ", " + b);
      }
      return PRECEDENCE.compare(a, b) <= 0 ? a : b;
    }

    @Override
    public Instant at() {
      return sampledAt;
    }

    @Override
    public int rank() {
      return 4;
    }

    @Override
    public String key() {
      return gpuId;
    }
  }

  /**
   * A job was submitted ({@code jobs.submitted}): its workload class (W1) and service.
   *
   * @param workloadClass the W1 class name, e.g. TRAINING
   * @param serviceId the online service it serves, "" none
   */
  record JobDeclared(String jobId, String workloadClass, String serviceId, Instant submittedAt)
      implements ForecastInput {

    public JobDeclared {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(workloadClass, "workloadClass");
      Objects.requireNonNull(submittedAt, "submittedAt");
      serviceId = text(serviceId);
    }

    @Override
    public Instant at() {
      return submittedAt;
    }

    @Override
    public int rank() {
      return 1;
    }

    @Override
    public String key() {
      return jobId;
    }
  }

  /**
   * A job (re)started or ended ({@code jobs.lifecycle}: STARTED / RESUMED, or COMPLETED / FAILED
   * / PREEMPTED; other facts do not change attribution and are not inputs).
   *
   * @param ended whether the job ended (its GPUs' stale carry ends with it)
   */
  record JobRan(String jobId, Instant occurredAt, boolean ended) implements ForecastInput {

    public JobRan {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(occurredAt, "occurredAt");
    }

    @Override
    public Instant at() {
      return occurredAt;
    }

    @Override
    public int rank() {
      return 2;
    }

    @Override
    public String key() {
      return jobId;
    }
  }

  /**
   * A node of the inventory ({@code cluster.inventory}): the GPUs it can lend (JOINED / UPDATED:
   * its GPUs; DRAINED: 0, it takes no new work) and whether it left (LEFT: its GPUs are gone;
   * the inventory has no tombstones, the host refuses them).
   */
  record NodeChanged(String nodeId, int lendableGpus, boolean left, Instant observedAt)
      implements ForecastInput {

    public NodeChanged {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(observedAt, "observedAt");
      if (lendableGpus < 0) {
        throw new IllegalArgumentException("lendable GPUs must not be negative");
      }
    }

    @Override
    public Instant at() {
      return observedAt;
    }

    @Override
    public int rank() {
      return 0;
    }

    @Override
    public String key() {
      return nodeId;
    }
  }

  /**
   * A holiday declared or withdrawn ({@code forecast.holidays}; a tombstone withdraws).
   *
   * @param name the holiday's name ("" when withdrawn)
   * @param declared true to declare, false to withdraw
   * @param declaredAt event time ({@link #TIMELESS} for a tombstone)
   */
  record HolidayChanged(LocalDate date, String name, boolean declared, Instant declaredAt)
      implements ForecastInput {

    public HolidayChanged {
      Objects.requireNonNull(date, "date");
      Objects.requireNonNull(declaredAt, "declaredAt");
      name = text(name);
    }

    @Override
    public Instant at() {
      return declaredAt;
    }

    @Override
    public int rank() {
      return 3;
    }

    @Override
    public String key() {
      return date.toString();
    }
  }

  /** A clock tick ({@code cluster.clock}): the only input the kernel decides on. */
  record Ticked(Tick tick) implements ForecastInput {

    public Ticked {
      Objects.requireNonNull(tick, "tick");
    }

    @Override
    public Instant at() {
      return tick.at();
    }

    @Override
    public int rank() {
      return -1;
    }

    @Override
    public String key() {
      return tick.cluster();
    }
  }
}
