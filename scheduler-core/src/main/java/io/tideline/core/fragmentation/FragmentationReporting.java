package io.tideline.core.fragmentation;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a cluster's fragmentation figure (T2) is worth an event: the first measurement, a material
 * move of the cluster figure, or the report interval passing — all by event time, so a replay
 * publishes the same reports. Between those, the gauges carry the figure; the events carry its
 * history (dashboards, audits, the simulator's comparison) without one event per placement.
 */
public final class FragmentationReporting {

  /**
   * Reporting tunables.
   *
   * @param minChange T2: a move of the cluster figure by at least this much (absolute, the figure is
   *     in [0, 1]) is published at once. Default 0.05.
   * @param interval T2: otherwise the figure is published when this much event time has passed
   *     since the last report. Default 15 minutes (one forecast slot, F1).
   */
  public record Config(double minChange, Duration interval) {

    /** The documented defaults. */
    public static final Config DEFAULTS = new Config(0.05, Duration.ofMinutes(15));

    public Config {
      Objects.requireNonNull(interval, "interval");
      if (!(minChange > 0 && minChange <= 1)) {
        throw new IllegalArgumentException("minChange must be in (0, 1], got " + minChange);
      }
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be positive, got " + interval);
      }
    }
  }

  /** Why a report is due. */
  public enum Trigger {
    /** No report was published before. */
    FIRST,
    /** The cluster figure moved by at least {@link Config#minChange()}. */
    CHANGED,
    /** {@link Config#interval()} passed since the last report. */
    INTERVAL
  }

  private final Config config;

  public FragmentationReporting(Config config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * Whether to publish now.
   *
   * @param now event time of the measurement
   * @param index the cluster figure now
   * @param lastAt event time of the last report, or {@code null} for none
   * @param lastIndex the cluster figure of the last report (ignored when {@code lastAt} is null)
   * @return the trigger, or {@code null} when no report is due
   */
  public Trigger due(Instant now, double index, Instant lastAt, double lastIndex) {
    if (lastAt == null) {
      return Trigger.FIRST;
    }
    // 1. A material move is published whatever the time since the last report.
    if (Math.abs(index - lastIndex) >= config.minChange() - 1e-12) {
      return Trigger.CHANGED;
    }
    // 2. Otherwise once per interval of event time.
    return !now.isBefore(lastAt.plus(config.interval())) ? Trigger.INTERVAL : null;
  }
}
