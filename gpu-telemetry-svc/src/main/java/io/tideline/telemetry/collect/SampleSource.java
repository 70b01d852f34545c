package io.tideline.telemetry.collect;

import java.time.Instant;
import java.util.List;

/**
 * One way of measuring GPUs: the DCGM exporter, nvidia-smi, or the simulator. The service runs
 * exactly one, chosen by {@code tideline.telemetry.source}; everything after collection (STALE
 * bookkeeping, attribution already applied, Avro, the topic) is shared.
 */
public interface SampleSource {

  /** The collector, as written into {@code GpuSample.source}. */
  io.tideline.events.SampleSource kind();

  /**
   * Reads every target once.
   *
   * @param now event time of this round (the wall clock in production, simulated time under the
   *     simulator); samples without their own timestamp are stamped with it
   */
  List<TargetReading> collect(Instant now);
}
