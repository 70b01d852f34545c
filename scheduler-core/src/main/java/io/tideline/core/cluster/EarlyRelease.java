package io.tideline.core.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * F3 early release: the forecaster over-forecast a service, so it gives {@code n} reserved GPUs back
 * before the reservation ends; from then on anyone may use them (not only preemptible work). The
 * release names the service and a count, not GPUs (the forecaster does not know them), so this
 * picks which GPUs go:
 *
 * <ol>
 *   <li>the service's reservations still in force at {@code now}, earliest start first (the one in
 *       progress before one ahead), id as tie-break;
 *   <li>inside each, GPUs no job uses first (they are useful to others at once), then GPUs the
 *       service's own instances use (the instances keep running, the GPU is simply no longer
 *       reserved), each in GPU order;
 *   <li>until {@code n} GPUs are released; a reservation left with no GPU is dropped.
 * </ol>
 */
public final class EarlyRelease {

  private EarlyRelease() {}

  /**
   * The reservations the release changes, as they must stand afterwards.
   *
   * @param released the GPUs given back, in release order
   * @param changed every reservation that lost GPUs, with the GPUs it keeps (empty: drop it)
   */
  public record Result(List<GpuRef> released, List<Reservation> changed) {
    public Result {
      released = List.copyOf(released);
      changed = List.copyOf(changed);
    }
  }

  /** Releases up to {@code gpus} GPUs of {@code serviceId}'s reservations in {@code snapshot}. */
  public static Result release(ClusterSnapshot snapshot, String serviceId, int gpus, Instant now) {
    List<Reservation> mine = new ArrayList<>();
    for (Reservation r : snapshot.reservations().values()) {
      if (r.serviceId().equals(serviceId) && r.activeAt(now) && !r.gpus().isEmpty()) {
        mine.add(r);
      }
    }
    mine.sort(Comparator.comparing(Reservation::startsAt).thenComparing(Reservation::id));
    List<GpuRef> released = new ArrayList<>();
    List<Reservation> changed = new ArrayList<>();
    for (Reservation r : mine) {
      if (released.size() >= gpus) {
        break;
      }
      // 2. unused GPUs first, then the ones the service's instances hold
      List<GpuRef> order = new ArrayList<>();
      for (boolean idle : new boolean[] {true, false}) {
        for (GpuRef g : r.gpus()) {
          if (snapshot.ledger(g.nodeId()).isIdle(g.gpuIndex()) == idle) {
            order.add(g);
          }
        }
      }
      SortedSet<GpuRef> kept = new TreeSet<>(r.gpus());
      for (GpuRef g : order) {
        if (released.size() >= gpus) {
          break;
        }
        kept.remove(g);
        released.add(g);
      }
      changed.add(r.withGpus(kept));
    }
    return new Result(released, changed);
  }
}
