package io.tideline.telemetry.collect.sim;

import io.tideline.events.GpuSample;
import io.tideline.telemetry.collect.SampleSource;
import io.tideline.telemetry.collect.TargetReading;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The simulator's GPUs: the simulator pushes the samples it generates (in simulated time, with
 * {@code source = SIMULATOR}); each collection round drains them onto gpu.telemetry like any
 * other source. Only the interface lives here — the digital twin is the simulator's.
 */
public final class SimulatorSampleSource implements SampleSource {

  private final ConcurrentLinkedQueue<GpuSample> pending = new ConcurrentLinkedQueue<>();

  /** Accepts one simulated sample; refuses one that claims another collector. */
  public void push(GpuSample sample) {
    if (sample.getSource() != io.tideline.events.SampleSource.SIMULATOR) {
      throw new IllegalArgumentException("simulated sample " + sample.getGpuId()
          + " must have source SIMULATOR, got " + sample.getSource());
    }
    pending.add(sample);
  }

  @Override
  public io.tideline.events.SampleSource kind() {
    return io.tideline.events.SampleSource.SIMULATOR;
  }

  @Override
  public List<TargetReading> collect(Instant now) {
    List<GpuSample> drained = new ArrayList<>();
    for (GpuSample s; (s = pending.poll()) != null; ) {
      drained.add(s);
    }
    return List.of(TargetReading.ok("simulator", drained, 0));
  }
}
