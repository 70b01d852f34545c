package io.tideline.core.kernel;

import java.time.Instant;
import java.util.Objects;

/**
 * A clock tick of a cluster: the only input on which a kernel decides. At a tick at {@code at}
 * the kernel applies, in canonical order, every buffered input whose event time is strictly
 * before {@code at}, then runs its cycle with {@code now = at} (see {@link Inbox} and the
 * package documentation).
 *
 * @param at the cluster time of the tick
 * @param cluster the cluster the tick belongs to
 */
public record Tick(Instant at, String cluster) {

  public Tick {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(cluster, "cluster");
  }
}
