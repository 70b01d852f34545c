package io.tideline.core.quota;

import java.time.Instant;

/**
 * A running job's claim on quota: how much of it counts against its queue's guarantee and how much
 * is borrowed from the shared pool. A job with any borrowed part is preemptible as a whole (a gang
 * cannot lose half its GPUs).
 *
 * @param jobId the job
 * @param queue path of the queue it is charged to
 * @param guaranteedGpus part counted against the queue's floor
 * @param borrowedGpus part borrowed beyond the floor (Q3)
 * @param admittedAt event time of admission (fair-share accrual starts here)
 */
public record Allocation(
    String jobId, String queue, double guaranteedGpus, double borrowedGpus, Instant admittedAt) {

  public Allocation {
    guaranteedGpus = Gpus.snap(guaranteedGpus);
    borrowedGpus = Gpus.snap(borrowedGpus);
  }

  public double gpus() {
    return guaranteedGpus + borrowedGpus;
  }

  /** Whether the job runs (at least partly) on borrowed, preemptible capacity. */
  public boolean borrowing() {
    return Gpus.positive(borrowedGpus);
  }
}
