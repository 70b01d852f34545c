package io.tideline.simulator;

import io.tideline.core.model.JobRequest;
import io.tideline.events.GpuAssignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The world's state of one job (offline job or online instance): where it is in its life, how
 * much of its work is done and kept, what it holds. Only {@link World} changes it.
 *
 * <p>Progress model: a (re)start at {@code startedAt} spends {@code startupSeconds} (restore,
 * communication rebuild after an eviction) before it progresses at {@code speed} (1, or slower
 * across switch tiers, T1). An eviction checkpoints first: the work up to it is kept.
 */
final class TwinJob {

  enum State { PENDING, RUNNING, DONE }

  final JobRequest request;
  final JobSpec spec;
  final int service;
  final Instant submittedAt;

  State state = State.PENDING;
  /** Increments at every start, stop and move: events of an older generation are stale. */
  long generation;
  Instant firstStartAt;
  Instant startedAt;
  double startupSeconds;
  double speed = 1.0;
  int nodesSpanned;
  /** Full-speed work seconds kept at the current (re)start. */
  double workAtStart;
  double owedRestartSeconds;
  int evictions;
  List<GpuAssignment> assignments;
  /** An eviction is in progress (checkpoint being written, or moving). */
  boolean stopping;
  String stopDecision;
  List<GpuAssignment> migrateTo;
  final List<Instant[]> stints = new ArrayList<>();

  TwinJob(JobRequest request, JobSpec spec, int service, Instant submittedAt) {
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

  /** Full-speed work seconds the job needs; online instances run until scaled down. */
  double work() {
    return spec == null ? Double.POSITIVE_INFINITY : spec.durationSeconds();
  }

  Instant productiveFrom() {
    return startedAt.plusMillis(Math.round(startupSeconds * 1000));
  }

  /** Work done at {@code now}. */
  double progressAt(Instant now) {
    double productive = seconds(productiveFrom(), now);
    return workAtStart + Math.max(0, productive) * speed;
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
