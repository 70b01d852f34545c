package io.tideline.executor;

import io.tideline.core.preemption.PreemptionConfig;
import io.tideline.events.WorkloadClass;
import io.tideline.platform.validation.InputBounds;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything the executor needs to enact, as one immutable value: the Quarkus app builds it from
 * {@link ExecutorConfig} ({@code tideline.executor.*}, where each default is documented), tests
 * build it with {@link #defaults}.
 *
 * @param cluster cluster this executor serves (decisions of other clusters are not ours)
 * @param service service name written into dead letters
 * @param schedulerName pods with this {@code spec.schedulerName} are Tideline's
 * @param gpuResource extended resource that counts whole GPUs
 * @param defaultWorkloadClass class of a pod that names none
 * @param defaultTeam team of a namespace without the team label
 * @param bounds input bounds and submission limits ({@code tideline.intake.*}, the same every
 *     consumer applies through the platform's {@code EventValidator}): what the executor reads
 *     and what it publishes are held to them
 * @param preemption the P4 model's settings (checkpoint-write time is the eviction grace)
 * @param stopMarginSeconds seconds added to the checkpoint-write time for the process to stop
 * @param identity this replica's name in the leader lease
 * @param leaseNamespace namespace of the leader lease
 * @param leaseName name of the leader lease (one active executor per cluster)
 * @param leaseDuration how long a lease holder is leader without renewing
 * @param renewDeadline how long the leader tries to renew before it steps down
 * @param retryPeriod how often candidates try to acquire or renew
 */
public record ExecutorSettings(String cluster, String service, String schedulerName,
    String gpuResource, WorkloadClass defaultWorkloadClass, String defaultTeam,
    InputBounds bounds, PreemptionConfig preemption, long stopMarginSeconds, String identity,
    String leaseNamespace, String leaseName, Duration leaseDuration, Duration renewDeadline,
    Duration retryPeriod) {

  public ExecutorSettings {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(schedulerName, "schedulerName");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(bounds, "bounds");
    if (stopMarginSeconds < 0) {
      throw new IllegalArgumentException("stopMarginSeconds must not be negative");
    }
  }

  /** The documented defaults for {@code cluster}, leader lease in {@code leaseNamespace}. */
  public static ExecutorSettings defaults(String cluster, String identity, String leaseNamespace) {
    return new ExecutorSettings(cluster, "executor-svc", "tideline", "nvidia.com/gpu",
        WorkloadClass.TRAINING, "default", InputBounds.DEFAULTS, PreemptionConfig.DEFAULTS,
        10, identity, leaseNamespace, "tideline-executor-" + cluster, Duration.ofSeconds(15),
        Duration.ofSeconds(10), Duration.ofSeconds(2));
  }

  /** The same settings with other lease timings (tests shorten them). */
  public ExecutorSettings withLease(Duration duration, Duration renew, Duration retry) {
    return new ExecutorSettings(cluster, service, schedulerName, gpuResource,
        defaultWorkloadClass, defaultTeam, bounds, preemption, stopMarginSeconds, identity,
        leaseNamespace, leaseName, duration, renew, retry);
  }

  /** The same settings for another replica. */
  public ExecutorSettings withIdentity(String id) {
    return new ExecutorSettings(cluster, service, schedulerName, gpuResource,
        defaultWorkloadClass, defaultTeam, bounds, preemption, stopMarginSeconds, id,
        leaseNamespace, leaseName, leaseDuration, renewDeadline, retryPeriod);
  }
}
