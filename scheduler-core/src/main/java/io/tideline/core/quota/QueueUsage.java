package io.tideline.core.quota;

/**
 * A queue's current usage, split into what counts against its guarantee and what it borrows.
 *
 * @param guaranteedUsed GPUs in use counted against the floor (never above it at admission time)
 * @param borrowedUsed GPUs in use borrowed beyond the floor
 */
public record QueueUsage(double guaranteedUsed, double borrowedUsed) {

  public static final QueueUsage NONE = new QueueUsage(0, 0);

  public QueueUsage {
    guaranteedUsed = Gpus.snap(guaranteedUsed);
    borrowedUsed = Gpus.snap(borrowedUsed);
  }

  public double total() {
    return guaranteedUsed + borrowedUsed;
  }

  QueueUsage plus(Allocation a) {
    return new QueueUsage(guaranteedUsed + a.guaranteedGpus(), borrowedUsed + a.borrowedGpus());
  }

  QueueUsage minus(Allocation a) {
    return new QueueUsage(guaranteedUsed - a.guaranteedGpus(), borrowedUsed - a.borrowedGpus());
  }
}
