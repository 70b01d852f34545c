package io.tideline.telemetry.collect;

import io.tideline.events.GpuSample;
import java.util.List;
import java.util.Optional;

/**
 * What one collection target (one node's exporter, one nvidia-smi run, the simulator) gave in one
 * round: its samples, how many lines were skipped as malformed, or why it failed as a whole.
 *
 * @param target stable name of the target (the key the STALE bookkeeping uses)
 * @param samples samples measured now (empty when the target failed)
 * @param malformedLines lines skipped because they did not parse
 * @param failure why the target could not be read at all; empty when it was read
 */
public record TargetReading(
    String target, List<GpuSample> samples, int malformedLines, Optional<String> failure) {

  public static TargetReading ok(String target, List<GpuSample> samples, int malformedLines) {
    return new TargetReading(target, List.copyOf(samples), malformedLines, Optional.empty());
  }

  public static TargetReading failed(String target, String reason) {
    return new TargetReading(target, List.of(), 0, Optional.of(reason));
  }
}
