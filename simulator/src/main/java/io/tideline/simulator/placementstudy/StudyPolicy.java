package io.tideline.simulator.placementstudy;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.model.JobRequest;

/** A placement policy the study runs: places one pod, or says it does not fit. */
public interface StudyPolicy {

  /** The name in the study's tables. */
  String name();

  /** {@code snapshot} with {@code pod} placed, or {@code null} when it does not fit. */
  ClusterSnapshot place(ClusterSnapshot snapshot, JobRequest pod);
}
