package io.tideline.executor;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The times of lifecycle facts, read from the pods the kubelet reports (container start and
 * finish times), so a fact carries when it happened, not when the executor noticed; the clock is
 * the fallback only where the pod says nothing.
 */
final class PodTimes {

  private PodTimes() {}

  static Instant created(Pod pod) {
    String ts = pod.getMetadata().getCreationTimestamp();
    return ts == null ? Instant.EPOCH : Instant.parse(ts);
  }

  /** When the last pod of the gang started running. */
  static Instant running(List<Pod> pods, Clock clock) {
    Instant latest = null;
    for (Pod p : pods) {
      Instant t = null;
      if (p.getStatus() != null) {
        for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
          if (c.getState() != null && c.getState().getRunning() != null
              && c.getState().getRunning().getStartedAt() != null) {
            Instant s = Instant.parse(c.getState().getRunning().getStartedAt());
            t = t == null || s.isAfter(t) ? s : t;
          }
        }
        if (t == null && p.getStatus().getStartTime() != null) {
          t = Instant.parse(p.getStatus().getStartTime());
        }
      }
      if (t == null) {
        return clock.instant();
      }
      latest = latest == null || t.isAfter(latest) ? t : latest;
    }
    return latest == null ? clock.instant() : latest;
  }

  /** When the last container of the gang finished. */
  static Instant finished(List<Pod> pods, Clock clock) {
    Instant latest = null;
    for (Pod p : pods) {
      if (p.getStatus() == null) {
        continue;
      }
      for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
        if (c.getState() != null && c.getState().getTerminated() != null
            && c.getState().getTerminated().getFinishedAt() != null) {
          Instant f = Instant.parse(c.getState().getTerminated().getFinishedAt());
          latest = latest == null || f.isAfter(latest) ? f : latest;
        }
      }
    }
    return latest == null ? clock.instant() : latest;
  }
}
