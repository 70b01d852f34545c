package io.tideline.executor;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.events.WorkloadClass;
import java.time.Duration;
import java.util.Optional;

/** The executor's settings ({@code tideline.executor.*}); every default documented here. */
@ConfigMapping(prefix = "tideline.executor")
public interface ExecutorConfig {

  /** Run the executor (off where the simulator is the executor, e.g. {@code ./tideline up}). */
  @WithDefault("false")
  boolean enabled();

  /** Pods with this {@code spec.schedulerName} are Tideline's. */
  @WithDefault("tideline")
  String schedulerName();

  /** Extended resource counting whole GPUs (the NVIDIA device plugin's). */
  @WithDefault("nvidia.com/gpu")
  String gpuResource();

  /** Workload class of a pod that declares none. */
  @WithDefault("TRAINING")
  WorkloadClass defaultWorkloadClass();

  /** Team of a namespace without the {@code tideline.io/team} label. */
  @WithDefault("default")
  String defaultTeam();

  /** Seconds added to the P4 checkpoint-write time for the process to stop after its checkpoint. */
  @WithDefault("10")
  long stopMarginSeconds();

  /** This replica's name in the lease; default the host name (the pod name in a Deployment). */
  Optional<String> identity();

  /** Namespace of the leader lease; default the pod's own namespace, else {@code default}. */
  Optional<String> leaseNamespace();

  /** Lease name; default {@code tideline-executor-<cluster>}. */
  Optional<String> leaseName();

  /** How long a leader keeps the lease without renewing (client-go's default 15 s). */
  @WithDefault("15s")
  Duration leaseDuration();

  /** How long the leader tries to renew before stepping down (10 s). */
  @WithDefault("10s")
  Duration renewDeadline();

  /** How often candidates try to acquire or renew (2 s). */
  @WithDefault("2s")
  Duration retryPeriod();

  /** Informer resync: every pod is looked at again this often (a safety net, 60 s). */
  @WithDefault("60s")
  Duration resync();
}
