package io.tideline.platform.intake;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.model.WorkloadClass;
import io.tideline.events.JobSubmitted;
import io.tideline.events.ResourceQuantities;
import java.util.Map;
import java.util.TreeMap;

/** Maps the {@code jobs.submitted} contract onto the decision core's {@link JobRequest}. */
public final class JobRequests {

  private JobRequests() {}

  public static JobRequest fromEvent(JobSubmitted e) {
    var r = e.getResources();
    var cp = e.getCheckpoint();
    return new JobRequest(
        e.getJobId(),
        e.getTenant(),
        e.getTeam(),
        e.getUser(),
        e.getWorkloadClass() == null ? null : WorkloadClass.valueOf(e.getWorkloadClass().name()),
        e.getCritical(),
        e.getPreemptible(),
        e.getPreemptionRight(),
        e.getServiceId(),
        r == null ? 0 : r.getGpuCount(),
        r == null ? 1.0 : r.getGpuShare(),
        r == null ? 1 : r.getGangSize(),
        r == null ? 0 : r.getNodes(),
        r == null ? null : r.getAllowedGpuModels(),
        e.getSubmittedAt(),
        e.getDeadline(),
        e.getExpectedDurationSeconds(),
        cp == null ? null : new CheckpointProfile(cp.getStateSizeGb(),
            cp.getStorageBandwidthGbPerSec(), cp.getWriteShards(), cp.getIntervalSeconds()),
        e.getDataCacheGb(),
        r == null ? Resources.NONE : resources(r.getPerWorker()));
  }

  /** CPU, memory, extended resources of a contract (ADR 0030); null reads as none. */
  public static Resources resources(ResourceQuantities q) {
    if (q == null) {
      return Resources.NONE;
    }
    TreeMap<String, Long> ext = new TreeMap<>();
    if (q.getExtended() != null) {
      for (Map.Entry<String, Long> e : q.getExtended().entrySet()) {
        ext.put(e.getKey(), e.getValue());
      }
    }
    return ext.isEmpty() ? Resources.of(q.getCpuMillis(), q.getMemoryBytes())
        : new Resources(q.getCpuMillis(), q.getMemoryBytes(), ext);
  }

  /**
   * The contract of CPU, memory, extended resources: null when nothing is declared or asked, the
   * field's default (ADR 0030: the contracts carry a nullable union, not a record default, which
   * Avro builds through a class loader Quarkus's tests do not share, and null costs one byte).
   */
  public static ResourceQuantities quantities(Resources r) {
    if (r == null || r.isNone()) {
      return null;
    }
    return new ResourceQuantities(r.cpuMillis(), r.memoryBytes(), new TreeMap<>(r.extended()));
  }
}
