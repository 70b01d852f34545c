package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;

/** Test builder for {@link PreemptionRequest}: an 8-GPU online scale-up waiting 10 minutes. */
final class Requests {

  private final String jobId;
  private String tenant = "search";
  private String user = "bob";
  private WorkloadClass workloadClass = WorkloadClass.ONLINE_INFERENCE;
  private boolean critical;
  private boolean rightGranted = true;
  private int gpus = 8;
  private int nodes = 1;
  private long waitSeconds = 600;
  private double reservationValue;
  private double gpuHoursConsumed;

  private Requests(String jobId) {
    this.jobId = jobId;
  }

  static Requests online(String jobId) {
    return new Requests(jobId);
  }

  static Requests training(String jobId) {
    return new Requests(jobId).workloadClass(WorkloadClass.TRAINING);
  }

  Requests tenant(String v) {
    tenant = v;
    return this;
  }

  Requests workloadClass(WorkloadClass v) {
    workloadClass = v;
    return this;
  }

  Requests critical(boolean v) {
    critical = v;
    return this;
  }

  Requests rightGranted(boolean v) {
    rightGranted = v;
    return this;
  }

  Requests gpus(int v) {
    gpus = v;
    return this;
  }

  Requests nodes(int v) {
    nodes = v;
    return this;
  }

  Requests waitSeconds(long v) {
    waitSeconds = v;
    return this;
  }

  Requests reservationValue(double v) {
    reservationValue = v;
    return this;
  }

  Requests gpuHoursConsumed(double v) {
    gpuHoursConsumed = v;
    return this;
  }

  PreemptionRequest build() {
    return new PreemptionRequest(jobId, tenant, user, workloadClass, critical, rightGranted, gpus,
        nodes, waitSeconds, reservationValue, gpuHoursConsumed);
  }
}
