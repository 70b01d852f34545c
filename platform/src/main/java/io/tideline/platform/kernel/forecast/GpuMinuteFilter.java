package io.tideline.platform.kernel.forecast;

import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the samples are (a telemetry partition), drops the samples that cannot change what the
 * forecast kernel will make of their GPU-minute: the kernel keeps, per GPU and minute, the
 * {@link GpuObserved#first} of every observation it is told, so a sample that is not first among
 * those already passed on for its GPU-minute changes nothing and need not cross the network.
 * What passes is the original record, untouched.
 *
 * <p>No policy and no durable state: it remembers, per GPU, the observation standing for the
 * latest minute it passed on. After a restart it remembers nothing and passes the next sample of
 * each GPU again, which the kernel merges to the same result (first is idempotent); a sample of
 * an older minute is always passed. So the kernel's decisions are the same with this filter, with
 * another grouping of partitions, or without it (the simulator's twin feeds every sample).
 */
public final class GpuMinuteFilter {

  private final Map<String, GpuObserved> standing = new HashMap<>();

  /** Whether {@code o} must be passed on to the kernel. */
  public boolean pass(GpuObserved o) {
    GpuObserved known = standing.get(o.gpuId());
    if (known == null || o.minute() > known.minute()) {
      standing.put(o.gpuId(), o);
      return true;
    }
    if (o.minute() < known.minute()) {
      return true;
    }
    GpuObserved first = GpuObserved.first(known, o);
    if (first.equals(known)) {
      return false;
    }
    standing.put(o.gpuId(), first);
    return true;
  }

  /** Forgets everything (a task re-initialised). */
  public void clear() {
    standing.clear();
  }
}
