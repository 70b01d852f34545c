package io.tideline.telemetry.collect;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a failed collection into explicit STALE samples. When a target (one node's exporter)
 * cannot be read, every GPU last seen from it gets a sample with {@code state = STALE} and null
 * figures — a distinct state that no consumer may read as 0% usage (an idle-reclaim decision on a
 * GPU we cannot see would be wrong). The next good read of the target sends OK samples again,
 * which clears the state. A GPU absent from a good read is forgotten, not marked stale.
 *
 * <p>Pure bookkeeping, no I/O; not thread-safe (one collector loop owns it).
 */
public final class StaleTracker {

  private final Map<String, Map<String, GpuSample>> lastSeenByTarget = new HashMap<>();
  private final Map<String, Integer> staleByTarget = new HashMap<>();

  /**
   * Applies one round.
   *
   * @return the samples to publish: the good ones as read, and a STALE one per GPU of each failed
   *     target, stamped {@code now}
   */
  public List<GpuSample> apply(List<TargetReading> readings, Instant now) {
    List<GpuSample> out = new ArrayList<>();
    for (TargetReading r : readings) {
      if (r.failure().isEmpty()) {
        // 1. a good read: remember identities, clear any stale mark, pass the samples through.
        Map<String, GpuSample> seen = new LinkedHashMap<>();
        for (GpuSample s : r.samples()) {
          seen.put(s.getGpuId(), s);
        }
        lastSeenByTarget.put(r.target(), seen);
        staleByTarget.remove(r.target());
        out.addAll(r.samples());
      } else {
        // 2. a failed read: one STALE sample per GPU last seen from this target.
        Map<String, GpuSample> seen = lastSeenByTarget.getOrDefault(r.target(), Map.of());
        for (GpuSample last : seen.values()) {
          out.add(stale(last, now));
        }
        staleByTarget.put(r.target(), seen.size());
      }
    }
    return out;
  }

  /** GPUs currently STALE. */
  public int staleGpus() {
    return staleByTarget.values().stream().mapToInt(Integer::intValue).sum();
  }

  static GpuSample stale(GpuSample last, Instant now) {
    return GpuSample.newBuilder()
        .setGpuId(last.getGpuId())
        .setCluster(last.getCluster())
        .setNodeId(last.getNodeId())
        .setGpuIndex(last.getGpuIndex())
        .setModel(last.getModel())
        .setSampledAt(now)
        .setState(SampleState.STALE)
        .setUtilizationPct(null)
        .setMemoryUsedMiB(null)
        .setMemoryFreeMiB(null)
        .setPowerWatts(null)
        .setTemperatureC(null)
        // Attribution is a fact about the pod, not a measurement: keep it so a consumer knows
        // whose GPU it cannot see.
        .setNamespace(last.getNamespace())
        .setPod(last.getPod())
        .setContainer(last.getContainer())
        .setJobId(last.getJobId())
        .setServiceId(last.getServiceId())
        .setSource(last.getSource())
        .build();
  }
}
