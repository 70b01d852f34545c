package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What the kernel remembers of one GPU: the owner of its last OK sample (for the stale carry),
 * when it was last seen, and its observations of the minutes not recorded yet.
 *
 * @param nodeId the GPU's node ("" unknown): a node that leaves forgets its GPUs
 * @param lastOkMinute epoch minute of its last OK sample recorded, or {@code null}
 * @param lastServiceId service of that sample ("" none)
 * @param lastJobId job of that sample ("" none)
 * @param lastSeenMinute epoch minute of its last sample (OK or STALE) recorded, or {@code null}
 * @param open the observation standing for each minute not recorded yet ({@link
 *     GpuObserved#first}), by minute
 */
public record GpuTrack(String nodeId, Long lastOkMinute, String lastServiceId, String lastJobId,
    Long lastSeenMinute, List<GpuObserved> open) {

  public GpuTrack {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(lastServiceId, "lastServiceId");
    Objects.requireNonNull(lastJobId, "lastJobId");
    open = List.copyOf(open);
  }

  /** A GPU first seen now. */
  static GpuTrack first(String nodeId) {
    return new GpuTrack(nodeId, null, "", "", null, List.of());
  }

  /** The observation standing for {@code minute}, or null. */
  GpuObserved at(long minute) {
    for (GpuObserved o : open) {
      if (o.minute() == minute) {
        return o;
      }
    }
    return null;
  }

  /** This track with {@code o} merged into its minute. */
  GpuTrack observe(GpuObserved o) {
    List<GpuObserved> next = new ArrayList<>(open.size() + 1);
    boolean merged = false;
    for (GpuObserved existing : open) {
      if (existing.minute() == o.minute()) {
        next.add(GpuObserved.first(existing, o));
        merged = true;
      } else {
        next.add(existing);
      }
    }
    if (!merged) {
      next.add(o);
      next.sort(Comparator.comparingLong(GpuObserved::minute));
    }
    return new GpuTrack(o.nodeId().isEmpty() ? nodeId : o.nodeId(), lastOkMinute, lastServiceId,
        lastJobId, lastSeenMinute, next);
  }

  /** This track once {@code minute} is recorded with observation {@code o}. */
  GpuTrack recorded(long minute, GpuObserved o) {
    List<GpuObserved> rest = new ArrayList<>(open);
    rest.removeIf(x -> x.minute() == minute);
    return o.stale()
        ? new GpuTrack(nodeId, lastOkMinute, lastServiceId, lastJobId, minute, rest)
        : new GpuTrack(nodeId, minute, o.serviceId(), o.jobId(), minute, rest);
  }
}
