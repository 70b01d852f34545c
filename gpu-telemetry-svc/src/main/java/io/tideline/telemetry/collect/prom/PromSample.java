package io.tideline.telemetry.collect.prom;

import java.util.Map;

/**
 * One sample line of the Prometheus text exposition format.
 *
 * @param name metric name
 * @param labels label names to (unescaped) values, in the order written
 * @param value the value; may be NaN or infinite, as the format allows
 * @param timestampMillis the optional timestamp (ms since the epoch), or null when absent
 */
public record PromSample(String name, Map<String, String> labels, double value, Long timestampMillis) {

  /** The label's value, or null when the sample does not carry it. */
  public String label(String key) {
    return labels.get(key);
  }
}
