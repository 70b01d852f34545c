package io.tideline.simulator;

import java.util.Objects;

/**
 * One online inference service of the twin (W2): its share of the aggregate demand trace and the
 * fixed shape of its instances (whole GPUs, or a fraction of one GPU for small models, T2).
 *
 * @param id service id (the reservation and forecast key)
 * @param demandShare share of the aggregate online demand this service serves
 * @param gpusPerInstance whole GPUs per instance (1 for a fractional instance)
 * @param gpuShare share of one GPU per instance when fractional, 1.0 otherwise
 */
public record OnlineService(String id, double demandShare, int gpusPerInstance, double gpuShare) {

  public OnlineService {
    Objects.requireNonNull(id, "id");
    if (!(demandShare > 0 && demandShare <= 1) || gpusPerInstance <= 0
        || !(gpuShare > 0 && gpuShare <= 1) || (gpusPerInstance > 1 && gpuShare < 1)) {
      throw new IllegalArgumentException("bad service shape " + id);
    }
  }

  /** GPUs one instance occupies. */
  public double instanceGpus() {
    return gpusPerInstance == 1 ? gpuShare : gpusPerInstance;
  }
}
