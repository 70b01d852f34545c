package io.tideline.core.scheduling;

import io.tideline.core.fragmentation.PastMigration;
import java.time.Instant;
import java.util.List;

/**
 * The placement kernel's clock and gates: the last tick ({@code null} before the first), when
 * active and passive defragmentation last ran, the last fragmentation report, and the migrations
 * of the T4 window.
 *
 * @param now time of the last tick, or {@code null}
 * @param lastActiveDefrag last active round, or {@code null}
 * @param lastPassiveDefrag last passive plan, or {@code null}
 * @param lastReportAt last fragmentation report, or {@code null}
 * @param lastReportIndex its cluster figure
 * @param migrations migrations executed in the T4 window
 */
public record PlacementMeta(Instant now, Instant lastActiveDefrag, Instant lastPassiveDefrag,
    Instant lastReportAt, double lastReportIndex, List<PastMigration> migrations) {

  /** Before the first tick. */
  public static final PlacementMeta START = new PlacementMeta(null, null, null, null, 0,
      List.of());

  public PlacementMeta {
    migrations = List.copyOf(migrations);
  }

  public PlacementMeta withNow(Instant t) {
    return new PlacementMeta(t, lastActiveDefrag, lastPassiveDefrag, lastReportAt,
        lastReportIndex, migrations);
  }

  public PlacementMeta withActiveDefrag(Instant t) {
    return new PlacementMeta(now, t, lastPassiveDefrag, lastReportAt, lastReportIndex,
        migrations);
  }

  public PlacementMeta withPassiveDefrag(Instant t) {
    return new PlacementMeta(now, lastActiveDefrag, t, lastReportAt, lastReportIndex,
        migrations);
  }

  public PlacementMeta withReport(Instant t, double index) {
    return new PlacementMeta(now, lastActiveDefrag, lastPassiveDefrag, t, index, migrations);
  }

  public PlacementMeta withMigrations(List<PastMigration> m) {
    return new PlacementMeta(now, lastActiveDefrag, lastPassiveDefrag, lastReportAt,
        lastReportIndex, m);
  }
}
