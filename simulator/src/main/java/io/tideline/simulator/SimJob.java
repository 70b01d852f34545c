package io.tideline.simulator;

import io.tideline.core.model.JobRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The twin's mutable state of one job (offline job or online instance): where it is in its life,
 * how much of its work is done and kept, and what it has cost. Only {@link Simulation} changes it.
 *
 * <p>Progress model: a (re)start at {@code startedAt} spends {@code startupSeconds} (restore, comm
 * rebuild, cache warm-up after a preemption; the victims' checkpoint write for a preemptor) before
 * it progresses at {@code speed} (1, or slower across switch domains, T1). Checkpoints complete
 * every {@code intervalSeconds} of productive time; an eviction keeps the work up to the last one.
 */
final class SimJob {

  enum State { PENDING, RUNNING, DONE, CANCELLED }

  final JobRequest request;
  final JobSpec spec;
  final int service;
  final Instant submittedAt;

  State state = State.PENDING;
  long generation;
  Instant firstStartAt;
  Instant startedAt;
  double startupSeconds;
  double speed = 1.0;
  int nodesSpanned;
  /** Full-speed work seconds kept at the current (re)start. */
  double workAtStart;
  Instant lastPreemptedAt;
  /** A preempted job waits until this instant before it is offered to placement (P3 cooldown). */
  Instant notBefore;
  Instant lastPreemptAttempt;
  Instant lastDefragAttempt;
  int boost;
  int evictions;
  double gpuHoursConsumed;
  Instant finishedAt;
  /** Restart delay owed from the last eviction (cost model restore + comm + warm-up). */
  double owedRestartSeconds;
  final List<Instant[]> stints = new ArrayList<>();

  SimJob(JobRequest request, JobSpec spec, int service, Instant submittedAt) {
    this.request = request;
    this.spec = spec;
    this.service = service;
    this.submittedAt = submittedAt;
  }

  boolean online() {
    return spec == null;
  }

  String id() {
    return request.jobId();
  }

  double gpus() {
    return request.gpuDemand();
  }

  /** Full-speed work seconds the job needs in total; online instances run until scaled down. */
  double work() {
    return spec == null ? Double.POSITIVE_INFINITY : spec.durationSeconds();
  }

  Instant productiveFrom() {
    return startedAt.plusMillis(Math.round(startupSeconds * 1000));
  }

  /** Work done (kept or not) at {@code now}. */
  double progressAt(Instant now) {
    double productive = seconds(productiveFrom(), now);
    return workAtStart + Math.max(0, productive) * speed;
  }

  /** The last completed checkpoint since the (re)start, or {@code null}. */
  Instant lastCheckpointAt(Instant now) {
    if (request.checkpoint() == null) {
      return null;
    }
    long interval = request.checkpoint().intervalSeconds();
    double productive = seconds(productiveFrom(), now);
    if (interval <= 0 || productive < interval) {
      return null;
    }
    long k = (long) Math.floor(productive / interval);
    return productiveFrom().plusSeconds(k * interval);
  }

  /** Work kept if evicted at {@code now}: up to the last checkpoint, all of it without one. */
  double keptWorkAt(Instant now) {
    if (request.checkpoint() == null) {
      return 0;
    }
    Instant ckpt = lastCheckpointAt(now);
    return ckpt == null ? workAtStart : progressAt(ckpt);
  }

  /** When the current run completes its work, or {@code null} for an online instance. */
  Instant expectedEnd() {
    if (online()) {
      return null;
    }
    double remaining = Math.max(0, work() - workAtStart) / speed;
    return productiveFrom().plusMillis((long) Math.ceil(remaining * 1000));
  }

  static double seconds(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }
}
