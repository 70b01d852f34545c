package io.tideline.core.forecast.kernel;

/**
 * A node of the inventory that can lend GPUs (F3 over-issue bound).
 *
 * @param gpus GPUs that can take work (a JOINED or UPDATED node's; DRAINED and LEFT nodes are
 *     not kept)
 */
public record NodeGpus(int gpus) {
  public NodeGpus {
    if (gpus <= 0) {
      throw new IllegalArgumentException("a kept node lends at least one GPU: " + gpus);
    }
  }
}
