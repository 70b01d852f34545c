package io.tideline.platform.intake;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.events.JobSubmitted;

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
        e.getDataCacheGb());
  }
}
